import Foundation
import Glibc
import MeterCore
import Testing
@testable import MeterIO
import Waiting

/// The monitoring server in process, its threads all at work at once (run under
/// ThreadSanitizer by scripts/test): a producer publishing lines, stream clients reading
/// /events on their own threads, another thread asking /metrics and /status meanwhile, and the
/// end that ends every stream.
@Suite struct MonitorHTTPServerTests {
    /// One HTTP/1.1 exchange on a fresh connection (`Connection: close`): the status and the
    /// body, de-chunked; `received` sees the bytes so far after each read.
    static func get(port: Int, _ path: String, received seen: ([UInt8]) -> Void = { _ in }) throws -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure("connect: \(errno)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw Failure("send: \(errno)") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 { throw Failure("recv: \(errno) after \(received.count) bytes") }
            if n == 0 { break }
            received += buffer[0..<n]
            seen(received)
        }
        return try parse(received)
    }

    /// The status line's code and the body (chunked or not).
    static func parse(_ bytes: [UInt8]) throws -> (status: Int, body: String) {
        let crlf: [UInt8] = [13, 10]
        func find(_ what: [UInt8], from: Int) -> Int? {
            guard from <= bytes.count - what.count else { return nil }
            return (from...(bytes.count - what.count)).first { Array(bytes[$0..<($0 + what.count)]) == what }
        }
        guard let end = find(crlf + crlf, from: 0) else { throw Failure("no header end") }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var at = end + 4
        guard head.lowercased().contains("transfer-encoding: chunked") else {
            return (status, String(decoding: bytes[at...], as: UTF8.self))
        }
        var body: [UInt8] = []
        while let line = find(crlf, from: at), let size = Int(String(decoding: bytes[at..<line], as: UTF8.self), radix: 16) {
            if size == 0 { return (status, String(decoding: body, as: UTF8.self)) }
            guard line + 2 + size <= bytes.count else { throw Failure("a chunk cut short") }
            body += bytes[(line + 2)..<(line + 2 + size)]
            at = line + 2 + size + 2
        }
        throw Failure("the chunked body does not end")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("three stream clients get every line in order, as it comes, while /metrics and /status are asked; finish ends every stream")
    func streamsUnderLoad() throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        let server = try MonitorHTTPServer(socket: socket, recording: .none) { LiveProgress() }
        let port = server.port
        let clients = 3, lines = 400
        func line(_ pos: Int) -> String { "{\"type\":\"frame\",\"pos\":\(pos)}" }
        /// Per client: the bytes received so far, and the result at the end.
        let received = Locked([Int: String]())
        let results = Locked([Int: Result<(status: Int, body: String), Error>]())
        let done = DispatchGroup()
        // Threads of their own (a blocking client on a dispatch queue can hold up the next).
        func spawn(_ body: @escaping @Sendable () -> Void) {
            done.enter()
            Thread {
                body()
                done.leave()
            }.start()
        }
        for c in 0..<clients {
            spawn {
                let r = Result {
                    try Self.get(port: port, "/events") { bytes in
                        let text = String(decoding: bytes, as: UTF8.self)
                        received.withLock { $0[c] = text }
                    }
                }
                results.withLock { $0[c] = r }
            }
        }
        func everyClientHas(_ text: String) -> Bool {
            received.withLock { got in (0..<clients).allSatisfy { got[$0]?.contains(text) == true } }
        }
        #expect(Wait.until(timeout: 10) { everyClientHas("retry: ") }, "every client has its stream open")
        let polls = Locked([Int]())
        let polling = Locked(true)
        spawn {
            while polling.withLock({ $0 }) {
                for path in ["/metrics", "/status"] {
                    let status = (try? Self.get(port: port, path))?.status ?? -1
                    polls.withLock { $0.append(status) }
                }
            }
        }
        // In four batches, each sent once the streams have the one before: so each stream
        // catches up, suspends, and is resumed by the next line.
        for batch in 0..<4 {
            for pos in (batch * lines / 4)..<((batch + 1) * lines / 4) {
                server.publish([Array((line(pos) + "\n").utf8)], frame: true) { _ in }
            }
            let last = "data: " + line((batch + 1) * lines / 4 - 1) + "\n"
            #expect(Wait.until(timeout: 10, interval: 0.005) { everyClientHas(last) }, "batch \(batch) reached every stream")
        }
        #expect(Wait.until(timeout: 10) { polls.withLock { $0.count >= 2 } }, "/metrics and /status answered meanwhile")
        let pollsDuringTheRun = polls.withLock { $0 }
        server.publish([Array("{\"type\":\"end\"}\n".utf8)], frame: false) { _ in }
        server.finish()
        polling.withLock { $0 = false }
        #expect(done.wait(timeout: .now() + 20) == .success, "every client is done")

        let want = (0..<lines).map(line) + ["{\"type\":\"end\"}"]
        for c in 0..<clients {
            let r = try #require(results.withLock { $0[c] })
            let (status, body) = try r.get()
            #expect(status == 200)
            #expect(body.hasPrefix("retry: "))
            let data = body.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
            #expect(data == want, "client \(c): \(data.count) data lines")
        }
        #expect(!pollsDuringTheRun.isEmpty && pollsDuringTheRun.allSatisfy { $0 == 200 }, "\(pollsDuringTheRun)")
    }
}
