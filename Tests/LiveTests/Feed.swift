import Foundation
import Glibc
import Synchronization
import TestSupport

// Known audio for the feed source: the test signals, the pipe source's FIFO, the feeder.

// MARK: - signals and the FIFO

/// Deterministic stereo s16 test signals: per channel a sine plus noise, distinct per seed
/// and per channel, so a missing or doubled chunk cannot go unnoticed.
enum TestSignal {
    static func sample(seed: UInt64, frame: Int, channel: Int) -> Int16 {
        let f = [440.0, 1000.0][channel] + Double(seed % 17) * 31
        let amp = [9000.0, 6000.0][channel] * (1 + Double(seed % 3) * 0.25)
        var z = seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(frame * 2 + channel)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let noise = Double(Int64(z % 6001) - 3000)
        let v = amp * sin(2 * Double.pi * f * Double(frame) / Double(Live.rate)) + noise
        return Int16(max(-32768, min(32767, v.rounded())))
    }

    /// `frames` interleaved stereo frames starting at frame `start`.
    static func make(frames: Int, seed: UInt64, start: Int = 0) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            out[2 * i] = sample(seed: seed, frame: start + i, channel: 0)
            out[2 * i + 1] = sample(seed: seed, frame: start + i, channel: 1)
        }
        return out
    }
}

/// The pipe source's FIFO.
enum Fifo {
    /// Reads away anything left in the FIFO (the pipe source reads only while a record stream
    /// is connected, so a previous test's leftovers would otherwise reach the next recording).
    @discardableResult
    static func drain(_ path: String) -> Int {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
            if n <= 0 { break }
            total += n
        }
        return total
    }

    /// Bytes waiting in the FIFO (FIONREAD).
    static func pending(fd: Int32) -> Int {
        var n: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &n) == 0 ? Int(n) : 0
    }
}

/// Writes PCM into the pipe source's FIFO (PulseAudio) or a player's stdin pipe (pacat, on
/// PipeWire) on its own thread, at `speed` times real time (nil: as fast as it is taken), in
/// 10 ms chunks; stops early on `stop()`. When done it waits until the reader has taken
/// everything (and, with a player, until the player has played it and exited).
final class FifoFeeder: @unchecked Sendable {
    let path: String
    let samples: [Int16]
    let speed: Double?
    private let givenFD: Int32?
    private let player: Subprocess?
    private let stopFlag = Atomic<Bool>(false)
    private let written = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<String?>(nil)

    init(path: String, samples: [Int16], speed: Double?) {
        self.path = path
        self.samples = samples
        self.speed = speed
        givenFD = nil
        player = nil
    }

    /// Writes into `fd` (closed when done, so `player` sees the end and drains).
    init(fd: Int32, samples: [Int16], speed: Double?, player: Subprocess) {
        path = "pacat's stdin"
        self.samples = samples
        self.speed = speed
        givenFD = fd
        self.player = player
    }

    /// A feeder that could not start; `error` says why.
    init(failed: String, samples: [Int16]) {
        path = ""
        self.samples = samples
        speed = nil
        givenFD = nil
        player = nil
        failure.withLock { $0 = failed }
        done.signal()
    }

    /// Frames written into the FIFO so far.
    var framesWritten: Int { written.load(ordering: .acquiring) / 2 }
    var isFinished: Bool { finished.load(ordering: .acquiring) }
    var error: String? { failure.withLock { $0 } }

    func start() {
        let t = Thread { [self] in feed() }
        t.name = "fifo-feeder"
        t.start()
    }

    func stop() { stopFlag.store(true, ordering: .releasing) }

    /// True when the feeder finished (everything written and read by the server, and played
    /// by the player) in time.
    @discardableResult
    func wait(timeout: Double) -> Bool {
        let deadline = monotonic() + timeout
        let ok = done.wait(timeout: .now() + timeout) == .success
        if ok { done.signal() }
        if ok, let player {
            guard let status = player.wait(timeout: max(0, deadline - monotonic())), status == 0 else {
                failure.withLock { $0 = $0 ?? "pacat did not finish playing: \(player.stderrText)" }
                return false
            }
        }
        return ok && isFinished
    }

    /// Stops the feeder and waits for its thread to leave (a player is killed).
    func stopAndJoin() {
        stop()
        if done.wait(timeout: .now() + 5) == .success { done.signal() }
        player?.kill()
    }

    private func feed() {
        defer { done.signal() }
        if let givenFD { _ = fcntl(givenFD, F_SETFL, O_NONBLOCK) }
        let fd = givenFD ?? open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            failure.withLock { $0 = "cannot open \(path): \(String(cString: strerror(errno)))" }
            return
        }
        defer { close(fd) }
        let chunk = 480 * 2  // 10 ms of stereo
        let t0 = monotonic()
        var off = 0
        samples.withUnsafeBytes { raw in
            while off < samples.count && !stopFlag.load(ordering: .acquiring) {
                let n = min(chunk, samples.count - off)
                if let speed {
                    let due = t0 + Double(off / 2) / (Double(Live.rate) * speed)
                    let wait = due - monotonic()
                    Wait.pace(seconds: wait)  // pacing: the feed at `speed` is the input
                }
                var byte = off * 2
                let end = (off + n) * 2
                while byte < end && !stopFlag.load(ordering: .acquiring) {
                    var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    if poll(&pfd, 1, 50) <= 0 { continue }
                    let w = Glibc.write(fd, raw.baseAddress! + byte, end - byte)
                    if w > 0 {
                        byte += w
                        written.store(byte / 2, ordering: .releasing)
                    } else if w < 0 && errno != EAGAIN && errno != EINTR {
                        failure.withLock { $0 = "write to \(path): \(String(cString: strerror(errno)))" }
                        return
                    }
                }
                off = byte / 2
            }
        }
        // Let the pipe source take everything before calling it done.
        let taken = Wait.until(timeout: .infinity, interval: 0.002) { stopFlag.load(ordering: .acquiring) || Fifo.pending(fd: fd) == 0 }
        precondition(taken, "a wait with no deadline returns once its condition holds")
        if off >= samples.count { finished.store(true, ordering: .releasing) }
    }
}
