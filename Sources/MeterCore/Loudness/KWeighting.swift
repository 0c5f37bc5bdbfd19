/// The K-weighting filter of ITU-R BS.1770-4 at any sample rate, for one channel.
///
/// A high-shelf (about +4 dB above 1.7 kHz, the head's effect) followed by a high-pass (the
/// RLB curve, 38 Hz), designed from their analog prototypes by the bilinear transform so the
/// response is right at every rate, not only 48 kHz. The two biquads are multiplied into one
/// 4th-order section run in direct form II, in Double, with the same design constants and
/// the same arithmetic as libebur128 (the reference the meter is checked against), so the
/// per-frame momentary and short-term values here agree with its own to far below 0.01 LU.
public struct KWeighting {
    /// Numerator and denominator of the combined 4th-order section (a[0] = 1).
    public let b: (Double, Double, Double, Double, Double)
    public let a: (Double, Double, Double, Double, Double)
    private var v1 = 0.0, v2 = 0.0, v3 = 0.0, v4 = 0.0

    public init(rate: Int) {
        let fs = Double(rate)
        // Stage 1: the high shelf.
        var f0 = 1681.974450955533
        let g = 3.999843853973347
        var q = 0.7071752369554196
        var k = PureMath.tan(Double.pi * f0 / fs)
        let vh = PureMath.pow(10, g / 20)
        let vb = PureMath.pow(vh, 0.4996667741545416)
        let a0 = 1 + k / q + k * k
        let pb = ((vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0)
        let pa = (1.0, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
        // Stage 2: the RLB high-pass.
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = PureMath.tan(Double.pi * f0 / fs)
        let rb = (1.0, -2.0, 1.0)
        let ra = (1.0, 2 * (k * k - 1) / (1 + k / q + k * k), (1 - k / q + k * k) / (1 + k / q + k * k))
        b = (pb.0 * rb.0,
             pb.0 * rb.1 + pb.1 * rb.0,
             pb.0 * rb.2 + pb.1 * rb.1 + pb.2 * rb.0,
             pb.1 * rb.2 + pb.2 * rb.1,
             pb.2 * rb.2)
        a = (pa.0 * ra.0,
             pa.0 * ra.1 + pa.1 * ra.0,
             pa.0 * ra.2 + pa.1 * ra.1 + pa.2 * ra.0,
             pa.1 * ra.2 + pa.2 * ra.1,
             pa.2 * ra.2)
    }

    /// Filters `n` samples read `stride` apart from `input` into `output` (contiguous).
    public mutating func process(_ input: UnsafePointer<Float>, stride: Int, count n: Int,
                                 into output: UnsafeMutablePointer<Float>) {
        let (b0, b1, b2, b3, b4) = b
        let (_, a1, a2, a3, a4) = a
        var v1 = self.v1, v2 = self.v2, v3 = self.v3, v4 = self.v4
        for i in 0..<n {
            let v0 = Double(input[i * stride]) - a1 * v1 - a2 * v2 - a3 * v3 - a4 * v4
            output[i] = Float(b0 * v0 + b1 * v1 + b2 * v2 + b3 * v3 + b4 * v4)
            v4 = v3
            v3 = v2
            v2 = v1
            v1 = v0
        }
        // A decaying state would reach subnormal numbers, which are slow on every CPU, and
        // libebur128 flushes them too; below 1e-30 (600 dB under full scale) it is zero.
        let tiny = 1e-30
        if abs(v1) < tiny && abs(v2) < tiny && abs(v3) < tiny && abs(v4) < tiny {
            v1 = 0; v2 = 0; v3 = 0; v4 = 0
        }
        self.v1 = v1
        self.v2 = v2
        self.v3 = v3
        self.v4 = v4
    }
}
