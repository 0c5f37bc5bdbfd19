import MeterCore
import MeterIO

/// One output's NDJSON `end` line: `{"type":"end","file":IN,"output":OUT,"lufs_i":..,
/// ["album_lufs_i":..,]"target":..,"max_true_peak":..,"gain_db":..,["limited_by":"true_peak",]
/// ["limiter_db":..,]"true_peak_db":..}`. `lufs_i` and `true_peak_db` before are the input's;
/// `true_peak_db` after is the input's plus the gain (a static gain scales it exactly) or,
/// with the limiter, that at most the ceiling.
struct NormalizeLine: Sendable {
    let input: FilePath
    let output: FilePath
    let measured: LoudnessPass.Figures
    let album: LoudnessPass.Figures?
    let target: NormalizeTarget
    let gain: NormalizationGain
    /// The gain applied: `gain`'s, or with the limiter the one that made its output reach
    /// the target (limiting lowers the loudness), dB.
    let appliedDb: Double
    /// The limiter's deepest gain reduction, dB (0: it held nothing, or no limiter).
    let limiterDb: Double

    /// The output's loudness when the gain is static: the input's plus the gain.
    var reachedLufs: Double { measured.integrated + gain.gainDb }

    var bytes: [UInt8] {
        let b = JSONLineBuilder()
        b.raw("{\"type\":\"end\"")
        b.field("file", input.string)
        b.field("output", output.string)
        b.field("lufs_i", measured.integrated, decimals: 2)
        if let album { b.field("album_lufs_i", album.integrated, decimals: 2) }
        b.field("true_peak_db_before", measured.truePeakDb, decimals: 2)
        b.field("target", target.target, decimals: 2)
        b.field("max_true_peak", target.ceiling, decimals: 2)
        b.field("gain_db", appliedDb, decimals: 4)
        if gain.limitedByTruePeak { b.field("limited_by", "true_peak") }
        if gain.needsLimiter { b.field("limiter_db", limiterDb, decimals: 2) }
        b.field("true_peak_db", min(measured.truePeakDb + appliedDb, gain.needsLimiter ? target.ceiling : .infinity), decimals: 2)
        b.raw("}\n")
        return b.bytes
    }
}
