import CSndFile
import Glibc
import MeterCore

/// Decodes any file libsndfile reads (WAV, FLAC, AIFF, Ogg Vorbis, Opus, MP3, ...) to Float
/// frames in large blocks: `sf_open` + `sf_readf_float`. Integer formats are scaled to full
/// scale 1.0 (s16 divided by 32768), as `SampleConversion` defines.
///
/// A file that ends before its header's promise, or that stops decoding partway, never
/// passes silently: `ending` says how the reading ended, and the command words it.
/// The file is opened by descriptor (`sf_open_fd`) so that, when libsndfile reports a decode
/// error, the descriptor's offset tells a stream cut short at the end of the file (a
/// truncated FLAC: the file ends early) from damage with more file after it (an error).
///
/// Owned by one thread at a time (not Sendable).
public final class SoundFileReader: AudioFileSource, Int16BlockSource {
    /// How reading ended, once it has.
    public enum Ending: Equatable, Sendable {
        /// Every frame the header promised (or, with no promise, every frame there is).
        case complete
        /// The data stops before the header's promise: `found` of `promised` frames.
        case short(promised: Int, found: Int)
        /// libsndfile could not decode past frame `frame` (`reason` is its own message).
        case decodeError(frame: Int, reason: String)
    }

    public let path: FilePath
    public let rate: Int
    public let channels: Int
    /// Frames the header announces (may exceed what a truncated file holds).
    public let declaredFrames: Int
    public var expectedFrames: Int? { declaredFrames }
    public let formatCode: Int32
    public var name: String { path.string }
    /// Frames the header's own fields promise (`DeclaredLength`; FLAC's STREAMINFO when it
    /// states a length), nil when it promises nothing checkable.
    public let promisedFrames: Int?
    /// Frames delivered since the start (or the last seek: the frame it moved to, on).
    public private(set) var framesRead = 0
    /// The container's own channel map (`SFC_GET_CHANNEL_MAP_INFO`: WAVE_FORMAT_EXTENSIBLE's
    /// mask, CAF's layout, ...) in PulseAudio's spelling; nil when it states none.
    public let channelNames: [String]?
    /// How reading ended; nil until a read has returned the end.
    public private(set) var ending: Ending?
    private var handle: OpaquePointer?
    private let fd: Int32
    /// Not a regular file (a FIFO, a pipe, a device): a read may wait for a writer.
    public let readsMayWait: Bool
    /// For 16-bit PCM files: shorts are read raw (`sf_readf_short`) and converted here in a
    /// loop the compiler vectorizes, about three times faster than libsndfile's own conversion.
    private let shorts = ScratchBuffer<Int16>()

    /// Opens `path`; `InputError.notDecodable` when libsndfile does not read it (see
    /// `AudioFile.open` for the ffmpeg fallback), `.cannotOpen` and the like when it is missing
    /// or unreadable.
    public convenience init(path: FilePath) throws(InputError) {
        guard let opened = try Self.openHandle(path) else {
            throw InputError.notDecodable(path, reason: SoundFileError.unknownFormat)
        }
        try self.init(path: path, opened: opened)
    }

    /// Opens `path`, or returns nil when libsndfile does not know its format or its encoding
    /// (another decoder may: `AudioFile.open`).
    public convenience init?(ifKnown path: FilePath) throws(InputError) {
        guard let opened = try Self.openHandle(path) else { return nil }
        try self.init(path: path, opened: opened)
    }

    private typealias Opened = (handle: OpaquePointer, info: SF_INFO, fd: Int32, header: [UInt8])

