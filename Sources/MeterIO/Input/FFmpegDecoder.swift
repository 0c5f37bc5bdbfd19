import Glibc
import MeterCore

/// Decodes what libsndfile cannot (m4a/AAC, mkv, webm, ...) through ffmpeg: `ffprobe` for the
/// first audio stream's rate, channels and duration, then
/// `ffmpeg -nostdin -v error [-ss T] -i file:PATH -map 0:a:0 -f f32le -ac C -ar R -`, whose
/// standard output the one raw-PCM reader (`RawPCMReader`) turns into frames. `file:` keeps a
/// name that starts with `-` or holds `:` from being read as an option or a protocol.
///
/// A non-zero exit of ffmpeg is a decode error of the file (`.notDecodable`), with the last line it
/// wrote on standard error. Seeking starts ffmpeg again at the new position. ffmpeg runs in its
/// own process group (a Ctrl-C on the terminal does not reach it): a cancelled run stops it.
///
/// Owned by one thread at a time (not Sendable), like `SoundFileReader`.
public final class FFmpegDecoder: AudioFileSource {
    public let path: FilePath
    public let rate: Int
    public let channels: Int
    /// Frames from the container's duration: an estimate (the decoded count may differ a little).
    public let declaredFrames: Int
    public var name: String { path.string }
    private let ffmpeg: String
    private var child: ChildProcess?
    private var pcm: RawPCMReader?
    private var finished = false
    private let cancellation: Cancellation?

    /// Probes `path` with `ffprobe` (`.notDecodable` when it holds no audio ffmpeg can read) and starts
    /// decoding it with `ffmpeg`.
    public init(path: FilePath, ffmpeg: String, ffprobe: String, cancellation: Cancellation? = nil) throws(InputError) {
        self.path = path
        self.ffmpeg = ffmpeg
        self.cancellation = cancellation
        let probe: ChildProcess
        do {
            probe = try ChildProcess(executable: ffprobe, argumentBytes: [
                "-v", "error", "-select_streams", "a:0",
                "-show_entries", "stream=sample_rate,channels:format=duration",
                "-of", "default=noprint_wrappers=1",
            ].map { Array($0.utf8) } + [Self.input(path)], stdin: .null, stdout: .pipe)
        } catch {
            throw InputError.decoderDidNotStart(path, program: ffprobe, reason: error.reason)
        }
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while text.count <= 65536 {
            let n = buffer.withUnsafeMutableBytes { probe.readStdout(into: $0.baseAddress!, count: 4096) }
            if n <= 0 { break }
            text += buffer[0..<n]
        }
        let status = probe.wait()
        var fields: [String: String] = [:]
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, fields[String(parts[0])] == nil { fields[String(parts[0])] = String(parts[1]) }
        }
        guard status == .exited(0) else {
            throw InputError.notAudio(path)
        }
        guard let r = fields["sample_rate"].flatMap({ Int($0) }), let c = fields["channels"].flatMap({ Int($0) }) else {
            throw InputError.noAudioStream(path)
        }
        guard c >= 1, c <= MeterSettings.maxChannels else {
            throw InputError.channels(path, count: c, most: MeterSettings.maxChannels)
        }
        guard r >= 1, r <= MeterSettings.maxRate else {
            throw InputError.rate(path, hz: r, most: MeterSettings.maxRate)
        }
        rate = r
        channels = c
        let seconds = fields["duration"].flatMap { Double($0) } ?? 0
        declaredFrames = seconds.isFinite && seconds > 0 && seconds < 1e9 ? Int((seconds * Double(r)).rounded()) : 0
        try start(atFrame: 0)
    }

    deinit { stopChild() }

    /// `file:` and the name's bytes.
    private static func input(_ path: FilePath) -> [UInt8] { Array("file:".utf8) + path.bytes }

    private func start(atFrame frame: Int) throws(InputError) {
        stopChild()
        var args = ["-nostdin", "-v", "error"]
        if frame > 0 {
            // Seconds with 6 decimals, never in exponent form.
            let us = Int((Double(frame) / Double(rate) * 1e6).rounded())
            let fraction = String(us % 1_000_000)
            args += ["-ss", "\(us / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction]
        }
        var argv = args.map { Array($0.utf8) }
        argv.append(Array("-i".utf8))
        argv.append(Self.input(path))
        argv += ["-map", "0:a:0", "-f", "f32le", "-ac", String(channels), "-ar", String(rate), "-"].map { Array($0.utf8) }
        do {
            let c = try ChildProcess(executable: ffmpeg, argumentBytes: argv, stdin: .null, stdout: .pipe)
            child = c
            pcm = RawPCMReader(fd: c.stdoutFD, format: .f32le, rate: rate, channels: channels, name: path.string,
                               cancellation: cancellation)
            finished = false
        } catch {
            throw InputError.decoderDidNotStart(path, program: ffmpeg, reason: error.reason)
        }
    }

    /// Ends a decoder that may still be writing (a run that stopped reading early,
    /// `--duration`, once waited for it forever).
    private func stopChild() {
        guard let c = child else { return }
        pcm = nil
        c.stopReading(signal: SIGTERM)
        child = nil
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        guard let pcm, let child, !finished else { return 0 }
        let n = try pcm.read(into: buffer, maxFrames: maxFrames)
        if n > 0 { return n }
        finished = true
        if cancellation?.isCancelled == true {
            // Stopped (Ctrl-C: ffmpeg, in its own process group, did not get it): not an error.
            stopChild()
            return 0
        }
        let end = child.wait()
        switch end {
        case .exited(0): return 0
        case .exited(let code):
            throw InputError.decoderFailed(path, reason: child.lastStderrLine ?? "it exited with status \(code)")
        case .signalled(let signal):
            throw InputError.decoderKilled(path, signal: signal)
        }
    }

    /// Starts decoding again at `frame` (ffmpeg `-ss`, accurate to the sample when decoding).
    public func seek(toFrame frame: Int) -> Bool {
        do {
            try start(atFrame: max(0, frame))
            return true
        } catch {
            return false
        }
    }
}
