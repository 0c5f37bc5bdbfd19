/// One `--alarm` (contract "Periods, alarms, MQTT, CSV"): a high alarm goes on when its metric
/// stays above `level` for `seconds`, and off when it stays below `clearLevel` for
/// `clearSeconds`; a low alarm the other way round. Without a clear part the clear threshold
/// and time are the set ones (no hysteresis).
///
/// Spelled `NAME:METRIC>LEVEL/SECONDS[,LEVEL[/SECONDS]]` (`<` for a low alarm); the clear part
/// may start with `clear` and the opposite sign (`,clear<-35/5`, `,<-35/5`, or `,-35/5`).
public struct AlarmSpec: Sendable, Equatable {
    public enum Metric: String, Sendable, CaseIterable {
        case rmsDb = "rms_db", peakDb = "peak_db", lufsM = "lufs_m", lufsS = "lufs_s"
        case truePeakDb = "true_peak_db", splDb = "spl_db", leqDb = "leq_db", correlation

        /// True when the frames carry it per channel: the alarm is then one per channel.
        public var perChannel: Bool {
            switch self {
            case .rmsDb, .peakDb, .truePeakDb, .splDb, .leqDb: return true
            case .lufsM, .lufsS, .correlation: return false
            }
        }

        /// What the run must measure for the frames to carry the metric.
        public enum Need: Sendable, Equatable { case loudness, soundLevel, twoChannels }
        public var need: Need? {
            switch self {
            case .rmsDb, .peakDb: return nil
            case .lufsM, .lufsS, .truePeakDb: return .loudness
            case .splDb, .leqDb: return .soundLevel
            case .correlation: return .twoChannels
            }
        }
    }

    /// High: on above the level; low: on below it.
    public enum Direction: Sendable, Equatable { case high, low }

    public var name: String
    public var metric: Metric
    public var direction: Direction
    public var level: Double
    public var seconds: Double
    public var clearLevel: Double
    public var clearSeconds: Double

    public init(name: String, metric: Metric, direction: Direction, level: Double, seconds: Double,
                clearLevel: Double? = nil, clearSeconds: Double? = nil) {
        self.name = name
        self.metric = metric
        self.direction = direction
        self.level = level
        self.seconds = seconds
        self.clearLevel = clearLevel ?? level
        self.clearSeconds = clearSeconds ?? seconds
    }

    /// The longest hold time, in seconds (a day).
    public static let maxSeconds = 86400.0

    /// True when `value` is past the set threshold (the alarm's condition).
    public func isPast(_ value: Double) -> Bool { direction == .high ? value > level : value < level }

    /// True when `value` is back past the clear threshold.
    public func isClear(_ value: Double) -> Bool { direction == .high ? value < clearLevel : value > clearLevel }

    /// What is wrong with a spec (the command line words it with the spec as typed).
    public enum ParseError: Error, Equatable, Sendable {
        /// Not of the form at all (no name, no sign, a number that is not one, ...).
        case malformed
        /// The metric is none of `Metric`'s.
        case unknownMetric(String)
        /// A hold time outside 0...`maxSeconds`.
        case seconds(Double)
        /// A clear threshold on the wrong side of the set one (it would be on and clear at once).
        case clearBeyondLevel
    }

    /// Reads one `--alarm` value.
    public static func parse(_ text: String) throws(ParseError) -> AlarmSpec {
        guard let colon = text.firstIndex(of: ":") else { throw .malformed }
        let name = String(text[..<colon])
        guard !name.isEmpty, name.allSatisfy(isNameCharacter) else { throw .malformed }
        let parts = text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let sign = parts[0].firstIndex(where: { $0 == ">" || $0 == "<" }) else { throw .malformed }
        let metricName = String(parts[0][..<sign])
        guard let metric = Metric(rawValue: metricName) else {
            throw metricName.isEmpty ? .malformed : .unknownMetric(metricName)
        }
        let direction: Direction = parts[0][sign] == ">" ? .high : .low
        guard let (level, seconds) = threshold(parts[0][parts[0].index(after: sign)...]),
              let seconds else { throw .malformed }
        var spec = AlarmSpec(name: name, metric: metric, direction: direction, level: level, seconds: seconds)
        if parts.count == 2 {
            var clear = parts[1]
            if clear.lowercased().hasPrefix("clear") { clear = clear.dropFirst(5) }
            if let s = clear.first, s == ">" || s == "<" {
                guard (s == "<") == (direction == .high) else { throw .malformed }
                clear = clear.dropFirst()
            }
            guard let (clearLevel, clearSeconds) = threshold(clear) else { throw .malformed }
            spec.clearLevel = clearLevel
            spec.clearSeconds = clearSeconds ?? seconds
        }
        for s in [spec.seconds, spec.clearSeconds] where !(0...maxSeconds).contains(s) { throw .seconds(s) }
        if direction == .high ? spec.clearLevel > spec.level : spec.clearLevel < spec.level { throw .clearBeyondLevel }
        return spec
    }

    /// `LEVEL/SECONDS` or `LEVEL` (seconds nil); nil when either is not a finite number.
    private static func threshold(_ text: Substring) -> (Double, Double?)? {
        let fields = text.split(separator: "/", omittingEmptySubsequences: false)
        guard fields.count <= 2, let level = Double(fields[0]), level.isFinite else { return nil }
        guard fields.count == 2 else { return (level, nil) }
        guard let seconds = Double(fields[1]), seconds.isFinite else { return nil }
        return (level, seconds)
    }

    /// A name is letters, digits, `-`, `_` and `.` (it becomes a label and a topic).
    private static func isNameCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".")
    }
}
