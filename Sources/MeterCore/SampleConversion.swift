/// The one conversion from 16-bit PCM to the Float samples the meter and the lossy encoders
/// work on: full scale is 1.0, so s16 is divided by 32768 (the contract's definition, and what
/// libsndfile and ffmpeg do). Every reader and writer that turns shorts into floats calls this,
/// so a level measured live, read back from a file, or fed to an encoder is the same number.
public enum SampleConversion {
    /// Converts `count` interleaved samples; a plain loop the compiler vectorizes.
    @inlinable
    public static func floats(from source: UnsafePointer<Int16>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { destination[i] = Float(source[i]) * (1.0 / 32768) }
    }
}
