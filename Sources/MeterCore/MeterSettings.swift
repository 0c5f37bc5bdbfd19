/// What the meter measures: the capture spec and the analysis parameters of CONTRACT.md,
/// with the derived sample counts (`hop`, `window`) computed once.
public struct MeterSettings: Sendable, Equatable {
    public var rate: Int
    public var channels: Int
    /// Meter frames per second of audio.
    public var fps: Double
    /// RMS integration window in milliseconds.
    public var windowMs: Double
    /// Number of FFT bands; 0 turns the spectrum off.
    public var bands: Int
    public var fftSize: Int
    public var fmin: Double
    /// Highest band edge; nil means min(16000, 0.95 x Nyquist).
    public var fmax: Double?

    public init(rate: Int = 48000, channels: Int = 2, fps: Double = 30, windowMs: Double = 50,
                bands: Int = 0, fftSize: Int = 2048, fmin: Double = 50, fmax: Double? = nil) {
        self.rate = rate
        self.channels = channels
        self.fps = fps
        self.windowMs = windowMs
        self.bands = bands
        self.fftSize = fftSize
        self.fmin = fmin
        self.fmax = fmax
    }

    public static let maxChannels = 32
    public static let maxRate = 768_000

    /// Samples per meter frame: round(rate / fps), at least 1.
    public var hop: Int { max(1, Int((Double(rate) / fps).rounded())) }
    /// Samples in the RMS window: round(window_ms * rate / 1000), at least 1.
    public var window: Int { max(1, Int((windowMs * Double(rate) / 1000).rounded())) }
    /// The highest band edge actually asked for.
    public var effectiveFmax: Double { fmax ?? min(16000, 0.95 * Double(rate) / 2) }

    /// Checks every value against what is allowed; the error names the option, the value and
    /// the allowed range, as a usage error (exit 64).
    public func validate() throws(PulsemeterError) {
        func bad(_ option: String, _ value: String, _ allowed: String) -> PulsemeterError {
            PulsemeterError(.usage, "\(option) \(value) is not allowed: \(allowed)")
        }
        guard (1...Self.maxRate).contains(rate) else {
            throw bad("--rate", "\(rate)", "use a sample rate from 1 to \(Self.maxRate) Hz")
        }
        guard (1...Self.maxChannels).contains(channels) else {
            throw bad("--channels", "\(channels)", "use 1 to \(Self.maxChannels) channels")
        }
        guard fps.isFinite, fps >= 0.01, fps <= Double(rate) else {
            throw bad("--fps", format(fps), "use a number of frames per second from 0.01 up to the sample rate")
        }
        guard windowMs.isFinite, windowMs > 0, windowMs <= 60_000 else {
            throw bad("--window", format(windowMs), "use a window from above 0 to 60000 ms")
        }
        guard bands >= 0, bands <= 1024 else {
            throw bad("--bands", "\(bands)", "use 0 (off) to 1024 bands")
        }
        // Checked with bands off too: `--fft-size 1000` is a mistake whether or not it is used.
        guard fftSize >= 64, fftSize <= 65536, fftSize & (fftSize - 1) == 0 else {
            throw bad("--fft-size", "\(fftSize)", "--fft-size must be a power of two from 64 to 65536")
        }
        guard bands > 0 else { return }
        let nyquist = Double(rate) / 2
        guard fmin.isFinite, fmin >= 1, fmin < nyquist else {
            throw bad("--fmin", format(fmin), "use a frequency of at least 1 Hz and below Nyquist (\(format(nyquist)) Hz)")
        }
        let top = effectiveFmax
        guard top.isFinite, top > fmin, top <= nyquist else {
            throw bad("--fmax", format(top), "use a frequency above --fmin (\(format(fmin)) Hz) and at most Nyquist (\(format(nyquist)) Hz)")
        }
        _ = try BandLayout(settings: self)
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
