import CSndFile
import Glibc
import MeterCore
import Synchronization

/// libsndfile's failures in our words (`sf_error`, and `errno` for its system errors): its own
/// strings ("System error : No such file or directory.", "Format not recognised.") are never
/// shown to the user.
enum SoundFileError {
    /// What `sf_open_fd` gave: the handle, or the reason code (`sf_error(nil)`) and `errno` of
    /// its failure.
    enum Opened {
        case handle(OpaquePointer)
        case failed(code: Int32, savedErrno: Int32)
    }

    /// Held across `sf_open_fd` and the read of its error: libsndfile keeps the last open's
    /// error in one variable of the process, which every open first sets to 0, so a
    /// many-file run's other worker opening a WAV between a failed open and `sf_error(nil)`
    /// made an m4a read as "its header is damaged (no error)" instead of going to ffmpeg.
    private static let opening = Mutex(())

    /// `sf_open_fd(fd, mode, info, closeWhenDone)` with its failure's code read before any
    /// other thread's open can change it. With `closeWhenDone` false the caller's `fd` stays
    /// open whatever happens: libsndfile gets a duplicate of its own (the same file offset),
    /// because libsndfile 1.2.0 (Debian 12) closes the descriptor of a failed open even when
    /// told not to (fixed upstream in 1.2.1), and the caller's own `close` then closed
    /// whatever another thread had opened under that number meanwhile.
    static func open(_ fd: Int32, mode: Int32, _ info: inout SF_INFO, closeWhenDone: Bool) -> Opened {
        let owned = closeWhenDone ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard owned >= 0 else { return .failed(code: Int32(SF_ERR_SYSTEM), savedErrno: errno) }
        return opening.withLock { _ in
            errno = 0
            if let handle = sf_open_fd(owned, mode, &info, Int32(SF_TRUE)) { return .handle(handle) }
            let savedErrno = errno
            return .failed(code: sf_error(nil), savedErrno: savedErrno)
        }
    }

    /// Why an I/O call on `handle` failed; `savedErrno` is `errno` read right after the
    /// failing call.
    static func reason(_ handle: OpaquePointer, savedErrno: Int32) -> String {
        reason(code: sf_error(handle), savedErrno: savedErrno)
    }

    /// The same for an error code a call returned (`sf_close`) or an open failed with.
    static func reason(code: Int32, savedErrno: Int32) -> String {
        switch Int(code) {
        case SF_ERR_UNRECOGNISED_FORMAT: return unknownFormat
        case SF_ERR_SYSTEM: return savedErrno != 0 ? errnoText(savedErrno) : "a system error"
        case SF_ERR_MALFORMED_FILE: return "its header is damaged"
        case SF_ERR_UNSUPPORTED_ENCODING: return "an encoding libsndfile cannot handle"
        default: return savedErrno != 0 ? errnoText(savedErrno) : "libsndfile refused it"
        }
    }

    /// Why `sf_open` for reading failed, `header` being the file's first bytes and `size` its
    /// length: a WAV or AIFF that ends before its audio data begins is said to be cut inside
    /// its header; a system error is `errno`'s text; any other refusal is libsndfile's account
    /// of the header (never a stale `errno`, which its header checks leave untouched).
    static func openReason(code: Int32, header: [UInt8], size: Int, savedErrno: Int32) -> String {
        if let container = DeclaredLength.containerCutInsideHeader(header: header, fileSize: size) {
            return "the file ends inside its \(container) header, after \(size) bytes, before any audio: it was cut short"
        }
        switch Int(code) {
        case SF_ERR_SYSTEM: return savedErrno != 0 ? errnoText(savedErrno) : "a system error"
        case SF_ERR_MALFORMED_FILE: return "its header is damaged"
        default: return "its header is damaged (\(libsndfileText(code)))"
        }
    }

    /// libsndfile's message for `code`, lowercased, without its "Error :" framing and final dot.
    static func libsndfileText(_ code: Int32) -> String {
        var t = Substring(String(cString: sf_error_number(code)).lowercased())
        if t.hasPrefix("error : ") { t = t.dropFirst(8) }
        if t.hasSuffix(".") { t = t.dropLast() }
        return String(t)
    }

    /// The reason for a file whose format libsndfile does not know.
    static let unknownFormat = "not a format libsndfile reads"

    /// Why decoding stopped partway (`sf_error` after a read): libsndfile's decoder messages
    /// put in our words where we know them, else its message without its "Error :" framing.
    static func decodeReason(code: Int32) -> String {
        let text = String(cString: sf_error_number(code))
        let lower = text.lowercased()
        if lower.contains("lost sync") { return "the FLAC decoder lost sync: what follows is not FLAC frames" }
        if lower.contains("crc") { return "a frame fails its checksum" }
        if lower.contains("unknown error in flac decoder") { return "the FLAC decoder could not read a frame" }
        return "the decoder failed (\(libsndfileText(code)))"
    }

    /// True when an open failed with `code` because libsndfile does not know the format or
    /// its encoding (another decoder may).
    static func isUnknown(_ code: Int32) -> Bool {
        Int(code) == SF_ERR_UNRECOGNISED_FORMAT || Int(code) == SF_ERR_UNSUPPORTED_ENCODING
    }
}
