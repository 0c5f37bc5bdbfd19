/// The one-line progress of a run that reads audio as fast as it decodes (or as it arrives):
/// how much audio is read, how fast against real time, and, when the length is known, the
/// percent done and the time left. Strings only: the caller gives the wall-clock seconds
/// (MeterCore reads no clock) and writes the line (MeterIO's `ProgressLine` on stderr).
///
///     voice.m4a  1:23 / 10:00  13.8%  152.0x  ETA 0:04
///     stdin  0:12 read  1.0x
public struct ProgressRenderer: Sendable {
    /// Terminal columns; the line never reaches the last one (no wrap, no scroll).
    public var width: Int

    public init(width: Int) { self.width = width }

    /// The line for `label` (a file name, "stdin", "3/120 files"...) at `position` seconds of
    /// audio out of `total` (nil: unknown), `elapsed` wall-clock seconds after the start.
    public func line(label: String, position: Double, total: Double?, elapsed: Double) -> String {
        let position = max(0, position.isFinite ? position : 0)
        let speed = elapsed > 0 ? position / elapsed : 0
        var status: String
        if let total, total > 0 {
            let fraction = min(1, position / total)
            status = "\(AnsiMeterRenderer.clock(position)) / \(AnsiMeterRenderer.clock(total))  "
                + AnsiMeterRenderer.readout(fraction * 100, width: 0) + "%"
        } else {
            status = "\(AnsiMeterRenderer.clock(position)) read"
        }
        if speed > 0 {
            status += "  " + AnsiMeterRenderer.readout(speed, width: 0) + "x"
            if let total, total > position {
                status += "  ETA " + AnsiMeterRenderer.clock(((total - position) / speed).rounded(.up))
            }
        }
        // The label gives way first: its end (the file name) is kept, its start elided.
        let room = max(0, width - 1 - status.count - 2)
        if room == 0 { return String(status.prefix(max(0, width - 1))) }
        var shown = label
        if shown.count > room {
            shown = room > 1 ? "…" + String(shown.suffix(room - 1)) : String(shown.suffix(room))
        }
        return shown + "  " + status
    }
}
