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
    private let bandSums: UnsafeMutablePointer<Double>
    private let scale: Double
    /// Per band, the sum of its power over every computed frame (for the stream's mean).
    private var powerTotals: [Double]
    private var levelsComputed = 0
    /// With a calibration: dB added to each band (a microphone's response, subtracted), then
    /// `offsetDb` (`Decibels.calibrated`); nil: neither, the levels are dBFS as measured.
    private let corrections: [Double]?
    private let offsetDb: Double

    /// `micCalibration` and `offsetDb`: the sound level meter's calibration
    /// (`MeterSettings.levelOffsetDb`), which every band level is reported in.
    public init(layout: BandLayout, transform: any PowerSpectrumTransform, micCalibration: MicCalibration? = nil,
                offsetDb: Double = 0) {
        corrections = micCalibration.map { $0.bandCorrections(layout.edgesHz) }
            ?? (offsetDb != 0 ? Array(repeating: 0, count: layout.count) : nil)
        self.offsetDb = offsetDb
        let n = transform.size
        self.layout = layout
        self.fftSize = n
        self.transform = transform
        history = .allocate(capacity: n)
        history.initialize(repeating: 0, count: n)
        window = .allocate(capacity: n)
        var energy: Double = 0
        for i in 0..<n {
            let w = 0.5 - 0.5 * PureMath.cos(2 * Double.pi * Double(i) / Double(n))  // periodic Hann
            window[i] = Float(w)
            energy += Double(Float(w)) * Double(Float(w))
        }
        scratch = .allocate(capacity: n)
        bandSums = .allocate(capacity: max(1, layout.count))
        scale = 2 / (Double(n) * energy)
        powerTotals = Array(repeating: 0, count: layout.count)
    }

    deinit {
        history.deallocate()
        window.deallocate()
        scratch.deallocate()
        bandSums.deallocate()
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

    /// out[i] = a[i] * b[i], eight lanes at a time.
    @inline(__always)
    private static func multiply(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                                 into out: UnsafeMutablePointer<Float>, count n: Int) {
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b), ro = UnsafeMutableRawPointer(out)
        while i + 8 <= n {
            let v = ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            ro.storeBytes(of: v, toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < n {
            out[i] = a[i] * b[i]
            i += 1
        }
    }

    /// Computes the band levels in dB into `bandsDb` (count = layout.count).
    public func bandLevels(into bandsDb: inout [Double]) {
        windowedHistory(into: scratch)
        bandLevels(windowed: scratch, into: &bandsDb)
    }

    /// The last `fftSize` mono samples, oldest first, times the Hann window: the transform's
    /// input.
    private func windowedHistory(into out: UnsafeMutablePointer<Float>) {
        let n = fftSize
        let start = written % n  // oldest sample
        // Unroll the ring oldest-first in two contiguous runs, applying the window.
        let firstRun = n - start
        Self.multiply(history + start, window, into: out, count: firstRun)
        Self.multiply(history, window + firstRun, into: out + firstRun, count: start)
    }

    /// Band levels in dB of an already windowed block (`windowedHistory`).
    private func bandLevels(windowed: UnsafePointer<Float>, into bandsDb: inout [Double]) {
        transform.bandEnergies(windowed, edges: layout.edgeBins, into: bandSums)
        for b in 0..<layout.count {
            let power = bandSums[b] * scale
            powerTotals[b] += power
            bandsDb[b] = Decibels.fromPower(power)
        }
        if let corrections {
            for b in 0..<layout.count {
                bandsDb[b] = Decibels.calibrated(bandsDb[b], offset: offsetDb, correction: corrections[b])
            }
        }
        levelsComputed += 1
    }

    /// Each band's mean power over every frame computed so far, in dB (the whole stream's
    /// spectrum of the `end` line), calibrated as each frame is; the floor when no frame was
    /// computed.
    public var meanBandsDb: [Double] {
        powerTotals.enumerated().map { b, total in
            guard levelsComputed > 0 else { return Decibels.floor + offsetDb }
            let db = Decibels.fromPower(total / Double(levelsComputed))
            guard let corrections else { return db }
            return Decibels.calibrated(db, offset: offsetDb, correction: corrections[b])
        }
    }
}
