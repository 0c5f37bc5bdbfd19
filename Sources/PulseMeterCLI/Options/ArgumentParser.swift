import MeterCore
import MeterIO

/// One option a command accepts: its spellings, and whether it takes a value.
public struct OptionSpec: Sendable {
    public let names: [String]
    public let takesValue: Bool
    /// Canonical key (the long name without dashes).
    public var key: String { String((names.last ?? "").drop(while: { $0 == "-" })) }

    public init(_ names: String..., value: Bool = true) {
        self.names = names
        self.takesValue = value
    }
}

/// A small hand-written parser: `--opt value`, `--opt=value`, `-o value`, `-ovalue`, flags,
/// `--` to end options, and positionals (`-` alone is a positional: stdin).
///
/// Arguments arrive as bytes (the raw argument vector): option names and numbers are read from
/// their UTF-8 decoding, while positionals and option values keep their exact bytes for the
/// options that name files (`path`, `positionalPaths`): a file name need not be UTF-8.
public struct ParsedArguments: Sendable {
    public let command: String
    /// The arguments as given (after the command), as text: what a report says the run was.
    public let arguments: [String]
    /// Every value of each option, in the order given (`-d` may be given several times);
    /// `string` reads the last.
    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []
    /// The exact bytes of each value and positional.
    private var rawValues: [String: [UInt8]] = [:]
    private var rawPositionals: [[UInt8]] = []

    public init(command: String, arguments: [String], specs: [OptionSpec]) throws(PulsemeterError) {
        try self.init(command: command, rawArguments: arguments.map { Array($0.utf8) }, specs: specs)
    }

    /// `elsewhere` words where an option unknown here belongs (another command's option),
    /// given its name and the value that follows it, if any; nil when it belongs nowhere.
    public init(command: String, rawArguments: [[UInt8]], specs: [OptionSpec],
                elsewhere: (_ option: String, _ value: String?) -> String? = { _, _ in nil }) throws(PulsemeterError) {
        self.command = command
        arguments = rawArguments.map { String(decoding: $0, as: UTF8.self) }
        var byName: [String: OptionSpec] = [:]
        for spec in specs { for n in spec.names { byName[n] = spec } }
        var i = 0
        var optionsEnded = false
        while i < rawArguments.count {
            let raw = rawArguments[i]
            let arg = String(decoding: raw, as: UTF8.self)
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                rawPositionals.append(raw)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var name = arg
            var inline: [UInt8]?
            if arg.hasPrefix("--"), let eq = raw.firstIndex(of: UInt8(ascii: "=")) {
                name = String(decoding: raw[..<eq], as: UTF8.self)
                inline = Array(raw[(eq + 1)...])
            } else if !arg.hasPrefix("--"), raw.count > 2, byName[arg] == nil {
                name = String(decoding: raw.prefix(2), as: UTF8.self)
                inline = Array(raw.dropFirst(2))
            }
            guard let spec = byName[name] else {
                // "-bands" is reported whole, not as "-b" with the value "ands".
                let typed = arg.hasPrefix("--") ? name : arg
                let next = inline.map { String(decoding: $0, as: UTF8.self) }
                    ?? (i < rawArguments.count ? String(decoding: rawArguments[i], as: UTF8.self) : nil)
                if let hint = elsewhere(typed, next) {
                    throw PulsemeterError(.usage, "unknown option \(typed) for \(command); \(hint)")
                }
                if let near = Suggestion.nearest(to: typed, in: specs.flatMap(\.names)) {
                    throw PulsemeterError(.usage, "unknown option \(typed) for \(command); did you mean \(near)?")
                }
                throw PulsemeterError(.usage, "unknown option \(typed) for \(command); see pulsemeter \(command) --help")
            }
            if spec.takesValue {
                let value: [UInt8]
                if let inline {
                    value = inline
                } else {
                    guard i < rawArguments.count else {
                        throw PulsemeterError(.usage, "option \(name) needs a value; see pulsemeter \(command) --help")
                    }
                    value = rawArguments[i]
                    i += 1
                }
                values[spec.key, default: []].append(String(decoding: value, as: UTF8.self))
                rawValues[spec.key] = value
            } else {
                if inline != nil {
                    throw PulsemeterError(.usage, "option \(name) takes no value; see pulsemeter \(command) --help")
                }
                flags.insert(spec.key)
            }
        }
    }

    /// An option naming a file, with its exact bytes.
    public func path(_ key: String) -> FilePath? { rawValues[key].map { FilePath(bytes: $0) } }

    /// The positionals with their exact bytes (file names).
    public var positionalPaths: [FilePath] { rawPositionals.map { FilePath(bytes: $0) } }

    public func has(_ key: String) -> Bool { values[key] != nil || flags.contains(key) }
    public func flag(_ key: String) -> Bool { flags.contains(key) }
    public func string(_ key: String) -> String? { values[key]?.last }
    /// Every value given for an option, in order; empty when it is not given.
    public func strings(_ key: String) -> [String] { values[key] ?? [] }

    /// An integer option within `range`; the error names the option, the value and the range.
    public func int(_ key: String, in range: ClosedRange<Int>, what: String) throws(PulsemeterError) -> Int? {
        guard let raw = string(key) else { return nil }
        guard let v = Int(raw), range.contains(v) else {
            throw PulsemeterError(.usage, "--\(key) \(quoted(raw)) is not allowed: \(what)")
        }
        return v
    }

    /// A whole-number option within `limit`'s range; the message says "use LO to HI UNIT".
    public func count(_ key: String, _ limit: CountLimit, unit: String) throws(PulsemeterError) -> Int? {
        try int(key, in: limit.range, what: "use \(limit.range.lowerBound) to \(limit.range.upperBound) \(unit)")
    }

    /// A whole-number option that is one of `allowed`.
    public func int(_ key: String, oneOf allowed: [Int], what: String) throws(PulsemeterError) -> Int? {
        guard let raw = string(key) else { return nil }
        guard let v = Int(raw), allowed.contains(v) else {
            throw PulsemeterError(.usage, "--\(key) \(quoted(raw)) is not allowed: \(what)")
        }
        return v
    }

    /// A finite number option accepted by `valid`.
    public func double(_ key: String, what: String, valid: (Double) -> Bool = { _ in true }) throws(PulsemeterError) -> Double? {
        guard let raw = string(key) else { return nil }
        guard let v = Double(raw), v.isFinite, valid(v) else {
            throw PulsemeterError(.usage, "--\(key) \(quoted(raw)) is not allowed: \(what)")
        }
        return v
    }

    /// One of `allowed`.
    public func choice(_ key: String, _ allowed: [String]) throws(PulsemeterError) -> String? {
        guard let raw = string(key) else { return nil }
        guard allowed.contains(raw) else {
            throw PulsemeterError(.usage, "--\(key) \(quoted(raw)) is not allowed: use one of \(allowed.joined(separator: ", "))")
        }
        return raw
    }

    /// Exactly `count` positionals, named in the error.
    public func requirePositionals(_ names: [String]) throws(PulsemeterError) -> [String] {
        if positionals.count < names.count {
            throw PulsemeterError(.usage, "\(command) needs \(names.joined(separator: " ")); see pulsemeter \(command) --help")
        }
        if positionals.count > names.count {
            throw PulsemeterError(.usage, "unexpected argument \(quoted(positionals[names.count])) for \(command); see pulsemeter \(command) --help")
        }
        return positionals
    }

    private func quoted(_ s: String) -> String { s.isEmpty ? "''" : SafeText.terminal(s) }
}
