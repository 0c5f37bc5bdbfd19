import MeterCore
import MeterIO

/// `--interval SECONDS`, `--start-time RFC3339` and `--lden` (monitor, record, analyze): the
/// period and day lines, measured by a `PeriodSink` in front of the run's output. The wall
/// clock and the time zone are read here (the system's), never in MeterCore.
enum PeriodOptions {
    static let specs = [OptionSpec("--interval"), OptionSpec("--start-time"), OptionSpec("--lden", value: false)]

    /// The settings the options ask for, nil without --interval and --lden. `live`: frames
    /// carry their wall-clock time; a file starts at --start-time, else now.
    static func settings(_ a: ParsedArguments, live: Bool, spl: Bool) throws(PulsemeterError) -> PeriodSettings? {
        let start = try startTime(a, live: live)
        guard a.has("interval") || a.flag("lden") else {
            if a.has("start-time") {
                throw PulsemeterError(.usage, "--start-time dates the period and day lines; add --interval SECONDS or --lden")
            }
            return nil
        }
        if a.flag("lden") && !spl {
            throw PulsemeterError(.usage, "--lden gives Lday, Levening, Lnight and Lden of the A-weighted sound level; add --spl")
        }
        let zone: any UTCOffsets = start.map { FixedUTCOffset(seconds: $0.offset) } ?? SystemTimeZone()
        let clock: PeriodSettings.Clock = live ? .live : .file(start: start?.unix ?? unixSeconds(), aligned: start != nil)
        return PeriodSettings(interval: try interval(a), lden: a.flag("lden"), clock: clock, zone: zone)
    }

    /// Period and day lines are NDJSON or CSV lines: the terminal meter has none to show.
    static func checkFormat(_ a: ParsedArguments, _ format: MeterOptions.Format) throws(PulsemeterError) {
        guard format == .ansi, let key = ["interval", "lden"].first(where: { a.has($0) }) else { return }
        throw PulsemeterError(.usage, "--\(key) writes period lines, which the terminal meter does not show: add -f ndjson or -f csv (and -o FILE to keep them)")
    }

    /// `sink` behind a `PeriodSink` when periods or days are asked for, else `sink` itself.
    static func attach(_ a: ParsedArguments, to sink: any FrameSink, live: Bool, spl: Bool) throws(PulsemeterError) -> any FrameSink {
        guard let s = try settings(a, live: live, spl: spl) else { return sink }
        return PeriodSink(sink, settings: s)
    }

    /// `-f csv`: period and day rows with --interval or --lden, else frame rows; live times in
    /// the system's time zone.
    static func csvSink(_ a: ParsedArguments, output: any ByteOutput, gathering: Bool) -> CSVSink {
        CSVSink(output: output, periods: a.has("interval") || a.flag("lden"), lden: a.flag("lden"),
                zone: SystemTimeZone(), gathering: gathering)
    }

    private static func interval(_ a: ParsedArguments) throws(PulsemeterError) -> Double? {
        guard let raw = a.string("interval") else { return nil }
        let r = PeriodSettings.intervalRange
        guard let v = Double(raw), v.isFinite, r.contains(v) else {
            throw PulsemeterError(.usage, "--interval \(SafeText.terminal(raw)) is not allowed: use \(Int(r.lowerBound)) to \(Int(r.upperBound)) seconds")
        }
        return v
    }

    private static func startTime(_ a: ParsedArguments, live: Bool) throws(PulsemeterError) -> (unix: Double, offset: Int)? {
        guard let raw = a.string("start-time") else { return nil }
        if live {
            throw PulsemeterError(.usage, "--start-time dates a file's audio; a live run's periods follow the wall clock: drop --start-time")
        }
        guard let t = CivilTime.parse(raw) else {
            throw PulsemeterError(.usage, "--start-time \(SafeText.terminal(raw)) is not allowed: use an RFC 3339 time with its offset, e.g. 2026-12-04T10:07:00+01:00")
        }
        return t
    }
}
