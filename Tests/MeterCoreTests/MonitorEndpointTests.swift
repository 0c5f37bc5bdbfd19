import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// The pure halves of the network endpoints: the exposition text, the status document, the
/// event framing, the backlog every stream client reads, and the routes.
@Suite struct MonitorEndpointTests {
    static func state(source: String = "vsink.monitor", loudness: Bool = true, events: Bool = true) -> (MonitorState, [UInt8]) {
        let settings = MeterSettings(rate: 48000, channels: 2, events: events ? EventSettings() : nil, loudness: loudness)
        var state = MonitorState(recording: .continuous)
        var encoder = NDJSONEncoder()
        let info = StreamInfo(source: source, settings: settings, live: true)
        state.start(info, line: encoder.start(info))
        var f = MeterFrame(pos: 4800, ts: 1.5, rmsDb: [-15.05, -160], peakDb: [-12.04, -160], clipSamples: [3, 0])
        f.loudness = LoudnessReading(momentary: -18.2, shortTerm: -19.4, integrated: -20.5)
        f.dropped = 160
        f.events = [MeterEvent(.silenceStart, pos: 0)]
        let line = encoder.frame(f)
        state.frame(f, line: line)
        state.up = true
        state.recordedFrames = 4000
        return (state, line)
    }

    /// Samples of the text as name{labels} -> value.
    static func samples(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let v = Double(line[line.index(after: space)...]) else { continue }
            out[String(line[..<space])] = v
        }
        return out
    }

    @Test("exposition: every family has HELP and TYPE before its samples; values are the frame's and the counters")
    func exposition() throws {
        let (state, _) = Self.state()
        let text = String(decoding: PrometheusExposition.render(state), as: UTF8.self)
        #expect(!text.contains("NaN") && !text.contains("Inf"))
        var typed: [String: String] = [:], helped: Set<String> = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if line.hasPrefix("# HELP ") { helped.insert(String(parts[2])) }
            else if line.hasPrefix("# TYPE ") { typed[String(parts[2])] = String(parts[3]) }
            else {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                #expect(typed[name] != nil && helped.contains(name), "\(name) sampled before its HELP/TYPE")
            }
        }
        let gauges = ["pulsemeter_rms_dbfs", "pulsemeter_peak_dbfs", "pulsemeter_lufs_momentary", "pulsemeter_lufs_shortterm",
                      "pulsemeter_lufs_integrated", "pulsemeter_silence", "pulsemeter_up", "pulsemeter_recording"]
        let counters = ["pulsemeter_frames_total", "pulsemeter_dropped_frames_total", "pulsemeter_recorded_frames_total",
                        "pulsemeter_clipped_samples_total", "pulsemeter_silence_seconds_total", "pulsemeter_gaps_total",
                        "pulsemeter_gap_seconds_total", "pulsemeter_http_clients_dropped_total"]
        for g in gauges { #expect(typed[g] == "gauge", "\(g)") }
        for c in counters { #expect(typed[c] == "counter", "\(c)") }
        let s = Self.samples(text)
        let src = "source=\"vsink.monitor\""
        #expect(s["pulsemeter_rms_dbfs{\(src),channel=\"front-left\"}"] == -15.05)
        #expect(s["pulsemeter_rms_dbfs{\(src),channel=\"front-right\"}"] == -160)
        #expect(s["pulsemeter_peak_dbfs{\(src),channel=\"front-left\"}"] == -12.04)
        #expect(s["pulsemeter_lufs_momentary{\(src)}"] == -18.2)
        #expect(s["pulsemeter_lufs_integrated{\(src)}"] == -20.5)
        #expect(s["pulsemeter_silence{\(src)}"] == 1)
        #expect(s["pulsemeter_up{\(src)}"] == 1)
        #expect(s["pulsemeter_recording{\(src)}"] == 1)
        #expect(s["pulsemeter_frames_total{\(src)}"] == 4800)
        #expect(s["pulsemeter_dropped_frames_total{\(src)}"] == 160)
        #expect(s["pulsemeter_recorded_frames_total{\(src)}"] == 4000)
        #expect(s["pulsemeter_clipped_samples_total{\(src),channel=\"front-left\"}"] == 3)
        #expect(s["pulsemeter_silence_seconds_total{\(src)}"] == 0.1)  // 4800 frames at 48 kHz, still silent
        #expect(s["pulsemeter_http_clients_dropped_total"] == 0)
    }

    /// The frames of 0.1 s of digital zero, then 0.2 s of a 1 kHz sine of amplitude 0.1,
    /// through the pipeline with `spl`, as /metrics shows them (the state after each frame).
    static func exposed(spl: SoundLevelSettings) throws -> [(frame: MeterFrame, text: String)] {
        let settings = MeterSettings(rate: 48000, channels: 1, events: EventSettings(), spl: spl)
        let x = (0..<14400).map { i in i < 4800 ? Float(0) : Float(0.1 * sin(2 * Double.pi * 1000 * Double(i) / 48000)) }
        let sink = CollectingSink()
        try MeterPipeline(settings: ValidSettings(settings)).run(source: ArraySource(rate: 48000, channels: 1, samples: x), sink: sink)
        var state = MonitorState(recording: .continuous)
        var encoder = NDJSONEncoder()
        let info = try #require(sink.info)
        state.start(info, line: encoder.start(info))
        return sink.frames.map { f in
            state.frame(f, line: encoder.frame(f))
            return (f, String(decoding: PrometheusExposition.render(state), as: UTF8.self))
        }
    }

    @Test("exposition of a calibrated run: the frames' levels, 94 dB above the uncalibrated run's; digital zero -66; the help says so")
    func calibratedLevels() throws {
        let plain = try Self.exposed(spl: SoundLevelSettings())
        let cal = try Self.exposed(spl: SoundLevelSettings(calibrationDb: 94))
        #expect(plain.count == cal.count && plain.count == 9)
        let key = "pulsemeter_rms_dbfs{source=\"test\",channel=\"mono\"}", peak = "pulsemeter_peak_dbfs{source=\"test\",channel=\"mono\"}"
        for (a, b) in zip(plain, cal) {
            let sa = Self.samples(a.text), sb = Self.samples(b.text)
            #expect(sb[key] == (b.frame.rmsDb[0] * 100).rounded() / 100, "served as the frame carries it")
            #expect(abs(try #require(sb[key]) - (try #require(sa[key])) - 94) < 0.0101, "\(sa[key]!) vs \(sb[key]!)")
            #expect(abs(try #require(sb[peak]) - (try #require(sa[peak])) - 94) < 0.0101)
        }
        #expect(Self.samples(cal[0].text)[key] == -66 && Self.samples(cal[0].text)[peak] == -66, "the floor: -160 plus 94")
        let sineSpl: Double = 20 * log10(0.1) - 10 * log10(2.0) + 94
        #expect(abs(Self.samples(cal[8].text)[key]! - sineSpl) < 0.01, "a 74.0 dB SPL sine")
        #expect(cal[0].text.contains("# HELP pulsemeter_rms_dbfs RMS level of the latest frame over the window, dBFS plus the calibration"))
        #expect(plain[0].text.contains("# HELP pulsemeter_rms_dbfs RMS level of the latest frame over the window, dBFS (floored at -160).\n"))
    }

    @Test("a live frame's level (/events, NDJSON) is of its level below full scale: a calibrated run's equals the uncalibrated one's")
    func liveLevelIsRelativeToFullScale() throws {
        func level(_ spl: SoundLevelSettings?, rms: Double) throws -> [Double] {
            var encoder = NDJSONEncoder(levelFloorDb: -60)
            _ = encoder.start(StreamInfo(source: "m", settings: MeterSettings(rate: 48000, channels: 1, spl: spl), live: true))
            let line = Data(encoder.frame(MeterFrame(pos: 1600, ts: 1, rmsDb: [rms], peakDb: [rms])))
            let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            return try #require(object["level"] as? [Double])
        }
        #expect(try level(nil, rms: -30) == [0.5])
        #expect(try level(SoundLevelSettings(calibrationDb: 94), rms: 64) == [0.5])
    }

    @Test("exposition: the process families as Prometheus' client libraries name them, the build's version, the silence level in the help")
    func processAndBuild() {
        var (state, _) = Self.state()
        state.process = ProcessFigures(residentBytes: 12_345_678, cpuSeconds: 1.234, startTimeSeconds: 1_796_000_000.25, openDescriptors: 9)
        let text = String(decoding: PrometheusExposition.render(state), as: UTF8.self)
        let s = Self.samples(text)
        #expect(s["process_resident_memory_bytes"] == 12_345_678)
        #expect(s["process_cpu_seconds_total"] == 1.23)
        #expect(s["process_start_time_seconds"] == 1_796_000_000.25)
        #expect(s["process_open_fds"] == 9)
        #expect(text.contains("# TYPE process_cpu_seconds_total counter\n"))
        #expect(text.contains("# TYPE process_resident_memory_bytes gauge\n"))
        #expect(text.contains("# HELP pulsemeter_silence 1 while every channel has been below -60 dBFS for 2 s or more.\n"))
        #expect(s["pulsemeter_build_info"] == nil, "no version given: no build family")
        let versioned = MonitorState(recording: .none, version: "1.2.3")
        #expect(String(decoding: PrometheusExposition.render(versioned), as: UTF8.self)
            .contains("# TYPE pulsemeter_build_info gauge\npulsemeter_build_info{version=\"1.2.3\"} 1\n"))
    }

    @Test("recording: single and split from the start to the end line whatever the file lines; takes while the run's OpenRecordings has a file open, a pause or a second source's close not ending it")
    func recordingState() throws {
        let summary = StreamSummary(pos: 0, rate: 48000, rmsDb: [-160], peakDb: [-160])
        var continuous = MonitorState(recording: .continuous)
        #expect(continuous.recording)
        continuous.file(anyOpen: false)  // a split file's close, the next one's open just after it
        #expect(continuous.recording)
        continuous.end(summary)
        #expect(!continuous.recording)

        let recordings = OpenRecordings()
        var takes = MonitorState(recording: .takes)
        #expect(!takes.recording)
        func line(_ kind: RecordingFileEvent.Kind, _ file: String, stream: Int? = nil) -> RecordingFileEvent {
            var e = RecordingFileEvent(kind, file: file, pos: 0, frames: 0)
            e.stream = stream
            return e
        }
        for (event, open) in [(line(.open, "a.wav"), true), (line(.open, "b.wav", stream: 1), true),
                              (line(.pause, "a.wav"), true), (line(.resume, "a.wav"), true),
                              (line(.close, "b.wav", stream: 1), true), (line(.close, "a.wav"), false)] {
            try recordings.file(event)
            takes.file(anyOpen: recordings.anyOpen)
            #expect(takes.recording == open, "\(event)")
        }
        #expect(!MonitorState().recording)
    }

    @Test("channel labels: the start line's channel names; a repeated name gets its position")
    func channelLabels() {
        #expect(PrometheusExposition.channelLabels(["front-left", "front-right", "lfe"]) == ["front-left", "front-right", "lfe"])
        #expect(PrometheusExposition.channelLabels(["mono", "mono"]) == ["mono", "mono-2"])
        let settings = MeterSettings(rate: 48000, channels: 3)
        var state = MonitorState()
        var encoder = NDJSONEncoder()
        let info = StreamInfo(source: "s", settings: settings, live: true, channelNames: ["aux0", "aux1", "aux2"])
        state.start(info, line: encoder.start(info))
        let f = MeterFrame(pos: 1600, ts: 1, rmsDb: [-1, -2, -3], peakDb: [-1, -2, -3])
        state.frame(f, line: encoder.frame(f))
        let s = Self.samples(String(decoding: PrometheusExposition.render(state), as: UTF8.self))
        #expect(s["pulsemeter_rms_dbfs{source=\"s\",channel=\"aux2\"}"] == -3)
    }

    @Test("exposition: label values escape backslash, quote and line feed; optional families only when on")
    func escapingAndOptionalFamilies() {
        let (state, _) = Self.state(source: "a\"b\\c\nd", loudness: false, events: false)
        let text = String(decoding: PrometheusExposition.render(state), as: UTF8.self)
        #expect(text.contains("pulsemeter_up{source=\"a\\\"b\\\\c\\nd\"} 1\n"))
        #expect(!text.contains("pulsemeter_lufs_") && !text.contains("pulsemeter_silence"))
        // Before the start line: families without samples, the client counter only.
        let empty = String(decoding: PrometheusExposition.render(MonitorState()), as: UTF8.self)
        #expect(Self.samples(empty) == ["pulsemeter_http_clients_dropped_total": 0])
    }

    @Test("the silence counter never decreases, even when the silence's final length is shorter than it looked")
    func silenceCounterMonotonic() {
        var (state, _) = Self.state()
        var encoder = NDJSONEncoder()
        _ = encoder.start(state.info!)
        let before = state.silenceSeconds
        var f = MeterFrame(pos: 9600, rmsDb: [-15, -15], peakDb: [-12, -12])
        f.events = [MeterEvent(.silenceEnd(seconds: 0.15), pos: 7200)]
        state.frame(f, line: encoder.frame(f))
        #expect(state.silenceSeconds >= before)
        #expect(state.silenceSeconds == 0.15)
        #expect(!state.silent)
    }

    @Test("status: one JSON object quoting the start and frame lines as written, with the counters; no device line before a change")
    func status() throws {
        let (state, line) = Self.state()
        let body = StatusDocument.render(state)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let start = try #require((o["start"] as? [[String: Any]])?.first)
        #expect(start["source"] as? String == "vsink.monitor")
        let frame = try #require(o["frame"] as? [String: Any])
        let fromLine = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(NSDictionary(dictionary: frame) == NSDictionary(dictionary: fromLine))
        #expect(o["up"] as? Bool == true && o["recording"] as? Bool == true && o["silence"] as? Bool == true)
        #expect(o["source_lost"] as? Bool == false)
        var lost = state
        lost.up = false
        lost.sourceLost = true
        let l = try #require(try JSONSerialization.jsonObject(with: Data(StatusDocument.render(lost))) as? [String: Any])
        #expect(l["up"] as? Bool == false && l["source_lost"] as? Bool == true)
        let counters = try #require(o["counters"] as? [String: Any])
        #expect(counters["frames_total"] as? Int == 4800)
        #expect(counters["dropped_frames_total"] as? Int == 160)
        #expect(counters["clipped_samples_total"] as? [Int] == [3, 0])
        #expect(o["device"] == nil)
    }

    @Test("a device line relabels the metrics with the device metered now; /status quotes it")
    func deviceChange() throws {
        var (state, _) = Self.state()
        var encoder = NDJSONEncoder()
        _ = encoder.start(state.info!)
        let change = DeviceChange(pos: 4800, ts: 2.0, source: "usb-mic")
        let line = encoder.device(change)
        state.device(change, line: line)
        let s = Self.samples(String(decoding: PrometheusExposition.render(state), as: UTF8.self))
        #expect(s["pulsemeter_rms_dbfs{source=\"usb-mic\",channel=\"front-left\"}"] == -15.05)
        #expect(s["pulsemeter_frames_total{source=\"usb-mic\"}"] == 4800)
        #expect(!s.keys.contains { $0.contains("vsink.monitor") })
        let o = try #require(try JSONSerialization.jsonObject(with: Data(StatusDocument.render(state))) as? [String: Any])
        let device = try #require(o["device"] as? [String: Any])
        let fromLine = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(NSDictionary(dictionary: device) == NSDictionary(dictionary: fromLine))
        #expect((o["start"] as? [[String: Any]])?.first?["source"] as? String == "vsink.monitor")
        // A change that names no device (the server did not say) keeps the label.
        state.device(DeviceChange(pos: 9600, ts: 3.0, source: ""), line: encoder.device(DeviceChange(pos: 9600, ts: 3.0, source: "")))
        #expect(state.source == "usb-mic")
    }

    @Test("events: one SSE event per line, named by its type, the line as data")
    func framing() {
        let line = Array("{\"type\":\"frame\",\"pos\":1600}\n".utf8)
        #expect(String(decoding: ServerSentEvent.event(line: line), as: UTF8.self)
                == "event: frame\ndata: {\"type\":\"frame\",\"pos\":1600}\n\n")
        #expect(ServerSentEvent.type(of: Array("{\"x\":1}".utf8)[...]) == Array("message".utf8))
    }

    /// Everything `reader` gives, read `chunk` bytes at a time.
    static func drain(_ reader: inout EventBacklog.Reader, _ backlog: EventBacklog, chunk: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: chunk)
        while true {
            guard let n = buf.withUnsafeMutableBytes({ reader.read(from: backlog, into: $0) }) else { return nil }
            if n == 0 { return out }
            out += buf[0..<n]
        }
    }

    @Test("backlog: a reader gets its opening then every line once, in order, whatever its buffer size", arguments: [1, 3, 7, 64, 4096])
    func backlogReading(chunk: Int) throws {
        var backlog = EventBacklog(capacity: 8)
        backlog.append(Array("old\n".utf8), isFrame: false, at: 0)
        var reader = EventBacklog.Reader(opening: Array("open\n".utf8), at: backlog, frames: true)
        var expected = "open\n"
        for i in 0..<5 {
            let text = "line \(i) " + String(repeating: "x", count: i * 5) + "\n"
            backlog.append(Array(text.utf8), isFrame: i % 2 == 0, at: Double(i))
            expected += text
        }
        #expect(!reader.isCaughtUp(in: backlog))
        let got = try #require(Self.drain(&reader, backlog, chunk: chunk))
        #expect(String(decoding: got, as: UTF8.self) == expected)
        #expect(reader.isCaughtUp(in: backlog))
    }

    @Test("backlog: an events-only reader skips frames and is never behind for them; lag and overwrite")
    func backlogLag() {
        var backlog = EventBacklog(capacity: 4)
        var events = EventBacklog.Reader(opening: [], at: backlog, frames: false)
        var all = EventBacklog.Reader(opening: [], at: backlog, frames: true)
        backlog.append(Array("f1\n".utf8), isFrame: true, at: 10)
        backlog.append(Array("e1\n".utf8), isFrame: false, at: 11)
        backlog.append(Array("f2\n".utf8), isFrame: true, at: 12)
        #expect(all.lag(in: backlog, now: 13.5) == 3.5)
        #expect(events.lag(in: backlog, now: 13.5) == 2.5)
        #expect(Self.drain(&events, backlog, chunk: 100) == Array("e1\n".utf8))
        #expect(events.lag(in: backlog, now: 100) == 0)
        for i in 0..<4 { backlog.append(Array("f\(i)\n".utf8), isFrame: true, at: 20) }
        #expect(all.lag(in: backlog, now: 20) == .infinity)
        #expect(Self.drain(&all, backlog, chunk: 100) == nil)
        #expect(events.lag(in: backlog, now: 21) == 0)
    }

    @Test("routes: GET and HEAD only, four paths, ?frames=0")
    func routes() {
        #expect(HTTPRoute.resolve(method: "GET", path: "/metrics", frames: nil) == .metrics)
        #expect(HTTPRoute.resolve(method: "HEAD", path: "/status", frames: nil) == .status)
        #expect(HTTPRoute.resolve(method: "GET", path: "/events", frames: "0") == .events(frames: false))
        #expect(HTTPRoute.resolve(method: "GET", path: "/events", frames: nil) == .events(frames: true))
        #expect(HTTPRoute.resolve(method: "GET", path: "/", frames: nil) == .page)
        #expect(HTTPRoute.resolve(method: "GET", path: "/history", frames: nil) == .history(seconds: 600))
        #expect(HTTPRoute.resolve(method: "GET", path: "/history", frames: nil, seconds: "30") == .history(seconds: 30))
        #expect(HTTPRoute.resolve(method: "GET", path: "/history", frames: nil, seconds: "-1").status == 400)
        #expect(HTTPRoute.resolve(method: "GET", path: "/history", frames: nil, seconds: "nan").status == 400)
        #expect(HTTPRoute.resolve(method: "GET", path: "/etc/passwd", frames: nil).status == 404)
        #expect(HTTPRoute.resolve(method: "GET", path: "/../metrics", frames: nil).status == 404)
        #expect(HTTPRoute.resolve(method: "POST", path: "/metrics", frames: nil).status == 405)
        #expect(HTTPRoute.resolve(method: "DELETE", path: "/nowhere", frames: nil).status == 405)
    }

    @Test("the page is self-contained: no outside URL, script or stylesheet")
    func pageSelfContained() {
        let page = MeterPage.text
        #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("src=") && !page.contains("<link"))
        #expect(page.contains("new EventSource(\"/events\")") && page.contains("overlay"))
    }
}

