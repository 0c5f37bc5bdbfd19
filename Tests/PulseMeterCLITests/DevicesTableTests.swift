@testable import MeterIO
@testable import PulseMeterCLI
import Testing

/// `pulsemeter devices`: no two rows carry the same number (sources and sinks are numbered by
/// the server in two series), and the legend explains `*` only when a row has one.
@Suite struct DevicesTableTests {
    static func device(_ index: Int, _ name: String, sink: Bool = false, monitorOf: String? = nil, isDefault: Bool = false) -> PulseDevice {
        PulseDevice(index: index, name: name, description: "d \(name)", rate: 48000, channels: 2, sampleFormat: "s16le",
                    monitorOf: monitorOf, isDefault: isDefault, isSink: sink)
    }

    /// The `#` column of each device row.
    static func numbers(_ table: String) -> [String] {
        table.split(separator: "\n").dropFirst(2).dropLast().map { row in
            String(row.dropFirst(1).split(separator: " ").first ?? "")
        }
    }

    @Test func sourcesAndSinksNeverShareANumber() {
        let list = [Self.device(0, "vsink.monitor", monitorOf: "vsink", isDefault: true), Self.device(1, "pipesrc"),
                    Self.device(0, "vsink", sink: true, isDefault: true), Self.device(1, "other", sink: true)]
        let table = LiveCommands.table(list, server: "PulseAudio 16.1")
        let numbers = Self.numbers(table)
        #expect(numbers == ["0", "1", "-", "-"], "\(table)")
        #expect(table.hasSuffix("* the default; -d takes a source's NAME or #; play -d takes a sink's NAME\n"), "\(table)")
        let rows = table.split(separator: "\n")
        #expect(rows[4].hasPrefix("*  -  vsink ") && rows[2].hasPrefix("*  0  vsink.monitor"), "\(table)")
    }

    @Test func theLegendExplainsTheMarkOnlyWhenARowHasIt() {
        let table = LiveCommands.table([Self.device(3, "mic"), Self.device(4, "line")], server: "PulseAudio (on PipeWire 0.3.65)")
        #expect(!table.contains("*"), "\(table)")
        #expect(table.hasSuffix("\n-d takes a source's NAME or #\n"), "\(table)")
        #expect(Self.numbers(table) == ["3", "4"])
    }
}
