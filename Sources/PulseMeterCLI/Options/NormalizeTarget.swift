import MeterCore

/// `--preset NAME`, `--target LUFS`, `--max-true-peak DB` for `normalize`: the loudness to
/// reach and the true-peak ceiling, read as every command reads them (`DeliveryOptions`: a
/// preset gives both; `--target` and `--max-true-peak` override its figures; the ceiling
/// without either is `DeliveryPreset.defaultMaxTruePeak`). Without a preset or a target there
/// is no loudness to normalize to (exit 64 naming both): a target is the one figure a delivery
/// spec must give. No `--tolerance`: normalize reaches the target, it does not judge.
struct NormalizeTarget: Sendable, Equatable {
    static let specs: [OptionSpec] = DeliveryOptions.specs.filter { $0.key != "tolerance" } + [OptionSpec("--target")]

    var target: Double
    var ceiling: Double
    var preset: DeliveryPreset?

    static func parse(_ a: ParsedArguments) throws(PulsemeterError) -> NormalizeTarget {
        let preset = try DeliveryOptions.preset(a)
        guard let target = try DeliveryOptions.target(a) else {
            throw PulsemeterError(.usage, "normalize needs the loudness to reach: give --target LUFS (e.g. --target -16) or --preset NAME (e.g. --preset podcast)")
        }
        return NormalizeTarget(target: target, ceiling: try DeliveryOptions.ceiling(a), preset: preset)
    }
}
