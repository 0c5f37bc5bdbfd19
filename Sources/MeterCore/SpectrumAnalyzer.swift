import Foundation

/// Band levels of the mono mix over the last `fftSize` samples (zeros before the start).
///
/// Hann window, then band power = 2 / (N * sum(w^2)) * sum over the band's bins of |X[k]|^2
/// (factor 1 for the DC and Nyquist bins). With this scaling the band powers of a frame add up
/// to the power of the signal as seen through the window (Parseval), and a sine of amplitude A
/// reads 20*log10(A) - 3.01 dB over its band and neighbours.
public final class SpectrumAnalyzer {
    public let layout: BandLayout
    public let fftSize: Int
    private let transform: any PowerSpectrumTransform
    private let history: UnsafeMutablePointer<Float>   // ring of the last fftSize mono samples
    private var written = 0
    private let window: UnsafeMutablePointer<Float>
    private let scratch: UnsafeMutablePointer<Float>
    private let power: UnsafeMutablePointer<Double>
    private let scale: Double

    public init(layout: BandLayout, transform: any PowerSpectrumTransform) {
        let n = transform.size
        self.layout = layout
        self.fftSize = n
        self.transform = transform
        history = .allocate(capacity: n)
        history.initialize(repeating: 0, count: n)
        window = .allocate(capacity: n)
        var energy: Double = 0
        for i in 0..<n {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))  // periodic Hann
            window[i] = Float(w)
            energy += Double(Float(w)) * Double(Float(w))
        }
        scratch = .allocate(capacity: n)
        power = .allocate(capacity: n / 2 + 1)
        scale = 2 / (Double(n) * energy)
    }

    deinit {
        history.deallocate()
        window.deallocate()
        scratch.deallocate()
        power.deallocate()
    }

    /// Appends `frames` mono samples.
    public func push(_ mono: UnsafePointer<Float>, count frames: Int) {
        var i = 0
        while i < frames {
            let at = written % fftSize
            let seg = min(frames - i, fftSize - at)
            (history + at).update(from: mono + i, count: seg)
            written += seg
            i += seg
        }
    }

    /// Computes the band levels in dB into `bandsDb` (count = layout.count).
    public func bandLevels(into bandsDb: inout [Double]) {
        let n = fftSize
        let start = written % n  // oldest sample
        for i in 0..<n {
            scratch[i] = history[(start + i) & (n - 1)] * window[i]
        }
        transform.powerSpectrum(scratch, into: power)
        let nyquist = n / 2
        for b in 0..<layout.count {
            var sum: Double = 0
            for k in layout.bins(of: b) {
                sum += (k == 0 || k == nyquist) ? power[k] / 2 : power[k]
            }
            bandsDb[b] = Decibels.fromPower(sum * scale)
        }
    }
}
