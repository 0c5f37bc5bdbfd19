import Glibc
import MeterCore

/// Names the files of a split or voice-activated recording: a pattern holding `%` is expanded
/// with strftime(3) in local time when each file starts; otherwise `-001`, `-002`, ... go
/// before the extension. A name that is taken (it exists, or this run used it) gets the next
/// counter, so nothing is ever overwritten: creation itself is exclusive (`O_EXCL`), the
/// caller reports a taken name and is offered the next one.
public struct FileNamer {
    public let pattern: FilePath
    private let usesTime: Bool
    private let stem: [UInt8]
    private let suffix: [UInt8]
    private var counter = 0
    private var used: Set<FilePath> = []

    public init(pattern: FilePath) {
        self.pattern = pattern
        usesTime = pattern.bytes.contains(UInt8(ascii: "%"))
        (stem, suffix) = Self.split(pattern.bytes)
    }

    /// Creates the next file: `create` is offered names in order until it returns a value
    /// (nil: the name exists). Its errors pass through.
    public mutating func next<W>(at time: time_t, _ create: (FilePath) throws(OutputError) -> W?) throws(OutputError) -> (FilePath, W) {
        if usesTime {
            let expanded = Self.strftime(pattern.bytes, time)
            let name = FilePath(bytes: expanded)
            if !used.contains(name), let w = try create(name) {
                used.insert(name)
                return (name, w)
            }
            let (s, x) = Self.split(expanded)
            var k = 0
            while true {
                k += 1
                let candidate = FilePath(bytes: s + Self.number(k) + x)
                if used.contains(candidate) { continue }
                if let w = try create(candidate) {
                    used.insert(candidate)
                    return (candidate, w)
                }
                if k >= 1_000_000 { break }
            }
        } else {
            while counter < 1_000_000 {
                counter += 1
                let candidate = FilePath(bytes: stem + Self.number(counter) + suffix)
                if let w = try create(candidate) { return (candidate, w) }
            }
        }
        throw OutputError.noFreeName(pattern: pattern)
    }

    /// The name of one of several sources' recordings: `-K` before the extension
    /// ("x.wav", 2 -> "x-2.wav"; "x" -> "x-2"), a pattern of its own for split or trigger.
    public static func perSource(_ path: FilePath, position: Int) -> FilePath {
        let (stem, suffix) = split(path.bytes)
        return FilePath(bytes: stem + Array("-\(position)".utf8) + suffix)
    }

    /// "-001" ... "-999", then as many digits as needed.
    static func number(_ k: Int) -> [UInt8] {
        let digits = String(k)
        return Array(("-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits).utf8)
    }

    /// The name without and with its extension: "a/b.wav" -> ("a/b", ".wav"); a leading dot
    /// ("a/.wav") is not an extension.
    static func split(_ bytes: [UInt8]) -> ([UInt8], [UInt8]) {
        let lastSlash = bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > lastSlash + 1 else { return (bytes, []) }
        return (Array(bytes[..<dot]), Array(bytes[dot...]))
    }

    /// `strftime(3)` of `format` at `time` in local time (`localtime_r`).
    static func strftime(_ format: [UInt8], _ time: time_t) -> [UInt8] {
        var t = time
        var parts = tm()
        localtime_r(&t, &parts)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let fmt = format.filter { $0 != 0 } + [0]
        let n = fmt.withUnsafeBufferPointer { f in
            buffer.withUnsafeMutableBufferPointer { b in
                f.withMemoryRebound(to: CChar.self) { fc in
                    b.withMemoryRebound(to: CChar.self) { bc in Glibc.strftime(bc.baseAddress!, 4096, fc.baseAddress!, &parts) }
                }
            }
        }
        return Array(buffer[0..<n])
    }
}
