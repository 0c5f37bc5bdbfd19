import Glibc
import MeterCore

/// A full-screen view's hold on the terminal (the live meter, `play`): the alternate screen,
/// the hidden cursor and, for a view that reads keys, the keyboard in raw mode.
///
/// `enter` takes the terminal, `leave` gives it back exactly as it was. For job control
/// `suspend` gives it back the same way (Ctrl-Z: the shell's prompt lands on the main screen,
/// echo and line editing work) and `resume` takes it again after the process is continued
/// (the raw mode again, whatever the shell left, and a redraw at the current size). Every
/// write of the view goes through `draw`, which does nothing while suspended, so a frame drawn
/// by one thread can never land over the shell while another thread stops the process.
///
/// Thread-safe: one lock around the state and the writes (the drawing thread and the signal
/// watcher both use it).
public final class TerminalScreen: Sendable {
    private struct State {
        var entered = false
        var suspended = false
        var redraw = false
        /// Continued in the background (`bg`): suspended until the job is in the foreground.
        var background = false
        /// The keyboard settings before raw mode, put back on leave and suspend.
        var keyboard: termios?
    }

    private let state = Locked(State())
    private let output: FileDescriptorOutput
    private let readsKeys: Bool

    /// `readsKeys`: put stdin in raw mode (when it is a terminal) so single keys arrive.
    public init(output: FileDescriptorOutput, readsKeys: Bool) {
        self.output = output
        self.readsKeys = readsKeys && Terminal.isTerminal(0)
    }

    public var columns: Int? { Terminal.size(fd: output.fd)?.columns }
    public var size: (columns: Int, rows: Int)? { Terminal.size(fd: output.fd) }

    /// Takes the terminal: raw keyboard, alternate screen, hidden cursor.
    public func enter() throws {
        try state.withLock { s in
            guard !s.entered else { return }
            s.entered = true
            if readsKeys, let t = Terminal.settings() {
                s.keyboard = t
                Terminal.makeRaw(from: t)
            }
            try output.write(Array(AnsiMeterRenderer.enter.utf8))
        }
    }

    /// Gives the terminal back for good (safe to call more than once).
    public func leave() {
        state.withLock { s in
            guard s.entered else { return }
            if !s.suspended { giveBack(s) }
            s.entered = false
            s.suspended = false
        }
    }

    /// Gives the terminal back while the process is stopped.
    public func suspend() {
        state.withLock { s in
            guard s.entered, !s.suspended else { return }
            giveBack(s)
            s.suspended = true
        }
    }

    /// Takes the terminal again after a continue and asks for a redraw (also after a stop the
    /// view did not see, as by SIGSTOP: the shell may have changed the keyboard mode). A job
    /// continued in the background (`bg`) stays suspended, drawing nothing over the shell,
    /// until it is in the foreground again (`fg` of a running job sends no signal: the next
    /// `takeRedraw` sees it).
    public func resume() {
        state.withLock { s in retake(&s) }
    }

    private func retake(_ s: inout State) {
        guard s.entered else { return }
        guard Terminal.isForeground(fd: output.fd) else {
            s.suspended = true
            s.background = true
            return
        }
        s.background = false
        s.suspended = false
        if let t = s.keyboard { Terminal.makeRaw(from: t) }
        try? output.write(Array(AnsiMeterRenderer.enter.utf8))
        s.redraw = true
    }

    /// Writes a frame of the view; nothing while suspended or once left.
    public func draw(_ text: String) throws {
        try state.withLock { s in
            guard s.entered, !s.suspended else { return }
            try output.write(Array(text.utf8))
        }
    }

    /// True once after `resume`: the screen was cleared and wants a whole frame. Called by
    /// the view before each frame; a job continued in the background takes the terminal here
    /// once it is in the foreground.
    public func takeRedraw() -> Bool {
        state.withLock { s in
            if s.background { retake(&s) }
            defer { s.redraw = false }
            return s.redraw
        }
    }

    /// The keys pressed since the last call (none while suspended, or for a view without keys).
    public func readKeys() -> [Key] {
        guard readsKeys, state.withLock({ $0.entered && !$0.suspended }) else { return [] }
        return Terminal.readKeys()
    }

    /// This screen's part in job control (for the CLI's signal handling), with what the view
    /// itself must do around it (`play` pauses while stopped).
    public func jobControl(beforeStop: @escaping @Sendable () -> Void = {},
                           afterContinue: @escaping @Sendable () -> Void = {}) -> JobControl {
        JobControl(suspend: { [self] in beforeStop(); suspend() },
                   resume: { [self] in resume(); afterContinue() })
    }

    private func giveBack(_ s: State) {
        if let t = s.keyboard { Terminal.restore(t) }
        try? output.write(Array(AnsiMeterRenderer.leave.utf8))
    }
}
