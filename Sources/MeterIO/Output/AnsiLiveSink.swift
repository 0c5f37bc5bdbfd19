import MeterCore

/// The live ANSI meter on a terminal: draws each frame in one write on the alternate screen,
/// follows resizes (SIGWINCH), shows outages and the recording (REC, file, recorded time,
/// PAUSED as soon as the pause changes), and restores the terminal when it ends. The keys are
/// read beside it (`KeyCommands`, through this sink's `screen`). The
/// terminal is held through a `TerminalScreen` (as `play` holds it), which job control can
/// suspend and resume from another thread; after a resume the next call redraws whole.
///
/// `restore()` is idempotent; the CLI also calls it on every error path.
public final class AnsiLiveSink: FrameSink {
    private let output: FileDescriptorOutput
    /// The terminal while the meter runs (stdin in raw mode for `KeyCommands` when `readsKeys`).
    public let screen: TerminalScreen
    /// The renderer's settings for each source's view (its size follows the terminal).
    private var renderer: AnsiMeterRenderer
    /// One view per source, by stream index (one without a `stream`).
    private var views: [AnsiSourceView] = []
    private var active = false
    private var lastDraw = 0.0
    /// Minimum seconds between redraws: frames that arrive faster (catching up) are skipped.
    public var minInterval = 1.0 / 90
    /// The file each source's recording writes (REC), fed by the run's `file` lines.
    public var recordings = OpenRecordings()
    /// The scrolling level history strip (the recording meter, unless `--no-history`).
    public var showsHistory: Bool {
        get { renderer.history != nil }
        set { renderer.history = newValue ? LevelHistory() : nil }  // set before the start lines
    }
    /// The recording's pause (space or p, SIGUSR1/2): the head line says PAUSED while it is
    /// paused (the recorded time stands still), drawn at the next call after it changed.
    public var pause: PauseControl?
    /// The pause as last drawn.
    private var drawnPaused = false

    /// Says (once) whether the terminal was resized since the last call.
    private let takeResize: () -> Bool

    /// `takeResize` reports a resize once (the CLI passes its SIGWINCH flag); `readsKeys`: the
    /// screen puts a terminal stdin in raw mode for the keys.
    public init(output: FileDescriptorOutput, takeResize: @escaping () -> Bool, readsKeys: Bool = false) {
        self.output = output
        self.takeResize = takeResize
        screen = TerminalScreen(output: output, readsKeys: readsKeys)
        let size = Terminal.size(fd: output.fd) ?? (80, 24)
        renderer = AnsiMeterRenderer(width: size.columns, height: size.rows,
                                     color: Terminal.colorAllowed, unicode: Terminal.localeIsUTF8)
    }

    /// A start line per source (several: each a group of rows of its own).
    public func start(_ info: StreamInfo) throws {
        let k = info.stream ?? 0
        while views.count <= k { views.append(AnsiSourceView(renderer: renderer, info: info)) }
        views[k].info = info
        active = true
        try screen.enter()
        // Draw the empty meter at once: a quiet source may take a while to deliver a frame.
        try draw(now: monotonicSeconds())
    }

    public func frame(_ frame: MeterFrame) throws {
        let k = frame.stream ?? 0
        guard k < views.count else { return }
        views[k].renderer.observe(frame)
        views[k].lastFrame = frame
        let now = monotonicSeconds()
        let resized = followResize()
        guard resized || pauseChanged || now - lastDraw >= minInterval else { return }
        try draw(now: now, clearing: resized)
    }

    public func gap(_ gap: StreamGap) throws {}
    /// A lost source shows as the outage (`idle`), not as a line.
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {}

    /// The head line names what is metered now: the new device, or "waiting for NAME" while an
    /// application source has no stream to meter.
    public func device(_ change: DeviceChange) throws {
        let k = change.stream ?? 0
        guard k < views.count else { return }
        let app = AppSelector(device: change.source)
        views[k].info.source = change.waiting ? "waiting for " + (app?.shown ?? change.source) : change.source
        try draw(now: monotonicSeconds())
    }

    /// What the head line says about the recording when no file is open (a voice-activated
    /// recording between takes: "waiting for the trigger").
    public var recordingIdleStatus: String?

