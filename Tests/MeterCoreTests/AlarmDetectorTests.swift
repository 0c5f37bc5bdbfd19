import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// `--alarm`: the spec's spelling, and the on/off sequence the detector raises over frames
/// whose readings the test sets, counted in samples.
@Suite struct AlarmDetectorTests {
    /// Frames of `hop` samples at `rate`: frame k (k = 1, 2, ...) ends at k*hop and reads, on
    /// every channel, `level(t)` of its hop's first sample's time t (the hop is all one level).
    static func frames(seconds: Double, rate: Int, hop: Int, channels: Int = 1,
                       level: (Double, Int) -> Double) -> [MeterFrame] {
        let n = Int((seconds * Double(rate)).rounded()) / hop
        return (1...n).map { k in
            let t = Double((k - 1) * hop) / Double(rate)
            let v = (0..<channels).map { level(t, $0) }
            return MeterFrame(pos: k * hop, rmsDb: v, peakDb: v)
        }
    }

    static func run(_ specs: [AlarmSpec], _ frames: [MeterFrame], rate: Int, channels: Int = 1) -> [MeterEvent] {
        var d = AlarmDetector(specs: specs, rate: rate, channels: channels)
        var events: [MeterEvent] = []
        for f in frames { d.observe(f, into: &events) }
        return events
    }

    /// The dead-air timeline (seconds from, level): a 25 s dip (no alarm), a 35 s dip (on 30 s
    /// in), 3 s back up, 1 s between the thresholds, 6 s up (off 5 s in), then around the
    /// thresholds: 31 s low (on), 4 s above the clear level, 1 s below it, 5 s above (off).
    static let timeline: [(Double, Double)] = [
        (0, -20), (10, -50), (35, -20), (45, -50), (80, -20), (83, -38), (84, -20),
        (90, -45), (121, -30), (125, -41), (126, -30), (131, -20),
    ]

    static func level(at t: Double) -> Double { timeline.last { $0.0 <= t + 1e-9 }!.1 }

