import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

// Support for the live tests: a private server (PulseAudio from scripts/pulse-private, or
// PipeWire's pulse server from scripts/pipewire-private), the pulsemeter binary run as a
// subprocess, a feeder of known audio, deterministic test signals, and independent readers of
// the recorded files (sox, Python's wave module).
//
// HOW TO WRITE A LIVE TEST THAT PASSES ON BOTH SERVERS
// scripts/test runs every live test twice: against PulseAudio and against PipeWire
// (PULSEMETER_TEST_SERVER=pulseaudio|pipewire; `Live.kind` says which). So:
// - Get the server with `try Live.server()` (or `try PulseServer.startPrivate()` for a test
//   that kills or restarts it; `kill9()` is the pulse server dying, `restart()` it coming back
//   with its devices, `restartWithoutDevices()` + `loadDevices()` it coming back without them).
// - Capture known audio from `server.feedSource` (never the literal "pipesrc") and feed it with
//   `server.startFeeding(samples, speed:)` / `server.stopFeeding(feeder)`. On PulseAudio the feed
//   is the pipe source: what you write reaches the stream bit for bit from its first frame, and
//   it comes as fast as you write. On PipeWire it is a null sink "feed" played by pacat and
//   captured from its monitor "feed.monitor": bit for bit too, but at real time, after some
//   zero frames (the stream starts before the feed, and may start with 256 zero frames), and
//   followed by zeros once the feed ends.
// - So never assume the fed signal starts at frame 0 or ends the recording: check recorded
//   samples with `fedAudioProblem(recorded, [input], server:, complete:)` (nil when right:
//   exactly the input on PulseAudio; zeros, the input, zeros on PipeWire), and give --duration
//   room with `server.feedDuration(frames:)` (the input's length on PulseAudio, 3 s more on
//   PipeWire). Compare live frames with `analyze` of the recorded file, not of the input.
// - Count-exact assertions (end pos == fed frames) hold only when `server.alignedFeed`.
// - Expectations that are positions (split boundaries, take spans, event positions) are the
//   capture's: on PipeWire shift those of the input by its offset in the capture (found from
//   its first frame that is not silence), as SplitAndTriggerTests does. Every live test runs
//   on both servers.
// - Do not time anything tighter than real time: PipeWire plays the feed at 1x whatever
//   `speed` says.
// - vsink (the default sink) and vsink.monitor exist on both; the default source is
//   vsink.monitor on PulseAudio and a silent virtual source "vsrc" on PipeWire.

/// A test environment problem (no server, no binary, a tool failed): the test fails with it.
struct LiveSetupError: Error, CustomStringConvertible, Sendable {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Which server the live tests run against.
enum ServerKind: String, Sendable {
    case pulseaudio, pipewire
}

enum Live {
    static let rate = 48000
    static let channels = 2

    /// How much the test players (pacat) buffer: a quarter of a second. With 30 ms they
    /// underran on a loaded machine and the sinks played silence, which the meter rightly read
    /// as a lower level (by hand, beside three builds: frames 0.3 to 1.5 dB low in 4 of 9 runs
    /// with 30 ms, none in 18 with 250 or 1000 ms; a fresh-clone run beside three builds
    /// recorded a tone 0.5 dB low). The audio starts as soon: pacat fills the buffer at once.
    static let playerLatencyMs = 250

    /// PULSEMETER_TEST_SERVER=pipewire runs the live tests against PipeWire's pulse server;
    /// anything else (or unset) against PulseAudio.
    static let kind: ServerKind = ProcessInfo.processInfo.environment["PULSEMETER_TEST_SERVER"] == "pipewire"
        ? .pipewire : .pulseaudio

    /// The package root, from this file's path (Tests/LiveTests/LiveSupport.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func script(_ kind: ServerKind) -> String {
        packageRoot.appendingPathComponent(kind == .pipewire ? "scripts/pipewire-private" : "scripts/pulse-private").path
    }

