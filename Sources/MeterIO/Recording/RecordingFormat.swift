import CSndFile
import Glibc
import MeterCore

/// What a recording will be, worked out from the file name, the capture spec and the asked
/// bit rate before anything is captured (so a bad name is refused with no server contacted and
/// no file created), and the factory that opens each file of that kind.
///
/// The containers are those whose recordings can be cut off at any moment and still play,
/// chosen so that libsndfile, sox and ffmpeg all read them back:
/// - header-based PCM (wav, aiff/aif, au, caf, w64, rf64): 16-bit samples bit for bit, the
///   header rewritten after every write (`SFC_SET_UPDATE_HEADER_AUTO`) so the file is whole at
///   any moment, SIGKILL included;
/// - streams of frames or pages (flac; Vorbis in ogg/oga, opus, mp3): never a header rewrite
///   (on Ogg that repeats the stream headers and makes the file unreadable); each frame or page
///   reaches the disk as it is completed, so a killed recording reads up to its last one.
///   FLAC keeps 16 bits bit for bit; the lossy encoders are fed floats (libsndfile 1.2.0's MP3
///   encoder distorts `short` input).
/// - AAC (m4a, aac), which libsndfile cannot write: encoded by an `ffmpeg` process
///   (`FFmpegEncoderWriter`), offered only when ffmpeg is on PATH.
public struct RecordingFormat: Sendable {
    /// How a container is written.
    public enum Kind: Sendable, Equatable {
        /// Uncompressed PCM with a header that states the length (rewritten on every write).
        case headerPCM
        /// Lossless frames (FLAC).
        case losslessStream
        /// A lossy encoder fed floats.
        case lossyStream
        /// AAC through the ffmpeg at this path.
        case ffmpegAAC(ffmpeg: String)
    }

    /// The libsndfile format code (major | subtype).
    public let code: Int32
    public let kind: Kind
    /// The extension the file name ends in (lower case), which decided the container.
    public let fileExtension: String
    public let rate: Int
    public let channels: Int
    /// libsndfile's `SFC_SET_COMPRESSION_LEVEL` value for the asked bit rate, if one was asked.
    public let compressionLevel: Double?
    /// The asked bit rate in kbps (nil: the encoder's default).
    public let bitrateKbps: Int?
    /// The samples the writer is given and the file holds (s16 unless `--bits` asks).
    public var sampleFormat: SampleFormat = .s16

