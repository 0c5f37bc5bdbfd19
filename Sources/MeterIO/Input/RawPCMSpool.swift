import Glibc
import MeterCore

/// Raw PCM from a pipe, copied first into an unlinked temporary file (`mkstemp` in $TMPDIR,
/// then `unlink`), so that its exact length is known before it is read: `waveform -` must know
/// how many frames there are to place its bar boundaries, and a pipe cannot be read twice.
/// Memory stays flat; the disk holds the input until the spool is released.
///
/// Owned by one thread at a time (not Sendable).
public final class RawPCMSpool: AudioFileSource {
    public let format: RawSampleFormat
    public let rate: Int
    public let channels: Int
    public let name: String
    /// Whole frames in the input.
    public let declaredFrames: Int
    /// Bytes of an incomplete last frame (ignored).
    public let trailingBytes: Int
    private let fd: Int32
    private var reader: RawPCMReader

    /// Copies everything `input` holds into the spool; cancelling `cancellation` ends the
    /// input there, even while a read waits for more.
    public init(fd input: Int32, format: RawSampleFormat, rate: Int, channels: Int, name: String = "stdin",
                cancellation: Cancellation? = nil) throws(InputError) {
        self.format = format
        self.rate = rate
        self.channels = channels
        self.name = name
        let dir = ProcessEnvironment.get("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(dir)/pulsemeter-spool-XXXXXX".utf8CString)
        let spool = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard spool >= 0 else {
            throw InputError.spoolCannotCreate(directory: dir, reason: errnoText())
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(spool, F_SETFD, FD_CLOEXEC)
        fd = spool
        var total = 0
        let block = 1 << 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 16)
        let stop = cancellation.flatMap { StopPipe($0) }
        defer {
            stop?.release()
            buffer.deallocate()
        }
        while true {
            let n = SystemCall.read(input, buffer, block, stop: stop)
            if n < 0 {
                if errno == EINTR { break }  // given up: stopped
                let e = errno
                close(spool)
                throw InputError.readFailed(name: name, reason: errnoText(e))
            }
            if n == 0 { break }
            let e = SystemCall.writeAll(spool, UnsafeRawBufferPointer(start: buffer, count: n))
            if e != 0 {
                close(spool)
                throw InputError.spoolWrite(name: name, directory: dir, reason: errnoText(e))
            }
            total += n
        }
        let frameBytes = format.bytesPerSample * channels
        declaredFrames = total / frameBytes
        trailingBytes = total % frameBytes
        lseek(spool, 0, SEEK_SET)
        reader = RawPCMReader(fd: spool, format: format, rate: rate, channels: channels, name: name)
    }

    deinit { close(fd) }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        // The last incomplete frame is left unread.
        try reader.read(into: buffer, maxFrames: maxFrames)
    }

    public func seek(toFrame frame: Int) -> Bool {
        guard frame >= 0, frame <= declaredFrames else { return false }
        guard lseek(fd, off_t(frame * format.bytesPerSample * channels), SEEK_SET) >= 0 else { return false }
        reader = RawPCMReader(fd: fd, format: format, rate: rate, channels: channels, name: name)
        return true
    }
}
