/// One line a hook runs for (`--exec`): the NDJSON line, given to the command on its stdin,
/// and the `PULSEMETER_*` variables that describe it.
public struct HookLine: Sendable, Equatable {
    /// What `--exec-on` names: an event's name, or a line type.
    public enum Kind: String, Sendable, CaseIterable {
        case silenceStart = "silence_start", silenceEnd = "silence_end", clip, gap, file, device
        case sourceLost = "source_lost"
        /// `--alarm` changes, which come without `--events`.
        case alarmOn = "alarm_on", alarmOff = "alarm_off"

        /// True for the kinds that are `event` lines (which need `--events`).
        public var isEvent: Bool { self == .silenceStart || self == .silenceEnd || self == .clip || self == .sourceLost }
    }

    public var kind: Kind
    /// The NDJSON line, newline included.
    public var line: [UInt8]
    /// PULSEMETER_TYPE, _EVENT, _POS, _T, _SOURCE, _FILE, those that apply.
    public var environment: [String: String]
    /// Stream time of the line, seconds (for messages).
    public var t: Double

    public init(kind: Kind, line: [UInt8], environment: [String: String], t: Double) {
        self.kind = kind
        self.line = line
        self.environment = environment
        self.t = t
    }

    /// The variables' prefix; a hook's environment holds no other variable of that name.
    public static let variablePrefix = "PULSEMETER_"
}
