import Glibc

/// A one-line progress display on stderr, for runs that take a while (analyze, and many
/// files): redrawn in place (carriage return, the line, erase to the end of the line) at most
/// ten times a second, and erased by `clear()` so that what follows (a summary, an error) takes
/// its place. Does nothing when stderr is not a terminal: nothing extra in logs or pipes.
///
/// Used from one thread at a time (not Sendable); times are `monotonicSeconds()`.
public final class ProgressLine {
    public let isActive: Bool
    private let started: Double
    private var lastDraw = -1.0
    private var drawn = false
    private let interval: Double
    private let stderr = FileDescriptorOutput.standardError

    /// `enabled` nil: when stderr is a terminal.
    public init(enabled: Bool? = nil, interval: Double = 0.1) {
        isActive = enabled ?? (isatty(2) == 1)
        self.interval = interval
        started = monotonicSeconds()
    }

    /// Seconds since this progress line was created.
    public var elapsed: Double { monotonicSeconds() - started }

    /// Redraws with `render(elapsed, columns)` when the last draw is older than the interval
    /// (or when `force`); `render` is not called otherwise.
    public func update(force: Bool = false, _ render: (_ elapsed: Double, _ columns: Int) -> String) {
        guard isActive else { return }
        let t = monotonicSeconds()
        guard force || t - lastDraw >= interval else { return }
        lastDraw = t
        let columns = Terminal.size(fd: 2)?.columns ?? 80
        write("\r" + render(t - started, columns) + "\u{1B}[K")
        drawn = true
    }

    /// Erases the line (the cursor back at its start).
    public func clear() {
        guard isActive, drawn else { return }
        write("\r\u{1B}[K")
        drawn = false
    }

    private func write(_ s: String) {
        try? stderr.write(Array(s.utf8))  // stderr gone: progress is not worth an error
    }
}
