import Glibc
import MeterCore

/// A dedicated OS thread for blocking work (capture reads, disk writes, playback), started
/// with `pthread_create`, named with `pthread_setname_np` (so `top -H` and `ps -L` show what
/// it is), and detached; completion is signalled by the body itself.
///
/// Blocking reads do not belong in Swift concurrency's cooperative pool, and Foundation's
/// `Thread` would pull Foundation (and its start-up cost) into the binary for this alone.
public enum OSThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// `pthread_create` failed (`reason`: its error in words), for the command line to word.
    public struct StartError: Error, Equatable, Sendable {
        public let role: String
        public let reason: String
    }

    /// The processors online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1: the default number
    /// of workers.
    public static var onlineProcessors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Runs `body` on a new thread named `role` (at most 15 bytes are kept). A thread that
    /// cannot be created is an error: running the body inline instead would deadlock any
    /// caller that waits on it.
    public static func spawn(role: String, _ body: @escaping @Sendable () -> Void) throws(StartError) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw StartError(role: role, reason: errnoText(rc))
        }
        _ = setName?(thread, String(decoding: role.utf8.prefix(15), as: UTF8.self))
        pthread_detach(thread)
    }

    /// `pthread_setname_np(3)`: a GNU extension that Swift's Glibc module does not declare,
    /// so it is looked up once with `dlsym(3)`; nil where the C library lacks it.
    private static let setName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
        guard let lib = dlopen(nil, RTLD_NOW), let f = dlsym(lib, "pthread_setname_np") else { return nil }
        return unsafeBitCast(f, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }()
}
