/// Computes a frame's octave bands away from the analysis thread (the filter bank runs over
/// every sample: the one measurement a file run gives an output thread of its own): the
/// pipeline (with `deferBands`) leaves the hop's mono mix in `MeterFrame.pendingOctaves`;
/// `complete` fills `bandsDb` with exactly what the pipeline would have computed (the same
/// filter bank fed the same samples; its own bank, so it may run on another thread).
public final class DeferredBands {
    private let octaves: OctaveFilterBank

    public init(settings valid: ValidSettings) {
        precondition(valid.settings.octaves > 0, "only octave bands are deferred")
        octaves = OctaveMeasurement.bank(valid.settings)
    }

    public func complete(_ frame: inout MeterFrame) {
        guard let mono = frame.pendingOctaves else { return }
        frame.pendingOctaves = nil
        mono.withUnsafeBufferPointer { if let p = $0.baseAddress { octaves.push(p, count: $0.count) } }
        var bands = frame.bandsDb ?? Array(repeating: Decibels.floor, count: octaves.layout.count)
        octaves.levels(into: &bands)
        frame.bandsDb = bands
    }

    /// Adds the stream's mean band levels, over the frames completed here, to its summary (the
    /// stream's end: the bank runs out what its filters still hold).
    public func complete(_ summary: inout StreamSummary) {
        octaves.finish()
        summary.bandsDb = octaves.meanLevels()
    }
}
