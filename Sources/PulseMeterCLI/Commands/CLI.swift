import MeterCore
import MeterIO

/// The command line: dispatch, help, errors as one `pulsemeter: ...` line and exit codes.
public enum CLI {
    public static let version = "0.1.0"

    /// The commands, in the order help lists them (`monitor` is the default).
    public static let commands = ["monitor", "record", "analyze", "waveform", "tag", "normalize", "play", "devices", "presets", "calibrate"]

    /// Runs the tool and exits the process.
    public static func main() -> Never {
        CurrentProcess.exit(run(rawArguments: CurrentProcess.rawArguments()))
    }

    /// Runs one command line and returns the exit status (tests call this).
    public static func run(_ arguments: [String]) -> Int32 {
        run(rawArguments: arguments.map { Array($0.utf8) })
    }

    /// Runs one command line given as bytes and returns the exit status.
    public static func run(rawArguments: [[UInt8]]) -> Int32 {
        Signals.ignorePipe()
        do {
            return try dispatch(rawArguments)
        } catch is OutputClosed {
            return 0
        } catch is StopRequested {
            return 0  // stopped before the run had anything to report (a stream still opening)
        } catch {
            guard let e = ErrorWording.userError(error) else {
                self.error("\(error)")
                return 74
            }
            self.error(e.message)
            return e.exitCode
        }
    }

    static func dispatch(_ rawArguments: [[UInt8]]) throws -> Int32 {
        var raw = rawArguments
        let args = raw.map { String(decoding: $0, as: UTF8.self) }
        if let first = args.first {
            if first == "--help" || first == "-h" || first == "help" {
                if first == "help", args.count > 1, let text = Help.command[args[1]] {
                    return printOut(text)
                }
                return printOut(Help.main)
            }
            if first == "--version" || first == "-V" { return printOut("pulsemeter \(version)\n") }
        }
        let command = selectCommand(&raw)
        let parsed = try parse(command, raw)
        if parsed.flag("help") { return printOut(Help.command[command] ?? Help.main) }
        do {
            switch command {
            case "analyze": return try AnalyzeCommand.run(parsed)
            case "waveform": return try WaveformCommand.run(parsed)
            case "tag": return try TagCommand.run(parsed)
            case "normalize": return try NormalizeCommand.run(parsed)
            case "presets": return try PresetsCommand.run(parsed)
            default: return try LiveCommands.run(command, parsed)
            }
        } catch let e as AudioFile.DecoderMissing {
            throw RawInput.decoderMissing(e, command: command)
        }
    }

    /// Parses a command line and checks every option value without opening any file or
    /// server (for fuzzing and tests). Throws the usage error `run` would report.
    public static func check(_ arguments: [String]) throws {
        var raw = arguments.map { Array($0.utf8) }
        let command = selectCommand(&raw)
        let parsed = try parse(command, raw)
        if ["monitor", "record", "analyze"].contains(command) {
            let s = try MeterOptions.settings(parsed)
            _ = try MeterOptions.durationFrames(parsed, rate: s.rate)
            if command == "record" {
                _ = try RecordingOptions.mode(parsed, settings: s.settings)
                _ = try RecordingOptions.keep(parsed)
            }
            if command != "analyze" { _ = try RecordingOptions.bitrate(parsed, record: parsed.positionalPaths.first ?? parsed.path("record")) }
            _ = try MeterOptions.format(parsed, outputIsTerminal: false, csv: true)
            _ = try PeriodOptions.settings(parsed, live: command != "analyze", spl: s.settings.spl != nil)
            if command != "analyze" { _ = try LiveSources.devices(parsed) }
        }
        if ["play", "calibrate"].contains(command) { _ = try LiveSources.single(parsed) }
        if command == "waveform" {
            _ = try WaveformCommand.bars(parsed)
            _ = try PixelOptions.parse(parsed, format: parsed.string("format") ?? "json")
        }
        if command == "tag" { _ = try MeterOptions.format(parsed, outputIsTerminal: false) }
        if command == "normalize" {
            _ = try NormalizeTarget.parse(parsed)
            _ = try ManyFiles.jobs(parsed)
        }
        if ManyFiles.requested(parsed) || command == "tag" { _ = try ManyFiles.jobs(parsed) }
    }

