import Foundation
import Glibc
import TestSupport

/// What the live tests wait for beyond a plain condition (`Wait.until`, `Wait.value`): a
/// shell's status file, sound on a source, a tmux pane's screen.
extension Wait {
    /// The status a shell wrote into `path` (`echo $? > path`: one whole line), once it is
    /// there; nil when no whole line came within `timeout` seconds.
    static func statusFile(_ path: String, timeout: Double) -> String? {
        let text = value(timeout: timeout, { try? String(contentsOfFile: path, encoding: .utf8) },
                         until: { $0?.hasSuffix("\n") == true })
        guard let text, text.hasSuffix("\n") else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until `source` carries sound: a meter on it reads a frame above `db` (a tone
    /// played into its sink is flowing). False after `timeout` seconds.
    static func hearing(_ source: String, above db: Double, server: PulseServer, timeout: Double = 10) throws -> Bool {
        let p = try pulsemeter(["monitor", "-d", source, "-f", "ndjson"], server: server)
        defer { p.kill() }
        return p.readLines(until: { line in
            guard let frame = try? JSONLine(line), frame.type == "frame" else { return false }
            return (frame.doubles("rms_db")?.max() ?? -160) > db
        }, timeout: timeout).matched
    }
}
