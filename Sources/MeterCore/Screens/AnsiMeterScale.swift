/// The live meter's scales: the dB scale under the bars, a meter's own scale (VU, PPM, K),
/// and the correlation bar.
extension AnsiMeterRenderer {
    /// The dB values the scale under the bars labels: the floor, then -40 -20 -10 -6 -3 0.
    var scaleTicks: [Double] {
        [floorDb] + [-40.0, -20, -10, -6, -3, 0].filter { $0 > floorDb + 1 }
    }

    /// The correlation bar: -1 at the left, 0 in the middle, +1 at the right, the reading
    /// marked; red left of 0 (out of phase), green right of it; then the number and the balance.
    public func correlationLine(_ r: Double, balanceDb: Double, width w: Int) -> String {
        var text = "corr -1 "
        let readout = " +1 " + Self.correlationText(r) + "  bal " + (balanceDb >= 0 ? "+" : "") + Self.readout(balanceDb, width: 0) + " dB"
        let cells = max(3, w - text.count - readout.count)
        let mid = cells / 2
        let mark = min(cells - 1, max(0, Int(((r + 1) / 2 * Double(cells - 1)).rounded())))
        for i in 0..<cells {
            if i == mark {
                text += sgr(r < 0 ? "1;31" : "1;32") + (glyphs.peakMarker == "|" ? "|" : "┃") + sgr("0")
            } else {
                text += i == mid ? "+" : (glyphs.peakMarker == "|" ? "-" : "─")
            }
        }
        return text + readout
    }

    /// The correlation as +0.93 / -1.00.
    static func correlationText(_ r: Double) -> String {
        let hundredths = Int((r * 100).rounded())
        let a = abs(hundredths)
        return (hundredths < 0 ? "-" : "+") + "\(a / 100)." + (a % 100 < 10 ? "0" : "") + "\(a % 100)"
    }

    /// A bar for a reading of `meter` in its unit, over its scale's range.
    public func meterBar(_ value: Double, _ meter: MeterKind, cells: Int) -> String {
        let s = meter.scale
        return bar(db: offsetDb + floorDb + (value - s.low) / (s.high - s.low) * -floorDb, peakDb: nil, cells: cells)
    }

    /// The scale line of `meter`, in its unit.
    public func meterScaleLine(_ meter: MeterKind, cells: Int) -> String {
        let s = meter.scale
        return scaleLine(cells: cells, ticks: s.ticks.map { floorDb + ($0 - s.low) / (s.high - s.low) * -floorDb },
                         labels: s.ticks, unit: meter.unit)
    }

    /// A line of dB labels under a bar of `cells` cells, each under its level's cell (the floor
    /// at the left end, full scale at the right end), in the calibrated unit (`offsetDb`,
    /// `levelUnit`); a label that would touch its left neighbour is left out, except full
    /// scale's, which takes the place of the neighbour instead.
    public func scaleLine(cells: Int) -> String {
        scaleLine(cells: cells, ticks: scaleTicks, labels: scaleTicks.map { $0 + offsetDb }, unit: levelUnit)
    }

    /// The scale line with `labels` placed at `ticks` (positions in dB on the bar), then `unit`.
    func scaleLine(cells: Int, ticks: [Double], labels: [Double], unit: String) -> String {
        var placed: [(start: Int, text: [Character])] = []
        for (i, db) in ticks.enumerated() {
            let text = Array(Self.tickText(labels[i]))
            let last = i == ticks.count - 1
            var start = Int(((db - floorDb) / -floorDb * Double(cells)).rounded()) - text.count / 2
            if i == 0 { start = 0 }
            if last { start = cells - text.count }
            start = max(0, min(start, cells - text.count))
            while let prev = placed.last, start <= prev.start + prev.text.count {
                guard last else { break }
                placed.removeLast()
            }
            if let prev = placed.last, start <= prev.start + prev.text.count { continue }
            placed.append((start, text))
        }
        var line = [Character](repeating: " ", count: max(0, cells))
        for p in placed where p.start + p.text.count <= line.count {
            for (k, ch) in p.text.enumerated() { line[p.start + k] = ch }
        }
        var s = String(line)
        while s.hasSuffix(" ") { s.removeLast() }
        return s + " " + unit
    }

    static func tickText(_ db: Double) -> String { String(Int(db.rounded())) }
}
