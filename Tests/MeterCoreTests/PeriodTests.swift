import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// Periods and Lden days over frames, driven with a fake clock and a fixed time zone: the
/// statistics against values computed here from the frames, the boundaries against the wall
/// clock, Lden against Directive 2002/49/EC Annex I's formula.
@Suite struct PeriodTests {
    static let cet = FixedUTCOffset(seconds: 3600)

    @Test func rfc3339RoundTrips() throws {
        let t = try #require(CivilTime.parse("2026-12-04T21:15:00+01:00"))
        #expect(t.offset == 3600)
        #expect(t.unix == 1_796_415_300)  // 2026-12-04T20:15:00Z
        #expect(CivilTime.rfc3339(t.unix, offset: t.offset) == "2026-12-04T21:15:00+01:00")
        #expect(CivilTime.rfc3339(t.unix + 0.25, offset: -18000) == "2026-12-04T15:15:00.250-05:00")
        #expect(CivilTime.parse("2024-02-29T00:00:00Z")?.unix == 1_709_164_800)
        for bad in ["2026-12-04", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-12-04T10:07:00", "2026-12-04T10:07:00+1"] {
            #expect(CivilTime.parse(bad) == nil, "\(bad)")
        }
    }

    /// Frames of `hop` samples at `rate`, their rms levels from `level(k)`.
    static func run(_ sink: PeriodSink, rate: Int = 100, hop: Int = 10, channels: Int = 1, frames: Int,
                    spl: Bool = false, ts: ((Int) -> Double)? = nil, level: (Int) -> [Double]) throws {
        var s = MeterSettings(rate: rate, channels: channels, fps: Double(rate / hop))
        if spl { s.spl = SoundLevelSettings() }
        try sink.start(StreamInfo(source: "test", settings: s))
        for k in 1...frames {
            var f = MeterFrame(pos: k * hop, ts: ts?(k), rmsDb: level(k), peakDb: level(k).map { $0 + 3 })
            if spl { f.spl = SoundLevelReading(splDb: level(k), leqDb: level(k)) }
            try sink.frame(f)
        }
        try sink.end(StreamSummary(pos: frames * hop, rate: rate, rmsDb: [0], peakDb: [0]))
    }

    static func periods(_ c: CollectingSink) -> [PeriodReport] {
        c.frames.compactMap(\.period) + [c.summary?.period].compactMap { $0 }
    }

