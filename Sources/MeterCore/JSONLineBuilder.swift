/// Builds one JSON line into a reusable byte buffer, with a fast fixed-point number writer.
///
/// Foundation's formatters cost about a microsecond per number, which would dominate
/// `analyze --bands 64`; this writes digits directly. Numbers are rounded to a fixed count of
/// decimals with trailing zeros dropped (one kept: `-20.0`), and non-finite values never
/// reach it (callers pass floored dB values).
public struct JSONLineBuilder {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    public mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// A JSON string literal with escapes.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for u in s.utf8 {
            switch u {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(u >> 4)])
                bytes.append(hex[Int(u & 15)])
            default: bytes.append(u)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func int(_ v: Int) {
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            uint(UInt64(v.magnitude))
        } else {
            uint(UInt64(v))
        }
    }

    private mutating func uint(_ v: UInt64) {
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        var x = v
        withUnsafeMutableBytes(of: &tmp) { buf in
            repeat {
                buf[n] = UInt8(ascii: "0") + UInt8(x % 10)
                x /= 10
                n += 1
            } while x > 0
            for i in stride(from: n - 1, through: 0, by: -1) { bytes.append(buf[i]) }
        }
    }

    private static let powers: [Double] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000]

    /// A finite number with at most `decimals` (0...6) digits after the point.
    public mutating func number(_ v: Double, decimals: Int) {
        guard v.isFinite, abs(v) < 9e12 else {
            // Never expected: callers bound their values. Keep the line valid JSON anyway.
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let scale = Self.powers[decimals]
        let scaled = (v * scale).rounded()
        var units = Int64(scaled)
        if units < 0 {
            bytes.append(UInt8(ascii: "-"))
            units = -units
        }
        let m = UInt64(units)
        let p = UInt64(scale)
        uint(m / p)
        bytes.append(UInt8(ascii: "."))
        var frac = m % p
        var digits = decimals
        // Drop trailing zeros, keeping one digit.
        while digits > 1 && frac % 10 == 0 {
            frac /= 10
            digits -= 1
        }
        if digits == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var div: UInt64 = 1
        for _ in 1..<digits { div *= 10 }
        for _ in 0..<digits {
            bytes.append(UInt8(ascii: "0") + UInt8(frac / div))
            frac %= div
            div /= 10
        }
    }

    /// `[a,b,...]` of numbers.
    public mutating func numbers(_ values: [Double], decimals: Int) {
        bytes.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            number(v, decimals: decimals)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
