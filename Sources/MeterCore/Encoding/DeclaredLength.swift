/// The number of frames a sound file's header promises, read from the header's own fields.
///
/// libsndfile clamps the length it reports to what the file holds, so a truncated WAV (data
/// chunk says 3 s, file holds 0.5 s) looks complete through its API; these fields are how the
/// reader can say that the file ends early, as sox does. Covers the header-based PCM
/// containers whose length field counts fixed-size samples: WAV (RIFF, RF64 with its ds64
/// chunk, WAVE_FORMAT_EXTENSIBLE), W64, AIFF/AIFC and AU. Anything else, a compressed
/// encoding, or a length the header leaves open: nil (no promise to check).
public enum DeclaredLength {
    /// Frames promised by `header`, the file's first bytes (64 KiB holds any ordinary header).
    public static func frames(header: [UInt8]) -> Int? {
        guard header.count >= 12 else { return nil }
        let magic = ascii(header, 0, 4)
        if (magic == "RIFF" || magic == "RF64"), ascii(header, 8, 4) == "WAVE" { return wav(header, rf64: magic == "RF64") }
        if magic == "riff", header.count >= 40, ascii(header, 24, 4) == "wave" { return w64(header) }
        if magic == "FORM", ["AIFF", "AIFC"].contains(ascii(header, 8, 4)) { return aiff(header) }
        if magic == ".snd" { return au(header) }
        return nil
    }

    /// "WAV" or "AIFF" when `header` (the file's first bytes; `fileSize` bytes in all) starts a
    /// RIFF/RF64 WAVE or an AIFF/AIFC file that ends before its audio data begins: a file cut
    /// inside its header (a copy or download that stopped early). nil otherwise, also when the
    /// chunks run past the bytes given before the data chunk is reached.
    public static func containerCutInsideHeader(header b: [UInt8], fileSize: Int) -> String? {
        let magic = ascii(b, 0, 4)
        let name: String, dataID: String, bigEndian: Bool
        switch magic {
        case "RIFF", "RF64": (name, dataID, bigEndian) = ("WAV", "data", false)
        case "FORM": (name, dataID, bigEndian) = ("AIFF", "SSND", true)
        default: return nil
        }
        if fileSize < 12 { return name }
        let form = ascii(b, 8, 4)
        guard bigEndian ? ["AIFF", "AIFC"].contains(form) : form == "WAVE" else { return nil }
        var at = 12
        while true {
            if at + 8 > fileSize { return name }
            guard at + 8 <= b.count, let size = bigEndian ? be(b, at + 4, 4) : le(b, at + 4, 4) else { return nil }
            if ascii(b, at, 4) == dataID { return at + 8 >= fileSize ? name : nil }
            if at + 8 + size > fileSize { return name }
            at += 8 + size + (size & 1)
        }
    }

    static func ascii(_ b: [UInt8], _ at: Int, _ n: Int) -> String {
        guard at >= 0, at + n <= b.count else { return "" }
        return String(decoding: b[at..<(at + n)], as: UTF8.self)
    }

    static func le(_ b: [UInt8], _ at: Int, _ n: Int) -> Int? {
        guard at >= 0, at + n <= b.count else { return nil }
        var v: UInt64 = 0
        for i in (0..<n).reversed() { v = v << 8 | UInt64(b[at + i]) }
        return v > UInt64(Int.max) ? nil : Int(v)
    }

    static func be(_ b: [UInt8], _ at: Int, _ n: Int) -> Int? {
        guard at >= 0, at + n <= b.count else { return nil }
        var v: UInt64 = 0
        for i in 0..<n { v = v << 8 | UInt64(b[at + i]) }
        return v > UInt64(Int.max) ? nil : Int(v)
    }

    /// WAVE format tags of fixed-size samples: PCM, IEEE float, A-law, mu-law.
    static let fixedSizeTags: Set<Int> = [1, 3, 6, 7]

    /// RIFF or RF64 WAVE: the data chunk's length over the fmt chunk's block align.
    static func wav(_ b: [UInt8], rf64: Bool) -> Int? {
        var at = 12
        var blockAlign: Int?
        var ds64Data: Int?
        while at + 8 <= b.count {
            let id = ascii(b, at, 4)
            guard let size = le(b, at + 4, 4) else { return nil }
            let body = at + 8
            switch id {
            case "fmt ":
                guard var tag = le(b, body, 2), let align = le(b, body + 12, 2) else { return nil }
                if tag == 0xFFFE, let sub = le(b, body + 24, 2) { tag = sub }
                guard fixedSizeTags.contains(tag), align > 0 else { return nil }
                blockAlign = align
            case "ds64":
                ds64Data = le(b, body + 8, 8)
            case "data":
                guard let align = blockAlign else { return nil }
                let bytes = rf64 && size == 0xFFFF_FFFF ? ds64Data : size
                return bytes.map { $0 / align }
            default:
                break
            }
            at = body + size + (size & 1)
        }
        return nil
    }

    /// Sony Wave64: GUID-named chunks whose 64-bit sizes include their 24-byte headers.
    static func w64(_ b: [UInt8]) -> Int? {
        var at = 40
        var blockAlign: Int?
        while at + 24 <= b.count {
            let id = ascii(b, at, 4)
            guard let size = le(b, at + 16, 8), size >= 24 else { return nil }
            let body = at + 24
            if id == "fmt " {
                guard var tag = le(b, body, 2), let align = le(b, body + 12, 2) else { return nil }
                if tag == 0xFFFE, let sub = le(b, body + 24, 2) { tag = sub }
                guard fixedSizeTags.contains(tag), align > 0 else { return nil }
                blockAlign = align
            } else if id == "data" {
                return blockAlign.map { (size - 24) / $0 }
            }
            at += (size + 7) & ~7
        }
        return nil
    }

    /// AIFF or AIFC: the COMM chunk's frame count (uncompressed encodings only).
    static func aiff(_ b: [UInt8]) -> Int? {
        let aifc = ascii(b, 8, 4) == "AIFC"
        var at = 12
        while at + 8 <= b.count {
            guard let size = be(b, at + 4, 4) else { return nil }
            if ascii(b, at, 4) == "COMM" {
                if aifc, !["NONE", "sowt", "fl32", "FL32", "fl64", "FL64", "twos", "in24", "in32", "raw "].contains(ascii(b, at + 8 + 18, 4)) {
                    return nil
                }
                return be(b, at + 8 + 2, 4)
            }
            at += 8 + size + (size & 1)
        }
        return nil
    }

    /// Sun/NeXT AU: the data size field (all ones: unknown) over the encoding's frame size.
    static func au(_ b: [UInt8]) -> Int? {
        guard let size = be(b, 8, 4), size != 0xFFFF_FFFF, let encoding = be(b, 12, 4),
              let channels = be(b, 20, 4), channels > 0 else { return nil }
        let bytes: [Int: Int] = [1: 1, 2: 1, 3: 2, 4: 3, 5: 4, 6: 4, 7: 8, 27: 1]
        return bytes[encoding].map { size / ($0 * channels) }
    }
}
