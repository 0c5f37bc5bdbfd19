import MeterCore
import MeterIO

/// `devices --apps`: the applications' playback streams, which `-d app:NAME` / `app:PID` meter.
enum AppListing {
    static func run(_ pulse: PulseDevices, json: Bool, server: String) throws -> Int32 {
        let streams = try pulse.playbackStreams()
        let out = FileDescriptorOutput.standardOutput
        if json {
            try out.write(Listing.jsonArray(streams) { b, s in
                b.field("index", s.index)
                if let a = s.application { b.field("application", a) }
                if let bin = s.binary { b.field("binary", bin) }
                if let pid = s.pid { b.field("pid", pid) }
                b.field("sink", s.sink)
                b.field("server", server)
            })
            return 0
        }
        try out.write(Array(table(streams, server: server).utf8))
        return 0
    }

    /// The server, then one row per stream, then how `-d` takes them.
    static func table(_ streams: [PlaybackStream], server: String) -> String {
        guard !streams.isEmpty else { return "\(server)\nno application is playing\n" }
        let header = ["#", "APPLICATION", "BINARY", "PID", "SINK"]
        let rows = [header] + streams.map { s in
            [String(s.index), SafeText.terminal(s.application ?? "-"), SafeText.terminal(s.binary ?? "-"),
             s.pid.map(String.init) ?? "-", SafeText.terminal(s.sink)]
        }
        return "\(server)\n" + Listing.table(rows, rightAligned: [0, 3]) + "-d app:APPLICATION, app:BINARY or app:PID meters what it plays\n"
    }
}
