import Dispatch
import Glibc
import MeterCore
import Synchronization

/// Decodes a source on its own thread, a few blocks ahead of the analysis (files and stdin:
/// the decoder waits when the analysis is behind, nothing is dropped). With `BackgroundSink`
/// this lets `analyze` use two cores: decoding on one, analysis and output on the other.
public final class ReadAheadSource: BlockLendingSource, @unchecked Sendable {
    public let rate: Int
    public let channels: Int
    public let name: String
    /// The wrapped source: read only by the decoding thread once the first read starts.
    private let base: any SampleBlockSource
    private let ring: ChunkRing<Float>
    private let blockFrames: Int
    private let ready = DispatchSemaphore(value: 0)
    private let space = DispatchSemaphore(value: 0)
    private let stopFlag = Atomic<Bool>(false)
    private let failure = Mutex<Error?>(nil)
    private var started = false

    public init(_ base: any SampleBlockSource, blockFrames: Int = 16384, blocks: Int = 6) {
        self.base = base
        rate = base.rate
        channels = base.channels
        name = base.name
        self.blockFrames = blockFrames
        ring = ChunkRing(slots: blocks, slotCapacity: blockFrames * base.channels)
    }

    /// Tells the decoding thread to stop (the reader is done early: --duration, a closed pipe).
    public func stop() { stopFlag.store(true, ordering: .releasing) }

    private func decode() {
        defer {
            ring.close()
            ready.signal()
        }
        while !stopFlag.load(ordering: .acquiring) {
            var n = 0
            let pushed = ring.withWritableSlot(position: 0) { slot in
                do {
                    n = try base.read(into: slot.baseAddress!, maxFrames: blockFrames)
                } catch {
                    failure.withLock { $0 = error }
                }
                return n * channels
            }
            if !pushed {
                _ = space.wait(timeout: .now() + .milliseconds(20))
                continue
            }
            ready.signal()
            if n == 0 || failure.withLock({ $0 }) != nil { return }
        }
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        var frames = 0
        _ = try withNextBlock { block, n in
            precondition(n <= maxFrames, "read in blocks of at least blockFrames")
            buffer.update(from: block, count: n * channels)
            frames = n
        }
        return frames
    }

    /// Lends the next decoded block straight from the ring (no copy); false at the end.
    public func withNextBlock(_ body: (UnsafePointer<Float>, Int) throws -> Void) throws -> Bool {
        if !started {
            started = true
            OSThread.spawn(role: "decoder") { [self] in decode() }
        }
        while true {
            var frames = 0
            let got = try ring.pop { chunk, _ in
                frames = chunk.count / channels
                if frames > 0 { try body(chunk.baseAddress!, frames) }
            }
            if got {
                // Wake the decoder only when half the ring is free: one wake-up per few blocks.
                if ring.available == ring.slotCount / 2 { space.signal() }
                if frames == 0 { break }
                return true
            }
            if ring.isClosed && ring.available == 0 { break }
            // Ctrl-C or SIGTERM while the input is silent (a stalled pipe): end here, so the
            // caller still finishes and writes its end line.
            if ready.wait(timeout: .now() + .milliseconds(100)) == .timedOut && Signals.stopRequested { break }
        }
        if let e = failure.withLock({ $0 }) { throw e }
        return false
    }
}
