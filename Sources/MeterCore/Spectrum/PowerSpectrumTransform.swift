/// A real-input FFT that yields the squared magnitude of each bin.
///
/// The core stays free of C: MeterIO provides the FFTW implementation (`FFTWPowerSpectrum`),
/// tests may provide a plain DFT. Called once per meter frame, never per sample.
public protocol PowerSpectrumTransform: AnyObject {
    /// Transform length (a power of two).
    var size: Int { get }
    /// Reads `size` samples from `input` and writes |X[k]|^2 for k = 0 ... size/2 to `power`.
    func powerSpectrum(_ input: UnsafePointer<Float>, into power: UnsafeMutablePointer<Double>)
    /// Transforms `size` samples, then writes to `sums[b]` the sum of |X[k]|^2 over bins
    /// edges[b] ..< edges[b+1]; bins 0 and size/2 (DC and Nyquist, which have no mirror image)
    /// count half. The default goes through `powerSpectrum`; FFTW fuses the two passes.
    func bandEnergies(_ input: UnsafePointer<Float>, edges: [Int], into sums: UnsafeMutablePointer<Double>)
}

extension PowerSpectrumTransform {
    public func bandEnergies(_ input: UnsafePointer<Float>, edges: [Int], into sums: UnsafeMutablePointer<Double>) {
        let power = UnsafeMutablePointer<Double>.allocate(capacity: size / 2 + 1)
        defer { power.deallocate() }
        powerSpectrum(input, into: power)
        power[0] *= 0.5
        power[size / 2] *= 0.5
        for b in 0..<(edges.count - 1) {
            var s: Double = 0
            for k in edges[b]..<edges[b + 1] { s += power[k] }
            sums[b] = s
        }
    }
}
