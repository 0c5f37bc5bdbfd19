import Dispatch
import Glibc
import MeterCore
import Synchronization

/// What a live run captures and does.
public struct LiveOptions: Sendable {
    public var device: String?
    public var settings: MeterSettings
    /// Stop after this many captured frames (`--duration`).
    public var durationFrames: Int?
    /// Also record every captured frame here.
    public var recordPath: FilePath?
    /// On server or device loss, wait and resume instead of failing.
    public var reconnect: Bool
    /// The lossy encoder's bit rate (`--bitrate`); nil: its default.
    public var bitrateKbps: Int?
    /// One file, split files or voice-activated takes (`recordPath` is then the name pattern).
    public var recordMode: RecordingPlan.Mode
    /// Replace an existing recording file (`.single` only); when false it is never touched.
    public var replaceRecording = false
    /// The capture's sample format, and the recording's (`--bits`).
    public var sampleFormat: SampleFormat = .s16
    /// Pauses and resumes the recording (the meter goes on); nil: never paused.
    public var pause: PauseControl?
    /// With `--trigger`: takes longer than this go on in a new file (`--split` as well).
    public var takeSplitFrames: Int?
    /// With `--split` or `--trigger`: the newest files kept (`--keep`); nil: all.
    public var keepFiles: Int?
    /// Meter this network stream (through ffmpeg, `ffmpeg` or on PATH) instead of `device`.
    public var url: StreamURL?
    public var ffmpeg: String?

    public init(device: String? = nil, settings: MeterSettings, durationFrames: Int? = nil,
                recordPath: FilePath? = nil, reconnect: Bool = false, bitrateKbps: Int? = nil,
                recordMode: RecordingPlan.Mode = .single) {
        self.device = device
        self.settings = settings
        self.durationFrames = durationFrames
        self.recordPath = recordPath
        self.reconnect = reconnect
        self.bitrateKbps = bitrateKbps
        self.recordMode = recordMode
    }
}

/// Live capture: three threads joined by `ChunkHandoff`s.
///
/// ```
/// capture thread (pa_simple_read) ─┬─► meter handoff ─► analysis (caller's thread) ─► sink
///                                  └─► record handoff ─► recorder thread ─► Recorder ─► files
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
/// Thread-safety invariant for `@unchecked Sendable`: `stream` is touched only by the capture
/// thread once `run` starts; `files` only by the recorder thread (and by `run` once that thread
/// is done); everything else shared is an Atomic, a Mutex, a semaphore, or a ChunkHandoff or
/// ChunkRing used by exactly one producer and one consumer.
public final class LiveMeterSession: @unchecked Sendable {
    public let options: LiveOptions
    /// The source name shown in the `start` line (the default source resolved to its name).
    public let sourceName: String
    /// Frames per capture read and per ring chunk.
    public let chunkFrames: Int

    private var stream: (any LiveCapture)?
    /// The recording's files (one, split, or takes), written by the recorder thread.
    private var files: Recorder?
    /// Take decisions (`--trigger`), analysis -> recorder: [0 open | 1 close, position].
    private let takeChanges = ChunkRing<Int>(slots: 1024, slotCapacity: 2)
    /// Capture position up to which the analysis has decided (takes: open or not).
    private let decidedUpTo = Atomic<Int>(0)
    /// Posted once the analysis made its last take decision.
    private let decisionsDone = DispatchSemaphore(value: 0)
    /// Files opened and closed, recorder -> analysis (for the sink's `file` lines).
    private let fileEvents = FileEventQueue()
    /// Captured frames as the server delivered them (bytes in `options.sampleFormat`).
    private let meter: ChunkHandoff<UInt8>
    private let recorder: ChunkHandoff<UInt8>?
    private let recorderBatch: Int
    private let cancellation: Cancellation

    private let captured = Atomic<Int>(0)            // frames captured so far
    private let recordOverflow = Atomic<Int>(0)      // frames the record ring could not take
    private let abandoned = Atomic<Bool>(false)      // analysis gave up waiting for a blocked read
    private let internalStop = Atomic<Bool>(false)   // a consumer failed; stop capturing
    private let captureDone = Wakeup()
    private let recorderDone = Wakeup()
    private let failures = Mutex<[Error]>([])
    /// Outages survived, each with the captured-frame position where it happened: the
    /// analysis emits a gap line once it has processed the frames before it, so the line
    /// always sits between the frames captured before and after the outage.
    private let gaps = Mutex<[StreamGap]>([])
    /// What the source meters, when it changed, with the position where it did (as gaps).
    private let deviceChanges = Mutex<[DeviceChange]>([])
    /// How many times the process has been continued after a stop (job control): the capture
    /// thread measures what each stop cost (`StopLossEstimator`).
    private let continuations: @Sendable () -> Int
    /// True while the capture thread waits for the server to come back (`reconnect`).
    public let inOutage = Atomic<Bool>(false)
    /// Frames in the recording's files so far, published by the recorder thread.
    private let recorded = Atomic<Int>(0)

