import Glibc
import MeterCore

/// A file written whole in one go (a `--report` page): written beside its name
/// (`NewFile.createBeside`) and given the name only once complete, so a reader never finds
/// half a page. `replace`: over whatever file has the name (`--force`); else only if the name
/// is still free (an existing file is left as it is).
public enum WholeFile {
    public static func write(_ bytes: [UInt8], to path: FilePath, replace: Bool) throws(OutputError) {
        let file: NewFile
        do { file = try NewFile.createBeside(path) } catch { throw error.outputError(path, recording: false) }
        defer { close(file.fd) }
        let e = bytes.withUnsafeBytes { SystemCall.writeAll(file.fd, $0) }
        if e != 0 {
            file.discard()
            throw .cannotWriteOutput(name: path.description, reason: errnoText(e))
        }
        do {
            if replace { try file.commit() } else { try file.commitIfFree() }
        } catch {
            throw error.outputError(path, recording: false)
        }
    }
}
