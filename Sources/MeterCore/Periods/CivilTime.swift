/// Unix time as a local calendar date and time of day, and RFC 3339 text both ways, without
/// the OS: the offset from UTC is given (`UTCOffsets`), so the arithmetic is testable anywhere.
/// Days from the civil date follow H. Hinnant's `days_from_civil` (proleptic Gregorian).
public enum CivilTime {
    public struct Date: Sendable, Equatable, Hashable {
        public var year: Int, month: Int, day: Int
        public init(year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }

        /// `2026-12-04`.
        public var text: String { "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }
    }

    /// Days since 1970-01-01 of a civil date.
    public static func days(from d: Date) -> Int {
        let y = d.month <= 2 ? d.year - 1 : d.year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (d.month + 9) % 12
        let doy = (153 * mp + 2) / 5 + d.day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The civil date `days` days after 1970-01-01.
    public static func date(days: Int) -> Date {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return Date(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    /// `2026-12-04T21:15:00+01:00` (milliseconds shown only when not whole, `Z` for UTC
    /// written as `+00:00`) of Unix time `unix` at `offset` seconds east of UTC.
    public static func rfc3339(_ unix: Double, offset: Int) -> String {
        let millis = Int((unix * 1000).rounded()) + offset * 1000
        let seconds = floorDiv(millis, 1000), ms = millis - seconds * 1000
        let day = floorDiv(seconds, 86400), s = seconds - day * 86400
        var text = date(days: day).text + "T\(pad(s / 3600, 2)):\(pad(s / 60 % 60, 2)):\(pad(s % 60, 2))"
        if ms != 0 { text += "." + pad(ms, 3) }
        let a = abs(offset)
        return text + (offset < 0 ? "-" : "+") + pad(a / 3600, 2) + ":" + pad(a / 60 % 60, 2)
    }

    /// An RFC 3339 date-time (`2026-12-04T10:07:00+01:00`, `...Z`, a fraction, `t`/`z` and a
    /// space for the `T` too): its Unix time and its offset east of UTC; nil when it is not one.
    public static func parse(_ text: String) -> (unix: Double, offset: Int)? {
        let b = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for c in b[from..<from + count] {
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        func at(_ i: Int, _ chars: String) -> Bool { i < b.count && chars.utf8.contains(b[i]) }
        guard let y = number(0, 4), at(4, "-"), let mo = number(5, 2), at(7, "-"), let d = number(8, 2),
              at(10, "Tt "), let h = number(11, 2), at(13, ":"), let mi = number(14, 2), at(16, ":"),
              let s = number(17, 2),
              (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if at(i, ".") {
            i += 1
            var scale = 0.1
            let first = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > first else { return nil }
        }
        let offset: Int
        if at(i, "Zz") && i + 1 == b.count {
            offset = 0
        } else if at(i, "+-"), let oh = number(i + 1, 2), at(i + 3, ":"), let om = number(i + 4, 2),
                  i + 6 == b.count, oh < 24, om < 60 {
            offset = (b[i] == UInt8(ascii: "-") ? -1 : 1) * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        let local = days(from: Date(year: y, month: mo, day: d)) * 86400 + h * 3600 + mi * 60 + s
        return (Double(local - offset) + fraction, offset)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

private func pad(_ v: Int, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}
