import Foundation
import Glibc
import Testing
import TestSupport

// tmux: a real terminal for the ANSI screens (the meter, play, record, job control), its
// panes read back as rows, with their cursor and alternate-screen flags.

extension LiveSuite.TerminalMeter {
    /// A private tmux server on its own socket.
    struct Tmux {
        let socket: String
        @discardableResult
        func callAsFunction(_ args: String...) throws -> String {
            let r = try run(["tmux", "-S", socket, "-f", "/dev/null"] + args, timeout: 10)
            guard r.status == 0 else { throw LiveSetupError("tmux \(args.joined(separator: " ")) failed: \(r.stderr)") }
            return r.stdout
        }
        func rows(_ target: String, escapes: Bool = false, join: Bool = false) throws -> [String] {
            var args = ["capture-pane", "-p", "-t", target]
            if escapes { args.append("-e") }
            if join { args.append("-J") }
            let r = try run(["tmux", "-S", socket, "-f", "/dev/null"] + args, timeout: 10)
            var rows = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if rows.last == "" { rows.removeLast() }
            return rows
        }
        func flags(_ target: String) throws -> (cursor: String, alternate: String) {
            let f = try self("display", "-p", "-t", target, "#{cursor_flag} #{alternate_on}")
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init)
            return (f.first ?? "?", f.dropFirst().first ?? "?")
        }
    }
}

extension LiveSuite.TerminalMeter.Tmux {
    /// The pane's rows once `ok` holds of them. Asserted: when `ok` never held within `timeout`
    /// s the test fails there (at the caller's line, with the screen), and the last rows seen
    /// come back for the caller's own checks.
    @discardableResult
    func waitFor(_ target: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
                 _ ok: ([String]) -> Bool) throws -> [String] {
        var held = false
        let seen = try Wait.value(timeout: timeout, { try rows(target) }, until: { (r: [String]) in held = ok(r); return held })
        #expect(held, "pane \(target): the screen never got there within \(timeout) s:\n\(seen.joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        return seen
    }

    /// The same, `ok` also given the pane's cursor and alternate-screen flags.
    @discardableResult
    func waitFor(_ target: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
                 _ ok: ([String], (cursor: String, alternate: String)) -> Bool) throws -> [String] {
        var held = false
        let seen = try Wait.value(timeout: timeout, { (try rows(target), try flags(target)) },
                                  until: { held = ok($0.0, $0.1); return held })
        #expect(held, "pane \(target): the screen never got there within \(timeout) s (cursor \(seen.1.cursor), alternate \(seen.1.alternate)):\n\(seen.0.joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        return seen.0
    }
}
