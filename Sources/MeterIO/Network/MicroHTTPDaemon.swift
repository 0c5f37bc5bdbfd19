import CMicroHTTPD
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd (`MHD_start_daemon` with its own polling thread on a
/// socket already listening): requests in, responses out, nothing else. The library is
/// loaded (`dlopen`) when the first daemon starts, so a run that serves nothing does not map
/// it and the TLS libraries it needs. What to answer is
/// the handler's business; this wrapper turns its answers into `MHD_create_response_*` and
/// `MHD_queue_response` calls and keeps the C callbacks in one place.
///
/// A streamed body (`MHD_create_response_from_callback` with `MHD_SIZE_UNKNOWN`) is read
/// on the daemon's thread; when it has nothing to send it suspends its connection
/// (`MHD_suspend_connection`, from inside the read, the one place that is allowed) and its
/// producer resumes it (`MHD_resume_connection`, safe from any thread), so an idle stream
/// costs nothing.
///
/// Thread-safety invariant for `@unchecked Sendable`: `daemon` is written once in `init` and
/// read by `stop`; the handler runs on the daemon's thread only; `open` is an Atomic.
final class MicroHTTPDaemon: @unchecked Sendable {
    /// One connection, for a streamed body to suspend, resume or cut.
    struct Connection: @unchecked Sendable {
        // Invariant: valid from the request until the body's `finished`; the callers keep to it.
        let raw: OpaquePointer
        let library: Library

        /// Takes the connection out of the daemon's loop (`MHD_suspend_connection`); only from
        /// inside `StreamBody.read`.
        func suspend() { library.suspend(raw) }
        /// Puts a suspended connection back (`MHD_resume_connection`), from any thread.
        func resume() { library.resume(raw) }
        /// Shrinks the socket's send buffer (`setsockopt(SO_SNDBUF)`), so that a client that
        /// stops reading shows as behind after seconds, not after the kernel's megabytes.
        func limitSendBuffer(_ bytes: Int32) {
            let fd = CMicroHTTPD_connection_fd(library.getConnectionInfo, raw)
            var size = bytes
            if fd >= 0 { setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        }
        /// Cuts the connection (`shutdown(2)` on its socket): the daemon then sees it fail
        /// and closes it, even while its send buffer is full.
        func cut() {
            let fd = CMicroHTTPD_connection_fd(library.getConnectionInfo, raw)
            if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    struct Request {
        let method: String
        /// The path without its query.
        let path: String
        let connection: Connection
        /// The daemon's open connections when the request came, this one included.
        let openConnections: Int

        /// A query argument (`MHD_lookup_connection_value`, GET arguments).
        func argument(_ name: String) -> String? {
            connection.library.lookup(connection.raw, CMicroHTTPD_GET_ARGUMENT_KIND, name).map { String(cString: $0) }
        }
    }

    /// What a streamed body's `read` did.
    enum StreamRead {
        case bytes(Int)
        /// Nothing to send now; the body suspended the connection and will resume it.
        case suspended
        case end
        case error
    }

    /// A body of unknown length, read on the daemon's thread.
    protocol StreamBody: AnyObject {
        func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead
        /// The response is done with (the connection closed or finished): no more calls.
        func finished()
    }

    enum Body {
        case bytes([UInt8])
        case stream(any StreamBody)
    }

    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: Body
    }

    /// libmicrohttpd's functions, looked up once per process (`dlopen`, `dlsym`) by the first
    /// daemon to start. Immutable once built.
    final class Library: @unchecked Sendable {
        let startDaemon: UnsafeMutableRawPointer
        let getConnectionInfo: UnsafeMutableRawPointer
        let setConnectionOption: UnsafeMutableRawPointer
        let stopDaemon: CMicroHTTPD_stop_daemon_function
        let suspend: CMicroHTTPD_suspend_connection_function
        let resume: CMicroHTTPD_resume_connection_function
        let lookup: CMicroHTTPD_lookup_connection_value_function
        let responseFromBuffer: CMicroHTTPD_create_response_from_buffer_function
        let responseFromCallback: CMicroHTTPD_create_response_from_callback_function
        let addHeader: CMicroHTTPD_add_response_header_function
        let queue: CMicroHTTPD_queue_response_function
        let destroy: CMicroHTTPD_destroy_response_function

        /// The library, or why it could not be loaded (`dlerror`, or the function missing).
        static let loaded: Result<Library, RuntimeLibrary.LoadFailure> = Result { () throws(RuntimeLibrary.LoadFailure) in
            try Library()
        }

        private init() throws(RuntimeLibrary.LoadFailure) {
            let lib = try RuntimeLibrary("libmicrohttpd.so.12")
            startDaemon = try lib.function("MHD_start_daemon")
            getConnectionInfo = try lib.function("MHD_get_connection_info")
            setConnectionOption = try lib.function("MHD_set_connection_option")
            stopDaemon = try lib.function("MHD_stop_daemon")
            suspend = try lib.function("MHD_suspend_connection")
            resume = try lib.function("MHD_resume_connection")
            lookup = try lib.function("MHD_lookup_connection_value")
            responseFromBuffer = try lib.function("MHD_create_response_from_buffer")
            responseFromCallback = try lib.function("MHD_create_response_from_callback")
            addHeader = try lib.function("MHD_add_response_header")
            queue = try lib.function("MHD_queue_response")
            destroy = try lib.function("MHD_destroy_response")
        }
    }

    private let library: Library
    private var daemon: OpaquePointer?
    private let handler: (Request) -> Response
    /// A connection's timeout once its request arrived (seconds).
    private let idleTimeout: UInt32
    /// Connections open now (from `CMicroHTTPD_CONNECTION_NOTIFY_STARTED` / `_CLOSED`).
    private let open = Atomic<Int>(0)
    var openConnections: Int { open.load(ordering: .acquiring) }

    /// Starts serving on `socket`. `connectionLimit` connections at most are accepted
    /// (`MHD_OPTION_CONNECTION_LIMIT`), `perAddressLimit` from one client address
    /// (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`; the next is closed at once). A new connection
    /// whose request headers have not all arrived within `headerTimeoutSeconds` is closed
    /// (`MHD_OPTION_CONNECTION_TIMEOUT`); once a request arrived, the connection may stay
    /// silent for `idleTimeoutSeconds` (its own timeout, `MHD_set_connection_option`).
    init(socket: ListeningSocket, connectionLimit: Int, perAddressLimit: Int, headerTimeoutSeconds: Int,
         idleTimeoutSeconds: Int, handler: @escaping (Request) -> Response) throws(ListeningSocket.Failure) {
        switch Library.loaded {
        case .success(let l): library = l
        case .failure(let f):
            throw ListeningSocket.Failure(host: socket.host, port: socket.port,
                                          reason: "libmicrohttpd could not be loaded (\(f.reason))")
        }
        self.handler = handler
        idleTimeout = UInt32(idleTimeoutSeconds)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let d = CMicroHTTPD_start(library.startDaemon, CMicroHTTPD_DAEMON_FLAGS, socket.take(), { cls, connection, url, method, _, _, _, _ in
            let me = Unmanaged<MicroHTTPDaemon>.fromOpaque(cls!).takeUnretainedValue()
            guard let connection, let url, let method else { return CMicroHTTPD_NO }
            _ = CMicroHTTPD_set_timeout(me.library.setConnectionOption, connection, me.idleTimeout)
            let request = Request(method: String(cString: method), path: String(cString: url),
                                  connection: Connection(raw: connection, library: me.library),
                                  openConnections: me.openConnections)
            return me.queue(me.handler(request), on: connection)
        }, me, { cls, _, _, code in
            let me = Unmanaged<MicroHTTPDaemon>.fromOpaque(cls!).takeUnretainedValue()
            me.open.add(code == CMicroHTTPD_CONNECTION_NOTIFY_STARTED ? 1 : -1, ordering: .acquiringAndReleasing)
        }, me, UInt32(connectionLimit), UInt32(perAddressLimit), UInt32(headerTimeoutSeconds))
        guard let d else {
            throw ListeningSocket.Failure(host: socket.host, port: socket.port, reason: "the HTTP daemon did not start")
        }
        daemon = d
    }

    /// Stops serving and closes every connection (`MHD_stop_daemon`); streamed bodies must
    /// have resumed their connections first.
    func stop() {
        if let d = daemon { library.stopDaemon(d) }
        daemon = nil
    }

    private func queue(_ r: Response, on connection: OpaquePointer) -> MHD_Result {
        let response: OpaquePointer?
        switch r.body {
        case .bytes(let bytes):
            response = bytes.withUnsafeBytes { b in
                library.responseFromBuffer(b.count, UnsafeMutableRawPointer(mutating: b.baseAddress), CMicroHTTPD_RESPMEM_MUST_COPY)
            }
        case .stream(let body):
            let box = Unmanaged.passRetained(body as AnyObject).toOpaque()
            response = library.responseFromCallback(CMicroHTTPD_SIZE_UNKNOWN, 16 * 1024, { cls, _, buf, max in
                let body = Unmanaged<AnyObject>.fromOpaque(cls!).takeUnretainedValue() as! any StreamBody
                switch body.read(into: UnsafeMutableRawBufferPointer(start: buf, count: max)) {
                case .bytes(let n): return n
                case .suspended: return 0
                case .end: return CMicroHTTPD_CONTENT_READER_END_OF_STREAM
                case .error: return CMicroHTTPD_CONTENT_READER_END_WITH_ERROR
                }
            }, box, { cls in
                let body = Unmanaged<AnyObject>.fromOpaque(cls!).takeRetainedValue() as! any StreamBody
                body.finished()
            })
            if response == nil { Unmanaged<AnyObject>.fromOpaque(box).release() }
        }
        guard let response else { return CMicroHTTPD_NO }
        defer { library.destroy(response) }
        for (name, value) in r.headers { _ = library.addHeader(response, name, value) }
        return library.queue(connection, UInt32(r.status), response)
    }
}
