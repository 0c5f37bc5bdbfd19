import MeterCore
import MeterIO

/// `--exec CMD` and `--exec-on LIST` (monitor, record, analyze): a command run for the lines
/// that say something happened, through `HookSink` (beside the meter's output) and
/// `HookRunner` (the hook threads). Here: reading the options and wording what the runner
/// reports.
enum HookOptions {
    static let specs = [OptionSpec("--exec"), OptionSpec("--exec-on")]

    /// The kinds `--exec-on` names (all of them without it); nil without `--exec`.
    static func kinds(_ a: ParsedArguments) throws(PulsemeterError) -> Set<HookLine.Kind>? {
        guard let command = a.string("exec") else {
            if a.has("exec-on") {
                throw PulsemeterError(.usage, "--exec-on says which lines run the --exec command; add --exec CMD")
            }
            return nil
        }
        if command.allSatisfy({ $0 == " " || $0 == "\t" }) {
            throw PulsemeterError(.usage, "--exec needs a command, run by /bin/sh -c with the line on its stdin")
        }
        guard let list = a.string("exec-on") else { return Set(HookLine.Kind.allCases) }
        var kinds: Set<HookLine.Kind> = []
        for word in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(word.filter { $0 != " " })
            guard let kind = HookLine.Kind(rawValue: name) else {
                let allowed = HookLine.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw PulsemeterError(.usage, "--exec-on \(SafeText.terminal(list)) is not allowed: use a comma-separated list of \(allowed)")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    /// True when `--exec-on` names an event (`silence_start`, `silence_end`, `clip`): the run
    /// detects events then, as `--events` asks.
    static func impliesEvents(_ a: ParsedArguments) -> Bool {
        guard a.has("exec"), let kinds = try? kinds(a) else { return false }
        return a.has("exec-on") && kinds.contains(where: \.isEvent)
    }

    /// The hook runner and `sink` behind the hook sink (which runs the hooks and, at the end,
    /// waits for them so the end line carries their totals), or nil and `sink` itself without
    /// `--exec`. `stop`: the cancellation only the stop signals fire (at a normal end every
    /// hook accepted runs; after a stop they are ended). `lines`, `recordings`: the run's.
    static func attach(_ a: ParsedArguments, to sink: any FrameSink, stop: Cancellation, lines: NDJSONLines,
                       recordings: OpenRecordings) throws -> (HookRunner?, any FrameSink) {
        guard var kinds = try kinds(a), let command = a.string("exec") else { return (nil, sink) }
        // Events detected for the silence gauge only run no hook.
        if !MeterOptions.eventLines(a) { kinds = kinds.filter { !$0.isEvent } }
        let runner = try HookRunner(command: command, stop: stop, report: { report in
            switch report {
            case .dropping: CLI.warn(word(report))
            default: CLI.error(word(report))
            }
        })
        let hooks = HookSink(kinds: kinds, next: sink, lines: lines, recordings: recordings,
                             submit: { [runner] line in runner.submit(line) }, settle: { [runner] in runner.finish() })
        return (runner, hooks)
    }

    /// One stderr line about one hook.
    static func word(_ report: HookRunner.Report) -> String {
        func what(_ line: HookLine) -> String {
            let name = line.kind.isEvent ? line.kind.rawValue : "\(line.kind.rawValue) line"
            return "the hook for the \(name) at \(line.environment[HookLine.variablePrefix + "T"] ?? ErrorWording.number(line.t)) s"
        }
        switch report {
        case .failed(let line, .exited(let status)): return "\(what(line)) exited with status \(status)"
        case .failed(let line, .signalled(let sig)): return "\(what(line)) was killed by signal \(sig)"
        case .couldNotStart(let line, let reason): return "\(what(line)) could not start \(HookRunner.shell): \(reason)"
        case .dropping:
            return "hooks are falling behind (at most \(HookRunner.maxRunning) run at once and \(HookRunner.maxWaiting) wait): the lines beyond that run no hook"
        case .stopped(let killed, let discarded):
            return "stopped: \(count(killed, "hook")) still running after 2 s \(killed == 1 ? "was" : "were") ended and \(count(discarded, "waiting hook")) never ran"
        }
    }

    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
