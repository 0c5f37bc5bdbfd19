import MeterCore
import MeterIO

/// `pulsemeter presets [--json]`: the delivery presets `--preset` takes, from the one table
/// (`DeliveryPreset.all`).
enum PresetsCommand {
    static let specs = [OptionSpec("--json", value: false), OptionSpec("-h", "--help", value: false)]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        _ = try a.requirePositionals([])
        let out = FileDescriptorOutput.standardOutput
        if a.flag("json") {
            try out.write(Listing.jsonArray(DeliveryPreset.all) { b, p in
                b.field("name", p.name)
                b.field("integrated", p.integrated, decimals: 1)
                b.field("tolerance", p.tolerance, decimals: 1)
                b.field("live_tolerance", p.liveTolerance, decimals: 1)
                b.field("max_true_peak", p.maxTruePeak, decimals: 1)
                if let s = p.maxShortTerm { b.field("max_short_term", s, decimals: 1) }
                b.field("use", p.use)
            })
            return 0
        }
        try out.write(Array(table.utf8))
        return 0
    }

    /// One row a preset: name, integrated LUFS, tolerance LU (live where it differs), true
    /// peak ceiling dBTP, max short-term LUFS, who uses it.
    static var table: String {
        func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        var rows = [["preset", "integrated", "tolerance", "true peak max", "max short-term", "use"]]
        for p in DeliveryPreset.all {
            let live = p.liveTolerance != p.tolerance ? " (±\(n(p.liveTolerance)) live)" : ""
            rows.append([p.name, n(p.integrated) + " LUFS", "±" + n(p.tolerance) + " LU" + live, n(p.maxTruePeak) + " dBTP",
                         p.maxShortTerm.map { n($0) + " LUFS" } ?? "-", p.use])
        }
        return Listing.table(rows, rightAligned: [])
    }
}
