import Foundation
import Glibc
import Synchronization
import Testing

extension LiveSuite {
    /// Every command line of the README's Examples section runs as printed, through
    /// scripts/run, on a machine with no PulseAudio server: the live ones against the demo
    /// scripts/run starts, the files they name made here. Each runs in a directory of its own.
    @Suite("the README's examples")
    struct ReadmeExamples {
        /// The command lines of the README's "Examples" section (its code blocks, comments and
        /// blank lines left out).
        static func examples() throws -> [String] {
            let readme = try String(contentsOf: Live.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
            var lines: [String] = []
            var inSection = false, inCode = false
            for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line.hasPrefix("#") && !inCode {
                    inSection = line == "## Examples"
                    continue
                }
                guard inSection else { continue }
                if line.hasPrefix("```") { inCode.toggle(); continue }
                let text = line.trimmingCharacters(in: .whitespaces)
                if inCode && !text.isEmpty && !text.hasPrefix("#") { lines.append(text) }
            }
            return lines
        }

        /// The files the examples name: short sounds (a tone, a silence, a louder tone) in each
        /// container, an mkv through ffmpeg, an inbox of Ogg files and an album of FLAC files.
        static func makeFixtures(in dir: String) throws {
            let base = dir + "/base.wav"
            let tone = try run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", base,
                                "synth", "1.5", "sine", "440", "vol", "0.3", "pad", "0", "1.2", ":",
                                "synth", "1", "pinknoise", "vol", "0.4"], timeout: 30)
            #expect(tone.status == 0, "\(tone.stderr)")
            for name in ["interview.flac", "song.flac", "episode.flac", "voice.ogg", "message.wav"] {
                let r = try run(["sox", base, dir + "/" + name], timeout: 30)
                #expect(r.status == 0, "\(name): \(r.stderr)")
            }
            let mkv = try run(["ffmpeg", "-nostdin", "-v", "error", "-i", base, "-c:a", "libvorbis", dir + "/talk.mkv"], timeout: 60)
            #expect(mkv.status == 0, "\(mkv.stderr)")
            try FileManager.default.createDirectory(atPath: dir + "/inbox/old", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: dir + "/album", withIntermediateDirectories: true)
            for name in ["inbox/a.ogg", "inbox/old/b.ogg", "album/01.flac", "album/02.flac"] {
                let r = try run(["sox", base, dir + "/" + name], timeout: 30)
                #expect(r.status == 0, "\(name): \(r.stderr)")
            }
            try FileManager.default.removeItem(atPath: base)
        }

        /// `pulsemeter` for the examples: scripts/run, the live commands stopped by SIGTERM
        /// `seconds` after they first wrote something (a line on stdout or a file in the
        /// example's directory: a loaded machine's slow start of the demo server and the meter
        /// does not use up the run; exit 0, as README.md "Exit codes" says); each exit status
        /// logged.
        static func wrappers(in bin: String, seconds: Double, realServer: String) throws {
            let runScript = Live.packageRoot.appendingPathComponent("scripts/run").path
            let pulsemeter = """
            #!/bin/bash
            case "${1:-}" in
              analyze|waveform|devices|tag|normalize|presets|-h|--help|-V|--version) '\(runScript)' "$@"; status=$? ;;
              *)
                d=${PM_STATUS%/*}
                out=$(mktemp "$d/.out.XXXXXX")
                { timeout --preserve-status -s TERM 300 '\(runScript)' "$@" & echo $! > "$out.pid"; wait $!; echo $? > "$out.status"; } | tee -a "$out" &
                tee_pid=$!
                until [ -s "$out.pid" ]; do sleep 0.05; done
                pid=$(cat "$out.pid")
                while kill -0 "$pid" 2>/dev/null && [ ! -s "$out" ] && [ -z "$(find "$d" -newer "$out.pid" -type f ! -path '*/.*' -print -quit)" ]; do
                  sleep 0.1
                done
                sleep \(seconds)
                kill -TERM "$pid" 2>/dev/null
                wait "$tee_pid"
                status=$(cat "$out.status")
                rm -f "$out" "$out.pid" "$out.status" ;;
            esac
            echo "$status pulsemeter $*" >> "$PM_STATUS"
            exit $status
            """
            // parec is PulseAudio's own client, not pulsemeter: it records a second from the
            // test's server (scripts/run's demo lives only as long as a pulsemeter run).
            let parec = """
            #!/bin/bash
            PULSE_SERVER='\(realServer)' exec timeout -s INT 1 /usr/bin/parec "$@"
            """
            for (name, text) in [("pulsemeter", pulsemeter), ("parec", parec)] {
                let path = bin + "/" + name
                try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                chmod(path, 0o755)
            }
        }

        struct Outcome {
            var line: String
            var result: RunResult?
            var failure: String?
            var statuses: [String]
            var wrote: [String]
        }

        @Test("each example exits 0, every pulsemeter in it exits 0 and says no error, and it writes something")
        func everyExampleRuns() throws {
            let server = try Live.server()
            let examples = try Self.examples()
            #expect(examples.count >= 20, "\(examples)")
            #expect(examples.contains { $0.hasPrefix("pulsemeter -d @DEFAULT_MONITOR@ --bands 32") }, "\(examples)")
            let root = try Live.tempDir("readme")
            defer { Live.removeTree(root) }
            let fixtures = root + "/fixtures", bin = root + "/bin"
            try FileManager.default.createDirectory(atPath: fixtures, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            try Self.makeFixtures(in: fixtures)
            try Self.wrappers(in: bin, seconds: 2.5, realServer: server.address)
            let given = Set(try FileManager.default.subpathsOfDirectory(atPath: fixtures))
            // One run of the examples at a time on this machine (a lock file), held until the
            // broker below is gone: the --mqtt example needs MQTT's own port, and a broker that
            // another run started stops with that run (CI45: the PipeWire group's example used
            // the PulseAudio group's broker, which stopped under it: "Connection refused").
            let lock = open("/tmp/pulsemeter-readme-examples.lock", O_CREAT | O_RDWR, 0o666)
            try #require(lock >= 0 && flock(lock, LOCK_EX) == 0, "cannot lock /tmp/pulsemeter-readme-examples.lock")
            defer { close(lock) }
            // The --mqtt example's broker: mosquitto on MQTT's own port, as a user's would be
            // (one already listening there serves as well).
            let broker = IcecastServer.accepts(1883) ? nil : try MosquittoBroker("readme-mqtt", port: 1883)
            defer { broker?.kill() }  // stopped (and waited for) before the lock is let go

            let outcomes = Mutex<[Int: Outcome]>([:])
            // Two at a time (each live one runs its own demo server for a few seconds).
            DispatchQueue.concurrentPerform(iterations: examples.count) { i in
                let line = examples[i]
                let dir = root + "/\(i)"
                var outcome = Outcome(line: line, statuses: [], wrote: [])
                do {
                    _ = try run(["cp", "-R", fixtures, dir])
                    let tmp = dir + "/.tmp"
                    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
                    let env = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                               "PULSEMETER_BIN": try Live.bin(), "PULSE_SERVER": "unix:\(dir)/no-server",
                               "PM_STATUS": dir + "/.status", "TMPDIR": tmp, "LANG": "C.UTF-8"]
                    outcome.result = try run(["bash", "-c", "cd '\(dir)' && " + line], env: env, timeout: 90)
                    outcome.statuses = ((try? String(contentsOfFile: dir + "/.status", encoding: .utf8)) ?? "")
                        .split(separator: "\n").map(String.init)
                    let now = Set(try FileManager.default.subpathsOfDirectory(atPath: dir))
                    outcome.wrote = now.subtracting(given).filter { !$0.hasPrefix(".") }.sorted()
                    let left = try FileManager.default.contentsOfDirectory(atPath: tmp)
                    if !left.isEmpty { outcome.failure = "left in TMPDIR: \(left)" }
                } catch {
                    outcome.failure = "\(error)"
                }
                outcomes.withLock { $0[i] = outcome }
            }
            for i in examples.indices {
                let o = try #require(outcomes.withLock { $0[i] })
                #expect(o.failure == nil, "\(o.line): \(o.failure ?? "")")
                guard let r = o.result else { continue }
                #expect(r.status == 0, "\(o.line): exit \(r.status); stderr: \(r.stderr)")
                #expect(!o.statuses.isEmpty && o.statuses.allSatisfy { $0.hasPrefix("0 ") }, "\(o.line): \(o.statuses); stderr: \(r.stderr)")
                let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("pulsemeter: ") && !$0.hasPrefix("pulsemeter: warning:") }
                #expect(errors.isEmpty, "\(o.line): \(errors)")
                // (What jq selects may be nothing in a few seconds of the demo, e.g. events.)
                if !o.line.contains("| jq") {
                    #expect(!r.stdout.isEmpty || !o.wrote.isEmpty, "\(o.line): wrote nothing; stderr: \(r.stderr)")
                }
            }
        }
    }
}
