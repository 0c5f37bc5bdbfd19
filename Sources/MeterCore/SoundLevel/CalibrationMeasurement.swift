/// Measures a sound level calibrator's tone from meter frames (with the sound level meter on,
/// A-weighted): done once the A-weighted level has stayed within `tolerance` dB for `seconds`
/// and the tone is near 1 kHz; the calibration is then the reference level minus the measured
/// dBFS level (the dB SPL that reads as 0 dBFS).
///
/// Near 1 kHz the A weighting is 0 dB and changes fast around it (-0.8 dB at 800 Hz, +0.6 dB
/// at 1250 Hz), so the A-weighted level agreeing with the unweighted RMS level within
/// `maxWeightingGap` says the tone is at 1 kHz (give or take 150 Hz) without a spectrum. The
/// loudest channel of each frame is measured (a mono microphone on a stereo device reads on
/// one side or both).
public struct CalibrationMeasurement: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// Steady: the tone's level in dBFS, its spread over the measurement, and the value to pass.
        case measured(levelDb: Double, spreadDb: Double, calibrationDb: Double)
        /// Given up after `timeout` frames: why, for the last full measurement window.
        case noSignal(levelDb: Double)
        case notSteady(spreadDb: Double)
        case notOneKilohertz(gapDb: Double)
    }

    public let reference: Double
    public let tolerance: Double
    public let maxWeightingGap = 0.5
    /// Quieter than this is no calibrator (dBFS).
    public let minimumLevel = -80.0
    private let needed: Int
    private var levels: [Double] = []
    private var gaps: [Double] = []
    private var seen = 0

    /// `frames`: meter frames in the measurement window (e.g. 3 s worth).
    /// The calibrator's level when not given (dB SPL: the usual 94 dB, 1 Pa).
    public static let defaultReference = 94.0
    /// How long the tone must hold steady (s), and how much audio to give it at most (s).
    public static let steadySeconds = 3.0
    public static let defaultLimitSeconds = 20.0

    public init(reference: Double = defaultReference, tolerance: Double = 0.1, frames: Int) {
        self.reference = reference
        self.tolerance = tolerance
        needed = max(1, frames)
    }

    /// Takes one frame (its `spl` A-weighted, in dBFS); the outcome once the window is steady.
    public mutating func observe(_ frame: MeterFrame) -> Outcome? {
        guard let spl = frame.spl, !spl.splDb.isEmpty else { return nil }
        var c = 0
        for i in 1..<spl.splDb.count where spl.splDb[i] > spl.splDb[c] { c = i }
        levels.append(spl.splDb[c])
        gaps.append(abs(spl.splDb[c] - frame.rmsDb[c]))
        seen += 1
        if levels.count > needed {
            levels.removeFirst()
            gaps.removeFirst()
        }
        guard levels.count == needed, case .measured(let level, let spread, let cal) = verdict() else { return nil }
        return .measured(levelDb: level, spreadDb: spread, calibrationDb: cal)
    }

    /// Why the last window is not a measurement (or the measurement, if it is one).
    public func verdict() -> Outcome {
        let lo = levels.min() ?? Decibels.floor, hi = levels.max() ?? Decibels.floor
        var energy = 0.0
        for l in levels { energy += PureMath.pow(10, l / 10) }
        let level = levels.isEmpty ? Decibels.floor : Decibels.fromPower(energy / Double(levels.count))
        if levels.count < needed || lo < minimumLevel { return .noSignal(levelDb: level) }
        if hi - lo > tolerance { return .notSteady(spreadDb: hi - lo) }
        let gap = gaps.max() ?? 0
        if gap > maxWeightingGap { return .notOneKilohertz(gapDb: gap) }
        return .measured(levelDb: level, spreadDb: hi - lo, calibrationDb: reference - level)
    }
}
