import Foundation
import MeterCore
import Testing

/// `/history`'s retention (`FrameHistory`, `FrameMerge`): frames of one tenth of a second
/// merged (levels as power means, peaks as maxima), at most 10 minutes held.
@Suite struct FrameHistoryTests {
    static let rate = 48000

    static func info(fps: Double, loudness: Bool = false) -> StreamInfo {
        StreamInfo(source: "s", settings: MeterSettings(rate: rate, channels: 2, fps: fps, loudness: loudness), live: true)
    }

    /// `HistorySlots` and `FrameHistory` as `HTTPSink` joins them.
    struct Retention {
        var slots = HistorySlots()
        var history = FrameHistory()
        init(_ info: StreamInfo) {
            _ = slots.start(info)
            history = FrameHistory(rate: info.settings.rate)
        }
        mutating func frame(_ f: MeterFrame, line: [UInt8]) {
            if let closed = slots.frame(f, line: line) { history.append(closed.line, pos: closed.pos) }
        }
        func lines(seconds: Double) -> [UInt8] { history.lines(seconds: seconds) }
        var count: Int { history.count }
    }

    /// An encoder and a retention, both started on a stream of `fps` frames per second.
    static func started(fps: Double) -> (NDJSONEncoder, Retention) {
        var encoder = NDJSONEncoder()
        let info = Self.info(fps: fps)
        _ = encoder.start(info)
        return (encoder, Retention(info))
    }

    static func objects(_ bytes: [UInt8]) throws -> [[String: Any]] {
        try String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("three frames of one slot: rms and M/S as the power mean, peak and true peak the maximum, running figures the last frame's")
    func mergesBySlot() throws {
        var encoder = NDJSONEncoder()
        let info = Self.info(fps: 30, loudness: true)
        _ = encoder.start(info)
        var h = Retention(info)
        // pos 1600, 3200 fall in slot 0 (t < 0.1 s); 4800 is t = 0.1, slot 1.
        let rms: [[Double]] = [[-20, -30], [-10, -30], [-20, -160]]
        let peaks: [[Double]] = [[-6, -20], [-3, -25], [-9, -160]]
        for k in 0..<5 {
            var f = MeterFrame(pos: 1600 * (k + 1), ts: Double(k), rmsDb: rms[k % 3], peakDb: peaks[k % 3])
            f.loudness = LoudnessReading(momentary: -20 + Double(k), shortTerm: -23, integrated: -24 - Double(k),
                                         truePeakDb: [-2 - Double(k), -7 + Double(k)])
            h.frame(f, line: encoder.frame(f))
        }
        // Slots 0 (2 frames) and 1 (3 frames: pos 4800, 6400 and 8000) - the second still open.
        #expect(h.count == 1)
        var next = MeterFrame(pos: 9600, rmsDb: [-40, -40], peakDb: [-40, -40])
        next.loudness = LoudnessReading(momentary: -40, shortTerm: -40, integrated: -40)
        h.frame(next, line: encoder.frame(next))
        let lines = try Self.objects(h.lines(seconds: 600))
        #expect(lines.count == 2)
        let first = lines[0], second = lines[1]
        let r0 = try #require(first["rms_db"] as? [Double])
        // 10 log10((10^-2 + 10^-1) / 2) = -12.596; channel 1: both -30.
        #expect(abs(r0[0] - 10 * log10((0.01 + 0.1) / 2)) < 0.006 && r0[1] == -30)
        #expect(first["peak_db"] as? [Double] == [-3, -20])
        #expect(first["pos"] as? Int == 3200 && first["ts"] as? Double == 1)
        // M: -20 and -19 LUFS; I as of the last frame; true peak the larger per channel.
        #expect(abs((first["lufs_m"] as? Double ?? 0) - 10 * log10((pow(10, -2.0) + pow(10, -1.9)) / 2)) < 0.006)
        #expect(first["lufs_s"] as? Double == -23 && first["lufs_i"] as? Double == -25)
        #expect(first["true_peak_db"] as? [Double] == [-2, -6])
        // Slot 1: -20, -30 (k=2: -20, -160 silence counts as no power), then k=3 -20/-30, k=4 -10/-30.
        let r1 = try #require(second["rms_db"] as? [Double])
        #expect(abs(r1[0] - 10 * log10((0.01 + 0.01 + 0.1) / 3)) < 0.006)
        #expect(abs(r1[1] - 10 * log10((0 + 0.001 + 0.001) / 3)) < 0.006)
        #expect(second["peak_db"] as? [Double] == [-3, -20])
        #expect(second["pos"] as? Int == 8000 && second["lufs_i"] as? Double == -28)
    }

    @Test("a slot of one frame keeps the frame's own line, byte for byte")
    func singleFrameLineAsWritten() throws {
        var h = Retention(Self.info(fps: 10))
        let line = Array(#"{"type":"frame","t":0.10000,"pos":4800,"as":"written"}"#.utf8) + [10]
        h.frame(MeterFrame(pos: 4800, rmsDb: [-1, -1], peakDb: [0, 0]), line: line)
        h.frame(MeterFrame(pos: 9600, rmsDb: [-1, -1], peakDb: [0, 0]), line: [])
        #expect(h.lines(seconds: 10) == line)
    }

    @Test("at most 10 minutes at 10 frames per second; seconds=N returns the last N s, N beyond it all that is held; events after their frame")
    func boundAndWindow() throws {
        var (encoder, h) = Self.started(fps: 10)
        let total = FrameHistory.capacity + 250
        for k in 1...total {
            let f = MeterFrame(pos: 4800 * k, rmsDb: [-30, -30], peakDb: [-20, -20])
            h.frame(f, line: encoder.frame(f))
            if k == total - 100 {
                let e = MeterEvent(.silenceStart, pos: 4800 * k - 100)
                h.history.note(encoder.event(e, ts: nil), pos: e.pos, stream: nil)
            }
        }
        #expect(FrameHistory.capacity == 6000)
        #expect(h.count == 6000)
        let all = try Self.objects(h.lines(seconds: 1e9))
        let frames = all.filter { $0["type"] as? String == "frame" }
        #expect(frames.count == 6000)
        // The newest slot is open: the held ones end one before it, and begin 6000 earlier.
        #expect(frames.last?["pos"] as? Int == 4800 * (total - 1))
        #expect(frames.first?["pos"] as? Int == 4800 * (total - 6000))
        let poses = frames.compactMap { $0["pos"] as? Int }
        #expect(poses == poses.sorted())
        let minute = try Self.objects(h.lines(seconds: 60)).filter { $0["type"] as? String == "frame" }
        #expect(minute.count == 600)
        let i = try #require(all.firstIndex { $0["type"] as? String == "event" })
        #expect(all[i - 1]["pos"] as? Int == 4800 * (total - 100))
        #expect(try Self.objects(h.lines(seconds: 5)).allSatisfy { $0["type"] as? String == "frame" })
    }

    @Test("a silence from the very start (an event at pos 0) is served after the first frame")
    func eventAtTheStart() throws {
        var (encoder, h) = Self.started(fps: 10)
        let e = MeterEvent(.silenceStart, pos: 0)
        h.history.note(encoder.event(e, ts: nil), pos: 0, stream: nil)
        for k in 1...3 {
            let f = MeterFrame(pos: 4800 * k, rmsDb: [-160, -160], peakDb: [-160, -160])
            h.frame(f, line: encoder.frame(f))
        }
        #expect(try Self.objects(h.lines(seconds: 600)).map { $0["type"] as? String } == ["frame", "event", "frame"])
    }
}