    /// The run's figures beyond its lines, from any thread (the network server's counters).
    public var progress: LiveProgress {
        LiveProgress(recordedFrames: options.recordPath == nil ? nil : recorded.load(ordering: .acquiring),
                     outage: inOutage.load(ordering: .acquiring))
    }

    /// Frames per read for a meter hop of `hop` frames at `rate`: the hop itself when it lasts
    /// 10 to 50 ms; for longer hops the hop cut into equal reads of at most 50 ms (so a stop
    /// acts fast); 10 ms when hops are shorter (several frames per read).
    public static func chunkFrames(hop: Int, rate: Int) -> Int {
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
    public init(options: LiveOptions, cancellation: Cancellation = Cancellation(),
                continuations: @escaping @Sendable () -> Int = { 0 }) throws {
        self.options = options
        self.cancellation = cancellation
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
        let stream = try options.openCapture(fragmentFrames: chunkFrames)
        self.stream = stream
        sourceName = stream.captureName ?? options.device ?? "default"
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
    }

    /// Wakes the analysis for a call to the sink even without audio (a redraw after a resume).
    public func nudge() { meter.nudgeConsumer() }

    private var shouldStop: Bool { cancellation.isCancelled || internalStop.load(ordering: .acquiring) }

    private func fail(_ e: Error) {
        failures.withLock { $0.append(e) }
        internalStop.store(true, ordering: .releasing)
        meter.nudgeConsumer()
    }

    // MARK: capture thread

    private func captureLoop() {
        let s = options.settings
        let frameBytes = s.channels * options.sampleFormat.bytesPerSample
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: chunkFrames * frameBytes, alignment: 16)
        defer {
            scratch.deallocate()
            recorder?.close()
            meter.close()
            captureDone.signal()
        }
        var pos = 0
        let limit = options.durationFrames ?? Int.max
        var stops = StopLossEstimator(rate: s.rate, chunkSeconds: Double(chunkFrames) / Double(s.rate))
        var seenContinues = continuations()
        var paused = false
        while !shouldStop && pos < limit {
            let frames = min(chunkFrames, limit - pos)
            do {
                guard let stream else { throw PulseError.streamLost(reason: "no stream") }
                try stream.read(scratch, bytes: frames * frameBytes)
            } catch {
                if shouldStop { break }
                guard options.reconnect else {
                    fail(options.lossError(source: sourceName, reason: stream?.lastError ?? "\(error)"))
                    break
                }
                guard reconnectAfterLoss(at: pos) else { break }
                stops.reset()
                continue
            }
            if var change = stream?.takeDeviceChange() {
                change.pos = pos
                deviceChanges.withLock { $0.append(change) }
            }
            let continues = continuations()
            if continues != seenContinues {
                seenContinues = continues
                stops.continued()
            }
            if let loss = stops.read(endingAt: pos + frames, at: monotonicSeconds()) {
                let toUnix = unixSeconds() - monotonicSeconds()
                gaps.withLock {
                    $0.append(StreamGap(pos: loss.pos, startTs: loss.stoppedAt + toUnix, endTs: loss.continuedAt + toUnix,
                                        seconds: Double(loss.frames) / Double(s.rate), reason: .stopped))
                }
            }
            if abandoned.load(ordering: .acquiring) { break }
            let chunk = UnsafeBufferPointer(start: scratch.assumingMemoryBound(to: UInt8.self), count: frames * frameBytes)
            if let recorder {
                // Paused: the recorder gets an empty chunk where the pause begins (it reports
                // it), then nothing until the first chunk after the resume.
                let pausedNow = options.pause?.isPaused ?? false
                if pausedNow && !paused {
                    recorder.withWritableSlot(position: pos) { _ in 0 }
                    recorder.nudgeConsumer()  // reported now, not with the next batch
                }
                paused = pausedNow
                if !paused && !recorder.push(chunk, position: pos) {
                    recordOverflow.add(frames, ordering: .relaxed)
                }
            }
            meter.push(chunk, position: pos)  // full: dropped, seen by position
            pos += frames
            captured.store(pos, ordering: .releasing)
        }
    }

