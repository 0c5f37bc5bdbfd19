@testable import MeterCore
import Testing

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

    @Test func bandsGetTheMonoMixAndItsSplit() throws {
        let p = try MeterPipeline(settings: ValidSettings(MeterSettings(bands: 8)), transform: ReferenceFFT(size: 2048))
        #expect(p.signalNeeds == [.planar, .mono])
        #expect(try MeterPipeline(settings: ValidSettings(MeterSettings(loudness: true))).signalNeeds == .planar)
    }
}
