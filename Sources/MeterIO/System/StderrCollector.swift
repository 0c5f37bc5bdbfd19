import Glibc
import Synchronization

/// A child process's stderr (`ChildProcess`), filled by its collector thread: the last
/// 16 KiB, and a semaphore signalled when the child closed it.
final class StderrCollector: Sendable {
    let tail = Mutex<[UInt8]>([])
    let done = Wakeup()

    func collect(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { buf in SystemCall.retryingInterrupted { Glibc.read(fd, buf.baseAddress, 4096) } }
            if n <= 0 { break }
            tail.withLock { t in
                t += chunk[0..<n]
                if t.count > 16384 { t.removeFirst(t.count - 16384) }
            }
        }
        Glibc.close(fd)
        done.signal()
    }
}