    /// Waits for the server and the named device to come back (opening checks that the device
    /// exists, so a server back without it is still an outage), retrying every 0.1 s doubling
    /// to 0.5 s. Records the outage as a gap from the loss to the new stream, at capture
    /// position `pos`; false when stopped meanwhile. Nudges the analysis at each step so the
    /// sink can show the outage.
    private func reconnectAfterLoss(at pos: Int) -> Bool {
        let start = unixSeconds()
        inOutage.store(true, ordering: .releasing)
        meter.nudgeConsumer()
        defer {
            inOutage.store(false, ordering: .releasing)
            meter.nudgeConsumer()
        }
        stream = nil
        var delay = 0.1
        let pause = Wakeup()
        let wake = cancellation.onCancel { pause.signal() }
        defer { cancellation.remove(wake) }  // an unattended run may reconnect many times
        while !shouldStop {
            if let s = try? options.openCapture(fragmentFrames: chunkFrames) {
                stream = s
                gaps.withLock { $0.append(StreamGap(pos: pos, startTs: start, endTs: unixSeconds())) }
                return true
            }
            pause.wait(seconds: delay)  // the back-off; a stop request ends it at once
            delay = min(options.url == nil ? 0.5 : 2, delay * 2)  // a stream server: less often
        }
        return false
    }

    // MARK: recorder thread

    private func recordLoop() {
        defer { recorderDone.signal() }
        guard let recorder, let files else { return }
        var failed = false
        var triggered = false
        if case .trigger = files.plan.mode { triggered = true }
        func attempt(_ body: () throws(OutputError) -> Void) {
            guard !failed else { return }
            do { try body() } catch {
                failed = true
                fail(error)
            }
        }
        while recorder.waitForChunks(recorderBatch) {
            while recorder.pop({ chunk, position in
                attempt { () throws(OutputError) in try files.receive(UnsafeRawBufferPointer(chunk), position: position) }
            }) {}
            if triggered { attempt { () throws(OutputError) in try takeDecisions(into: files) } }
            // A file line (a pause above all) reaches the output now, even while no audio comes.
            if fileEvents.list.withLock({ !$0.isEmpty }) { meter.nudgeConsumer() }
            recorded.store(files.framesWritten, ordering: .releasing)
        }
        if triggered {
            decisionsDone.wait()  // the analysis's last decisions (it posts them right after capture)
            attempt { () throws(OutputError) in try takeDecisions(into: files) }
        }
        do { try files.finish() } catch { if !failed { fail(error) } }
        recorded.store(files.framesWritten, ordering: .releasing)
    }

    /// Hands the analysis side's take decisions so far to the recorder.
    private func takeDecisions(into files: Recorder) throws(OutputError) {
        let horizon = decidedUpTo.load(ordering: .acquiring)
        var changes: [TakeDetector.Change] = []
        while takeChanges.pop({ c, _ in changes.append(c[0] == 0 ? .open(at: c[1]) : .close(at: c[1])) }) {}
        try files.decide(changes, upTo: horizon)
    }

    /// Analysis side: publishes a take decision. Decisions are rare (two per take); the ring
    /// holds 1024, so this waits only if the recorder thread has stalled for hundreds of takes.
    private func publish(_ change: TakeDetector.Change) {
        let pair: [Int]
        switch change {
        case .open(let at): pair = [0, at]
        case .close(let at): pair = [1, at]
        }
        pair.withUnsafeBufferPointer { p in
            while !takeChanges.push(p, position: 0) { usleep(1_000) }
        }
    }

    // MARK: analysis (the caller's thread)

