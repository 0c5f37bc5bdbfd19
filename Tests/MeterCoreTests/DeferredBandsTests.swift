import Testing
import TestSupport
@testable import MeterCore

/// Octave bands computed later (`deferBands` + `DeferredBands`) are exactly the bands computed
/// inline, and so is the end line's mean spectrum: third-octave bands with the sound level
/// meter, calibrated too (the calibration and a microphone's response in each band). FFT bands
/// are never deferred.
@Suite struct DeferredBandsTests {
    @Test(arguments: [(3, false), (3, true), (1, false)])
    func deferredEqualsInline(octaves: Int, calibrated: Bool) throws {
        let mic = MicCalibration(sensitivityDb: -1, frequencies: [100, 1000], responseDb: [1, -2])
        let spl = SoundLevelSettings(weighting: .a, timeWeighting: .fast, calibrationDb: calibrated ? 94 : nil,
                                     micCalibration: calibrated ? mic : nil)
        var settings = MeterSettings(rate: 48000, channels: 2, fps: 30, windowMs: 50, bands: 0, fftSize: 1024, spl: spl)
        settings.octaves = octaves
        let samples = ChunkingIndependenceTests.noise(frames: 30000, channels: 2, seed: 5)
        let inline = try ChunkingIndependenceTests.run(samples, channels: 2, blocks: [4096], bands: 0, spl: spl, octaves: octaves)

        let pipeline = try MeterPipeline(settings: ValidSettings(settings), deferBands: true)
        let later = try DeferredBands(settings: ValidSettings(settings))
        let sink = CollectingSink()
        final class Completing: FrameSink {
            let inner: CollectingSink, bands: DeferredBands
            init(_ inner: CollectingSink, _ bands: DeferredBands) { self.inner = inner; self.bands = bands }
            func start(_ info: StreamInfo) throws { try inner.start(info) }
            func frame(_ frame: MeterFrame) throws {
                #expect((frame.pendingOctaves?.count ?? 0) > 0)
                var f = frame
                bands.complete(&f)
                #expect(f.pendingOctaves == nil)
                try inner.frame(f)
            }
            func gap(_ gap: StreamGap) throws { try inner.gap(gap) }
            func device(_ change: DeviceChange) throws { try inner.device(change) }
            func file(_ event: RecordingFileEvent) throws { try inner.file(event) }
            func event(_ event: MeterEvent, ts: Double, stream: Int?) throws { try inner.event(event, ts: ts, stream: stream) }
            func idle(outage: Bool, stream: Int?) throws { try inner.idle(outage: outage, stream: stream) }
            func flush() throws { try inner.flush() }
            func end(_ summary: StreamSummary) throws {
                var s = summary
                #expect(s.bandsDb == nil, "deferred: the mean is the DeferredBands' to give")
                bands.complete(&s)
                try inner.end(s)
            }
        }
        try pipeline.run(source: ArraySource(rate: 48000, channels: 2, samples: samples, blockSizes: [4096]),
                         sink: Completing(sink, later))
        #expect(sink.frames == inline.frames)
        #expect(sink.summary == inline.end)
        #expect(inline.end.bandsDb?.count == (octaves == 3 ? 31 : 10))
    }

    @Test func fftBandsAreComputedInThePipeline() throws {
        let settings = MeterSettings(rate: 48000, channels: 2, bands: 12, fftSize: 1024)
        let pipeline = try MeterPipeline(settings: ValidSettings(settings), transform: ReferenceFFT(size: 1024), deferBands: true)
        #expect(!pipeline.deferBands)
        let sink = CollectingSink()
        try pipeline.run(source: ArraySource(rate: 48000, channels: 2,
                                             samples: ChunkingIndependenceTests.noise(frames: 10000, channels: 2, seed: 3),
                                             blockSizes: [4096]), sink: sink)
        #expect(sink.frames.allSatisfy { $0.bandsDb?.count == 12 && $0.pendingOctaves == nil })
        #expect(sink.summary?.bandsDb?.count == 12)
    }
}