    /// The pulsemeter executable: $PULSEMETER_BIN, else next to the test bundle in the products
    /// directory (whatever --build-path is), else .build/debug/pulsemeter.
    static let binary: Result<String, LiveSetupError> = {
        var candidates: [String] = []
        if let b = ProcessInfo.processInfo.environment["PULSEMETER_BIN"], !b.isEmpty { candidates.append(b) }
        var exe = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &exe, Int(PATH_MAX))
        var testExecutables: [String] = []
        if n > 0 { testExecutables.append(String(decoding: exe[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        testExecutables.append(Bundle.main.bundlePath)
        if let first = CommandLine.arguments.first { testExecutables.append(first) }
        for path in testExecutables {
            // The runner is …/debug/pulsemeterPackageTests.xctest (a file on Linux, a bundle
            // elsewhere); walk up a few levels looking for a sibling `pulsemeter`.
            var dir = URL(fileURLWithPath: path).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(dir.appendingPathComponent("pulsemeter").path)
                dir = dir.deletingLastPathComponent()
            }
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/pulsemeter").path)
        for c in candidates where FileManager.default.isExecutableFile(atPath: c) {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: c, isDirectory: &isDir), !isDir.boolValue { return .success(c) }
        }
        return .failure(LiveSetupError("the pulsemeter binary was not found (looked in \(candidates)); build it with swift build"))
    }()

    static func bin() throws -> String { try binary.get() }

    /// A tone at `db` is what `levels` (per-frame rms dB) heard: the median frame within `within`
    /// dB of it and at most `louder` frames more than `within` above it (another tone). A player
    /// on a fresh null sink may stutter on a loaded machine, and a stutter only makes a frame
    /// quieter, so the quiet side is left free.
    static func heardAt(_ db: Double, _ levels: [Double], within: Double, louder: Int = 0) -> Bool {
        guard !levels.isEmpty else { return false }
        let median = levels.sorted()[levels.count / 2]
        return abs(median - db) < within && levels.filter { $0 > db + within }.count <= louder
    }

    /// Waits (10 s at most) until each monitor carries its tone: a 0.2 s run of `monitor` on
    /// them all ends, and each one's last frame reads its rms within `within` dB of its tone's
    /// (a player takes a moment to start, and PipeWire a moment more to link it). The last
    /// frame, not the end line: a PipeWire monitor stream starts with some 20 ms of silence,
    /// which puts the whole run's rms 0.3-0.5 dB under the tone's most times.
    static func waitForTones(_ tones: [(device: String, db: Double)], within: Double = 0.1, server: PulseServer) throws {
        let args = ["monitor"] + tones.flatMap { ["-d", $0.device] } + ["-f", "ndjson", "--duration", "0.2"]
        let heard = try Wait.until(timeout: 10) {
            let p = try pulsemeter(args, server: server)
            let lines = try parseLines(p.readToEnd(timeout: 10))
            _ = p.wait(timeout: 5)
            return lines.filter { $0.type == "end" }.count == tones.count && tones.indices.allSatisfy { k in
                let last = lines.last { $0.type == "frame" && ($0.int("stream") ?? 0) == k }
                return abs((last?.doubles("rms_db")?.first ?? -999) - tones[k].db) < within
            }
        }
        if !heard { throw LiveSetupError("the tones did not reach \(tones.map(\.device)) within 10 s") }
    }

    // MARK: servers

    /// The server shared by the serialized suite: the one scripts/test started
    /// (PULSE_SERVER + PULSEMETER_TEST_PULSE_DIR), else our own, stopped when the process exits.
    static let shared: Result<PulseServer, LiveSetupError> = {
        let env = ProcessInfo.processInfo.environment
        if let address = env["PULSE_SERVER"], let dir = env["PULSEMETER_TEST_PULSE_DIR"],
           !address.isEmpty, !dir.isEmpty {
            let server = PulseServer(kind: kind, dir: dir, address: address, owned: false)
            let marker = kind == .pipewire ? dir + "/pipewire-pulse.pid" : server.fifo
            guard FileManager.default.fileExists(atPath: marker) else {
                return .failure(LiveSetupError("PULSEMETER_TEST_PULSE_DIR=\(dir) has no \(marker); start the server with \(script(kind))"))
            }
            return .success(server)
        }
        do {
            let server = try PulseServer.startPrivate()
            ownedSharedDir.withLock { $0 = server.dir }
            atexit { Live.stopOwnedShared() }
            return .success(server)
        } catch let e as LiveSetupError {
            return .failure(e)
        } catch {
            return .failure(LiveSetupError("\(error)"))
        }
    }()

    static let ownedSharedDir = Mutex<String?>(nil)

    /// At exit: stop our own shared daemons with plain syscalls (no subprocess machinery while
    /// the process is exiting) and remove its directory. The watchdog would do it anyway.
    static func stopOwnedShared() {
        guard let dir = ownedSharedDir.withLock({ d -> String? in defer { d = nil }; return d }) else { return }
        for pid in PulseServer(kind: kind, dir: dir, address: "", owned: true).allPids {
            Glibc.kill(pid, SIGTERM)
            // Gone, or killed outright: at exit nothing is left to report to.
            if !Wait.until(timeout: 3, interval: 0.02, { !processRuns(pid) }) { Glibc.kill(pid, SIGKILL) }
        }
        removeTree(dir)
    }

    /// The shared server; the test fails (never skips) when there is none.
    static func server() throws -> PulseServer {
        let server = try shared.get()
        try server.checkAlive()
        return server
    }

    // MARK: scratch

    /// A fresh temporary directory (mkdtemp), short enough for a socket path.
    static func tempDir(_ tag: String) throws -> String {
        var template = Array("/tmp/pm-live-\(tag)-XXXXXX".utf8CString)
        guard let p = mkdtemp(&template) else { throw LiveSetupError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        return String(cString: p)
    }

    static func removeTree(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    /// Mounts a tmpfs of `options` (e.g. "size=512k", "ro,size=64k") on `dir`, for the tests of
    /// a full or read-only disk (needs root; CI runs as root). Pair with `unmount`.
    static func mountTmpfs(_ dir: String, _ options: String) throws {
        let mount = try run(["/bin/mount", "-t", "tmpfs", "-o", options, "tmpfs", dir])
        guard mount.status == 0 else {
            throw LiveSetupError("cannot mount a tmpfs (\(options)) on \(dir) (needs root): \(mount.stderr)")
        }
    }

    /// Unmounts what `mountTmpfs` mounted (lazily: a process may still hold a file there).
    static func unmount(_ dir: String) { _ = try? run(["/bin/umount", "-l", dir]) }
}

// MARK: - the private server

/// A private server from scripts/pulse-private (PulseAudio) or scripts/pipewire-private
/// (PipeWire's pulse server): null sink `vsink` (the default sink) and a feed source
/// (`feedSource`) that carries what `startFeeding` plays.
final class PulseServer: Sendable {
    let kind: ServerKind
    let dir: String
    let address: String
    let owned: Bool
    /// PulseAudio's pipe source FIFO (PulseAudio only).
    var fifo: String { dir + "/src.fifo" }
    var script: String { Live.script(kind) }

    /// The source that carries the fed audio: the pipe source, or the feed sink's monitor.
    var feedSource: String { kind == .pipewire ? "feed.monitor" : "pipesrc" }
    /// True when the fed audio reaches a record stream from its first frame with nothing
    /// before or after it, and as fast as it is written (PulseAudio's pipe source).
    var alignedFeed: Bool { kind == .pulseaudio }

    /// A --duration in frames that holds `frames` fed frames: exactly that on PulseAudio,
    /// `slack` seconds more on PipeWire (the feed starts after the stream, at real time, once
    /// pacat has connected: on a loaded CI machine that once took 2.0 s).
    func feedDuration(frames: Int, slack: Int = 3) -> Int { alignedFeed ? frames : frames + slack * Live.rate }

    /// The same, as the --duration argument in seconds.
    func feedDurationArgument(frames: Int, slack: Int = 3) -> String {
        String(Double(feedDuration(frames: frames, slack: slack)) / Double(Live.rate))
    }

    init(kind: ServerKind = Live.kind, dir: String, address: String, owned: Bool) {
        self.kind = kind
        self.dir = dir
        self.address = address
        self.owned = owned
    }

    /// Starts a server of our own (of `Live.kind`) in a new directory; a watchdog stops it and
    /// removes the directory if this process dies without doing so.
    static func startPrivate() throws -> PulseServer {
        let kind = Live.kind
        let dir = try Live.tempDir(kind == .pipewire ? "pw" : "pa")
        let result = try run([Live.script(kind), "start", dir], timeout: 30)
        let address = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, address.hasPrefix("unix:") else {
            _ = try? run([Live.script(kind), "stop", dir], timeout: 15)
            Live.removeTree(dir)
            throw LiveSetupError("\(Live.script(kind)) start failed (status \(result.status)): \(result.stderr)")
        }
        startWatchdog(script: Live.script(kind), dir: dir)
        return PulseServer(kind: kind, dir: dir, address: address, owned: true)
    }

    private static func startWatchdog(script: String, dir: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "while kill -0 \"$0\" 2>/dev/null; do sleep 1; done; \"$1\" stop \"$2\"; rm -rf \"$2\"",
                       String(getpid()), script, dir]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try? runWithCleanSignalMask(p)
    }

    /// Starts playing `samples` (interleaved stereo s16 at 48 kHz) into the feed source, at
    /// `speed` x real time (nil: as fast as it is taken; PipeWire takes it at 1x). Pair with
    /// `stopFeeding`.
    func startFeeding(_ samples: [Int16], speed: Double?) -> FifoFeeder {
        if kind == .pulseaudio {
            let feeder = FifoFeeder(path: fifo, samples: samples, speed: speed)
            feeder.start()
            return feeder
        }
        // pacat plays its stdin (a pipe we write like the FIFO) into the null sink "feed".
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            return FifoFeeder(failed: "pipe: \(String(cString: strerror(errno)))", samples: samples)
        }
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        do {
            let player = try Subprocess(["pacat", "--playback", "-d", "feed", "--raw", "--format=s16le",
                                         "--rate=48000", "--channels=2", "--latency-msec=200",
                                         "--client-name=pulsemeter-test-feed"],
                                        env: ["PULSE_SERVER": address], stdin: fds[0])
            close(fds[0])
            // pacat takes the audio at real time: pacing the writes too would only risk underruns.
            let feeder = FifoFeeder(fd: fds[1], samples: samples, speed: nil, player: player)
            feeder.start()
            return feeder
        } catch {
            close(fds[0])
            close(fds[1])
            return FifoFeeder(failed: "cannot start pacat: \(error)", samples: samples)
        }
    }

    /// Stops the feeder and, on PulseAudio, empties the FIFO, so nothing stale reaches the
    /// next test.
    func stopFeeding(_ feeder: FifoFeeder) {
        feeder.stopAndJoin()
        if kind == .pulseaudio { Fifo.drain(fifo) }
    }

    /// Nothing left over from an earlier test reaches the next stream (the FIFO emptied).
    @discardableResult
    func drainFeed() -> Int { kind == .pulseaudio ? Fifo.drain(fifo) : 0 }

    /// Fails when the server does not answer (`pactl info`).
    func checkAlive() throws {
        let r = try run(["pactl", "info"], env: ["PULSE_SERVER": address], timeout: 10)
        guard r.status == 0 else {
            throw LiveSetupError("the test server \(address) does not answer: \(r.stderr)")
        }
    }

    /// The server's record streams, each as the name of its source and that source's state
    /// (`pactl list source-outputs short`, `pactl list sources short`): where a run's stream
    /// is, for a wait and for a failure's message.
    func recordStreams() -> [(source: String, state: String)] {
        func rows(_ what: String) -> [[Substring]] {
            guard let r = try? run(["pactl", "list", what, "short"], env: environment, timeout: 10), r.status == 0 else { return [] }
            return r.stdout.split(separator: "\n").map { $0.split(separator: "\t") }
        }
        var sources: [Substring: (name: String, state: String)] = [:]
        for f in rows("sources") where f.count >= 5 { sources[f[0]] = (String(f[1]), String(f[4])) }
        return rows("source-outputs").compactMap { f in
            guard f.count >= 2 else { return nil }
            return sources[f[1]] ?? ("source #\(f[1])", "?")
        }
    }

    /// True when a record stream is on the feed source and the source runs: fed audio reaches it.
    var feedIsRecorded: Bool { recordStreams().contains { $0.source == feedSource && $0.state == "RUNNING" } }

    private func pid(_ file: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: dir + "/" + file, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return pid
    }

    /// The pulse server's process: the PulseAudio daemon or pipewire-pulse.
    var daemonPid: pid_t? { pid(kind == .pipewire ? "pipewire-pulse.pid" : "pid") }

    /// Every process of the stack, the pulse server first.
    var allPids: [pid_t] {
        let files = kind == .pipewire ? ["pipewire-pulse.pid", "wireplumber.pid", "pipewire.pid", "dbus.pid"] : ["pid"]
        return files.compactMap(pid)
    }

    /// Kills the pulse server (the PulseAudio daemon, or pipewire-pulse) with SIGKILL (the
    /// server "dies") and waits until it is gone.
    func kill9() throws {
        guard owned else { throw LiveSetupError("refusing to kill a server this test did not start") }
        guard let pid = daemonPid else { throw LiveSetupError("no pid file in \(dir)") }
        Glibc.kill(pid, SIGKILL)
        guard Wait.until(timeout: 5, interval: 0.01, { !processRuns(pid) }) else {
            throw LiveSetupError("the server \(pid) still runs 5 s after SIGKILL")
        }
    }

    /// Starts the pulse server again in the same directory (same socket path) with its devices.
    func restart() throws {
        try restartWithoutDevices()
        try loadDevices()
    }

    /// Starts the pulse server again without the test devices (they come with `loadDevices`).
    func restartWithoutDevices() throws {
        let r = try run([script, "start-server", dir], timeout: 30)
        guard r.status == 0 else { throw LiveSetupError("restarting the server failed: \(r.stderr)") }
    }

    /// Loads the test devices (vsink, the feed source) into the running server.
    func loadDevices() throws {
        let r = try run([script, "load-devices", dir], timeout: 30)
        guard r.status == 0 else { throw LiveSetupError("loading the test devices failed: \(r.stderr)") }
    }

    /// Stops the session manager (WirePlumber; PipeWire only, PulseAudio has none).
    func stopSessionManager() throws {
        guard kind == .pipewire else { return }
        let r = try run([script, "stop-session-manager", dir], timeout: 20)
        guard r.status == 0 else { throw LiveSetupError("stopping WirePlumber failed: \(r.stderr)") }
    }

    /// Stops the stack (the script's stop) and, for our own, removes its directory.
    func stop() {
        _ = try? run([script, "stop", dir], timeout: 20)
        if owned { Live.removeTree(dir) }
    }

    var environment: [String: String] { ["PULSE_SERVER": address] }

    /// Plays `samples` (interleaved s16le) into `sink` with pacat (`Live.playerLatencyMs`), from a raw
    /// file written in `dir`; kill the player when done.
    func play(_ samples: [Int16], into sink: String = "vsink", rate: Int = Live.rate, channels: Int = Live.channels,
              dir: String) throws -> Subprocess {
        let file = dir + "/play-\(sink).raw"
        try writeRaw(samples, to: file)
        return try Subprocess(["pacat", "--latency-msec=\(Live.playerLatencyMs)", "--raw", "--rate=\(rate)", "--channels=\(channels)",
                               "--format=s16le", "-d", sink, file], env: environment)
    }

    /// What a tmux pane runs: pulsemeter `args` against this server in a UTF-8 locale with
    /// colour allowed (`env` goes before the binary, e.g. "NO_COLOR=1 "), its exit status
    /// written to `status`, then the pane stays open for the screen to be read.
    func paneCommand(_ args: String, status: String, env: String = "") throws -> String {
        "env -u NO_COLOR -u LC_ALL -u LC_CTYPE PULSE_SERVER='\(address)' LANG=C.UTF-8 \(env)'\(try Live.bin())' "
            + args + "; echo $? > '\(status)'; exec sleep 600"
    }
}

// MARK: - subprocesses

/// True while `pid` runs; a zombie (dead, waiting for its parent or a slow init to reap it)
/// does not count.
func processRuns(_ pid: pid_t) -> Bool {
    guard Glibc.kill(pid, 0) == 0 else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Starts `process` the way a shell would: with no signals blocked. Foundation's Process
/// (posix_spawn on the calling thread) passes on the calling thread's signal mask, and the
/// test runner's worker threads block SIGINT, SIGTERM, SIGCHLD and more; a child started with
/// those blocked would never see SIGTERM or Ctrl-C (and tmux's server would hang).
func runWithCleanSignalMask(_ process: Process) throws {
    var none = sigset_t()
    sigemptyset(&none)
    var old = sigset_t()
    pthread_sigmask(SIG_SETMASK, &none, &old)
    defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
    try process.run()
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a command to completion (PATH lookup through /usr/bin/env), with a time limit.
@discardableResult
func run(_ args: [String], env: [String: String] = [:], timeout: Double = 30) throws -> RunResult {
    let p = try Subprocess(args, env: env)
    let out = p.readToEnd(timeout: timeout)
    guard let status = p.wait(timeout: max(1, timeout - (monotonic() - p.started))) else {
        p.kill()
        throw LiveSetupError("\(args.joined(separator: " ")) did not finish within \(timeout) s")
    }
    return RunResult(status: status, stdout: out.map { $0 + "\n" }.joined(), stderr: p.stderrText)
}

/// A child process with its stdout read line by line on demand (so a test can stop reading,
/// like a stalled consumer) and its stderr collected in the background.
final class Subprocess: @unchecked Sendable {
    let process = Process()
    let started: Double
    private(set) var stdoutFD: Int32
    private var buffer: [UInt8] = []
    private var head = 0  // start of the unread part of `buffer`
    private(set) var sawEOF = false
    private let stderrBox = StderrBox()

    /// Filled by the stderr reader thread (which must not keep the Subprocess alive).
    private final class StderrBox: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
    }

    /// Starts `args` (args[0] looked up on PATH unless it is a path). `env` entries override
    /// this process's environment; a nil value removes the variable. `pipeSize` shrinks the
    /// stdout pipe (F_SETPIPE_SZ) so a stalled reader blocks the writer sooner.
    init(_ args: [String], env: [String: String?] = [:], pipeSize: Int32? = nil, stdin: Int32? = nil) throws {
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        if args[0].contains("/") {
            process.executableURL = URL(fileURLWithPath: args[0])
            process.arguments = Array(args.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = args
        }
        process.environment = environment
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        guard pipe(&out) == 0, pipe(&err) == 0 else {
            throw LiveSetupError("pipe: \(String(cString: strerror(errno)))")
        }
        // Our ends must not leak into other children (pipe2 is not exported to Swift here).
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        if let pipeSize { _ = fcntl(out[0], 1031 /* F_SETPIPE_SZ */, pipeSize) }
        process.standardInput = stdin.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.nullDevice
        process.standardOutput = FileHandle(fileDescriptor: out[1], closeOnDealloc: false)
        process.standardError = FileHandle(fileDescriptor: err[1], closeOnDealloc: false)
        started = monotonic()
        do {
            try runWithCleanSignalMask(process)
        } catch {
            for fd in out + err { close(fd) }
            throw LiveSetupError("cannot run \(args): \(error)")
        }
        close(out[1])
        close(err[1])
        stdoutFD = out[0]
        let errFD = err[0]
        let t = Thread { [stderrBox] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(errFD, $0.baseAddress, 4096) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                stderrBox.bytes.withLock { $0 += chunk[0..<n] }
            }
            close(errFD)
            stderrBox.done.signal()
        }
        t.start()
    }

    deinit {
        kill()
        if stdoutFD >= 0 { close(stdoutFD) }
    }

    var pid: pid_t { process.processIdentifier }
    var isRunning: Bool { exitStatus() == nil }

    /// The exit status (128+signal when killed by one), nil while it runs. Asks the kernel
    /// (waitid with WNOWAIT, leaving the reaping to Foundation) rather than Process.isRunning:
    /// Foundation learns of the exit through a socket the child inherits, which stays open
    /// while a grandchild that kept it (tmux's server) lives on.
    func exitStatus() -> Int32? {
        var info = siginfo_t()
        let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        if r == 0 && info.si_signo == SIGCHLD {
            let status = info._sifields._sigchld.si_status
            return info.si_code == CLD_EXITED ? status : 128 + status
        }
        if r != 0 && errno == ECHILD, !process.isRunning {  // already reaped by Foundation
            return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        }
        return nil
    }

    /// The next stdout line (without the newline); nil at end of file or after `timeout` s.
    func readLine(timeout: Double) -> String? {
        let deadline = monotonic() + timeout
        while true {
            if let nl = buffer[head...].firstIndex(of: 10) {
                let line = String(decoding: buffer[head..<nl], as: UTF8.self)
                head = nl + 1
                if head > 65536 {
                    buffer.removeSubrange(..<head)
                    head = 0
                }
                return line
            }
            if sawEOF || stdoutFD < 0 { return nil }
            let left = deadline - monotonic()
            if left <= 0 { return nil }
            var pfd = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, Int32(min(left, 1) * 1000) + 1)
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, 65536) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { sawEOF = true; continue }
            buffer += chunk[0..<n]
        }
    }

    /// Reads lines until one satisfies `predicate` (returned with everything before it).
    func readLines(until predicate: (String) -> Bool, timeout: Double) -> (lines: [String], matched: Bool) {
        let deadline = monotonic() + timeout
        var lines: [String] = []
        while let line = readLine(timeout: max(0, deadline - monotonic())) {
            lines.append(line)
            if predicate(line) { return (lines, true) }
        }
        return (lines, false)
    }

    /// Every remaining stdout line, until end of file or `timeout` s.
    func readToEnd(timeout: Double) -> [String] {
        let deadline = monotonic() + timeout
        var lines: [String] = []
        while let line = readLine(timeout: max(0, deadline - monotonic())) { lines.append(line) }
        if sawEOF, head < buffer.count {  // a last line without newline (a test will flag it)
            lines.append(String(decoding: buffer[head...], as: UTF8.self) + "<no newline>")
            buffer.removeAll()
            head = 0
        }
        return lines
    }

    /// Closes our end of stdout, as `head` does once it has enough.
    func closeStdout() {
        if stdoutFD >= 0 { close(stdoutFD) }
        stdoutFD = -1
    }

    func signal(_ sig: Int32) { Glibc.kill(pid, sig) }

    /// The exit status, or 128+signal when killed by one; nil if still running after `timeout` s.
    func wait(timeout: Double) -> Int32? {
        Wait.value(timeout: timeout, interval: 0.005, { exitStatus() }, until: { $0 != nil })
    }

    /// Kills the process (SIGKILL) if it still runs.
    func kill() {
        if isRunning {
            Glibc.kill(pid, SIGKILL)
            _ = wait(timeout: 5)
        }
    }

    /// Everything written on stderr (waits up to 2 s for it to be closed).
    var stderrText: String {
        if stderrBox.done.wait(timeout: .now() + 2) == .success { stderrBox.done.signal() }
        return stderrBox.bytes.withLock { String(decoding: $0, as: UTF8.self) }
    }
}

/// pulsemeter with the given arguments, talking to `server`.
func pulsemeter(_ args: [String], server: PulseServer?, env: [String: String?] = [:],
                pipeSize: Int32? = nil) throws -> Subprocess {
    var e: [String: String?] = ["PULSE_SERVER": server?.address, "NO_COLOR": nil]
    for (k, v) in env { e[k] = v }
    return try Subprocess([try Live.bin()] + args, env: e, pipeSize: pipeSize)
}

/// pulsemeter with arguments given as bytes (file names that are not UTF-8 cannot pass through
/// Foundation's Process): /bin/sh rebuilds each argument from octal escapes with printf.
func pulsemeter(rawArguments args: [[UInt8]], server: PulseServer?) throws -> Subprocess {
    var script = ""
    for (i, a) in args.enumerated() {
        script += "a\(i)=$(printf '%bx' '" + a.map { "\\0" + String($0, radix: 8) }.joined() + "'); a\(i)=${a\(i)%x}\n"
    }
    script += "exec \"$0\"" + args.indices.map { " \"$a\($0)\"" }.joined() + "\n"
    return try Subprocess(["/bin/sh", "-c", script, try Live.bin()], env: ["PULSE_SERVER": server?.address, "NO_COLOR": nil])
}

// MARK: - NDJSON

/// One parsed NDJSON line.
struct JSONLine: @unchecked Sendable {
    let raw: String
    let object: [String: Any]

