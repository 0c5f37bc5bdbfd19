/// Turns meter frames into `--events` events: `clip` from each frame's per-channel clip counts,
/// and `silence_start` / `silence_end` as ffmpeg's `silencedetect` means them, on the frames'
/// `rms_db` (every channel below the level for at least the minimum duration).
///
/// A part of `MeterPipeline`, so live capture and files give the same events for the same
/// samples. Positions are estimates exact to one hop plus one window: a loud passage leaves the
/// RMS window about one window after it ends, so the first quiet frame at `pos` puts the start
/// of the silence at `pos - window`; a sound raises the RMS within the hop it starts in, so the
/// first loud frame puts the end of the silence at the start of its hop.
public struct EventDetector {
    public let settings: EventSettings
    private let rate: Int
    private let window: Int
    private let minFrames: Int
    private enum State { case sound, candidate(start: Int), silent(start: Int) }
    private var state = State.sound
    /// Where the last silence ended: a new one never starts before it.
    private var lastEnd = 0
    /// Clipped samples per channel over the whole stream.
    public private(set) var clippedTotal: [Int]
    /// Silences ended so far, and their total length in frames.
    public private(set) var silenceCount = 0
    private var silentFrames = 0
    /// The silences' total length so far, in seconds.
    public var silenceSeconds: Double { Double(silentFrames) / Double(rate) }

    public init(settings: EventSettings, rate: Int, channels: Int, window: Int) {
        self.settings = settings
        self.rate = rate
        self.window = window
        minFrames = MeterSettings.frames(seconds: settings.silenceMinSeconds, rate: rate)
        clippedTotal = Array(repeating: 0, count: channels)
    }

    /// Appends the events of `frame` (covering samples [hopStart, frame.pos)) to `events`.
    public mutating func observe(_ frame: MeterFrame, hopStart: Int, into events: inout [MeterEvent]) {
        silence(frame, hopStart: hopStart, into: &events)
        for (c, n) in frame.clipSamples.enumerated() where n > 0 {
            clippedTotal[c] += n
            events.append(MeterEvent(.clip(channel: c, samples: n), pos: frame.pos))
        }
    }

    /// At the end of the stream: a silence still going on ends there (as silencedetect does).
    public mutating func finish(at pos: Int, into events: inout [MeterEvent]) {
        if case .silent(let start) = state { endSilence(from: start, at: pos, into: &events) }
        state = .sound
    }

    private mutating func silence(_ frame: MeterFrame, hopStart: Int, into events: inout [MeterEvent]) {
        var quiet = true
        for db in frame.rmsDb where db >= settings.silenceDb {
            quiet = false
            break
        }
        switch state {
        case .sound:
            guard quiet else { return }
            let start = max(lastEnd, frame.pos - window, 0)
            state = .candidate(start: start)
            startIfLongEnough(start, at: frame.pos, into: &events)
        case .candidate(let start):
            if quiet {
                startIfLongEnough(start, at: frame.pos, into: &events)
            } else {
                state = .sound
            }
        case .silent(let start):
            guard !quiet else { return }
            endSilence(from: start, at: max(start, hopStart), into: &events)
            state = .sound
        }
    }

    private mutating func endSilence(from start: Int, at end: Int, into events: inout [MeterEvent]) {
        events.append(MeterEvent(.silenceEnd(seconds: Double(end - start) / Double(rate)), pos: end))
        lastEnd = end
        silenceCount += 1
        silentFrames += end - start
    }

    private mutating func startIfLongEnough(_ start: Int, at pos: Int, into events: inout [MeterEvent]) {
        guard pos - start >= minFrames else { return }
        events.append(MeterEvent(.silenceStart, pos: start))
        state = .silent(start: start)
    }
}
