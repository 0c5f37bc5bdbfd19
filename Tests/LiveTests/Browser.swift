import Foundation
import Glibc
import Testing
import TestSupport

/// A WebDriver session on headless Chromium (Debian chromium + chromium-driver), driven with
/// plain HTTP requests to chromedriver.
final class Browser {
    let driver: Subprocess
    let port: Int
    let session: String
    let profile: String

    init() throws {
        port = try HTTP.freePort()
        profile = try Live.tempDir("chromium")
        driver = try Subprocess(["chromedriver", "--port=\(port)"])
        // Ready once it answers its status.
        let driverPort = port
        let ready = Wait.until(timeout: 15, interval: 0.1) { (try? HTTP.request(port: driverPort, "/status", timeout: 2))?.status == 200 }
        guard ready else { throw LiveSetupError("chromedriver did not answer within 15 s: \(driver.stderrText)") }
        let caps: [String: Any] = ["capabilities": ["alwaysMatch": ["goog:chromeOptions": [
            "binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1200,700", "--user-data-dir=\(profile)"],
        ]]]]
        let reply = try HTTP.request(port: port, "/session", method: "POST",
                                     body: Array(try JSONSerialization.data(withJSONObject: caps)), timeout: 60)
        guard let value = try HTTP.json(reply)["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            throw LiveSetupError("no WebDriver session: \(reply.text.prefix(500))")
        }
        session = id
    }

    deinit {
        _ = try? HTTP.request(port: port, "/session/\(session)", method: "DELETE", timeout: 10)
        driver.kill()
        Live.removeTree(profile)
    }

    @discardableResult
    func command(_ path: String, _ body: [String: Any]) throws -> Any? {
        let reply = try HTTP.request(port: port, "/session/\(session)/\(path)", method: "POST",
                                     body: Array(try JSONSerialization.data(withJSONObject: body)), timeout: 30)
        let o = try HTTP.json(reply)
        guard reply.status == 200 else { throw LiveSetupError("WebDriver \(path): \(reply.text.prefix(500))") }
        return o["value"]
    }

    func open(_ url: String) throws { try command("url", ["url": url]) }

    /// Sets the page's viewport to `width` x `height` CSS pixels at 1 device pixel each
    /// (Chrome DevTools' Emulation.setDeviceMetricsOverride, through chromedriver).
    func viewport(width: Int, height: Int) throws {
        try command("goog/cdp/execute", ["cmd": "Emulation.setDeviceMetricsOverride",
                                         "params": ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false]])
    }

    /// A PNG screenshot of the viewport.
    func screenshot() throws -> [UInt8] {
        let reply = try HTTP.request(port: port, "/session/\(session)/screenshot", timeout: 30)
        guard let text = try HTTP.json(reply)["value"] as? String, let data = Data(base64Encoded: text) else {
            throw LiveSetupError("WebDriver screenshot: \(reply.text.prefix(300))")
        }
        return Array(data)
    }

    /// Runs `script` (a function body) in the page and returns its value.
    func evaluate(_ script: String) throws -> Any? { try command("execute/sync", ["script": script, "args": []]) }

    /// Evaluates `script` until `ok` holds for its value, at most `timeout` s; the last value.
    /// `between` runs before each evaluation (the test reads the meter's output there).
    func waitFor<T>(_ script: String, timeout: Double = 10, between: () -> Void = {}, _ ok: (T) -> Bool) throws -> T? {
        try Wait.value(timeout: timeout, interval: 0.1, {
            between()
            return try evaluate(script) as? T
        }, until: { $0.map(ok) ?? false })
    }
}
