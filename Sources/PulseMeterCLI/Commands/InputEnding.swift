import MeterCore
import MeterIO

/// Words how a file's decoding ended, after its output is complete: a file
/// shorter than its header's promise gets one warning line (exit 0, as sox warns on a
/// premature end); a decode error partway is exit 65 naming the file, where and why.
enum InputEnding {
    /// Call once the whole file went through (not after --duration or a stop signal cut it).
    /// `warn` takes the warning (a many-file run writes it with the file's line, in list order).
    static func report(_ reader: SoundFileReader, warn: (String) -> Void = CLI.warn) throws(PulsemeterError) {
        switch reader.ending {
        case .short(let promised, let found):
            warn("\(reader.path) ends early: the header promises \(promised) frames, found \(found)")
        case .decodeError(let frame, let reason):
            let seconds = Double(frame) / Double(reader.rate)
            throw PulsemeterError(.notDecodable, "\(reader.path) is damaged at frame \(frame) (\(formatSeconds(seconds)) s): \(reason); the results cover the \(frame) frames before")
        case .complete, nil:
            break
        }
    }

    static func formatSeconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }
}
