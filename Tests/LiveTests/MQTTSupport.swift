import Foundation
import Glibc
import TestSupport

/// A private mosquitto broker (Debian's mosquitto) for the `--mqtt` tests: its own config in
/// a temp dir, on a free localhost port, staying root (`user root`) so it reads the test's
/// files, no persistence (a restarted broker holds nothing retained: what a subscriber gets
/// after a restart, the meter published again).
final class MosquittoBroker: @unchecked Sendable {
    let dir: String
    let port: Int
    private(set) var process: Subprocess?
    /// Lines of the listener's own settings (a password file, TLS files).
    private let settings: String

    /// `port`: a free one when not given.
    init(_ tag: String, port: Int? = nil, settings: (String) throws -> String = { _ in "allow_anonymous true" }) throws {
        dir = try Live.tempDir(tag)
        self.port = try port ?? IcecastServer.freePort()
        self.settings = try settings(dir)
        let config = "user root\npersistence false\nlog_dest stderr\nlistener \(self.port) 127.0.0.1\n" + self.settings + "\n"
        try config.write(toFile: dir + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        process?.kill()
        Live.removeTree(dir)
    }

    func start() throws {
        let p = try Subprocess(["/usr/sbin/mosquitto", "-c", dir + "/mosquitto.conf"])
        guard Wait.until(timeout: 10, interval: 0.02, { IcecastServer.accepts(port) || !p.isRunning }), p.isRunning else {
            p.kill()
            throw LiveSetupError("mosquitto did not start on port \(port): \(p.stderrText)")
        }
        process = p
    }

    /// SIGKILL, as a broker that goes away (no clean disconnect).
    func kill() { process?.kill() }

    /// `mosquitto_sub` on every topic, ready (it got the retained marker) when this returns;
    /// `extra`: TLS or login arguments.
    func subscribe(_ extra: [String] = []) throws -> MQTTSubscriber {
        let marker = "ready-\(UInt32.random(in: 0...UInt32.max))"
        let pub = try run(["mosquitto_pub", "-h", "127.0.0.1", "-p", String(port), "-r", "-t", "test/ready", "-m", marker] + extra)
        guard pub.status == 0 else { throw LiveSetupError("mosquitto_pub failed: \(pub.stderr)") }
        let sub = MQTTSubscriber(try Subprocess(["mosquitto_sub", "-h", "127.0.0.1", "-p", String(port), "-t", "#",
                                                 "-F", "%r %t %p"] + extra))
        guard sub.wait(timeout: 10, { $0.topic == "test/ready" && $0.text == marker }) != nil else {
            throw LiveSetupError("mosquitto_sub got no retained marker: \(sub.process.stderrText)")
        }
        return sub
    }
}

/// What a `mosquitto_sub -F '%r %t %p'` received, with when (Unix time).
final class MQTTSubscriber: @unchecked Sendable {
    struct Message {
        var retained: Bool
        var topic: String
        var text: String
        var at: Double
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }
    }

    let process: Subprocess
    private(set) var messages: [Message] = []

    init(_ process: Subprocess) { self.process = process }

    /// Reads until a message satisfies `match` (it or any earlier one); nil after `timeout`.
    func wait(timeout: Double, _ match: (Message) -> Bool) -> Message? {
        if let m = messages.first(where: match) { return m }
        let deadline = monotonic() + timeout
        while let line = process.readLine(timeout: max(0, deadline - monotonic())) {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let m = Message(retained: parts[0] == "1", topic: String(parts[1]), text: String(parts[2]),
                            at: Date().timeIntervalSince1970)
            messages.append(m)
            if match(m) { return m }
        }
        return nil
    }

    /// Everything that arrives within `seconds`.
    func collect(seconds: Double) {
        _ = wait(timeout: seconds) { _ in false }
    }

    func on(_ topic: String) -> [Message] { messages.filter { $0.topic == topic } }
}
