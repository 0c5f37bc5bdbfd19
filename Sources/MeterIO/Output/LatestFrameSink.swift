import MeterCore
import Synchronization

/// Keeps the loudest channel's RMS of the newest frame, and its loudness reading, for a
/// screen drawn on another thread (the player's level readout).
public final class LatestFrameSink: FrameSink, @unchecked Sendable {
    // Written by the analysis thread, read by the UI thread: a single atomic word, and a Mutex.
    private let bits = Atomic<UInt64>(Decibels.floor.bitPattern)
    private let reading = Mutex<LoudnessReading?>(nil)
    public var rmsDb: Double { Double(bitPattern: bits.load(ordering: .acquiring)) }
    public var loudness: LoudnessReading? { reading.withLock { $0 } }

    public init() {}

    public func start(_ info: StreamInfo) throws {}
    public func frame(_ frame: MeterFrame) throws {
        bits.store((frame.rmsDb.max() ?? Decibels.floor).bitPattern, ordering: .releasing)
        if let l = frame.loudness { reading.withLock { $0 = l } }
    }
    public func gap(_ gap: StreamGap) throws {}
    public func device(_ change: DeviceChange) throws {}
    public func file(_ event: RecordingFileEvent) throws {}
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {}
    public func idle(outage: Bool, stream: Int?) throws {}
    public func flush() throws {}
    public func end(_ summary: StreamSummary) throws {}
}
