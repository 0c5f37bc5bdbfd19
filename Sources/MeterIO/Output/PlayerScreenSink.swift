import MeterCore

/// `play`'s screen as a sink: each frame (and each `idle`, which a paused `PlaybackSource`
/// makes when woken: a pause, a seek, a nudge) redraws the file's waveform, the position being
/// heard, the level and the loudness of the newest frame. Its calls come from the session's
/// analysis thread (the `FrameSink` rule); the keys stay with the caller's thread, which talks
/// to the source only.
public final class PlayerScreenSink: FrameSink {
    private let screen: TerminalScreen
    private var renderer: PlayerRenderer
    private let source: PlaybackSource
    private let target: Double?
    private let showsLoudness: Bool
    /// True once after the terminal was resized (the CLI's SIGWINCH flag).
    private let resized: () -> Bool
    private var levelDb = Decibels.floor
    private var loudness: LoudnessReading?

    /// `showsLoudness`: `play --loudness`, with `target` its programme target if any.
    public init(screen: TerminalScreen, renderer: PlayerRenderer, source: PlaybackSource, showsLoudness: Bool,
                target: Double?, resized: @escaping () -> Bool) {
        self.screen = screen
        self.renderer = renderer
        self.source = source
        self.showsLoudness = showsLoudness
        self.target = target
        self.resized = resized
    }

    public func start(_ info: StreamInfo) throws { try draw() }

    public func frame(_ frame: MeterFrame) throws {
        levelDb = frame.rmsDb.max() ?? Decibels.floor
        if let l = frame.loudness { loudness = l }
        try draw()
    }

    public func idle(outage: Bool, stream: Int?) throws { try draw() }
    public func gap(_ gap: StreamGap) throws {}
    public func device(_ change: DeviceChange) throws {}
    public func file(_ event: RecordingFileEvent) throws {}
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {}
    public func flush() throws {}
    public func end(_ summary: StreamSummary) throws {}

    private func draw() throws {
        if resized() || screen.takeRedraw(), let columns = screen.columns { renderer.width = columns }
        let paused = source.isPaused
        try screen.draw(renderer.render(playedFrames: source.position, totalFrames: source.totalFrames,
                                        rate: source.rate, levelDb: paused ? nil : levelDb, paused: paused,
                                        loudness: showsLoudness ? loudness : nil, target: target))
    }
}