    /// Runs until the duration, a cancellation, a failure, or the sink's reader going away.
    /// Emits start, frames (with `ts`), gaps and the end line; the recording is finished before
    /// the end line is written. Throws the first failure after everything is finished.
    @discardableResult
    public func run(sink: any FrameSink, transform: (any PowerSpectrumTransform)?) throws -> StreamSummary {
        let s = options.settings
        let pipeline = try MeterPipeline(settings: s, transform: transform, clock: unixSeconds)
        if let end = options.durationFrames { pipeline.expectEnd(at: end) }
        var sinkError: Error?
        do { try sink.start(pipeline.streamInfo(source: sourceName, live: true, channelNames: stream?.channelNames)) } catch {
            // The output is already unusable (EPIPE, ENOSPC on /dev/full): stop at once rather
            // than capture until a signal with nowhere to report.
            sinkError = error
            internalStop.store(true, ordering: .releasing)
        }
        let wake = cancellation.onCancel { [meter] in meter.nudgeConsumer() }
        defer { cancellation.remove(wake) }
        try OSThread.spawn(role: "pm-capture") { [self] in captureLoop() }
        if recorder != nil {
            do {
                try OSThread.spawn(role: "pm-recorder") { [self] in recordLoop() }
            } catch {
                internalStop.store(true, ordering: .releasing)
                captureDone.wait()
                throw error
            }
        } else {
            recorderDone.signal()
        }

        let sampleFormat = options.sampleFormat
        let frameBytes = s.channels * sampleFormat.bytesPerSample
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: meter.ring.slotCapacity / sampleFormat.bytesPerSample)
        defer { floats.deallocate() }
        let hop = pipeline.hop
        var takes: TakeDetector?
        if case .trigger(let t) = options.recordMode, files != nil { takes = TakeDetector(settings: t) }
        let emit: (MeterFrame) throws -> Void = { [self] frame in
            if takes != nil {
                if let change = takes!.observe(frame) { publish(change) }
                decidedUpTo.store(frame.pos, ordering: .releasing)
            }
            try sink.frame(frame)
        }
        func guarded(_ body: () throws -> Void) {
            guard sinkError == nil else { return }
            do { try body() } catch {
                sinkError = error
                internalStop.store(true, ordering: .releasing)
            }
        }
        func forwardFileEvents() {
            let events = fileEvents.list.withLock { e -> [RecordingFileEvent] in defer { e.removeAll() }; return e }
            for e in events { guarded { try sink.file(e) } }
        }
        func emitGaps(upTo bound: Int) {
            for g in Self.take(gaps, upTo: bound, \.pos) { guarded { try sink.gap(g) } }
            for d in Self.take(deviceChanges, upTo: bound, \.pos) { guarded { try sink.device(d) } }
        }
        while true {
            var got = false
            while meter.pop({ chunk, position in
                got = true
                let frames = chunk.count / frameBytes
                let expected = pipeline.pos
                emitGaps(upTo: position)
                guarded {
                    if position > expected { try pipeline.skip(frames: position - expected, emit: emit) }
                    SampleConversion.floats(from: UnsafeRawPointer(chunk.baseAddress!), format: sampleFormat,
                                            into: floats, count: frames * s.channels)
                    try pipeline.process(floats, frames: frames, emit: emit)
                }
            }) {}
            emitGaps(upTo: pipeline.pos)
            forwardFileEvents()
            if meter.ring.isClosed && meter.ring.available == 0 { break }
            if shouldStop {
                // A read blocked on a silent source cannot be interrupted; give it half a second.
                if !meter.waitForClose(seconds: 0.5) {
                    abandoned.store(true, ordering: .releasing)
                    recorder?.cancel()
                    break
                }
                continue
            }
            if !got, let live = sink as? LiveStatusSink {
                guarded { try live.idle(outage: inOutage.load(ordering: .acquiring)) }
            }
            // Sleep until the chunks that complete the next hop are in.
            let missing = hop - pipeline.pos % hop
            meter.waitForChunks((missing + chunkFrames - 1) / chunkFrames)
        }
        if !abandoned.load(ordering: .acquiring) { captureDone.wait() }
        let total = captured.load(ordering: .acquiring)
        guarded {
            if total > pipeline.pos { try pipeline.skip(frames: total - pipeline.pos, emit: emit) }
            try pipeline.finish(emit: emit)
        }
        if takes != nil {
            if let change = takes!.finish(at: total) { publish(change) }
            decidedUpTo.store(total, ordering: .releasing)
        }
        decisionsDone.signal()
        recorderDone.wait()
        forwardFileEvents()
        var summary = pipeline.summary()
        if let files {
            summary.recordedFrames = files.framesWritten
            summary.file = files.lastFile?.string
        }
        guarded { try sink.end(summary) }

        let overflow = recordOverflow.load(ordering: .acquiring)
        if overflow > 0 {
            throw OutputError.recordingOverflow(lostFrames: overflow, writtenFrames: summary.recordedFrames ?? 0)
        }
        if let first = failures.withLock({ $0.first }) { throw first }
        if let sinkError { throw sinkError }
        return summary
    }
}

extension LiveMeterSession {
    /// Removes and returns the entries of `list` at positions up to `bound`.
    fileprivate static func take<T: Sendable>(_ list: borrowing Mutex<[T]>, upTo bound: Int, _ pos: @Sendable (T) -> Int) -> [T] {
        list.withLock { l -> [T] in
            defer { l.removeAll { pos($0) <= bound } }
            return l.filter { pos($0) <= bound }
        }
    }
}

/// A sink that wants a call while no audio arrives (to show an outage or follow a resize).
public protocol LiveStatusSink: FrameSink {
    func idle(outage: Bool) throws
}

/// Files opened and closed, handed from the recorder thread to the analysis (a class, so the
/// recorder's report closure can hold it).
private final class FileEventQueue: Sendable {
    let list = Mutex<[RecordingFileEvent]>([])
}
