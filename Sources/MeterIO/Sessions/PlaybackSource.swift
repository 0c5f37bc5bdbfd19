import MeterCore
import Synchronization

/// A sound file played through a PulseAudio playback stream (`pa_simple_write`) as a session's
/// source: each block read is written to the stream first, so the server paces the reading
/// and the frames meter what is being played. `MeterSession` runs it on its own thread while
/// the caller's thread reads keys.
///
/// The reading thread owns the reader and the stream. The UI talks to it only through
/// atomics: pause, seek and stop requests in; the played position and state out. Pausing
/// flushes the server's buffer (`pa_simple_flush`) so the sound stops at once; the playback
/// buffer is kept short (about 50 ms) for the same reason. A seek moves the file, not the
/// frames: `pos` counts the frames played.
///
/// `@unchecked Sendable`: `reader`, `stream` and the conversion buffer are touched only by the
/// thread that reads (the session's); everything shared is atomic.
public final class PlaybackSource: SampleBlockSource, @unchecked Sendable {
    public let rate: Int
    public let channels: Int
    public let totalFrames: Int
    public let name: String
    private let reader: any AudioFileSource
    private let stream: PulseStream
    /// One write to the stream: 20 ms.
    private let block: Int
    private let shorts: UnsafeMutablePointer<Int16>

    private let paused = Atomic<Bool>(false)
    /// Paused by `holdWhileStopped` (not by the user): `releaseAfterStop` plays on.
    private let heldForStop = Atomic<Bool>(false)
    /// Signalled by the reading thread once a pause has flushed the stream.
    private let pauseTaken = Wakeup()
    private let seekDelta = Atomic<Int>(0)       // frames to move by, applied by the reading thread
    private let stopFlag = Atomic<Bool>(false)
    private let playedFrames = Atomic<Int>(0)    // file position now heard
    private let cancellation: Cancellation
    /// Wakes the paused reading thread: resume, seek, stop or cancellation.
    private let unpaused = Wakeup()
    /// `unpaused`'s registration with `cancellation` (made last in `init`), removed when the
    /// source goes.
    private var wake: Cancellation.Registration?
    /// Reading thread only.
    private var filePos = 0, wasPaused = false
    /// The file was played to its end (not stopped); set before `read` returns 0.
    public private(set) var playedToEnd = false
    /// Called by the reading thread while paused, each time it wakes (the pause taken, a seek,
    /// `nudge`): the session's `idle` call, so a screen sink redraws with no frame coming.
    var whilePaused: (() throws -> Void)?
    /// The file's own channel map, as `analyze` names the channels.
    public var channelNames: [String]? { reader.channelNames }
    /// The file's declared length: the last partial hop's window is exact as in `analyze`
    /// (after a seek the frames no longer end there, and that hop's window is the usual
    /// approximation of a read off the grid).
    public var expectedFrames: Int? { totalFrames }

    /// Opens the file (`InputError`; through ffmpeg what libsndfile does not read) and a playback
    /// stream on `device` (`PulseError`). Cancelling `cancellation` stops the playback like `stop()`,
    /// and ends the stream's opening at once (a `PulseError`, the caller knowing it was a stop).
    public init(path: FilePath, device: String?, cancellation: Cancellation = Cancellation()) throws {
        self.cancellation = cancellation
        reader = try AudioFile.open(path, cancellation: cancellation)
        rate = reader.rate
        channels = reader.channels
        totalFrames = reader.declaredFrames
        name = path.string
        stream = try PulseStream(direction: .playback, device: device, rate: reader.rate, channels: reader.channels,
                                 name: "pulsemeter play", latencyMs: 50, cancellation: cancellation)
        block = max(64, rate / 50)
        shorts = .allocate(capacity: block * channels)
        wake = cancellation.onCancel { [unpaused] in unpaused.signal() }
    }

    deinit {
        if let wake { cancellation.remove(wake) }
        shorts.deallocate()
    }

    public var isPaused: Bool { paused.load(ordering: .acquiring) }
    /// The file position being heard now, in frames.
    public var position: Int { playedFrames.load(ordering: .acquiring) }

    public func togglePause() {
        _ = paused.logicalXor(true, ordering: .acquiringAndReleasing)
        unpaused.signal()
    }

    /// Job control: pauses before the process stops (otherwise the server plays out what it
    /// holds, then underruns), waiting briefly for the reading thread to silence the stream.
    public func holdWhileStopped() {
        guard !paused.exchange(true, ordering: .acquiringAndReleasing) else { return }
        heldForStop.store(true, ordering: .releasing)
        unpaused.signal()
        pauseTaken.wait(seconds: 0.2)  // a write blocked on a full buffer ends within ~50 ms
    }

    /// After a continue: plays on if `holdWhileStopped` paused it.
    public func releaseAfterStop() {
        guard heldForStop.exchange(false, ordering: .acquiringAndReleasing) else { return }
        paused.store(false, ordering: .releasing)
        unpaused.signal()
    }

    /// Wakes a paused reading thread for one more `whilePaused` (a redraw after a resize).
    public func nudge() { unpaused.signal() }

    public func seek(bySeconds s: Double) {
        seekDelta.add(Int(s * Double(rate)), ordering: .acquiringAndReleasing)
        unpaused.signal()
    }

    /// Ends the playback where it is: the next `read` flushes the stream and returns 0.
    public func stop() {
        stopFlag.store(true, ordering: .releasing)
        unpaused.signal()
    }

    private var stopping: Bool { stopFlag.load(ordering: .acquiring) || cancellation.isCancelled }

    /// Plays and returns the next block (at most 20 ms), after any seek asked for; while
    /// paused, waits. 0 at the file's end (the stream drained, `playedToEnd`) or once stopped
    /// (the stream flushed).
    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        while !stopping {
            let delta = seekDelta.exchange(0, ordering: .acquiringAndReleasing)
            if delta != 0 {
                let target = min(max(0, playedFrames.load(ordering: .acquiring) + delta), totalFrames)
                stream.flush()
                if reader.seek(toFrame: target) { filePos = target }
                playedFrames.store(filePos, ordering: .releasing)
            }
            if paused.load(ordering: .acquiring) {
                if !wasPaused {
                    stream.flush()  // silence now, not after the buffer drains
                    wasPaused = true
                    if heldForStop.load(ordering: .acquiring) { pauseTaken.signal() }
                }
                try whilePaused?()
                unpaused.wait()  // asleep until resumed, moved, stopped or cancelled
                continue
            }
            wasPaused = false
            let n = try reader.read(into: buffer, maxFrames: min(maxFrames, block))
            if n == 0 {
                stream.drain()
                playedFrames.store(filePos, ordering: .releasing)
                playedToEnd = true
                return 0
            }
            SampleConversion.int16s(from: buffer, into: shorts, count: n * channels)
            try stream.write(shorts, bytes: n * channels * 2)
            filePos += n
            let latency = Int(Double(stream.latencyMicroseconds()) * Double(rate) / 1e6)
            playedFrames.store(max(0, filePos - latency), ordering: .releasing)
            return n
        }
        stream.flush()
        return 0
    }
}
