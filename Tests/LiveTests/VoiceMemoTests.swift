import CSndFile
import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Voice-memo and logger features: the frames' normalized level, recording sample
    /// formats, pause and resume, the rolling archive.
    @Suite("voice memos and loggers")
    struct VoiceMemo {
        /// A stereo sine of amplitude `amplitude` at 1 kHz (48 samples a period at 48 kHz, so
        /// a 50 ms window holds whole periods): rms_db = 20*log10(A) - 3.01.
        static func sine(frames: Int, amplitude: Double) -> [Int16] {
            var out = [Int16](repeating: 0, count: 2 * frames)
            for i in 0..<frames {
                let v = Int16((amplitude * 32768 * sin(2 * Double.pi * Double(i) / 48)).rounded())
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        @Test("live frames carry level = clamp((rms_db - floor) / -floor, 0, 1) with --floor",
              arguments: [nil, -40.0])
        func levelPerChannel(floor: Double?) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("level")
            defer { Live.removeTree(dir) }
            let frames = 48_000
            let input = Self.sine(frames: frames, amplitude: 0.1)
            let args = ["--duration", server.feedDurationArgument(frames: frames)] + (floor.map { ["--floor", "\($0)"] } ?? [])
            let (p, _) = try LiveSuite.startRecording(dir + "/l.wav", args, server: server)
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let f = floor ?? -60
            let frameLines = lines.filter { $0.type == "frame" }
            #expect(frameLines.count >= 25)
            var bad: [String] = []
            var steady = 0
            let expectedSteady = (20 * log10(0.1) - 10 * log10(2) - f) / -f  // the analytic level of the sine
            for line in frameLines {
                guard let rms = line.doubles("rms_db"), let level = line.doubles("level"), level.count == 2, rms.count == 2 else {
                    bad.append("frame at \(line.int("pos") ?? -1) has no level per channel")
                    continue
                }
                for c in 0..<2 {
                    // rms_db is printed with 2 decimals, level with 4.
                    let want = min(1, max(0, (rms[c] - f) / -f))
                    if abs(level[c] - want) > 0.005 / -f + 0.00005 + 1e-9 { bad.append("level \(level[c]) for rms \(rms[c])") }
                }
                if abs(rms[0] - (20 * log10(0.1) - 10 * log10(2))) < 0.02 {
                    steady += 1
                    if abs(level[0] - expectedSteady) > 0.02 / -f + 0.00005 { bad.append("steady level \(level[0]), want \(expectedSteady)") }
                }
            }
            #expect(bad.isEmpty, "\(bad.prefix(4))")
            #expect(steady >= 20, "the sine's level was seen in \(steady) frames")
            // analyze frames carry no level (live only).
            #expect(lines.first { $0.type == "end" }?.object["level"] == nil)
        }
    
        /// The containers that hold each `--bits` format.
        static let bitsCases: [(bits: String, ext: String)] =
            ["wav", "flac", "aiff", "caf", "w64", "rf64", "au"].map { ("24", $0) }
            + ["wav", "aiff", "caf", "w64", "rf64", "au"].flatMap { [("32", $0), ("float", $0)] }

        @Test("record --bits: the file holds the captured samples bit for bit, as libsndfile and ffmpeg read it",
              arguments: bitsCases)
        func bitsBitExact(bits: String, ext: String) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("bits")
            defer { Live.removeTree(dir) }
            let frames = 36_000
            // The fed signal, with both rails in it: the conversions from s16 are exact.
            var input = TestSignal.make(frames: frames, seed: 26)
            input[200] = .max; input[201] = .min; input[402] = .min; input[403] = .max
            let file = dir + "/b." + ext
            let (p, _) = try LiveSuite.startRecording(
                file, ["--bits", bits, "--duration", server.feedDurationArgument(frames: frames)], server: server)
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 60))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let end = try #require(lines.last)
            #expect(end.type == "end" && end.int("recorded_frames") == server.feedDuration(frames: frames))

            // libsndfile, through its own C API: the subtype, then the samples.
            var info = SF_INFO()
            let h = try #require(sf_open(file, Int32(SFM_READ), &info), "libsndfile cannot open \(file)")
            defer { sf_close(h) }
            let subtype = info.format & Int32(SF_FORMAT_SUBMASK)
            let wantSubtype = bits == "24" ? SF_FORMAT_PCM_24 : (bits == "32" ? SF_FORMAT_PCM_32 : SF_FORMAT_FLOAT)
            #expect(subtype == Int32(wantSubtype), "subtype \(subtype)")
            #expect(info.channels == 2 && info.samplerate == 48000)
            let n = Int(info.frames) * 2
            var viaSndfile: [Int16]?
            if bits == "float" {
                var f = [Float](repeating: 0, count: n)
                #expect(sf_readf_float(h, &f, info.frames) == info.frames)
                viaSndfile = Self.exactS16(floats: f)
            } else {
                var i = [Int32](repeating: 0, count: n)
                #expect(sf_readf_int(h, &i, info.frames) == info.frames)
                viaSndfile = Self.exactS16(ints: i)
            }
            let s = try #require(viaSndfile, "libsndfile reads samples that are not the fed s16 ones scaled exactly")
            #expect(fedAudioProblem(s, [input], server: server) == nil, "libsndfile: \(fedAudioProblem(s, [input], server: server) ?? "")")

            // ffmpeg, decoding on its own.
            let raw = dir + "/ff.raw"
            let ff = try run(["ffmpeg", "-nostdin", "-v", "error", "-i", "file:" + file, "-f", bits == "float" ? "f32le" : "s32le", "file:" + raw], timeout: 60)
            #expect(ff.status == 0, "ffmpeg: \(ff.stderr)")
            let data = try Data(contentsOf: URL(fileURLWithPath: raw))
            let viaFFmpeg = bits == "float"
                ? data.withUnsafeBytes { Self.exactS16(floats: Array($0.bindMemory(to: Float.self))) }
                : data.withUnsafeBytes { Self.exactS16(ints: Array($0.bindMemory(to: Int32.self))) }
            let f = try #require(viaFFmpeg, "ffmpeg reads samples that are not the fed s16 ones scaled exactly")
            #expect(f == s, "ffmpeg and libsndfile disagree")
        }

        /// 32-bit samples that are s16 ones shifted up 16 bits, back to s16; nil if any is not.
        static func exactS16(ints: [Int32]) -> [Int16]? {
            var out = [Int16](repeating: 0, count: ints.count)
            for (k, v) in ints.enumerated() {
                guard v & 0xFFFF == 0 else { return nil }
                out[k] = Int16(v >> 16)
            }
            return out
        }

        /// Float samples that are s16 ones over 32768, back to s16; nil if any is not.
        static func exactS16(floats: [Float]) -> [Int16]? {
            var out = [Int16](repeating: 0, count: floats.count)
            for (k, v) in floats.enumerated() {
                let x = v * 32768
                guard x == x.rounded(), x >= -32768, x <= 32767 else { return nil }
                out[k] = Int16(x)
            }
            return out
        }

        @Test("--bits with a container that cannot hold it: exit 64 naming those that can")
        func bitsRefusedContainers() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("bitsno")
            defer { Live.removeTree(dir) }
            for (bits, ext) in [("32", "flac"), ("float", "flac"), ("24", "ogg"), ("24", "mp3"), ("float", "opus"), ("24", "m4a")] {
                let p = try pulsemeter(["record", dir + "/x." + ext, "--bits", bits, "-d", server.feedSource, "-f", "ndjson"], server: server)
                _ = p.readToEnd(timeout: 15)
                #expect(p.wait(timeout: 5) == 64, "\(bits) \(ext)")
                let err = p.stderrText
                #expect(err.contains("--bits \(bits)") && err.contains("wav") && err.contains("aiff") && err.contains("w64") && err.contains("rf64"), "\(err)")
                let holding = err.components(separatedBy: "record one of ").last ?? ""
                #expect(holding.contains("flac") == (bits == "24"), "\(err)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/x." + ext))
            }
            let bad = try pulsemeter(["record", dir + "/x.wav", "--bits", "20", "-d", server.feedSource], server: server)
            _ = bad.readToEnd(timeout: 15)
            #expect(bad.wait(timeout: 5) == 64 && bad.stderrText.contains("16, 24, 32 or float"))
        }
    }
}
