import Testing
@testable import MeterCore
@testable import MeterIO

/// How live capture sizes its reads: whole meter hops where the frame rate allows (one read,
/// one chunk and one wake-up of the analysis per frame), the hop cut into equal reads of at
/// most 50 ms when it is longer, and 10 ms reads (several frames each) when hops are shorter.
@Suite struct LiveChunkingTests {
    @Test(arguments: [(48000, 60.0), (48000, 30.0), (48000, 20.0), (44100, 25.0), (8000, 50.0), (96000, 24.0)])
    func readsAreOneHopWhenItLasts10To50Ms(rate: Int, fps: Double) {
        let hop = MeterSettings(rate: rate, fps: fps).hop
        #expect(LiveMeterSession.chunkFrames(hop: hop, rate: rate) == hop)
    }

    @Test(arguments: [(48000, 10.0), (48000, 1.0), (48000, 0.01), (44100, 3.0), (8000, 7.0)])
    func longHopsAreCutIntoEqualReadsOfAtMost50Ms(rate: Int, fps: Double) {
        let hop = MeterSettings(rate: rate, fps: fps).hop
        let chunk = LiveMeterSession.chunkFrames(hop: hop, rate: rate)
        let reads = (hop + chunk - 1) / chunk
        #expect(chunk <= rate / 20)
        #expect(chunk * reads >= hop && chunk * (reads - 1) < hop, "whole reads cover the hop")
        #expect(reads == (hop + rate / 20 - 1) / (rate / 20), "no more reads than 50 ms ones would take")
    }

    @Test(arguments: [(48000, 200.0), (48000, 48000.0), (8000, 1000.0)])
    func shortHopsShareA10MsRead(rate: Int, fps: Double) {
        let hop = MeterSettings(rate: rate, fps: fps).hop
        #expect(LiveMeterSession.chunkFrames(hop: hop, rate: rate) == rate / 100)
    }
}
