import MeterCore

/// `--preset NAME`, `--target LUFS`, `--max-true-peak DB` for `normalize`: the loudness to
/// reach and the true-peak ceiling. A preset gives both; `--target` and `--max-true-peak`
/// override its figures. Without either a preset or a target there is no loudness to
/// normalize to (exit 64 naming both): a target is the one figure a delivery spec must give.
/// The ceiling without a preset or `--max-true-peak` is `DeliveryPreset.defaultMaxTruePeak`.
///
/// (Kept apart from the other commands' delivery options so that one shared type can take
/// its place.)
struct NormalizeTarget: Sendable, Equatable {
    static let specs: [OptionSpec] = [OptionSpec("--preset"), OptionSpec("--target"), OptionSpec("--max-true-peak")]

    var target: Double
    var ceiling: Double
    var preset: DeliveryPreset?

    static func parse(_ a: ParsedArguments) throws(PulsemeterError) -> NormalizeTarget {
        var preset: DeliveryPreset?
        if let name = a.string("preset") {
            guard let p = DeliveryPreset.named(name) else {
                throw PulsemeterError(.usage, "--preset \(SafeText.terminal(name)) is not allowed: use one of \(DeliveryPreset.all.map(\.name).joined(separator: ", ")) (pulsemeter presets lists them)")
            }
            preset = p
        }
        let target = try a.double("target", what: "give a loudness in LUFS from -70 to 0, e.g. --target -16") { $0 > -70 && $0 <= 0 }
        let ceiling = try a.double("max-true-peak", what: "give a true-peak ceiling in dBTP from -30 to 0, e.g. --max-true-peak -1") { $0 >= -30 && $0 <= 0 }
        guard let chosen = target ?? preset?.integrated else {
            throw PulsemeterError(.usage, "normalize needs the loudness to reach: give --target LUFS (e.g. --target -16) or --preset NAME (e.g. --preset podcast)")
        }
        return NormalizeTarget(target: chosen, ceiling: ceiling ?? preset?.maxTruePeak ?? DeliveryPreset.defaultMaxTruePeak, preset: preset)
    }
}
