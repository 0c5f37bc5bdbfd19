import MeterCore

/// waveform's min/max pixel formats (`--format dat|audiowaveform-json|peaks`): their options
/// (`--bits`, `--pixels-per-second`, `--samples-per-pixel`, `--split-channels`); the pass that
/// writes them is `WaveformPasses.pixels`.
struct PixelOptions: Equatable {
    static let formats = ["dat", "audiowaveform-json", "peaks"]

    enum Spacing: Equatable {
        case bars
        case pixelsPerSecond(Int)
        case samplesPerPixel(Int)
    }

    var format: WaveformDataWriter.Format
    var spacing: Spacing
    var split: Bool

    /// nil for the bar formats (json, svg, ansi), which take none of these options.
    static func parse(_ a: ParsedArguments, format: String) throws(PulsemeterError) -> PixelOptions? {
        let pixelOnly = ["bits", "pixels-per-second", "samples-per-pixel", "split-channels"]
        guard formats.contains(format) else {
            if let given = pixelOnly.first(where: { a.has($0) }) {
                throw PulsemeterError(.usage, "--\(given) is not allowed with --format \(format): it applies to --format dat, audiowaveform-json and peaks")
            }
            return nil
        }
        let allowed = WaveformDataWriter.Format.allowedBits
        let bits = try a.int("bits", oneOf: allowed, what: "use \(allowed.map(String.init).joined(separator: " or "))")
            ?? WaveformDataWriter.Format.defaultBits
        if format == "peaks", a.has("bits") {
            throw PulsemeterError(.usage, "--bits is not allowed with --format peaks: peaks are floats; use --format dat or audiowaveform-json")
        }
        let pps = try a.count("pixels-per-second", .pixelsPerSecond, unit: "pixels per second")
        let spp = try a.count("samples-per-pixel", .samplesPerPixel, unit: "frames per pixel")
        if pps != nil && spp != nil {
            throw PulsemeterError(.usage, "--pixels-per-second and --samples-per-pixel are not allowed together: give one")
        }
        if (pps != nil || spp != nil) && a.has("bars") {
            throw PulsemeterError(.usage, "--bars is not allowed with --\(pps != nil ? "pixels-per-second" : "samples-per-pixel"): give one way to space the pixels")
        }
        let f: WaveformDataWriter.Format = switch format {
        case "dat": .dat(bits: bits)
        case "audiowaveform-json": .audiowaveformJSON(bits: bits)
        default: .peaks
        }
        let spacing: Spacing = pps.map { .pixelsPerSecond($0) } ?? spp.map { .samplesPerPixel($0) } ?? .bars
        return PixelOptions(format: f, spacing: spacing, split: a.flag("split-channels"))
    }
}
