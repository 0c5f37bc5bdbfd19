import Testing
@testable import MeterCore

/// RFC 4180: CRLF after every row; a field with a comma, quote, CR or LF quoted, its quotes doubled.
@Suite struct CSVWriterTests {
    @Test func quotesOnlyWhatNeedsIt() {
        let w = CSVWriter()
        let row = String(decoding: w.row(["a", "b,c", "say \"hi\"", "line\nbreak", "cr\r", "", "é"]), as: UTF8.self)
        #expect(row == "a,\"b,c\",\"say \"\"hi\"\"\",\"line\nbreak\",\"cr\r\",,é\r\n")
    }

    @Test func numbersAreWrittenAsTheNDJSONLinesWriteThem() {
        let w = CSVWriter()
        #expect(w.number(-20, decimals: 2) == "-20.0")
        #expect(w.number(-23.0149, decimals: 2) == "-23.01")
        #expect(w.number(-0.001, decimals: 2) == "0.0")
    }
}
