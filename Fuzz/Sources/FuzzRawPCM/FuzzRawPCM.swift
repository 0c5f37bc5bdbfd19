// Fuzzes RawPCMReader + the meter pipeline: byte 0 picks the layout, byte 1 the channel
// count, the rest is PCM fed through a pipe. Every dB value must be finite and >= -160.
import Glibc
import FuzzSupport
import MeterCore
import MeterIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2, size <= 60_000 else { return 0 }
    let format = RawSampleFormat.allCases[Int(data[0]) % 4]
    let channels = Int(data[1]) % 8 + 1
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return 0 }
    _ = write(fds[1], data + 2, size - 2)  // fits the 64 KiB pipe buffer
    close(fds[1])
    defer { close(fds[0]) }
    let reader = RawPCMReader(fd: fds[0], format: format, rate: 8000, channels: channels)
    let settings = MeterSettings(rate: 8000, channels: channels, fps: 100, windowMs: 10, bands: 4, fftSize: 64, fmin: 100)
    guard let valid = try? ValidSettings(settings) else { fatalError("valid settings rejected") }
    let pipeline = MeterPipeline(settings: valid, transform: FFTWPowerSpectrum(size: 64))
    _ = try? pipeline.run(source: reader, sink: CheckingSink(), blockFrames: 97)
    return 0
}

@_cdecl("FuzzRawPCM_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
