import Foundation
import Glibc
import Testing
import TestSupport

/// The systemd units in share/systemd: `systemd-analyze verify` finds nothing to say about
/// either (it needs no running systemd; the ExecStart binary must exist, so a copy names the
/// binary under test, the one line that differs from the shipped file), and they hold what the
/// service guarantees; the example configuration keeps frames out of the journal.
@Suite struct SystemdUnitTests {
    static let dir = InstallTests.root.appendingPathComponent("share/systemd").path

    static func unit(_ name: String) throws -> String {
        try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
    }

    @Test("systemd-analyze verify passes on both units, with nothing to report", arguments: [
        ("pulsemeter@.service", true), ("pulsemeter-system@.service", false),
    ])
    func verifies(name: String, user: Bool) throws {
        let analyze = try #require(Tool.which("systemd-analyze"), "systemd-analyze is not installed (scripts/setup installs systemd)")
        let shipped = try Self.unit(name)
        let copy = shipped.replacingOccurrences(of: "ExecStart=/usr/bin/pulsemeter ", with: "ExecStart=\(Tool.binary) ")
        let changed = zip(shipped.split(separator: "\n"), copy.split(separator: "\n")).filter { $0 != $1 }
        #expect(changed.count == 1 && changed[0].0.hasPrefix("ExecStart="), "only ExecStart differs: \(changed)")
        let tmp = try TempDir()
        // An instance of the template, as systemctl would start it.
        let path = tmp.path(name.replacingOccurrences(of: "@.", with: "@test."))
        try copy.write(toFile: path, atomically: true, encoding: .utf8)
        // A user manager's verify wants a runtime directory of its own.
        let runtime = tmp.path("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let r = try Tool.exec(analyze, (user ? ["--user"] : []) + ["verify", "--man=no", path],
                              environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime, "HOME": tmp.path("")])
        #expect(r.status == 0 && r.out.isEmpty && r.err.isEmpty, "systemd-analyze verify \(name): \(r.status) \(r.out)\(r.err)")
    }

    @Test("the units are Type=notify with a 10 s watchdog that stops with SIGTERM (the recording finished), restart on failure, read their arguments from NAME.conf and are hardened")
    func settings() throws {
        for (name, config) in [("pulsemeter@.service", "EnvironmentFile=%E/pulsemeter/%i.conf"),
                               ("pulsemeter-system@.service", "EnvironmentFile=/etc/pulsemeter/%i.conf")] {
            let lines = Set(try Self.unit(name).split(separator: "\n").map(String.init))
            for line in ["Type=notify", "WatchdogSec=10", "WatchdogSignal=SIGTERM", "Restart=on-failure", config,
                         "ExecStart=/usr/bin/pulsemeter $PULSEMETER_ARGS", "NoNewPrivileges=yes",
                         "ProtectSystem=strict", "PrivateTmp=yes"] {
                #expect(lines.contains(line), "\(name) lacks \(line)")
            }
        }
        let user = Set(try Self.unit("pulsemeter@.service").split(separator: "\n").map(String.init))
        #expect(user.contains("ReadWritePaths=%h/.local/share/pulsemeter"))
        #expect(user.contains("PrivateUsers=yes"), "a user manager applies ProtectSystem= and PrivateTmp= only with it")
        let system = Set(try Self.unit("pulsemeter-system@.service").split(separator: "\n").map(String.init))
        #expect(system.contains("User=pulsemeter") && system.contains("SupplementaryGroups=audio"))
    }

    @Test("the example configuration's arguments write no frames to the journal and parse")
    func exampleConfiguration() throws {
        let text = try Self.unit("pulsemeter.conf")
        let args = text.split(separator: "\n").compactMap { line -> [String]? in
            let l = line.hasPrefix("#") ? line.dropFirst() : line[...]
            guard l.hasPrefix("PULSEMETER_ARGS=") else { return nil }
            return l.dropFirst("PULSEMETER_ARGS=".count).split(separator: " ").map(String.init)
        }
        #expect(args.count == 2, "\(args)")
        for a in args {
            let joined = a.joined(separator: " ")
            #expect(joined.contains("-o /dev/null -f ndjson"), "frames would reach the journal: \(joined)")
            // Parsed by the real binary: --help after the arguments answers for the command
            // only when every option before it is known.
            let r = try Tool.exec(Tool.binary, a + ["--help"])
            #expect(r.status == 0, "pulsemeter \(joined) --help: \(r.status) \(r.err)")
        }
    }
}
