/// The reference loudness measurement of a whole stream: integrated loudness, loudness range
/// and true peak, which need the whole history (gating) or heavy oversampling.
///
/// The core stays free of C: MeterIO provides libebur128 (`EBUR128Loudness`), which may spread
/// the work over threads; its results must not depend on that. The pipeline feeds it every
/// input block once, in order, and asks for `finish()` once at the end.
public protocol LoudnessReference: AnyObject {
    /// Adds `frames` interleaved frames (the pipeline's channel count).
    func add(_ samples: UnsafePointer<Float>, frames: Int)
    /// The figures so far, as far as the work has got (for a live display); cheap, never waits.
    func snapshot() -> LoudnessReferenceValues
    /// Waits until every added frame is measured and returns the whole-stream figures.
    func finish() -> LoudnessReferenceValues
}

/// Integrated loudness, loudness range and true peak, in the contract's units and bounds.
public struct LoudnessReferenceValues: Sendable, Equatable {
    /// LUFS; -160 when nothing passed the gates.
    public var integrated: Double
    /// LU; 0 when nothing passed the gates.
    public var range: Double
    /// dBTP per channel.
    public var truePeakDb: [Double]

    public init(integrated: Double, range: Double, truePeakDb: [Double]) {
        self.integrated = integrated
        self.range = range
        self.truePeakDb = truePeakDb
    }
}
