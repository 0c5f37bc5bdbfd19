import MeterCore
import Synchronization

/// The analysis side of a live run, on the caller's thread: pops the captured chunks, meters
/// them through the run's `StreamRun` (start line, frames as hops complete, end line once the
/// capture and the recording are finished), and puts gap, device and file lines between them
/// at their positions; it makes every call to the sink (the `FrameSink` threading rule).
///
/// It sleeps until the chunks that complete the next hop are in, so it wakes about once per
/// frame it emits and writes that frame at once. A sink that throws stops the run (the capture
/// ends, the recording is finished) and its error is kept for the end.
///
/// Thread-safety invariant for `@unchecked Sendable`: one thread at a time uses it; it is made
/// (and writes the start line) on one thread and then handed to the thread that runs it.
final class LiveAnalysis: @unchecked Sendable {
    private let session: LiveMeterSession
    private let sink: any FrameSink
    private let pipeline: MeterPipeline
    /// The stream's start-to-end sequence (every frame seen by `observe` first).
    private lazy var run = StreamRun(pipeline: pipeline, sink: sink) { [unowned self] frame in observe(frame) }
    /// With `--trigger`: the take decisions, published to the recorder thread.
    private var takes: TakeDetector?
    /// The sink's first error; no call reaches it after one.
    private(set) var sinkError: Error?
    private let floats: UnsafeMutablePointer<Float>
    private let frameBytes: Int

    init(session: LiveMeterSession, sink: any FrameSink, pipeline: MeterPipeline, takes: TakeDetector?) {
        self.session = session
        self.sink = sink
        self.pipeline = pipeline
        self.takes = takes
        let format = session.options.sampleFormat
        frameBytes = pipeline.settings.channels * format.bytesPerSample
        floats = .allocate(capacity: session.meter.ring.slotCapacity / format.bytesPerSample)
    }

    deinit { floats.deallocate() }

    /// The start line. An output already unusable (EPIPE, ENOSPC on /dev/full) stops the run at
    /// once rather than capture until a signal with nowhere to report.
    func start() {
        guarded {
            try run.start(source: session.sourceName, channelNames: session.channelNames,
                          expectedFrames: session.options.durationFrames)
        }
    }

    /// Meters what the capture thread hands over until it ends (the duration, a stop, a
    /// failure). A stop wakes a capture read at once (`LiveCapture`), so the ring closes at once.
    func meterUntilCaptureEnds() {
        let meter = session.meter
        while true {
            let got = drain()
            emitGaps(upTo: pipeline.pos)
            forwardFileEvents()
            if meter.ring.isClosed && meter.ring.available == 0 { return }
            if !got && !session.shouldStop {
                guarded { try sink.idle(outage: session.inOutage.load(ordering: .acquiring), stream: pipeline.stream) }
            }
            // Sleep until the chunks that complete the next hop are in.
            let missing = pipeline.hop - pipeline.pos % pipeline.hop
            meter.waitForChunks((missing + session.chunkFrames - 1) / session.chunkFrames)
        }
    }

    /// After the capture: the frames it counted but the analysis never got (skipped), the last
    /// partial hop, the last take decision, the recording finished, then the end line.
    func finish() -> StreamSummary {
        session.captureDone.wait()
        let total = session.captured.load(ordering: .acquiring)
        guarded {
            if total > pipeline.pos { try run.skip(frames: total - pipeline.pos) }
            try run.finishFrames()
        }
        if takes != nil {
            if let change = takes!.finish(at: total) { session.publish(change) }
            session.decidedUpTo.store(total, ordering: .releasing)
        }
        session.decisionsDone.signal()
        session.recorderDone.wait()
        forwardFileEvents()
        var summary = run.summary(complete: nil)
        if let files = session.files {
            summary.recordedFrames = files.framesWritten
            summary.file = files.lastFile?.string
        }
        guarded { try run.end(summary) }
        return summary
    }

    /// Meters every chunk waiting now; true if there was one.
    private func drain() -> Bool {
        var got = false
        let format = session.options.sampleFormat, channels = pipeline.settings.channels
        while session.meter.pop({ chunk, position in
            got = true
            let frames = chunk.count / frameBytes
            let expected = pipeline.pos
            emitGaps(upTo: position)
            guarded {
                if position > expected { try run.skip(frames: position - expected) }
                SampleConversion.floats(from: UnsafeRawPointer(chunk.baseAddress!), format: format,
                                        into: floats, count: frames * channels)
                try run.feed(floats, frames: frames)
            }
        }) {}
        return got
    }

    /// Each frame, before the sink gets it: the take decisions.
    private func observe(_ frame: MeterFrame) {
        guard takes != nil else { return }
        if let change = takes!.observe(frame) { session.publish(change) }
        session.decidedUpTo.store(frame.pos, ordering: .releasing)
    }

    /// Runs a call to the sink unless one failed already; a failure stops the run.
    private func guarded(_ body: () throws -> Void) {
        guard sinkError == nil else { return }
        do { try body() } catch {
            sinkError = error
            session.stopCapture()
        }
    }

    private func forwardFileEvents() {
        guard session.recorder != nil else { return }  // only a recording has file events
        for e in stamped(session.fileEvents.take(), \.stream) { guarded { try sink.file(e) } }
    }

    /// The `source_lost` event lines of losses, the gap lines of outages and the device lines
    /// of changes at or before `bound`, so each sits between the frames captured before and
    /// after it: a loss is written once the frames captured before it are, at once.
    private func emitGaps(upTo bound: Int) {
        // At every wake-up and chunk, when all three are nearly always empty.
        guard !(session.losses.isEmpty && session.gaps.isEmpty && session.deviceChanges.isEmpty) else { return }
        let losses = Self.take(session.losses, upTo: bound) { $0.event.pos }
        for l in losses { guarded { try sink.event(l.event, ts: l.ts, stream: pipeline.stream) } }
        let gaps = Self.take(session.gaps, upTo: bound) { $0.pos }
        for g in stamped(gaps, \.stream) { guarded { try sink.gap(g) } }
        let changes = Self.take(session.deviceChanges, upTo: bound) { $0.pos }
        for d in stamped(changes, \.stream) { guarded { try sink.device(d) } }
    }

    /// `lines` with this source's stream index (the NDJSON `stream` field), as the pipeline
    /// stamps its own frames: the capture and recorder threads that made them do not know it.
    /// The lists are nearly always empty (it runs at every wake-up of the analysis): then it
    /// returns at once.
    private func stamped<T>(_ lines: [T], _ stream: WritableKeyPath<T, Int?>) -> [T] {
        guard !lines.isEmpty else { return lines }
        return lines.map { line in
            var line = line
            line[keyPath: stream] = pipeline.stream
            return line
        }
    }

    /// Removes and returns the facts at the front of `queue` at positions up to `bound`.
    /// Called at every wake-up of the analysis, when the queues are nearly always empty: then
    /// it allocates nothing.
    private static func take<T: Sendable>(_ queue: FactQueue<T>, upTo bound: Int, _ pos: (T) -> Int) -> [T] {
        queue.take { pos($0) <= bound }
    }
}
