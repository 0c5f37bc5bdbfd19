import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite.TerminalMeter {
    @Test("record --trigger --events under tmux: waiting, then REC with the take's file, a clip lamp, silence")
    func recordingStatusInTmux() throws {
        let server = try Live.server()
        let bin = try Live.bin()
        let dir = try Live.tempDir("tmuxrec")
        defer { Live.removeTree(dir) }
        let tmux = Tmux(socket: dir + "/tmux.sock")
        defer { _ = try? tmux("kill-server") }
        server.drainFeed()
        // 0.5 s of silence, 1.5 s of signal with samples pinned at the rail on channel R,
        // then silence: the take opens, the lamp lights, the take closes after the hold.
        var input = [Int16](repeating: 0, count: 2 * 24000)
        var burst = TestSignal.make(frames: 72000, seed: 61)
        for i in stride(from: 1, to: burst.count, by: 2 * 480) { burst[i] = 32767 }
        input += burst + [Int16](repeating: 0, count: 2 * 4 * 48000)
        let status = dir + "/status"
        try tmux("new-session", "-d", "-s", "rec", "-x", "110", "-y", "12",
                 "env PULSE_SERVER='\(server.address)' LANG=C.UTF-8 '\(bin)' record '\(dir)/t.wav' -d \(server.feedSource) "
                 + "--trigger -40 --hold 1 --events --duration \(server.alignedFeed ? 6 : 7); echo $? > '\(status)'; exec sleep 600")
        let waiting = try tmux.waitFor("rec") { $0.first?.contains("waiting for the trigger") == true }
        #expect(waiting.first?.contains("waiting for the trigger") == true, "\(waiting.first ?? "")")
        let feeder = server.startFeeding(input, speed: 1)
        defer { server.stopFeeding(feeder) }
        let recording = try tmux.waitFor("rec") { rows in
            rows.first?.contains("REC \(dir)/t-001.wav") == true && rows.contains { $0.hasPrefix("R ") && $0.contains("CLIP") }
        }
        #expect(recording.first?.contains("REC \(dir)/t-001.wav") == true, "\(recording.first ?? "")")
        #expect(recording.contains { $0.hasPrefix("R ") && $0.contains("CLIP") }, "clip lamp on R: \(recording)")
        #expect(!recording.contains { $0.hasPrefix("L ") && $0.contains("CLIP") }, "no lamp on L")
        let quiet = try tmux.waitFor("rec") { rows in
            rows.first?.contains("silence") == true && rows.first?.contains("waiting for the trigger") == true
        }
        #expect(quiet.first?.contains("silence") == true && quiet.first?.contains("waiting for the trigger") == true,
                "after the burst: \(quiet.first ?? "")")
        #expect(Wait.statusFile(status, timeout: 10) == "0")
        #expect(FileManager.default.fileExists(atPath: dir + "/t-001.wav"))
    }
}
