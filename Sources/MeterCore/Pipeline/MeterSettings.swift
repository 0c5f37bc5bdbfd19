/// What the meter measures: the capture spec and the analysis parameters (README.md "Commands
/// and options"), with the derived sample counts (`hop`, `window`) computed once.
public struct MeterSettings: Sendable, Equatable {
    public var rate: Int
    public var channels: Int
    /// Meter frames per second of audio.
    public var fps: Double
    /// RMS integration window in milliseconds.
    public var windowMs: Double
    /// Number of FFT bands; 0 turns the spectrum off.
    public var bands: Int
    public var fftSize: Int
    public var fmin: Double
    /// Highest band edge; nil means min(16000, 0.95 x Nyquist).
    public var fmax: Double?
    /// `--events`: silence and clip events; nil turns them off.
    public var events: EventSettings?
    /// EBU R128 loudness (`--loudness`, implied by a target).
    public var loudness: Bool
    /// A loudness to aim at, in LUFS (the end line's gain_db, the meter's marker).
    public var targetLufs: Double?
    /// What the end line's `verdict` judges by (`--preset`, `--tolerance`, `--max-true-peak`);
    /// nil: no verdict.
    public var delivery: DeliveryRules?
    /// `--dual-mono`: a mono stream's loudness counts its channel twice (+3.01 LU).
    public var dualMono = false
    /// With loudness, frames carry the true peak of their own samples (`--interval`: each
    /// period's `true_peak_db`); it costs a second true-peak meter.
    public var framePeaks = false
    /// The sound level meter (`--spl`); nil turns it off.
    public var spl: SoundLevelSettings?
    /// Fractional-octave bands (1 or 3 a octave) instead of FFT bands; 0 turns them off.
    public var octaves: Int = 0
    /// The meter's ballistics (`meter_db`); nil: no meter_db.
    public var meter: MeterKind?
    /// 0 VU: the peak level in dBFS of the alignment sine.
    public var vuReference: Double = -18
    /// `--alarm`s, in the order given (`AlarmDetector`).
    public var alarms: [AlarmSpec] = []
    /// A `waveform` run's picture, its only measurement; nil for every other run.
    public var waveform: WaveformRequest? = nil

    public init(rate: Int = 48000, channels: Int = 2, fps: Double = 30, windowMs: Double = 50,
                bands: Int = 0, fftSize: Int = 2048, fmin: Double = 50, fmax: Double? = nil,
                events: EventSettings? = nil, loudness: Bool = false, targetLufs: Double? = nil,
                spl: SoundLevelSettings? = nil) {
        self.rate = rate
        self.channels = channels
        self.fps = fps
        self.windowMs = windowMs
        self.bands = bands
        self.fftSize = fftSize
        self.fmin = fmin
        self.fmax = fmax
        self.events = events
        self.loudness = loudness || targetLufs != nil
        self.targetLufs = targetLufs
        self.spl = spl
    }

    /// The settings when nothing is given: the one statement of each default (the init's
    /// arguments), which the command line starts from and its help text shows.
    public static let defaults = MeterSettings()

    public static let maxChannels = 32
    public static let maxRate = 768_000
    /// The lowest rate loudness is measured at: libebur128's, the reference the tests check
    /// every loudness value against.
    public static let minLoudnessRate = 16

    /// Added to every level the meter reports (`rms_db`, `peak_db`, the band levels, the sound
    /// levels): the sound level meter's calibration (`SoundLevelSettings.offsetDb`); 0 without.
    public var levelOffsetDb: Double { spl?.offsetDb ?? 0 }

    /// The unit of those levels where they are printed: dB SPL with `--calibration`, else dB
    /// (relative to full scale, shifted by a microphone file's sensitivity if one is given).
    public var levelUnit: String { spl?.calibrated == true ? "dB SPL" : "dB" }

    /// Samples per meter frame: round(rate / fps), at least 1.
    public var hop: Int { max(1, Int((Double(rate) / fps).rounded())) }
    /// Samples in the RMS window: round(window_ms * rate / 1000), at least 1.
    public var window: Int { max(1, Int((windowMs * Double(rate) / 1000).rounded())) }
    /// The highest band edge actually asked for.
    public var effectiveFmax: Double { fmax ?? min(16000, 0.95 * Double(rate) / 2) }

    /// The frames in `seconds` of audio at `rate`, rounded; a positive duration is at least one
    /// frame. The one conversion of a duration the user gives into frames.
    public static func frames(seconds: Double, rate: Int) -> Int {
        let n = Int((seconds * Double(rate)).rounded())
        return seconds > 0 ? max(1, n) : n
    }

