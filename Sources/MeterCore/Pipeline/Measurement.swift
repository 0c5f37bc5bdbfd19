/// One thing `MeterPipeline` measures (the levels, loudness, the sound level, bands, events,
/// alarms, a meter's ballistics): it takes each block of samples and adds its fields to each
/// frame, to the end line and, if it has any, to the start line.
///
/// The pipeline holds a list of them, built from the settings (`MeterPipeline.measurements`),
/// and calls each once per block and once per frame, never per sample: a measurement's inner
/// loops are its own, concrete code. A new measurement is one new conformer and one line where
/// the list is built.
protocol Measurement: AnyObject {
    /// The forms of each block it reads besides the interleaved samples (default: none); the
    /// pipeline computes each form once per block for every measurement that needs it.
    var needs: SignalNeeds { get }
    /// The stream's next `block.count` frames.
    func push(_ block: SignalBlock)
    /// `frames` positions of the stream that never arrived (a live source dropped them);
    /// default: nothing to do.
    func skip(_ frames: Int)
    /// The stream will end at position `frames` (a file's declared length); said before any
    /// sample.
    func expectEnd(at frames: Int)
    /// Its fields of the frame that ends the hop [hopStart, frame.pos). The list's order is the
    /// order they are filled in: what reads another's fields comes after it.
    func fill(_ frame: inout MeterFrame, hopStart: Int)
    /// The stream ended at `pos` (after its last frame).
    func finish(at pos: Int)
    /// Its fields of the end line, so far (default: none).
    func fill(_ summary: inout StreamSummary)
    /// Its fields of the start line (default: none; most are read from the settings).
    func describe(_ info: inout StreamInfo)
}

extension Measurement {
    var needs: SignalNeeds { [] }
    func skip(_ frames: Int) {}
    func expectEnd(at frames: Int) {}
    func finish(at pos: Int) {}
    func fill(_ summary: inout StreamSummary) {}
    func describe(_ info: inout StreamInfo) {}
}

/// The forms of a block a measurement reads (`SignalBlock`), besides the interleaved frames.
struct SignalNeeds: OptionSet {
    let rawValue: Int
    /// Each channel's samples contiguous.
    static let planar = SignalNeeds(rawValue: 1)
    /// The mean of the channels (mixed from the interleaved frames).
    static let mono = SignalNeeds(rawValue: 2)
}

/// One block of the stream in the forms the measurements asked for, each computed once.
struct SignalBlock {
    /// The frames as fed, interleaved.
    let interleaved: UnsafePointer<Float>
    /// With `.planar`: channel c at `planar + c * channelStride` (one channel: the block itself,
    /// stride 0); nil when no measurement needs it.
    let planar: UnsafePointer<Float>?
    let channelStride: Int
    /// With `.mono`: the mean of the channels (one channel: the block itself).
    let mono: UnsafePointer<Float>?
    /// Frames in the block.
    let count: Int
}
