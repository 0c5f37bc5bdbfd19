/// The slots of `/history` (a tenth of a second each, `t = pos / rate`) as frames arrive, on
/// the analysis thread: frames of one slot are merged (`FrameMerge`), and a slot's line is
/// given out when the next slot begins: the frame's own line when it was alone in it (one
/// encoding of each line), else the merged frame's, by the run's `NDJSONLines`. Only the first
/// stream's frames count.
public struct HistorySlots {
    public static let perSecond = 10

    private let lines: NDJSONLines
    private var rate = 0
    private var slot: Int?
    private var merge = FrameMerge()
    private var single: [UInt8]?

    /// `lines`: the run's (the start line it gives, already encoded, tells it the rates of `t`).
    public init(lines: NDJSONLines = NDJSONLines()) {
        self.lines = lines
    }

    /// A start line: the slots begin again (a restarted stream's times start over); false for
    /// another stream's.
    public mutating func start(_ info: StreamInfo) -> Bool {
        guard (info.stream ?? 0) == 0 else { return false }
        _ = lines.start(info)
        rate = info.settings.rate
        slot = nil
        merge = FrameMerge()
        single = nil
        return true
    }

    /// A frame and its line as the output wrote it; the line of the slot it closed, if any.
    public mutating func frame(_ f: MeterFrame, line: [UInt8]) -> (pos: Int, line: [UInt8])? {
        guard (f.stream ?? 0) == 0, rate > 0 else { return nil }
        let k = f.pos * Self.perSecond / rate
        var closed: (Int, [UInt8])?
        if let open = slot, open != k, let merged = merge.merged {
            closed = (merged.pos, single ?? lines.merged(merged))
            merge = FrameMerge()
        }
        slot = k
        merge.add(f)
        single = merge.count == 1 ? line : nil
        return closed
    }
}
