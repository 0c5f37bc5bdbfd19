import Testing
import TestSupport
@testable import MeterCore

/// The lines hooks run for: exactly the run's event, gap and file lines (as NDJSON writes
/// them), narrowed by the kinds, with the variables that mirror each line's fields; the last
/// stream's end line waits for the hooks and carries their totals.
@Suite struct HookSinkTests {
    /// The NDJSON sink's output.
    final class Bytes: ByteOutput {
        var text: [UInt8] = []
        func write(_ bytes: [UInt8]) throws { text += bytes }
    }

    static func settings() -> MeterSettings {
        var s = MeterSettings()
        s.rate = 8000
        s.channels = 1
        s.events = EventSettings()
        return s
    }

    /// Feeds the calls to a hook sink in front of an NDJSON sink; returns the NDJSON lines and
    /// what the hook sink submitted.
    static func run(kinds: Set<HookLine.Kind>, recording: String? = nil) throws -> (lines: [String], hooks: [HookLine]) {
        let out = Bytes()
        var hooks: [HookLine] = []
        let recordings = OpenRecordings(single: recording.map { [0: $0] } ?? [:])
        let hookSink = HookSink(kinds: kinds, next: NDJSONSink(output: out), recordings: recordings,
                                submit: { hooks.append($0) }, settle: { HookTotals() })
        let fan: any FrameSink = FanOutSink([recordings, hookSink])  // as the run's sinks are built
        try fan.start(StreamInfo(source: "mic", settings: settings(), live: true))
        var quiet = MeterFrame(pos: 8000, ts: 100.5, rmsDb: [-90], peakDb: [-90])
        quiet.events = [MeterEvent(.silenceStart, pos: 4000)]
        try fan.frame(quiet)
        var loud = MeterFrame(pos: 16000, ts: 101.5, rmsDb: [-1], peakDb: [0])
        loud.events = [MeterEvent(.silenceEnd(seconds: 1.25), pos: 14000), MeterEvent(.clip(channel: 0, samples: 3), pos: 16000)]
        try fan.frame(loud)
        try fan.gap(StreamGap(pos: 16000, startTs: 102, endTs: 103.5))
        try fan.file(RecordingFileEvent(.open, file: "take-001.wav", pos: 16000, frames: 0))
        var later = MeterFrame(pos: 24000, ts: 104, rmsDb: [-1], peakDb: [0])
        later.events = [MeterEvent(.clip(channel: 0, samples: 1), pos: 24000)]
        try fan.frame(later)
        try fan.file(RecordingFileEvent(.close, file: "take-001.wav", pos: 24000, frames: 8000))
        try fan.end(StreamSummary(pos: 26000, rate: 8000, rmsDb: [-3], peakDb: [0], events: [MeterEvent(.silenceStart, pos: 25000)]))
        let lines = String(decoding: out.text, as: UTF8.self).split(separator: "\n").map { String($0) + "\n" }
        return (lines, hooks)
    }

