// Fuzzes the argument parser and option validation: the input, split at NUL bytes, is a
// command line. It must parse or throw a usage error; never crash.
import FuzzSupport
import MeterCore
import PulseMeterCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let args = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    do {
        try CLI.check(args)
    } catch let e as PulsemeterError {
        if e.kind != .usage || e.message.isEmpty { fatalError("unexpected error \(e)") }
    } catch {
        fatalError("unexpected error type \(error)")
    }
    return 0
}

@_cdecl("FuzzArguments_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
