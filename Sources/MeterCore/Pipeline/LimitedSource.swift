/// Stops a source after `frames` frames (`--duration`).
public final class LimitedSource: SampleBlockSource {
    public let base: any SampleBlockSource
    private var remaining: Int

    public init(_ base: any SampleBlockSource, frames: Int) {
        self.base = base
        remaining = frames
    }

    public var rate: Int { base.rate }
    public var channels: Int { base.channels }
    public var name: String { base.name }
    public var channelNames: [String]? { base.channelNames }
    public var expectedFrames: Int? { min(base.expectedFrames ?? remaining, remaining) }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        guard remaining > 0 else { return 0 }
        let n = try base.read(into: buffer, maxFrames: min(maxFrames, remaining))
        remaining -= n
        return n
    }
}