    @Test func everyEventGapAndFileLineRunsTheHookWithItsOwnLine() throws {
        let (lines, hooks) = try Self.run(kinds: Set(HookLine.Kind.allCases))
        let expected = lines.filter { l in ["\"event\"", "\"gap\"", "\"file\""].contains { l.hasPrefix("{\"type\":" + $0) } }
        #expect(expected.count == 8)
        #expect(hooks.map { String(decoding: $0.line, as: UTF8.self) } == expected)
        #expect(hooks.map(\.kind) == [.silenceStart, .silenceEnd, .clip, .gap, .file, .clip, .file, .silenceStart])
        for h in hooks { #expect(h.environment["PULSEMETER_SOURCE"] == "mic") }
        let first = hooks[0].environment
        #expect(first["PULSEMETER_TYPE"] == "event")
        #expect(first["PULSEMETER_EVENT"] == "silence_start")
        #expect(first["PULSEMETER_POS"] == "4000")
        #expect(first["PULSEMETER_T"] == "0.5")
        #expect(first["PULSEMETER_FILE"] == nil)
        let gap = hooks[3].environment
        #expect(gap["PULSEMETER_TYPE"] == "gap" && gap["PULSEMETER_EVENT"] == nil && gap["PULSEMETER_POS"] == "16000")
        #expect(gap["PULSEMETER_T"] == "2.0")
        let open = hooks[4].environment
        #expect(open["PULSEMETER_TYPE"] == "file" && open["PULSEMETER_EVENT"] == "open" && open["PULSEMETER_FILE"] == "take-001.wav")
        // An event inside a take names the take's file; after its close, none.
        #expect(hooks[5].environment["PULSEMETER_FILE"] == "take-001.wav")
        #expect(hooks[6].environment["PULSEMETER_EVENT"] == "close")
        #expect(hooks[7].environment["PULSEMETER_FILE"] == nil)
        #expect(hooks[7].t == 25000.0 / 8000)
    }

    @Test func kindsNarrowTheLinesAndASingleRecordingIsNamed() throws {
        let (_, hooks) = try Self.run(kinds: [.clip, .gap], recording: "all.flac")
        #expect(hooks.map(\.kind) == [.clip, .gap, .clip])
        // The single recording, then (split/trigger lines aside) the file lines' own names.
        #expect(hooks[0].environment["PULSEMETER_FILE"] == "all.flac")
        #expect(hooks[2].environment["PULSEMETER_FILE"] == "take-001.wav")
    }

    @Test("several sources: each hook line carries its stream, and its source, time and recording are that stream's")
    func severalStreams() throws {
        var hooks: [HookLine] = []
        let sink = HookSink(next: CollectingSink(), recordings: OpenRecordings(single: [0: "x-1.wav", 1: "x-2.wav"]),
                            submit: { hooks.append($0) }, settle: { HookTotals() })
        for (k, (name, rate)) in [("mic", 8000), ("desk.monitor", 16000)].enumerated() {
            var info = StreamInfo(source: name, settings: MeterSettings(rate: rate, channels: 1), live: true)
            info.stream = k
            try sink.start(info)
        }
        for k in [1, 0] {
            var f = MeterFrame(pos: 16000, ts: 100, rmsDb: [-1], peakDb: [0])
            f.stream = k
            f.events = [MeterEvent(.clip(channel: 0, samples: 1), pos: 16000)]
            try sink.frame(f)
        }
        #expect(hooks.map { $0.environment["PULSEMETER_SOURCE"] } == ["desk.monitor", "mic"])
        #expect(hooks.map { $0.environment["PULSEMETER_FILE"] } == ["x-2.wav", "x-1.wav"])
        #expect(hooks.map { $0.environment["PULSEMETER_T"] } == ["1.0", "2.0"], "16000 frames at each stream's rate")
        #expect(String(decoding: hooks[0].line, as: UTF8.self).contains("\"stream\":1"))
    }

    @Test("the last stream's end waits for the hooks (its events' too) and its end line carries their totals")
    func endLineCarriesTheTotals() throws {
        let out = Bytes()
        var submitted = 0, settledAfter: [Int] = []
        let sink = HookSink(next: NDJSONSink(output: out), submit: { _ in submitted += 1 }, settle: {
            settledAfter.append(submitted)
            return HookTotals(run: 2, dropped: 3, killed: 4)
        })
        for k in 0..<2 {
            var info = StreamInfo(source: "s\(k)", settings: Self.settings(), live: true)
            info.stream = k
            try sink.start(info)
        }
        var first = StreamSummary(pos: 8000, rate: 8000, rmsDb: [-3], peakDb: [0], events: [MeterEvent(.silenceStart, pos: 7000)])
        first.stream = 0
        try sink.end(first)
        #expect(settledAfter.isEmpty, "the other stream still runs")
        var last = StreamSummary(pos: 8000, rate: 8000, rmsDb: [-3], peakDb: [0], events: [MeterEvent(.silenceStart, pos: 6000)])
        last.stream = 1
        try sink.end(last)
        #expect(settledAfter == [2], "once, after the last end's event was handed over")
        let ends = String(decoding: out.text, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("{\"type\":\"end\"") }
        #expect(ends.count == 2)
        #expect(!ends[0].contains("hooks_"))
        #expect(ends[1].hasSuffix(",\"hooks_run\":2,\"hooks_dropped\":3,\"hooks_killed\":4}"))
    }

    @Test("a lost source is an event line written at once, with its reason, and runs the source_lost hook with that line")
    func sourceLostIsAnEventLineAndAHook() throws {
        let out = Bytes()
        var hooks: [HookLine] = []
        let sink = HookSink(kinds: [.sourceLost], next: NDJSONSink(output: out), submit: { hooks.append($0) },
                            settle: { HookTotals() })
        try sink.start(StreamInfo(source: "mic", settings: Self.settings(), live: true))
        try sink.event(MeterEvent(.sourceLost(reason: "Connection terminated"), pos: 16000), ts: 102.25, stream: nil)
        let line = "{\"type\":\"event\",\"event\":\"source_lost\",\"pos\":16000,\"t\":2.0,\"ts\":102.25,\"reason\":\"Connection terminated\"}\n"
        #expect(String(decoding: out.text, as: UTF8.self).split(separator: "\n").last.map { $0 + "\n" } == Substring(line))
        #expect(hooks.count == 1)
        #expect(hooks.first.map { String(decoding: $0.line, as: UTF8.self) } == line)
        #expect(hooks.first?.kind == .sourceLost && hooks.first?.kind.isEvent == true)
        #expect(hooks.first?.environment["PULSEMETER_EVENT"] == "source_lost")
        #expect(hooks.first?.environment["PULSEMETER_POS"] == "16000")
    }
}
