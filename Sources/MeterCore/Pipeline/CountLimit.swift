/// The whole-number options outside `MeterSettings` (waveform sizes, pixel spacing, files at
/// once, files kept, an encoder's bit rate): each one's allowed range and default stated once,
/// here. The parser checks against `range`, the help text shows `range` and `defaultValue`.
public enum CountLimit: CaseIterable, Sendable {
    /// `waveform --bars`: how many bars the file is summarized into.
    case bars
    /// `waveform --pixels-per-second`: pixel spacing in time.
    case pixelsPerSecond
    /// `waveform --samples-per-pixel`: pixel spacing in frames.
    case samplesPerPixel
    /// `--jobs`: files analysed at once (default: the number of cores, known only at run time).
    case jobs
    /// `--keep`: the newest files of a split or triggered recording kept.
    case keepFiles
    /// `--bitrate`: a lossy encoder's bit rate, in kbps (default: the encoder's own).
    case bitrateKbps

    public var range: ClosedRange<Int> {
        switch self {
        case .bars, .pixelsPerSecond, .keepFiles: 1...1_000_000
        case .samplesPerPixel: 1...1_000_000_000
        case .jobs: 1...1024
        case .bitrateKbps: 1...100_000
        }
    }

    /// The value when the option is not given; nil where it depends on the machine or the
    /// encoder, or where leaving it out means "none" (`--keep`: every file kept).
    public var defaultValue: Int? {
        switch self {
        case .bars: 64
        default: nil
        }
    }
}
