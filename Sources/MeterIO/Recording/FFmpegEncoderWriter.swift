import Glibc
import MeterCore

/// Records AAC (m4a or raw ADTS .aac) through an `ffmpeg` encoder process: libsndfile cannot
/// write AAC, the format of iOS voice memos and chat apps. Owned by the recorder thread, which
/// is the only one that waits on ffmpeg; the capture thread never does (the record ring
/// decouples them, as for libsndfile).
///
/// - pulsemeter creates the file itself (so "cannot create" is reported in our words, and a name
///   is never parsed by ffmpeg as an option or protocol) and hands it to ffmpeg as its stdout;
///   the captured frames go to ffmpeg's stdin as raw s16le (this host's byte order, little
///   endian on every Linux target).
/// - m4a is fragmented MP4 (`-movflags +empty_moov+default_base_moof -frag_duration 500000`,
///   `-flush_packets 1`): a moov up front and a fragment every half second, so a recording cut
///   off at any moment plays up to its last fragment. .aac is ADTS, a stream of frames.
/// - `framesWritten` counts the frames handed to ffmpeg once its clean exit (status 0) has
///   acknowledged them; until then 0. When ffmpeg fails (a full disk), it is what the file is
///   known to hold: the complete fragments (ADTS frames) read back from the file through our
///   own descriptor (`AACFileLength`), less the encoder's priming, at most what was handed over.
/// - If pulsemeter itself is killed, ffmpeg (in its own process group) sees the end of its
///   input and finishes the file.
public final class FFmpegEncoderWriter: RecordingWriter {
    public let path: FilePath
    public private(set) var framesWritten = 0
    private var handedOver = 0
    private let channels: Int
    private var child: ChildProcess?
    private var failure: OutputError?
    /// Our descriptor of the file (ffmpeg has its own copy), to read back what it holds.
    private let fd: Int32
    private let rate: Int
    private let adts: Bool

    /// The ffmpeg arguments (after argv[0]) for `format`, writing to stdout.
    static func arguments(_ format: RecordingFormat) -> [String] {
        var args = ["-nostdin", "-hide_banner", "-loglevel", "error",
                    "-probesize", "32", "-analyzeduration", "0",
                    "-f", "s16le", "-ar", String(format.rate), "-ac", String(format.channels), "-i", "pipe:0",
                    "-c:a", "aac"]
        if let kbps = format.bitrateKbps { args += ["-b:a", "\(kbps)k"] }
        if format.fileExtension == "aac" {
            args += ["-f", "adts"]
        } else {
            args += ["-f", "mp4", "-movflags", "+empty_moov+default_base_moof", "-frag_duration", "500000"]
        }
        return args + ["-flush_packets", "1", "pipe:1"]
    }

    /// Starts ffmpeg writing to `fd`, the file `RecordingFormat.openWriter` created for `path`
    /// (owned from here on: ffmpeg writes to its own copy, this one reads back); throws when
    /// ffmpeg cannot be started.
    init(fd: Int32, path: FilePath, format: RecordingFormat, ffmpeg: String) throws(OutputError) {
        self.path = path
        self.fd = fd
        channels = format.channels
        rate = format.rate
        adts = format.fileExtension == "aac"
        do {
            child = try ChildProcess(executable: ffmpeg, arguments: Self.arguments(format), stdin: .pipe, stdout: .descriptor(fd))
        } catch {
            Glibc.close(fd)
            throw OutputError.encoderDidNotStart(path, program: ffmpeg, reason: error.reason)
        }
    }

    deinit {
        _ = try? close()
        Glibc.close(fd)
    }

    /// The captured frames the file holds after ffmpeg failed: its complete fragments (or
    /// ADTS frames) less the encoder's priming, at most the frames handed over.
    private func framesInFile() -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return 0 }
        let read = { [fd] (offset: Int, count: Int) -> [UInt8] in
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return Array(bytes.prefix(max(0, n)))
        }
        let size = Int(st.st_size)
        let held = adts ? AACFileLength.adts(size: size, read: read) : AACFileLength.fragmentedMP4(size: size, rate: rate, read: read)
        return min(handedOver, max(0, (held ?? 0) - AACFileLength.frameSize))
    }

    /// What ffmpeg said or how it ended, for an error message.
    private func encoderReport(_ child: ChildProcess, _ end: ChildProcess.Termination) -> String {
        let how: String
        switch end {
        case .exited(let code): how = "exited with status \(code)"
        case .signalled(let sig): how = "was killed by signal \(sig)"
        }
        if let line = child.lastStderrLine { return "\(how): \(SafeText.terminal(line))" }
        return how
    }

    /// Hands interleaved s16 frames (the only format AAC recordings take) to ffmpeg; throws
    /// when it has stopped taking them.
    public func write(_ frames: UnsafeRawBufferPointer) throws(OutputError) {
        if let failure { throw failure }
        guard let child else { return }
        let code = child.writeToStdin(frames)
        if code == 0 {
            handedOver += frames.count / (2 * channels)
            return
        }
        child.closeStdin()
        let end = child.wait()
        framesWritten = framesInFile()
        let e = OutputError.encoderStopped(path, report: encoderReport(child, end))
        failure = e
        throw e
    }

    /// Ends ffmpeg's input and waits for it to finish the file; throws unless it exits cleanly.
    public func close() throws(OutputError) {
        if let failure { throw failure }
        guard let child else { return }
        child.closeStdin()
        let end = child.wait()
        self.child = nil
        guard end.isCleanExit else {
            framesWritten = framesInFile()
            let e = OutputError.encoderDidNotFinish(path, report: encoderReport(child, end))
            failure = e
            throw e
        }
        framesWritten = handedOver
    }
}
