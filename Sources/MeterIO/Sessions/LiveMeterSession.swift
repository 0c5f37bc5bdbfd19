import MeterCore
import Synchronization

/// Live capture: three threads joined by `ChunkHandoff`s.
///
/// ```
/// capture thread (LiveCapture.read) ─┬─► meter handoff ─► analysis (caller's thread) ─► sink
///                                    └─► record handoff ─► recorder thread ─► Recorder ─► files
///                  analysis ─► take decisions (positions, --trigger) ─┘
/// ```
/// The capture thread only reads and pushes; it never waits on analysis, output or disk (a
/// push never blocks; waking a sleeping consumer is one `sem_post`). A full meter ring drops
/// the chunk (the analysis sees the hole by position and counts it in `dropped`); the record
/// ring holds about 10 s, and an overflow is counted and reported.
///
/// Wake-ups are the cost of a live meter, not the arithmetic: reads are sized to the meter
/// hop (whole hops, 10 to 50 ms), and the analysis sleeps until the chunks that complete the
/// next hop are in, so it wakes about once per frame it emits and writes that frame at once
/// (capture to output well under one hop). The recorder wakes about four times a second.
/// The analysis runs the same `MeterPipeline` as `analyze`, on the same Float conversion.
///
/// The parts: this file holds the state and `run`; the capture thread's loop is in
/// LiveCaptureThread.swift, the recorder thread's in LiveRecorderThread.swift, the analysis
/// (the caller's thread, the only one calling the sink) in `LiveAnalysis`.
///
/// Thread-safety invariant for `@unchecked Sendable`: `stream` is touched only by the capture
/// thread once `run` starts; `files` only by the recorder thread (and by `run` once that thread
/// is done); everything else shared is an Atomic, a `Locked` (a pthread mutex, so that
/// ThreadSanitizer checks what it guards), a `Wakeup`, or a ChunkHandoff used by exactly one
/// producer and one consumer.
final class LiveMeterSession: @unchecked Sendable {
    let options: LiveOptions
    /// The source name shown in the `start` line (the default source resolved to its name).
    let sourceName: String
    /// The channel map's names of the stream as opened, for the start line.
    let channelNames: [String]
    /// Frames per capture read and per ring chunk.
    let chunkFrames: Int
    /// With `reconnect`: why the source could not be opened at the start (no server, no such
    /// device yet); the capture thread then waits for it as for a lost one. Nil: it opened.
    let waitingAtStart: PulseError?

    var stream: (any LiveCapture)?
    /// The recording's files (one, split, or takes), written by the recorder thread.
    var files: Recorder?
    /// Take decisions (`--trigger`), analysis -> recorder. Two per take, so a lock never held
    /// for more than an append or a swap; never full, so the analysis never waits on it.
    let takeChanges = Locked<[TakeDetector.Change]>([])
    /// Capture position up to which the analysis has decided (takes: open or not).
    let decidedUpTo = Atomic<Int>(0)
    /// Signalled once the analysis made its last take decision.
    let decisionsDone = Wakeup()
    /// Files opened and closed, recorder -> analysis (for the sink's `file` lines).
    let fileEvents = FileEventQueue()
    /// Captured frames as the server delivered them (bytes in `options.sampleFormat`).
    let meter: ChunkHandoff<UInt8>
    let recorder: ChunkHandoff<UInt8>?
    let recorderBatch: Int
    /// Stops the capture: cancelled by the run's cancellation (a stop request) or by a failure
    /// here (a sink that failed, a lost source). Every capture read and opening wakes on it.
    let cancellation: Cancellation

