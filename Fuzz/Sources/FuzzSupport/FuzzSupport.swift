// What the three harnesses share: the hand-over to libFuzzer's driver, and a sink that checks
// every dB value the pipeline emits.
import MeterCore

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

/// Runs libFuzzer (`LLVMFuzzerRunDriver`) with `callback` as the test function. SwiftPM links
/// each executable with main renamed to TARGET_main; each harness defines that and calls this.
public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}

/// Traps on any dB value that is not finite or below the -160 floor.
public final class CheckingSink: FrameSink {
    public init() {}
    func check(_ values: [Double]) {
        for v in values where !(v.isFinite && v >= Decibels.floor) { fatalError("bad dB value \(v)") }
    }
    public func start(_ info: StreamInfo) throws {}
    public func frame(_ f: MeterFrame) throws {
        check(f.rmsDb)
        check(f.peakDb)
        check(f.bandsDb ?? [])
    }
    public func gap(_ gap: StreamGap) throws {}
    public func device(_ change: DeviceChange) throws {}
    public func file(_ event: RecordingFileEvent) throws {}
    public func end(_ s: StreamSummary) throws {
        check(s.rmsDb)
        check(s.peakDb)
    }
}
