/// `--bands` as a part of the pipeline: the FFT spectrum of the mono mix (`SpectrumAnalyzer`);
/// each frame's `bands_db`, the end line's mean band levels, the start line's band edges.
final class SpectrumMeasurement: Measurement {
    private let analyzer: SpectrumAnalyzer

    init(_ layout: BandLayout, _ transform: (any PowerSpectrumTransform)?, _ settings: MeterSettings) {
        guard let transform, transform.size == settings.fftSize else {
            preconditionFailure("bands need a transform of size fftSize")
        }
        analyzer = SpectrumAnalyzer(layout: layout, transform: transform,
                                    micCalibration: settings.spl?.micCalibration, offsetDb: settings.levelOffsetDb)
    }

    var needs: SignalNeeds { .mono }

    func push(_ block: SignalBlock) { analyzer.push(block.mono!, count: block.count) }

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        if frame.bandsDb == nil { frame.bandsDb = Array(repeating: Decibels.floor, count: analyzer.layout.count) }
        analyzer.bandLevels(into: &frame.bandsDb!)
    }

    func fill(_ summary: inout StreamSummary) { summary.bandsDb = analyzer.meanBandsDb }

    func describe(_ info: inout StreamInfo) { info.bandsHz = analyzer.layout.edgesHz }
}
