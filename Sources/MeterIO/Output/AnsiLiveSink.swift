import MeterCore

/// The live ANSI meter on a terminal: draws each frame in one write on the alternate screen,
/// follows resizes (SIGWINCH), shows outages and the recording (REC, file, recorded time),
/// reads q and Esc from a terminal on stdin, and restores the terminal when it ends. The
/// terminal is held through a `TerminalScreen` (as `play` holds it), which job control can
/// suspend and resume from another thread; after a resume the next call redraws whole.
///
/// `restore()` is idempotent; the CLI also calls it on every error path.
public final class AnsiLiveSink: LiveStatusSink {
    private let output: FileDescriptorOutput
    /// The terminal while the meter runs (stdin read for keys when there is an `onQuit`).
    public let screen: TerminalScreen
    private var renderer: AnsiMeterRenderer
    private var info: StreamInfo?
    private var active = false
    private var lastDraw = 0.0
    private var lastFrame: MeterFrame?
    private var outage = false
    /// Minimum seconds between redraws: frames that arrive faster (catching up) are skipped.
    public var minInterval = 1.0 / 90
    /// The file of a plain (not split, not triggered) recording: REC for the whole run.
    public var recordingFile: String?
    /// The scrolling level history strip (the recording meter, unless `--no-history`).
    public var showsHistory: Bool {
        get { renderer.history != nil }
        set { renderer.history = newValue ? LevelHistory() : nil }
    }
    /// The recording's pause: space or p toggles it, and the head line says PAUSED while it
    /// is paused (the recorded time stands still).
    public var pause: PauseControl?
    /// Called when q or Esc is pressed (the CLI stops the run, as on Ctrl-C).
    private let onQuit: (() -> Void)?

    /// Says (once) whether the terminal was resized since the last call.
    private let takeResize: () -> Bool

    /// `takeResize` reports a resize once (the CLI passes its SIGWINCH flag); `onQuit`, when
    /// given, is called for q or Esc read from a terminal on stdin.
    public init(output: FileDescriptorOutput, takeResize: @escaping () -> Bool, onQuit: (() -> Void)? = nil) {
        self.output = output
        self.takeResize = takeResize
        self.onQuit = onQuit
        screen = TerminalScreen(output: output, readsKeys: onQuit != nil)
        let size = Terminal.size(fd: output.fd) ?? (80, 24)
        renderer = AnsiMeterRenderer(width: size.columns, height: size.rows,
                                     color: Terminal.colorAllowed, unicode: Terminal.localeIsUTF8)
    }

    public func start(_ info: StreamInfo) throws {
        self.info = info
        active = true
        try screen.enter()
        // Draw the empty meter at once: a quiet source may take a while to deliver a frame.
        if let f = emptyFrame() { try draw(f, now: monotonicSeconds()) }
    }

    public func frame(_ frame: MeterFrame) throws {
        pollKeys()
        renderer.observe(frame)
        lastFrame = frame
        let now = monotonicSeconds()
        let resized = followResize()
        guard resized || now - lastDraw >= minInterval else { return }
        try draw(frame, now: now)
    }

    public func gap(_ gap: StreamGap) throws {}

    /// The head line names what is metered now: the new device, or "waiting for NAME" while an
    /// application source has no stream to meter.
    public func device(_ change: DeviceChange) throws {
        guard info != nil else { return }
        let app = AppSelector(device: change.source)
        info!.source = change.waiting ? "waiting for " + (app?.shown ?? change.source) : change.source
        if let f = lastFrame ?? emptyFrame() { try draw(f, now: monotonicSeconds()) }
    }

    /// What the head line says about the recording when no file is open (a voice-activated
    /// recording between takes: "waiting for the trigger").
    public var recordingIdleStatus: String?
    private var openFile: String?
    private var openFilePos = 0
    /// Capture frames of the open file's span that were paused, and where the current pause
    /// began: the recorded time counts what the file holds.
    private var pausedFrames = 0
    private var pausedAt: Int?

