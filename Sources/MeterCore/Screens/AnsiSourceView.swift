/// One source's part of the live ANSI meter: its renderer (peak holds, clip lamps, history),
/// its stream's description, its last frame, its outage and its recording's file state.
/// With several sources the screen's rows are shared between them, one group each, headed
/// by the source's name (`screen`).
public struct AnsiSourceView {
    public var renderer: AnsiMeterRenderer
    public var info: StreamInfo
    public var lastFrame: MeterFrame?
    /// The source is lost and waited for (`--reconnect`).
    public var outage = false
    /// Where the file open now (or last closed) began.
    private var openFilePos = 0
    /// Capture frames of the open file's span that were paused, and where the current pause
    /// began: the recorded time counts what the file holds.
    private var pausedFrames = 0
    private var pausedAt: Int?

    public init(renderer: AnsiMeterRenderer, info: StreamInfo) {
        self.renderer = renderer
        self.info = info
    }

    /// The last frame, or a frame at the floor before the first one.
    public var currentFrame: MeterFrame {
        if let lastFrame { return lastFrame }
        let c = info.settings.channels
        return MeterFrame(pos: 0, rmsDb: Array(repeating: Decibels.floor, count: c),
                          peakDb: Array(repeating: Decibels.floor, count: c),
                          bandsDb: info.bandsHz.map { Array(repeating: Decibels.floor, count: $0.count) })
    }

    public mutating func file(_ event: RecordingFileEvent) {
        switch event.kind {
        case .open:
            openFilePos = event.pos
            pausedFrames = 0
        case .close:
            openFilePos = event.pos
        case .pause:
            pausedAt = event.pos
        case .resume:
            if let p = pausedAt { pausedFrames += max(0, event.pos - max(p, openFilePos)) }
            pausedAt = nil
        case .removed:
            break
        }
    }

    /// The head line's status: the outage, REC (or PAUSED) with the file and its recorded
    /// time, or `idle` between files. `recordingFile`: the file written now (`OpenRecordings`).
    public func status(paused: Bool, recordingFile: String?, idle: String?) -> MeterStatus {
        var status = MeterStatus(alert: outage ? "RECONNECTING: source lost, waiting for it" : nil)
        status.paused = paused
        if let file = recordingFile.map(SafeText.terminal) {
            status.recordingFile = file
            let recordedFrames = (pausedAt ?? currentFrame.pos) - openFilePos - pausedFrames
            status.recordedSeconds = Double(max(0, recordedFrames)) / Double(info.settings.rate)
        } else {
            status.waiting = paused ? "PAUSED" : idle
        }
        return status
    }

    /// This source's group of `rows` rows, `width` wide: its full meter (headed by its name)
    /// when the rows allow, else its one compact line after its name.
    public mutating func rows(_ status: MeterStatus, width: Int, rows: Int) -> [String] {
        renderer.height = rows + 1  // the renderer keeps its last row free; the screen does
        guard rows + 1 < AnsiMeterRenderer.minimumHeight || width < AnsiMeterRenderer.minimumWidth else {
            renderer.width = width
            return renderer.rows(currentFrame, info: info, status: status)
        }
        let name = String(SafeText.terminal(info.source).prefix(max(1, min(16, width / 4))))
        renderer.width = max(1, width - name.count - 1)
        return [name + " " + renderer.rows(currentFrame, info: info, status: status)[0]]
    }

    /// The screen of several sources: `width` x `height`, the rows above the last shared
    /// equally between the sources in order (those that find no row left are not drawn).
    public static func screen(_ views: inout [AnsiSourceView], statuses: [MeterStatus], width: Int, height: Int) -> String {
        let usable = max(1, height - 1)
        let share = max(1, usable / max(1, views.count))
        var lines: [String] = []
        for k in views.indices where lines.count + share <= usable || lines.isEmpty {
            lines += views[k].rows(statuses[k], width: width, rows: share).prefix(share)
        }
        let esc = "\u{1B}["
        return esc + "H" + lines.map { $0 + esc + "K" }.joined(separator: "\r\n") + esc + "J"
    }
}
