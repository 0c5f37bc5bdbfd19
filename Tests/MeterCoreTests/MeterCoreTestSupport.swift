import Foundation
@testable import MeterCore
import TestSupport

// What only the MeterCore tests share; the RNG, the recording sink and the dB helper are
// TestSupport's.

/// Interleaved samples served in blocks of a chosen size (to exercise odd block boundaries).
final class ArraySource: SampleBlockSource {
    let rate: Int
    let channels: Int
    let name = "test"
    let samples: [Float]
    var blockSizes: [Int]
    var expectedFrames: Int? { samples.count / channels }
    private var frame = 0
    private var call = 0

    init(rate: Int, channels: Int, samples: [Float], blockSizes: [Int] = [16384]) {
        precondition(samples.count % channels == 0)
        self.rate = rate
        self.channels = channels
        self.samples = samples
        self.blockSizes = blockSizes
    }

    func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        let total = samples.count / channels
        let want = min(maxFrames, blockSizes[call % blockSizes.count], total - frame)
        call += 1
        guard want > 0 else { return 0 }
        samples.withUnsafeBufferPointer { src in
            buffer.update(from: src.baseAddress! + frame * channels, count: want * channels)
        }
        frame += want
        return want
    }
}

/// A plain iterative radix-2 FFT in Double: the reference `PowerSpectrumTransform` of the tests
/// (no FFTW in MeterCore). Checked against a naive O(n^2) DFT in SpectrumAnalyzerTests.
final class ReferenceFFT: PowerSpectrumTransform {
    let size: Int
    private var re: [Double]
    private var im: [Double]
    private let cosTable: [Double]
    private let sinTable: [Double]
    private let bitReversed: [Int]

    init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0)
        self.size = size
        re = Array(repeating: 0, count: size)
        im = Array(repeating: 0, count: size)
        cosTable = (0..<size / 2).map { cos(2 * Double.pi * Double($0) / Double(size)) }
        sinTable = (0..<size / 2).map { sin(2 * Double.pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        bitReversed = (0..<size).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    func powerSpectrum(_ input: UnsafePointer<Float>, into power: UnsafeMutablePointer<Double>) {
        let n = size
        for i in 0..<n {
            re[bitReversed[i]] = Double(input[i])
            im[bitReversed[i]] = 0
        }
        var len = 2
        while len <= n {
            let half = len / 2
            let step = n / len
            var start = 0
            while start < n {
                for j in 0..<half {
                    // twiddle e^{-2 pi i j / len}
                    let wr = cosTable[j * step], wi = -sinTable[j * step]
                    let a = start + j, b = a + half
                    let tr = re[b] * wr - im[b] * wi
                    let ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] += tr
                    im[a] += ti
                }
                start += len
            }
            len *= 2
        }
        for k in 0...(n / 2) { power[k] = re[k] * re[k] + im[k] * im[k] }
    }
}

/// |X[k]|^2 by the definition, O(n^2): the check on `ReferenceFFT`.
func naiveDFTPower(_ x: [Float]) -> [Double] {
    let n = x.count
    return (0...(n / 2)).map { k in
        var sr = 0.0, si = 0.0
        for j in 0..<n {
            let a = -2 * Double.pi * Double((k * j) % n) / Double(n)
            sr += Double(x[j]) * cos(a)
            si += Double(x[j]) * sin(a)
        }
        return sr * sr + si * si
    }
}
