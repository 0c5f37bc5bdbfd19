import MeterCore

/// The two shapes of `devices` output: a JSON array of objects, and an aligned table.
enum Listing {
    /// `[{...},{...}]\n`, each object's fields written by `fields`.
    static func jsonArray<T>(_ items: [T], _ fields: (JSONLineBuilder, T) -> Void) -> [UInt8] {
        let b = JSONLineBuilder()
        b.raw("[")
        for (i, item) in items.enumerated() {
            if i > 0 { b.raw(",") }
            b.byte(UInt8(ascii: "{"))
            fields(b, item)
            b.raw("}")
        }
        b.raw("]\n")
        return b.bytes
    }

    /// Rows with columns two spaces apart, the `rightAligned` columns' cells padded on the
    /// left, the last column unpadded; one line each.
    static func table(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        guard let first = rows.first else { return "" }
        let widths = first.indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        var text = ""
        for row in rows {
            var line = ""
            for (c, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                if c > 0 { line += "  " }
                line += rightAligned.contains(c) ? pad + cell : (c == row.count - 1 ? cell : cell + pad)
            }
            text += line + "\n"
        }
        return text
    }
}
