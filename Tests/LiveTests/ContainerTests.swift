import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// Every container `record` offers, recorded from the pipe source and read back
    /// by ffmpeg and by pulsemeter, whole and after SIGKILL. All containers record at once
    /// (one record stream each on the same pipe source), so the suite pays for one recording.
    @Suite("every container record offers")
    struct Containers {
        static let lossless: Set<String> = ["wav", "flac", "aiff", "aif", "caf", "au", "w64", "rf64"]
        static let lossy: Set<String> = ["ogg", "oga", "opus", "mp3", "m4a", "aac"]
        /// Encoded by ffmpeg; whether pulsemeter reads them back too is `pulsemeterReadsAAC`.
        static let throughFFmpeg: Set<String> = ["m4a", "aac"]

        /// Whether this pulsemeter decodes m4a (asked of a file ffmpeg itself wrote).
        static func pulsemeterReadsAAC(_ dir: String) throws -> Bool {
            let probe = dir + "/probe.m4a"
            let made = try run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=1000:duration=0.5", "-c:a", "aac", "file:" + probe])
            guard made.status == 0 else { throw LiveSetupError("ffmpeg cannot write m4a: \(made.stderr)") }
            let r = try pulsemeter(["analyze", probe, "-f", "ndjson"], server: nil)
            _ = r.readToEnd(timeout: 30)
            let ok = r.wait(timeout: 5) == 0
            if !ok { print("live tests: pulsemeter does not decode m4a yet; m4a and aac are read back by ffmpeg only") }
            return ok
        }

        /// The containers pulsemeter offers, from its own error message for an unknown one; the
        /// test fails when it offers one this suite does not cover.
        static func offered(server: PulseServer) throws -> [String] {
            let r = try pulsemeter(["record", "/tmp/x.nosuchcontainer", "-d", server.feedSource], server: server)
            _ = r.readToEnd(timeout: 10)
            #expect(r.wait(timeout: 5) == 64)
            let text = r.stderrText
            guard let range = text.range(of: "use one of ") else { throw LiveSetupError("no container list in: \(text)") }
            let list = text[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(Set(list).isSubset(of: lossless.union(lossy)), "containers without a test: \(Set(list).subtracting(lossless.union(lossy)))")
            #expect(list.contains("wav") && list.contains("flac") && list.contains("ogg") && list.contains("opus"))
            return list
        }

        /// A stereo 1 kHz tone, by default left at 0.25 and right at 0.125 of full scale
        /// (channels differ, so a swap shows), ramped in over 10 ms so lossy encoders see no click.
        static func tone(frames: Int, left: Double = 8192, right: Double = 4096) -> [Int16] {
            var out = [Int16](repeating: 0, count: frames * 2)
            for i in 0..<frames {
                let ramp = min(1, Double(i) / 480)
                let s = sin(2 * Double.pi * 1000 * Double(i) / Double(Live.rate)) * ramp
                out[2 * i] = Int16((s * left).rounded())
                out[2 * i + 1] = Int16((s * right).rounded())
            }
            return out
        }

        /// The first frame where the fed tone is audible (0 on PulseAudio, after the leading
        /// silence on PipeWire), so levels are compared over the same part of the tone.
        static func onset(_ s: [Int16]) -> Int {
            ((0..<(s.count / 2)).first { abs(Int(s[2 * $0])) > 100 } ?? 0)
        }

        /// RMS in dBFS per channel of interleaved stereo samples in frames [from, to).
        static func rmsDb(_ s: [Int16], from: Int, to: Int) -> [Double] {
            (0..<2).map { c in
                var sum = 0.0
                for i in from..<to { let x = Double(s[2 * i + c]) / 32768; sum += x * x }
                return 10 * log10(sum / Double(to - from))
            }
        }

        @Test("each container: ffmpeg and pulsemeter read it back at the right length and level; lossless ones bit for bit")
        func recordAndReadBack() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("cont")
            defer { Live.removeTree(dir) }
            let containers = try Self.offered(server: server)
            let input = Self.tone(frames: 48_000)
            let frames = server.feedDuration(frames: 48_000)  // the recording's length
            var running: [(String, Subprocess)] = []
            defer { for (_, p) in running { p.kill() } }
            for ext in containers {
                let (p, _) = try LiveSuite.startRecording(
                    dir + "/x." + ext, ["--duration", server.feedDurationArgument(frames: 48_000)], server: server)
                running.append((ext, p))
            }
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            for (ext, p) in running {
                let lines = try parseLines(p.readToEnd(timeout: 30))
                #expect(p.wait(timeout: 10) == 0, "\(ext): \(p.stderrText)")
                #expect(p.stderrText == "", "\(ext)")
                #expect(lines.last?.int("recorded_frames") == frames, "\(ext)")
            }
            let middle = Self.rmsDb(input, from: 12_000, to: 36_000)
            let readsAAC = try Self.pulsemeterReadsAAC(dir)
            for (ext, _) in running {
                let file = dir + "/x." + ext
                let decoded = try decodeWithFFmpeg(file)
                #expect(decoded.stderr == "", "\(ext): ffmpeg says \(decoded.stderr)")
                let got = decoded.samples.count / 2
                if Self.throughFFmpeg.contains(ext) && !readsAAC {
                    #expect(got >= frames - 960 && got <= frames + 2400, "\(ext): ffmpeg decodes \(got) frames of \(frames)")
                    let at = Self.onset(decoded.samples)
                    guard got >= at + 36_000 else { continue }
                    let levels = Self.rmsDb(decoded.samples, from: at + 12_000, to: at + 36_000)
                    #expect(zip(levels, middle).allSatisfy { abs($0 - $1) < 0.6 }, "\(ext): \(levels) dB against \(middle) dB fed")
                    continue
                }
                let analyzed = try pulsemeter(["analyze", file, "-f", "ndjson"], server: nil)
                let end = try #require(try parseLines(analyzed.readToEnd(timeout: 30)).last, "\(ext)")
                #expect(analyzed.wait(timeout: 5) == 0, "\(ext)")
                #expect(analyzed.stderrText == "", "\(ext): \(analyzed.stderrText)")
                if Self.lossless.contains(ext) {
                    #expect(fedAudioProblem(decoded.samples, [input], server: server) == nil, "\(ext)")
                    #expect(end.int("pos") == frames, "\(ext)")
                    let whole = Self.rmsDb(decoded.samples, from: 0, to: got)
                    let levels = try #require(end.doubles("rms_db"))
                    #expect(zip(levels, whole).allSatisfy { abs($0 - $1) < 0.006 }, "\(ext): \(levels) against \(whole)")
                } else {
                    // Encoder priming and padding: MP3 adds up to two frames of 1152.
                    #expect(got >= frames - 960 && got <= frames + 2400, "\(ext): ffmpeg decodes \(got) frames of \(frames)")
                    let pos = try #require(end.int("pos"))
                    #expect(pos >= frames - 960 && pos <= frames + 2400, "\(ext): pulsemeter reads \(pos) frames of \(frames)")
                    let at = Self.onset(decoded.samples)
                    guard got >= at + 36_000 + 2400 else { continue }
                    // The level in the middle, away from priming and padding (the RMS of a
                    // steady tone does not depend on where the window starts).
                    let levels = Self.rmsDb(decoded.samples, from: at + 12_000, to: at + 36_000)
                    #expect(zip(levels, middle).allSatisfy { abs($0 - $1) < 0.6 }, "\(ext): \(levels) dB against \(middle) dB fed")
                    // pulsemeter's whole-file level: the fed tone's (PulseAudio), or ffmpeg's
                    // reading of the whole file, silence included (PipeWire).
                    let expected = server.alignedFeed ? middle : Self.rmsDb(decoded.samples, from: 0, to: got)
                    let whole = try #require(end.doubles("rms_db"))
                    #expect(zip(whole, expected).allSatisfy { abs($0 - $1) < 0.7 }, "\(ext): pulsemeter reads \(whole) dB against \(expected) dB")
                }
            }
        }

        @Test("each container after SIGKILL: ffmpeg and pulsemeter read it up to at most the last second")
        func sigkillEach() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("contk")
            defer { Live.removeTree(dir) }
            let containers = try Self.offered(server: server)
            let input = Self.tone(frames: 4 * 48_000)
            var running: [(String, Subprocess)] = []
            defer { for (_, p) in running { p.kill() } }
            for ext in containers {
                let (p, _) = try LiveSuite.startRecording(dir + "/x." + ext, [], server: server)
                running.append((ext, p))
            }
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            var metered: [String: Int] = [:]
            for (ext, p) in running {
                let (lines, reached) = try LiveSuite.readUntil(pos: 96_000, p, timeout: 15)
                #expect(reached, "\(ext)")
                metered[ext] = lines.last?.int("pos") ?? 0
            }
            for (_, p) in running { p.signal(SIGKILL) }
            for (ext, p) in running { #expect(p.wait(timeout: 5) == 128 + SIGKILL, "\(ext)") }
            let fed = feeder.framesWritten
            let readsAAC = try Self.pulsemeterReadsAAC(dir)
            for (ext, _) in running {
                let file = dir + "/x." + ext
                let least = metered[ext]! - 48_000
                // An orphaned ffmpeg encoder finishes the file once its input ends.
                if Self.throughFFmpeg.contains(ext) { try waitUntilDecodable(file, frames: least, timeout: 10) }
                let decoded = try decodeWithFFmpeg(file)
                #expect(decoded.status == 0, "\(ext): ffmpeg says \(decoded.stderr)")
                let got = decoded.samples.count / 2
                #expect(got >= least && (got <= fed + 2400 || !server.alignedFeed),
                        "\(ext): ffmpeg decodes \(got) frames; metered \(metered[ext]!), fed \(fed)")
                if Self.throughFFmpeg.contains(ext) && !readsAAC { continue }
                let analyzed = try pulsemeter(["analyze", file, "-f", "ndjson"], server: nil)
                let end = try parseLines(analyzed.readToEnd(timeout: 30)).last
                #expect(analyzed.wait(timeout: 5) == 0, "\(ext): \(analyzed.stderrText)")
                let pos = end?.int("pos") ?? 0
                #expect(pos >= least, "\(ext): pulsemeter reads \(pos) frames; metered \(metered[ext]!)")
                if Self.lossless.contains(ext) {
                    #expect(fedAudioProblem(decoded.samples, [input], server: server, complete: false) == nil, "\(ext)")
                    #expect(pos == got, "\(ext): pulsemeter \(pos) frames, ffmpeg \(got)")
                } else if got >= Self.onset(decoded.samples) + 48_000 {
                    let at = Self.onset(decoded.samples)
                    let levels = Self.rmsDb(decoded.samples, from: at + 12_000, to: at + 36_000)
                    let fedLevels = Self.rmsDb(input, from: 12_000, to: 36_000)
                    #expect(zip(levels, fedLevels).allSatisfy { abs($0 - $1) < 0.6 }, "\(ext): \(levels) dB against \(fedLevels) dB fed")
                }
            }
        }
    }
}

/// Waits until ffmpeg decodes at least `frames` frames of `path` (a file an orphaned encoder
/// is still finishing), or `timeout` s; the test fails when it never does.
func waitUntilDecodable(_ path: String, frames: Int, timeout: Double,
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
    let decodable = try Wait.until(timeout: timeout, interval: 0.2) { try decodeWithFFmpeg(path).samples.count / 2 >= frames }
    #expect(decodable, "\(path) never decoded to \(frames) frames within \(timeout) s", sourceLocation: sourceLocation)
}

/// ffmpeg's decoding of a file as 48 kHz stereo s16 (`ffmpeg -v error`), with its stderr.
func decodeWithFFmpeg(_ path: String) throws -> (samples: [Int16], stderr: String, status: Int32) {
    let out = path + ".ffmpeg.raw"
    defer { unlink(out) }
    let r = try run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "file:" + path, "-f", "s16le", "-ac", "2", "-ar", "48000", "file:" + out], timeout: 60)
    let data = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
    return (data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }, r.stderr, r.status)
}
