@testable import MeterCore
import Testing

/// Microphone calibration files in the shape they ship in: a quoted `Sens Factor` header,
/// tab- or space-separated rows (a phase column too), comments, CRLF line ends.
@Suite struct MicCalibrationTests {
    @Test func readsAShippedFile() throws {
        let text = "\"Sens Factor =-1.378dB, SERNO: 7001234\"\r\n* a comment\r\n10.054\t-1.64\r\n"
            + "100 0.5 12.0\r\n\r\n1000, 0.0\r\n10000  2.0\r\n"
        let cal = try MicCalibration.parse(Array(text.utf8))
        #expect(cal.sensitivityDb == -1.378)
        #expect(cal.frequencies == [10.054, 100, 1000, 10000])
        #expect(cal.responseDb == [-1.64, 0.5, 0.0, 2.0])
        // Linear in log frequency between rows, flat beyond them.
        #expect(abs(cal.response(atHz: 3162.2776601683795) - 1.0) < 1e-9)
        #expect(abs(cal.response(atHz: 316.22776601683796) - 0.25) < 1e-9)
        #expect(cal.response(atHz: 5) == -1.64 && cal.response(atHz: 20000) == 2.0)
        #expect(cal.bandCorrections([(1000, 10000)]) == [-cal.response(atHz: 3162.2776601683795)])
        let sensOnly = try MicCalibration.parse(Array("Sens Factor = 0.7 dB\n".utf8))
        #expect(sensOnly.sensitivityDb == 0.7 && sensOnly.frequencies.isEmpty)
    }

    @Test(arguments: [
        ("100 0\n200 x\n", 2),
        ("\"Sens Factor =abc\"\n100 0\n", 1),
        ("100 0\n50 1\n", 2),
        ("100 0\n200 0\n\"Sens Factor =1dB\"\n", 3),
        ("100\n", 1),
        ("0 1\n", 1),
        ("", 1),
    ])
    func badFilesNameTheLine(text: String, line: Int) {
        #expect(throws: MicCalibration.ParseError.self) { try MicCalibration.parse(Array(text.utf8)) }
        do {
            _ = try MicCalibration.parse(Array(text.utf8))
        } catch {
            #expect(error.line == line, "\(text.debugDescription): \(error.reason)")
        }
    }
}
