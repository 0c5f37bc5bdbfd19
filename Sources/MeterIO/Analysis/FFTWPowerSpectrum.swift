import CFFTW
import MeterCore
import Synchronization

/// The spectrum transform on FFTW: a single-precision real-to-complex plan
/// (`fftwf_plan_dft_r2c_1d`), executed with `fftwf_execute` once per meter frame.
///
/// FFTW's planner is not thread-safe, so plans are made here, under a lock, on whichever
/// thread builds the pipeline; executing the plan later on the analysis thread is safe.
public final class FFTWPowerSpectrum: PowerSpectrumTransform {
    public let size: Int
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan

    /// FFTW's planner is not thread-safe (`fftwf_plan_dft_r2c_1d`, `fftwf_destroy_plan`).
    private static let plannerLock = Mutex<Void>(())

    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0)
        self.size = size
        let input = fftwf_alloc_real(size)!
        let output = fftwf_alloc_complex(size / 2 + 1)!
        self.input = input
        self.output = output
        var made: fftwf_plan?
        Self.plannerLock.withLock { _ in
            made = fftwf_plan_dft_r2c_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE | FFTW_DESTROY_INPUT))
        }
        plan = made!
    }

    /// The transform a pipeline of `settings` needs: one of the FFT size for bands, nil
    /// without bands. A new plan each call, as a transform is used by one thread.
    public static func forBands(of settings: ValidSettings) -> FFTWPowerSpectrum? {
        settings.bands > 0 ? FFTWPowerSpectrum(size: settings.fftSize) : nil
    }

    deinit {
        Self.plannerLock.withLock { _ in fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(output)
    }

    /// One pass over FFTW's output: |X[k]|^2 summed per band, no intermediate array.
    public func bandEnergies(_ samples: UnsafePointer<Float>, edges: [Int], into sums: UnsafeMutablePointer<Double>) {
        input.update(from: samples, count: size)
        fftwf_execute(plan)
        let raw = UnsafeRawPointer(output).assumingMemoryBound(to: Float.self)
        let nyquist = size / 2
        edges.withUnsafeBufferPointer { e in
            for b in 0..<(e.count - 1) {
                // Four complex bins (eight floats) per step.
                var k = e[b]
                let end = e[b + 1]
                var acc = SIMD8<Float>()
                let bytes = UnsafeRawPointer(raw)
                while k + 4 <= end {
                    let v = bytes.loadUnaligned(fromByteOffset: 8 * k, as: SIMD8<Float>.self)
                    acc += v * v
                    k += 4
                }
                var s = acc.sum()
                while k < end {
                    let re = raw[2 * k], im = raw[2 * k + 1]
                    s += re * re + im * im
                    k += 1
                }
                var sum = Double(s)
                if e[b] == 0 { sum -= 0.5 * Double(raw[0] * raw[0] + raw[1] * raw[1]) }
                if e[b + 1] > nyquist {
                    sum -= 0.5 * Double(raw[2 * nyquist] * raw[2 * nyquist] + raw[2 * nyquist + 1] * raw[2 * nyquist + 1])
                }
                sums[b] = sum
            }
        }
    }

    public func powerSpectrum(_ samples: UnsafePointer<Float>, into power: UnsafeMutablePointer<Double>) {
        input.update(from: samples, count: size)
        fftwf_execute(plan)
        let raw = UnsafeMutableRawPointer(output).assumingMemoryBound(to: Float.self)
        for k in 0...(size / 2) {
            let re = Double(raw[2 * k]), im = Double(raw[2 * k + 1])
            power[k] = re * re + im * im
        }
    }
}
