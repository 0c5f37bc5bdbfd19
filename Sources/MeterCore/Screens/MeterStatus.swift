/// What the live meter's head line says beyond the stream itself: an outage, the recording
/// (REC or PAUSED, its file and the time recorded into it), or a recording waiting for its next take.
/// The renderer gives REC and the recorded time priority over everything else on the line.
public struct MeterStatus: Sendable, Equatable {
    /// An outage, e.g. "RECONNECTING: source lost, waiting for it".
    public var alert: String?
    /// The file being recorded (as the terminal may show it); nil when not recording.
    public var recordingFile: String?
    /// Seconds recorded into that file.
    public var recordedSeconds: Double
    /// Between takes of a voice-activated recording, e.g. "waiting for the trigger".
    public var waiting: String?
    /// The recording is paused: PAUSED instead of REC, the recorded time standing still.
    public var paused = false

    public init(alert: String? = nil, recordingFile: String? = nil, recordedSeconds: Double = 0, waiting: String? = nil) {
        self.alert = alert
        self.recordingFile = recordingFile
        self.recordedSeconds = recordedSeconds
        self.waiting = waiting
    }

    public var isRecording: Bool { recordingFile != nil }
}