    /// `sf_open_fd`; nil for an unknown format or encoding, our words for any other failure.
    private static func openHandle(_ path: FilePath) throws(InputError) -> Opened? {
        try path.checkReadable()
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            throw InputError.cannotOpen(path, reason: errnoText())
        }
        var header = [UInt8](repeating: 0, count: 65536)
        let got = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        header.removeSubrange(max(0, got)...)
        var info = SF_INFO()
        switch SoundFileError.open(fd, mode: Int32(SFM_READ), &info, closeWhenDone: false) {
        case .handle(let h):
            return (h, info, fd, header)
        case .failed(let code, let savedErrno):
            var st = stat()
            let size = fstat(fd, &st) == 0 ? Int(st.st_size) : header.count
            close(fd)
            let cut = DeclaredLength.containerCutInsideHeader(header: header, fileSize: size) != nil
            if SoundFileError.isUnknown(code) && !cut { return nil }
            throw InputError.notDecodable(path, reason: SoundFileError.openReason(code: code, header: header, size: size,
                                                                                 savedErrno: savedErrno))
        }
    }

    private init(path: FilePath, opened: Opened) throws(InputError) {
        let (h, info, fd, header) = opened
        guard info.channels >= 1, info.channels <= Int32(MeterSettings.maxChannels) else {
            sf_close(h)
            close(fd)
            throw InputError.channels(path, count: Int(info.channels), most: MeterSettings.maxChannels)
        }
        guard info.samplerate >= 1, info.samplerate <= Int32(MeterSettings.maxRate) else {
            sf_close(h)
            close(fd)
            throw InputError.rate(path, hz: Int(info.samplerate), most: MeterSettings.maxRate)
        }
        handle = h
        self.fd = fd
        var st = stat()
        readsMayWait = fstat(fd, &st) != 0 || st.st_mode & S_IFMT != S_IFREG
        self.path = path
        rate = Int(info.samplerate)
        channels = Int(info.channels)
        declaredFrames = max(0, Int(info.frames))
        formatCode = info.format
        let isFLAC = info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_FLAC)
        let streamInfoFrames = isFLAC && info.frames > 0 && info.frames < sf_count_t.max ? Int(info.frames) : nil
        promisedFrames = DeclaredLength.frames(header: header) ?? streamInfoFrames
        channelNames = Self.channelMap(h, channels: Int(info.channels))
    }

    /// libsndfile's positions as PulseAudio names them, in `SF_CHANNEL_MAP_*` order from
    /// `SF_CHANNEL_MAP_MONO` (1) to `SF_CHANNEL_MAP_TOP_REAR_CENTER`.
    private static let positionNames = [
        "mono", "front-left", "front-right", "front-center", "front-left", "front-right", "front-center",
        "rear-center", "rear-left", "rear-right", "lfe", "front-left-of-center", "front-right-of-center",
        "side-left", "side-right", "top-center", "top-front-left", "top-front-right", "top-front-center",
        "top-rear-left", "top-rear-right", "top-rear-center",
    ]

    /// The file's channel map, nil when it has none or one this does not name (ambisonics).
    private static func channelMap(_ h: OpaquePointer, channels: Int) -> [String]? {
        var map = [Int32](repeating: 0, count: channels)
        let got = map.withUnsafeMutableBytes {
            sf_command(h, Int32(SFC_GET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count))
        }
        guard got == SF_TRUE else { return nil }
        let names = map.map { p in p >= 1 && Int(p) <= positionNames.count ? positionNames[Int(p) - 1] : nil }
        return names.contains(nil) ? nil : names.compactMap { $0 }
    }

    deinit {
        if let handle { sf_close(handle) }
        close(fd)
    }

    /// The first decode error libsndfile reported, with the frame it stopped at and whether
    /// the decoder had consumed the whole file by then. Checked after every read: libsndfile
    /// reports it with the short read that hit it and clears it on the next call.
    private var firstError: (frame: Int, reason: String, atEndOfFile: Bool)?

    /// Counts what a read delivered; at the end (`n` <= 0) works out how reading ended.
    private func delivered(_ n: Int, handle: OpaquePointer) -> Int {
        if n > 0 { framesRead += n }
        let error = sf_error(handle)
        if error != 0, firstError == nil {
            firstError = (framesRead, SoundFileError.decodeReason(code: error), decoderReachedEndOfFile)
        }
        if n > 0 { return n }
        if ending == nil {
            if let e = firstError, !e.atEndOfFile {
                ending = .decodeError(frame: e.frame, reason: e.reason)
            } else if let promised = promisedFrames, framesRead < promised {
                ending = .short(promised: promised, found: framesRead)
            } else {
                ending = .complete
            }
        }
        return 0
    }

    /// True when the decoder has consumed the whole file (`lseek` against `fstat`): an error
    /// there is a stream cut short, not damage in the middle.
    private var decoderReachedEndOfFile: Bool {
        var st = stat()
        let at = lseek(fd, 0, SEEK_CUR)
        return at >= 0 && fstat(fd, &st) == 0 && at >= st.st_size
    }

    /// The file's samples as a `SampleFormat` when they are PCM or float (8-bit PCM as s16,
    /// double as float); nil for the compressed formats (Vorbis, Opus, MP3, ...) and the
    /// other encodings, which decode to Float with no sample format of their own.
    public var pcmFormat: SampleFormat? {
        switch formatCode & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_PCM_16): return .s16
        case Int32(SF_FORMAT_PCM_24): return .s24
        case Int32(SF_FORMAT_PCM_32): return .s32
        case Int32(SF_FORMAT_FLOAT), Int32(SF_FORMAT_DOUBLE): return .float
        default: return nil
        }
    }

    private var isPCM16: Bool { formatCode & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_PCM_16) }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        guard let handle else { return 0 }
        if isPCM16 {
            let count = maxFrames * channels
            let raw = shorts.pointer(count: count)
            let n = Int(sf_readf_short(handle, raw, sf_count_t(maxFrames)))
            if n > 0 { SampleConversion.floats(from: raw, into: buffer, count: n * channels) }
            return delivered(n, handle: handle)
        }
        // The end of the data, or a decode error: either way the frames so far are analysed,
        // and `ending` says which it was.
        return delivered(Int(sf_readf_float(handle, buffer, sf_count_t(maxFrames))), handle: handle)
    }

    public var deliversInt16: Bool { isPCM16 }

    /// 16-bit files' samples as they are (`sf_readf_short`), for the pipeline to convert.
    public func read(int16 buffer: UnsafeMutablePointer<Int16>, maxFrames: Int) throws -> Int {
        guard let handle else { return 0 }
        return delivered(Int(sf_readf_short(handle, buffer, sf_count_t(maxFrames))), handle: handle)
    }

    /// Moves to frame `frame` (`sf_seek`); returns false when the file cannot seek there.
    public func seek(toFrame frame: Int) -> Bool {
        guard let handle, sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0 else { return false }
        framesRead = frame
        ending = nil
        firstError = nil
        return true
    }
}
