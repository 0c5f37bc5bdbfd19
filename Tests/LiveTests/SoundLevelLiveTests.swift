import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// `pulsemeter calibrate`: a calibrator's tone fed through the private server.
    @Suite("calibrate")
    struct Calibrate {
        /// A stereo tone of `hz` at RMS level `db` dBFS on both channels, as s16 at 48 kHz,
        /// fading in over 10 ms.
        static func tone(hz: Double, seconds: Double, db: Double) -> [Int16] {
            let frames = Int(seconds * 48000)
            var out = [Int16](repeating: 0, count: frames * 2)
            let a = pow(10, db / 20) * sqrt(2) * 32768
            for i in 0..<frames {
                let g = i < 480 ? 0.5 - 0.5 * cos(Double.pi * Double(i) / 480) : 1
                let v = Int16((g * a * sin(2 * Double.pi * hz * Double(i) / 48000)).rounded())
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        /// Runs calibrate on the feed source while `samples` play (at real time).
        static func calibrate(_ samples: [Int16], _ args: [String], server: PulseServer) throws -> (status: Int32?, out: [String], err: String) {
            server.drainFeed()
            let p = try pulsemeter(["calibrate", "-d", server.feedSource] + args, server: server)
            defer { p.kill() }
            // The record stream connects before the tone's first second is over; the measurement
            // needs 3 s of it after the F detector settled.
            let feeder = server.startFeeding(samples, speed: 1)
            defer { server.stopFeeding(feeder) }
            let out = p.readToEnd(timeout: 40)
            return (p.wait(timeout: 5), out, p.stderrText)
        }

        @Test("a steady 1 kHz tone at -26 dBFS with --reference 94 prints --calibration 120.00 (+-0.05)")
        func measuresTheTone() throws {
            let server = try Live.server()
            let r = try Self.calibrate(Self.tone(hz: 1000, seconds: 9, db: -26), ["--reference", "94"], server: server)
            #expect(r.status == 0, "stderr: \(r.err)")
            #expect(r.out.count == 1, "\(r.out)")
            let words = (r.out.first ?? "").split(separator: " ")
            #expect(words.first == "--calibration")
            let value = try #require(words.last.flatMap { Double($0) }, "\(r.out)")
            #expect(abs(value - 120) <= 0.05, "--calibration \(value)")
            #expect(r.err.contains("dBFS(A)") && r.err.contains("steady"), "\(r.err)")
        }

        @Test("a 500 Hz tone is refused as not at 1 kHz, exit 65")
        func refusesAnotherFrequency() throws {
            let server = try Live.server()
            let r = try Self.calibrate(Self.tone(hz: 500, seconds: 9, db: -26), ["--duration", "8"], server: server)
            #expect(r.status == 65, "stderr: \(r.err)")
            #expect(r.out.isEmpty)
            #expect(r.err.hasPrefix("pulsemeter: ") && r.err.contains("not at 1 kHz"), "\(r.err)")
        }
    }
}
