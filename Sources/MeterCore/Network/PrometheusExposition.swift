/// The /metrics body: Prometheus text exposition format 0.0.4 of a `MonitorState`.
///
/// Every family has its `# HELP` and `# TYPE` line, even before it has a sample. Samples carry
/// the labels `source` (the device metered now: the start line's, then the latest `device`
/// line's) and, per channel, `channel` (the channel's name as the start line's
/// `channel_names` gives it, e.g. `front-left`; a name that repeats an earlier one gets its
/// 1-based position after a dash). Values are
/// the finite, floored figures of the frames (dB with 2 decimals, as in NDJSON), never NaN;
/// a calibrated run's levels are in its calibrated unit, as the frames' are. Then the process
/// families every Prometheus client library exports, without labels, and
/// `pulsemeter_build_info{version}` 1.
public enum PrometheusExposition {
    /// The `Content-Type` of the body.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ state: MonitorState) -> [UInt8] {
        let out = Writer(source: state.source, channels: channelLabels(state.info?.channelNames ?? []))
        levels(state, into: out)
        gauges(state, into: out)
        counters(state, into: out)
        process(state, into: out)
        return out.b.bytes
    }

    /// The `channel` label of each channel: its name, unique within the stream.
    static func channelLabels(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.enumerated().map { i, name in
            seen.insert(name).inserted ? name : "\(name)-\(i + 1)"
        }
    }

    /// The level gauges: RMS and peak per channel (in the calibrated unit of a calibrated run,
    /// `MeterSettings.levelOffsetDb`, which their help then names), loudness with `--loudness`.
    private static func levels(_ state: MonitorState, into out: Writer) {
        let settings = state.info?.settings
        let channels = settings?.channels ?? 0
        let calibrated = (settings?.levelOffsetDb ?? 0) != 0
        out.family("pulsemeter_rms_dbfs", "gauge", calibrated
            ? "RMS level of the latest frame over the window, dBFS plus the calibration (dB SPL when calibrated; floored at -160 plus it)."
            : "RMS level of the latest frame over the window, dBFS (floored at -160).")
        out.family("pulsemeter_peak_dbfs", "gauge", calibrated
            ? "Peak level of the latest frame's hop, dBFS plus the calibration (dB SPL when calibrated; floored at -160 plus it)."
            : "Peak level of the latest frame's hop, dBFS (floored at -160).")
        if let f = state.latest {
            // Two loops: a family's samples stay together, as the format requires.
            for c in 0..<min(channels, f.rmsDb.count) { out.sample("pulsemeter_rms_dbfs", channel: c, f.rmsDb[c]) }
            for c in 0..<min(channels, f.peakDb.count) { out.sample("pulsemeter_peak_dbfs", channel: c, f.peakDb[c]) }
        }
        if settings?.loudness == true {
            let l = state.latest?.loudness
            out.family("pulsemeter_lufs_momentary", "gauge", "Momentary loudness (400 ms), LUFS (floored at -160).")
            out.sample("pulsemeter_lufs_momentary", l?.momentary ?? Decibels.floor)
            out.family("pulsemeter_lufs_shortterm", "gauge", "Short-term loudness (3 s), LUFS (floored at -160).")
            out.sample("pulsemeter_lufs_shortterm", l?.shortTerm ?? Decibels.floor)
            out.family("pulsemeter_lufs_integrated", "gauge", "Integrated loudness of the run so far, LUFS (floored at -160).")
            out.sample("pulsemeter_lufs_integrated", l?.integrated ?? Decibels.floor)
            out.family("pulsemeter_true_peak_dbtp", "gauge", "True peak of the run so far, per channel, dBTP (floored at -160).")
            for c in 0..<channels { out.sample("pulsemeter_true_peak_dbtp", channel: c, at(l?.truePeakDb, c)) }
        }
        if let spl = settings?.spl {
            out.family("pulsemeter_spl_db", "gauge",
                       help: "Sound level of the latest frame (\(spl.weighting.rawValue)-weighted, time weighting \(spl.timeWeighting.rawValue)), \(spl.unit), per channel.")
            for c in 0..<channels { out.sample("pulsemeter_spl_db", channel: c, at(state.latest?.spl?.splDb, c)) }
        }
    }

    /// Channel `c`'s value of a per-channel reading; the floor while there is none.
    private static func at(_ values: [Double]?, _ c: Int) -> Double {
        guard let values, c < values.count else { return Decibels.floor }
        return values[c]
    }

    /// The state gauges: silence (with events), audio arriving, recording.
    private static func gauges(_ state: MonitorState, into out: Writer) {
        let started = state.source != nil
        if let settings = state.info?.settings, let events = settings.events {
            let unit = settings.levelOffsetDb != 0 ? "dB" : "dBFS"
            out.family("pulsemeter_silence", "gauge",
                       help: "1 while every channel has been below \(format(events.silenceDb)) \(unit) for \(format(events.silenceMinSeconds)) s or more.")
            out.sample("pulsemeter_silence", state.silent ? 1 : 0)
        }
        if let alarms = state.info?.settings.alarms, !alarms.isEmpty {
            out.family("pulsemeter_alarm", "gauge", "1 while the alarm of that name is on (for a per-channel metric, on that channel).")
            let channels = state.info?.settings.channels ?? 0
            for spec in alarms {
                for c in spec.metric.perChannel ? Array(0..<channels).map(Optional.some) : [nil] {
                    let on = state.alarmsOn.contains(MonitorState.AlarmKey(name: spec.name, channel: c))
                    out.b.raw("pulsemeter_alarm"); out.labels(channel: c, alarm: spec.name); out.b.raw(on ? " 1\n" : " 0\n")
                }
            }
        }
        out.family("pulsemeter_up", "gauge", "1 while audio arrives from the source.")
        if started { out.sample("pulsemeter_up", state.up ? 1 : 0) }
        out.family("pulsemeter_recording", "gauge", "1 while a recording file is being written.")
        if started { out.sample("pulsemeter_recording", state.recording ? 1 : 0) }
    }

    /// The counters, from the frames captured to the event-stream clients dropped.
    private static func counters(_ state: MonitorState, into out: Writer) {
        let started = state.source != nil
        let channels = state.info?.settings.channels ?? 0
        out.family("pulsemeter_frames_total", "counter", "Audio frames captured.")
        if started { out.sample("pulsemeter_frames_total", state.framesTotal) }
        out.family("pulsemeter_dropped_frames_total", "counter", "Captured frames the meter had to skip.")
        if started { out.sample("pulsemeter_dropped_frames_total", state.dropped) }
        out.family("pulsemeter_recorded_frames_total", "counter", "Audio frames written to the recording.")
        if started { out.sample("pulsemeter_recorded_frames_total", state.recordedFrames ?? 0) }
        out.family("pulsemeter_clipped_samples_total", "counter", "Samples at or above the clip level, per channel.")
        for c in 0..<min(channels, state.clippedSamples.count) {
            out.sample("pulsemeter_clipped_samples_total", channel: c, state.clippedSamples[c])
        }
        if state.info?.settings.events != nil {
            out.family("pulsemeter_silence_seconds_total", "counter", "Seconds of silence, the current one included.")
            out.sample("pulsemeter_silence_seconds_total", state.silenceSeconds, decimals: 3)
        }
        out.family("pulsemeter_gaps_total", "counter", "Outages survived (gap lines).")
        if started { out.sample("pulsemeter_gaps_total", state.gaps) }
        out.family("pulsemeter_gap_seconds_total", "counter", "Seconds of audio missing in gaps.")
        if started { out.sample("pulsemeter_gap_seconds_total", state.gapSeconds, decimals: 3) }
        out.family("pulsemeter_http_clients_dropped_total", "counter", "Event-stream clients dropped for falling more than 2 s behind.")
        out.b.raw("pulsemeter_http_clients_dropped_total "); out.b.int(state.clientsDropped); out.b.byte(10)
        if let mqtt = state.mqttDropped {
            out.family("pulsemeter_mqtt_dropped_total", "counter", "Messages for the MQTT broker dropped while it could not take them.")
            out.b.raw("pulsemeter_mqtt_dropped_total "); out.b.int(mqtt); out.b.byte(10)
        }
    }

    /// The process's own families, as Prometheus' client libraries name them, and the build.
    private static func process(_ state: MonitorState, into out: Writer) {
        if let p = state.process {
            out.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
            out.unlabelled("process_resident_memory_bytes", p.residentBytes)
            out.family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.")
            out.unlabelled("process_cpu_seconds_total", p.cpuSeconds, decimals: 2)
            out.family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.")
            out.unlabelled("process_start_time_seconds", p.startTimeSeconds, decimals: 2)
            out.family("process_open_fds", "gauge", "Number of open file descriptors.")
            out.unlabelled("process_open_fds", p.openDescriptors)
        }
        if let version = state.version {
            out.family("pulsemeter_build_info", "gauge", "Always 1, labelled with the version of pulsemeter that serves.")
            out.b.raw("pulsemeter_build_info{version=\"")
            labelValue(version, into: out.b)
            out.b.raw("\"} 1\n")
        }
    }

    /// A threshold as the help text gives it: up to 2 decimals, no trailing zeros.
    private static func format(_ v: Double) -> String {
        let b = JSONLineBuilder(capacity: 32)
        b.number(v, decimals: 2)
        var text = String(decoding: b.bytes, as: UTF8.self)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// The body being written: families (`# HELP`, `# TYPE`) and samples with their labels.
    private final class Writer {
        let b = JSONLineBuilder(capacity: 4096)
        /// The `source` label's value; nil before the start line.
        let source: String?
        /// The `channel` label's value of each channel.
        let channels: [String]

        init(source: String?, channels: [String]) {
            self.source = source
            self.channels = channels
        }

        func family(_ name: StaticString, _ type: StaticString, _ help: StaticString) {
            b.raw("# HELP "); b.raw(name); b.byte(32); b.raw(help); b.byte(10)
            b.raw("# TYPE "); b.raw(name); b.byte(32); b.raw(type); b.byte(10)
        }

        /// A family whose help is made at run time (no backslash or line feed in it).
        func family(_ name: StaticString, _ type: StaticString, help: String) {
            b.raw("# HELP "); b.raw(name); b.byte(32); b.append(Array(help.utf8)); b.byte(10)
            b.raw("# TYPE "); b.raw(name); b.byte(32); b.raw(type); b.byte(10)
        }

        func unlabelled(_ name: StaticString, _ v: Int) {
            b.raw(name); b.byte(32); b.int(v); b.byte(10)
        }

        func unlabelled(_ name: StaticString, _ v: Double, decimals: Int) {
            b.raw(name); b.byte(32); b.number(v.isFinite ? v : 0, decimals: decimals); b.byte(10)
        }

        /// `alarm`: an `--alarm`'s name, the `name` label of `pulsemeter_alarm`.
        func labels(channel: Int?, alarm: String? = nil) {
            guard source != nil || channel != nil || alarm != nil else { return }
            b.byte(UInt8(ascii: "{"))
            if let source {
                b.raw("source=\"")
                PrometheusExposition.labelValue(source, into: b)
                b.byte(UInt8(ascii: "\""))
            }
            if let alarm {
                if source != nil { b.byte(UInt8(ascii: ",")) }
                b.raw("name=\"")
                PrometheusExposition.labelValue(alarm, into: b)
                b.byte(UInt8(ascii: "\""))
            }
            if let channel {
                if source != nil || alarm != nil { b.byte(UInt8(ascii: ",")) }
                b.raw("channel=\"")
                if channel < channels.count {
                    PrometheusExposition.labelValue(channels[channel], into: b)
                } else {
                    b.int(channel)
                }
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