    /// What `setting` may be, given the other settings (the one statement of each rule, also
    /// of the values outside these settings that the command line takes: durations, record's
    /// thresholds, the level floor, a calibrator's level).
    public func allowed(_ setting: SettingError.Setting) -> SettingError.Allowed {
        let nyquist = Double(rate) / 2
        switch setting {
        case .rate: return .range(1, Double(Self.maxRate))
        case .channels: return .range(1, Double(Self.maxChannels))
        case .fps: return .range(0.01, Double(rate))
        case .window: return .positiveUpTo(60_000)
        case .bands: return .range(0, 1024)
        case .fftSize: return .powerOfTwo(64, 65536)
        case .fmin: return .frequencyBelow(atLeast: 1, below: nyquist)
        case .fmax: return .frequencyAbove(above: fmin, atMost: nyquist)
        case .target: return .range(-70, 0)
        case .tolerance: return .positiveUpTo(10)
        case .maxTruePeak: return .range(-20, 0)
        case .loudnessRate: return .range(Double(Self.minLoudnessRate), Double(Self.maxRate))
        case .splRate: return .range(Double(SoundLevelSettings.minRate), Double(Self.maxRate))
        case .calibration: return .range(0, 250)
        case .octaves: return bands > 0 ? .notWithBands : .oneOf([1, 3])
        case .vuReference: return .range(-60, 0)
        // Levels a frame's rms_db is compared with: in the calibrated unit (`levelOffsetDb`).
        case .silenceDb: return .range(Decibels.floor + levelOffsetDb, levelOffsetDb)
        case .silenceMin: return .range(0, 86400)
        case .clipDb: return .range(-100, 0)
        case .duration: return .positiveUpTo(1e9)  // seconds x rate always fits in an Int
        case .split: return .positiveUpTo(1e6)
        case .triggerLevel: return .range(Decibels.floor + levelOffsetDb, levelOffsetDb)
        case .hold: return .range(0, 3600)
        case .preRoll: return .range(0, 60)
        case .levelFloor: return .negativeFrom(Decibels.floor)
        case .calibratorLevel: return .range(40, 170)
        }
    }

    /// Checks `value` of `setting` against `allowed(setting)`; the error names the setting,
    /// the value and what is allowed.
    public func check(_ setting: SettingError.Setting, _ value: Double) throws(SettingError) {
        let allowed = allowed(setting)
        let ok: Bool
        switch allowed {
        case .range(let lo, let hi): ok = value >= lo && value <= hi
        case .positiveUpTo(let hi): ok = value > 0 && value <= hi
        case .powerOfTwo(let lo, let hi):
            ok = value >= Double(lo) && value <= Double(hi) && Int(value) & (Int(value) - 1) == 0
        case .frequencyBelow(let lo, let below): ok = value >= lo && value < below
        case .frequencyAbove(let above, let atMost): ok = value > above && value <= atMost
        case .bandsWithinBins(let bins, _): ok = value <= Double(bins)
        case .oneOf(let values): ok = values.contains(value)
        case .notWithBands: ok = false
        case .negativeFrom(let lo): ok = value >= lo && value < 0
        }
        guard ok, value.isFinite else { throw SettingError(setting, value: value, allowed: allowed) }
    }

    /// Checks every value against what is allowed, in the order of the settings; the error
    /// names the setting, its value and what is allowed. Returns the FFT bands' layout (nil
    /// with bands off), which the last rule needs. `ValidSettings` is what calls it.
    func validate() throws(SettingError) -> BandLayout? {
        try check(.rate, Double(rate))
        try check(.channels, Double(channels))
        try check(.fps, fps)
        try check(.window, windowMs)
        try check(.bands, Double(bands))
        // Checked with bands off too: an FFT size of 1000 is a mistake whether or not it is used.
        try check(.fftSize, Double(fftSize))
        if let targetLufs { try check(.target, targetLufs) }
        if let delivery {
            if let t = delivery.tolerance { try check(.tolerance, t) }
            try check(.maxTruePeak, delivery.maxTruePeak)
        }
        if loudness { try check(.loudnessRate, Double(rate)) }
        if octaves != 0 { try check(.octaves, Double(octaves)) }
        try check(.vuReference, vuReference)
        if let events {
            try check(.silenceDb, events.silenceDb)
            try check(.silenceMin, events.silenceMinSeconds)
            if let clipDb = events.clipDb { try check(.clipDb, clipDb) }
        }
        if let spl {
            try check(.splRate, Double(rate))
            if let cal = spl.calibrationDb { try check(.calibration, cal) }
        }
        guard bands > 0 else { return nil }
        try check(.fmin, fmin)
        try check(.fmax, effectiveFmax)
        return try BandLayout(settings: self)
    }
}
