import MeterCore

/// What a live run captures and does.
public struct LiveOptions: Sendable {
    public var device: String?
    public var settings: ValidSettings
    /// Stop after this many captured frames (`--duration`).
    public var durationFrames: Int?
    /// Also record every captured frame here.
    public var recordPath: FilePath?
    /// On server or device loss, wait and resume instead of failing.
    public var reconnect: Bool
    /// The lossy encoder's bit rate (`--bitrate`); nil: its default.
    public var bitrateKbps: Int?
    /// One file, split files or voice-activated takes (`recordPath` is then the name pattern).
    public var recordMode: RecordingPlan.Mode
    /// Replace an existing recording file (`.single` only); when false it is never touched.
    public var replaceRecording = false
    /// The capture's sample format, and the recording's (`--bits`).
    public var sampleFormat: SampleFormat = .s16
    /// Pauses and resumes the recording (the meter goes on); nil: never paused.
    public var pause: PauseControl?
    /// With `--trigger`: takes longer than this go on in a new file (`--split` as well).
    public var takeSplitFrames: Int?
    /// With `--split` or `--trigger`: the newest files kept (`--keep`); nil: all.
    public var keepFiles: Int?
    /// Meter this network stream (through ffmpeg, `ffmpeg` or on PATH) instead of `device`.
    public var url: StreamURL?
    public var ffmpeg: String?
    /// With several sources in one run: this one's index (0-based, in the order given), on
    /// every line it emits (the NDJSON `stream` field); nil with one source.
    public var stream: Int?

    public init(device: String? = nil, settings: ValidSettings, durationFrames: Int? = nil,
                recordPath: FilePath? = nil, reconnect: Bool = false, bitrateKbps: Int? = nil,
                recordMode: RecordingPlan.Mode = .single) {
        self.device = device
        self.settings = settings
        self.durationFrames = durationFrames
        self.recordPath = recordPath
        self.reconnect = reconnect
        self.bitrateKbps = bitrateKbps
        self.recordMode = recordMode
    }
}
