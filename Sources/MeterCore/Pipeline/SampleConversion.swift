/// The one conversion between integer PCM and the Float samples the meter and the lossy encoders
/// work on: full scale is 1.0, so s16 is divided by 32768 (README.md "Levels: exact
/// definitions", and what libsndfile and ffmpeg do); back again it is multiplied by 32768,
/// rounded and clamped to -32768...32767 (NaN becomes 0). Every reader and writer that turns shorts into floats or
/// back calls this, so a level measured live, read back from a file, played, or fed to an
/// encoder is the same number.
public enum SampleConversion {
    /// One sample to Float.
    @inlinable
    public static func float(_ s: Int16) -> Float { Float(s) * (1.0 / 32768) }

    /// One sample to Int16.
    @inlinable
    public static func int16(_ f: Float) -> Int16 {
        let v = (f * 32768).rounded()
        return Int16(max(-32768, min(32767, v.isNaN ? 0 : v)))
    }

    /// One sample to the 16-bit scale truncated toward zero and clamped, as audiowaveform turns
    /// a channel mix into its 16-bit min/max values (C integer division truncates): for
    /// samples that came from s16 this is exactly audiowaveform's value.
    @inlinable
    public static func int16TowardZero(_ f: Float) -> Int16 {
        let v = (f * 32768).rounded(.towardZero)
        return Int16(max(-32768, min(32767, v.isNaN ? 0 : v)))
    }

    /// Converts `count` interleaved samples; a plain loop the compiler vectorizes.
    @inlinable
    public static func floats(from source: UnsafePointer<Int16>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { destination[i] = float(source[i]) }
    }

    /// A 24-bit sample in the low bits of a 32-bit word (`SampleFormat.s24`) as a 32-bit
    /// sample: shifted up 8 bits, whatever the upper byte held (exact; libsndfile's `int`
    /// samples are left-aligned, so its 24-bit file takes these 24 bits back).
    @inlinable
    public static func int32(s24Word w: Int32) -> Int32 { w << 8 }

    /// Converts `count` interleaved samples in `format` (native-endian, as the rings carry
    /// them) to Float, full scale 1.0: s16 / 32768, s24 and s32 (left-aligned) / 2^31, float
    /// as it is. The one conversion of captured audio for the meter.
    @inlinable
    public static func floats(from raw: UnsafeRawPointer, format: SampleFormat,
                              into destination: UnsafeMutablePointer<Float>, count: Int) {
        switch format {
        case .s16:
            floats(from: raw.assumingMemoryBound(to: Int16.self), into: destination, count: count)
        case .s24:
            let p = raw.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { destination[i] = Float(int32(s24Word: p[i])) * (1.0 / 2147483648) }
        case .s32:
            let p = raw.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { destination[i] = Float(p[i]) * (1.0 / 2147483648) }
        case .float:
            destination.update(from: raw.assumingMemoryBound(to: Float.self), count: count)
        }
    }

    /// Converts `count` Float samples to `format`, the inverse of `floats(from:format:)`:
    /// clamped to full scale; s24 as 24 bits in the low bits of 32-bit words (PulseAudio's
    /// S24_32).
    public static func samples(from source: UnsafePointer<Float>, format: SampleFormat,
                               into raw: UnsafeMutableRawPointer, count: Int) {
        func word(_ f: Float, scale: Double) -> Int32 {
            Int32(max(-scale, min(scale - 1, (Double(f) * scale).rounded())))
        }
        switch format {
        case .s16: int16s(from: source, into: raw.assumingMemoryBound(to: Int16.self), count: count)
        case .s24:
            let p = raw.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { p[i] = word(source[i], scale: 8388608) }
        case .s32:
            let p = raw.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { p[i] = word(source[i], scale: 2147483648) }
        case .float: raw.assumingMemoryBound(to: Float.self).update(from: source, count: count)
        }
    }

    /// Converts `count` interleaved samples back to 16 bits.
    @inlinable
    public static func int16s(from source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Int16>, count: Int) {
        for i in 0..<count { destination[i] = int16(source[i]) }
    }
}
