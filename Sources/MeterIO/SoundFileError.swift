import CSndFile
import Glibc

/// libsndfile's failures in our words (`sf_error`, and `errno` for its system errors): its own
/// strings ("System error : No such file or directory.", "Format not recognised.") are never
/// shown to the user.
enum SoundFileError {
    /// Why `sf_open` or an I/O call on `handle` (nil: the last `sf_open`) failed; `savedErrno`
    /// is `errno` read right after the failing call.
    static func reason(_ handle: OpaquePointer?, savedErrno: Int32) -> String {
        reason(code: sf_error(handle), savedErrno: savedErrno)
    }

    /// The same for an error code a call returned (`sf_close`).
    static func reason(code: Int32, savedErrno: Int32) -> String {
        switch Int(code) {
        case SF_ERR_UNRECOGNISED_FORMAT: return "not a format libsndfile reads"
        case SF_ERR_SYSTEM: return savedErrno != 0 ? errnoText(savedErrno) : "a system error"
        case SF_ERR_MALFORMED_FILE: return "its header is damaged"
        case SF_ERR_UNSUPPORTED_ENCODING: return "an encoding libsndfile cannot handle"
        default: return savedErrno != 0 ? errnoText(savedErrno) : "libsndfile refused it"
        }
    }

    /// True when the last `sf_open` failed because libsndfile does not know the format.
    static var lastOpenWasUnrecognised: Bool { sf_error(nil) == Int32(SF_ERR_UNRECOGNISED_FORMAT) }
}
