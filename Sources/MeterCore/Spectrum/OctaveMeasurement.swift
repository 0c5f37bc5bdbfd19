/// `--octaves` as a part of the pipeline: the fractional-octave filter bank over the mono mix
/// (`OctaveFilterBank`); each frame's `bands_db`, the end line's mean band levels, the start
/// line's bands.
///
/// `deferred` (`MeterPipeline.deferBands`): frames carry the hop's mono mix
/// (`pendingOctaves`) instead, for a `DeferredBands` downstream, which runs its own bank over
/// it and adds the mean.
final class OctaveMeasurement: Measurement {
    private let bank: OctaveFilterBank
    private let deferred: Bool
    /// Deferred: the current hop's mono mix.
    private var hopMono: [Float] = []

    init(_ settings: MeterSettings, deferred: Bool) {
        bank = Self.bank(settings)
        self.deferred = deferred
    }

    /// The bank `settings` ask for; `DeferredBands` builds its own the same way.
    static func bank(_ settings: MeterSettings) -> OctaveFilterBank {
        OctaveFilterBank(fraction: settings.octaves, rate: settings.rate,
                         timeWeighting: settings.spl?.timeWeighting ?? .fast,
                         micCalibration: settings.spl?.micCalibration, offsetDb: settings.levelOffsetDb)
    }

    var needs: SignalNeeds { .mono }

    func push(_ block: SignalBlock) {
        if deferred {
            hopMono.append(contentsOf: UnsafeBufferPointer(start: block.mono!, count: block.count))
        } else {
            bank.push(block.mono!, count: block.count)
        }
    }

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        if frame.bandsDb == nil { frame.bandsDb = Array(repeating: Decibels.floor, count: bank.layout.count) }
        if deferred {
            frame.pendingOctaves = hopMono
            hopMono.removeAll(keepingCapacity: true)
        } else {
            bank.levels(into: &frame.bandsDb!)
        }
    }

    /// The stream's end when not deferred: the bank runs out what it still holds, and takes no
    /// samples after it.
    func fill(_ summary: inout StreamSummary) {
        guard !deferred else { return }
        bank.finish()
        summary.bandsDb = bank.meanLevels()
    }

    func describe(_ info: inout StreamInfo) {
        info.octaveBands = bank.layout.bands
        info.bandsHz = bank.layout.bands.map { ($0.lower, $0.upper) }
    }
}
