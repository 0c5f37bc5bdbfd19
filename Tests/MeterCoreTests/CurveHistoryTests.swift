import Testing
@testable import MeterCore

/// A report's bounded curves: at most `capacity` buckets, each the minimum and maximum of the
/// frames it covers, pairs merging (the width doubling) when all are full.
@Suite struct CurveHistoryTests {
    @Test("fewer frames than buckets: a bucket per frame, its value as given")
    func aBucketPerFrame() {
        var h = CurveHistory(series: 2, capacity: 8)
        for k in 0..<5 { h.append([Double(k), -Double(k)], pos: 100 * (k + 1)) }
        #expect(h.width == 1 && h.count == 5)
        #expect(h.lows(0) == [0, 1, 2, 3, 4] && h.highs(0) == [0, 1, 2, 3, 4])
        #expect(h.highs(1) == [0, -1, -2, -3, -4])
        #expect(h.positions == [100, 200, 300, 400, 500])
    }

    /// Frame k carries value (k * 37) % 101 (no order to lean on); after n frames bucket i
    /// must hold the min and max of frames [i*w, (i+1)*w), w the smallest power of two with
    /// ceil(n / w) <= capacity, and end at its last frame's position.
    @Test("any number of frames: the buckets are the frames' min and max over doubling widths", arguments: [9, 16, 17, 100, 1000, 4097])
    func bucketsAreMinMaxOfTheirFrames(_ n: Int) {
        let capacity = 16
        var h = CurveHistory(series: 1, capacity: capacity)
        let value = { (k: Int) in Double((k * 37) % 101) }
        for k in 0..<n { h.append([value(k)], pos: k + 1) }
        var w = 1
        while (n + w - 1) / w > capacity { w *= 2 }
        #expect(h.width == w)
        #expect(h.count == (n + w - 1) / w)
        for i in 0..<h.count {
            let frames = (i * w)..<min(n, (i + 1) * w)
            #expect(h.lows(0)[i] == frames.map(value).min())
            #expect(h.highs(0)[i] == frames.map(value).max())
            #expect(h.positions[i] == frames.upperBound)
        }
    }

    @Test("a day of frames at 30 per second stays within 4,000 points")
    func aDayStaysBounded() {
        var h = CurveHistory(series: 1)
        for k in 0..<(86400 * 30) { h.append([Double(k % 7)], pos: k) }
        #expect(h.count <= CurveHistory.maxPoints && h.count > CurveHistory.maxPoints / 2)
        #expect(h.width == 1024)
    }
}

/// The report's figures are the `end` line's text read back: each value as printed.
@Suite struct EndLineFiguresTests {
    @Test func rowsAreTheLinesOwnText() {
        var s = StreamSummary(pos: 48000, rate: 48000, rmsDb: [-20.004, -19.996], peakDb: [-3.0, -160])
        s.file = "a \"quoted\" name.wav"
        var encoder = NDJSONEncoder()
        let line = String(decoding: encoder.end(s), as: UTF8.self)
        let f = EndLineFigures(line: Array(line.utf8))
        #expect(f["rms_db"] == ["-20.0", "-20.0"])
        #expect(f["peak_db"] == ["-3.0", "-160.0"])
        #expect(f["duration"] == ["1.0"])
        #expect(f["file"] == ["a \"quoted\" name.wav"])
        #expect(f["type"] == nil)
        // Every row's text is on the line as printed.
        for row in f.rows where row.key != "file" {
            #expect(line.contains("\"\(row.key)\":" + (row.values.count > 1 || row.key.hasSuffix("_db") ? "[" + row.values.joined(separator: ",") + "]" : row.values[0])))
        }
    }
}
