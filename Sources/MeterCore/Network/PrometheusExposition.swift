/// The /metrics body: Prometheus text exposition format 0.0.4 of a `MonitorState`.
///
/// Every family has its `# HELP` and `# TYPE` line, even before it has a sample. Samples carry
/// the labels `source` (the device metered now: the start line's, then the latest `device`
/// line's) and, per channel, `channel` (0-based). Values are
/// the finite, floored figures of the frames (dB with 2 decimals, as in NDJSON), never NaN.
public enum PrometheusExposition {
    /// The `Content-Type` of the body.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ state: MonitorState) -> [UInt8] {
        let b = JSONLineBuilder(capacity: 4096)
        let source = state.source
        let channels = state.info?.settings.channels ?? 0
        let settings = state.info?.settings

        func family(_ name: StaticString, _ type: StaticString, _ help: StaticString) {
            b.raw("# HELP "); b.raw(name); b.byte(32); b.raw(help); b.byte(10)
            b.raw("# TYPE "); b.raw(name); b.byte(32); b.raw(type); b.byte(10)
        }
        func labels(channel: Int?) {
            guard source != nil || channel != nil else { return }
            b.byte(UInt8(ascii: "{"))
            if let source {
                b.raw("source=\"")
                labelValue(source, into: b)
                b.byte(UInt8(ascii: "\""))
            }
            if let channel {
                if source != nil { b.byte(UInt8(ascii: ",")) }
                b.raw("channel=\"")
                b.int(channel)
                b.byte(UInt8(ascii: "\""))
            }
            b.byte(UInt8(ascii: "}"))
        }
        func sample(_ name: StaticString, channel: Int? = nil, _ v: Double, decimals: Int = 2) {
            b.raw(name); labels(channel: channel); b.byte(32); b.number(v.isFinite ? v : Decibels.floor, decimals: decimals); b.byte(10)
        }
        func sample(_ name: StaticString, channel: Int? = nil, _ v: Int) {
            b.raw(name); labels(channel: channel); b.byte(32); b.int(v); b.byte(10)
        }
        let started = source != nil

        family("pulsemeter_rms_dbfs", "gauge", "RMS level of the latest frame over the window, dBFS (floored at -160).")
        family("pulsemeter_peak_dbfs", "gauge", "Peak level of the latest frame's hop, dBFS (floored at -160).")
        if let f = state.latest {
            // Two loops: a family's samples stay together, as the format requires.
            for c in 0..<min(channels, f.rmsDb.count) { sample("pulsemeter_rms_dbfs", channel: c, f.rmsDb[c]) }
        }
        if let f = state.latest {
            for c in 0..<min(channels, f.peakDb.count) { sample("pulsemeter_peak_dbfs", channel: c, f.peakDb[c]) }
        }
        if settings?.loudness == true {
            let l = state.latest?.loudness
            family("pulsemeter_lufs_momentary", "gauge", "Momentary loudness (400 ms), LUFS (floored at -160).")
            sample("pulsemeter_lufs_momentary", l?.momentary ?? Decibels.floor)
            family("pulsemeter_lufs_shortterm", "gauge", "Short-term loudness (3 s), LUFS (floored at -160).")
            sample("pulsemeter_lufs_shortterm", l?.shortTerm ?? Decibels.floor)
            family("pulsemeter_lufs_integrated", "gauge", "Integrated loudness of the run so far, LUFS (floored at -160).")
            sample("pulsemeter_lufs_integrated", l?.integrated ?? Decibels.floor)
        }
        if settings?.events != nil {
            family("pulsemeter_silence", "gauge", "1 while every channel is below the silence level.")
            sample("pulsemeter_silence", state.silent ? 1 : 0)
        }
        family("pulsemeter_up", "gauge", "1 while audio arrives from the source.")
        if started { sample("pulsemeter_up", state.up ? 1 : 0) }
        family("pulsemeter_recording", "gauge", "1 while a recording file is being written.")
        if started { sample("pulsemeter_recording", state.recording ? 1 : 0) }

        family("pulsemeter_frames_total", "counter", "Audio frames captured.")
        if started { sample("pulsemeter_frames_total", state.framesTotal) }
        family("pulsemeter_dropped_frames_total", "counter", "Captured frames the meter had to skip.")
        if started { sample("pulsemeter_dropped_frames_total", state.dropped) }
        family("pulsemeter_recorded_frames_total", "counter", "Audio frames written to the recording.")
        if started { sample("pulsemeter_recorded_frames_total", state.recordedFrames ?? 0) }
        family("pulsemeter_clipped_samples_total", "counter", "Samples at or above the clip level, per channel.")
        for c in 0..<min(channels, state.clippedSamples.count) {
            sample("pulsemeter_clipped_samples_total", channel: c, state.clippedSamples[c])
        }
        if settings?.events != nil {
            family("pulsemeter_silence_seconds_total", "counter", "Seconds of silence, the current one included.")
            sample("pulsemeter_silence_seconds_total", state.silenceSeconds, decimals: 3)
        }
        family("pulsemeter_gaps_total", "counter", "Outages survived (gap lines).")
        if started { sample("pulsemeter_gaps_total", state.gaps) }
        family("pulsemeter_gap_seconds_total", "counter", "Seconds of audio missing in gaps.")
        if started { sample("pulsemeter_gap_seconds_total", state.gapSeconds, decimals: 3) }
        family("pulsemeter_http_clients_dropped_total", "counter", "Event-stream clients dropped for falling more than 2 s behind.")
        b.raw("pulsemeter_http_clients_dropped_total "); b.int(state.clientsDropped); b.byte(10)
        return b.bytes
    }

    /// A label value with the format's escapes (backslash, double quote, line feed); other
    /// control characters become spaces.
    private static func labelValue(_ s: String, into b: JSONLineBuilder) {
        for u in s.utf8 {
            switch u {
            case UInt8(ascii: "\\"): b.raw("\\\\")
            case UInt8(ascii: "\""): b.raw("\\\"")
            case 10: b.raw("\\n")
            case 0..<32, 127: b.byte(32)
            default: b.byte(u)
            }
        }
    }
}
