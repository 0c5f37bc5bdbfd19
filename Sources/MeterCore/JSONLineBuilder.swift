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
        withDigits { buf in Self.writeDigits(v, minDigits: 1, into: buf, at: 0) }
    }

    /// Writes `v` in decimal, at least `minDigits` digits (zero-padded), at `buf[at...]`;
    /// returns the index past the last digit. `buf` holds 32 bytes.
    @inline(__always)
    private static func writeDigits(_ v: UInt64, minDigits: Int, into buf: UnsafeMutablePointer<UInt8>, at: Int) -> Int {
        var digits = 1
        var t = v / 10
        while t > 0 { digits += 1; t /= 10 }
        digits = max(digits, minDigits)
        var x = v
        var i = at + digits - 1
        while i >= at {
            buf[i] = UInt8(ascii: "0") + UInt8(x % 10)
            x /= 10
            i -= 1
        }
        return at + digits
    }

    /// Lets `body` fill a 32-byte scratch and appends the bytes it reports, in one append.
    @inline(__always)
    private mutating func withDigits(_ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { raw in
            let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let n = body(p)
            bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        }
    }

    @inline(__always)
    private static func power10(_ d: Int) -> UInt64 {
        switch d {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10_000
        case 5: 100_000
        default: 1_000_000
        }
    }

    /// A finite number with at most `decimals` (0...6) digits after the point, trailing zeros
    /// dropped but one (`-20.0`); never `-0.0`.
    public mutating func number(_ v: Double, decimals: Int) {
        guard v.isFinite, abs(v) < 9e12 else {
            // Never expected: callers bound their values. Keep the line valid JSON anyway.
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let p = Self.power10(decimals)
        let scaled = (v * Double(p)).rounded()
        let negative = scaled < 0
        let m = UInt64(abs(scaled))
        var frac = m % p
        var digits = decimals
        while digits > 1 && frac % 10 == 0 {
            frac /= 10
            digits -= 1
        }
        withDigits { buf in
            var i = 0
            if negative {
                buf[0] = UInt8(ascii: "-")
                i = 1
            }
            i = Self.writeDigits(m / p, minDigits: 1, into: buf, at: i)
            buf[i] = UInt8(ascii: ".")
            return Self.writeDigits(frac, minDigits: max(1, digits), into: buf, at: i + 1)
        }
    }

    /// `"name":`, preceded by a comma unless it opens the object.
    public mutating func key(_ name: StaticString) {
        if let last = bytes.last, last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        raw("\":")
    }

    public mutating func field(_ name: StaticString, _ v: Int) { key(name); int(v) }
    public mutating func field(_ name: StaticString, _ v: String) { key(name); string(v) }
    public mutating func field(_ name: StaticString, _ v: Bool) { key(name); raw(v ? "true" : "false") }
    public mutating func field(_ name: StaticString, _ v: Double, decimals: Int) { key(name); number(v, decimals: decimals) }
    public mutating func field(_ name: StaticString, _ v: [Double], decimals: Int) { key(name); numbers(v, decimals: decimals) }

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
