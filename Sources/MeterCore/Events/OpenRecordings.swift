/// Which file each source's recording has open (by stream index, 0 with one source), known
/// from the `file` lines alone: first of the run's sinks (`FanOutSink`), it notes each
/// `open` and `close`, and the sinks after it read the one state (the terminal's REC, hooks'
/// PULSEMETER_FILE, /status's and /metrics' recording during triggered takes). A plain recording writes one file throughout and says no `file` line:
/// it is given at the start (`single`) and stays. On the analysis thread, as every sink.
public final class OpenRecordings: DiscardingSink {
    private let single: [Int: String]
    private var open: [Int: String]

    public init(single: [Int: String] = [:]) {
        self.single = single
        open = single
    }

    /// The file `stream`'s recording writes now, if any.
    public func writing(_ stream: Int?) -> String? { open[stream ?? 0] }

    /// Some source's recording writes a file now (/status's `recording` for triggered takes).
    public var anyOpen: Bool { !open.isEmpty }

    override public func file(_ event: RecordingFileEvent) throws {
        let k = event.stream ?? 0
        switch event.kind {
        case .open: open[k] = event.file
        case .close: open[k] = single[k]
        case .pause, .resume, .removed: break
        }
    }
}
