import Foundation
import Testing

extension LiveSuite {
    /// How many connections a live run makes to the server, counted by the server itself: an
    /// independent client (`pactl subscribe`) sees every client that connects.
    @Suite("server connections")
    struct Connections {
        /// The newest client's index (`pactl list short clients` lists itself last).
        static func newestClient(_ server: PulseServer) throws -> Int {
            let out = try run(["pactl", "list", "short", "clients"], env: server.environment, timeout: 10).stdout
            return out.split(separator: "\n").compactMap { Int($0.split(separator: "\t").first ?? "") }.max() ?? -1
        }

        /// The client indexes of "Event 'new' on client #N" lines read until client `last`'s
        /// (at most `timeout` s).
        static func newClients(_ watcher: Subprocess, until last: Int, timeout: Double = 15) -> [Int] {
            var seen: [Int] = []
            _ = watcher.readLines(until: { line in
                guard line.contains("'new' on client #"), let n = Int(line.split(separator: "#").last ?? "") else { return false }
                seen.append(n)
                return n >= last
            }, timeout: timeout)
            return seen
        }

        /// The clients `args` connects while it runs to its end.
        static func connections(_ args: [String], server: PulseServer) throws -> [Int] {
            let watcher = try Subprocess(["pactl", "subscribe"], env: ["PULSE_SERVER": server.address])
            defer { watcher.kill() }
            // A marker client, until the watcher reports one: it is then subscribed (a marker
            // that connected before the subscription is never reported: the next one is).
            var before = -1
            for _ in 0..<50 where before < 0 {
                let marker = try newestClient(server)
                if newClients(watcher, until: marker, timeout: 0.5).contains(marker) { before = marker }
            }
            try #require(before >= 0, "pactl subscribe reported no client")
            let p = try pulsemeter(args, server: server)
            let lines = p.readToEnd(timeout: 20)
            #expect(p.wait(timeout: 10) == 0, "stderr: \(p.stderrText)")
            #expect(lines.contains { $0.contains("\"type\":\"end\"") })
            let after = try newestClient(server)  // connects after the run: ends the count
            return newClients(watcher, until: after).filter { $0 > before && $0 < after }
        }

        /// One connection finds the device and its native format, carries the record stream,
        /// and watches where the stream is (the `SourceWatcher`, following the default or keeping
        /// a named source, in the same main loop as the reads).
        static let perRun = 1

        @Test("a live run without -r/-c uses one connection to find the source and its format, to open it and to watch it")
        func nativeFormatAndStreamShareAConnection() throws {
            let server = try Live.server()
            let clients = try Self.connections(["monitor", "-d", "vsink.monitor", "--duration", "0.2", "-f", "ndjson"],
                                               server: server)
            #expect(clients.count == Self.perRun, "clients \(clients)")
        }

        @Test("with -r and -c too: the device resolved, the stream opened and watched on one connection")
        func givenFormatConnectsAsOften() throws {
            let server = try Live.server()
            let clients = try Self.connections(["monitor", "-d", "vsink.monitor", "-r", "48000", "-c", "2",
                                                "--duration", "0.2", "-f", "ndjson"], server: server)
            #expect(clients.count == Self.perRun, "clients \(clients)")
        }
    }
}