    public func file(_ event: RecordingFileEvent) throws {
        let k = event.stream ?? 0
        if k < views.count { views[k].file(event) }
    }

    /// Each frame is drawn as it comes.
    public func flush() throws {}

    public func idle(outage: Bool, stream: Int?) throws {
        let resized = followResize()
        let k = stream ?? 0
        guard k < views.count else { return }
        if outage != views[k].outage || resized || pauseChanged {
            views[k].outage = outage
            try draw(now: monotonicSeconds(), clearing: resized)
        }
    }

    /// The summary line of a source (the first end leaves the meter screen); with `--spl`, then
    /// its sound levels and mean spectrum as `analyze`'s summary ends (`AnsiSummarySink`).
    public func end(_ summary: StreamSummary) throws {
        restore()
        let k = summary.stream ?? 0
        guard k < views.count else { return }
        let info = views[k].info
        var line = "\(SafeText.terminal(info.source)): \(AnsiMeterRenderer.clock(summary.duration))"
        let labels = AnsiMeterRenderer.labels(info)
        for c in 0..<min(summary.rmsDb.count, labels.count) {
            line += "  \(labels[c]) rms "
            line += AnsiMeterRenderer.readout(summary.rmsDb[c], width: 0) + " pk " + AnsiMeterRenderer.readout(summary.peakDb[c], width: 0)
        }
        line += " " + info.settings.levelUnit
        if let l = summary.loudness { line += "  " + AnsiMeterRenderer.loudnessSummary(l) }
        if summary.dropped > 0 { line += "  dropped \(summary.dropped)" }
        if let clipped = summary.clippedSamples, clipped.contains(where: { $0 > 0 }) {
            line += "  clipped samples " + clipped.map(String.init).joined(separator: "/")
        }
        if let silence = summary.silenceSeconds, silence > 0 {
            line += "  silence " + AnsiMeterRenderer.readout(silence, width: 0) + " s"
        }
        if let file = summary.file { line += "  recorded \(summary.recordedFrames ?? 0) frames to \(file)" }
        line += "\n"
        // A judged run: its verdict, and a gain that would cross the ceiling.
        if let l = summary.loudness { line += AnsiMeterRenderer.deliverySummary(l, color: Terminal.colorAllowed) }
        // A sound level meter's run: its figures too (a meter's closing line alone keeps to one).
        if info.settings.spl != nil {
            line += AnsiSummarySink.soundLevelsAndSpectrum(summary, info: info, renderer: views[k].renderer)
        }
        try output.write(Array(line.utf8))
    }

    /// Leaves the meter screen and shows the cursor again (safe to call more than once).
    public func restore() {
        guard active else { return }
        active = false
        screen.leave()
    }

    /// The pause changed since it was last drawn (a key, a signal).
    private var pauseChanged: Bool { (pause?.isPaused ?? false) != drawnPaused }

    /// True when the meter must be drawn whole at a new size: a resize, or a resume after a
    /// stop (the terminal may have changed size meanwhile).
    private func followResize() -> Bool {
        let resumed = screen.takeRedraw()
        guard takeResize() || resumed, let size = Terminal.size(fd: output.fd) else { return resumed }
        renderer.width = size.columns
        renderer.height = size.rows
        return true
    }

    /// Every source's meter: one source the whole screen, several a group of rows each;
    /// `clearing` (at a new size) erases the screen first (`AnsiMeterRenderer.clear`).
    private func draw(now: Double, clearing: Bool = false) throws {
        guard active, !views.isEmpty else { return }
        lastDraw = now
        let erase = clearing ? AnsiMeterRenderer.clear : ""
        let paused = pause?.isPaused ?? false
        drawnPaused = paused
        let statuses = views.indices.map {
            views[$0].status(paused: paused, recordingFile: recordings.writing($0), idle: recordingIdleStatus)
        }
        if views.count == 1 {
            views[0].renderer.width = renderer.width
            views[0].renderer.height = renderer.height
            try screen.draw(erase + views[0].renderer.render(views[0].currentFrame, info: views[0].info, status: statuses[0]))
            return
        }
        try screen.draw(erase + AnsiSourceView.screen(&views, statuses: statuses, width: renderer.width, height: renderer.height))
    }
}
