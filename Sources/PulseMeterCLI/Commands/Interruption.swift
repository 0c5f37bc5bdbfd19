import MeterCore
import MeterIO

/// `analyze` and `waveform` stopped by a signal (Ctrl-C, SIGTERM, SIGHUP) before the end of
/// their input: the output so far says `"complete":false`, one stderr line says how far the
/// run got, and the exit status is 130 (128 + SIGINT, as a shell reports a run cut by Ctrl-C).
enum Interruption {
    static let exitCode: Int32 = 130

    /// "interrupted at 12.3 s of 60.0 s of long.wav; the end line covers what was read and says
    /// "complete":false" (without a known length: "at 12.3 s of stdin"; `marked` false for an
    /// output with no such field, the ANSI summary, an SVG). Returns the exit status.
    static func report(read frames: Int, of total: Int?, rate: Int, name: String, what: String, marked: Bool) -> Int32 {
        let at = seconds(frames, rate)
        let of = total.map { "\(seconds($0, rate)) s of \(name)" } ?? name
        CLI.error("interrupted at \(at) s of \(of); the \(what) covers what was read\(marked ? " and says \"complete\":false" : "")")
        return exitCode
    }

    /// A waveform whose frames were being counted (its format states the length first) when
    /// the stop came: "interrupted at 3.2 s of talk.m4a while counting its frames; nothing was
    /// written". Returns the exit status.
    static func reportCounting(read frames: Int, rate: Int, name: String) -> Int32 {
        CLI.error("interrupted at \(seconds(frames, rate)) s of \(name) while counting its frames; nothing was written")
        return exitCode
    }

    /// A many-file run cut short: how many files were not done, of how many when the list's
    /// length is known (`cutShort` of them stopped part way; their lines say
    /// `"complete":false`). Returns the exit status.
    static func reportMany(finished: Int, cutShort: Int, total: Int?) -> Int32 {
        let part = cutShort == 0 ? "" : "; \(cutShort) stopped part way (their lines say \"complete\":false)"
        if let total {
            CLI.error("interrupted: \(total - finished) of \(total) files not done\(part)")
        } else {
            CLI.error("interrupted after \(finished) files: the rest of the list was not done\(part)")
        }
        return exitCode
    }

    /// Seconds with one decimal ("12.3").
    static func seconds(_ frames: Int, _ rate: Int) -> String {
        let tenths = rate > 0 ? Int((Double(frames) / Double(rate) * 10).rounded(.down)) : 0
        return "\(tenths / 10).\(tenths % 10)"
    }
}
