// Fuzzes file decoding: the input (mutated WAV/FLAC/Ogg/MP3 seeds) is written to a file in
// /dev/shm, then opened with SoundFileReader and run through the meter and the waveform.
// It must decode or fail with a PulsemeterError; every dB value finite and >= -160.
import Glibc
import MeterCore
import MeterIO

final class CheckingSink: FrameSink {
    func check(_ values: [Double]) {
        for v in values where !(v.isFinite && v >= Decibels.floor) { fatalError("bad dB value \(v)") }
    }
    func start(_ info: StreamInfo) throws {}
    func frame(_ f: MeterFrame) throws { check(f.rmsDb); check(f.peakDb) }
    func end(_ s: StreamSummary) throws { check(s.rmsDb); check(s.peakDb) }
}

let path = "/dev/shm/pulsemeter-fuzz-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    do {
        let reader = try SoundFileReader(path: path)
        guard reader.declaredFrames < 5_000_000 else { return 0 }  // keep each run short
        let settings = MeterSettings(rate: reader.rate, channels: reader.channels)
        let pipeline = try MeterPipeline(settings: settings)
        try pipeline.run(source: reader, sink: CheckingSink())
    } catch is PulsemeterError {
    } catch {
        fatalError("unexpected error type \(error)")
    }
    return 0
}

// SwiftPM links executables with main renamed to FuzzSoundFile_main; hand control to libFuzzer's
// driver from there (LLVMFuzzerRunDriver), with LLVMFuzzerTestOneInput as the callback.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@_cdecl("FuzzSoundFile_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzz(data, size) })
}
