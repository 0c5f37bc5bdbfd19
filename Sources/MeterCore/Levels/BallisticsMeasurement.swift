/// `--meter` as a part of the pipeline: the needle's ballistics (`MeterBallistics`) over each
/// block's channels; each frame's `meter_db`. It reads the frame's `rms_db` (the dBFS meter),
/// so it comes after the levels.
final class BallisticsMeasurement: Measurement {
    private let ballistics: MeterBallistics
    private let channels: Int

    init(_ kind: MeterKind, _ settings: MeterSettings) {
        ballistics = MeterBallistics(kind: kind, rate: settings.rate, channels: settings.channels,
                                     vuReference: settings.vuReference)
        channels = settings.channels
    }

    var needs: SignalNeeds { .planar }

    func push(_ block: SignalBlock) {
        ballistics.push(block.planar!, channelStride: block.channelStride, count: block.count)
    }

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        var readings = frame.meterDb ?? Array(repeating: Decibels.floor, count: channels)
        ballistics.readings(rmsDb: frame.rmsDb, into: &readings)
        frame.meterDb = readings
    }
}
