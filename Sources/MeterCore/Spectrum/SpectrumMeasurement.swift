/// `--bands` as a part of the pipeline: the FFT spectrum of the mono mix (`SpectrumAnalyzer`);
/// each frame's `bands_db`, the end line's mean band levels, the start line's band edges.
///
/// `deferred` (`MeterPipeline.deferBands`): frames carry the windowed transform input
/// (`pendingSpectrum`) instead, for a `DeferredBands` downstream, which also adds the mean.
final class SpectrumMeasurement: Measurement {
    private let analyzer: SpectrumAnalyzer
    private let deferred: Bool

    init(_ layout: BandLayout, _ transform: (any PowerSpectrumTransform)?, _ settings: MeterSettings, deferred: Bool) {
        guard let transform, transform.size == settings.fftSize else {
            preconditionFailure("bands need a transform of size fftSize")
        }
        analyzer = Self.analyzer(layout, transform, settings)
        self.deferred = deferred
    }

    /// The analyzer `settings` ask for; `DeferredBands` builds its own the same way.
    static func analyzer(_ layout: BandLayout, _ transform: any PowerSpectrumTransform,
                         _ settings: MeterSettings) -> SpectrumAnalyzer {
        SpectrumAnalyzer(layout: layout, transform: transform,
                         micCalibration: settings.spl?.micCalibration, offsetDb: settings.levelOffsetDb)
    }

    var needs: SignalNeeds { .mono }

    func push(_ block: SignalBlock) { analyzer.push(block.mono!, count: block.count) }

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        if frame.bandsDb == nil { frame.bandsDb = Array(repeating: Decibels.floor, count: analyzer.layout.count) }
        if deferred {
            frame.pendingSpectrum = Array(unsafeUninitializedCapacity: analyzer.fftSize) { buf, n in
                analyzer.windowedHistory(into: buf.baseAddress!)
                n = analyzer.fftSize
            }
        } else {
            analyzer.bandLevels(into: &frame.bandsDb!)
        }
    }

    func fill(_ summary: inout StreamSummary) {
        if !deferred { summary.bandsDb = analyzer.meanBandsDb }
    }

    func describe(_ info: inout StreamInfo) { info.bandsHz = analyzer.layout.edgesHz }
}
