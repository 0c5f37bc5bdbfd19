import Testing
@testable import MeterCore

/// A simulated server: audio arrives in real time, a record buffer of `bufferSeconds` fills
/// while the client is stopped and drops what comes after; the client reads 10 ms chunks.
@Suite struct StopLossEstimatorTests {
    static let rate = 48000
    static let chunk = 480

    struct Outcome {
        var losses: [StopLossEstimator.Loss] = []
        var stopPos = 0
    }

    /// Reads for `before` s, stops for `stopped` s, then reads for `after` s; the continue is
    /// seen `lateBy` reads after the first read that follows it. Read completions jitter by up
    /// to 3 ms (a fixed pattern).
    static func simulate(before: Double, stopped: Double, bufferSeconds: Double, after: Double = 2,
                         lateBy: Int = 0) -> Outcome {
        var e = StopLossEstimator(rate: rate, chunkSeconds: Double(chunk) / Double(rate))
        var out = Outcome()
        var pos = 0
        let latency = 0.02
        func jitter(_ k: Int) -> Double { Double((k * 7919) % 4) * 0.001 }
        var k = 0
        // Live reads: a chunk completes when its last frame was captured, plus latency and jitter.
        func live(until end: Double, lostSoFar: Double) {
            while true {
                let t = Double(pos + chunk) / Double(rate) + lostSoFar + latency + jitter(k)
                if t > end { return }
                pos += chunk
                k += 1
                if let l = e.read(endingAt: pos, at: t) { out.losses.append(l) }
            }
        }
        live(until: before, lostSoFar: 0)
        out.stopPos = pos
        let stopAt = Double(pos) / Double(rate) + latency
        let resume = stopAt + stopped
        let held = min(stopped, bufferSeconds)
        let lost = stopped - held
        // After the continue: the held backlog in quick reads (0.05 ms each), then live.
        var t = resume
        var first = true
        var reads = 0
        while Double(pos) / Double(rate) < stopAt - latency + held - 1e-9 {
            pos += chunk
            t += first ? 0.0001 : 0.00005
            if reads == lateBy { e.continued() }
            reads += 1
            first = false
            if let l = e.read(endingAt: pos, at: t) { out.losses.append(l) }
        }
        if reads <= lateBy { e.continued() }
        live(until: resume + after, lostSoFar: lost)
        return out
    }

    @Test("a stop longer than the buffer: the loss is the stop less what the server held, where the backlog ends")
    func lossMeasured() throws {
        let o = Self.simulate(before: 3, stopped: 5, bufferSeconds: 2)
        #expect(o.losses.count == 1)
        let l = try #require(o.losses.first)
        let seconds = Double(l.frames) / Double(Self.rate)
        #expect(abs(seconds - 3) < 0.005, "lost \(seconds) s")
        let expectedPos = o.stopPos + 2 * Self.rate
        #expect(abs(l.pos - expectedPos) <= Self.chunk, "at \(l.pos), expected about \(expectedPos)")
        #expect(abs(l.continuedAt - l.stoppedAt - 5) < 0.05)
    }

    @Test("a stop the server could hold: no loss")
    func noLoss() {
        #expect(Self.simulate(before: 3, stopped: 1.5, bufferSeconds: 2).losses.isEmpty)
        #expect(Self.simulate(before: 3, stopped: 0.2, bufferSeconds: 2).losses.isEmpty)
    }

    @Test("the continue seen a read late measures the same loss")
    func lateContinue() throws {
        let l = try #require(Self.simulate(before: 3, stopped: 5, bufferSeconds: 2, lateBy: 1).losses.first)
        #expect(abs(Double(l.frames) / Double(Self.rate) - 3) < 0.005)
        #expect(abs(l.continuedAt - l.stoppedAt - 5) < 0.05)
    }

    @Test("no buffer at all: the whole stop is lost, at the stop's position")
    func everythingLost() throws {
        let o = Self.simulate(before: 2, stopped: 4, bufferSeconds: 0)
        let l = try #require(o.losses.first)
        #expect(abs(Double(l.frames) / Double(Self.rate) - 4) < 0.005)
        #expect(l.pos == o.stopPos)
    }

    @Test("without a continue nothing is measured, however the reads come")
    func onlyAfterContinue() {
        var e = StopLossEstimator(rate: Self.rate, chunkSeconds: 0.01)
        var pos = 0
        var t = 0.0
        for i in 0..<1000 {
            pos += Self.chunk
            t += i == 500 ? 5 : 0.01  // a source that went quiet for 5 s
            #expect(e.read(endingAt: pos, at: t) == nil)
        }
    }
}
