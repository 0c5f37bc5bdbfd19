import MeterCore

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
public struct ParsedArguments: Sendable {
    public let command: String
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    public init(command: String, arguments: [String], specs: [OptionSpec]) throws(PulsemeterError) {
        self.command = command
        var byName: [String: OptionSpec] = [:]
        for spec in specs { for n in spec.names { byName[n] = spec } }
        var i = 0
        var optionsEnded = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var name = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            } else if !arg.hasPrefix("--"), arg.count > 2, byName[arg] == nil {
                name = String(arg.prefix(2))
                inline = String(arg.dropFirst(2))
            }
            guard let spec = byName[name] else {
                throw PulsemeterError(.usage, "unknown option \(name) for \(command); see pulsemeter \(command) --help")
            }
            if spec.takesValue {
                if let inline {
                    values[spec.key] = inline
                } else {
                    guard i < arguments.count else {
                        throw PulsemeterError(.usage, "option \(name) needs a value; see pulsemeter \(command) --help")
                    }
                    values[spec.key] = arguments[i]
                    i += 1
                }
            } else {
                if inline != nil {
                    throw PulsemeterError(.usage, "option \(name) takes no value; see pulsemeter \(command) --help")
                }
                flags.insert(spec.key)
            }
        }
    }

    public func has(_ key: String) -> Bool { values[key] != nil || flags.contains(key) }
    public func flag(_ key: String) -> Bool { flags.contains(key) }
    public func string(_ key: String) -> String? { values[key] }

    /// An integer option within `range`; the error names the option, the value and the range.
    public func int(_ key: String, in range: ClosedRange<Int>, what: String) throws(PulsemeterError) -> Int? {
        guard let raw = values[key] else { return nil }
        guard let v = Int(raw), range.contains(v) else {
            throw PulsemeterError(.usage, "--\(key) \(quoted(raw)) is not allowed: \(what)")
        }
        return v
    }

    /// A finite number option accepted by `valid`.
    public func double(_ key: String, what: String, valid: (Double) -> Bool = { _ in true }) throws(PulsemeterError) -> Double? {
        guard let raw = values[key] else { return nil }
        guard let v = Double(raw), v.isFinite, valid(v) else {
            throw PulsemeterError(.usage, "--\(key) \(quoted(raw)) is not allowed: \(what)")
        }
        return v
    }

    /// One of `allowed`.
    public func choice(_ key: String, _ allowed: [String]) throws(PulsemeterError) -> String? {
        guard let raw = values[key] else { return nil }
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

    private func quoted(_ s: String) -> String { s.isEmpty ? "''" : s }
}
