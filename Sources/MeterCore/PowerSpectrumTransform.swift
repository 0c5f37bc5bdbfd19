/// A real-input FFT that yields the squared magnitude of each bin.
///
/// The core stays free of C: MeterIO provides the FFTW implementation (`FFTWPowerSpectrum`),
/// tests may provide a plain DFT. Called once per meter frame, never per sample.
public protocol PowerSpectrumTransform: AnyObject {
    /// Transform length (a power of two).
    var size: Int { get }
    /// Reads `size` samples from `input` and writes |X[k]|^2 for k = 0 ... size/2 to `power`.
    func powerSpectrum(_ input: UnsafePointer<Float>, into power: UnsafeMutablePointer<Double>)
}
