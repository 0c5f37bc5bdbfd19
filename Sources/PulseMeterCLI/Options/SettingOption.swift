import MeterCore

/// The option that sets each setting: the one table of their spellings. The parser reads a
/// setting's value under `key`, and `ErrorWording` names the option (`--` + key) in its errors.
enum SettingOption {
    /// The parser's key (the long option without its dashes) of the option for `setting`.
    static func key(_ setting: SettingError.Setting) -> String {
        switch setting {
        case .rate: "rate"
        case .channels: "channels"
        case .fps: "fps"
        case .window: "window"
        case .bands: "bands"
        case .fftSize: "fft-size"
        case .fmin: "fmin"
        case .fmax: "fmax"
        case .target: "target"
        case .tolerance: "tolerance"
        case .maxTruePeak: "max-true-peak"
        case .loudnessRate: "loudness"
        case .splRate: "spl"
        case .calibration: "calibration"
        case .octaves: "octaves"
        case .vuReference: "vu-ref"
        case .silenceDb: "silence-db"
        case .silenceMin: "silence-min"
        case .clipDb: "clip-db"
        case .duration: "duration"
        case .split: "split"
        case .triggerLevel: "trigger"
        case .hold: "hold"
        case .preRoll: "pre-roll"
        case .levelFloor: "floor"
        case .calibratorLevel: "reference"
        }
    }
}
