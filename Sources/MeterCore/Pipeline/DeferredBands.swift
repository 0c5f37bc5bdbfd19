/// Computes a frame's bands away from the analysis thread: the pipeline (with `deferBands`)
/// leaves the windowed input in `MeterFrame.pendingSpectrum`, or with octave bands the hop's
/// mono mix in `MeterFrame.pendingOctaves`; `complete` fills `bandsDb` with exactly what the
/// pipeline would have computed (same layout, window and scaling, or the same filter bank
/// fed the same samples; its own transform or bank, so it may run on another thread).
public final class DeferredBands {
    private let analyzer: SpectrumAnalyzer?
    private let octaves: OctaveFilterBank?

    /// `transform`: for FFT bands (settings.bands > 0); octave bands need none.
    public init(settings valid: ValidSettings, transform: (any PowerSpectrumTransform)?) {
        let settings = valid.settings
        if settings.octaves > 0 {
            analyzer = nil
            octaves = OctaveMeasurement.bank(settings)
        } else {
            guard let transform, let layout = valid.bandLayout else { preconditionFailure("FFT bands need a transform") }
            analyzer = SpectrumMeasurement.analyzer(layout, transform, settings)
            octaves = nil
        }
    }

    public func complete(_ frame: inout MeterFrame) {
        if let octaves, let mono = frame.pendingOctaves {
            frame.pendingOctaves = nil
            mono.withUnsafeBufferPointer { if let p = $0.baseAddress { octaves.push(p, count: $0.count) } }
            var bands = frame.bandsDb ?? Array(repeating: Decibels.floor, count: octaves.layout.count)
            octaves.levels(into: &bands)
            frame.bandsDb = bands
        }
        guard let analyzer, let input = frame.pendingSpectrum else { return }
        frame.pendingSpectrum = nil
        var bands = frame.bandsDb ?? Array(repeating: Decibels.floor, count: analyzer.layout.count)
        input.withUnsafeBufferPointer { analyzer.bandLevels(windowed: $0.baseAddress!, into: &bands) }
        frame.bandsDb = bands
    }

    /// Adds the stream's mean band levels, over the frames completed here, to its summary (the
    /// stream's end: the octave bank runs out what its filters still hold).
    public func complete(_ summary: inout StreamSummary) {
        octaves?.finish()
        summary.bandsDb = octaves?.meanLevels() ?? analyzer?.meanBandsDb
    }
}
