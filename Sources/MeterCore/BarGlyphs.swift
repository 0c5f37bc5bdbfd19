/// Glyph sets for bars: Unicode eighth blocks, or plain ASCII when the locale is not UTF-8.
public struct BarGlyphs: Sendable {
    /// Horizontal partial cells, index 0 = empty ... 8 = full.
    public let horizontal: [String]
    /// Vertical partial cells, index 0 = empty ... 8 = full.
    public let vertical: [String]
    public let peakMarker: String
    public let light: String

    public static let unicode = BarGlyphs(
        horizontal: [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"],
        vertical: [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"],
        peakMarker: "│", light: "·")
    public static let ascii = BarGlyphs(
        horizontal: [" ", " ", " ", "-", "-", "=", "=", "#", "#"],
        vertical: [" ", " ", ".", ".", "-", "-", "=", "#", "#"],
        peakMarker: "|", light: ".")

    /// Splits `fraction` (0...1) of `cells` cells into full cells and the eighths of the next.
    public static func split(_ fraction: Double, cells: Int) -> (full: Int, eighths: Int) {
        let f = min(1, max(0, fraction.isFinite ? fraction : 0))
        let total = Int((f * Double(cells) * 8).rounded())
        return (total / 8, total % 8)
    }
}
