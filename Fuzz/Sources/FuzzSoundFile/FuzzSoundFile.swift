// Fuzzes file decoding: the input (mutated WAV/FLAC/Ogg/MP3 seeds) is written to a file in
// /dev/shm, then opened with SoundFileReader and run through the meter and the waveform.
// It must decode or fail with a typed error (InputError, SettingError); every dB value finite and >= -160.
import Glibc
import FuzzSupport
import MeterCore
import MeterIO


let path = "/dev/shm/pulsemeter-fuzz-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    do {
        let reader = try SoundFileReader(path: FilePath(path))
        guard reader.declaredFrames < 5_000_000 else { return 0 }  // keep each run short
        let settings = MeterSettings(rate: reader.rate, channels: reader.channels)
        let pipeline = MeterPipeline(settings: try ValidSettings(settings))
        try pipeline.run(source: reader, sink: CheckingSink())
    } catch is InputError {
    } catch is SettingError {
    } catch {
        fatalError("unexpected error type \(error)")
    }
    return 0
}

@_cdecl("FuzzSoundFile_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