    /// The containers encoded by ffmpeg rather than libsndfile.
    static let ffmpegContainers = ["m4a", "aac"]
    /// The sample rates AAC has (ISO 14496-3 sampling frequency index).
    static let aacRates = [7350, 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    /// The containers offered, by extension, in the order they are listed to users.
    static let offered: [(ext: String, code: Int32, kind: Kind)] = [
        ("wav", Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), .headerPCM),
        ("flac", Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16), .losslessStream),
        ("ogg", Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS), .lossyStream),
        ("oga", Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS), .lossyStream),
        ("opus", Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS), .lossyStream),
        ("mp3", Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III), .lossyStream),
        ("aiff", Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16), .headerPCM),
        ("aif", Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16), .headerPCM),
        ("caf", Int32(SF_FORMAT_CAF | SF_FORMAT_PCM_16), .headerPCM),
        ("au", Int32(SF_FORMAT_AU | SF_FORMAT_PCM_16), .headerPCM),
        ("w64", Int32(SF_FORMAT_W64 | SF_FORMAT_PCM_16), .headerPCM),
        ("rf64", Int32(SF_FORMAT_RF64 | SF_FORMAT_PCM_16), .headerPCM),
    ]

    /// The extensions this libsndfile can write (its build may lack an encoder, e.g. MP3),
    /// then m4a and aac when ffmpeg is on PATH.
    public static func containers() -> [String] {
        soundFileContainers() + (ChildProcess.find("ffmpeg") == nil ? [] : ffmpegContainers)
    }

    static func soundFileContainers() -> [String] {
        offered.filter { c in
            var probe = SF_INFO(frames: 0, samplerate: 48000, channels: 1, format: c.code, sections: 0, seekable: 0)
            return sf_format_check(&probe) != 0
        }.map(\.ext)
    }

    /// m4a / aac: needs ffmpeg on PATH and a rate and channel count AAC has.
    static func chooseAAC(path: FilePath, ext: String, rate: Int, channels: Int, bitrateKbps: Int?) throws(RecordingError) -> RecordingFormat {
        guard let ffmpeg = ChildProcess.find("ffmpeg") else {
            throw RecordingError.encoderMissing(path: path, ext: ext, program: "ffmpeg", available: soundFileContainers())
        }
        guard aacRates.contains(rate) else { throw RecordingError.rate(codec: "AAC", rate: rate, allowed: aacRates) }
        guard (1...8).contains(channels) else {
            throw RecordingError.channels(ext: ext, channels: channels, rate: rate, most: 8)
        }
        if let kbps = bitrateKbps {
            // AAC-LC carries at most 6144 bits per channel per 1024-sample frame.
            let most = max(8, channels * rate * 6 / 1000)
            guard (8...most).contains(kbps) else {
                throw RecordingError.bitrate(codec: "AAC", kbps: kbps, allowed: 8...most, rate: rate, channels: channels)
            }
        }
        return RecordingFormat(code: 0, kind: .ffmpegAAC(ffmpeg: ffmpeg), fileExtension: ext, rate: rate,
                               channels: channels, compressionLevel: nil, bitrateKbps: bitrateKbps)
    }

    /// The containers that hold `format` bit for bit (every offered one holds s16): the
    /// header-based PCM containers, and FLAC up to 24 bits.
    public static func containers(holding format: SampleFormat) -> [String] {
        guard format != .s16 else { return containers() }
        return soundFileContainers().filter { ext in
            guard let entry = offered.first(where: { $0.ext == ext }) else { return false }
            return entry.kind == .headerPCM || (entry.kind == .losslessStream && format == .s24)
        }
    }

    /// The libsndfile subtype that holds `format`.
    static func subtype(_ format: SampleFormat) -> Int32 {
        switch format {
        case .s16: return Int32(SF_FORMAT_PCM_16)
        case .s24: return Int32(SF_FORMAT_PCM_24)
        case .s32: return Int32(SF_FORMAT_PCM_32)
        case .float: return Int32(SF_FORMAT_FLOAT)
        }
    }

    /// Chooses the container for `path` from its extension; a `RecordingError` for an
    /// extension not offered, a spec the container cannot take, a sample format it cannot
    /// hold bit for bit, or a bit rate it cannot set. `bitrateKbps` nil: the encoder's default.
    public static func choose(path: FilePath, rate: Int, channels: Int, bitrateKbps: Int? = nil,
                              sampleFormat: SampleFormat = .s16) throws(RecordingError) -> RecordingFormat {
        var chosen = try chooseContainer(path: path, rate: rate, channels: channels, bitrateKbps: bitrateKbps)
        guard sampleFormat != .s16 else { return chosen }
        let holding = containers(holding: sampleFormat)
        guard holding.contains(chosen.fileExtension) else {
            throw RecordingError.sampleFormat(ext: chosen.fileExtension, format: sampleFormat, holding: holding)
        }
        chosen = RecordingFormat(code: (chosen.code & Int32(SF_FORMAT_TYPEMASK)) | subtype(sampleFormat), kind: chosen.kind,
                                 fileExtension: chosen.fileExtension, rate: rate, channels: channels,
                                 compressionLevel: chosen.compressionLevel, bitrateKbps: chosen.bitrateKbps)
        chosen.sampleFormat = sampleFormat
        return chosen
    }

    /// The container for 16-bit samples.
    static func chooseContainer(path: FilePath, rate: Int, channels: Int, bitrateKbps: Int?) throws(RecordingError) -> RecordingFormat {
        let ext = path.extensionLowercased
        if ffmpegContainers.contains(ext) {
            return try chooseAAC(path: path, ext: ext, rate: rate, channels: channels, bitrateKbps: bitrateKbps)
        }
        let available = containers()
        guard available.contains(ext), let entry = offered.first(where: { $0.ext == ext }) else {
            throw RecordingError.unknownContainer(path: path, ext: ext, available: available)
        }
        if ext == "opus", ![8000, 12000, 16000, 24000, 48000].contains(rate) {
            throw RecordingError.rate(codec: "Opus", rate: rate, allowed: [8000, 12000, 16000, 24000, 48000])
        }
        var info = SF_INFO(frames: 0, samplerate: Int32(rate), channels: Int32(channels), format: entry.code, sections: 0, seekable: 0)
        guard sf_format_check(&info) != 0 else {
            throw RecordingError.channels(ext: ext, channels: channels, rate: rate, most: ext == "mp3" ? 2 : (ext == "flac" ? 8 : nil))
        }
        let level = try bitrateKbps.map { (kbps) throws(RecordingError) in
            try compressionLevel(ext: ext, kbps: kbps, rate: rate, channels: channels)
        }
        return RecordingFormat(code: entry.code, kind: entry.kind, fileExtension: ext, rate: rate,
                               channels: channels, compressionLevel: level, bitrateKbps: bitrateKbps)
    }

    /// The `SFC_SET_COMPRESSION_LEVEL` (0 best .. 1 smallest) that gives `kbps`, inverting
    /// libsndfile 1.2.0's own mappings: Opus sets ((1 - level) x 250 + 6) kbps per channel;
    /// MP3 in constant bit rate sets max - level x (max - min) over MPEG's range for the rate
    /// (32..320 kbps from 32 kHz, 8..160 from 16 kHz, 8..64 below). Vorbis takes a quality,
    /// not a bit rate, and PCM and FLAC have none.
    static func compressionLevel(ext: String, kbps: Int, rate: Int, channels: Int) throws(RecordingError) -> Double {
        switch ext {
        case "opus":
            let lo = 6 * channels, hi = 256 * channels
            guard (lo...hi).contains(kbps) else {
                throw RecordingError.bitrate(codec: "Opus", kbps: kbps, allowed: lo...hi, rate: rate, channels: channels)
            }
            return 1 - (Double(kbps) / Double(channels) - 6) / 250
        case "mp3":
            let (lo, hi) = rate >= 32000 ? (32, 320) : (rate >= 16000 ? (8, 160) : (8, 64))
            guard (lo...hi).contains(kbps) else {
                throw RecordingError.bitrate(codec: "MP3", kbps: kbps, allowed: lo...hi, rate: rate, channels: channels)
            }
            return Double(hi - kbps) / Double(hi - lo)
        case "ogg", "oga":
            throw RecordingError.noBitrate(ext: ext, lossy: true)
        default:
            throw RecordingError.noBitrate(ext: ext, lossy: false)
        }
    }

    /// Creates the file at `path` in this format, replacing a regular file or symbolic link of
    /// that name (never what a link points at; a directory, FIFO, device or socket is refused):
    /// throws when it cannot be created. For `--force`.
    public func openWriter(path: FilePath) throws(OutputError) -> any RecordingWriter {
        try open(path, existing: .replace)!
    }

    /// Creates `path` in this format only if nothing has that name (`O_CREAT|O_EXCL`, so
    /// nothing is ever overwritten): nil when the name is taken, throws when it cannot be
    /// created. For recordings without `--force` and those that number their files.
    public func openNewWriter(path: FilePath) throws(OutputError) -> (any RecordingWriter)? {
        try open(path, existing: .keep)
    }

    /// Every recording file is made here, one call per file, through `NewFile`: the writer
    /// gets the descriptor (libsndfile's `sf_open_fd`, ffmpeg's stdout), and a replaced file
    /// takes the name only once its writer has started.
    private func open(_ path: FilePath, existing: NewFile.Existing) throws(OutputError) -> (any RecordingWriter)? {
        let file: NewFile
        do {
            file = try NewFile.create(path, existing: existing)
        } catch {
            if error == .exists { return nil }
            throw error.outputError(path, recording: true)
        }
        do throws(OutputError) {
            let writer = try makeWriter(file.fd, path)
            do { try file.commit() } catch { throw error.outputError(path, recording: true) }
            return writer
        } catch {
            file.discard()  // what this call created; a file being replaced keeps its name
            throw error
        }
    }

    /// Creates a file in this format beside `path` (`NewFile.createBeside`), which takes the
    /// name only when `FinishingFile.commit` is called after its last frame: until then
    /// nothing is written under the name. For `normalize`.
    public func openBeside(path: FilePath) throws(OutputError) -> FinishingFile {
        let file: NewFile
        do { file = try NewFile.createBeside(path) } catch { throw error.outputError(path, recording: true) }
        do throws(OutputError) {
            return FinishingFile(writer: try makeWriter(file.fd, path), file: file)
        } catch {
            file.discard()
            throw error
        }
    }

    /// The writer of this format on `fd` (which it owns from here on).
    private func makeWriter(_ fd: Int32, _ path: FilePath) throws(OutputError) -> any RecordingWriter {
        switch kind {
        case .ffmpegAAC(let ffmpeg): return try FFmpegEncoderWriter(fd: fd, path: path, format: self, ffmpeg: ffmpeg)
        case .headerPCM, .losslessStream, .lossyStream: return try SoundFileWriter(fd: fd, path: path, format: self)
        }
    }
}
