import Foundation
import Glibc
import Synchronization
import TestSupport

// The private sound server of the live tests: started, fed, restarted, killed, stopped.

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
        return try player(file: file, into: sink, rate: rate, channels: channels)
    }

    /// pacat playing the raw s16le `file` into `sink` (`Live.playerLatencyMs`), as the application
    /// `application` when given. Kill the player when done.
    func player(file: String, into sink: String = "vsink", rate: Int = Live.rate, channels: Int = Live.channels,
                application: String? = nil) throws -> Subprocess {
        try Subprocess(["pacat", "--latency-msec=\(Live.playerLatencyMs)", "--raw", "--rate=\(rate)",
                        "--channels=\(channels)", "--format=s16le"]
                       + (application.map { ["--property=application.name=\($0)"] } ?? []) + ["-d", sink, file],
                       env: environment)
    }

    /// The playback streams (sink inputs) now: each one's index and application name
    /// (`pactl -f json list sink-inputs`).
    func sinkInputs() throws -> [(index: Int, application: String)] {
        let r = try run(["pactl", "-f", "json", "list", "sink-inputs"], env: environment)
        let json = r.stdout.replacingOccurrences(of: "<no newline>", with: "")  // pactl ends it without one
        guard r.status == 0, let list = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else {
            throw LiveSetupError("pactl list sink-inputs: \(r.stderr)")
        }
        return list.compactMap { input in
            guard let index = input["index"] as? Int,
                  let name = (input["properties"] as? [String: Any])?["application.name"] as? String else { return nil }
            return (index, name)
        }
    }

    /// parec recording what the server makes of the playback stream `index` (its sink's monitor
    /// restricted to that stream, `--monitor-stream`, as pulsemeter's app: source reads it) into
    /// `file` as raw float32le at `rate`, with 10 ms fragments (pulsemeter's). Kill it when done.
    func streamRecorder(index: Int, file: String, rate: Int = Live.rate, channels: Int = Live.channels) throws -> Subprocess {
        try Subprocess(["parec", "--monitor-stream=\(index)", "--latency-msec=10", "--raw", "--format=float32le",
                        "--rate=\(rate)", "--channels=\(channels)", file], env: environment)
    }

    /// What a tmux pane runs: pulsemeter `args` against this server in a UTF-8 locale with
    /// colour allowed (`env` goes before the binary, e.g. "NO_COLOR=1 "), its exit status
    /// written to `status`, then the pane stays open for the screen to be read.
    func paneCommand(_ args: String, status: String, env: String = "") throws -> String {
        "env -u NO_COLOR -u LC_ALL -u LC_CTYPE PULSE_SERVER='\(address)' LANG=C.UTF-8 \(env)'\(try Live.bin())' "
            + args + "; echo $? > '\(status)'; exec sleep 600"
    }
}
