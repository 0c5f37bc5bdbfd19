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
    /// left, the last column unpadded; one line each. The widths are the widest cell's.
    static func table(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        guard let first = rows.first else { return "" }
        let columns = Columns(widths: first.indices.map { c in rows.map { $0[c].count }.max() ?? 0 }, rightAligned: rightAligned)
        return rows.map(columns.line).joined()
    }

    /// The one way tables are padded: columns of widths fixed up front (so that a table's
    /// rows can be written as they come: `tag`'s, a many-file `analyze`'s), two spaces apart,
    /// the `rightAligned` columns' cells padded on the left, the last column unpadded (a file
    /// name there moves no column). A cell wider than its column pushes the rest right.
    struct Columns {
        /// Each column's width, in characters (the last column's is not used).
        var widths: [Int]
        var rightAligned: Set<Int> = []

        /// `cells` as one line, ending in a newline; no trailing spaces.
        func line(_ cells: [String]) -> String {
            var line = ""
            for (c, cell) in cells.enumerated() {
                let pad = String(repeating: " ", count: max(0, (c < widths.count ? widths[c] : 0) - cell.count))
                if c > 0 { line += "  " }
                line += rightAligned.contains(c) ? pad + cell : (c == cells.count - 1 ? cell : cell + pad)
            }
            while line.last == " " { line.removeLast() }
            return line + "\n"
        }
    }
}
