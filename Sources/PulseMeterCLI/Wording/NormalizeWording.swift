import MeterCore
import MeterIO

/// `normalize`'s own sentences: a file whose gain the true peak capped, and a failure to
/// write an output (of which nothing is left: its hidden file was removed).
enum NormalizeWording {
    /// "x.wav: normalized to -17.3 LUFS, not -16: the true peak limits the gain to +4.2 dB;
    /// --limit reaches the target".
    static func capped(_ input: FilePath, reached: Double, target: Double, gainDb: Double) -> String {
        "\(input): normalized to \(number(reached)) LUFS, not \(number(target)): the true peak limits the gain to \(signed(gainDb)) dB; --limit reaches the target"
    }

    static func writeFailure(_ e: OutputError, _ output: FilePath) -> PulsemeterError {
        switch e {
        case .cannotWriteRecording(_, let reason, _), .cannotFinishRecording(_, let reason):
            return PulsemeterError(.io, "cannot write \(output) (\(reason)); nothing was written under that name")
        case .encoderStopped(_, let report), .encoderDidNotFinish(_, let report):
            return PulsemeterError(.io, "the AAC encoder (ffmpeg) failed writing \(output): it \(report); nothing was written under that name")
        default:
            return ErrorWording.output(e)
        }
    }

    /// One decimal, no trailing ".0" ("-16", "-17.3").
    static func number(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let a = abs(tenths)
        return a % 10 == 0 ? "\(sign)\(a / 10)" : "\(sign)\(a / 10).\(a % 10)"
    }

    static func signed(_ v: Double) -> String { (v >= 0 ? "+" : "") + number(v) }
}
