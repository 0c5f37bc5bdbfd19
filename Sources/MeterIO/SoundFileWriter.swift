import CSndFile
import Glibc
import MeterCore

/// Writes a recording with libsndfile (`sf_open` in SFM_WRITE, `sf_writef_short`), the
/// container chosen from the file's extension. s16 input goes into 16-bit PCM wherever the
/// container has it, so the file's samples equal the captured ones bit for bit.
///
/// The header is rewritten after every write (`SFC_SET_UPDATE_HEADER_AUTO`), so the file is
/// valid and readable at any moment, even after SIGKILL. Owned by the recorder thread.
public final class SoundFileWriter: @unchecked Sendable {
    public let path: FilePath
    public private(set) var framesWritten = 0
    private var handle: OpaquePointer?
    private let channels: Int

    /// The containers libsndfile writes, by extension (queried from libsndfile itself with
    /// `SFC_GET_FORMAT_MAJOR`), plus opus and mp3 where the library has them.
    public static func containers() -> [String: Int32] {
        var map: [String: Int32] = [:]
        var count: Int32 = 0
        sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR_COUNT), &count, Int32(MemoryLayout<Int32>.size))
        for i in 0..<count {
            var info = SF_FORMAT_INFO()
            info.format = i
            sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            if let ext = info.extension { map[String(cString: ext).lowercased()] = info.format }
        }
        map["wav"] = Int32(SF_FORMAT_WAV)
        map["aif"] = Int32(SF_FORMAT_AIFF)
        map["aiff"] = Int32(SF_FORMAT_AIFF)
        if map["oga"] != nil || map["ogg"] != nil { map["ogg"] = Int32(SF_FORMAT_OGG) }
        var probe = SF_INFO(frames: 0, samplerate: 48000, channels: 1,
                            format: Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS), sections: 0, seekable: 0)
        if sf_format_check(&probe) != 0 { map["opus"] = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS) }
        probe.format = Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
        if sf_format_check(&probe) != 0 { map["mp3"] = probe.format }
        return map
    }

    /// The libsndfile format code for `path`, rate and channels; a usage error (exit 64) for an
    /// extension libsndfile cannot write or a spec the container does not take.
    public static func format(for path: FilePath, rate: Int, channels: Int) throws(PulsemeterError) -> Int32 {
        let ext = path.extensionLowercased
        let known = containers()
        guard let major = known[ext] else {
            let list = known.keys.sorted().joined(separator: ", ")
            throw PulsemeterError(.usage, "cannot record to \(path): unknown container \(ext.isEmpty ? "(no extension)" : ".\(ext)"); use one of \(list)")
        }
        if ext == "opus", ![8000, 12000, 16000, 24000, 48000].contains(rate) {
            throw PulsemeterError(.usage, "cannot record Opus at \(rate) Hz: Opus takes 8000, 12000, 16000, 24000 or 48000 Hz; use --rate 48000 or another container")
        }
        var info = SF_INFO(frames: 0, samplerate: Int32(rate), channels: Int32(channels), format: 0, sections: 0, seekable: 0)
        let subtypes: [Int32] = (major & Int32(SF_FORMAT_SUBMASK)) != 0 ? [0] :
            [SF_FORMAT_PCM_16, SF_FORMAT_VORBIS, SF_FORMAT_PCM_24, SF_FORMAT_FLOAT, SF_FORMAT_ULAW].map { Int32($0) }
        for sub in subtypes {
            info.format = major | sub
            if sf_format_check(&info) != 0 { return info.format }
        }
        throw PulsemeterError(.usage, "cannot record \(channels) channels at \(rate) Hz in a .\(ext) file; try .wav or .flac")
    }

    /// Creates the file; exit 73 when it cannot be created (missing or read-only directory).
    /// `format` is `format(for:rate:channels:)` when the caller checked it already.
    public init(path: FilePath, rate: Int, channels: Int, format known: Int32? = nil) throws(PulsemeterError) {
        let format: Int32
        if let known { format = known } else { format = try Self.format(for: path, rate: rate, channels: channels) }
        var info = SF_INFO(frames: 0, samplerate: Int32(rate), channels: Int32(channels), format: format, sections: 0, seekable: 0)
        guard let h = path.withCString({ sf_open($0, Int32(SFM_WRITE), &info) }) else {
            let reason = SoundFileError.reason(nil, savedErrno: errno)
            throw PulsemeterError(.cannotCreate, "cannot create recording \(path): \(reason); check that the directory exists and is writable")
        }
        handle = h
        self.path = path
        self.channels = channels
        sf_command(h, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
    }

    deinit { _ = try? close() }

    /// Appends interleaved s16 frames; exit 74 on a short write (disk full, I/O error).
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(PulsemeterError) {
        guard let handle, let base = samples.baseAddress else { return }
        let frames = samples.count / channels
        guard frames > 0 else { return }
        let n = sf_writef_short(handle, base, sf_count_t(frames))
        if n > 0 { framesWritten += Int(n) }
        if n != frames {
            let reason = SoundFileError.reason(handle, savedErrno: errno)
            throw PulsemeterError(.io, "cannot write the recording \(path) (\(reason)); it holds the \(framesWritten) frames written before the error")
        }
    }

    /// Finishes the header and closes the file (`sf_close`).
    public func close() throws(PulsemeterError) {
        guard let h = handle else { return }
        handle = nil
        let r = sf_close(h)
        if r != 0 {
            throw PulsemeterError(.io, "cannot finish the recording \(path) (\(SoundFileError.reason(code: r, savedErrno: errno)))")
        }
    }
}
