import Glibc
import MeterCore

/// Why a network stream (`--url`) cannot be metered: the facts, for the command line to word
/// (it cannot be opened before the run, or it is lost mid-run). Addresses and reasons are
/// already without the password.
public enum NetworkStreamError: Error, Equatable, Sendable {
    /// ffmpeg is not on PATH, or could not be started (`reason`).
    case decoderMissing(program: String, reason: String)
    /// ffmpeg could not open it or gave no audio (`reason`: its words, or ours).
    case cannotOpen(url: String, reason: String)
    /// It ended or stalled mid-run.
    case lost(url: String, reason: String)
}

/// A network stream (http/https, Icecast/Shoutcast, HLS, rtsp: what ffmpeg reads) decoded in
/// real time by ffmpeg into interleaved s16 at the run's rate and channels (ffmpeg resamples
/// and remixes, so a stream whose format changes mid-way still reads as the run's spec), for
/// the live session's capture thread.
///
/// - The address never appears on ffmpeg's command line (which `ps` shows): ffmpeg reads a
///   one-entry concat script from its stdin, `ffconcat version 1.0` / `file 'URL'`
///   (`-f concat -safe 0 -i pipe:0`), and whatever it says is quoted through
///   `StreamURL.redact`.
/// - Opening waits for the first audio (or ffmpeg's failure) up to `openTimeout` seconds.
/// - Pacing: a listener first gets a burst of what the server buffered (seconds of audio at
///   once); reads are held back to the audio's own clock from the first byte, so frames come
///   at real-time pace and `ts` means what it says.
/// - Loss: ffmpeg's output ending (the server dropped the listener, ffmpeg failed), or no data
///   for `stallTimeout` seconds, fails the read.
///
/// Owned by the capture thread once handed over (`@unchecked Sendable` only for that).
public final class NetworkStream: LiveCapture, @unchecked Sendable {
    public let url: StreamURL
    public let rate: Int
    public let channels: Int
    public private(set) var lastError = ""
    public var captureName: String? { url.shown }
    /// A decoded stream states no positions: the WAVE order for the channel count.
    public var channelNames: [String] { ChannelNames.waveDefault(channels: channels) }
    private let child: ChildProcess
    private var pending: [UInt8] = []  // bytes read while opening, not yet handed out
    private var delivered = 0          // frames handed out
    private var startedAt = 0.0        // monotonic time of the first byte
    private let stallTimeout: Double
    /// The protocols the concat script may open: the script itself and what streams use.
    static let protocols = "pipe,file,http,https,tcp,tls,crypto,hls,rtsp,rtp,udp,rtmp,rtmps,srt,httpproxy,data"

    public init(url: StreamURL, rate: Int, channels: Int, ffmpeg: String = "ffmpeg",
                openTimeout: Double = 15, stallTimeout: Double = 5) throws(NetworkStreamError) {
        self.url = url
        self.rate = rate
        self.channels = channels
        self.stallTimeout = stallTimeout
        guard let program = ChildProcess.find(ffmpeg) else {
            throw .decoderMissing(program: ffmpeg, reason: "it is not on PATH")
        }
        let args = ["-nostdin", "-v", "error", "-f", "concat", "-safe", "0", "-protocol_whitelist", Self.protocols,
                    "-i", "pipe:0", "-map", "0:a:0", "-f", "s16le", "-ac", String(channels), "-ar", String(rate), "-"]
        do {
            child = try ChildProcess(executable: program, arguments: args, stdin: .pipe, stdout: .pipe)
        } catch {
            throw .decoderMissing(program: program, reason: error.reason)
        }
        // Inside single quotes nothing is special; a quote is closed, escaped and reopened.
        var quoted = ""
        for c in url.full { quoted += c == "'" ? "'\\''" : String(c) }
        let script = Array("ffconcat version 1.0\nfile '\(quoted)'\n".utf8)
        _ = script.withUnsafeBytes { child.writeToStdin($0) }
        child.closeStdin()
        // The first audio, or why there is none.
        let deadline = monotonicSeconds() + openTimeout
        var chunk = [UInt8](repeating: 0, count: 65536)
        while pending.isEmpty {
            let left = deadline - monotonicSeconds()
            guard left > 0 else {
                stop()
                throw .cannotOpen(url: url.shown, reason: "no audio came within \(Int(openTimeout)) s")
            }
            let n = readSome(&chunk, timeout: left)
            if n > 0 { pending = Array(chunk[0..<n]) }
            if n == 0 {
                let end = child.wait()
                throw .cannotOpen(url: url.shown, reason: reason(end))
            }
        }
        startedAt = monotonicSeconds()
    }

    deinit { stop() }

    /// ffmpeg's last words, without the password and without the concat script's name
    /// (`pipe:0: Connection refused` says `Connection refused`).
    private func reason(_ end: ChildProcess.Termination) -> String {
        if var line = child.lastStderrLine {
            if line.hasPrefix("pipe:0: ") { line = String(line.dropFirst(8)) }
            return url.redact(line)
        }
        switch end {
        case .exited(0): return "the stream ended"
        case .exited(let code): return "ffmpeg exited with status \(code)"
        case .signalled(let sig): return "ffmpeg was killed by signal \(sig)"
        }
    }

    /// Ends ffmpeg at once (a decoder has nothing to finish): our end of its output closed
    /// first, so it cannot block writing, then SIGKILL.
    private func stop() {
        child.closeStdout()
        child.signal(SIGKILL)
        child.wait()
    }

    /// Up to `buffer.count` bytes of ffmpeg's output within `timeout` s: the count, 0 at its
    /// end, -1 when nothing came in time.
    private func readSome(_ buffer: inout [UInt8], timeout: Double) -> Int {
        var pfd = pollfd(fd: child.stdoutFD, events: Int16(POLLIN), revents: 0)
        let r = SystemCall.retryingInterrupted { Int(poll(&pfd, 1, Int32(max(0, timeout) * 1000) + 1)) }
        guard r > 0 else { return -1 }
        let n = buffer.withUnsafeMutableBytes { child.readStdout(into: $0.baseAddress!, count: $0.count) }
        return max(0, n)
    }

    public func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws {
        var filled = 0
        if !pending.isEmpty {
            let n = min(bytes, pending.count)
            pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
            pending.removeFirst(n)
            filled = n
        }
        while filled < bytes {
            var pfd = pollfd(fd: child.stdoutFD, events: Int16(POLLIN), revents: 0)
            let r = SystemCall.retryingInterrupted { Int(poll(&pfd, 1, Int32(stallTimeout * 1000))) }
            if r == 0 {
                lastError = "no data for \(Int(stallTimeout)) s"
                throw NetworkStreamError.lost(url: url.shown, reason: lastError)
            }
            let n = child.readStdout(into: buffer + filled, count: bytes - filled)
            if n <= 0 {
                let end = child.wait()
                lastError = reason(end)
                throw NetworkStreamError.lost(url: url.shown, reason: lastError)
            }
            filled += n
        }
        // Held back to the audio's clock: the burst a server sends a new listener comes at
        // real-time pace, not all at once.
        delivered += bytes / (2 * channels)
        let due = startedAt + Double(delivered) / Double(rate)
        let early = due - monotonicSeconds()
        if early > 0 { usleep(UInt32(min(early, 1) * 1e6)) }
    }
}
