/// ReplayGain 2.0 and Opus R128 tag values from measured loudness: the one statement of the
/// references, the keys and how each value is written.
///
/// ReplayGain 2.0: gain = -18 LUFS - I, text "%.2f dB" ("-6.52 dB"); peak a linear ratio of
/// full scale, text "%.6f" ("0.988553"). Opus (RFC 7845 section 5.2.1): `R128_TRACK_GAIN` /
/// `R128_ALBUM_GAIN` are Q7.8 integers (1/256 dB) of -23 LUFS - I, clamped to Int16; Opus
/// files carry no peak tags, and the header's output gain is left as it is.
public enum ReplayGain {
    public static let referenceLufs = -18.0
    public static let opusReferenceLufs = -23.0

    /// What a file's figures are: one file's (track) or the album's.
    public struct Figures: Sendable, Equatable {
        /// Integrated loudness (LUFS).
        public var integrated: Double
        /// The peak as a linear ratio of full scale (sample peak, or true peak when asked).
        public var peak: Double
        public init(integrated: Double, peak: Double) {
            self.integrated = integrated
            self.peak = peak
        }
    }

    /// The tags a file gets, in the order they are written: (key, text).
    public static func tags(track: Figures, album: Figures?, opus: Bool) -> [(key: String, value: String)] {
        if opus {
            var t = [("R128_TRACK_GAIN", String(q78(integrated: track.integrated)))]
            if let album { t.append(("R128_ALBUM_GAIN", String(q78(integrated: album.integrated)))) }
            return t
        }
        var t = [("REPLAYGAIN_TRACK_GAIN", gainText(gainDb(integrated: track.integrated))),
                 ("REPLAYGAIN_TRACK_PEAK", peakText(track.peak))]
        if let album {
            t.append(("REPLAYGAIN_ALBUM_GAIN", gainText(gainDb(integrated: album.integrated))))
            t.append(("REPLAYGAIN_ALBUM_PEAK", peakText(album.peak)))
        }
        return t
    }

    /// Every key `tags` may write for a file of this kind (what a dry run reads back).
    public static func keys(album: Bool, opus: Bool) -> [String] {
        if opus { return album ? ["R128_TRACK_GAIN", "R128_ALBUM_GAIN"] : ["R128_TRACK_GAIN"] }
        let track = ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK"]
        return album ? track + ["REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK"] : track
    }

    /// -18 - I (dB).
    public static func gainDb(integrated: Double) -> Double { referenceLufs - integrated }

    /// round(256 * (-23 - I)), clamped to Int16.
    public static func q78(integrated: Double) -> Int {
        let v = (256 * (opusReferenceLufs - integrated)).rounded()
        return Int(min(Double(Int16.max), max(Double(Int16.min), v)))
    }

    /// "-6.52 dB".
    public static func gainText(_ db: Double) -> String { fixed(db, decimals: 2) + " dB" }

    /// "0.988553".
    public static func peakText(_ ratio: Double) -> String { fixed(ratio, decimals: 6) }

    /// The linear ratio of a level in dB (20 log10).
    public static func ratio(db: Double) -> Double { db <= Decibels.floor ? 0 : PureMath.pow(10, db / 20) }

    /// `v` with exactly `decimals` digits after the point, rounded half away from zero, as
    /// printf's %.Nf writes it (never "-0.00").
    public static func fixed(_ v: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let units = Int64((abs(v) * scale).rounded())
        let whole = units / Int64(scale), fraction = units % Int64(scale)
        var digits = String(fraction)
        while digits.count < decimals { digits = "0" + digits }
        return (v < 0 && units != 0 ? "-" : "") + String(whole) + (decimals > 0 ? "." + digits : "")
    }
}
