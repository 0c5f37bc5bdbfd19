import Foundation
import Testing
import TestSupport

/// Headless Chromium as a reader of static pages (Debian chromium, installed by
/// scripts/setup): the DOM it rendered (`--dump-dom`), what its console said about the page
/// (Content-Security-Policy violations among it) and its network log (`--log-net-log`), where
/// a request the page made carries the page's origin as its initiator (`null` for a file).
enum HeadlessChromium {
    struct Rendered {
        var dom: String
        var console: String
        /// The URLs of the requests the page itself started (initiator: its origin).
        var pageRequests: [String]
    }

    static func render(_ path: String) throws -> Rendered {
        let dir = try TempDir()
        let netLog = dir.path("net.json")
        let r = try Tool.exec("/usr/bin/chromium", [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(dir.path("profile"))", "--enable-logging=stderr", "--v=0",
            "--log-net-log=\(netLog)", "--dump-dom", URL(fileURLWithPath: path).absoluteString,
        ])
        #expect(r.status == 0, "chromium: \(r.err.suffix(500))")
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: netLog))) as? [String: Any]
        var requests: [String] = []
        for e in (log?["events"] as? [[String: Any]]) ?? [] {
            guard let p = e["params"] as? [String: Any], let initiator = p["initiator"] as? String,
                  initiator == "null" || initiator.hasPrefix("file:"), let url = p["url"] as? String else { continue }
            requests.append(url)
        }
        return Rendered(dom: r.out, console: r.err, pageRequests: requests)
    }

    /// Every match of `pattern` in `text`, as its capture groups.
    static func matches(_ pattern: String, in text: String) -> [[String]] {
        let re = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        let ns = text as NSString
        return re.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            (1..<m.numberOfRanges).map { m.range(at: $0).location == NSNotFound ? "" : ns.substring(with: m.range(at: $0)) }
        }
    }

    /// The value of attribute `name` in the tag text `tag`.
    static func attribute(_ name: String, in tag: String) -> String? {
        matches("\\s\(name)=\"([^\"]*)\"", in: tag).first?[0]
    }
}
