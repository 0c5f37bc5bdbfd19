/// How much audio an AAC recording that was cut off holds (the encoder stopped by a full disk,
/// say): what a player reads from it, counted from the file's own structure, since the
/// encoder that wrote it never said.
///
/// - Fragmented MP4 (.m4a as ffmpeg writes it with `empty_moov`): the sample durations of
///   every fragment (`moof`) whose media data (`mdat`) is wholly in the file, in the track's
///   timescale (`mdhd`), each sample's duration from its `trun` entry, else `tfhd`'s default,
///   else `trex`'s (ISO/IEC 14496-12).
/// - ADTS (.aac): 1024 frames per raw data block of every ADTS frame wholly in the file.
///
/// Both count the encoder's priming (its first 1024 frames carry no captured audio); the
/// caller takes it off. Pure: the bytes come from `read(offset, count)`, which returns fewer
/// at the end of the file.
public enum AACFileLength {
    /// Frames per AAC access unit.
    public static let frameSize = 1024

    /// Frames at `rate` in the complete fragments of a fragmented MP4 of `size` bytes; nil when
    /// the file is no fragmented MP4 this reads (no `moov` with a timescale).
    public static func fragmentedMP4(size: Int, rate: Int, read: (Int, Int) -> [UInt8]) -> Int? {
        var at = 0
        var timescale: Int?
        var trexDuration = 0
        var pending = 0  // ticks of the last fragment, counted once its mdat is complete
        var ticks = 0
        while at + 8 <= size {
            let head = read(at, 16)
            guard head.count >= 8, var boxSize = be(head, 0, 4) else { break }
            let type = ascii(head, 4)
            var headerSize = 8
            if boxSize == 1 {
                guard let large = be(head, 8, 8) else { break }
                boxSize = large
                headerSize = 16
            } else if boxSize == 0 {
                boxSize = size - at
            }
            guard boxSize >= headerSize else { break }
            switch type {
            case "moov":
                let body = read(at + headerSize, min(boxSize - headerSize, 1 << 20))
                if let mdhd = find(["trak", "mdia", "mdhd"], in: body, 0, body.count) {
                    let version = body[mdhd]
                    timescale = be(body, mdhd + (version == 1 ? 20 : 12), 4)
                }
                if let trex = find(["mvex", "trex"], in: body, 0, body.count) {
                    trexDuration = be(body, trex + 12, 4) ?? 0
                }
            case "moof":
                let body = read(at + headerSize, min(boxSize - headerSize, 1 << 20))
                pending = fragmentTicks(body, defaultDuration: trexDuration)
            case "mdat":
                if at + boxSize <= size {
                    ticks += pending
                }
                pending = 0
            default:
                break
            }
            at += boxSize
        }
        guard let timescale, timescale > 0 else { return nil }
        return Int((Double(ticks) * Double(rate) / Double(timescale)).rounded(.down))
    }

    /// Frames in the complete ADTS frames of a raw AAC stream of `size` bytes; nil when it does
    /// not start with an ADTS header.
    public static func adts(size: Int, read: (Int, Int) -> [UInt8]) -> Int? {
        var at = 0
        var frames = 0
        while at + 7 <= size {
            let h = read(at, 7)
            guard h.count == 7, h[0] == 0xFF, h[1] & 0xF0 == 0xF0 else { return at == 0 ? nil : frames }
            let length = Int(h[3] & 0x03) << 11 | Int(h[4]) << 3 | Int(h[5]) >> 5
            guard length >= 7, at + length <= size else { break }
            frames += (Int(h[6] & 0x03) + 1) * frameSize
            at += length
        }
        return frames
    }

    /// Sample durations of one `moof` body's track fragments.
    static func fragmentTicks(_ b: [UInt8], defaultDuration: Int) -> Int {
        var ticks = 0
        for (type, start, end) in children(b, 0, b.count) where type == "traf" {
            var duration = defaultDuration
            for (t, s, _) in children(b, start, end) where t == "tfhd" {
                guard let flags = be(b, s, 4).map({ $0 & 0xFF_FFFF }) else { continue }
                var p = s + 8
                if flags & 0x01 != 0 { p += 8 }
                if flags & 0x02 != 0 { p += 4 }
                if flags & 0x08 != 0, let d = be(b, p, 4) { duration = d }
            }
            for (t, s, e) in children(b, start, end) where t == "trun" {
                guard let flags = be(b, s, 4).map({ $0 & 0xFF_FFFF }), let count = be(b, s + 4, 4) else { continue }
                var p = s + 8
                if flags & 0x01 != 0 { p += 4 }
                if flags & 0x04 != 0 { p += 4 }
                guard flags & 0x100 != 0 else {
                    ticks += count * duration
                    continue
                }
                let entry = 4 * [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count
                for i in 0..<count {
                    guard p + i * entry + 4 <= e, let d = be(b, p + i * entry, 4) else { break }
                    ticks += d
                }
            }
        }
        return ticks
    }

    /// The body start of the box at `path` inside [from, to) of `b`.
    static func find(_ path: [String], in b: [UInt8], _ from: Int, _ to: Int) -> Int? {
        guard let first = path.first else { return from }
        for (type, start, end) in children(b, from, to) where type == first {
            if let found = find(Array(path.dropFirst()), in: b, start, end) { return found }
        }
        return nil
    }

    /// The boxes inside [from, to) of `b`: type, body start, end.
    static func children(_ b: [UInt8], _ from: Int, _ to: Int) -> [(String, Int, Int)] {
        var list: [(String, Int, Int)] = []
        var at = from
        while at + 8 <= to, let size = be(b, at, 4), size >= 8, at + size <= to {
            list.append((ascii(b, at + 4), at + 8, at + size))
            at += size
        }
        return list
    }

    static func be(_ b: [UInt8], _ at: Int, _ n: Int) -> Int? { DeclaredLength.be(b, at, n) }
    static func ascii(_ b: [UInt8], _ at: Int) -> String { DeclaredLength.ascii(b, at, 4) }
}