    public func file(_ event: RecordingFileEvent) throws {
        switch event.kind {
        case .open:
            openFile = SafeText.terminal(event.file)
            openFilePos = event.pos
            pausedFrames = 0
        case .close:
            openFile = nil
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

    public func idle(outage: Bool) throws {
        pollKeys()
        let resized = followResize()
        if outage != self.outage || resized {
            self.outage = outage
            if let f = lastFrame ?? emptyFrame() { try draw(f, now: monotonicSeconds()) }
        }
    }

    public func end(_ summary: StreamSummary) throws {
        restore()
        guard let info else { return }
        var line = "\(SafeText.terminal(info.source)): \(AnsiMeterRenderer.clock(summary.duration))"
        let labels = AnsiMeterRenderer.labels(info)
        for c in 0..<min(summary.rmsDb.count, labels.count) {
            line += "  \(labels[c]) rms "
            line += AnsiMeterRenderer.readout(summary.rmsDb[c], width: 0) + " pk " + AnsiMeterRenderer.readout(summary.peakDb[c], width: 0)
        }
        line += " dB"
        if let l = summary.loudness { line += "  " + AnsiMeterRenderer.loudnessSummary(l) }
        if summary.dropped > 0 { line += "  dropped \(summary.dropped)" }
        if let clipped = summary.clippedSamples, clipped.contains(where: { $0 > 0 }) {
            line += "  clipped samples " + clipped.map(String.init).joined(separator: "/")
        }
        if let silence = summary.silenceSeconds, silence > 0 {
            line += "  silence " + AnsiMeterRenderer.readout(silence, width: 0) + " s"
        }
        if let file = summary.file { line += "  recorded \(summary.recordedFrames ?? 0) frames to \(file)" }
        try output.write(Array((line + "\n").utf8))
    }

    /// Leaves the meter screen and shows the cursor again (safe to call more than once).
    public func restore() {
        guard active else { return }
        active = false
        screen.leave()
    }

    private func pollKeys() {
        let keys = screen.readKeys()
        if keys.contains(.quit) { onQuit?() }
        if let pause, keys.contains(.space) {
            pause.toggle()
            if let f = lastFrame ?? emptyFrame() { try? draw(f, now: monotonicSeconds()) }  // PAUSED at once
        }
    }

    /// True when the meter must be drawn whole at a new size: a resize, or a resume after a
    /// stop (the terminal may have changed size meanwhile).
    private func followResize() -> Bool {
        let resumed = screen.takeRedraw()
        guard takeResize() || resumed, let size = Terminal.size(fd: output.fd) else { return resumed }
        renderer.width = size.columns
        renderer.height = size.rows
        return true
    }

    private func emptyFrame() -> MeterFrame? {
        guard let info else { return nil }
        let c = info.settings.channels
        return MeterFrame(pos: 0, rmsDb: Array(repeating: Decibels.floor, count: c),
                          peakDb: Array(repeating: Decibels.floor, count: c),
                          bandsDb: info.bandsHz.map { Array(repeating: Decibels.floor, count: $0.count) })
    }

    private func draw(_ frame: MeterFrame, now: Double) throws {
        guard let info, active else { return }
        lastDraw = now
        var status = MeterStatus(alert: outage ? "RECONNECTING: source lost, waiting for it" : nil)
        let paused = pause?.isPaused ?? false
        status.paused = paused
        if let file = openFile ?? recordingFile.map(SafeText.terminal) {
            status.recordingFile = file
            let recordedFrames = (pausedAt ?? frame.pos) - openFilePos - pausedFrames
            status.recordedSeconds = Double(max(0, recordedFrames)) / Double(info.settings.rate)
        } else {
            status.waiting = paused ? "PAUSED" : recordingIdleStatus
        }
        try screen.draw(renderer.render(frame, info: info, status: status))
    }
}
