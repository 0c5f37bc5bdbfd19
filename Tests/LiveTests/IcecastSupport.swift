import Foundation
import Glibc
import TestSupport

/// A private Icecast server (Debian icecast2) for the `--url` tests: its own config on a free
/// localhost port, its own log directory, running as the package's icecast2 user (Icecast
/// refuses to run as root), a mount that needs a listener password, and sources fed by ffmpeg
/// in real time with a known tone.
final class IcecastServer: @unchecked Sendable {
    let dir: String
    let port: Int
    let process: Subprocess
    static let sourcePassword = "src-pw-91"
    static let listener = "listener"
    static let listenerPassword = "lsn-S3cret-pw"

    /// Starts the server and waits until it accepts connections.
    init() throws {
        dir = try Live.tempDir("ice")
        port = try Self.freePort()
        let log = dir + "/log"
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: true)
        // Debian's icecast2 user must own what it writes once it has dropped root.
        let md5 = try run(["/bin/sh", "-c", "printf %s \"$0\" | md5sum", Self.listenerPassword])
        let digest = String(md5.stdout.prefix(32))
        try "\(Self.listener):\(digest)\n".write(toFile: dir + "/users", atomically: true, encoding: .utf8)
        let owned = try run(["/bin/chown", "-R", "icecast2:icecast", dir])
        guard owned.status == 0 else { throw LiveSetupError("chown icecast2 failed (needs root and Debian's icecast2): \(owned.stderr)") }
        _ = chmod(dir, 0o755)
        let config = """
        <icecast>
          <location>pulsemeter tests</location><admin>test@localhost</admin>
          <limits><clients>32</clients><sources>4</sources><source-timeout>5</source-timeout><burst-size>65536</burst-size></limits>
          <authentication>
            <source-password>\(Self.sourcePassword)</source-password>
            <admin-user>admin</admin-user><admin-password>admin-pw-91</admin-password>
          </authentication>
          <hostname>127.0.0.1</hostname>
          <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
          <mount><mount-name>/locked.mp3</mount-name>
            <authentication type="htpasswd"><option name="filename" value="\(dir)/users"/><option name="allow_duplicate_users" value="1"/></authentication>
          </mount>
          <fileserve>0</fileserve>
          <paths><logdir>\(log)</logdir><webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
          <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
          <security><chroot>0</chroot><changeowner><user>icecast2</user><group>icecast</group></changeowner></security>
        </icecast>
        """
        try config.write(toFile: dir + "/icecast.xml", atomically: true, encoding: .utf8)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/icecast2") else {
            throw LiveSetupError("/usr/bin/icecast2 is missing; scripts/setup installs Debian's icecast2")
        }
        process = try Subprocess(["/usr/bin/icecast2", "-c", dir + "/icecast.xml"])
        guard Wait.until(timeout: 15, interval: 0.02, { Self.accepts(port) || !process.isRunning }), Self.accepts(port) else {
            let errors = (try? String(contentsOfFile: log + "/error.log", encoding: .utf8)) ?? ""
            process.kill()
            throw LiveSetupError("icecast2 did not start on port \(port): \(process.stderrText) \(errors.suffix(500))")
        }
    }

    deinit {
        process.kill()
        Live.removeTree(dir)
    }

    /// The address of `mount`, with the listener's credentials when `credentials`.
    func url(_ mount: String, credentials: Bool = false) -> String {
        "http://" + (credentials ? "\(Self.listener):\(Self.listenerPassword)@" : "") + "127.0.0.1:\(port)" + mount
    }

    /// ffmpeg playing a stereo 1 kHz sine of peak `amplitude` at 48 kHz into `mount` as MP3,
    /// in real time (`-re`); kill it to take the source away.
    func feed(_ mount: String, amplitude: Double) throws -> Subprocess {
        let tone = "\(amplitude)*sin(2*PI*1000*t)"
        return try Subprocess(["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i",
                               "aevalsrc=\(tone)|\(tone):s=48000", "-c:a", "libmp3lame", "-b:a", "192k",
                               "-content_type", "audio/mpeg", "-f", "mp3",
                               "icecast://source:\(Self.sourcePassword)@127.0.0.1:\(port)\(mount)"])
    }

    /// Waits until a source has logged in at `mount` `count` times in all (the error log says
    /// so as the server takes it).
    func waitForSource(_ mount: String, count: Int = 1, timeout: Double = 30) -> Bool {
        Wait.until(timeout: timeout) {
            let log = (try? String(contentsOfFile: dir + "/log/error.log", encoding: .utf8)) ?? ""
            return log.components(separatedBy: "Source logging in at mountpoint \"\(mount)\"").count - 1 >= count
        }
    }

    /// Whether the server still runs and accepts, and the end of its error log, for a failure's
    /// message (CI81: the source was refused a connection after the server had accepted the
    /// readiness check; its log ended at its start).
    var logTail: String {
        let state = process.exitStatus().map { "icecast2 exited (\($0)): \(process.stderrText.suffix(300))" }
            ?? "icecast2 runs, port \(port) \(Self.accepts(port) ? "accepts" : "refuses")"
        return state + "; " + String(((try? String(contentsOfFile: dir + "/log/error.log", encoding: .utf8)) ?? "").suffix(800))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        // A port in the ephemeral range that nothing listens on yet can still "accept": when the
        // kernel picks that very port as the probe's own, the socket connects to itself (TCP's
        // simultaneous open). Such a probe says nothing about the server.
        var mine = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &mine) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) == 0 }
        }
        return connected && named && Int(UInt16(bigEndian: mine.sin_port)) != port
    }

    /// A localhost TCP port nothing listens on now (bound to port 0, then released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LiveSetupError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw LiveSetupError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
