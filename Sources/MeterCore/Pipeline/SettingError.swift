/// A meter setting outside what is allowed: which setting, the value given, and what is
/// allowed. The command line words it (naming its own option for the setting); the core
/// never spells an option.
public struct SettingError: Error, Equatable, Sendable {
    public enum Setting: String, Sendable, CaseIterable {
        case rate, channels, fps, window, bands, fftSize, fmin, fmax
        /// The loudness target (LUFS).
        case target
        /// How far the integrated loudness may be from the target (LU), the true peak's
        /// ceiling (dBTP): the rules a verdict judges by.
        case tolerance, maxTruePeak
        /// The sample rate, as loudness measurement needs it.
        case loudnessRate
        /// The sample rate, as the sound level meter's weightings need it.
        case splRate
        /// The dB SPL that reads as 0 dBFS.
        case calibration
        /// Bands per octave of the fractional-octave filter bank.
        case octaves
        /// The level of 0 VU.
        case vuReference
        /// `--events` thresholds: the silence level (dBFS), its least duration (s), the clip
        /// level (dBFS).
        case silenceDb, silenceMin, clipDb
        /// How much audio a run takes (s); the length of a split recording's files (s).
        case duration, split
        /// Voice-activated recording: the level that opens a take (dBFS), how long it stays
        /// open below it (s), the audio before the trigger each take starts with (s).
        case triggerLevel, hold, preRoll
        /// The level that reads 0 in `level` values (dBFS).
        case levelFloor
        /// A sound level calibrator's tone (dB SPL).
        case calibratorLevel
    }

    /// What values the setting takes (given the others).
    public enum Allowed: Equatable, Sendable {
        /// lower...upper.
        case range(Double, Double)
        /// Above 0, at most the bound.
        case positiveUpTo(Double)
        /// A power of two in lower...upper.
        case powerOfTwo(Int, Int)
        /// At least `atLeast`, below `below` (the Nyquist frequency).
        case frequencyBelow(atLeast: Double, below: Double)
        /// Above `above` (fmin), at most `atMost` (the Nyquist frequency).
        case frequencyAbove(above: Double, atMost: Double)
        /// At most `bins` bands: the FFT bins between fmin and fmax at this FFT size.
        case bandsWithinBins(bins: Int, fftSize: Int)
        /// One of these values.
        case oneOf([Double])
        /// Not together with FFT bands (it replaces them).
        case notWithBands
        /// Below 0, at least the bound.
        case negativeFrom(Double)
    }

    public let setting: Setting
    public let value: Double
    public let allowed: Allowed

    public init(_ setting: Setting, value: Double, allowed: Allowed) {
        self.setting = setting
        self.value = value
        self.allowed = allowed
    }
}
