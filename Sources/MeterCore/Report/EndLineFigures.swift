/// The figures of an `end` line as rows for a report's table: each value exactly as the line
/// prints it (the line is written by `NDJSONLines`, read back here, so the table and the
/// line cannot differ by a digit). A scalar is a row of one value; an array of scalars (one per
/// channel) a row of several; objects and arrays of objects are spelled out by path
/// (`verdict.rules[0].value`, `ln_db[1].L90`). `type` and `stream` are not figures.
public struct EndLineFigures: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var key: String
        public var values: [String]
    }

    public private(set) var rows: [Row] = []

    /// The rows of `line` (one JSON object, as `NDJSONEncoder.end` writes it).
    public init(line: [UInt8]) {
        var reader = Reader(bytes: line)
        guard case .object(let fields) = reader.value() else { return }
        for (key, value) in fields where key != "type" && key != "stream" { add(key, value) }
    }

    /// The value text of the row `key`, nil when the line has no such figure.
    public subscript(key: String) -> [String]? { rows.first { $0.key == key }?.values }

    private mutating func add(_ key: String, _ value: Value) {
        switch value {
        case .scalar(let text): rows.append(Row(key: key, values: [text]))
        case .object(let fields): for (k, v) in fields { add("\(key).\(k)", v) }
        case .array(let items):
            if items.allSatisfy({ if case .scalar = $0 { true } else { false } }) {
                rows.append(Row(key: key, values: items.map { if case .scalar(let t) = $0 { t } else { "" } }))
            } else {
                for (i, v) in items.enumerated() { add("\(key)[\(i)]", v) }
            }
        }
    }

    indirect enum Value {
        case scalar(String)
        case array([Value])
        case object([(String, Value)])
    }

    /// Reads the JSON this tool writes (no whitespace between tokens, escapes of
    /// `JSONLineBuilder.string`); a scalar keeps its text as written, a string unquoted.
    struct Reader {
        let bytes: [UInt8]
        var i = 0

        mutating func value() -> Value {
            guard i < bytes.count else { return .scalar("") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var fields: [(String, Value)] = []
                while i < bytes.count && bytes[i] != UInt8(ascii: "}") {
                    if bytes[i] == UInt8(ascii: ",") { i += 1 }
                    let key = string()
                    i += 1  // the colon
                    fields.append((key, value()))
                }
                i += 1
                return .object(fields)
            case UInt8(ascii: "["):
                i += 1
                var items: [Value] = []
                while i < bytes.count && bytes[i] != UInt8(ascii: "]") {
                    if bytes[i] == UInt8(ascii: ",") { i += 1 }
                    items.append(value())
                }
                i += 1
                return .array(items)
            case UInt8(ascii: "\""): return .scalar(string())
            default:
                let start = i
                while i < bytes.count, !",]}".utf8.contains(bytes[i]) { i += 1 }
                return .scalar(String(decoding: bytes[start..<i], as: UTF8.self))
            }
        }

        /// A string literal at `i`, unescaped.
        mutating func string() -> String {
            i += 1
            var out: [UInt8] = []
            while i < bytes.count && bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count {
                    i += 1
                    switch bytes[i] {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        let hex = bytes[min(i + 1, bytes.count)..<min(i + 5, bytes.count)]
                        out.append(UInt8(Int(String(decoding: hex, as: UTF8.self), radix: 16) ?? 0x3F))
                        i += 4
                    default: out.append(bytes[i])
                    }
                } else {
                    out.append(bytes[i])
                }
                i += 1
            }
            i += 1
            return String(decoding: out, as: UTF8.self)
        }
    }
}
