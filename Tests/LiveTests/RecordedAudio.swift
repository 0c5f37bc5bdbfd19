import Foundation
import Glibc
import Synchronization
import TestSupport

// Files: writing the input, reading the recordings back with independent tools (sox,
// Python's wave), and checking the recorded samples against what was fed.

// MARK: - files

extension [Int16] {
    var bytes: [UInt8] { withUnsafeBytes { [UInt8]($0) } }
}

/// Writes interleaved s16le PCM to `path`.
func writeRaw(_ samples: [Int16], to path: String) throws {
    try Data(samples.bytes).write(to: URL(fileURLWithPath: path))
}

/// Writes interleaved stereo s16 at 48 kHz as a WAV file (`WAV.file`: built by hand,
/// independent of the code under test).
func writeWav(_ samples: [Int16], to path: String) throws {
    try Data(WAV.file(samples, rate: Live.rate, channels: Live.channels)).write(to: URL(fileURLWithPath: path))
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
                + whereFrom(recorded, j, piece) + "; "
                + FeedFollow.sideBySide(recorded, j, piece, f.i) + ")"
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

    /// The four frames of `recorded` from `j` and of `piece` from `i`, as L,R pairs: whether
    /// a difference is a scaling (a volume), a sum (another stream) or something else.
    static func sideBySide(_ recorded: [Int16], _ j: Int, _ piece: [Int16], _ i: Int) -> String {
        func frames(_ x: [Int16], _ from: Int) -> String {
            (from..<min(from + 4, x.count / 2)).map { "\(x[2 * $0]),\(x[2 * $0 + 1])" }.joined(separator: " ")
        }
        return "recorded \(frames(recorded, j)) where the piece has \(frames(piece, i))"
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
