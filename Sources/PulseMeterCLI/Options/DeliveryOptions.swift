import MeterCore

/// `--preset NAME`, `--tolerance LU`, `--max-true-peak DB` (with `--target`): what a run
/// judges its loudness by, and aims at. The preset's figures come from `DeliveryPreset`;
/// the options given override them. Taken by analyze, monitor, record and play (the verdict)
/// and by normalize (the target and the ceiling).
enum DeliveryOptions {
    static let specs: [OptionSpec] = [OptionSpec("--preset"), OptionSpec("--tolerance"), OptionSpec("--max-true-peak")]

    /// True when any of them is given (each implies --loudness).
    static func given(_ a: ParsedArguments) -> Bool {
        specs.contains { a.has($0.key) }
    }

    /// `--preset NAME`, or nil; an unknown name is refused naming the allowed ones.
    static func preset(_ a: ParsedArguments) throws(PulsemeterError) -> DeliveryPreset? {
        guard let name = a.string("preset") else { return nil }
        guard let p = DeliveryPreset.named(name) else {
            let names = DeliveryPreset.all.map(\.name)
            throw PulsemeterError(.usage, "--preset \(name.isEmpty ? "''" : SafeText.terminal(name)) is not allowed: use one of \(names.joined(separator: ", ")) (pulsemeter presets lists them)")
        }
        return p
    }

    /// The loudness to aim at: `--target`, else the preset's; nil when neither is given.
    static func target(_ a: ParsedArguments) throws(PulsemeterError) -> Double? {
        if let t = try MeterOptions.checked(a, .target) { return t }
        return try preset(a)?.integrated
    }

    /// The true peak's ceiling: `--max-true-peak`, else the preset's, else -1 dBTP.
    static func ceiling(_ a: ParsedArguments) throws(PulsemeterError) -> Double {
        if let c = try MeterOptions.checked(a, .maxTruePeak) { return c }
        return try preset(a)?.maxTruePeak ?? DeliveryPreset.defaultMaxTruePeak
    }

    /// The rules a verdict judges by, or nil when none of these options is given. A live
    /// programme (`live`) takes the preset's live tolerance. `--tolerance` needs a target to
    /// be a tolerance of.
    static func rules(_ a: ParsedArguments, live: Bool) throws(PulsemeterError) -> DeliveryRules? {
        guard given(a) else { return nil }
        var rules = try preset(a).map { DeliveryRules($0, live: live) } ?? DeliveryRules()
        if let t = try MeterOptions.checked(a, .target) { rules.integrated = t }
        if let tolerance = try MeterOptions.checked(a, .tolerance) {
            guard rules.integrated != nil else {
                throw PulsemeterError(.usage, "--tolerance is how far from a target the integrated loudness may be; give --target LUFS or --preset NAME with it")
            }
            rules.tolerance = tolerance
        }
        rules.maxTruePeak = try ceiling(a)
        return rules
    }
}
