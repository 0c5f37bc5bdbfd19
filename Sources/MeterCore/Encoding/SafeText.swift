/// Text from outside (file names, device names) made harmless for a terminal.
///
/// A file name may hold any byte but `/` and NUL, ESC and BEL included: printed raw, a crafted
/// name could retitle the terminal (OSC), move the cursor or worse. Every control character
/// (C0, DEL, C1) and the bidirectional overrides are written as visible escapes instead:
/// `\n`, `\t`, `\r`, `\e`, else `\xHH` (below U+0100) or `\u{HHHH}`.
public enum SafeText {
    public static func terminal(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: needsEscape) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            guard needsEscape(u) else {
                out.append(u)
                continue
            }
            let text: String
            switch u.value {
            case 0x0A: text = "\\n"
            case 0x09: text = "\\t"
            case 0x0D: text = "\\r"
            case 0x1B: text = "\\e"
            case 0..<0x100: text = "\\x" + hex(u.value, digits: 2)
            default: text = "\\u{" + hex(u.value, digits: 4) + "}"
            }
            out.append(contentsOf: text.unicodeScalars)
        }
        return String(out)
    }

    /// C0, DEL, C1, and the bidi embeddings, overrides and isolates (U+202A-202E, U+2066-2069).
    static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    private static func hex(_ v: UInt32, digits: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}