    let captured = Atomic<Int>(0)            // frames captured so far
    let recordOverflow = Atomic<Int>(0)      // frames the record ring could not take
    let captureDone = Wakeup()
    let recorderDone = Wakeup()
    let failures = Locked<[Error]>([])
    /// Outages survived, each with the captured-frame position where it happened: the
    /// analysis emits a gap line once it has processed the frames before it, so the line
    /// always sits between the frames captured before and after the outage.
    /// These three go from the capture thread to the analysis through lock-free queues: the
    /// capture thread never takes a lock the analysis holds.
    let gaps = FactQueue<StreamGap>()
    /// With `--events`: each loss of the source (`source_lost`) when it happened (Unix time),
    /// at the position of the outage's gap, emitted the same way, but at once.
    let losses = FactQueue<(event: MeterEvent, ts: Double)>()
    /// What the source meters, when it changed, with the position where it did (as gaps).
    let deviceChanges = FactQueue<DeviceChange>()
    /// How many times the process has been continued after a stop (job control): the capture
    /// thread measures what each stop cost (`StopLossEstimator`).
    let continuations: @Sendable () -> Int
    /// True while the capture thread waits for the server to come back (`reconnect`).
    let inOutage = Atomic<Bool>(false)
    /// Frames in the recording's files so far, published by the recorder thread.
    let recorded = Atomic<Int>(0)

    /// The run's figures beyond its lines, from any thread (the network server's counters).
    var progress: LiveProgress {
        LiveProgress(recordedFrames: options.recordPath == nil ? nil : recorded.load(ordering: .acquiring),
                     outage: inOutage.load(ordering: .acquiring))
    }

    /// Frames per read for a meter hop of `hop` frames at `rate`: the hop itself when it lasts
    /// 10 to 50 ms; for longer hops the hop cut into equal reads of at most 50 ms (so a stop
    /// acts fast); 10 ms when hops are shorter (several frames per read).
    static func chunkFrames(hop: Int, rate: Int) -> Int {
        let shortest = max(1, rate / 100), longest = max(1, rate / 20)
        if hop <= shortest { return shortest }
        let reads = (hop + longest - 1) / longest
        return (hop + reads - 1) / reads
    }

    /// Connects to the server (`PulseError`) then creates the recording, before anything is
    /// captured. Cancelling `cancellation` ends `run` as a stop request does: the frames
    /// captured so far are analysed, the recording is finished, the end line is written.
    ///
    /// `continuations` counts the continues after a stop (the CLI passes its SIGCONT count);
    /// audio the server could not hold while stopped becomes a gap line (`.stopped`).
    /// `devices`: the connection that found the source's native format, reused to open the
    /// stream (a reconnection opens its own).
    init(options: LiveOptions, devices: PulseDevices? = nil, cancellation: Cancellation = Cancellation(),
         continuations: @escaping @Sendable () -> Int = { 0 }) throws {
        self.options = options
        let own = Cancellation(following: cancellation)
        self.cancellation = own
        self.continuations = continuations
        let s = options.settings
        // The container is checked first (a usage error), the file created only once the
        // server answered (no empty file left behind when it does not).
        let format = try options.recordPath.map { (path) throws(RecordingError) in
            try RecordingFormat.choose(path: path, rate: s.rate, channels: s.channels, bitrateKbps: options.bitrateKbps,
                                       sampleFormat: options.sampleFormat)
        }
        let chunkFrames = Self.chunkFrames(hop: s.hop, rate: s.rate)
        self.chunkFrames = chunkFrames
        var stream: (any LiveCapture)?
        do {
            stream = try options.openCapture(fragmentFrames: chunkFrames, devices: devices, cancellation: own)
            waitingAtStart = nil
        } catch let e as PulseError where options.reconnect && options.url == nil && e.isAbsence {
            // Not there yet (a service started before its sound server): waited for as a lost
            // source is, by the capture thread; the start line names the source as given.
            waitingAtStart = e
        }
        self.stream = stream
        sourceName = stream?.captureName ?? options.device ?? "default"
        channelNames = stream?.channelNames ?? ChannelNames.waveDefault(channels: s.channels)
        if let path = options.recordPath, let format {
            var plan = RecordingPlan(path: path, mode: options.recordMode)
            plan.replaceExisting = options.replaceRecording
            plan.takeSplitFrames = options.takeSplitFrames
            plan.keepFiles = options.keepFiles
            files = try Recorder(plan: plan, format: format) { [fileEvents] e in
                fileEvents.list.withLock { $0.append(e) }
            }
        }
        let slotBytes = chunkFrames * s.channels * options.sampleFormat.bytesPerSample
        let slot = slotBytes  // the rings carry the captured bytes
        // ~2.5 s of meter input (at least 32 chunks; less for very wide specs): enough to ride
        // out bursts from sources that deliver in lumps (pipe sources, PipeWire) without dropping.
        let seconds = Double(chunkFrames) / Double(s.rate)
        meter = ChunkHandoff(slots: max(32, min(Int(2.5 / seconds) + 1, (4 << 20) / slotBytes)), slotCapacity: slot)
        let recordSlots = max(200, min(Int(10 / seconds) + 1, (24 << 20) / slotBytes))  // ~10 s, at most ~24 MB
        recorder = options.recordPath == nil ? nil : ChunkHandoff(slots: recordSlots, slotCapacity: slot)
        recorderBatch = max(1, min(recordSlots / 4, Int(0.25 / seconds)))
        // Waiting from the start is an outage from the start (before the capture thread runs).
        if waitingAtStart != nil { inOutage.store(true, ordering: .releasing) }
    }

