import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    @Suite("channel names")
    struct ChannelNameLive {
        /// A null sink of `channels` channels (and `map`, when given) loaded for `body`.
        static func withNullSink(_ name: String, channels: Int, map: String? = nil, server: PulseServer,
                                 _ body: () throws -> Void) throws {
            var args = ["pactl", "load-module", "module-null-sink", "sink_name=\(name)", "channels=\(channels)"]
            if let map { args.append("channel_map=\(map)") }
            let load = try run(args, env: server.environment)
            let module = load.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(load.status == 0, "\(load.stderr)")
            defer { _ = try? run(["pactl", "unload-module", module], env: server.environment) }
            try body()
        }

        /// The source's channel map as pactl (an independent client) lists it; PipeWire creates
        /// the node a moment after the module loads, so wait for it.
        static func pactlChannelMap(_ source: String, server: PulseServer) throws -> [String] {
            let map = try Wait.value(timeout: 5, interval: 0.1, { () throws -> [String]? in
                let out = try run(["pactl", "list", "sources"], env: server.environment).stdout
                let blocks = out.components(separatedBy: "\nSource #")
                guard let block = blocks.first(where: { $0.contains("Name: \(source)\n") }),
                      let line = block.split(separator: "\n").first(where: { $0.contains("Channel Map:") }) else { return nil }
                let value = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
                return value.split(separator: ",").map(String.init)
            }, until: { (m: [String]?) in m != nil })
            guard let map else { throw LiveSetupError("pactl does not list \(source)") }
            return map
        }

        @Test("a 6-channel null sink: the start line names its channel map as pactl lists it, the ANSI rows its short labels",
              arguments: [nil, "front-left,front-right,front-center,lfe,rear-left,rear-right"])
        func sixChannels(map: String?) throws {
            let server = try Live.server()
            try Self.withNullSink("six", channels: 6, map: map, server: server) {
                let expected = try Self.pactlChannelMap("six.monitor", server: server)
                #expect(expected.count == 6, "pactl: \(expected)")
                if let map { #expect(expected == map.split(separator: ",").map(String.init)) }
                let p = try pulsemeter(["monitor", "-d", "six.monitor", "-f", "ndjson", "--duration", "0.1"], server: server)
                let lines = try parseLines(p.readToEnd(timeout: 15))
                #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
                let start = try #require(lines.first)
                #expect(start.int("channels") == 6)
                #expect(start.object["channel_names"] as? [String] == expected, "\(start.raw)")

                // The terminal's closing summary labels each channel as the rows do.
                let ansi = try pulsemeter(["monitor", "-d", "six.monitor", "-f", "ansi", "--duration", "0.1"],
                                          server: server, env: ["TERM": "dumb"])
                let screen = ansi.readToEnd(timeout: 15).joined(separator: "\n")
                #expect(ansi.wait(timeout: 5) == 0, "stderr: \(ansi.stderrText)")
                let short = ["front-left": "L", "front-right": "R", "front-center": "C", "lfe": "LFE",
                             "rear-left": "Ls", "rear-right": "Rs", "front-left-of-center": "Lc",
                             "front-right-of-center": "Rc", "rear-center": "Cs", "side-left": "Ls", "side-right": "Rs"]
                for name in expected {
                    // PipeWire's null sink of 6 channels is aux0 ... aux5: A0 ... A5.
                    let aux = name.hasPrefix("aux") ? "A" + name.dropFirst(3) : nil
                    let label = try #require(short[name] ?? aux, "a label for \(name)")
                    #expect(screen.contains(" \(label) rms "), "\(label) for \(name) in: \(screen)")
                }
            }
        }
    }
}
