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

    /// Whether the output `open` gives is a terminal, known before it is opened (a run that
    /// writes for a person there decides its work by it): stdout's; a file `-o` creates is
    /// never one.
    static func isTerminal(_ a: ParsedArguments) -> Bool {
        if let path = a.path("output"), !path.isDash { return false }
        return Terminal.isTerminal(1)
    }
}
