import Foundation
import Testing
import TestSupport

/// `--report PATH` (issue 42 part 2, CONTRACT.md "Pictures: history and reports"): the page
/// read back from the DOM headless Chromium rendered, checked against the run's own NDJSON.
@Suite struct ReportCLITests {
    /// 8 kHz mono: a 440 Hz sine at -6 dBFS, 2.5 s of digital silence from 2 s, full-scale
    /// samples at 5.2 s (a clip), 6.5 s in all: a silence, a clip and levels that move.
    static func fixture(_ dir: TempDir) throws -> String {
        let rate = 8000
        let samples = (0..<(rate * 13 / 2)).map { i -> Double in
            let t = Double(i) / Double(rate)
            if t >= 2 && t < 4.5 { return 0 }
            if i >= rate * 52 / 10 && i < rate * 52 / 10 + 8 { return 1 }
            return 0.5 * sin(2 * Double.pi * 440 * t) * (t < 2 ? 1 : 0.5)
        }
        return try dir.write(TestAudio(rate: rate, channels: 1, encoding: .s16, doubles: samples).wavBytes, "tone.wav")
    }

    /// The raw text of `key`'s value on an NDJSON line: a scalar as printed, an array of
    /// scalars as its items separated by spaces (a report's cell).
    static func printed(_ key: String, in line: String) -> String? {
        guard let m = HeadlessChromium.matches("\"\(key)\":(\\[[^\\[\\]{}]*\\]|\"[^\"]*\"|[^,}\\[{]+)", in: line).first else { return nil }
        var v = m[0]
        if v.hasPrefix("[") { v = String(v.dropFirst().dropLast()).split(separator: ",").joined(separator: " ") }
        return v.hasPrefix("\"") ? String(v.dropFirst().dropLast()) : v
    }

    /// The value at a report row's key (`a`, `a.b`, `a[1].b`) in a parsed line.
    static func value(at key: String, in object: Any) -> Any? {
        var current: Any? = object
        for part in key.split(separator: ".") {
            var name = Substring(part)
            var index: Int?
            if let open = part.firstIndex(of: "[") {
                name = part[..<open]
                index = Int(part[part.index(after: open)...].dropLast())
            }
            current = (current as? [String: Any])?[String(name)]
            if let index { current = (current as? [Any]).flatMap { index < $0.count ? $0[index] : nil } }
        }
        return current
    }

    /// The leaves of a parsed line as report keys (scalar arrays one key).
    static func keys(_ v: Any, _ prefix: String = "") -> [String] {
        if let o = v as? [String: Any] {
            return o.keys.flatMap { keys(o[$0]!, prefix.isEmpty ? $0 : prefix + "." + $0) }
        }
        if let a = v as? [Any], a.contains(where: { $0 is [String: Any] || $0 is [Any] }) {
            return a.indices.flatMap { keys(a[$0], prefix + "[\($0)]") }
        }
        return [prefix]
    }

