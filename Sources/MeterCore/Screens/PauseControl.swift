import Synchronization

/// A request to pause or resume a recording, passed down to the live session as a
/// `Cancellation` is: the command line decides (a key on the meter, SIGUSR1 / SIGUSR2), the
/// capture thread reads `isPaused` before handing each chunk to the recorder, so the file holds
/// only what was captured while not paused. The meter goes on metering either way.
public final class PauseControl: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public var isPaused: Bool { flag.load(ordering: .acquiring) }

    public func pause() { flag.store(true, ordering: .releasing) }
    public func resume() { flag.store(false, ordering: .releasing) }

    /// Pauses when recording, resumes when paused.
    public func toggle() {
        var current = flag.load(ordering: .relaxed)
        while true {
            let (exchanged, seen) = flag.compareExchange(expected: current, desired: !current, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = seen
        }
    }
}
