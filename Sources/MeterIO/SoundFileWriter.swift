import CSndFile
import Glibc
import MeterCore

/// Writes a recording with libsndfile (`sf_open` in SFM_WRITE), in the container
/// `RecordingFormat` chose. Owned by the recorder thread.
///
/// - Header-based PCM containers get `sf_writef_short` (the file's samples equal the captured
///   ones bit for bit) and `SFC_SET_UPDATE_HEADER_AUTO`: the header is rewritten after every
///   write, so the file is valid at any moment, even after SIGKILL.
/// - FLAC gets `sf_writef_short` too (lossless, bit for bit), without header updates: libFLAC
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
    /// Float copy of a block for the lossy encoders (grown on demand, reused).
    private let floats = ScratchBuffer<Float>()

    /// Starts the file on `fd`, the file `RecordingFormat.openWriter` created for `path`
    /// (`sf_open_fd`, which owns and closes the descriptor from here on, also when it fails);
    /// exit 73 when libsndfile refuses.
    init(fd: Int32, path: FilePath, format: RecordingFormat) throws(OutputError) {
        var info = SF_INFO(frames: 0, samplerate: Int32(format.rate), channels: Int32(format.channels),
                           format: format.code, sections: 0, seekable: 0)
        guard let h = sf_open_fd(fd, Int32(SFM_WRITE), &info, Int32(SF_TRUE)) else {
            let reason = SoundFileError.reason(nil, savedErrno: errno)
            throw OutputError.cannotCreateRecording(path, reason: reason)
        }
        handle = h
        self.path = path
        channels = format.channels
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

    /// Appends interleaved s16 frames; exit 74 on a short write (disk full, I/O error).
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(OutputError) {
        guard let handle, let base = samples.baseAddress else { return }
        let frames = samples.count / channels
        guard frames > 0 else { return }
        let n: sf_count_t
        if lossy {
            let count = frames * channels
            let copy = floats.pointer(count: count)
            SampleConversion.floats(from: base, into: copy, count: count)
            n = sf_writef_float(handle, copy, sf_count_t(frames))
        } else {
            n = sf_writef_short(handle, base, sf_count_t(frames))
        }
        if n > 0 { framesWritten += Int(n) }
        if n != frames {
            let reason = SoundFileError.reason(handle, savedErrno: errno)
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
