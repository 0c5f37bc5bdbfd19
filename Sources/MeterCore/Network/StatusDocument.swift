/// The /status body: one JSON object with the `start` line(s), the latest `frame` line and,
/// once the device changed, the latest `device` line, as the NDJSON output writes them, the
/// state gauges (`source_lost`: the source is gone, or not there yet, and waited for), and the counters of /metrics (the same
/// names without the `pulsemeter_` prefix).
///
/// ```
/// {"start":[{"type":"start",...}],"frame":{"type":"frame",...},"up":true,"source_lost":false,"recording":false,
///  "silence":false,"ended":false,"counters":{"frames_total":4800,...}}
/// ```
public enum StatusDocument {
    public static func render(_ state: MonitorState) -> [UInt8] {
        let b = JSONLineBuilder(capacity: 2048)
        b.byte(UInt8(ascii: "{"))
        b.key("start")
        b.byte(UInt8(ascii: "["))
        if let line = state.startLine { b.append(line) }
        b.byte(UInt8(ascii: "]"))
        b.key("frame")
        if let line = state.latestLine { b.append(line) } else { b.raw("null") }
        if let line = state.deviceLine {
            b.key("device")
            b.append(line)
        }
        b.field("up", state.up)
        b.field("source_lost", state.sourceLost)
        b.field("recording", state.recording)
        if state.info?.settings.events != nil { b.field("silence", state.silent) }
        b.field("ended", state.ended)
        b.key("counters")
        b.byte(UInt8(ascii: "{"))
        b.field("frames_total", state.framesTotal)
        b.field("dropped_frames_total", state.dropped)
        b.field("recorded_frames_total", state.recordedFrames ?? 0)
        b.field("clipped_samples_total", state.clippedSamples)
        if state.info?.settings.events != nil { b.field("silence_seconds_total", state.silenceSeconds, decimals: 3) }
        b.field("gaps_total", state.gaps)
        b.field("gap_seconds_total", state.gapSeconds, decimals: 3)
        b.field("http_clients_dropped_total", state.clientsDropped)
        b.raw("}}\n")
        return b.bytes
    }
}
