import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// `waveform --format svg`: a valid XML document of N rounded bars whose heights
/// follow `levels`, inside the given height, vertically centred, self-contained.
@Suite struct SVGWaveformTests {
    final class Collector: NSObject, XMLParserDelegate {
        var root: [String: String] = [:]
        var rects: [[String: String]] = []
        var elements: [String] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String]) {
            elements.append(name)
            if name == "svg" { root = attributes }
            if name == "rect" { rects.append(attributes) }
        }
    }

    static func parse(_ text: String) throws -> Collector {
        let parser = XMLParser(data: Data(text.utf8))
        let c = Collector()
        parser.delegate = c
        #expect(parser.parse(), "SVG is not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        return c
    }

    @Test(arguments: [1, 7, 48, 300])
    func barsFollowLevels(bars: Int) throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 16000, channels: 1, seconds: 1.5, encoding: .s16, silenceFrom: 1.0)
        let path = try audio.write(to: dir, name: "voice")
        let json = try JSONSerialization.jsonObject(with: Data(
            try Tool.run(["waveform", path, "--bars", "\(bars)"]).out.utf8)) as! [String: Any]
        let levels = json["levels"] as! [Double]
        let svg = try Tool.run(["waveform", path, "--bars", "\(bars)", "--format", "svg",
                                "--width", "480", "--height", "64", "--played", "0.5",
                                "--color", "#aabbcc", "--played-color", "rgb(1,2,3)"])
        #expect(svg.status == 0)
        let doc = try Self.parse(svg.out)
        #expect(Set(doc.elements) == ["svg", "rect"], "only bars, no scripts or references")
        #expect(doc.root["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(Double(doc.root["width"] ?? "") == 480 && Double(doc.root["height"] ?? "") == 64)
        #expect(doc.rects.count == bars)
        let widths = doc.rects.map { Double($0["width"]!)! }
        let minHeight = min(64, widths[0])
        for (i, r) in doc.rects.enumerated() {
            let y = Double(r["y"]!)!, h = Double(r["height"]!)!
            #expect(y >= 0 && y + h <= 64 + 1e-6, "bar \(i) leaves the box")
            #expect(abs((y + h / 2) - 32) < 0.01, "bar \(i) is not centred")
            #expect(abs(h - max(minHeight, levels[i] * 64)) < 0.01, "bar \(i) height \(h) vs level \(levels[i])")
            #expect(Double(r["rx"]!)! > 0, "bars are rounded")
            let played = i < bars / 2
            #expect(r["fill"] == (played ? "rgb(1,2,3)" : "#aabbcc"), "bar \(i) colour")
        }
        // The silent last third still shows a dot.
        if bars >= 3 { #expect(Double(doc.rects.last!["height"]!)! > 0) }
        #expect(!svg.out.contains("href") && !svg.out.contains("<script"))
    }

    @Test func colourCannotBreakOutOfTheAttribute() throws {
        let dir = try TempDir()
        let path = try TestAudio.make(rate: 8000, channels: 1, seconds: 0.2, encoding: .s16).write(to: dir, name: "a")
        let r = try Tool.run(["waveform", path, "--format", "svg", "--color", "red\"/><script>"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("pulsemeter: --color"))
    }
}
