/// One stream through the meter, start to end: the start line, blocks through the pipeline
/// (each completed hop a frame), the last partial hop, the summary and the end line. Every run
/// uses it: a file or stdin read as fast as it decodes (`run(_:)`), a played file, a live
/// source fed from its capture handoff (which puts its gap, device and file lines between the
/// blocks, straight to `sink`).
///
/// All its calls come from the run's analysis thread (the `FrameSink` rule).
public final class StreamRun {
    public let pipeline: MeterPipeline
    public let sink: any FrameSink
    /// Sees every frame before the sink does (a live recording's take decisions).
    private let observe: ((MeterFrame) -> Void)?

    public init(pipeline: MeterPipeline, sink: any FrameSink, observe: ((MeterFrame) -> Void)? = nil) {
        self.pipeline = pipeline
        self.sink = sink
        self.observe = observe
    }

    /// The start line. `expectedFrames`: where the stream will end, when known (a file's
    /// declared length, a live `--duration`), so that the last partial hop's window is exact.
    public func start(source: String, channelNames: [String]?, expectedFrames: Int?) throws {
        if let expectedFrames { pipeline.expectEnd(at: expectedFrames) }
        try sink.start(pipeline.streamInfo(source: source, channelNames: channelNames))
    }

    /// The start line of a source's samples.
    public func start(_ source: any SampleBlockSource) throws {
        try start(source: source.name, channelNames: source.channelNames, expectedFrames: source.expectedFrames)
    }

    /// Meters `frames` interleaved frames; the frames of the hops they complete go out.
    public func feed(_ samples: UnsafePointer<Float>, frames: Int) throws {
        try pipeline.process(samples, frames: frames, emit: emit)
    }

    public func feed(_ block: SampleBlock, frames: Int) throws {
        try pipeline.process(block, frames: frames, emit: emit)
    }

    /// `frames` that never arrived (a live run's drops); see `MeterPipeline.skip`.
    public func skip(frames: Int) throws {
        try pipeline.skip(frames: frames, emit: emit)
    }

    /// The last partial hop's frame, if any of it was metered.
    public func finishFrames() throws {
        try pipeline.finish(emit: emit)
    }

    /// The summary so far; `complete` as the end line says it (nil: not said, a live run).
    public func summary(complete: Bool?) -> StreamSummary {
        var s = pipeline.summary()
        s.complete = complete
        return s
    }

    /// The end line.
    public func end(_ summary: StreamSummary) throws {
        try sink.end(summary)
    }

    /// The last partial hop (unless `lastHop` is false: a played file stopped early ends its
    /// frames where the sound ended), then the end line; returns its summary.
    @discardableResult
    public func finish(complete: Bool?, lastHop: Bool = true) throws -> StreamSummary {
        if lastHop { try finishFrames() }
        let s = summary(complete: complete)
        try end(s)
        return s
    }

    /// A whole source read as fast as it delivers, start to end; `complete` unless
    /// `shouldStop` (polled between blocks) cut the reading short.
    @discardableResult
    public func run(_ source: any SampleBlockSource, blockFrames: Int = 16384,
                    shouldStop: () -> Bool = { false }) throws -> StreamSummary {
        try start(source)
        try feed(from: source, blockFrames: blockFrames, shouldStop: shouldStop)
        return try finish(complete: !shouldStop())
    }

    /// Meters what `source` delivers until its end or `shouldStop` (`forEachBlock`).
    public func feed(from source: any SampleBlockSource, blockFrames: Int = 16384,
                     shouldStop: () -> Bool = { false }) throws {
        try source.forEachBlock(blockFrames: blockFrames, shouldStop: shouldStop) { try feed($0, frames: $1) }
    }

    private func emit(_ frame: MeterFrame) throws {
        observe?(frame)
        try sink.frame(frame)
    }
}

extension MeterPipeline {
    /// A whole source through this pipeline into `sink` (`StreamRun.run`).
    @discardableResult
    public func run(source: any SampleBlockSource, sink: any FrameSink, blockFrames: Int = 16384,
                    shouldStop: () -> Bool = { false }) throws -> StreamSummary {
        try StreamRun(pipeline: self, sink: sink).run(source, blockFrames: blockFrames, shouldStop: shouldStop)
    }
}
