/// The delivery specifications pulsemeter judges against: the one table of their figures
/// (`pulsemeter presets`, the man page, `--preset`, `normalize`).
///
/// EBU R128 (2020) with Tech 3343's live tolerance and R128 s1 for short-form content (ads,
/// trailers: max short-term loudness -18 LUFS); ATSC A/85:2013; AES TD1004 for streaming and
/// podcasts (-16 LUFS for stereo); the -14 LUFS reference of Spotify, YouTube and Tidal; Apple's
/// -16 LUFS for podcasts and Music's Sound Check.
public struct DeliveryPreset: Sendable, Equatable {
    /// The name given to `--preset`.
    public let name: String
    /// Who uses it, in a few words (the listing's last column).
    public let use: String
    /// Integrated loudness to reach (LUFS).
    public let integrated: Double
    /// How far the integrated loudness may be from it, either way (LU), for files.
    public let tolerance: Double
    /// The same for live programmes (EBU R128: ±1 LU); equal to `tolerance` where the spec
    /// names no other.
    public let liveTolerance: Double
    /// The highest true peak allowed (dBTP).
    public let maxTruePeak: Double
    /// The highest short-term loudness allowed (LUFS), where the spec limits it.
    public let maxShortTerm: Double?

    public init(name: String, use: String, integrated: Double, tolerance: Double,
                liveTolerance: Double? = nil, maxTruePeak: Double, maxShortTerm: Double? = nil) {
        self.name = name
        self.use = use
        self.integrated = integrated
        self.tolerance = tolerance
        self.liveTolerance = liveTolerance ?? tolerance
        self.maxTruePeak = maxTruePeak
        self.maxShortTerm = maxShortTerm
    }

    /// Every preset, in the order they are listed.
    public static let all: [DeliveryPreset] = [
        .init(name: "ebu-r128", use: "European broadcast (EBU R128)", integrated: -23, tolerance: 0.5,
              liveTolerance: 1, maxTruePeak: -1),
        .init(name: "ebu-r128-s1", use: "short-form: ads, trailers (EBU R128 s1)", integrated: -23,
              tolerance: 0.5, liveTolerance: 1, maxTruePeak: -1, maxShortTerm: -18),
        .init(name: "atsc-a85", use: "US broadcast (ATSC A/85)", integrated: -24, tolerance: 2, maxTruePeak: -2),
        .init(name: "podcast", use: "podcasts (AES TD1004)", integrated: -16, tolerance: 1, maxTruePeak: -1),
        .init(name: "aes-streaming", use: "streaming (AES TD1004)", integrated: -16, tolerance: 1, maxTruePeak: -1),
        .init(name: "streaming-14", use: "Spotify, YouTube, Tidal", integrated: -14, tolerance: 1, maxTruePeak: -1),
        .init(name: "apple", use: "Apple Podcasts, Apple Music", integrated: -16, tolerance: 1, maxTruePeak: -1),
    ]

    /// The preset of that name, or nil.
    public static func named(_ name: String) -> DeliveryPreset? {
        all.first { $0.name == name }
    }

    /// The ceiling when neither a preset nor `--max-true-peak` names one (dBTP).
    public static let defaultMaxTruePeak = -1.0
}
