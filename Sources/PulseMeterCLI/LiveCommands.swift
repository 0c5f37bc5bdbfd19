import MeterCore

/// monitor, record, devices and play: the commands that need a PulseAudio server.
enum LiveCommands {
    static func specs(for command: String) -> [OptionSpec]? { nil }
    static func run(_ command: String, _ a: ParsedArguments) throws -> Int32 {
        throw PulsemeterError(.usage, "unknown command \(command)")
    }
}