    init(_ raw: String) throws {
        self.raw = raw
        guard let data = raw.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LiveSetupError("stdout line is not a JSON object: \(raw.prefix(300))")
        }
        object = obj
    }

    var type: String { object["type"] as? String ?? "" }
    func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
    func double(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
    func doubles(_ key: String) -> [Double]? { (object[key] as? [NSNumber])?.map(\.doubleValue) }
    func string(_ key: String) -> String? { object[key] as? String }
}

func parseLines(_ lines: [String]) throws -> [JSONLine] { try lines.map(JSONLine.init) }

// MARK: - signals and the FIFO

/// Deterministic stereo s16 test signals: per channel a sine plus noise, distinct per seed
/// and per channel, so a missing or doubled chunk cannot go unnoticed.
enum TestSignal {
    static func sample(seed: UInt64, frame: Int, channel: Int) -> Int16 {
        let f = [440.0, 1000.0][channel] + Double(seed % 17) * 31
        let amp = [9000.0, 6000.0][channel] * (1 + Double(seed % 3) * 0.25)
        var z = seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(frame * 2 + channel)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let noise = Double(Int64(z % 6001) - 3000)
        let v = amp * sin(2 * Double.pi * f * Double(frame) / Double(Live.rate)) + noise
        return Int16(max(-32768, min(32767, v.rounded())))
    }

