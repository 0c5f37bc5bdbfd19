import CSndFile
import Glibc
import MeterCore

/// Writes a recording with libsndfile (`sf_open` in SFM_WRITE), in the container
/// `RecordingFormat` chose. Owned by the recorder thread.
///
/// - Header-based PCM containers get the captured samples as they are (`sf_writef_short` for
///   s16, `sf_writef_int` for s24 and s32, `sf_writef_float` for float: the file's samples
///   equal the captured ones bit for bit, libsndfile's `int` being left-aligned) and `SFC_SET_UPDATE_HEADER_AUTO`: the header is rewritten after every
///   write, so the file is valid at any moment, even after SIGKILL.
/// - FLAC gets them the same way (lossless, bit for bit, 16 or 24 bits), without header updates: libFLAC
///   writes each frame as it completes, and a file whose STREAMINFO was never finished reads
///   as a stream of unknown length up to its last frame.
/// - The lossy encoders (Vorbis, Opus, MP3) get `sf_writef_float` through the one
///   `SampleConversion` (libsndfile 1.2.0's MP3 encoder distorts `short` input), never a header
///   update (on Ogg that repeats the stream headers). Opus pages are closed every 250 ms
///   (`SFC_SET_OGG_PAGE_LATENCY_MS`; Vorbis pages close every ~4 KB), and MP3 is written at a
///   constant bit rate (`SFC_SET_BITRATE_MODE`): a killed recording then reads to its last page
///   or frame, where a variable-rate MP3 without its final Xing header reads short.
public final class SoundFileWriter: RecordingWriter {
    public let path: FilePath
    public private(set) var framesWritten = 0
    private var handle: OpaquePointer?
    private let channels: Int
    private let lossy: Bool
    private let sampleFormat: SampleFormat
    /// Float copy of a block for the lossy encoders (grown on demand, reused).
    private let floats = ScratchBuffer<Float>()
    /// Left-aligned copy of a block of s24 words for `sf_writef_int`.
    private let ints = ScratchBuffer<Int32>()

    /// Starts the file on `fd`, the file `RecordingFormat.openWriter` created for `path`
    /// (`sf_open_fd`, which owns and closes the descriptor from here on, also when it fails);
    /// throws when libsndfile refuses.
    init(fd: Int32, path: FilePath, format: RecordingFormat) throws(OutputError) {
        var info = SF_INFO(frames: 0, samplerate: Int32(format.rate), channels: Int32(format.channels),
                           format: format.code, sections: 0, seekable: 0)
        let h: OpaquePointer
        switch SoundFileError.open(fd, mode: Int32(SFM_WRITE), &info, closeWhenDone: true) {
        case .handle(let opened):
            h = opened
        case .failed(let code, let savedErrno):
            throw OutputError.cannotCreateRecording(path, reason: SoundFileError.reason(code: code, savedErrno: savedErrno))
        }
        handle = h
        self.path = path
        channels = format.channels
        sampleFormat = format.sampleFormat
        lossy = format.kind == .lossyStream
        switch format.kind {
        case .headerPCM:
            sf_command(h, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
        case .losslessStream, .ffmpegAAC:
            break
        case .lossyStream:
            if format.fileExtension == "opus" {
                var ms = 250.0
                sf_command(h, Int32(SFC_SET_OGG_PAGE_LATENCY_MS), &ms, Int32(MemoryLayout<Double>.size))
            }
            if format.fileExtension == "mp3" {
                var mode = Int32(SF_BITRATE_MODE_CONSTANT)
                sf_command(h, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
            }
            if var level = format.compressionLevel {
                sf_command(h, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size))
            }
        }
    }

    deinit {
        _ = try? close()
    }

    /// Appends interleaved frames in the format's sample format; throws on a short write or
    /// an error libsndfile recorded during the call (disk full, I/O error).
    public func write(_ samples: UnsafeRawBufferPointer) throws(OutputError) {
        guard let handle, let base = samples.baseAddress else { return }
        let frames = samples.count / (channels * sampleFormat.bytesPerSample)
        guard frames > 0 else { return }
        let count = frames * channels
        let n: sf_count_t
        if lossy {
            let copy = floats.pointer(count: count)
            SampleConversion.floats(from: base, format: sampleFormat, into: copy, count: count)
            n = sf_writef_float(handle, copy, sf_count_t(frames))
        } else {
            switch sampleFormat {
            case .s16: n = sf_writef_short(handle, base.assumingMemoryBound(to: Int16.self), sf_count_t(frames))
            case .s32: n = sf_writef_int(handle, base.assumingMemoryBound(to: Int32.self), sf_count_t(frames))
            case .float: n = sf_writef_float(handle, base.assumingMemoryBound(to: Float.self), sf_count_t(frames))
            case .s24:
                let words = base.assumingMemoryBound(to: Int32.self)
                let copy = ints.pointer(count: count)
                for i in 0..<count { copy[i] = SampleConversion.int32(s24Word: words[i]) }
                n = sf_writef_int(handle, copy, sf_count_t(frames))
            }
        }
        let savedErrno = errno
        if n > 0 { framesWritten += Int(n) }
        // libsndfile's MP3 encoder takes every frame even when writing its output failed (a
        // full disk): the count is whole and only the handle's error (reset by each write
        // call) tells; without this check a truncated MP3 was reported complete.
        if n != frames || sf_error(handle) != 0 {
            let reason = SoundFileError.reason(handle, savedErrno: savedErrno)
            throw OutputError.cannotWriteRecording(path, reason: reason, framesWritten: framesWritten)
        }
    }

    /// Finishes the header or stream and closes the file (`sf_close`).
    public func close() throws(OutputError) {
        guard let h = handle else { return }
        handle = nil
        let r = sf_close(h)
        if r != 0 {
            throw OutputError.cannotFinishRecording(path, reason: SoundFileError.reason(code: r, savedErrno: errno))
        }
    }
}
