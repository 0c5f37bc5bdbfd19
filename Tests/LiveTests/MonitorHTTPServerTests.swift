import Foundation
import Glibc
import MeterCore
import Testing
import TestSupport
@testable import MeterIO

extension LiveSuite {
    /// The monitoring server in process, its threads all at work at once (run under
    /// ThreadSanitizer by scripts/test): the producer publishing lines and keeping the history,
    /// libmicrohttpd's thread and the ticker serving three streams, another thread asking
    /// /metrics, /status and /history meanwhile, and the end that ends every stream. No sound server takes part, so it runs
    /// in the PulseAudio pass only.
    @Suite("the monitoring server in process", .enabled(if: Live.kind == .pulseaudio, "no sound server involved: run once"))
    struct MonitorHTTPServerTests {
        @Test("three stream clients get every line in order, as it comes, while /metrics, /status and /history are asked; finish ends every stream")
        func streamsUnderLoad() throws {
            let server = try MonitorHTTPServer(socket: ListeningSocket(host: "127.0.0.1", port: 0), recording: .none) { LiveProgress() }
            let lines = 400
            func line(_ pos: Int) -> String { "{\"type\":\"frame\",\"pos\":\(pos)}" }
            let streams = try (0..<3).map { _ in try SSEStream(port: server.port) }
            for s in streams {
                #expect(s.status == 200)
                #expect(s.next(timeout: 5)?.type == "retry")
            }
            let polls = Locked([Int]())
            let polling = Locked(true)
            let pollerDone = DispatchSemaphore(value: 0)
            Thread {
                while polling.withLock({ $0 }) {
                    for path in ["/metrics", "/status", "/history"] {
                        let status = (try? HTTP.request(port: server.port, path))?.status ?? -1
                        polls.withLock { $0.append(status) }
                    }
                }
                pollerDone.signal()
            }.start()

            // In four batches, each published once every stream has the one before: so each
            // stream catches up, suspends, and is resumed by the next line.
            var got = [[String]](repeating: [], count: streams.count)
            func read(_ c: Int, through last: String) {
                while got[c].last != last, let e = streams[c].next(timeout: 10) {
                    if e.type != ":" { got[c].append(e.data) }
                }
            }
            server.history { $0 = FrameHistory(rate: 48000) }
            for batch in 0..<4 {
                for pos in (batch * lines / 4)..<((batch + 1) * lines / 4) {
                    server.publish([Array((line(pos) + "\n").utf8)], frame: true) { _ in }
                    server.history { $0.append(Array((line(pos) + "\n").utf8), pos: 4800 * (pos + 1)) }
                }
                let last = line((batch + 1) * lines / 4 - 1)
                for c in streams.indices {
                    read(c, through: last)
                    #expect(got[c].last == last, "batch \(batch) reached stream \(c)")
                }
            }
            #expect(Wait.until(timeout: 10) { polls.withLock { $0.count >= 3 } }, "/metrics, /status and /history answered meanwhile")
            // The history holds every frame line published, in order (400 of 0.1 s: all of them).
            let history = try HTTP.request(port: server.port, "/history")
            #expect(history.status == 200)
            #expect(history.text == (0..<lines).map { line($0) + "\n" }.joined())
            let pollsDuringTheRun = polls.withLock { $0 }
            let end = "{\"type\":\"end\"}"
            server.publish([Array((end + "\n").utf8)], frame: false) { _ in }
            server.finish()
            polling.withLock { $0 = false }
            #expect(pollerDone.wait(timeout: .now() + 20) == .success, "the poller is done")

            let want = (0..<lines).map(line) + [end]
            for c in streams.indices {
                read(c, through: end)
                #expect(got[c] == want, "stream \(c): \(got[c].count) lines")
                #expect(streams[c].waitForEnd(timeout: 5), "stream \(c) ended")
            }
            #expect(!pollsDuringTheRun.isEmpty && pollsDuringTheRun.allSatisfy { $0 == 200 }, "\(pollsDuringTheRun)")
        }
    }
}