    /// `frames` interleaved stereo frames starting at frame `start`.
    static func make(frames: Int, seed: UInt64, start: Int = 0) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            out[2 * i] = sample(seed: seed, frame: start + i, channel: 0)
            out[2 * i + 1] = sample(seed: seed, frame: start + i, channel: 1)
        }
        return out
    }
}

/// The pipe source's FIFO.
enum Fifo {
    /// Reads away anything left in the FIFO (the pipe source reads only while a record stream
    /// is connected, so a previous test's leftovers would otherwise reach the next recording).
    @discardableResult
    static func drain(_ path: String) -> Int {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
            if n <= 0 { break }
            total += n
        }
        return total
    }

    /// Bytes waiting in the FIFO (FIONREAD).
    static func pending(fd: Int32) -> Int {
        var n: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &n) == 0 ? Int(n) : 0
    }
}

/// Writes PCM into the pipe source's FIFO (PulseAudio) or a player's stdin pipe (pacat, on
/// PipeWire) on its own thread, at `speed` times real time (nil: as fast as it is taken), in
/// 10 ms chunks; stops early on `stop()`. When done it waits until the reader has taken
/// everything (and, with a player, until the player has played it and exited).
final class FifoFeeder: @unchecked Sendable {
    let path: String
    let samples: [Int16]
    let speed: Double?
    private let givenFD: Int32?
    private let player: Subprocess?
    private let stopFlag = Atomic<Bool>(false)
    private let written = Atomic<Int>(0)
    private let finished = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<String?>(nil)

