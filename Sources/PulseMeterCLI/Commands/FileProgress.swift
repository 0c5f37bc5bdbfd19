import MeterCore
import MeterIO

/// The many-file progress, drawn by MeterIO's `ProgressLine` (stderr, only on a terminal, at
/// most ten times a second): files done (of the total when the list's length is known), files
/// per second and, with a total, the time left.
final class FileProgress {
    private let total: Int?
    private let line: ProgressLine
    private var done = 0

    /// `enabled` false: no line at all (else: when stderr is a terminal).
    init(total: Int?, enabled: Bool = true) {
        self.total = total
        line = ProgressLine(enabled: enabled ? nil : false)
    }

    /// One more file delivered.
    func advance() {
        done += 1
        let (done, total) = (done, total)
        line.update(force: done == total) { elapsed, columns in
            String(Self.text(done: done, total: total, seconds: elapsed).prefix(max(0, columns - 1)))
        }
    }

    /// Erases the line.
    func clear() { line.clear() }

    /// `12/240 files  34.5 files/s  ETA 0:06` (without a total: `12 files  34.5 files/s`).
    static func text(done: Int, total: Int?, seconds: Double) -> String {
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var s = total.map { "\(done)/\($0) files" } ?? "\(done) files"
        s += "  " + AnsiMeterRenderer.readout(rate, width: 0) + " files/s"
        if let total, rate > 0, total > done {
            s += "  ETA " + AnsiMeterRenderer.clock((Double(total - done) / rate).rounded(.up))
        }
        return s
    }
}
