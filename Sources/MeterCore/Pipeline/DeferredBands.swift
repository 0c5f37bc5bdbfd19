/// Computes a frame's bands away from the analysis thread: the pipeline (with `deferBands`)
/// leaves the windowed input in `MeterFrame.pendingSpectrum`; `complete` fills `bandsDb` with
/// exactly what the pipeline would have computed (same layout, window and scaling; its own
/// transform, so it may run on another thread).
public final class DeferredBands {
    private let analyzer: SpectrumAnalyzer

    public init(settings: MeterSettings, transform: any PowerSpectrumTransform) throws(SettingError) {
        analyzer = SpectrumAnalyzer(layout: try BandLayout(settings: settings), transform: transform,
                                    micCalibration: settings.spl?.micCalibration)
    }

    public func complete(_ frame: inout MeterFrame) {
        guard let input = frame.pendingSpectrum else { return }
        frame.pendingSpectrum = nil
        var bands = frame.bandsDb ?? Array(repeating: Decibels.floor, count: analyzer.layout.count)
        input.withUnsafeBufferPointer { analyzer.bandLevels(windowed: $0.baseAddress!, into: &bands) }
        frame.bandsDb = bands
    }

    /// Adds the stream's mean band levels, over the frames completed here, to its summary.
    public func complete(_ summary: inout StreamSummary) {
        summary.bandsDb = analyzer.meanBandsDb
    }
}