    init(path: String, samples: [Int16], speed: Double?) {
        self.path = path
        self.samples = samples
        self.speed = speed
        givenFD = nil
        player = nil
    }

    /// Writes into `fd` (closed when done, so `player` sees the end and drains).
    init(fd: Int32, samples: [Int16], speed: Double?, player: Subprocess) {
        path = "pacat's stdin"
        self.samples = samples
        self.speed = speed
        givenFD = fd
        self.player = player
    }

    /// A feeder that could not start; `error` says why.
    init(failed: String, samples: [Int16]) {
        path = ""
        self.samples = samples
        speed = nil
        givenFD = nil
        player = nil
        failure.withLock { $0 = failed }
        done.signal()
    }

    /// Frames written into the FIFO so far.
    var framesWritten: Int { written.load(ordering: .acquiring) / 2 }
    var isFinished: Bool { finished.load(ordering: .acquiring) }
    var error: String? { failure.withLock { $0 } }

    func start() {
        let t = Thread { [self] in feed() }
        t.name = "fifo-feeder"
        t.start()
    }

    func stop() { stopFlag.store(true, ordering: .releasing) }

    /// True when the feeder finished (everything written and read by the server, and played
    /// by the player) in time.
    @discardableResult
    func wait(timeout: Double) -> Bool {
        let deadline = monotonic() + timeout
        let ok = done.wait(timeout: .now() + timeout) == .success
        if ok { done.signal() }
        if ok, let player {
            guard let status = player.wait(timeout: max(0, deadline - monotonic())), status == 0 else {
                failure.withLock { $0 = $0 ?? "pacat did not finish playing: \(player.stderrText)" }
                return false
            }
        }
        return ok && isFinished
    }

