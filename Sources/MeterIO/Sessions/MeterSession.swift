import MeterCore

/// Runs a `SessionDescription`: every source through its own `MeterPipeline`, fanned out to
/// the sinks; owns the threads, the handoffs, cancellation and the end of the run (each
/// source's end line, `complete` false when cancelled). `analyze`, a many-file run's workers,
/// `monitor`, `record`, `calibrate` and `play` are each a description of one.
///
/// Every path meters its stream through one `StreamRun` (start line, frames, last partial
/// hop, end line).
///
/// A sample source is read as fast as it delivers, as `threads` say (`spread`: read ahead on
/// a decoding thread; with octave bands, their filter bank, encoding and output on an output
/// thread behind a `BackgroundSink`). A run has one sample source (no command meters several
/// files in one run; a many-file run is one session per file).
///
/// Live sources are opened by `init` (their streams and recordings, so a missing device fails
/// before any sink exists) and captured at their own pace, each by its `LiveMeterSession`
/// (capture, recorder and analysis threads), side by side in a `LiveSessionGroup`.
///
/// A played file (`play`) is read at the pace of its playback stream, one block at a time
/// (while paused, each wake-up is an `idle` call); `start(into:)` runs the session on its own
/// thread so that the caller's thread stays free for the keys, and `finish()` waits for it.
///
/// Either way every sink call comes from one thread at a time (the `FrameSink` rule).
///
/// Thread-safety invariant for `@unchecked Sendable`: `run` is called once, by the owner or
/// by the thread `start(into:)` makes, and only it touches the description's sources;
/// `liveProgress` and `nudge`, which any thread may call (the HTTP server's counters, a
/// redraw after job control), only reach the live group, which is Sendable; `isFinished`
/// and `finish` only the outcome, under its lock, and the wake-up.
public final class MeterSession: @unchecked Sendable {
    public let description: SessionDescription
    private let cancellation: Cancellation
    /// The live sources, opened; nil for sample sources.
    private let live: LiveSessionGroup?
    /// The outcome of the run `start(into:)` began (nil while it runs), and its end signalled.
    private let outcome = Locked<Result<[StreamSummary], any Error>?>(nil)
    private let ended = Wakeup()
    /// The sinks `start(into:)` hands to its thread (set before the thread exists).
    private var handedSinks: [any FrameSink] = []

    /// Cancelling `cancellation` ends the reading (live: the capture) where it is; the run
    /// still finishes. Opens the live sources (`PulseError`, `NetworkStreamError`, and the
    /// recording's errors): `devices`, the connection that found the first one's native
    /// format, is reused for its stream; `continuations` counts the continues after a stop
    /// (job control; what a stop cost becomes a gap line).
    public init(_ description: SessionDescription, cancellation: Cancellation, devices: PulseDevices? = nil,
                continuations: @escaping @Sendable () -> Int = { 0 }) throws {
        self.description = description
        self.cancellation = cancellation
        let options = description.liveOptions
        precondition(options.isEmpty || options.count == description.sources.count, "a run does not mix live and sample sources")
        precondition(!options.isEmpty || description.sources.count == 1, "several sources are live ones")
        live = options.isEmpty ? nil : LiveSessionGroup(try options.enumerated().map { k, o in
            try LiveMeterSession(options: o, devices: k == 0 ? devices : nil, cancellation: cancellation,
                                 continuations: continuations)
        }, cancellation: cancellation)
    }

    /// The names the live sources are metered under (their `start` lines' `source`: a default
    /// resolved to its name, a URL without its password); empty for sample sources.
    public var liveSourceNames: [String] { live?.sessions.map(\.sourceName) ?? [] }

    /// The live sources not there at the start, each with why (`reconnect`: waited for as a
    /// lost one is); empty when every source opened.
    public var waitingAtStart: [(source: String, reason: PulseError)] {
        live?.sessions.compactMap { s in s.waitingAtStart.map { (s.sourceName, $0) } } ?? []
    }

    /// A live run's figures beyond its lines (recorded frames, outage), from any thread; nil
    /// for sample sources.
    public var liveProgress: LiveProgress? { live?.progress }

    /// Wakes a live run's analyses for a call to the sinks (a redraw after a resume).
    public func nudge() { live?.nudge() }

