/// Glyph sets for bars and the meter's marks: Unicode eighth blocks, or plain ASCII when the
/// locale is not UTF-8.
public struct BarGlyphs: Sendable {
    /// Horizontal partial cells, index 0 = empty ... 8 = full.
    public let horizontal: [String]
    /// Vertical partial cells, index 0 = empty ... 8 = full.
    public let vertical: [String]
    public let peakMarker: String
    public let light: String
    /// Recording (the compact line's first mark), and armed: waiting for a take.
    public let recording: String
    public let armed: String
    /// Where a shortened name was cut.
    public let ellipsis: String

    public static let unicode = BarGlyphs(
        horizontal: [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"],
        vertical: [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"],
        peakMarker: "│", light: "·", recording: "●", armed: "○", ellipsis: "…")
    public static let ascii = BarGlyphs(
        horizontal: [" ", " ", " ", "-", "-", "=", "=", "#", "#"],
        vertical: [" ", " ", ".", ".", "-", "-", "=", "#", "#"],
        peakMarker: "|", light: ".", recording: "*", armed: "o", ellipsis: "~")

    /// Splits `fraction` (0...1) of `cells` cells into full cells and the eighths of the next.
    public static func split(_ fraction: Double, cells: Int) -> (full: Int, eighths: Int) {
        let f = min(1, max(0, fraction.isFinite ? fraction : 0))
        let total = Int((f * Double(cells) * 8).rounded())
        return (total / 8, total % 8)
    }
}