    /// Stops the feeder and waits for its thread to leave (a player is killed).
    func stopAndJoin() {
        stop()
        if done.wait(timeout: .now() + 5) == .success { done.signal() }
        player?.kill()
    }

    private func feed() {
        defer { done.signal() }
        if let givenFD { _ = fcntl(givenFD, F_SETFL, O_NONBLOCK) }
        let fd = givenFD ?? open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            failure.withLock { $0 = "cannot open \(path): \(String(cString: strerror(errno)))" }
            return
        }
        defer { close(fd) }
        let chunk = 480 * 2  // 10 ms of stereo
        let t0 = monotonic()
        var off = 0
        samples.withUnsafeBytes { raw in
            while off < samples.count && !stopFlag.load(ordering: .acquiring) {
                let n = min(chunk, samples.count - off)
                if let speed {
                    let due = t0 + Double(off / 2) / (Double(Live.rate) * speed)
                    let wait = due - monotonic()
                    Wait.pace(seconds: wait)  // pacing: the feed at `speed` is the input
                }
                var byte = off * 2
                let end = (off + n) * 2
                while byte < end && !stopFlag.load(ordering: .acquiring) {
                    var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    if poll(&pfd, 1, 50) <= 0 { continue }
                    let w = Glibc.write(fd, raw.baseAddress! + byte, end - byte)
                    if w > 0 {
                        byte += w
                        written.store(byte / 2, ordering: .releasing)
                    } else if w < 0 && errno != EAGAIN && errno != EINTR {
                        failure.withLock { $0 = "write to \(path): \(String(cString: strerror(errno)))" }
                        return
                    }
                }
                off = byte / 2
            }
        }
        // Let the pipe source take everything before calling it done.
        _ = Wait.until(timeout: .infinity, interval: 0.002) { stopFlag.load(ordering: .acquiring) || Fifo.pending(fd: fd) == 0 }  // no deadline: holds
        if off >= samples.count { finished.store(true, ordering: .releasing) }
    }
}