    /// Runs to the end of every source (or a cancellation) into `sinks`, every line to each in
    /// this order; the summaries, in source order. Throws the first error of a source or a sink.
    @discardableResult
    public func run(into sinks: [any FrameSink]) throws -> [StreamSummary] {
        let fanned = sinks.count == 1 ? sinks[0] : FanOutSink(sinks)
        let sink = ThreadCheckedSink.inDebug(fanned, rule: (live?.sessions.count ?? 1) > 1 ? .oneAtATime : .oneThread)
        if let live { return try live.run(sink: sink) }
        let sources = description.sources
        if case .played(let played) = sources[0].input {
            return [try runPlayed(played, settings: sources[0].settings, into: sink)]
        }
        return [try runOne(sources[0], into: sink)]
    }

    /// `run(into:)` on a thread of its own ("pm-playback"); `finish()` waits for it.
    /// The sinks become that thread's until `finish()` returns.
    public func start(into sinks: [any FrameSink]) throws {
        handedSinks = sinks
        try OSThread.spawn(role: "pm-playback") { [self] in
            let result = Result { try run(into: handedSinks) }
            outcome.withLock { $0 = result }
            ended.signal()
        }
    }

    /// The run `start(into:)` began has ended.
    public var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// Waits for the run `start(into:)` began; rethrows what it threw.
    public func finish() throws {
        ended.wait()
        _ = try outcome.withLock { $0 }!.get()
    }

    private var shouldStop: () -> Bool { { [cancellation] in cancellation.isCancelled } }

    /// A played file: each block metered once the stream has taken it, through the same
    /// `StreamRun` as a file, with live frames (`ts`); the last partial hop only when it was
    /// played to its end (a stop ends the frames where the sound ended). The source itself
    /// ends its reading at a stop (flushing the stream), so no `shouldStop` here.
    private func runPlayed(_ played: PlaybackSource, settings: ValidSettings, into sink: any FrameSink) throws -> StreamSummary {
        let pipeline = MeterPipeline(settings: settings, transform: FFTWPowerSpectrum.forBands(of: settings),
                                     liveness: .live(clock: unixSeconds))
        let run = StreamRun(pipeline: pipeline, sink: sink)
        played.whilePaused = { try sink.idle(outage: false, stream: nil) }
        defer { played.whilePaused = nil }
        try run.start(played)
        try run.feed(from: played)
        return try run.finish(complete: played.playedToEnd, lastHop: played.playedToEnd)
    }

    private static func limited(_ source: SessionDescription.Source) -> any SampleBlockSource {
        let input = source.samples!
        return source.limit.map { LimitedSource(input, frames: $0) } ?? input
    }

    private func runOne(_ source: SessionDescription.Source, into sink: any FrameSink) throws -> StreamSummary {
        let settings = source.settings
        let transform = FFTWPowerSpectrum.forBands(of: settings)
        let spread = description.threads == .spread
        // Read ahead on a thread of its own: a spread run, and a file whose reads can wait (a
        // FIFO) in a run laid inline too, since the read-ahead wakes the analysis when the run
        // is stopped and a read of the FIFO would not. Its wake-up is registered with the
        // cancellation (a stalled stdin).
        let readsMayWait = (source.samples as? any AudioFileSource)?.readsMayWait == true
        let readAhead = spread || readsMayWait ? ReadAheadSource(Self.limited(source), cancellation: cancellation) : nil
        defer { readAhead?.stop() }
        // An output thread only for octave bands: their filter bank then runs there, beside the
        // analysis (`--spl --octaves 3` of a 10-minute file: 307 ms of wall time, 455 ms without
        // the thread). For anything else handing each frame to another thread costs more than
        // encoding and writing it where it was made (docs/benchmarks.md: levels-only `analyze`
        // used 15% less CPU and less wall time without one, `--bands 64` 24% less CPU in the
        // same time).
        let background = spread && settings.octaves > 0
            ? BackgroundSink(sink, bands: DeferredBands(settings: settings)) : nil
        let pipeline = MeterPipeline(settings: settings, transform: transform, deferBands: background != nil)
        var output: any FrameSink = background ?? sink
        // A slow pipe: what is analysed goes out before the analysis sleeps for more input.
        readAhead?.whenStarved = { [output] in try output.flush() }
        if let progress = description.progress {
            output = ProgressSink(output, line: progress.line, label: progress.label, totalFrames: source.length)
        }
        // The analysis thread's calls are checked too (the output thread's are, in `BackgroundSink`).
        output = ThreadCheckedSink.inDebug(output, rule: .oneThread)
        return try StreamRun(pipeline: pipeline, sink: output).run(readAhead ?? Self.limited(source), shouldStop: shouldStop)
    }
}
