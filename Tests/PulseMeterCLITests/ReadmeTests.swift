import Foundation
import Testing

/// The README stays a user's document: at most 450 lines, the internals in docs/, and every
/// link in it and in docs/ reaching a file (and a heading, for `#anchor` links) that exists.
@Suite struct ReadmeTests {
    @Test func readmeIsShort() throws {
        let lines = try InstallTests.text("README.md").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 450, "README.md has \(lines.count) lines; move details to docs/")
    }

    /// GitHub's anchor of a heading: lower case, spaces to dashes, punctuation but dashes gone.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }

    static func anchors(_ text: String) -> Set<String> {
        var inFence = false
        var result: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            result.insert(anchor(String(line.drop(while: { $0 == "#" }).dropFirst())))
        }
        return result
    }

    @Test(arguments: ["README.md", "docs/architecture.md", "docs/benchmarks.md", "docs/testing.md",
                      "docs/recording.md", "docs/network.md", "docs/files.md",
                      "docs/sound-level-meter.md", "docs/waveform-formats.md", "docs/packaging.md",
                      "docs/loudness-delivery.md", "docs/alarms.md", "docs/measurement-over-time.md",
                      "docs/home-assistant.md", "docs/off-air.md", "docs/reports.md"])
    func linksReachWhatTheyName(_ document: String) throws {
        let text = try InstallTests.text(document)
        let base = (document as NSString).deletingLastPathComponent
        let links = try Regex(#"\]\(([^)\s]+)\)"#)
        for match in text.matches(of: links) {
            let target = String(match.output[1].substring ?? "")
            guard !target.contains("://") else { continue }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let file = parts[0].isEmpty ? document : (base as NSString).appendingPathComponent(String(parts[0]))
            let path = InstallTests.root.appendingPathComponent(file).standardizedFileURL.path
            #expect(FileManager.default.fileExists(atPath: path), "\(document) links to \(target): no such file")
            if parts.count == 2, file.hasSuffix(".md"), let linked = try? String(contentsOfFile: path, encoding: .utf8) {
                #expect(Self.anchors(linked).contains(String(parts[1])), "\(document) links to \(target): no such heading")
            }
        }
    }
}
