/// Something `--events` noticed in the stream (the NDJSON `event` line), at sample position
/// `pos` on the same clock as frames.
public struct MeterEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Every channel has been below the silence level since `pos`, for at least the minimum.
        case silenceStart
        /// The silence that began `seconds` before ended at `pos`.
        case silenceEnd(seconds: Double)
        /// `samples` samples of `channel` reached the clip level in the hop ending at `pos`.
        case clip(channel: Int, samples: Int)
        /// The live source went away (`--reconnect`: the server or the device) after `pos`,
        /// the last captured position; said at once, before the `gap` line of its return.
        case sourceLost(reason: String)
        /// An `--alarm` went on or off at `pos` (`AlarmDetector`).
        case alarm(AlarmChange)
    }

    public var kind: Kind
    public var pos: Int

    public init(_ kind: Kind, pos: Int) {
        self.kind = kind
        self.pos = pos
    }

    /// The `event` field's value.
    public var name: String {
        switch kind {
        case .silenceStart: return "silence_start"
        case .silenceEnd: return "silence_end"
        case .clip: return "clip"
        case .sourceLost: return "source_lost"
        case .alarm(let change): return change.on ? "alarm_on" : "alarm_off"
        }
    }

    /// True for an alarm's event, which `--alarm` gives without `--events`.
    public var isAlarm: Bool {
        if case .alarm = kind { return true }
        return false
    }
}
