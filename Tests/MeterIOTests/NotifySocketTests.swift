import Foundation
import Glibc
import Testing
import MeterCore
@testable import MeterIO
import TestSupport

/// The notification socket speaks systemd's protocol to a real datagram socket: one
/// `NAME=value` datagram per notice, at a path and in the abstract namespace (`@name`).
@Suite struct NotifySocketTests {
    static let notices: [ServiceNotice] = [.ready, .watchdog, .status("vsink.monitor -20.0 dB RMS"), .stopping]

    @Test("each notice is one datagram at a socket path") func path() throws {
        let dir = try TempDir.create("notify")
        defer { TempDir.remove(dir) }
        let listener = try NotifyListener(dir + "/notify")
        let socket = try #require(NotifySocket(listener.address, watchdogInterval: nil))
        for n in Self.notices { #expect(socket.send(n)) }
        let got = Self.notices.compactMap { _ in listener.receive(timeout: 5)?.text }
        #expect(got == ["READY=1", "WATCHDOG=1", "STATUS=vsink.monitor -20.0 dB RMS", "STOPPING=1"])
    }

    @Test("@name is the abstract namespace") func abstract() throws {
        let listener = try NotifyListener("@pm-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let socket = try #require(NotifySocket(listener.address, watchdogInterval: 5))
        #expect(socket.watchdogInterval == 5)
        #expect(socket.send(.ready))
        #expect(listener.receive(timeout: 5)?.text == "READY=1")
    }

    @Test("an address this protocol does not reach opens nothing; no listener: the send fails, nothing else")
    func unreachable() throws {
        #expect(NotifySocket("relative/path", watchdogInterval: nil) == nil)
        #expect(NotifySocket("", watchdogInterval: nil) == nil)
        #expect(NotifySocket("/" + String(repeating: "x", count: 200), watchdogInterval: nil) == nil)
        let nobody = try #require(NotifySocket("/nonexistent-\(getpid())/notify", watchdogInterval: nil))
        #expect(!nobody.send(.ready))
    }
}