    /// Wakes the analysis for a call to the sink even without audio (a redraw after a resume).
    func nudge() { meter.nudgeConsumer() }

    var shouldStop: Bool { cancellation.isCancelled }

    /// Ends the capture from inside the run (a failure): its read wakes at once.
    func stopCapture() { cancellation.cancel() }

    func fail(_ e: Error) {
        failures.withLock { $0.append(e) }
        stopCapture()
        meter.nudgeConsumer()
    }

    /// Runs until the duration, a cancellation, a failure, or the sink's reader going away.
    /// Emits start, frames (with `ts`), gaps and the end line; the recording is finished before
    /// the end line is written. Throws the first failure after everything is finished.
    @discardableResult
    func run(sink: any FrameSink) throws -> StreamSummary {
        try run(prepare(sink: sink))
    }

    /// The analysis of a run, its start line written (`LiveSessionGroup` writes every
    /// source's before any of them captures).
    func prepare(sink: any FrameSink) throws -> LiveAnalysis {
        let pipeline = MeterPipeline(settings: options.settings, transform: FFTWPowerSpectrum.forBands(of: options.settings),
                                     liveness: .live(clock: unixSeconds), stream: options.stream)
        var takes: TakeDetector?
        if case .trigger(let t) = options.recordMode, files != nil { takes = TakeDetector(settings: t) }
        let analysis = LiveAnalysis(session: self, sink: sink, pipeline: pipeline, takes: takes)
        analysis.start()
        return analysis
    }

    /// The rest of `run` once the start line is out: the threads, the metering, the end.
    /// `wakes`: a cancellation wakes the analysis (false: the caller registered that already,
    /// as `LiveSessionGroup` does for all its sessions from one thread).
    func run(_ analysis: LiveAnalysis, wakes: Bool = true) throws -> StreamSummary {
        let wake = wakes ? cancellation.onCancel { [meter] in meter.nudgeConsumer() } : nil
        defer { if let wake { cancellation.remove(wake) } }
        try startThreads()
        analysis.meterUntilCaptureEnds()
        let summary = analysis.finish()
        try throwFailure(recordedFrames: summary.recordedFrames, sinkError: analysis.sinkError)
        return summary
    }

    /// The capture thread, and the recorder thread when recording.
    private func startThreads() throws {
        try OSThread.spawn(role: "pm-capture") { [self] in captureLoop() }
        guard recorder != nil else {
            recorderDone.signal()
            return
        }
        do {
            try OSThread.spawn(role: "pm-recorder") { [self] in recordLoop() }
        } catch {
            stopCapture()
            captureDone.wait()
            throw error
        }
    }

    /// The run's failure, once everything is finished: a record ring overflow first, then the
    /// first failure of a thread, then the sink's.
    private func throwFailure(recordedFrames: Int?, sinkError: Error?) throws {
        let overflow = recordOverflow.load(ordering: .acquiring)
        if overflow > 0 {
            throw OutputError.recordingOverflow(lostFrames: overflow, writtenFrames: recordedFrames ?? 0)
        }
        if let first = failures.withLock({ $0.first }) { throw first }
        if let sinkError { throw sinkError }
    }
}

/// Files opened and closed, handed from the recorder thread to the analysis (a class, so the
/// recorder's report closure can hold it).
final class FileEventQueue: Sendable {
    let list = Locked<[RecordingFileEvent]>([])

    /// The events so far, taken.
    func take() -> [RecordingFileEvent] { list.withLock { e in defer { e.removeAll() }; return e } }
}
