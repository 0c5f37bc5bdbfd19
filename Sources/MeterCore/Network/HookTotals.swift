/// What became of a run's hooks (`--exec`), the `end` line's `hooks_run`, `hooks_dropped` and
/// `hooks_killed`. Every line handed to the hook runner is counted once: it ran (to its own
/// end, whatever its status), was dropped (the queue was full), or was ended by a stop (running
/// past the grace period, or still waiting); only a hook whose shell could not start at all is
/// in none (it is its own stderr line).
public struct HookTotals: Sendable, Equatable {
    public var run = 0
    public var dropped = 0
    public var killed = 0

    public init(run: Int = 0, dropped: Int = 0, killed: Int = 0) {
        self.run = run
        self.dropped = dropped
        self.killed = killed
    }
}
