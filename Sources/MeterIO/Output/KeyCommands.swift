import MeterCore

/// The keyboard as a source of commands for the live meter, beside the run rather than inside
/// a sink: a thread ("pm-keys") waits for keys on stdin (beside a `StopPipe`, so `stop` ends
/// the wait at once) and turns them into commands. q, Esc or Ctrl-C: `quit` (the CLI stops the
/// run, as on a stop signal). Space or p: the recording's `pause` toggles, then `redraw` (the
/// session's nudge: the analysis thread's next sink call draws PAUSED).
///
/// Keys are read through the `TerminalScreen` that holds the terminal in raw mode, so only
/// while it is entered and in the foreground; input that cannot be read then (the job stopped
/// or in the background) is left for later, looked at again every `idleSeconds`.
public final class KeyCommands: Sendable {
    private let screen: TerminalScreen
    private let pause: PauseControl?
    private let quit: @Sendable () -> Void
    private let redraw: @Sendable () -> Void
    private let stopping = Cancellation()
    static let idleSeconds = 0.1

    public init(screen: TerminalScreen, pause: PauseControl?, quit: @escaping @Sendable () -> Void,
                redraw: @escaping @Sendable () -> Void) {
        self.screen = screen
        self.pause = pause
        self.quit = quit
        self.redraw = redraw
    }

    /// Starts reading, when stdin is a terminal (else there are no keys to read).
    public func start() throws {
        guard Terminal.isTerminal(0) else { return }
        try OSThread.spawn(role: "pm-keys") { [self] in read() }
    }

    /// Ends the reading (the run ended); the thread leaves its wait at once.
    public func stop() { stopping.cancel() }

    private func read() {
        guard let pipe = StopPipe(stopping) else { return }
        defer { pipe.release() }
        while true {
            switch pipe.wait(for: 0, seconds: nil) {
            case .stopped: return
            case .timedOut: continue
            case .ready:
                let keys = screen.readKeys()
                if keys.isEmpty, !pipe.sleep(seconds: Self.idleSeconds) { return }
                obey(keys)
            }
        }
    }

    private func obey(_ keys: [Key]) {
        if keys.contains(.quit) { quit() }
        if let pause, keys.contains(.space) {
            pause.toggle()
            redraw()
        }
    }
}
