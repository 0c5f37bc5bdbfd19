/// Rows of text fields as RFC 4180 CSV: fields separated by commas, a field holding a comma,
/// a double quote, CR or LF enclosed in double quotes with its quotes doubled, every row
/// ending in CRLF. For any command's table (`-f csv`).
public struct CSVWriter {
    private let numbers = JSONLineBuilder(capacity: 64)

    public init() {}

    /// One row, CRLF included.
    public func row(_ fields: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, f) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            Self.append(f, to: &out)
        }
        out += [13, 10]
        return out
    }

    static func append(_ field: String, to out: inout [UInt8]) {
        let bytes = Array(field.utf8)
        guard bytes.contains(where: { $0 == 44 || $0 == 34 || $0 == 13 || $0 == 10 }) else { return out += bytes }
        out.append(34)
        for b in bytes {
            out.append(b)
            if b == 34 { out.append(34) }
        }
        out.append(34)
    }

    /// A number as the NDJSON lines write it (`decimals` at most, trailing zeros dropped but one).
    public func number(_ v: Double, decimals: Int) -> String {
        numbers.reset()
        numbers.number(v, decimals: decimals)
        return String(decoding: numbers.bytes, as: UTF8.self)
    }
}
