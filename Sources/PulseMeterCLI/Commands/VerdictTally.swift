import MeterCore

/// A many-file run's verdicts counted (`--preset`, `--tolerance`, `--max-true-peak`): the
/// run's last line, and exit status 1 when a file fails and none had an error.
struct VerdictTally {
    private(set) var passed = 0
    private(set) var failed = 0

    /// Counts a file's verdict, when it has one.
    mutating func add(_ summary: StreamSummary?) {
        guard let verdict = summary?.loudness?.verdict else { return }
        if verdict.pass { passed += 1 } else { failed += 1 }
    }

    var judged: Bool { passed + failed > 0 }

    /// The exit status the verdicts give: 1 when a file failed, else 0.
    var status: Int32 { failed > 0 ? 1 : 0 }

    /// `{"type":"verdicts","pass":P,"fail":F}` and a newline.
    var ndjsonLine: [UInt8] {
        let b = JSONLineBuilder()
        b.raw("{\"type\":\"verdicts\"")
        b.field("pass", passed)
        b.field("fail", failed)
        b.raw("}\n")
        return b.bytes
    }

    /// "12 files judged: 10 pass, 2 fail" for a person.
    var text: String {
        let n = passed + failed
        return "\(n) file\(n == 1 ? "" : "s") judged: \(passed) pass, \(failed) fail"
    }
}
