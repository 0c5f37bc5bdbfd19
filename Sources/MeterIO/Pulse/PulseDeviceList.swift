import MeterCore

/// `devices --json`: the listed sources and sinks as one JSON array, each naming the server.
public enum PulseDeviceList {
    /// The array, with a final newline.
    public static func json(_ list: [PulseDevice], server: String) -> [UInt8] {
        let b = JSONLineBuilder()
        b.raw("[")
        for (i, d) in list.enumerated() {
            if i > 0 { b.raw(",") }
            b.byte(UInt8(ascii: "{"))
            b.field("name", d.name)
            b.field("kind", d.isSink ? "sink" : "source")
            b.field("description", d.description)
            b.field("rate", d.rate)
            b.field("channels", d.channels)
            b.field("sample_format", d.sampleFormat)
            b.field("monitor", d.monitorOf != nil)
            if let m = d.monitorOf { b.field("monitor_of", m) }
            b.field("default", d.isDefault)
            b.field("index", d.index)
            b.field("server", server)
            b.raw("}")
        }
        b.raw("]\n")
        return b.bytes
    }
}
