/// A source of interleaved Float samples read in blocks: a decoded file, raw PCM on stdin.
/// (Live capture feeds the pipeline from its ring instead; see MeterIO's LiveMeterSession.)
public protocol SampleBlockSource: AnyObject {
    var rate: Int { get }
    var channels: Int { get }
    /// Shown as the `source` of the `start` line.
    var name: String { get }
    /// Reads up to `maxFrames` frames into `buffer`; returns 0 at the end.
    func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int
    /// The frames the source expects to deliver (a file's declared length), so that the window
    /// of the last, partial hop is exact; nil when unknown (stdin).
    var expectedFrames: Int? { get }
    /// The channels' names from the container's own channel map (`ChannelNames`); nil: none
    /// stated (the WAVE order is used).
    var channelNames: [String]? { get }
}

extension SampleBlockSource {
    public var expectedFrames: Int? { nil }
    public var channelNames: [String]? { nil }
}

/// A source whose samples are 16-bit PCM (a 16-bit WAV, AIFF or FLAC): it can deliver them as
/// they are, and the pipeline converts them (`SampleConversion`) as it reads them, instead of
/// a conversion pass of its own and a block of Floats twice their size.
public protocol Int16BlockSource: SampleBlockSource {
    /// True when `read(int16:maxFrames:)` may be used: the samples are 16-bit.
    var deliversInt16: Bool { get }
    /// Reads up to `maxFrames` frames of 16-bit samples into `buffer`; returns 0 at the end.
    func read(int16 buffer: UnsafeMutablePointer<Int16>, maxFrames: Int) throws -> Int
}

/// A block of interleaved frames as a source delivers it: Float samples, or 16-bit PCM as the
/// file holds it (full scale 32768, `SampleConversion`).
public enum SampleBlock {
    case float(UnsafePointer<Float>)
    case int16(UnsafePointer<Int16>)
}

/// A source that lends its own blocks instead of copying into the caller's buffer.
public protocol BlockLendingSource: SampleBlockSource {
    /// Calls `body` with the next block of interleaved frames; false at the end.
    func withNextBlock(_ body: (SampleBlock, _ frames: Int) throws -> Void) throws -> Bool
}

extension MeterPipeline {
    /// Runs a whole source through the pipeline into `sink`: start, every frame, end.
    /// Returns the summary (also given to the sink), `complete` unless `shouldStop` cut the
    /// reading short.
    @discardableResult
    public func run(source: any SampleBlockSource, sink: any FrameSink, blockFrames: Int = 16384,
                    shouldStop: () -> Bool = { false }) throws -> StreamSummary {
        try sink.start(streamInfo(source: source.name, channelNames: source.channelNames))
        if let n = source.expectedFrames { expectEnd(at: n) }
        if let lender = source as? any BlockLendingSource {
            while try !shouldStop() && lender.withNextBlock({ block, n in try process(block, frames: n) { try sink.frame($0) } }) {}
            return try finishRun(sink: sink, complete: !shouldStop())
        }
        if let shorts = source as? any Int16BlockSource, shorts.deliversInt16 {
            let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: blockFrames * source.channels)
            defer { buffer.deallocate() }
            while !shouldStop() {
                let n = try shorts.read(int16: buffer, maxFrames: blockFrames)
                if n == 0 { break }
                try process(.int16(buffer), frames: n) { try sink.frame($0) }
            }
            return try finishRun(sink: sink, complete: !shouldStop())
        }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * source.channels)
        defer { buffer.deallocate() }
        while !shouldStop() {
            let n = try source.read(into: buffer, maxFrames: blockFrames)
            if n == 0 { break }
            try process(buffer, frames: n) { try sink.frame($0) }
        }
        return try finishRun(sink: sink, complete: !shouldStop())
    }

    private func finishRun(sink: any FrameSink, complete: Bool) throws -> StreamSummary {
        try finish { try sink.frame($0) }
        var s = summary()
        s.complete = complete
        try sink.end(s)
        return s
    }
}
