/// One file's output in a many-file `analyze`: its `end` line carrying `file` (with `frames`,
/// every line before it too: start, frames and their events), collected as bytes for the
/// ordered writer. The lines are the single-file run's, from the same `NDJSONSink`.
public final class FileLinesSink: FrameSink {
    /// The lines so far.
    public var bytes: [UInt8] { collected.bytes }
    private let collected = Collected()
    private let lines: NDJSONSink
    private let file: String
    private let frames: Bool

    /// `encoded`: the run's lines, shared with its report.
    public init(file: String, frames: Bool, lines encoded: NDJSONLines = NDJSONLines()) {
        self.file = file
        self.frames = frames
        lines = NDJSONSink(output: collected, lines: encoded)
    }

    public func start(_ info: StreamInfo) throws {
        if frames { try lines.start(info) }
    }

    public func frame(_ frame: MeterFrame) throws {
        if frames { try lines.frame(frame) }
    }

    public func gap(_ gap: StreamGap) throws {
        if frames { try lines.gap(gap) }
    }

    public func device(_ change: DeviceChange) throws {
        if frames { try lines.device(change) }
    }

    public func file(_ event: RecordingFileEvent) throws {
        if frames { try lines.file(event) }
    }

    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        if frames { try lines.event(event, ts: ts, stream: stream) }
    }

    public func idle(outage: Bool, stream: Int?) throws {}
    /// Each line is collected as it comes.
    public func flush() throws {}

    public func end(_ summary: StreamSummary) throws {
        var s = summary
        s.file = file
        if !frames { s.events = [] }  // event lines come with the frame lines they belong to
        try lines.end(s)
    }

    /// The bytes written to it, kept.
    private final class Collected: ByteOutput {
        var bytes: [UInt8] = []
        func write(_ b: [UInt8]) throws { bytes += b }
    }
}
