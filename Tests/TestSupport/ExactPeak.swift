import Foundation

/// The exact peak of a band-limited signal, for the true-peak tests: 16 points per sample
/// period, each a Kaiser-windowed sinc of 128 taps (beta 8: flat to 0.001 dB up to 0.48 of the
/// rate) over the samples, in Double, computed here and not with the meter's code.
public enum ExactPeak {
    public static let over = 16, half = 64

    /// taps[s][k + half - 1]: the weight of sample k (from the period's first) at s / 16 on.
    static let taps: [[Double]] = (0..<over).map { s in
        (-(half - 1)...half).map { k -> Double in
            let u = Double(k) - Double(s) / Double(over)
            let r = u / Double(half)
            let window = r * r >= 1 ? 0 : i0(8 * (1 - r * r).squareRoot()) / i0(8)
            return (u == 0 ? 1 : sin(Double.pi * u) / (Double.pi * u)) * window
        }
    }

    /// The modified Bessel function I0 by its power series, summed to the last term that counts.
    static func i0(_ x: Double) -> Double {
        var total = 0.0, term = 1.0, k = 0.0
        repeat {
            total += term
            k += 1
            term *= x * x / (4 * k * k)
        } while term > 1e-16 * total
        return total
    }

    /// In dB: the largest magnitude of the samples `x` and of the 15 points between each two,
    /// in every period, or (`near`) only in the periods within 3 samples of one at least
    /// `near` times the largest sample.
    public static func db(_ x: [Float], near: Float? = nil) -> Double {
        let n = x.count
        let largest = x.map(abs).max() ?? 0
        var periods = Array(0..<n)
        if let near {
            var marked = [Bool](repeating: false, count: n)
            for i in 0..<n where abs(x[i]) >= near * largest {
                for j in max(0, i - 3)...min(n - 1, i + 2) { marked[j] = true }
            }
            periods = periods.filter { marked[$0] }
        }
        let padded = [Double](repeating: 0, count: half) + x.map(Double.init) + [Double](repeating: 0, count: half)
        var peak = Double(largest)
        padded.withUnsafeBufferPointer { p in
            for s in 1..<over {
                taps[s].withUnsafeBufferPointer { h in
                    for j in periods {
                        // Samples j - 63 ... j + 64, from index j + 1 of `padded`.
                        let base = p.baseAddress! + j + 1
                        var y = 0.0
                        for i in 0..<(2 * half) { y += h[i] * base[i] }
                        peak = max(peak, abs(y))
                    }
                }
            }
        }
        return 20 * log10(peak)
    }
}
