/// What SVG and HTML text needs: lengths written short, and text escaped for markup.
enum Markup {
    /// An SVG length: up to 3 decimals, whole numbers without a fraction ("320", "5.6").
    static func length(_ v: Double) -> String {
        let b = JSONLineBuilder()
        b.number(v, decimals: 3)
        let text = String(decoding: b.bytes, as: UTF8.self)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// Text and attribute values with `& < > " '` escaped.
    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(ch)
            }
        }
        return out
    }
}
