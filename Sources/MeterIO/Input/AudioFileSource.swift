import MeterCore

/// A decoded audio file: frames in blocks, the length its header announces, and seeking (for
/// waveform's second pass and play's seek keys). `SoundFileReader` (libsndfile) and
/// `FFmpegDecoder` (what libsndfile cannot read) are the two; `AudioFile.open` picks.
public protocol AudioFileSource: SampleBlockSource {
    /// Frames the header announces: may differ from what decodes (a truncated file, a
    /// container's duration rounded).
    var declaredFrames: Int { get }
    /// Moves to frame `frame`; false when the file cannot seek there.
    func seek(toFrame frame: Int) -> Bool
    /// True when a read can wait for its data without waking for a stop: a FIFO or a pipe
    /// named as the file (`<(...)`). A run then reads it ahead on a thread of its own, so that
    /// a stop ends the run at once (`MeterSession`).
    var readsMayWait: Bool { get }
}

extension AudioFileSource {
    public var readsMayWait: Bool { false }
}
