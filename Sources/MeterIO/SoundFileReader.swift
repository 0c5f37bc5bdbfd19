import CSndFile
import Glibc
import MeterCore

/// Decodes any file libsndfile reads (WAV, FLAC, AIFF, Ogg Vorbis, Opus, MP3, ...) to Float
/// frames in large blocks: `sf_open` + `sf_readf_float`. Integer formats are scaled to full
/// scale 1.0 (s16 divided by 32768), as the contract defines.
///
/// Owned by one thread at a time (not Sendable).
public final class SoundFileReader: SampleBlockSource {
    public let path: FilePath
    public let rate: Int
    public let channels: Int
    /// Frames the header announces (may exceed what a truncated file holds).
    public let declaredFrames: Int
    public let formatCode: Int32
    public var name: String { path.string }
    private var handle: OpaquePointer?
    /// For 16-bit PCM files: shorts are read raw (`sf_readf_short`) and converted here in a
    /// loop the compiler vectorizes, about three times faster than libsndfile's own conversion.
    private var shorts: UnsafeMutablePointer<Int16>?
    private var shortsCapacity = 0

    public init(path: FilePath) throws(PulsemeterError) {
        try path.checkReadable()
        var info = SF_INFO()
        guard let h = path.withCString({ sf_open($0, Int32(SFM_READ), &info) }) else {
            let reason = SoundFileError.reason(nil, savedErrno: errno)
            throw PulsemeterError(.notDecodable, "\(path) is not decodable audio (\(reason)); give a WAV, FLAC, AIFF, Ogg, Opus or MP3 file")
        }
        guard info.channels >= 1, info.channels <= Int32(MeterSettings.maxChannels) else {
            sf_close(h)
            throw PulsemeterError(.notDecodable, "\(path) declares \(info.channels) channels; pulsemeter reads 1 to \(MeterSettings.maxChannels)")
        }
        guard info.samplerate >= 1, info.samplerate <= Int32(MeterSettings.maxRate) else {
            sf_close(h)
            throw PulsemeterError(.notDecodable, "\(path) declares a sample rate of \(info.samplerate) Hz; pulsemeter reads 1 to \(MeterSettings.maxRate) Hz")
        }
        handle = h
        self.path = path
        rate = Int(info.samplerate)
        channels = Int(info.channels)
        declaredFrames = max(0, Int(info.frames))
        formatCode = info.format
    }

    deinit {
        if let handle { sf_close(handle) }
        shorts?.deallocate()
    }

    private var isPCM16: Bool { formatCode & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_PCM_16) }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        guard let handle else { return 0 }
        if isPCM16 {
            let count = maxFrames * channels
            if shortsCapacity < count {
                shorts?.deallocate()
                shorts = .allocate(capacity: count)
                shortsCapacity = count
            }
            let n = Int(sf_readf_short(handle, shorts!, sf_count_t(maxFrames)))
            guard n > 0 else { return 0 }
            let src = shorts!
            for i in 0..<(n * channels) { buffer[i] = Float(src[i]) * (1.0 / 32768) }
            return n
        }
        let n = sf_readf_float(handle, buffer, sf_count_t(maxFrames))
        if n <= 0 {
            // End of data, or a decode error past the first frames: a file whose data is
            // shorter than its header says is analysed as far as it goes.
            return 0
        }
        return Int(n)
    }

    /// Goes back to the first frame (`sf_seek`), for a second pass.
    public func rewind() throws(PulsemeterError) {
        guard let handle, sf_seek(handle, 0, SEEK_SET) == 0 else {
            throw PulsemeterError(.notDecodable, "cannot seek in \(path)")
        }
    }

    /// Moves to frame `frame` (`sf_seek`); returns false when the file cannot seek there.
    public func seek(toFrame frame: Int) -> Bool {
        guard let handle else { return false }
        return sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0
    }
}
