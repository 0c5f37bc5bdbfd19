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

extension SampleBlockSource {
    /// The one read loop: hands `body` each block the source delivers, until its end or
    /// `shouldStop` (polled between blocks), in the form it lends or delivers
    /// (`BlockLendingSource`, `Int16BlockSource`, else Floats read into a buffer of
    /// `blockFrames`). Returns the frames read.
    @discardableResult
    public func forEachBlock(blockFrames: Int = 16384, shouldStop: () -> Bool = { false },
                             _ body: (SampleBlock, _ frames: Int) throws -> Void) throws -> Int {
        var read = 0
        if let lender = self as? any BlockLendingSource {
            while try !shouldStop() && lender.withNextBlock({ block, n in
                try body(block, n)
                read += n
            }) {}
            return read
        }
        if let shorts = self as? any Int16BlockSource, shorts.deliversInt16 {
            let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: blockFrames * channels)
            defer { buffer.deallocate() }
            while !shouldStop() {
                let n = try shorts.read(int16: buffer, maxFrames: blockFrames)
                if n == 0 { break }
                try body(.int16(buffer), n)
                read += n
            }
            return read
        }
        return try forEachFloatBlock(blockFrames: blockFrames, shouldStop: shouldStop) { try body(.float($0), $1) }
    }

    /// `forEachBlock` of a source that neither lends nor delivers 16-bit samples: every block
    /// read into a buffer of `blockFrames` as Floats.
    private func forEachFloatBlock(blockFrames: Int = 16384, shouldStop: () -> Bool = { false },
                                  _ body: (UnsafePointer<Float>, _ frames: Int) throws -> Void) throws -> Int {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * channels)
        defer { buffer.deallocate() }
        var read = 0
        while !shouldStop() {
            let n = try self.read(into: buffer, maxFrames: blockFrames)
            if n == 0 { break }
            try body(buffer, n)
            read += n
        }
        return read
    }
}
