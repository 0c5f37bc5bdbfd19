/// The wall-clock time of one stream's frames: a live frame's `ts`, a file's start plus the
/// frame's audio position. A frame is put at its end (the time of its last sample), and a
/// frame ending on a boundary belongs to what the boundary ends.
struct FrameClock {
    let settings: PeriodSettings
    let rate: Int
    /// The time of the stream's first sample; set by the first frame when live.
    private(set) var origin: Double?
    private var lastPos = 0

    init(settings: PeriodSettings, rate: Int) {
        self.settings = settings
        self.rate = rate
        if case .file(let start, _) = settings.clock { origin = start }
    }

    /// The frame's time and the seconds of audio it holds (since the previous frame).
    mutating func place(_ frame: MeterFrame) -> (time: Double, seconds: Double) {
        let seconds = Double(frame.pos - lastPos) / Double(rate)
        lastPos = frame.pos
        if case .live = settings.clock, let ts = frame.ts {
            if origin == nil { origin = ts - seconds }
            return (ts, seconds)
        }
        if origin == nil { origin = 0 }
        return (origin! + Double(frame.pos) / Double(rate), seconds)
    }
}
