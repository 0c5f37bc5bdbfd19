/// A measurement microphone's calibration file, as such microphones ship them (and REW reads
/// them): an optional header line `"Sens Factor =XdB, ..."` (quoted or not), then rows of
/// `frequency dB` (a third column, the phase, is ignored), separated by spaces, tabs or
/// commas; blank lines and lines starting with `*` or `#` are comments.
///
/// Both figures are the microphone's deviation, so both are subtracted: the sensitivity
/// factor from every sound level, the response (interpolated linearly in log frequency,
/// held flat beyond the first and last rows) from each band level at its centre.
public struct MicCalibration: Sendable, Equatable {
    /// The `Sens Factor` in dB; 0 when the file has none.
    public var sensitivityDb: Double
    /// Frequencies in Hz, strictly increasing, and the response there in dB.
    public var frequencies: [Double]
    public var responseDb: [Double]

    /// What is wrong with a file, and on which line (1-based).
    public struct ParseError: Error, Equatable, Sendable {
        public let line: Int
        public let reason: String
    }

    public init(sensitivityDb: Double = 0, frequencies: [Double] = [], responseDb: [Double] = []) {
        self.sensitivityDb = sensitivityDb
        self.frequencies = frequencies
        self.responseDb = responseDb
    }

    /// Parses the file's bytes (UTF-8 or ASCII; CRLF line ends are fine).
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> MicCalibration {
        var cal = MicCalibration()
        var sawHeader = false
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let text = String(decoding: raw, as: UTF8.self)
            let line = text.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("*") || line.hasPrefix("#") { continue }
            let lower = line.lowercased()
            if let range = lower.firstRange(of: "sens factor") {
                guard cal.frequencies.isEmpty else {
                    throw ParseError(line: number, reason: "the Sens Factor header comes after the frequency rows")
                }
                var rest = lower[range.upperBound...].drop(while: { $0 == " " || $0 == "=" || $0 == ":" })
                rest = rest.prefix(while: { $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." || $0 == "e" || $0 == "E" })
                guard let v = Double(rest), v.isFinite, abs(v) <= 100 else {
                    throw ParseError(line: number, reason: "the Sens Factor is not a number of dB, as in \"Sens Factor =-1.2dB\"")
                }
                cal.sensitivityDb = v
                sawHeader = true
                continue
            }
            if line.hasPrefix("\"") && cal.frequencies.isEmpty { continue }  // another header line
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == ";" })
            guard fields.count >= 2, let f = Double(fields[0]), let db = Double(fields[1]) else {
                throw ParseError(line: number, reason: "expected a frequency in Hz and a level in dB, found \"\(SafeText.terminal(String(line.prefix(40))))\"")
            }
            guard f.isFinite, f > 0, f < 1e6 else {
                throw ParseError(line: number, reason: "the frequency \(fields[0]) is not a frequency in Hz above 0")
            }
            guard db.isFinite, abs(db) <= 100 else {
                throw ParseError(line: number, reason: "the level \(fields[1]) is not a level in dB from -100 to 100")
            }
            if let last = cal.frequencies.last, f <= last {
                throw ParseError(line: number, reason: "the frequencies must increase (\(fields[0]) Hz comes after \(last) Hz)")
            }
            cal.frequencies.append(f)
            cal.responseDb.append(db)
        }
        guard sawHeader || !cal.frequencies.isEmpty else {
            throw ParseError(line: max(1, lines.count), reason: "no Sens Factor header and no frequency rows")
        }
        return cal
    }

    /// The response at `hz`, interpolated linearly in log frequency; 0 without rows.
    public func response(atHz hz: Double) -> Double {
        guard let first = frequencies.first, let last = frequencies.last else { return 0 }
        if hz <= first { return responseDb[0] }
        if hz >= last { return responseDb[responseDb.count - 1] }
        var hi = 1
        while frequencies[hi] < hz { hi += 1 }
        let lo = hi - 1
        let t = PureMath.log(hz / frequencies[lo]) / PureMath.log(frequencies[hi] / frequencies[lo])
        return responseDb[lo] + t * (responseDb[hi] - responseDb[lo])
    }

    /// The corrections (dB to add) for bands with these edges, at each band's geometric centre.
    public func bandCorrections(_ edges: [(Double, Double)]) -> [Double] {
        edges.map { -response(atHz: ($0.0 * $0.1).squareRoot()) }
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and carriage returns.
    fileprivate func trimmingWhitespace() -> String {
        let ws: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\u{FEFF}" }
        return String(drop(while: ws).reversed().drop(while: ws).reversed())
    }
}
