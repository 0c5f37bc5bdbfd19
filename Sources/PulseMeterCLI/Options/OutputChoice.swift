import MeterCore
import MeterIO

/// `-o PATH` or stdout.
enum OutputChoice {
    static func open(_ a: ParsedArguments) throws(OutputError) -> FileDescriptorOutput {
        if let path = a.path("output"), !path.isDash {
            return try FileDescriptorOutput.create(path: path)
        }
        return .standardOutput
    }
}
