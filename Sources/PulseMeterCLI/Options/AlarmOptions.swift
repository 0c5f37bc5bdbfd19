import MeterCore

/// `--alarm SPEC` (repeatable; monitor, record, analyze): reading the specs and wording what
/// is wrong with one. The alarms themselves are `AlarmDetector`'s, in the pipeline.
enum AlarmOptions {
    static let specs = [OptionSpec("--alarm")]

    /// The form a spec takes, as the messages give it.
    static let form = "NAME:METRIC>LEVEL/SECONDS[,LEVEL/SECONDS] (or < for a low alarm), e.g. dead-air:rms_db<-40/30,-35/5"

    /// The `--alarm`s of `s`'s run, in the order given. A metric the run does not measure is
    /// refused with the option to add (the alarm does not turn a meter on by itself).
    static func read(_ a: ParsedArguments, _ s: MeterSettings) throws(PulsemeterError) -> [AlarmSpec] {
        var specs: [AlarmSpec] = []
        for raw in a.strings("alarm") {
            let spec = try parse(raw)
            if specs.contains(where: { $0.name == spec.name }) {
                throw PulsemeterError(.usage, "--alarm \(SafeText.terminal(raw)): an alarm named \(spec.name) was given already; give each a name of its own")
            }
            switch spec.metric.need {
            case .loudness where !s.loudness:
                throw PulsemeterError(.usage, "--alarm \(SafeText.terminal(raw)): \(spec.metric.rawValue) is measured with --loudness; add --loudness")
            case .soundLevel where s.spl == nil:
                throw PulsemeterError(.usage, "--alarm \(SafeText.terminal(raw)): \(spec.metric.rawValue) is measured with --spl; add --spl")
            case .twoChannels where s.channels < 2:
                throw PulsemeterError(.usage, "--alarm \(SafeText.terminal(raw)): correlation needs two channels and the input has \(s.channels)")
            default: break
            }
            specs.append(spec)
        }
        return specs
    }

    private static func parse(_ raw: String) throws(PulsemeterError) -> AlarmSpec {
        let shown = SafeText.terminal(raw)
        do {
            return try AlarmSpec.parse(raw)
        } catch {
            switch error {
            case .malformed:
                throw PulsemeterError(.usage, "--alarm \(shown) is not an alarm: give \(form)")
            case .unknownMetric(let m):
                let allowed = AlarmSpec.Metric.allCases.map(\.rawValue).joined(separator: ", ")
                throw PulsemeterError(.usage, "--alarm \(shown): \(SafeText.terminal(m)) is not a metric; use one of \(allowed)")
            case .seconds:
                throw PulsemeterError(.usage, "--alarm \(shown): a hold time is from 0 to \(Int(AlarmSpec.maxSeconds)) seconds")
            case .clearBeyondLevel:
                throw PulsemeterError(.usage, "--alarm \(shown): the clear level of a high alarm is at or below its level, of a low alarm at or above it")
            }
        }
    }
}
