import Foundation
import Synchronization
import Testing
@testable import MeterCore

/// The decisions of the sink that speaks to systemd, driven by hand with a clock the test
/// sets: READY after every source's first frame, WATCHDOG only from frames (at most every
/// interval, every source delivering, nothing dropped meanwhile), STATUS every few seconds,
/// STOPPING once and last.
struct ServiceNotifySinkTests {
    /// A sink, its clock and what it sent, with the time each was sent.
    final class Harness {
        var now = 100.0
        var sent: [(at: Double, notice: ServiceNotice)] = []
        var sink: ServiceNotifySink!

        init(interval: Double? = 0.5, statusInterval: Double = 5, streams: [Int?] = [nil]) throws {
            sink = ServiceNotifySink(watchdogInterval: interval, statusInterval: statusInterval, clock: { [unowned self] in now },
                                     status: { s in s.sources.map { "\($0.name) \($0.rmsDb.map { "\($0)" } ?? "-") lost=\($0.lost) file=\($0.file ?? "-")" }.joined(separator: "; ") },
                                     send: { [unowned self] in sent.append((now, $0)) })
            for stream in streams {
                var info = StreamInfo(source: "src\(stream ?? 0)", settings: MeterSettings(rate: 48000, channels: 2), live: true)
                info.stream = stream
                try sink.start(info)
            }
        }

        /// `seconds` of frames at 32 a second (exact binary times) from `streams`, the clock
        /// moving with them.
        func frames(_ seconds: Double, streams: [Int?] = [nil], dropped: (Double) -> Int = { _ in 0 }) throws {
            let start = now
            for k in 1...Int(seconds * 32) {
                now = start + Double(k) / 32
                for s in streams {
                    var f = MeterFrame(pos: 0, rmsDb: [-20, -23], peakDb: [-10, -12])
                    f.stream = s
                    f.dropped = dropped(now)
                    try sink.frame(f)
                }
            }
        }

        /// `seconds` with no audio: the analysis wakes now and then and calls idle.
        func idle(_ seconds: Double, outage: Bool = false, stream: Int? = nil) throws {
            let end = now + seconds
            while now < end {
                now += 0.25
                try sink.idle(outage: outage, stream: stream)
            }
        }

        func times(_ notice: ServiceNotice) -> [Double] { sent.filter { $0.notice == notice }.map(\.at) }
        var statuses: [String] { sent.compactMap { if case .status(let s) = $0.notice { return s } else { return nil } } }
    }

    @Test func readyAtTheFirstFrameThenPingsAtTheIntervalWhileFramesCome() throws {
        let h = try Harness()
        try h.idle(2)
        #expect(h.sent.isEmpty, "nothing before audio: \(h.sent)")
        try h.frames(3)
        let ready = try #require(h.times(.ready).first)
        #expect(h.times(.ready).count == 1)
        let firstFrame: Double = 102 + 1.0 / 32
        #expect(ready == firstFrame, "READY at the first frame")
        #expect(h.sent.first?.notice == .ready)
        #expect(h.statuses.first == "src0 -20.0 lost=false file=-", "a status with readiness")
        let pings = h.times(.watchdog)
        #expect(pings.count == 5, "3 s at 0.5 s: \(pings)")
        let gaps: [Double] = zip(pings.dropFirst(), pings).map { $0 - $1 }
        #expect(gaps == [0.5, 0.5, 0.5, 0.5], "every 0.5 s: \(gaps)")
    }

    @Test func noPingWhileNoAudioComesAndAgainOnceItDoes() throws {
        let h = try Harness()
        try h.frames(1)
        let before = h.times(.watchdog).count
        try h.idle(3)
        #expect(h.times(.watchdog).count == before, "idle wake-ups never ping")
        let resumed = h.now
        try h.frames(1)
        let after = h.times(.watchdog).filter { $0 > resumed }
        #expect(after.count == 2, "pings again once frames come: \(after)")
        #expect(h.times(.ready).count == 1, "READY once")
    }

    @Test func noPingWhileTheAnalysisFallsBehind() throws {
        let h = try Harness()
        try h.frames(1)
        let behind = h.now
        // Every frame says input was dropped since the one before: the analysis does not keep up.
        var count = 0
        try h.frames(3, dropped: { _ in count += 100; return count })
        #expect(h.times(.watchdog).filter { $0 > behind }.isEmpty)
        let caughtUp = h.now
        try h.frames(1, dropped: { _ in count })
        #expect(h.times(.watchdog).filter { $0 > caughtUp }.count == 2)
    }

