import Glibc
import MeterCore
import Synchronization

/// Plays a sound file through a PulseAudio playback stream (`pa_simple_write`) on its own
/// thread, while the caller's thread draws and reads keys.
///
/// The audio thread owns the reader and the stream. The UI talks to it only through atomics:
/// pause, seek and stop requests in; the played position and state out. Pausing flushes the
/// server's buffer (`pa_simple_flush`) so the sound stops at once; the playback buffer is kept
/// short (about 50 ms) for the same reason. The same `MeterPipeline` meters what is written,
/// frames positioned on the file's samples.
///
/// `@unchecked Sendable`: `reader`, `stream`, `pipeline` and `sink` are touched only by the
/// audio thread after `start()`; everything shared is atomic or behind a Mutex. The audio
/// thread is the session's analysis thread: it makes every call to the sink, start to end
/// (the `FrameSink` threading rule).
public final class PlaybackSession: @unchecked Sendable {
    public let rate: Int
    public let channels: Int
    public let totalFrames: Int
    private let reader: any AudioFileSource
    private let stream: PulseStream
    private let pipeline: MeterPipeline
    private let sink: any FrameSink
    private let source: String

    private let paused = Atomic<Bool>(false)
    /// Paused by `holdWhileStopped` (not by the user): `releaseAfterStop` plays on.
    private let heldForStop = Atomic<Bool>(false)
    /// Signalled by the audio thread once a pause has flushed the stream.
    private let pauseTaken = Wakeup()
    private let seekDelta = Atomic<Int>(0)       // frames to move by, applied by the audio thread
    private let stopFlag = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let playedFrames = Atomic<Int>(0)    // file position now heard
    private let done = Wakeup()
    private let failure = Mutex<Error?>(nil)
    private let cancellation: Cancellation
    /// Wakes the paused audio thread: resume, seek, stop or cancellation.
    private let unpaused = Wakeup()
    /// `unpaused`'s registration with `cancellation` (made last in `init`), removed when the
    /// session goes.
    private var wake: Cancellation.Registration?

    /// Opens the file (`InputError`; through ffmpeg what libsndfile does not read) and a playback
    /// stream on `device` (`PulseError`). `settings` makes the meter settings for the file's
    /// rate and channel count (what it throws, the init does); by default the defaults.
    /// Cancelling `cancellation` stops the playback like `stop()`.
    public init(path: FilePath, device: String?, sink: any FrameSink,
                settings: (_ rate: Int, _ channels: Int) throws -> ValidSettings = { try ValidSettings(MeterSettings(rate: $0, channels: $1)) },
                cancellation: Cancellation = Cancellation()) throws {
        self.cancellation = cancellation
        reader = try AudioFile.open(path, cancellation: cancellation)
        rate = reader.rate
        channels = reader.channels
        totalFrames = reader.declaredFrames
        let s = try settings(reader.rate, reader.channels)
        pipeline = MeterPipeline(settings: s, transform: FFTWPowerSpectrum.forBands(of: s),
                                 clock: unixSeconds)
        stream = try PulseStream(direction: .playback, device: device, rate: reader.rate, channels: reader.channels,
                                 name: "pulsemeter play", latencyMs: 50)
        self.sink = sink
        source = path.string
        wake = cancellation.onCancel { [unpaused] in unpaused.signal() }
    }

    deinit {
        if let wake { cancellation.remove(wake) }
    }

    public var isPaused: Bool { paused.load(ordering: .acquiring) }
    public var isFinished: Bool { finished.load(ordering: .acquiring) }
    /// The file position being heard now, in frames.
    public var position: Int { playedFrames.load(ordering: .acquiring) }

    public func togglePause() {
        _ = paused.logicalXor(true, ordering: .acquiringAndReleasing)
        unpaused.signal()
    }

    /// Job control: pauses before the process stops (otherwise the server plays out what it
    /// holds, then underruns), waiting briefly for the audio thread to silence the stream.
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

    public func seek(bySeconds s: Double) {
        seekDelta.add(Int(s * Double(rate)), ordering: .acquiringAndReleasing)
        unpaused.signal()
    }

    public func stop() {
        stopFlag.store(true, ordering: .releasing)
        unpaused.signal()
    }

    private var stopping: Bool { stopFlag.load(ordering: .acquiring) || cancellation.isCancelled }

    public func start() throws {
        try OSThread.spawn(role: "pm-playback") { [self] in audioLoop() }
    }

    /// Waits for the audio thread (which writes the end line); rethrows its failure.
    public func finish() throws {
        done.wait()
        if let e = failure.withLock({ $0 }) { throw e }
    }

    private func audioLoop() {
        defer {
            finished.store(true, ordering: .releasing)
            done.signal()
        }
        let block = max(64, rate / 50)  // 20 ms
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        let shorts = UnsafeMutablePointer<Int16>.allocate(capacity: block * channels)
        defer {
            floats.deallocate()
            shorts.deallocate()
        }
        var filePos = 0
        var wasPaused = false
        do {
            try sink.start(pipeline.streamInfo(source: source, live: true))
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
                    unpaused.wait()  // asleep until resumed, moved, stopped or cancelled
                    continue
                }
                wasPaused = false
                let n = try reader.read(into: floats, maxFrames: block)
                if n == 0 {
                    stream.drain()
                    playedFrames.store(filePos, ordering: .releasing)
                    break
                }
                SampleConversion.int16s(from: floats, into: shorts, count: n * channels)
                try stream.write(shorts, bytes: n * channels * 2)
                try pipeline.process(floats, frames: n) { try sink.frame($0) }
                filePos += n
                let latency = Int(Double(stream.latencyMicroseconds()) * Double(rate) / 1e6)
                playedFrames.store(max(0, filePos - latency), ordering: .releasing)
            }
            if !stopping {
                try pipeline.finish { try sink.frame($0) }
            } else {
                stream.flush()
            }
            try sink.end(pipeline.summary())
        } catch {
            failure.withLock { $0 = error }
        }
    }
}
