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
/// - A stop: every wait (opening, a read, the pacing) is a `poll(2)` beside the run's
///   `StopPipe`, so cancelling ends it at once: the opening throws `StopRequested`, a read
///   throws it too (the capture loop then ends).
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
    private var pending: [UInt8] = []  // bytes read while opening, handed out from `pendingStart` on
    private var pendingStart = 0
    private let stop: StopPipe?
    private var delivered = 0          // frames handed out
    private var startedAt = 0.0        // monotonic time of the first byte
    private let stallTimeout: Double
    /// The protocols the concat script may open: the script itself and what streams use.
    static let protocols = "pipe,file,http,https,tcp,tls,crypto,hls,rtsp,rtp,udp,rtmp,rtmps,srt,httpproxy,data"

    /// Throws `NetworkStreamError`, or `StopRequested` when `cancellation` fires while it opens.
    public init(url: StreamURL, rate: Int, channels: Int, ffmpeg: String = "ffmpeg", cancellation: Cancellation,
                openTimeout: Double = 15, stallTimeout: Double = 5) throws {
        self.url = url
        self.rate = rate
        self.channels = channels
        self.stallTimeout = stallTimeout
        guard let program = ChildProcess.find(ffmpeg) else {
            throw NetworkStreamError.decoderMissing(program: ffmpeg, reason: "it is not on PATH")
        }
        let args = ["-nostdin", "-v", "error", "-f", "concat", "-safe", "0", "-protocol_whitelist", Self.protocols,
                    "-i", "pipe:0", "-map", "0:a:0", "-f", "s16le", "-ac", String(channels), "-ar", String(rate), "-"]
        do {
            child = try ChildProcess(executable: program, arguments: args, stdin: .pipe, stdout: .pipe)
        } catch {
            throw NetworkStreamError.decoderMissing(program: program, reason: error.reason)
        }
        stop = StopPipe(cancellation)
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
            switch waitForOutput(seconds: deadline - monotonicSeconds()) {
            case .stopped:
                throw StopRequested()
            case .timedOut:
                throw NetworkStreamError.cannotOpen(url: url.shown, reason: "no audio came within \(Int(openTimeout)) s")
            case .ready:
                let n = chunk.withUnsafeMutableBytes { child.readStdout(into: $0.baseAddress!, count: $0.count) }
                if n > 0 { pending = Array(chunk[0..<n]) }
                if n <= 0 {
                    let end = child.wait()
                    throw NetworkStreamError.cannotOpen(url: url.shown, reason: reason(end))
                }
            }
        }
        startedAt = monotonicSeconds()
    }

    deinit {
        end()
        stop?.release()
    }

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

    /// Ends ffmpeg at once (a decoder has nothing to finish).
    private func end() {
        child.stopReading(signal: SIGKILL)
    }

    /// Waits for ffmpeg's output (data or its end), at most `seconds`, or a stop.
    private func waitForOutput(seconds: Double) -> StopPipe.Outcome {
        guard seconds > 0 else { return .timedOut }
        if let stop { return stop.wait(for: child.stdoutFD, seconds: seconds) }
        var pfd = pollfd(fd: child.stdoutFD, events: Int16(POLLIN), revents: 0)
        let r = SystemCall.retryingInterrupted { Int(poll(&pfd, 1, Int32(seconds * 1000) + 1)) }
        return r > 0 ? .ready : .timedOut
    }

    /// Fills `bytes` bytes; throws `NetworkStreamError.lost` when the stream ends or stalls,
    /// `StopRequested` when the run is stopped meanwhile.
    public func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws {
        var filled = 0
        if pendingStart < pending.count {
            let n = min(bytes, pending.count - pendingStart)
            pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + pendingStart, byteCount: n) }
            pendingStart += n
            if pendingStart == pending.count { (pending, pendingStart) = ([], 0) }
            filled = n
        }
        while filled < bytes {
            switch waitForOutput(seconds: stallTimeout) {
            case .stopped:
                throw StopRequested()
            case .timedOut:
                lastError = "no data for \(Int(stallTimeout)) s"
                throw NetworkStreamError.lost(url: url.shown, reason: lastError)
            case .ready:
                break
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
        if early > 0 { try pace(seconds: min(early, 1)) }
    }

    /// Sleeps `seconds` (the pacing); a stop ends it at once.
    private func pace(seconds: Double) throws {
        guard let stop else {
            usleep(UInt32(seconds * 1e6))
            return
        }
        if !stop.sleep(seconds: seconds) { throw StopRequested() }
    }
}
