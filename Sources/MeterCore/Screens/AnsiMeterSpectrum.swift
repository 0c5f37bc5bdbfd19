/// The live meter's spectrum: the band columns, their dB axis and the frequency axis.
extension AnsiMeterRenderer {
    /// The spectrum's dB axis: a 4-column label per row, at the rows holding round values
    /// below full scale, labelled in the calibrated unit (`offsetDb`).
    func spectrumAxis(rows: Int) -> [String] {
        let floor = spectrumFloorDb
        let step = [10.0, 20, 30, 45, 90].first { $0 >= -floor / Double(rows) } ?? -floor
        var axis = [String](repeating: "    ", count: rows)
        var v = 0.0
        while v >= floor - 1e-9 {
            // Row 0 is the top: it covers [floor * 1/rows, 0].
            let i = min(rows - 1, Int((v / floor * Double(rows)).rounded(.down)))
            let t = Self.tickText(v + offsetDb)
            if axis[i] == "    " { axis[i] = String(repeating: " ", count: max(0, 3 - t.count)) + t + " " }
            v -= step
        }
        return axis
    }

    /// The octaves the frequency axis labels: the frequency and its label (ISO nominal).
    static let octaves: [(hz: Double, label: String)] = (-6...8).map { k in
        let f = k >= 0 ? 1000 * Double(1 << k) : 1000 / Double(1 << -k)
        let nominal = [-6: "16", -5: "31", -4: "63", -3: "125", -2: "250", -1: "500"]
        return (f, nominal[k] ?? "\(Int(f.rounded()) / 1000)k")
    }

    /// The line under the spectrum (drawn by `spectrum` over `width` columns): each octave
    /// that lies in the bands labelled under its column, as many as fit with a space between
    /// neighbours (the unit, Hz, stands in the axis gutter before it).
    public func frequencyAxis(_ edges: [(Double, Double)], width: Int) -> String {
        let count = edges.count
        guard count > 0 else { return "" }
        let colsPerBand = max(1, width / count)
        let shown = min(count, width)
        let used = shown == count ? count * colsPerBand : shown
        var line = [Character](repeating: " ", count: used)
        var free = 0  // first column a label may take
        for (hz, label) in Self.octaves {
            // The top edge belongs to the last band here (16k under a 16 kHz top edge).
            guard let b = edges.firstIndex(where: { hz >= $0.0 && hz < $0.1 })
                    ?? (hz == edges[count - 1].1 ? count - 1 : nil) else { continue }
            let (lo, hi) = edges[b]
            let within = hi > lo ? PureMath.log(hz / lo) / PureMath.log(hi / lo) : 0
            // Where the octave falls: its band's columns, log-interpolated inside the band.
            let column = shown == count
                ? (Double(b) + within) * Double(colsPerBand)
                : (Double(b) + within) * Double(shown) / Double(count)
            let text = Array(label)
            // Centred on its column, kept inside the spectrum's columns at either end.
            let start = max(0, min(used - text.count, Int(column.rounded(.down)) - (text.count - 1) / 2))
            guard start >= free else { continue }
            for (k, ch) in text.enumerated() { line[start + k] = ch }
            free = start + text.count + 1
        }
        var out = String(line)
        while out.hasSuffix(" ") { out.removeLast() }
        return out
    }

    /// Vertical bars of the band levels (in the calibrated unit), `rows` high, filling `width`
    /// columns.
    public func spectrum(_ bands: [Double], rows: Int, width: Int) -> [String] {
        guard !bands.isEmpty, rows > 0 else { return [] }
        let colsPerBand = max(1, width / bands.count)
        let shown = min(bands.count, width)
        var lines: [String] = []
        for r in stride(from: rows - 1, through: 0, by: -1) {
            var line = ""
            var current = ""
            for b in 0..<shown {
                let band = shown == bands.count ? b : b * bands.count / shown
                let f = (bands[band] - offsetDb - spectrumFloorDb) / -spectrumFloorDb
                let (full, eighths) = BarGlyphs.split(f, cells: rows)
                let glyph = r < full ? glyphs.vertical[8] : (r == full ? glyphs.vertical[eighths] : " ")
                let rowDb = spectrumFloorDb * (1 - (Double(r) + 0.5) / Double(rows))
                let zone = zoneColor(rowDb)
                if glyph != " " && zone != current {
                    line += zone
                    current = zone
                }
                line += String(repeating: glyph, count: colsPerBand)
            }
            lines.append(line + sgr("0"))
        }
        return lines
    }

    static func hz(_ f: Double) -> String {
        f >= 1000 ? "\(Int((f / 100).rounded()) / 10).\(Int((f / 100).rounded()) % 10)k" : "\(Int(f.rounded()))"
    }
}
