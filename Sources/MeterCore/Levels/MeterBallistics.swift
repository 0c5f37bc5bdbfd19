/// The needle of a VU, PPM or K-system meter, per channel, followed at every sample.
///
/// - VU (IEC 60268-17): the full-wave rectified signal through a second-order low-pass whose
///   step response reaches 99 % in 300 ms and overshoots by 1.25 % (damping 0.813, from
///   overshoot = exp(-zeta pi / sqrt(1 - zeta^2)); the natural frequency solved from the step
///   response's first crossing of 0.99), by the bilinear transform (its poles lie near 2 Hz,
///   far below any Nyquist). 0 VU is a sine whose peak is at the reference level (`--vu-ref`,
///   -18 dBFS by default, EBU R68's alignment level): the rectified mean of that sine.
/// - PPM (IEC 60268-10): the needle charges towards the rectified signal while it is above it
///   and falls linearly in dB (type I 20 dB in 1.5 s, type II 24 dB in 2.8 s). The charging
///   rate is solved at the stream's rate so that a 5 kHz tone burst of the integration time
///   (type I 5 ms, type II 10 ms) reads 2 dB below the steady tone, as the standard defines
///   the integration time; readings are scaled so the steady 5 kHz tone reads its peak:
///   a sine of amplitude A reads 20 log10(A) dBFS (within 0.1 dB from 100 Hz up).
/// - K-20/14/12: the mean square with a 600 ms time constant, read as dBFS RMS (a full-scale
///   sine reads -3.01) minus the K reference.
public final class MeterBallistics {
    public let kind: MeterKind
    public let channels: Int
    /// The reading of the VU's 0: the rectified mean of a sine of peak `vuReference` dBFS.
    private let vuZero: Double
    private let vu: [BiquadCascade]
    private var state: [Double]
    /// The PPM's reading of a steady unit sine (readings are divided by it).
    private let ppmScale: Double
    private let attack: Double
    private let fall: Double
    private let scratch: UnsafeMutablePointer<Float>

    /// The VU's damping (1.25 % overshoot) and its natural frequency for 99 % in 300 ms.
    public static let vuDamping: Double = {
        let l = PureMath.log(0.0125)
        return (l * l / (Double.pi * Double.pi + l * l)).squareRoot()
    }()
    public static let vuNaturalFrequency: Double = {
        let z = vuDamping, wd = (1 - z * z).squareRoot()
        func step(_ t: Double) -> Double { 1 - PureMath.exp(-z * t) * (PureMath.cos(wd * t) + z / wd * PureMath.sin(wd * t)) }
        // The first crossing of 0.99 lies before the peak at pi / wd.
        var lo = 0.0, hi = Double.pi / wd
        for _ in 0..<80 {
            let mid = (lo + hi) / 2
            if step(mid) < 0.99 { lo = mid } else { hi = mid }
        }
        return lo / 0.3
    }()

    public init(kind: MeterKind, rate: Int, channels: Int, vuReference: Double = -18) {
        self.kind = kind
        self.channels = channels
        let fs = Double(rate)
        vuZero = 2 / Double.pi * PureMath.pow(10, vuReference / 20)
        if kind == .vu {
            // omega^2 / (s^2 + 2 zeta omega s + omega^2), bilinear with prewarping at omega.
            let w = Self.vuNaturalFrequency, z = Self.vuDamping
            let k = w / PureMath.tan(w / (2 * fs))
            let a0 = k * k + 2 * z * w * k + w * w
            let section = BiquadCascade.Section(b0: w * w / a0, b1: 2 * w * w / a0, b2: w * w / a0,
                                                a1: (2 * w * w - 2 * k * k) / a0, a2: (k * k - 2 * z * w * k + w * w) / a0)
            vu = (0..<channels).map { _ in BiquadCascade([section]) }
        } else {
            vu = []
        }
        state = Array(repeating: 0, count: channels)
        switch kind {
        case .ppm1, .ppm2:
            let dbPerSecond = kind == .ppm1 ? 20 / 1.5 : 24 / 2.8
            fall = PureMath.pow(10, -dbPerSecond / (20 * fs))
            (attack, ppmScale) = Self.ppmCharge(integration: kind == .ppm1 ? 0.005 : 0.010, fall: fall, rate: fs)
        default:
            attack = 1 - PureMath.exp(-1 / (0.6 * fs))
            fall = 0
            ppmScale = 1
        }
        scratch = .allocate(capacity: BiquadCascade.blockCapacity)
    }

    deinit { scratch.deallocate() }

    /// The PPM's needle over the first `n` samples of `tone` (a rectified unit 5 kHz sine) from
    /// rest, then one silent sample; its highest reading.
    private static func ppmPeak(charge a: Double, fall f: Double, tone: [Double], _ n: Int) -> Double {
        var y = 0.0, hi = 0.0
        for i in 0..<n {
            let v = tone[i]
            y = v > y ? y + a * (v - y) : y * f
            hi = max(hi, y)
        }
        return hi
    }

    /// The charging coefficient for which a burst of `integration` seconds reads 2 dB below
    /// the steady tone (bisection; the reading grows with the coefficient), and the steady reading.
    static func ppmCharge(integration: Double, fall f: Double, rate: Double) -> (charge: Double, steady: Double) {
        let burst = Int((integration * rate).rounded()), long = Int(0.3 * rate)
        let tone = (0..<long).map { abs(PureMath.sin(2 * Double.pi * 5000 * Double($0) / rate)) }
        var lo = 1e-6, hi = 1.0
        for _ in 0..<40 {
            let a = (lo * hi).squareRoot()
            let ratio = ppmPeak(charge: a, fall: f, tone: tone, burst) / ppmPeak(charge: a, fall: f, tone: tone, long)
            if ratio < PureMath.pow(10, -2.0 / 20) { lo = a } else { hi = a }
        }
        let a = (lo * hi).squareRoot()
        return (a, ppmPeak(charge: a, fall: f, tone: tone, long))
    }

    /// Adds `n` frames given per channel: channel c's samples at `planar + c * channelStride`.
    public func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        guard kind != .dbfs else { return }
        var done = 0
        while done < n {
            let m = min(n - done, BiquadCascade.blockCapacity)
            for c in 0..<channels {
                let x = planar + c * channelStride + done
                var y = state[c]
                switch kind {
                case .vu:
                    for i in 0..<m { scratch[i] = abs(x[i]) }
                    vu[c].process(scratch, count: m, into: scratch)
                    y = Double(scratch[m - 1])
                case .ppm1, .ppm2:
                    let a = attack, f = fall
                    for i in 0..<m {
                        let v = Double(abs(x[i]))
                        y = v > y ? y + a * (v - y) : y * f
                    }
                default:
                    let a = attack
                    for i in 0..<m {
                        let v = Double(x[i])
                        y += a * (v * v - y)
                    }
                }
                state[c] = y
            }
            done += m
        }
    }

    /// The readings now, per channel, in the meter's unit; `rmsDb` stands for the dBFS meter.
    public func readings(rmsDb: [Double], into out: inout [Double]) {
        for c in 0..<channels {
            switch kind {
            case .dbfs: out[c] = rmsDb[c]
            case .vu: out[c] = state[c] > 0 ? max(Decibels.floor, Decibels.fromAmplitude(state[c] / vuZero)) : Decibels.floor
            case .ppm1, .ppm2: out[c] = Decibels.fromAmplitude(state[c] / ppmScale)
            default:
                let db = Decibels.fromPower(state[c])
                out[c] = db <= Decibels.floor ? db : db - kind.kReference!
            }
        }
    }
}
