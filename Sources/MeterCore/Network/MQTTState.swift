/// The state JSON published on `PREFIX/NAME/state` every `--mqtt-every` seconds: the latest
/// frame's levels per channel, its loudness and sound level when the run measures them, and
/// the last period (its NDJSON line's object) once one ended.
public struct MQTTState {
    private let b = JSONLineBuilder()

    public init() {}

    /// `period`: the last `period` line as the NDJSON encoder wrote it (newline included).
    public func encode(_ f: MeterFrame, info: StreamInfo, period: [UInt8]?) -> [UInt8] {
        b.reset()
        b.byte(UInt8(ascii: "{"))
        if let ts = f.ts { b.field("ts", ts, decimals: 3) }
        b.field("source", info.source)
        b.field("channel_names", info.channelNames)
        b.field("rms_db", f.rmsDb, decimals: 2)
        b.field("peak_db", f.peakDb, decimals: 2)
        if let l = f.loudness {
            b.field("lufs_m", l.momentary, decimals: 2)
            b.field("lufs_s", l.shortTerm, decimals: 2)
            b.field("lufs_i", l.integrated, decimals: 2)
            if let tp = l.truePeakDb { b.field("true_peak_db", tp, decimals: 2) }
        }
        if let spl = f.spl {
            b.field("spl_db", spl.splDb, decimals: 2)
            b.field("leq_db", spl.leqDb, decimals: 2)
            if let unit = info.settings.spl?.unit { b.field("spl_unit", unit) }
        }
        if let c = f.correlation { b.field("correlation", c, decimals: 3) }
        b.field("dropped", f.dropped)
        if let period, !period.isEmpty {
            b.key("period")
            b.append(period.last == UInt8(ascii: "\n") ? Array(period.dropLast()) : period)
        }
        b.byte(UInt8(ascii: "}"))
        return b.bytes
    }
}
