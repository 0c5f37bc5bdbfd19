@testable import MeterCore
import Testing
import TestSupport

/// The pipeline's measurements (`MeterPipeline.measurements`): what the settings ask for, in
/// the order frames are filled, and the block forms computed for them.
@Suite struct MeasurementListTests {
    static func names(_ settings: MeterSettings, live: Bool = false) throws -> [String] {
        let valid = try ValidSettings(settings)
        let transform = settings.bands > 0 ? ReferenceFFT(size: settings.fftSize) : nil
        return MeterPipeline.measurements(valid, transform: transform, live: live, deferBands: false)
            .map { String(describing: type(of: $0)) }
    }

    static func everything(bands: Int, octaves: Int) throws -> MeterSettings {
        var s = MeterSettings(bands: bands, events: EventSettings(), loudness: true, spl: SoundLevelSettings())
        s.octaves = octaves
        s.meter = .ppm1
        s.alarms = [try AlarmSpec.parse("low:rms_db<-40/1")]
        return s
    }

    @Test func levelsAloneByDefault() throws {
        #expect(try Self.names(MeterSettings()) == ["LevelMeasurement"])
    }

    /// The readings first, then events and alarms, which compare them; the ballistics after
    /// the levels they read.
    @Test func everythingInFillOrder() throws {
        #expect(try Self.names(Self.everything(bands: 64, octaves: 0)) == [
            "LevelMeasurement", "LoudnessMeasurement", "SoundLevelMeasurement", "EventMeasurement",
            "AlarmMeasurement", "BallisticsMeasurement", "SpectrumMeasurement"])
        #expect(try Self.names(Self.everything(bands: 0, octaves: 3)) == [
            "LevelMeasurement", "LoudnessMeasurement", "SoundLevelMeasurement", "EventMeasurement",
            "AlarmMeasurement", "OctaveMeasurement", "BallisticsMeasurement"])
    }

    /// One or two channels' levels (and events) read the interleaved block: no split, no mix.
    @Test(arguments: [1, 2]) func levelsReadTheBlockAsFed(channels: Int) throws {
        var s = MeterSettings(channels: channels, events: EventSettings())
        s.alarms = [try AlarmSpec.parse("low:rms_db<-40/1")]
        #expect(try MeterPipeline(settings: ValidSettings(s)).signalNeeds.isEmpty)
        #expect(try MeterPipeline(settings: ValidSettings(MeterSettings(channels: 3))).signalNeeds == .planar)
    }

    /// Bands read the mono mix, made from the interleaved block: no split unless another
    /// measurement reads one (loudness, the sound level meter).
    @Test func bandsGetTheMonoMixWithoutASplit() throws {
        let p = try MeterPipeline(settings: ValidSettings(MeterSettings(bands: 8)), transform: ReferenceFFT(size: 2048))
        #expect(p.signalNeeds == .mono)
        let both = try MeterPipeline(settings: ValidSettings(MeterSettings(bands: 8, loudness: true)), transform: ReferenceFFT(size: 2048))
        #expect(both.signalNeeds == [.planar, .mono])
    }

    /// The mono mix is each frame's channels summed in order, then scaled by 1/channels: the
    /// same bits as mixing the split channels run by run did.
    @Test(arguments: [2, 3, 6]) func theMonoMixIsTheMeanInChannelOrder(channels: Int) throws {
        var s = MeterSettings(channels: channels, bands: 8)
        s.loudness = channels == 3  // with a split beside it too
        let p = try MeterPipeline(settings: ValidSettings(s), transform: ReferenceFFT(size: 2048))
        var rng = SeededRNG(seed: UInt64(channels))
        let n = 1000
        let x = (0..<(n * channels)).map { _ in Float(rng.signed()) }
        let mixed = x.withUnsafeBufferPointer { b in
            let block = p.signals(b.baseAddress!, frames: n)
            return Array(UnsafeBufferPointer(start: block.mono!, count: n))
        }
        let inv = 1 / Float(channels)
        for i in 0..<n {
            var m = x[i * channels]
            for c in 1..<channels { m += x[i * channels + c] }
            m *= inv
            #expect(mixed[i].bitPattern == m.bitPattern, "frame \(i)")
        }
        #expect(try MeterPipeline(settings: ValidSettings(MeterSettings(loudness: true))).signalNeeds == .planar)
    }
}
