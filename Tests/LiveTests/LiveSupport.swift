import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

// Support for the live tests, by concern:
// - LiveSupport.swift (here): how to write a live test, `Live` (the server kind, the binary,
//   the shared server, scratch directories, tmpfs mounts), `LiveSetupError`;
// - PulseServer.swift: the private server (PulseAudio from scripts/pulse-private, or
//   PipeWire's pulse server from scripts/pipewire-private): start, feed, restart, kill, stop;
// - Subprocess.swift: the pulsemeter binary and the tools run as subprocesses;
// - JSONLine.swift: the NDJSON lines they print;
// - Feed.swift: deterministic test signals and the feeder of known audio;
// - RecordedAudio.swift: the input's files and independent readers of the recorded ones
//   (sox, Python's wave module), and the check of recorded samples against the fed ones;
// - LiveWaits.swift: the waits of the live tests (a status file, sound on a source);
// - Tmux.swift: a real terminal (`LiveSuite.TerminalMeter.Tmux`) and its waits; HTTPTestClient.swift,
//   Browser.swift, IcecastSupport.swift, MQTTSupport.swift: the other programs they drive.
// What every test target shares (`Wait`, `TempDir`, `WAV`, `SeededRNG`, ...) is TestSupport's.
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

    /// A fresh temporary directory (`TempDir.create`: /tmp/pm-live-TAG-XXXXXX), short enough
    /// for a socket path; remove it with `removeTree`.
    static func tempDir(_ tag: String) throws -> String { try TempDir.create("live-\(tag)", in: "/tmp") }

    static func removeTree(_ path: String) { TempDir.remove(path) }

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