// MARK: - files

extension [Int16] {
    var bytes: [UInt8] { withUnsafeBytes { [UInt8]($0) } }
}

/// Writes interleaved s16le PCM to `path`.
func writeRaw(_ samples: [Int16], to path: String) throws {
    try Data(samples.bytes).write(to: URL(fileURLWithPath: path))
}

/// Writes interleaved stereo s16 as a WAV file with sox (independent of the code under test).
func writeWav(_ samples: [Int16], to path: String) throws {
    let raw = path + ".raw"
    try writeRaw(samples, to: raw)
    defer { unlink(raw) }
    let r = try run(["sox", "-t", "raw", "-r", "48000", "-e", "signed-integer", "-b", "16", "-c", "2", "-L", raw, path])
    guard r.status == 0 else { throw LiveSetupError("sox could not write \(path): \(r.stderr)") }
}

/// The file's samples as decoded by sox (s16, no dither).
func decodeWithSox(_ path: String) throws -> [Int16] {
    let out = path + ".sox.raw"
    defer { unlink(out) }
    let r = try run(["sox", "-V1", "-D", path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", out], timeout: 120)
    guard r.status == 0 else { throw LiveSetupError("sox cannot read \(path): \(r.stderr)") }
    let data = try Data(contentsOf: URL(fileURLWithPath: out))
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

/// What Python's `wave` module reads from a WAV file, and whether its sample bytes equal the
/// first frames of `expected` (written to a scratch file for the comparison).
struct PythonWave {
    var channels: Int
    var sampleWidth: Int
    var rate: Int
    var frames: Int
    var matchesExpectedPrefix: Bool
}

func readWithPythonWave(_ path: String, expected: [Int16]) throws -> PythonWave {
    let exp = path + ".expected.raw"
    try writeRaw(expected, to: exp)
    defer { unlink(exp) }
    let script = """
    import sys, wave
    w = wave.open(sys.argv[1], 'rb')
    n = w.getnframes()
    d = w.readframes(n)
    assert len(d) == n * w.getnchannels() * w.getsampwidth(), 'short data'
    e = open(sys.argv[2], 'rb').read()
    print(w.getnchannels(), w.getsampwidth(), w.getframerate(), n, int(e[:len(d)] == d and len(e) >= len(d)))
    """
    let r = try run(["python3", "-c", script, path, exp], timeout: 60)
    let f = r.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    guard r.status == 0, f.count == 5 else { throw LiveSetupError("Python's wave cannot read \(path): \(r.stderr)") }
    return PythonWave(channels: f[0], sampleWidth: f[1], rate: f[2], frames: f[3], matchesExpectedPrefix: f[4] == 1)
}

/// sox's idea of the frame count (`soxi -s`).
func soxFrames(_ path: String) throws -> Int {
    let r = try run(["soxi", "-s", path])
    guard r.status == 0, let n = Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw LiveSetupError("soxi cannot read \(path): \(r.stderr)")
    }
    return n
}

/// nil when `actual` equals `expected`; otherwise where and how they differ (short).
func sampleMismatch(_ actual: [Int16], _ expected: [Int16]) -> String? {
    if actual == expected { return nil }
    let n = Swift.min(actual.count, expected.count)
    var i = 0
    while i < n && actual[i] == expected[i] { i += 1 }
    let frame = i / 2
    if i == n {
        return "the first \(n / 2) frames agree, but the file has \(actual.count / 2) frames and the input \(expected.count / 2)"
    }
    // A shifted copy means frames were lost or doubled; report the offset if one is found.
    var shift = ""
    for d in -4800...4800 where d != 0 {
        let j = i + d * 2
        if j >= 0, j + 64 <= expected.count, i + 64 <= actual.count,
           Array(actual[i..<(i + 64)]) == Array(expected[j..<(j + 64)]) {
            shift = "; the file continues with the input shifted by \(d) frames (\(d > 0 ? "missing" : "doubled"))"
            break
        }
    }
    return "first difference at frame \(frame) (file \(actual.count / 2) frames, input \(expected.count / 2))\(shift)"
}

/// nil when `recorded` (interleaved stereo) holds the fed `pieces` as the server delivers
/// them; otherwise what is wrong (short). Every frame of each piece must be there, bit for bit
/// and in order (none missing, none doubled), and nothing but zero frames around them:
/// - on an aligned feed (PulseAudio's pipe source) the first piece starts at frame 0, each
///   piece is contiguous, and with `complete` the last one ends the recording; only between
///   pieces (fed apart, e.g. across a server restart) may zero frames come (the pipe source
///   posts silence while it has no writer);
/// - on PipeWire zero frames may also come before the first piece, after the last, and inside
///   a piece (pacat's stream underran on the loaded machine and the sink played silence: the
///   server's doing, never pulsemeter's, which cannot invent frames); and the piece may go on
///   up to 100 ms later, after such silence or without it (what the player wrote for the time
///   it missed, dropped by the server; CI's loaded PipeWire once skipped 1792 frames with no
///   silence): 32 frames must match there, so frames doubled, reordered or altered still
///   fail. Every captured frame is still in the file (the callers check its length against
///   the run's position), and PulseAudio's exact feed checks that nothing is skipped.
/// When not `complete`, the recording may end inside a piece, and the pieces after it are
/// missing.
func fedAudioProblem(_ recorded: [Int16], _ pieces: [[Int16]], server: PulseServer, complete: Bool = true) -> String? {
    let loose = !server.alignedFeed
    let frames = recorded.count / 2
    var j = 0  // frame in `recorded`
    var inserted = 0, lost = 0, skips = 0
    for (k, piece) in pieces.enumerated() {
        let n = piece.count / 2
        // The silence before the piece (as far as the piece does not start with zeros).
        if (k > 0 || loose) && !FeedFollow.isZero(piece, 0) { j = FeedFollow.pastZeros(recorded, from: j) }
        let start = j
        let f = FeedFollow(recorded, from: j, piece, from: 0, loose: loose)
        inserted += f.inserted
        lost += f.lost
        skips += f.skips
        j = f.j
        if f.i < n && j < frames {
            return "piece \(k) (from frame \(start)): its frame \(f.i) differs from recorded frame \(j)"
                + (f.i == 0 ? " (not found after the silence)" : "")
                + " (\(f.inserted) zero frames inserted and \(f.lost) skipped before; "
                + whereFrom(recorded, j, piece) + ")"
        }
        if f.i < n {
            return complete ? "the recording ends inside piece \(k) (\(f.i) of \(n) frames)" : nil
        }
    }
    if loose { j = FeedFollow.pastZeros(recorded, from: j) }
    if j < frames { return "\(frames - j) more frames after the fed input, from frame \(j)" }
    FeedFollow.reportUnderruns(inserted: inserted, lost: lost, skips: skips)
    return nil
}

/// Where the 32 frames of `recorded` after the first zero frames from frame `j` on are in
/// `piece`, for a failure's message.
func whereFrom(_ recorded: [Int16], _ j: Int, _ piece: [Int16]) -> String {
    let j = FeedFollow.pastZeros(recorded, from: j)
    guard j + 32 <= recorded.count / 2 else { return "the recording ends in zero frames" }
    guard let at = FeedFollow.find(recorded, at: j, in: piece) else { return "recorded frames \(j)... are not in the piece" }
    return "recorded frames \(j)... are the piece's from frame \(at)"
}

/// How far `recorded` (interleaved stereo) holds `piece` from the piece's frame `i` on, the
/// recording's frame `j` on, frame for frame; `loose` (PipeWire) lets zero frames come inside
/// the piece and the piece go on up to 100 ms later (32 frames must match there), as
/// `fedAudioProblem` says. `i` and `j` end at the first frames that do not agree (or at the
/// end of either).
struct FeedFollow {
    var i: Int, j: Int
    var inserted = 0, lost = 0, skips = 0

    init(_ recorded: [Int16], from j: Int, _ piece: [Int16], from i: Int, loose: Bool) {
        self.i = i
        self.j = j
        let frames = recorded.count / 2, n = piece.count / 2
        func same(_ j: Int, _ i: Int) -> Bool { recorded[2 * j] == piece[2 * i] && recorded[2 * j + 1] == piece[2 * i + 1] }
        // After an underrun the pulse protocol drops what the player wrote for the time it
        // missed: the piece goes on up to 100 ms later (32 frames must match).
        func resumes(_ i: Int, _ j: Int, after skip: Int) -> Bool {
            let m = min(32, n - i - skip, frames - j)
            return m > 0 && (0..<m).allSatisfy { same(j + $0, i + skip + $0) }
        }
        while self.i < n && self.j < frames {
            if same(self.j, self.i) {
                self.i += 1
                self.j += 1
            } else if loose && self.i > 0 && Self.isZero(recorded, self.j) {
                inserted += 1
                self.j += 1
            } else if loose && self.i > 0, let skip = (1...(Live.rate / 10)).first(where: { resumes(self.i, self.j, after: $0) }) {
                lost += skip
                skips += 1
                self.i += skip
            } else {
                return
            }
        }
    }

    /// Whether frame `j` of `samples` (interleaved stereo) is zero on both channels.
    static func isZero(_ samples: [Int16], _ j: Int) -> Bool { samples[2 * j] == 0 && samples[2 * j + 1] == 0 }

    /// The first frame from `j` on that is not zero (or the end).
    static func pastZeros(_ samples: [Int16], from j: Int) -> Int {
        var j = j
        while j < samples.count / 2 && isZero(samples, j) { j += 1 }
        return j
    }

    /// The frame of `piece`, from `start` on, where the 32 frames of `recorded` from its frame
    /// `j` on come; nil when they are nowhere (or `recorded` has fewer left).
    static func find(_ recorded: [Int16], at j: Int, in piece: [Int16], from start: Int = 0) -> Int? {
        guard j + 32 <= recorded.count / 2 else { return nil }
        let next = Array(recorded[(2 * j)..<(2 * j + 64)])
        return (start..<max(start, piece.count / 2 - 31)).first { Array(piece[(2 * $0)..<(2 * $0 + 64)]) == next }
    }

    /// Says how much silence PipeWire played inside the feed and how much of it it skipped,
    /// when it did either.
    static func reportUnderruns(inserted: Int, lost: Int, skips: Int) {
        if inserted > 0 || lost > 0 {
            print("live tests: PipeWire played \(inserted) frames of silence inside the feed (an underrun) and skipped \(lost) fed frames in \(skips) places")
        }
    }
}

/// VmRSS of a process in kB (/proc/PID/status).
func residentKB(_ pid: pid_t) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        return fields.count > 1 ? Int(fields[1]) : nil
    }
    return nil
}
