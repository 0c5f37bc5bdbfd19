/// Halves the rate: a Kaiser-windowed half-band FIR low-pass (passband to 0.2, stopband from
/// 0.3 of the input rate at 80 dB), computed only at the kept samples.
final class HalfBandDecimator {
    static let taps: [Float] = {
        // Length 4m + 3 with the centre tap 0.5: every other tap is zero (a half-band filter).
        let n = 59, beta = 0.1102 * (80 - 8.7), mid = Double(n - 1) / 2
        func i0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-12 * sum {
                term *= (x / (2 * k)) * (x / (2 * k))
                sum += term
                k += 1
            }
            return sum
        }
        return (0..<n).map { i in
            let t = Double(i) - mid
            let sinc = t == 0 ? 0.5 : PureMath.sin(Double.pi * t / 2) / (Double.pi * t)
            let r = t / mid
            return Float(sinc * i0(beta * max(0, 1 - r * r).squareRoot()) / i0(beta))
        }
    }()

    private let history: UnsafeMutablePointer<Float>
    private var phase = 0
    private let length = HalfBandDecimator.taps.count

    init() {
        history = .allocate(capacity: length - 1 + BiquadCascade.blockCapacity)
        history.initialize(repeating: 0, count: length - 1 + BiquadCascade.blockCapacity)
    }

    deinit { history.deallocate() }

    /// Filters `n` samples and writes every second output to `out`; returns how many.
    func process(_ input: UnsafePointer<Float>, count n: Int, into out: UnsafeMutablePointer<Float>) -> Int {
        let keep = length - 1
        (history + keep).update(from: input, count: n)
        var produced = 0
        Self.taps.withUnsafeBufferPointer { h in
            var i = phase
            while i < n {
                // Output at input index i: sum of h[k] x[i - k], x[i - k] at history[keep + i - k].
                let base = history + i
                var acc: Float = h[keep / 2] * base[keep / 2]
                var k = 0
                while k < keep / 2 {
                    acc += h[k] * (base[keep - k] + base[k])
                    k += 2
                }
                out[produced] = acc
                produced += 1
                i += 2
            }
            phase = i - n
        }
        history.update(from: history + n, count: keep)
        return produced
    }
}
