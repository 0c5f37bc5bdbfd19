import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// `--events`: silence spans and clip counts from the one pipeline, checked against where the
/// test put the silence and the clipped samples.
@Suite struct EventDetectorTests {
    static func run(_ x: [Float], channels: Int, rate: Int = 48000, events: EventSettings = EventSettings(),
                    blocks: [Int] = [16384]) throws -> CollectingSink {
        let s = MeterSettings(rate: rate, channels: channels, events: events)
        let p = try MeterPipeline(settings: ValidSettings(s))
        let sink = CollectingSink()
        try p.run(source: ArraySource(rate: rate, channels: channels, samples: x, blockSizes: blocks), sink: sink)
        return sink
    }

    /// Noise at about -10 dBFS with digital silence over `quiet` (frame ranges), all channels.
    static func signal(frames: Int, channels: Int, quiet: [Range<Int>], seed: UInt64 = 1) -> [Float] {
        var rng = SeededRNG(seed: seed)
        var x = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames where !quiet.contains(where: { $0.contains(i) }) {
            for c in 0..<channels { x[i * channels + c] = Float(0.5 * rng.signed()) }
        }
        return x
    }

    static func allEvents(_ sink: CollectingSink) -> [MeterEvent] {
        sink.frames.flatMap(\.events) + (sink.summary?.events ?? [])
    }

    @Test("a silence longer than the minimum gives one start and one end, within a hop plus a window",
          arguments: [1, 2, 6])
    func silenceSpan(channels: Int) throws {
        let rate = 48000
        let s = MeterSettings(rate: rate, channels: channels)
        let tolerance = s.hop + s.window
        // The shortest silence certain to be seen: the minimum plus the resolution.
        for (a, b) in [(48000, 48000 + 3 * rate), (12345, 12345 + 2 * rate + tolerance), (0, 3 * rate)] {
            let total = b + rate
            let sink = try Self.run(Self.signal(frames: total, channels: channels, quiet: [a..<b]), channels: channels)
            let events = Self.allEvents(sink)
            #expect(events.count == 2, "\(a)..<\(b): \(events)")
            guard events.count == 2 else { continue }
            #expect(events[0].kind == .silenceStart)
            #expect(abs(events[0].pos - a) <= tolerance, "start \(events[0].pos) for \(a)")
            guard case .silenceEnd(let seconds) = events[1].kind else {
                Issue.record("second event \(events[1])")
                continue
            }
            #expect(abs(events[1].pos - b) <= tolerance, "end \(events[1].pos) for \(b)")
            #expect(abs(seconds - Double(events[1].pos - events[0].pos) / Double(rate)) < 1e-9)
            // silence_start is announced once the minimum has passed, never before.
            let announcing = try #require(sink.frames.first { $0.events.contains { $0.kind == .silenceStart } })
            #expect(announcing.pos - events[0].pos >= 2 * rate)
            #expect(announcing.pos - events[0].pos < 2 * rate + s.hop)
        }
    }

    @Test("the summary's silence total: the sum of the silence_end durations, one per silence, a trailing one included")
    func silenceTotal() throws {
        let rate = 48000
        let s = MeterSettings(rate: rate, channels: 2)
        let quiet = [rate..<(4 * rate), (5 * rate + 777)..<(8 * rate), (9 * rate)..<(12 * rate)]  // the last to the end
        let sink = try Self.run(Self.signal(frames: 12 * rate, channels: 2, quiet: quiet), channels: 2)
        let durations = Self.allEvents(sink).compactMap { e -> Double? in
            if case .silenceEnd(let d) = e.kind { return d } else { return nil }
        }
        let summary = try #require(sink.summary)
        #expect(durations.count == 3 && summary.silences == 3)
        #expect(abs((summary.silenceSeconds ?? -1) - durations.reduce(0, +)) < 1e-9)
        let truth = Double(quiet.map(\.count).reduce(0, +)) / Double(rate)
        #expect(abs((summary.silenceSeconds ?? -1) - truth) <= 3 * Double(s.hop + s.window) / Double(rate))
        let plain = try MeterPipeline(settings: ValidSettings(s))
        let none = CollectingSink()
        try plain.run(source: ArraySource(rate: rate, channels: 2, samples: [0, 0]), sink: none)
        #expect(none.summary?.silenceSeconds == nil, "without --events: no silence total")
    }

    @Test("a silence shorter than --silence-min gives nothing; --silence-min 0.5 catches it")
    func shortSilence() throws {
        let x = Self.signal(frames: 4 * 48000, channels: 2, quiet: [48000..<(48000 + 72000)])
        #expect(Self.allEvents(try Self.run(x, channels: 2)).isEmpty)
        let short = try Self.run(x, channels: 2, events: EventSettings(silenceMinSeconds: 0.5))
        #expect(Self.allEvents(short).map(\.name) == ["silence_start", "silence_end"])
    }

    @Test("one loud channel is not silence; the level threshold is --silence-db")
    func everyChannelMustBeQuiet() throws {
        var x = Self.signal(frames: 5 * 48000, channels: 2, quiet: [48000..<(4 * 48000)])
        // Channel 1 keeps a -40 dBFS tone (peak 0.01 -> rms -43 dB) through the gap.
        for i in 48000..<(4 * 48000) { x[2 * i + 1] = Float(0.01 * sin(Double(i) * 0.05)) }
        #expect(Self.allEvents(try Self.run(x, channels: 2)).isEmpty)
        let lax = try Self.run(x, channels: 2, events: EventSettings(silenceDb: -30))
        #expect(Self.allEvents(lax).map(\.name) == ["silence_start", "silence_end"])
    }

