import MeterCore
import MeterIO

/// A many-file `analyze` for a person (on a terminal, or `-f ansi`): one row a file, as
/// bs1770gain and loudness-scanner print them, written as each file is delivered. Columns:
/// integrated loudness (LUFS), loudness range (LU), true peak (dBTP), with a target the gain
/// to it (dB), with rules the verdict (PASS, or FAIL naming the rules that fail), and the file
/// last (terminal-safe, `FilePath.description`), so that a long name moves no column.
struct LoudnessTable {
    let gain: Bool
    let rules: DeliveryRules?
    private let layout: Listing.Columns

    /// `gain`: a target was given (`--target`, `--preset`); `rules`: what files are judged by.
    init(gain: Bool, rules: DeliveryRules?) {
        self.gain = gain
        self.rules = rules
        // The verdict's column fits a file failing every rule there is.
        let verdictWidth = rules.map { Self.failed($0.kinds.map(\.label)).count } ?? 0
        layout = Listing.Columns(widths: [7, 6, 7] + (gain ? [7] : []) + (rules == nil ? [] : [max(7, verdictWidth)]),
                                 rightAligned: gain ? [0, 1, 2, 3] : [0, 1, 2])
    }

    /// The settings' target and rules.
    init(_ s: MeterSettings) { self.init(gain: s.targetLufs != nil, rules: s.delivery) }

    /// `I LUFS  LRA LU  TP dBTP  gain dB  verdict  file`.
    var header: String {
        layout.line(["I LUFS", "LRA LU", "TP dBTP"] + (gain ? ["gain dB"] : []) + (rules == nil ? [] : ["verdict"]) + ["file"])
    }

    /// ` -23.01    4.20    -1.20    +7.01  FAIL true peak  a.wav`.
    func row(_ file: FilePath, _ l: LoudnessSummary) -> String {
        func n(_ v: Double) -> String { ReplayGain.fixed(v, decimals: 2) }
        var cells = [n(l.integrated), n(l.range), n(l.maxTruePeakDb)]
        if gain { cells.append(l.gainDb.map { ($0 >= 0 ? "+" : "") + n($0) } ?? "-") }
        if rules != nil { cells.append(l.verdict.map { $0.pass ? "PASS" : Self.failed($0.failed.map(\.label)) } ?? "-") }
        return layout.line(cells + [file.description])
    }

    /// "FAIL integrated, true peak".
    private static func failed(_ labels: [String]) -> String { "FAIL " + labels.joined(separator: ", ") }
}
