import Glibc
import MeterCore

/// Checks an input path before a decoder sees it, so that missing, unreadable and directory
/// paths get exit 66 with a clear reason (`stat(2)`, `access(2)`).
enum InputPath {
    static func checkReadable(_ path: String) throws(PulsemeterError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw PulsemeterError(.missingInput, "cannot open \(path): \(errnoText()); check the path")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw PulsemeterError(.missingInput, "\(path) is a directory; give an audio file")
        }
        guard access(path, R_OK) == 0 else {
            throw PulsemeterError(.missingInput, "cannot read \(path): \(errnoText()); check its permissions")
        }
    }
}