    @Test("a silence running to the end ends at the last sample, as silencedetect reports it")
    func silenceToTheEnd() throws {
        let total = 4 * 48000 + 500
        let sink = try Self.run(Self.signal(frames: total, channels: 2, quiet: [48000..<total]), channels: 2)
        let events = Self.allEvents(sink)
        #expect(events.map(\.name) == ["silence_start", "silence_end"])
        #expect(events.last?.pos == total)
        #expect(sink.summary?.events.map(\.name) == ["silence_end"])
    }

    @Test("clip: per hop and channel, the samples at either 16-bit rail; totals in the end")
    func clipCounts() throws {
        let rate = 48000, channels = 2, total = 10_000
        let hop = MeterSettings(rate: rate, channels: channels).hop
        var x = Self.signal(frames: total, channels: channels, quiet: [], seed: 3)
        var rng = SeededRNG(seed: 9)
        var expected: [Int: [Int]] = [:]  // hop end -> per channel
        let rails: [Float] = [32767.0 / 32768.0, -1.0, 1.0, 1.5, -32767.0 / 32768.0]
        for _ in 0..<300 {
            let i = Int(rng.next() % UInt64(total)), c = Int(rng.next() % 2)
            guard abs(x[i * channels + c]) < 0.99 else { continue }
            x[i * channels + c] = rails[Int(rng.next() % UInt64(rails.count))]
        }
        // Just below the rail: not clipped.
        x[5 * channels] = 32766.0 / 32768.0
        for i in 0..<total {
            for c in 0..<channels where abs(x[i * channels + c]) >= 32767.0 / 32768.0 {
                let end = min(total, (i / hop + 1) * hop)
                expected[end, default: [0, 0]][c] += 1
            }
        }
        for blocks in [[16384], [1], [7, 1600, 333]] {
            let sink = try Self.run(x, channels: channels, blocks: blocks)
            var got: [Int: [Int]] = [:]
            for f in sink.frames {
                if f.clipSamples != [0, 0] { got[f.pos] = f.clipSamples }
                for e in f.events {
                    guard case .clip(let c, let n) = e.kind else { continue }
                    #expect(e.pos == f.pos && f.clipSamples[c] == n)
                }
                #expect(f.events.count == f.clipSamples.filter { $0 > 0 }.count)
            }
            #expect(got == expected, "blocks \(blocks)")
            let totals = (0..<channels).map { c in expected.values.reduce(0) { $0 + $1[c] } }
            #expect(sink.summary?.clippedSamples == totals)
            #expect(totals.reduce(0, +) > 200)
        }
    }

    @Test("--clip-db moves the clip level; without --events there are no events and no totals")
    func clipThreshold() throws {
        let x: [Float] = [0.5, 0.49, -0.51, 0.1, 1.0, -0.7]
        let half = 20 * log10(0.5)
        let sink = try Self.run(x, channels: 1, events: EventSettings(clipDb: half))
        #expect(sink.frames.map(\.clipSamples) == [[4]])
        #expect(sink.summary?.clippedSamples == [4])
        let p = try MeterPipeline(settings: ValidSettings(MeterSettings(rate: 48000, channels: 1)))
        let plain = CollectingSink()
        try p.run(source: ArraySource(rate: 48000, channels: 1, samples: x), sink: plain)
        #expect(plain.frames.allSatisfy { $0.events.isEmpty })
        #expect(plain.frames.map(\.clipSamples) == [[1]], "the lamp still counts at the rail")
        #expect(plain.summary?.clippedSamples == nil)
    }

    @Test("the same events however the input is split into blocks")
    func blockIndependence() throws {
        let x = Self.signal(frames: 8 * 48000, channels: 2, quiet: [30000..<(30000 + 130_000), 250_000..<384_000])
        let reference = Self.allEvents(try Self.run(x, channels: 2))
        #expect(reference.count == 4)
        for blocks in [[480], [1599, 1601], [7, 13, 100_000]] {
            #expect(Self.allEvents(try Self.run(x, channels: 2, blocks: blocks)) == reference)
        }
    }

    @Test("event lines: names, pos, t, ts when live, duration, channel and samples")
    func ndjson() throws {
        var enc = NDJSONEncoder()
        _ = enc.start(StreamInfo(source: "x", settings: MeterSettings(rate: 48000, channels: 2)))
        func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }
        #expect(text(enc.event(MeterEvent(.silenceStart, pos: 48000), ts: nil))
                == "{\"type\":\"event\",\"event\":\"silence_start\",\"pos\":48000,\"t\":1.0}\n")
        #expect(text(enc.event(MeterEvent(.silenceEnd(seconds: 2.5), pos: 168000), ts: 1700000000.25))
                == "{\"type\":\"event\",\"event\":\"silence_end\",\"pos\":168000,\"t\":3.5,\"ts\":1700000000.25,\"duration\":2.5}\n")
        #expect(text(enc.event(MeterEvent(.clip(channel: 1, samples: 7), pos: 1600), ts: nil))
                == "{\"type\":\"event\",\"event\":\"clip\",\"pos\":1600,\"t\":0.03333,\"channel\":1,\"samples\":7}\n")
        let end = text(enc.end(StreamSummary(pos: 0, rate: 48000, rmsDb: [-160], peakDb: [-160], clippedSamples: [3, 0])))
        #expect(end.contains("\"clipped_samples\":[3,0]"))
    }
}
