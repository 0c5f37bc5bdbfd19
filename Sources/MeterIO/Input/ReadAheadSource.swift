import MeterCore
import Synchronization

/// Decodes a source on its own thread, a few blocks ahead of the analysis (files and stdin:
/// the decoder waits when the analysis is behind, nothing is dropped): `analyze` uses two
/// cores, decoding on one, analysis and output on the other.
///
/// Both threads sleep in a `ChunkHandoff`: the decoder until half the blocks are free again
/// (one wake-up per few blocks), the analysis until a block is there. A cancellation (Ctrl-C
/// on a stalled pipe) wakes the analysis at once: the stream ends there and the caller still
/// finishes with its end line.
public final class ReadAheadSource: BlockLendingSource, @unchecked Sendable {
    public let rate: Int
    public let channels: Int
    public let name: String
    /// Called on the analysis thread just before it sleeps for want of input (a slow pipe):
    /// a chance to push out what is already analysed. What it throws (the output failed)
    /// ends the read.
    public var whenStarved: (() throws -> Void)?
    public let expectedFrames: Int?
    public let channelNames: [String]?
    /// The wrapped source: read only by the decoding thread once the first read starts.
    private let base: any SampleBlockSource
    /// The base, when it delivers 16-bit samples: the ring's slots then hold those (a slot's
    /// Floats are rebound to twice as many Int16, of which the block uses half).
    private let int16Base: (any Int16BlockSource)?
    private let handoff: ChunkHandoff<Float>
    private let blockFrames: Int
    private let failure = Mutex<Error?>(nil)
    private var started = false
    /// The wake-up registered with the caller's cancellation, removed by `stop`.
    private let registration: (Cancellation, Cancellation.Registration)?

    /// Samples per block by default (blocks of 65536 stereo frames: 256 KiB of 16-bit samples,
    /// about 0.1 ms of analysis). Smaller blocks cost a wake-up of either thread every few
    /// tens of microseconds: with 16384 stereo frames and 6 blocks, a levels-only `analyze`
    /// of a 10-minute file made 680 context switches and used 13% more CPU.
    public static let blockSamples = 131072

    /// `blockFrames`: frames per block, by default `blockSamples` divided among the channels.
    public init(_ base: any SampleBlockSource, blockFrames: Int? = nil, blocks: Int = 8,
                cancellation: Cancellation? = nil) {
        self.base = base
        int16Base = (base as? any Int16BlockSource).flatMap { $0.deliversInt16 ? $0 : nil }
        rate = base.rate
        channels = base.channels
        name = base.name
        expectedFrames = base.expectedFrames
        channelNames = base.channelNames
        let blockFrames = blockFrames ?? max(1024, Self.blockSamples / max(1, base.channels))
        self.blockFrames = blockFrames
        let handoff = ChunkHandoff<Float>(slots: blocks, slotCapacity: blockFrames * base.channels)
        self.handoff = handoff
        registration = cancellation.map { ($0, handoff.cancel(on: $0)) }
    }

    /// Tells the decoding thread to stop (done, or done early: --duration, a closed pipe) and
    /// takes the wake-up back from the cancellation. Call it once the reading is over.
    public func stop() {
        handoff.cancel()
        if let (cancellation, r) = registration { cancellation.remove(r) }
    }

    private func decode() {
        defer { handoff.close() }
        let half = max(1, handoff.ring.slotCount / 2)
        var waitFor = 1
        while handoff.waitForSpace(slots: waitFor) {
            var n = 0
            var failed = false
            handoff.withWritableSlot(position: 0) { slot in
                do {
                    if let int16Base {
                        n = try slot.withMemoryRebound(to: Int16.self) {
                            try int16Base.read(int16: $0.baseAddress!, maxFrames: blockFrames)
                        }
                    } else {
                        n = try base.read(into: slot.baseAddress!, maxFrames: blockFrames)
                    }
                } catch {
                    failure.withLock { $0 = error }
                    failed = true
                }
                return n * channels
            }
            if n == 0 || failed { return }
            // Once the ring is full, sleep until half of it is free: one wake-up per few blocks.
            waitFor = handoff.ring.available == handoff.ring.slotCount ? half : 1
        }
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        var frames = 0
        _ = try withNextBlock { block, n in
            precondition(n <= maxFrames, "read in blocks of at least blockFrames")
            switch block {
            case .float(let samples): buffer.update(from: samples, count: n * channels)
            case .int16(let samples): SampleConversion.floats(from: samples, into: buffer, count: n * channels)
            }
            frames = n
        }
        return frames
    }

    /// Lends the next decoded block straight from the ring (no copy); false at the end.
    public func withNextBlock(_ body: (SampleBlock, Int) throws -> Void) throws -> Bool {
        if !started {
            started = true
            try OSThread.spawn(role: "pm-decoder") { [self] in decode() }
        }
        while true {
            var frames = 0
            let got = try handoff.pop { chunk, _ in
                frames = chunk.count / channels
                guard frames > 0 else { return }
                if int16Base != nil {
                    try UnsafeRawPointer(chunk.baseAddress!).withMemoryRebound(to: Int16.self, capacity: chunk.count) {
                        try body(.int16($0), frames)
                    }
                } else {
                    try body(.float(chunk.baseAddress!), frames)
                }
            }
            if got {
                if frames == 0 { break }
                return true
            }
            if handoff.isCancelled { break }
            if handoff.ring.isClosed && handoff.ring.available == 0 { break }
            try whenStarved?()
            handoff.waitForChunks()
        }
        if let e = failure.withLock({ $0 }) { throw e }
        return false
    }
}
