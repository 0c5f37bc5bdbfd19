import MeterCore

/// Stops a source after `frames` frames (`--duration`).
final class LimitedSource: SampleBlockSource {
    let base: any SampleBlockSource
    var remaining: Int
    init(_ base: any SampleBlockSource, frames: Int) {
        self.base = base
        remaining = frames
    }
    var rate: Int { base.rate }
    var channels: Int { base.channels }
    var name: String { base.name }
    var channelNames: [String]? { base.channelNames }
    var expectedFrames: Int? { min(base.expectedFrames ?? remaining, remaining) }
    func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        guard remaining > 0 else { return 0 }
        let n = try base.read(into: buffer, maxFrames: min(maxFrames, remaining))
        remaining -= n
        return n
    }
}
