import MeterCore
import Synchronization

/// Keeps the loudest channel's RMS of the newest frame, for the player's level readout, and
/// its loudness reading.
final class LatestFrameSink: FrameSink, @unchecked Sendable {
    // Written by the audio thread, read by the UI thread: a single atomic word, and a Mutex.
    private let bits = Atomic<UInt64>(Decibels.floor.bitPattern)
    private let reading = Mutex<LoudnessReading?>(nil)
    var rmsDb: Double { Double(bitPattern: bits.load(ordering: .acquiring)) }
    var loudness: LoudnessReading? { reading.withLock { $0 } }
    func start(_ info: StreamInfo) throws {}
    func frame(_ frame: MeterFrame) throws {
        bits.store((frame.rmsDb.max() ?? Decibels.floor).bitPattern, ordering: .releasing)
        if let l = frame.loudness { reading.withLock { $0 = l } }
    }
    func end(_ summary: StreamSummary) throws {}
}