    /// `command`'s arguments parsed with its options; an option of another command is
    /// pointed there.
    static func parse(_ command: String, _ raw: [[UInt8]]) throws(PulsemeterError) -> ParsedArguments {
        guard let specs = specs(for: command) else { throw unknownCommand(command) }
        return try ParsedArguments(command: command, rawArguments: raw, specs: specs,
                                   elsewhere: { otherCommand(for: $0, value: $1, not: command) })
    }

    /// The command a command line names (its first word, taken off `raw`), or monitor when
    /// it starts with an option.
    static func selectCommand(_ raw: inout [[UInt8]]) -> String {
        guard let first = raw.first.map({ String(decoding: $0, as: UTF8.self) }),
              !first.hasPrefix("-") || first == "-" else { return "monitor" }
        raw.removeFirst()
        return first
    }

    /// The options `command` accepts, or nil for an unknown command. The man page and the
    /// shell completions are checked against this list (InstallTests).
    public static func specs(for command: String) -> [OptionSpec]? {
        switch command {
        case "analyze": return AnalyzeCommand.specs
        case "waveform": return WaveformCommand.specs
        case "tag": return TagCommand.specs
        case "normalize": return NormalizeCommand.specs
        case "presets": return PresetsCommand.specs
        default: return LiveCommands.specs(for: command)
        }
    }

    /// What each command's line starts with, for a hint that shows one.
    static let usage = ["monitor": "pulsemeter", "record": "pulsemeter record FILE", "analyze": "pulsemeter analyze FILE",
                        "waveform": "pulsemeter waveform FILE", "tag": "pulsemeter tag FILE", "normalize": "pulsemeter normalize IN -o OUT", "play": "pulsemeter play FILE", "devices": "pulsemeter devices"]

    /// For an option `command` does not take but other commands do: which, with the command
    /// line to use ("--split is an option of record: pulsemeter record FILE --split 3").
    static func otherCommand(for option: String, value: String?, not command: String) -> String? {
        let owners = commands.filter { $0 != command && specs(for: $0)!.contains { $0.names.contains(option) } }
        guard let first = owners.first, let spec = specs(for: first)!.first(where: { $0.names.contains(option) }) else { return nil }
        let example = (usage[first] ?? "pulsemeter \(first)") + " " + option + (spec.takesValue ? " " + (value.map(SafeText.terminal) ?? "VALUE") : "")
        let list = owners.count == 1 ? first : owners.dropLast().joined(separator: ", ") + " and " + owners.last!
        return "\(option) is an option of \(list): \(example)"
    }

    /// The error for a first word that is no command: the nearest command, or for a file
    /// given alone the analyze command line, or the list.
    static func unknownCommand(_ word: String) -> PulsemeterError {
        if let near = Suggestion.nearest(to: word, in: commands + ["help"]) {
            return PulsemeterError(.usage, "unknown command \(word); did you mean \(near)?")
        }
        if FilePath(word).exists {
            return PulsemeterError(.usage, "unknown command \(word); to meter a file, use pulsemeter analyze \(word)")
        }
        return PulsemeterError(.usage, "unknown command \(word); use \(commands.dropLast().joined(separator: ", ")) or \(commands.last!) (see pulsemeter --help)")
    }

    /// Writes help or version text to stdout.
    static func printOut(_ text: String) -> Int32 {
        try? FileDescriptorOutput.standardOutput.write(Array(text.utf8))
        return 0
    }

    /// One error line on stderr, control characters escaped (a file name in the message cannot
    /// send an escape sequence to the terminal, nor break the line).
    static func error(_ message: String) {
        try? FileDescriptorOutput.standardError.write(Array(("pulsemeter: " + SafeText.terminal(message) + "\n").utf8))
    }

    /// A line on stderr saying what the run does (no warning, no error).
    static func note(_ message: String) { error(message) }

    /// A warning line on stderr.
    static func warn(_ message: String) { error("warning: " + message) }
}