    @Test func fileFromStartTimeAlignsToTheWallClock() throws {
        // 10:07:00 +01:00, 900 s periods: 10:07-10:15 (partial), 10:15-10:30, 10:30-10:37:30 (partial).
        let start = try #require(CivilTime.parse("2026-12-04T10:07:00+01:00"))
        let c = CollectingSink()
        let sink = PeriodSink(c, settings: PeriodSettings(interval: 900, clock: .file(start: start.unix, aligned: true), zone: Self.cet))
        // 0.1 s frames for 1830 s; levels cycle through -40 ... -21.
        try Self.run(sink, frames: 18300) { k in [-40 + Double(k % 20)] }
        let p = Self.periods(c)
        #expect(p.map { CivilTime.rfc3339($0.start, offset: $0.startOffset) }
                == ["2026-12-04T10:07:00+01:00", "2026-12-04T10:15:00+01:00", "2026-12-04T10:30:00+01:00"])
        #expect(p.map { CivilTime.rfc3339($0.end, offset: $0.endOffset) }
                == ["2026-12-04T10:15:00+01:00", "2026-12-04T10:30:00+01:00", "2026-12-04T10:37:30+01:00"])
        #expect(p.map(\.partial) == [true, false, true])
        #expect(p.map(\.seconds).map { ($0 * 1000).rounded() / 1000 } == [480, 900, 450])
        // The second period: frames 4801...13800 (ending after 10:15, at or before 10:30).
        let levels: [Double] = (4801...13800).map { k -> Double in -40 + Double(k % 20) }
        let energy: Double = levels.map { (l: Double) -> Double in pow(10, l / 10) }.reduce(0, +)
        let leq = 10 * log10(energy / Double(levels.count))
        #expect(abs(p[1].leqDb[0] - leq) < 1e-9)
        #expect(p[1].lmaxDb == [-21] && p[1].lminDb == [-40])
        #expect(p[1].peakDb == [-18])
        let sorted = levels.sorted(by: >)
        for (got, q) in [(p[1].l10Db[0], 10.0), (p[1].l50Db[0], 50.0), (p[1].l90Db[0], 90.0)] {
            let want = sorted[Int((q / 100 * Double(sorted.count)).rounded(.up)) - 1]
            #expect(abs(got - want) <= 0.05, "L\(Int(q)): \(got) vs \(want)")
        }
    }

    @Test func fileWithoutStartTimeCountsFromItsStart() throws {
        let c = CollectingSink()
        let sink = PeriodSink(c, settings: PeriodSettings(interval: 60, clock: .file(start: 1000.5, aligned: false), zone: Self.cet))
        try Self.run(sink, frames: 1500) { _ in [-20] }  // 150 s
        let p = Self.periods(c)
        #expect(p.map(\.start) == [1000.5, 1060.5, 1120.5])
        #expect(p.map(\.partial) == [false, false, true])
        #expect(p.allSatisfy { abs($0.leqDb[0] + 20) < 1e-9 && abs($0.l50Db[0] + 20) <= 0.05 })
    }

    @Test func livePeriodsEndAtWallClockMultiples() throws {
        let c = CollectingSink()
        let sink = PeriodSink(c, settings: PeriodSettings(interval: 5, clock: .live, zone: Self.cet))
        // Frames every 0.1 s from 1000.03 on, the clock (`ts`) 40 ms behind the audio.
        try Self.run(sink, frames: 130, ts: { 1000.03 + Double($0) * 0.1 }) { _ in [-30] }
        let p = Self.periods(c)
        #expect(p.map(\.end) == [1005, 1010, 1000.03 + 13])
        #expect(p.map(\.partial) == [true, false, true])
        #expect(abs(p[0].start - 1000.03) < 1e-9)
    }

    /// A first frame that began before a boundary and ended after it: the first period is
    /// whole and starts on the boundary (the frame counts in the period where it ends).
    @Test func aFirstFrameAcrossABoundaryStartsAWholePeriodOnIt() throws {
        let c = CollectingSink()
        let sink = PeriodSink(c, settings: PeriodSettings(interval: 5, clock: .live, zone: Self.cet))
        // Frames every 0.1 s: the first covers 999.95 to 1000.05.
        try Self.run(sink, frames: 80, ts: { 999.95 + Double($0) * 0.1 }) { _ in [-30] }
        let p = Self.periods(c)
        #expect(p.map(\.start) == [1000, 1005])
        #expect(p.map(\.partial) == [false, true])
        #expect(p.first.map { abs($0.seconds - 5) < 1e-9 } == true, "50 frames of 0.1 s")
    }

    @Test func gapsCountInThePeriodGoingOn() throws {
        let c = CollectingSink()
        let sink = PeriodSink(c, settings: PeriodSettings(interval: 10, clock: .live, zone: Self.cet))
        try sink.start(StreamInfo(source: "t", settings: MeterSettings(rate: 100, channels: 1, fps: 10)))
        try sink.frame(MeterFrame(pos: 10, ts: 1001, rmsDb: [-10], peakDb: [-10]))
        try sink.gap(StreamGap(pos: 10, startTs: 1001, endTs: 1003.5))
        try sink.frame(MeterFrame(pos: 20, ts: 1012, rmsDb: [-10], peakDb: [-10]))
        #expect(c.frames[1].period?.gapSeconds == 2.5)
        try sink.end(StreamSummary(pos: 20, rate: 100, rmsDb: [0], peakDb: [0]))
        #expect(c.summary?.period?.gapSeconds == nil)
    }

    @Test func soundLevelsLeaveOutTheDetectorsSettling() throws {
        let c = CollectingSink()
        let sink = PeriodSink(c, settings: PeriodSettings(interval: 60, clock: .file(start: 0, aligned: true), zone: Self.cet))
        // F: 5 x 125 ms settle; rate 8000, hop 800: frames at pos 800 ... 4800 are before 5000.
        try Self.run(sink, rate: 8000, hop: 800, frames: 100, spl: true) { k in [k <= 6 ? -100 : -50 + Double(k % 2)] }
        let p = try #require(c.summary?.period)
        #expect(p.lminDb == [-50] && p.lmaxDb == [-49])
    }

    /// The Directive's formula, and a day of frames built from it: 07-19 at Lday, 19-23 at
    /// Levening, 23-07 at Lnight, one frame a minute, from 07:00 local on.
    @Test func ldenFollowsTheDirective() throws {
        #expect(abs(DayReport.lden(day: 60, evening: 55, night: 50) - 10 * log10((12 * 1e6 + 4 * 1e6 + 8 * 1e6) / 24)) < 1e-9)
        let start = try #require(CivilTime.parse("2026-06-01T07:00:00+02:00"))
        let c = CollectingSink()
        let zone = FixedUTCOffset(seconds: 7200)
        let sink = PeriodSink(c, settings: PeriodSettings(interval: nil, lden: true, clock: .file(start: start.unix, aligned: true), zone: zone))
        let (day, evening, night) = (62.0, 57.0, 48.0)
        // pos in 1/100 s: a frame is 60 s (hop 6000 at rate 100).
        try Self.run(sink, rate: 100, hop: 6000, frames: 24 * 60 + 60, spl: true) { k in
            let minute = k - 1  // the frame covers minutes [k-1, k) after 07:00
            let hour = (7 + minute / 60) % 24
            return [hour >= 7 && hour < 19 ? day : hour >= 19 && hour < 23 ? evening : night]
        }
        let days = c.frames.compactMap(\.day) + [c.summary?.day].compactMap { $0 }
        #expect(days.count == 2)
        let d = days[0]
        #expect(d.date == CivilTime.Date(year: 2026, month: 6, day: 1))
        #expect(d.partial == false && d.seconds == 86400)
        func near(_ v: [Double]?, _ want: Double) -> Bool { v.map { abs($0[0] - want) < 1e-9 } ?? false }
        #expect(near(d.ldayDb, day) && near(d.leveningDb, evening) && near(d.lnightDb, night))
        #expect(abs(d.ldenDb![0] - DayReport.lden(day: day, evening: evening, night: night)) < 1e-9)
        #expect(days[1].partial && days[1].ldenDb == nil && near(days[1].ldayDb, day))
    }
}
