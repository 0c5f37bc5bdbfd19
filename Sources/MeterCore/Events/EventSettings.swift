/// What `--events` detects and where its thresholds lie (README.md "Events").
public struct EventSettings: Sendable, Equatable {
    /// Silence is every channel's `rms_db` below this (`--silence-db`), in the frames' unit:
    /// dBFS, or a calibrated run's unit (`MeterSettings.levelOffsetDb`).
    public var silenceDb: Double
    /// ... for at least this many seconds (`--silence-min`).
    public var silenceMinSeconds: Double
    /// A sample whose magnitude is at or above this level (dBFS, calibrated or not) counts as
    /// clipped (`--clip-db`); nil means the 16-bit rail, 32767/32768.
    public var clipDb: Double?

    public init(silenceDb: Double = -60, silenceMinSeconds: Double = 2, clipDb: Double? = nil) {
        self.silenceDb = silenceDb
        self.silenceMinSeconds = silenceMinSeconds
        self.clipDb = clipDb
    }

    /// The 16-bit rail as a magnitude: a sample pinned at +32767 or -32768 reaches it.
    public static let railAmplitude: Float = 32767.0 / 32768.0

    /// The clip threshold as a magnitude on the full-scale-1.0 scale.
    public var clipAmplitude: Float {
        guard let clipDb else { return Self.railAmplitude }
        return Float(PureMath.pow(10, clipDb / 20))
    }
}