    @Test func severalSourcesReadyOnceAllRunAndPingsWhileAllDeliver() throws {
        let h = try Harness(streams: [0, 1])
        try h.frames(2, streams: [0])
        #expect(h.sent.isEmpty, "one of two sources runs: not ready yet")
        try h.frames(1, streams: [0, 1])
        #expect(h.times(.ready).count == 1)
        #expect(h.times(.watchdog).count == 1, "\(h.times(.watchdog))")
        let one = h.now
        try h.frames(3, streams: [0])
        // At most the one ping source 1's last frames earned, then none while it delivers nothing.
        #expect(h.times(.watchdog).filter { $0 > one + 0.1 }.isEmpty, "source 1 delivers nothing: \(h.times(.watchdog))")
        let both = h.now
        try h.frames(1, streams: [0, 1])
        #expect(h.times(.watchdog).filter { $0 > both }.count == 2)
        #expect(h.statuses.last == "src0 -20.0 lost=false file=-; src1 -20.0 lost=false file=-")
    }

    @Test func statusEveryFewSecondsWithTheLostSourceAndTheFile() throws {
        let h = try Harness()
        var open = RecordingFileEvent(.open, file: "take.wav", pos: 0, frames: 0)
        open.stream = nil
        try h.sink.file(open)
        try h.frames(12)
        #expect(h.statuses.count == 3, "at 0, 5 and 10 s: \(h.statuses)")
        #expect(h.statuses.last == "src0 -20.0 lost=false file=take.wav")
        try h.sink.event(MeterEvent(.sourceLost(reason: "gone"), pos: 0), ts: 0, stream: nil)
        #expect(h.statuses.last == "src0 -20.0 lost=true file=take.wav", "said at once")
        try h.sink.file(RecordingFileEvent(.close, file: "take.wav", pos: 0, frames: 0))
        try h.idle(6, outage: true)
        #expect(h.statuses.last == "src0 -20.0 lost=true file=-")
    }

    @Test func stoppingOnceAndNothingAfter() throws {
        let h = try Harness()
        try h.frames(1)
        h.sink.stopping()
        h.sink.stopping()
        try h.frames(6)
        try h.idle(6)
        #expect(h.times(.stopping).count == 1)
        #expect(h.sent.last?.notice == .stopping)
    }

    /// The command line calls `stopping()` from its signal thread and again before the process
    /// exits: the second call must not return before the first one's STOPPING is sent.
    @Test func aSecondStoppingReturnsOnceTheFirstSent() {
        let inSend = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let sentAll = Atomic<Bool>(false)
        let sink = ServiceNotifySink(watchdogInterval: 0.5, clock: { 0 }, status: { _ in "" }, send: { notice in
            guard notice == .stopping else { return }
            inSend.signal()
            release.wait()
            sentAll.store(true, ordering: .releasing)
        })
        let first = Thread { sink.stopping() }
        first.start()
        inSend.wait()  // the first call is inside send
        let sentWhenSecondReturned = Atomic<Bool>(false)
        let secondReturned = DispatchSemaphore(value: 0)
        let second = Thread {
            sink.stopping()
            sentWhenSecondReturned.store(sentAll.load(ordering: .acquiring), ordering: .releasing)
            secondReturned.signal()
        }
        second.start()
        Thread.sleep(forTimeInterval: 0.1)  // (gives the second call the time to return early, as it did)
        release.signal()
        secondReturned.wait()
        let sent = sentWhenSecondReturned.load(ordering: .acquiring)
        #expect(sent, "the second stopping() returned before STOPPING was sent")
    }

    @Test func withoutAWatchdogNoPings() throws {
        let h = try Harness(interval: nil)
        try h.frames(3)
        #expect(h.times(.ready).count == 1)
        #expect(h.times(.watchdog).isEmpty)
    }

    @Test func theWatchdogIntervalIsHalfOfWatchdogUsecForThisProcessOnly() {
        #expect(ServiceWatchdog.pingInterval(usec: "1000000", pid: nil, ourPID: 42) == 0.5)
        #expect(ServiceWatchdog.pingInterval(usec: "10000000", pid: "42", ourPID: 42) == 5)
        #expect(ServiceWatchdog.pingInterval(usec: "10000000", pid: "41", ourPID: 42) == nil)
        #expect(ServiceWatchdog.pingInterval(usec: nil, pid: nil, ourPID: 42) == nil)
        #expect(ServiceWatchdog.pingInterval(usec: "0", pid: nil, ourPID: 42) == nil)
        #expect(ServiceWatchdog.pingInterval(usec: "soon", pid: nil, ourPID: 42) == nil)
    }

    @Test func datagrams() {
        #expect(ServiceNotice.ready.datagram == "READY=1")
        #expect(ServiceNotice.watchdog.datagram == "WATCHDOG=1")
        #expect(ServiceNotice.stopping.datagram == "STOPPING=1")
        #expect(ServiceNotice.status("a\nb").datagram == "STATUS=ab", "one line")
    }
}
