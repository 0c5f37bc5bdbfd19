/// Channel names as PulseAudio spells channel positions (`front-left`, `lfe`, `aux0`, ...),
/// and the short labels the terminal meter puts in front of each row (L R C LFE Ls Rs, A0 ...).
///
/// Live sources take their names from the server's channel map; files from their own map when
/// the container has one, else `waveDefault`.
public enum ChannelNames {
    /// The names for `channels` channels in the WAVE order the loudness roles follow:
    /// 1 mono, 2 L R, 3 L R C, 4 L R Ls Rs, 5 L R C Ls Rs, 6 L R C LFE Ls Rs (the surrounds
    /// are WAVE's back pair, PulseAudio's `rear-left`/`rear-right`); other counts have no
    /// defined roles and read `aux0`, `aux1`, ...
    public static func waveDefault(channels: Int) -> [String] {
        let fl = "front-left", fr = "front-right", fc = "front-center", rl = "rear-left", rr = "rear-right"
        switch channels {
        case 1: return ["mono"]
        case 2: return [fl, fr]
        case 3: return [fl, fr, fc]
        case 4: return [fl, fr, rl, rr]
        case 5: return [fl, fr, fc, rl, rr]
        case 6: return [fl, fr, fc, "lfe", rl, rr]
        default: return (0..<max(0, channels)).map { "aux\($0)" }
        }
    }

    /// The short label of each name: `front-left` L, `front-right` R, `front-center` C, `lfe`
    /// LFE, `side-left`/`side-right` Ls/Rs, `rear-left`/`rear-right` Ls/Rs too unless the map
    /// also has side channels (7.1: then Lb/Rb), `rear-center` Cs, `front-left-of-center` Lc,
    /// `front-right-of-center` Rc, `mono` M, `auxN` AN, the top positions Tc Tfl Tfr Tfc Trl
    /// Trr Trc. A name it does not know, or one that repeats a label, reads as the channel's
    /// number (1-based).
    public static func labels(_ names: [String]) -> [String] {
        let hasSides = names.contains("side-left") || names.contains("side-right")
        var seen = Set<String>()
        return names.enumerated().map { i, name in
            var label = shortLabel(name, hasSides: hasSides) ?? String(i + 1)
            if !seen.insert(label).inserted { label = String(i + 1) }
            return label
        }
    }

    private static let fixed: [String: String] = [
        "mono": "M", "front-left": "L", "front-right": "R", "front-center": "C", "lfe": "LFE",
        "side-left": "Ls", "side-right": "Rs", "rear-center": "Cs",
        "front-left-of-center": "Lc", "front-right-of-center": "Rc",
        "top-center": "Tc", "top-front-left": "Tfl", "top-front-right": "Tfr", "top-front-center": "Tfc",
        "top-rear-left": "Trl", "top-rear-right": "Trr", "top-rear-center": "Trc",
    ]

    private static func shortLabel(_ name: String, hasSides: Bool) -> String? {
        if let l = fixed[name] { return l }
        switch name {
        case "rear-left": return hasSides ? "Lb" : "Ls"
        case "rear-right": return hasSides ? "Rb" : "Rs"
        default: break
        }
        if name.hasPrefix("aux"), let n = Int(name.dropFirst(3)), n >= 0 { return "A\(n)" }
        return nil
    }
}
