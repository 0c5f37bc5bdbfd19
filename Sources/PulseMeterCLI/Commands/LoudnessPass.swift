import MeterCore
import MeterIO

/// The measuring pass of `tag` and `normalize`: one file through the session `analyze` runs,
/// with loudness, into no sink (only its end figures count).
enum LoudnessPass {
    /// What a file measured.
    struct Figures: Sendable {
        /// Integrated loudness, LUFS.
        var integrated: Double
        /// The largest true peak and sample peak over the channels, dB.
        var truePeakDb: Double
        var samplePeakDb: Double
        /// Its gating blocks, for an album's joint loudness (`IntegratedGate.merge`).
        var gate: IntegratedGate
    }

    /// Runs `source` to its end (nil when `cancellation` cut it short); a file damaged partway
    /// throws (exit 65, naming it), one that ends early gives a warning to `warn`.
    static func measure(_ source: any AudioFileSource, cancellation: Cancellation,
                        warn: (String) -> Void) throws -> Figures? {
        var s = MeterSettings.defaults
        s.rate = source.rate
        s.channels = source.channels
        s.loudness = true
        let settings = try ValidSettings(s)
        let description = SessionDescription(sources: [.init(source, settings: settings)], threads: .inline)
        let summary = try MeterSession(description, cancellation: cancellation).run(into: [DiscardingSink()])[0]
        guard summary.complete ?? true else { return nil }
        if let file = source as? SoundFileReader, summary.pos == file.framesRead {
            try InputEnding.report(file, warn: warn)
        }
        guard let loudness = summary.loudness, let gate = loudness.gatingBlocks else {
            preconditionFailure("a session with loudness gives its loudness")
        }
        return Figures(integrated: loudness.integrated, truePeakDb: loudness.truePeakDb.max() ?? Decibels.floor,
                       samplePeakDb: summary.peakDb.max() ?? Decibels.floor, gate: gate)
    }
}