    @Test("a low alarm with hysteresis: exactly the on/off sequence, at the frames that complete each hold")
    func lowAlarmWithHysteresis() throws {
        let rate = 100, hop = 10
        let spec = try AlarmSpec.parse("dead-air:rms_db<-40/30,-35/5")
        let events = Self.run([spec], Self.frames(seconds: 140, rate: rate, hop: hop) { t, _ in Self.level(at: t) }, rate: rate)
        func change(_ on: Bool, _ seconds: Double, level: Double, held: Double) -> MeterEvent {
            MeterEvent(.alarm(AlarmChange(on: on, name: "dead-air", metric: .rmsDb, channel: 0, level: level,
                                          heldSeconds: held)), pos: Int(seconds * Double(rate)))
        }
        #expect(events == [
            change(true, 45 + 30, level: -50, held: 30), change(false, 84 + 5, level: -20, held: 5),
            change(true, 90 + 30, level: -45, held: 30), change(false, 126 + 5, level: -30, held: 5),
        ])
        #expect(events.map(\.name) == ["alarm_on", "alarm_off", "alarm_on", "alarm_off"])
    }

    @Test("without a clear part the set threshold and time clear it (no hysteresis)")
    func noHysteresis() throws {
        let rate = 100, hop = 10
        let spec = try AlarmSpec.parse("loud:peak_db>-6/2")
        #expect(spec.clearLevel == -6 && spec.clearSeconds == 2)
        // Over -6 from 1 s to 4 s, under it after: on at 3 s, off at 6 s.
        let frames = Self.frames(seconds: 8, rate: rate, hop: hop) { t, _ in (1..<4).contains(t) ? -3 : -9 }
        let events = Self.run([spec], frames, rate: rate)
        #expect(events.map(\.pos) == [300, 600])
        #expect(events.map(\.name) == ["alarm_on", "alarm_off"])
    }

    @Test("a per-channel metric alarms per channel: one silent channel of two raises it for that channel only")
    func perChannel() throws {
        let rate = 100, hop = 10
        let spec = try AlarmSpec.parse("dead:rms_db<-60/3")
        let frames = Self.frames(seconds: 10, rate: rate, hop: hop, channels: 2) { t, c in c == 1 && t >= 2 ? -160 : -20 }
        let events = Self.run([spec], frames, rate: rate, channels: 2)
        #expect(events == [MeterEvent(.alarm(AlarmChange(on: true, name: "dead", metric: .rmsDb, channel: 1, level: -160,
                                                         heldSeconds: 3)), pos: 500)])
    }

    @Test("a whole-stream metric (correlation) is one alarm without a channel; a frame without the reading changes nothing")
    func wholeStream() throws {
        let rate = 100, hop = 10
        let spec = try AlarmSpec.parse("phase:correlation<-0.3/5")
        var frames = Self.frames(seconds: 12, rate: rate, hop: hop, channels: 2) { _, _ in -20 }
        for i in frames.indices { frames[i].correlation = i >= 20 ? -0.8 : 0.9 }
        let events = Self.run([spec], frames, rate: rate, channels: 2)
        #expect(events == [MeterEvent(.alarm(AlarmChange(on: true, name: "phase", metric: .correlation, channel: nil,
                                                         level: -0.8, heldSeconds: 5)), pos: 700)])
        #expect(Self.run([spec], Self.frames(seconds: 12, rate: rate, hop: hop) { _, _ in -20 }, rate: rate).isEmpty)
    }

    @Test("the spellings of a spec, and what is refused")
    func parsing() throws {
        let low = try AlarmSpec.parse("dead-air:rms_db<-40/30,-35/5")
        #expect(low == AlarmSpec(name: "dead-air", metric: .rmsDb, direction: .low, level: -40, seconds: 30,
                                 clearLevel: -35, clearSeconds: 5))
        for same in ["dead-air:rms_db<-40/30,>-35/5", "dead-air:rms_db<-40/30,clear>-35/5", "dead-air:rms_db<-40/30,CLEAR>-35/5"] {
            #expect(try AlarmSpec.parse(same) == low, "\(same)")
        }
        let high = try AlarmSpec.parse("limit:leq_db>85/0,80")
        #expect(high == AlarmSpec(name: "limit", metric: .leqDb, direction: .high, level: 85, seconds: 0,
                                  clearLevel: 80, clearSeconds: 0))
        for bad in ["rms_db<-40/30", ":rms_db<-40/30", "a b:rms_db<-40/30", "x:rms_db=-40/30", "x:rms_db<-40",
                    "x:rms_db<abc/3", "x:rms_db<-40/3,-35/5,-30/1", "x:rms_db<-40/3,<-35/5", "x:<-40/3", "x:rms_db<-40/nan"] {
            #expect(throws: AlarmSpec.ParseError.malformed, "\(bad)") { try AlarmSpec.parse(bad) }
        }
        #expect(throws: AlarmSpec.ParseError.unknownMetric("lufs_i")) { try AlarmSpec.parse("x:lufs_i<-30/3") }
        #expect(throws: AlarmSpec.ParseError.seconds(-1)) { try AlarmSpec.parse("x:rms_db<-40/-1") }
        #expect(throws: AlarmSpec.ParseError.clearBeyondLevel) { try AlarmSpec.parse("x:rms_db<-40/3,-45/1") }
        #expect(throws: AlarmSpec.ParseError.clearBeyondLevel) { try AlarmSpec.parse("x:rms_db>-10/3,-5/1") }
    }

    @Test("the event line: name, metric, channel, level, held_seconds")
    func eventLine() throws {
        var encoder = NDJSONEncoder()
        _ = encoder.start(StreamInfo(source: "s", settings: MeterSettings(rate: 100, channels: 2)))
        let e = MeterEvent(.alarm(AlarmChange(on: true, name: "dead", metric: .rmsDb, channel: 1, level: -160,
                                              heldSeconds: 3)), pos: 500)
        let line = String(decoding: encoder.event(e, ts: nil), as: UTF8.self)
        #expect(line == "{\"type\":\"event\",\"event\":\"alarm_on\",\"pos\":500,\"t\":5.0,\"name\":\"dead\",\"metric\":\"rms_db\",\"channel\":1,\"level\":-160.0,\"held_seconds\":3.0}\n")
    }

    @Test("/metrics: pulsemeter_alarm per alarm and channel, 0/1 as the events say; true peak and SPL gauges")
    func exposition() throws {
        var settings = MeterSettings(rate: 48000, channels: 2, loudness: true, spl: SoundLevelSettings())
        settings.alarms = [try AlarmSpec.parse("dead:rms_db<-60/3"), try AlarmSpec.parse("phase:correlation<-0.3/5")]
        var state = MonitorState()
        var encoder = NDJSONEncoder()
        let info = StreamInfo(source: "s", settings: settings, live: true)
        state.start(info, line: encoder.start(info))
        var f = MeterFrame(pos: 4800, ts: 1, rmsDb: [-20, -160], peakDb: [-17, -160])
        f.loudness = LoudnessReading(momentary: -20, shortTerm: -20, integrated: -20, truePeakDb: [-16.5, -160])
        f.spl = SoundLevelReading(splDb: [-22.25, -160], leqDb: [-23, -160])
        f.events = [MeterEvent(.alarm(AlarmChange(on: true, name: "dead", metric: .rmsDb, channel: 1, level: -160,
                                                  heldSeconds: 3)), pos: 4800)]
        state.frame(f, line: encoder.frame(f))
        let text = String(decoding: PrometheusExposition.render(state), as: UTF8.self)
        let s = MonitorEndpointTests.samples(text)
        #expect(s["pulsemeter_alarm{source=\"s\",name=\"dead\",channel=\"front-left\"}"] == 0)
        #expect(s["pulsemeter_alarm{source=\"s\",name=\"dead\",channel=\"front-right\"}"] == 1)
        #expect(s["pulsemeter_alarm{source=\"s\",name=\"phase\"}"] == 0)
        #expect(s["pulsemeter_true_peak_dbtp{source=\"s\",channel=\"front-left\"}"] == -16.5)
        #expect(s["pulsemeter_spl_db{source=\"s\",channel=\"front-left\"}"] == -22.25)
        #expect(text.contains("# TYPE pulsemeter_alarm gauge\n") && text.contains("# TYPE pulsemeter_true_peak_dbtp gauge\n")
                && text.contains("# TYPE pulsemeter_spl_db gauge\n"))
        var off = f
        off.pos = 9600
        off.events = [MeterEvent(.alarm(AlarmChange(on: false, name: "dead", metric: .rmsDb, channel: 1, level: -20,
                                                    heldSeconds: 3)), pos: 9600)]
        state.frame(off, line: encoder.frame(off))
        let after = MonitorEndpointTests.samples(String(decoding: PrometheusExposition.render(state), as: UTF8.self))
        #expect(after["pulsemeter_alarm{source=\"s\",name=\"dead\",channel=\"front-right\"}"] == 0)
    }

    @Test("through the pipeline: alarms come without --events, and only alarms pass a run shown without events")
    func pipeline() throws {
        var s = MeterSettings(rate: 8000, channels: 2, fps: 10)
        s.alarms = [try AlarmSpec.parse("dead:rms_db<-60/1")]
        let p = try MeterPipeline(settings: ValidSettings(s))
        let sink = CollectingSink()
        // Left a tone all along, right silent after 0.5 s: on at 1.5 s, channel 1.
        let x: [Float] = (0..<24000).flatMap { i -> [Float] in
            let v = Float(0.1 * sin(2 * Double.pi * 440 * Double(i) / 8000))
            return [v, i < 4000 ? v : 0]
        }
        try p.run(source: ArraySource(rate: 8000, channels: 2, samples: x, blockSizes: [1000]), sink: sink)
        let events = sink.frames.flatMap(\.events)
        #expect(events.map(\.name) == ["alarm_on"])
        #expect(events.map(\.pos) == [12000])
        guard case .alarm(let a)? = events.first?.kind else { return }
        #expect(a.channel == 1 && a.heldSeconds == 1)
        let stripped = WithoutEventsSink.strip(sink.frames.first { !$0.events.isEmpty }!)
        #expect(stripped.events.count == 1)
    }
}