/// A live run that serves detects silence for the gauge even without event lines; its other
/// sinks see the run as one without detection.
@Suite struct WithoutEventsSinkTests {
    @Test("the events, silence figures and clip totals are gone; levels and positions are the same")
    func stripsEvents() throws {
        let x = (0..<(48000 * 3)).map { i in i < 48000 ? Float(0.5 * sin(Double(i) / 7)) : Float(0) }
        let settings = MeterSettings(rate: 48000, channels: 1, events: EventSettings(silenceMinSeconds: 0.5))
        let full = CollectingSink(), plain = CollectingSink()
        try MeterPipeline(settings: ValidSettings(settings)).run(source: ArraySource(rate: 48000, channels: 1, samples: x),
                                                                  sink: FanOutSink([full, WithoutEventsSink(plain)]))
        #expect(full.frames.contains { !$0.events.isEmpty }, "the silence is detected")
        #expect(full.summary?.silenceSeconds != nil && full.info?.settings.events != nil)
        #expect(plain.frames.allSatisfy { $0.events.isEmpty })
        #expect(plain.frames.map(\.rmsDb) == full.frames.map(\.rmsDb) && plain.frames.map(\.pos) == full.frames.map(\.pos))
        #expect(plain.info?.settings.events == nil)
        let end = try #require(plain.summary)
        #expect(end.silenceSeconds == nil && end.silences == nil && end.clippedSamples == nil && end.events.isEmpty)
    }
}
