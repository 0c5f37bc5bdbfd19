/// A failure as the user sees it: the category that decides the process's exit status and a
/// one-line message. Only the command line makes these (`ErrorWording` turns the typed errors
/// of the layers below into one); nothing under MeterCore or MeterIO knows exit statuses.
///
/// The message says what went wrong and what to do; the CLI prints it after `pulsemeter: `.
public struct PulsemeterError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Bad command line (exit 64).
        case usage
        /// Input is not decodable audio (exit 65).
        case notDecodable
        /// Input file missing or unreadable (exit 66).
        case missingInput
        /// PulseAudio server or device unavailable (exit 69).
        case unavailable
        /// Cannot create the output or recording file (exit 73).
        case cannotCreate
        /// I/O failure while running (exit 74).
        case io
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The process exit status of this kind (sysexits.h numbers).
    public var exitCode: Int32 {
        switch kind {
        case .usage: return 64
        case .notDecodable: return 65
        case .missingInput: return 66
        case .unavailable: return 69
        case .cannotCreate: return 73
        case .io: return 74
        }
    }
}
