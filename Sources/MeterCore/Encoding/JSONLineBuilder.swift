/// Builds one JSON line into a reusable byte buffer, with a fast fixed-point number writer.
///
/// Foundation's formatters cost about a microsecond per number, which would dominate
/// `analyze --bands 64`; this writes digits straight into its own buffer. Numbers are rounded
/// to a fixed count of decimals with trailing zeros dropped (one kept: `-20.0`), never `-0.0`;
/// non-finite values never reach it (callers pass bounded dB values).
///
/// A class over raw storage (not an Array) so that writing a digit is a store, not an append
/// with capacity and uniqueness checks. One builder per line writer; not shared across threads.
public final class JSONLineBuilder {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes in the line so far.
    public private(set) var count = 0

    public init(capacity: Int = 1024) {
        self.capacity = max(64, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// The line so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    public func reset() { count = 0 }

    /// Makes room for `n` more bytes.
    @inline(__always)
    private func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    private func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        bigger.update(from: storage, count: count)
        storage.deallocate()
        storage = bigger
        capacity = c
    }

    public func raw(_ s: StaticString) {
        s.withUTF8Buffer { buf in
            reserve(buf.count)
            (storage + count).update(from: buf.baseAddress!, count: buf.count)
            count += buf.count
        }
    }

    /// Bytes as they are (an already encoded JSON value).
    public func append(_ bytes: [UInt8]) {
        reserve(bytes.count)
        for b in bytes {
            storage[count] = b
            count += 1
        }
    }

    public func byte(_ b: UInt8) {
        reserve(1)
        storage[count] = b
        count += 1
    }

    /// A JSON string literal with escapes.
    public func string(_ s: String) {
        byte(UInt8(ascii: "\""))
        for u in s.utf8 {
            switch u {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                byte(Self.hex(u >> 4))
                byte(Self.hex(u & 15))
            default: byte(u)
            }
        }
        byte(UInt8(ascii: "\""))
    }

    private static func hex(_ v: UInt8) -> UInt8 { v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10 }

    public func int(_ v: Int) {
        reserve(21)
        if v < 0 {
            storage[count] = UInt8(ascii: "-")
            count += 1
        }
        count = Self.writeDigits(UInt64(v.magnitude), minDigits: 1, into: storage, at: count)
    }

    /// Writes `v` in decimal, at least `minDigits` digits (zero-padded), at `buf[at...]`;
    /// returns the index past the last digit.
    @inline(__always)
    private static func writeDigits(_ v: UInt64, minDigits: Int, into buf: UnsafeMutablePointer<UInt8>, at: Int) -> Int {
        var digits = 1
        var t = v
        while t >= 10 {
            digits &+= 1
            t /= 10
        }
        if digits < minDigits { digits = minDigits }
        var x = v
        var i = at &+ digits &- 1
        while i >= at {
            let q = x / 10
            buf[i] = UInt8(truncatingIfNeeded: x &- q &* 10) &+ 48
            x = q
            i &-= 1
        }
        return at &+ digits
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
    public func number(_ v: Double, decimals: Int) {
        reserve(Self.numberBytes)
        count = Self.writeNumber(v, decimals: decimals, into: storage, at: count)
    }

    /// The most bytes `writeNumber` writes (with room to spare).
    private static var numberBytes: Int { 48 }

    /// `number` at `buf[at...]` (at most `numberBytes` bytes); returns the end.
    @inline(__always)
    private static func writeNumber(_ v: Double, decimals: Int, into buf: UnsafeMutablePointer<UInt8>, at: Int) -> Int {
        guard v.isFinite, abs(v) < 9e12 else {
            // Never expected: callers bound their values. Keep the line valid JSON anyway.
            buf[at] = UInt8(ascii: "0")
            return at + 1
        }
        let p = power10(decimals)
        // Round half away from zero, like `rounded()`, without a libm call (baseline x86-64
        // has no rounding instruction): t - trunc(t) is exact.
        let t = v * Double(p)
        var units = Int64(t)
        let f = t - Double(units)
        if f >= 0.5 { units += 1 } else if f <= -0.5 { units -= 1 }
        if decimals == 2 { return writeCenti(units, into: buf, at: at) }
        return writeFixed(units, decimals: decimals, into: buf, at: at)
    }

    /// `units / 10^decimals` as text at `buf[at...]` (at most 32 bytes); returns the end.
    private static func writeFixed(_ units: Int64, decimals: Int, into buf: UnsafeMutablePointer<UInt8>, at: Int) -> Int {
        var i = at
        if units < 0 {
            buf[i] = UInt8(ascii: "-")
            i += 1
        }
        // All digits in one pass, least significant first, into a scratch area, at least
        // decimals + 1 of them so that there is an integer part.
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &scratch) { raw in
            let tail = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + 24
            var n = 0
            var x = units.magnitude
            repeat {
                let q = x / 10
                tail[-1 - n] = UInt8(truncatingIfNeeded: x &- q &* 10) &+ 48
                x = q
                n += 1
            } while x > 0 || n <= decimals
            let first = tail - n
            let intDigits = n - decimals
            (buf + i).update(from: first, count: intDigits)
            i += intDigits
            buf[i] = UInt8(ascii: ".")
            i += 1
            // The fraction without trailing zeros, one digit at least.
            var fracDigits = decimals
            while fracDigits > 1 && first[intDigits + fracDigits - 1] == UInt8(ascii: "0") { fracDigits -= 1 }
            if fracDigits == 0 {
                buf[i] = UInt8(ascii: "0")
                i += 1
            } else {
                (buf + i).update(from: first + intDigits, count: fracDigits)
                i += fracDigits
            }
            return i
        }
    }

    /// `units / 100` as text at `buf[at...]`, like `writeFixed` with 2 decimals (most numbers on
    /// a line are such dB values): the integer part, then one or two fraction digits, no
    /// scratch and no table (a live meter writes a line a frame, when a table is out of cache).
    @inline(__always)
    private static func writeCenti(_ units: Int64, into buf: UnsafeMutablePointer<UInt8>, at: Int) -> Int {
        var i = at
        if units < 0 {
            buf[i] = UInt8(ascii: "-")
            i += 1
        }
        let u = units.magnitude
        let whole = u / 100, fraction = u &- whole &* 100
        i = writeDigits(whole, minDigits: 1, into: buf, at: i)
        let tens = fraction / 10, ones = fraction &- tens &* 10
        buf[i] = UInt8(ascii: ".")
        buf[i &+ 1] = UInt8(truncatingIfNeeded: tens) &+ 48
        guard ones != 0 else { return i &+ 2 }
        buf[i &+ 2] = UInt8(truncatingIfNeeded: ones) &+ 48
        return i &+ 3
    }

    /// `"name":`, preceded by a comma unless it opens the object.
    public func key(_ name: StaticString) {
        if count > 0, storage[count - 1] != UInt8(ascii: "{") { byte(UInt8(ascii: ",")) }
        byte(UInt8(ascii: "\""))
        raw(name)
        raw("\":")
    }

    public func field(_ name: StaticString, _ v: Int) { key(name); int(v) }
    public func field(_ name: StaticString, _ v: String) { key(name); string(v) }
    public func field(_ name: StaticString, _ v: Bool) { key(name); raw(v ? "true" : "false") }
    public func field(_ name: StaticString, _ v: Double, decimals: Int) { key(name); number(v, decimals: decimals) }
    public func field(_ name: StaticString, _ v: [Double], decimals: Int) { key(name); numbers(v, decimals: decimals) }
    public func field(_ name: StaticString, _ v: [Int]) { key(name); array(v, int) }
    public func field(_ name: StaticString, _ v: [String]) { key(name); array(v, string) }

    /// `[a,b,...]`, each element written by `element`.
    private func array<T>(_ values: [T], _ element: (T) -> Void) {
        byte(UInt8(ascii: "["))
        for (i, x) in values.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            element(x)
        }
        byte(UInt8(ascii: "]"))
    }

    /// `[a,b,...]` of numbers, room for all of them made once (a live frame's 64 bands are
    /// most of its line).
    public func numbers(_ values: [Double], decimals: Int) {
        reserve(2 + values.count * (Self.numberBytes + 1))
        let buf = storage
        var i = count
        buf[i] = UInt8(ascii: "[")
        i += 1
        for (k, v) in values.enumerated() {
            if k > 0 {
                buf[i] = UInt8(ascii: ",")
                i += 1
            }
            i = Self.writeNumber(v, decimals: decimals, into: buf, at: i)
        }
        buf[i] = UInt8(ascii: "]")
        count = i + 1
    }
}
