import Glibc

/// A dedicated OS thread for blocking work (capture reads, disk writes, playback), started
/// with `pthread_create` and detached; completion is signalled by the body itself.
///
/// Blocking reads do not belong in Swift concurrency's cooperative pool, and Foundation's
/// `Thread` would pull Foundation (and its start-up cost) into the binary for this alone.
public enum OSThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread; `role` only documents the call site.
    public static func spawn(role: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard rc == 0 else {
            // Out of threads: run inline rather than lose the work.
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
            return
        }
        pthread_detach(thread)
    }
}