    @Test("a file's report: the figures are the end line's, a curve point per frame at its level, markers at the events, no request")
    func fileReport() throws {
        let dir = try TempDir()
        let input = try Self.fixture(dir)
        let page = dir.path("R.html")
        let r = try Tool.run(["analyze", input, "--loudness", "--events", "--bands", "16", "--target", "-23", "--tolerance", "1",
                              "--report", page])
        #expect(r.status == 1, "the -6 dBFS tone fails -23 LUFS: \(r.err)")  // the verdict's exit status
        let lines = r.out.split(separator: "\n").map(String.init)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let endText = try #require(lines.last)
        let end = try #require(objects.last)
        let frames = objects.filter { $0["type"] as? String == "frame" }
        let events = objects.filter { $0["type"] as? String == "event" }
        #expect(Set(events.compactMap { $0["event"] as? String }) == ["silence_start", "silence_end", "clip"])

        let rendered = try HeadlessChromium.render(page)
        let dom = rendered.dom
        #expect(!rendered.console.contains("Content Security Policy"), "no outside reference was blocked: \(rendered.console)")
        #expect(rendered.pageRequests.isEmpty, "the page requested \(rendered.pageRequests)")

        // The figures: one row per leaf of the end line, each value its printed text.
        let rows = HeadlessChromium.matches("<tr data-key=\"([^\"]+)\"><th>[^<]*</th><td>(.*?)</td></tr>",
                                            in: try #require(dom.components(separatedBy: "<table class=\"figures\">").last))
        let table = Dictionary(uniqueKeysWithValues: rows.map { row in
            (row[0], HeadlessChromium.matches("<span>([^<]*)</span>", in: row[1]).map { $0[0] })
        })
        #expect(Set(table.keys) == Set(Self.keys(end)).subtracting(["type"]))
        for (key, cells) in table {
            if !key.contains(".") && !key.contains("[") {
                #expect(cells.joined(separator: " ") == Self.printed(key, in: endText), "\(key) as the end line prints it")
            }
            let v = try #require(Self.value(at: key, in: end), "\(key) is on the end line")
            let expected = (v as? [Any]) ?? [v]
            #expect(cells.count == expected.count, "\(key)")
            for (cell, e) in zip(cells, expected) {
                if cell == "true" || cell == "false" {
                    #expect((e as? Bool) == (cell == "true"), "\(key)")
                } else if let n = Double(cell) {
                    #expect((e as? NSNumber)?.doubleValue == n, "\(key): \(cell) vs \(e)")
                } else {
                    #expect(cell == "\(e)", "\(key)")
                }
            }
        }
        #expect(dom.contains("class=\"verdict fail\""), "the verdict's FAIL line")

        // The RMS curve: one point per frame (fewer frames than buckets), each at its frame's
        // time and level on the chart's own mapping, within a pixel.
        let svg = try #require(HeadlessChromium.matches("(<svg[^>]*class=\"timeline\".*?</svg>)", in: dom).first?[0])
        let head = try #require(HeadlessChromium.matches("(<svg[^>]*>)", in: svg).first?[0])
        func number(_ name: String) throws -> Double { try #require(Double(HeadlessChromium.attribute(name, in: head) ?? "")) }
        let (left, right, top, bottom) = (try number("data-left"), try number("data-right"), try number("data-top"), try number("data-bottom"))
        let (seconds, dbTop, dbBottom) = (try number("data-seconds"), try number("data-db-top"), try number("data-db-bottom"))
        #expect(abs(seconds - Tool.double(end["duration"])!) < 1e-9)
        func x(_ t: Double) -> Double { left + t / seconds * (right - left) }
        func y(_ db: Double) -> Double { top + (dbTop - min(max(db, dbBottom), dbTop)) / (dbTop - dbBottom) * (bottom - top) }
        let d = try #require(HeadlessChromium.matches("<path class=\"curve\" data-series=\"RMS mono\" d=\"([^\"]*)\"", in: svg).first?[0])
        let points = HeadlessChromium.matches("[ML]([-0-9.]+),([-0-9.]+)", in: d).map { (Double($0[0])!, Double($0[1])!) }
        #expect(points.count == frames.count, "one point per frame")
        var worst = 0.0
        for (p, f) in zip(points, frames) {
            let rms = Tool.doubles(f["rms_db"])[0]
            worst = max(worst, abs(p.0 - x(Tool.double(f["t"])!)), abs(p.1 - y(rms)))
        }
        #expect(worst <= 1, "points within a pixel of their frames (worst \(worst) px)")

        // A marker per event at its time.
        let marks = HeadlessChromium.matches("<line class=\"event [^\"]*\" data-event=\"([^\"]+)\" data-t=\"[^\"]*\" x1=\"([^\"]+)\"", in: svg)
        for e in events {
            let kind = e["event"] as! String, t = Tool.double(e["t"])!
            #expect(marks.contains { $0[0] == kind && abs(Double($0[1])! - x(t)) <= 1 }, "\(kind) at \(t) s")
        }
        #expect(dom.contains("Mean spectrum") && dom.contains("class=\"bar\""), "the mean spectrum's bars")
    }

    @Test("--spl --octaves 3: the sound level and Leq timeline, and a bar per band at its end-line level")
    func soundLevelAndOctaves() throws {
        let dir = try TempDir()
        let input = try Self.fixture(dir)
        let page = dir.path("R.html")
        let r = try Tool.run(["analyze", input, "--spl", "--octaves", "3", "--report", page, "-f", "ndjson"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let (first, last) = (try #require(lines.first), try #require(lines.last))
        let end = try #require(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let start = try #require(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let dom = try HeadlessChromium.render(page).dom
        let unit = try #require(start["spl_unit"] as? String)
        #expect(dom.contains("data-series=\"\(unit) mono\"") && dom.contains("data-series=\"Leq mono\""))
        let svg = try #require(HeadlessChromium.matches("(<svg[^>]*class=\"bars\".*?</svg>)", in: dom).first?[0])
        let head = try #require(HeadlessChromium.matches("(<svg[^>]*>)", in: svg).first?[0])
        func number(_ name: String) throws -> Double { try #require(Double(HeadlessChromium.attribute(name, in: head) ?? "")) }
        let (top, bottom, dbTop, dbBottom) = (try number("data-top"), try number("data-bottom"), try number("data-db-top"), try number("data-db-bottom"))
        let bars = HeadlessChromium.matches("<rect class=\"bar\" data-db=\"[^\"]*\" x=\"[^\"]*\" y=\"([^\"]+)\"", in: svg).map { Double($0[0])! }
        let bands = Tool.doubles(end["bands_db"])
        #expect(bars.count == bands.count && bands.count == (start["bands_hz"] as? [Any])?.count)
        for (y, db) in zip(bars, bands) {
            let expected = top + (dbTop - min(max(db, dbBottom), dbTop)) / (dbTop - dbBottom) * (bottom - top)
            #expect(abs(y - expected) <= 1, "band at \(db) dB drawn at \(y), expected \(expected)")
        }
        // The frequency axis: labels (thinned to fit) at band midbands, in Hz or kHz, and its unit.
        let mids = ((start["bands_hz"] as? [[Double]]) ?? []).map { $0[1] }
        let ticks = HeadlessChromium.matches("<text class=\"tick\" x=\"[^\"]*\" y=\"[^\"]*\" text-anchor=\"middle\">([0-9.]+k?)</text>", in: svg)
            .map { $0[0].hasSuffix("k") ? Double($0[0].dropLast())! * 1000 : Double($0[0])! }
        #expect(ticks.count >= 5 && ticks.allSatisfy { f in mids.contains { abs($0 - f) <= 0.01 * $0 } }, "\(ticks)")
        #expect(svg.contains(">Hz</text>"))
    }

    @Test("an existing report is left as it is without --force (73), replaced with it")
    func existingReport() throws {
        let dir = try TempDir()
        let input = try Self.fixture(dir)
        let page = try dir.write(Array("keep me".utf8), "R.html")
        let r = try Tool.run(["analyze", input, "--report", page])
        Tool.expectError(r, 73, mentions: ["R.html", "--force"])
        #expect(try String(contentsOfFile: page, encoding: .utf8) == "keep me")
        let forced = try Tool.run(["analyze", input, "--report", page, "--force"])
        #expect(forced.status == 0, "\(forced.err)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("")).sorted() == ["R.html", "tone.wav"],
                "nothing left beside it")
        Tool.expectError(try Tool.run(["analyze", input, "--force"]), 64, mentions: ["--report"])
    }

    @Test("200 files: index.html has a row per file with its end line's figures, linking to its page")
    func manyFiles() throws {
        let dir = try TempDir()
        let files = try (0..<200).map { i in
            try TestAudio.make(rate: 8000, channels: 1 + i % 2, seconds: 0.2 + Double(i % 7) * 0.05, encoding: .s16, seed: UInt64(i))
                .write(to: dir, name: "f\(i)")
        }
        let out = dir.path("out") + "/"
        let r = try Tool.run(["analyze", "-j", "2", "--loudness", "--report", out] + files)
        #expect(r.status == 0, "\(r.err)")
        let ends = r.out.split(separator: "\n").map(String.init)
        #expect(ends.count == 200)
        let index = try String(contentsOfFile: out + "index.html", encoding: .utf8)
        let keys = HeadlessChromium.matches("<th data-key=\"([^\"]+)\">", in: index).map { $0[0] }
        let rows = HeadlessChromium.matches("<tr><td class=\"name\"><a href=\"([^\"]+)\">([^<]*)</a></td>(.*?)</tr>", in: index)
        #expect(rows.count == 200)
        for (row, line) in zip(rows, ends) {
            let cells = HeadlessChromium.matches("<td>([^<]*)</td>", in: row[2]).map { $0[0] }
            #expect(Self.printed("file", in: line) == row[1])
            for (key, cell) in zip(keys.dropFirst(), cells) {
                #expect(cell == (Self.printed(key, in: line) ?? ""), "\(row[1]) \(key)")
            }
            #expect(FileManager.default.fileExists(atPath: out + row[0]), "\(row[0]) is there")
        }
        let pages = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".html") }
        #expect(pages.count == 201)

        // Its inline script sorts: a copy that clicks the lufs_i heading twice (descending)
        // renders its rows loudest first.
        let column = try #require(keys.firstIndex(of: "lufs_i"))
        let clicked = index.replacingOccurrences(of: "</body>", with:
            "<script>const h = document.querySelectorAll('#files th')[\(column)]; h.click(); h.click();</script></body>")
        let copy = try dir.write(Array(clicked.utf8), "sorted.html")
        let sorted = HeadlessChromium.matches("<tr><td class=\"name\">(.*?)</tr>", in: try HeadlessChromium.render(copy).dom)
            .map { HeadlessChromium.matches("<td>([^<]*)</td>", in: $0[0]).map { $0[0] } }
        let loudness = sorted.compactMap { Double($0[column - 1]) }
        let listed = rows.compactMap { Double(HeadlessChromium.matches("<td>([^<]*)</td>", in: $0[2])[column - 1][0]) }
        #expect(listed != listed.sorted(by: >), "the run's order is not already that order")
        #expect(loudness.count == 200 && loudness == loudness.sorted(by: >), "sorted by lufs_i, descending")
    }
}
