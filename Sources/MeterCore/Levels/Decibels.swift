/// dB conversions with the bounds README.md "Levels: exact definitions" states: every value is
/// finite and at least -160.0.
public enum Decibels {
    /// The lowest value ever reported; digital silence reads exactly this.
    public static let floor: Double = -160.0
    /// The level that reads 0 in `level` values (waveform bars, live frames) when not given.
    public static let defaultLevelFloor: Double = -60
    /// A finite stand-in for infinite input (a float file holding `inf` samples), so that
    /// no infinity ever reaches output. Real audio never comes near it.
    public static let ceiling: Double = 1000.0

    /// `10*log10(power)` bounded to [-160, 1000]; NaN, zero and negative powers read -160.
    @inlinable
    public static func fromPower(_ power: Double) -> Double {
        if power.isNaN { return floor }
        if power == .infinity { return ceiling }
        guard power > 0 else { return floor }
        return min(ceiling, max(floor, 10 * PureMath.log10(power)))
    }

    /// The normalized meter value of a level: clamp((db - floor) / -floor, 0, 1), 0 at the
    /// floor (a negative dB value) and below, 1 at full scale (what AVAudioRecorder-style
    /// apps compute from the average power, and a waveform bar's height).
    @inlinable
    public static func level(_ db: Double, floor floorDb: Double) -> Double {
        min(1, max(0, (db - floorDb) / -floorDb))
    }

    /// A level measured in dBFS (bounded as above) as a calibrated run reports it: `correction`
    /// (a band's microphone response, negated) and `offset` (the calibration,
    /// `SoundLevelSettings.offsetDb`) added, the floor moved with the offset: digital silence
    /// reads `floor + offset` and nothing reads lower. With both 0, `db` itself.
    @inlinable
    public static func calibrated(_ db: Double, offset: Double, correction: Double = 0) -> Double {
        db <= floor ? floor + offset : max(floor, db + correction) + offset
    }

    /// `20*log10(amplitude)` bounded to [-160, 1000].
    @inlinable
    public static func fromAmplitude(_ amplitude: Double) -> Double {
        if amplitude.isNaN { return floor }
        if amplitude == .infinity { return ceiling }
        guard amplitude > 0 else { return floor }
        return min(ceiling, max(floor, 20 * PureMath.log10(amplitude)))
    }
}
