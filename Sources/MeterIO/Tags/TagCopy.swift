import MeterCore

/// The tags `normalize` carries from an input to its output: title, artist, album and date,
/// where both files' containers hold tags TagLib reads and writes (TagLib's property map:
/// Vorbis comments, ID3v2, MP4 atoms, RIFF INFO and ID3 in WAV and AIFF).
public enum TagCopy {
    public static let keys = ["TITLE", "ARTIST", "ALBUM", "DATE"]

    /// Copies the keys `input` has into `output` and saves it; does nothing when either file is
    /// not one TagLib tags, or `input` has none of them. Returns the keys written.
    @discardableResult
    public static func copy(from input: FilePath, to output: FilePath) -> [String] {
        guard let source = try? TagFile(input) else { return [] }
        let values = keys.compactMap { k in source.value(k).map { (k, $0) } }
        guard !values.isEmpty, let target = try? TagFile(output) else { return [] }
        var written: [String] = []
        for (k, v) in values where (try? target.set(k, v)) != nil { written.append(k) }
        guard !written.isEmpty, (try? target.save()) != nil else { return [] }
        return written
    }
}
