import Foundation
import Glibc
import Testing

extension LiveSuite.Listen {
    /// The readouts as the page shows them.
    static let readouts = """
        const t = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
        return {rms0: t("rms-0"), rms1: t("rms-1"), peak0: t("peak-0"), pos: t("pos"), state: t("state"),
                lufs: t("lufs-m"), channels: document.querySelectorAll("[id^=rms-]").length};
        """

    static func number(_ any: Any?) -> Double? {
        guard let s = any as? String else { return nil }
        return Double(s.replacingOccurrences(of: "peak ", with: ""))
    }

    @Test("the page in headless Chromium: readouts within 0.5 dB of the NDJSON frames, updating, LUFS shown; overlay transparent; it reconnects to a restarted meter")
    func pageInChromium() throws {
        let server = try Live.server()
        let m = try Self.startMeter(["--loudness"], server: server)
        var meters = [m]
        defer { for x in meters { x.stop() } }
        var frame = try m.steadyFrame()
        let browser = try Browser()
        _ = m.drain()
        try browser.open("http://127.0.0.1:\(m.port)/")
        // Compared with the newest NDJSON frame as the page is read.
        let drain = { if let f = m.drain() { frame = f } }
        let shown = try browser.waitFor(Self.readouts, between: drain) { (v: [String: Any]) in
            guard let r0 = Self.number(v["rms0"]), let r1 = Self.number(v["rms1"]), let rms = frame.doubles("rms_db") else { return false }
            // (A feed that stuttered under load reads low for a frame, in the NDJSON as on the
            // page: the page is read again until it shows the steady tone the frames show.)
            return abs(r0 - rms[0]) < 0.5 && abs(r1 - rms[1]) < 0.5 && abs(r0 - Self.rms) < 0.5
        }
        let v = try #require(shown)
        let ndjsonRms = try #require(frame.doubles("rms_db"))
        let ndjsonPeak = try #require(frame.doubles("peak_db"))
        #expect(v["channels"] as? Int == 2)
        #expect(abs((Self.number(v["rms0"]) ?? 0) - ndjsonRms[0]) < 0.5, "page \(v), NDJSON \(ndjsonRms)")
        #expect(abs((Self.number(v["peak0"]) ?? 0) - ndjsonPeak[0]) < 0.5, "page \(v), NDJSON \(ndjsonPeak)")
        #expect(abs((Self.number(v["rms0"]) ?? 0) - Self.rms) < 0.5)
        #expect(v["state"] as? String == "LIVE")
        #expect(Self.number(v["lufs"]) != nil, "LUFS readout: \(String(describing: v["lufs"]))")
        let pos = Double(v["pos"] as? String ?? "") ?? 0
        let later = try browser.waitFor(Self.readouts, between: drain) { (v: [String: Any]) in (Double(v["pos"] as? String ?? "") ?? 0) > pos + 0.3 }
        #expect((Double(later?["pos"] as? String ?? "") ?? 0) > pos + 0.3, "the time readout did not move from \(pos)")

        // For OBS: a transparent page without the header.
        try browser.open("http://127.0.0.1:\(m.port)/?overlay=1")
        let look = try browser.waitFor("""
            return [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.querySelector("header")).display,
                    (document.getElementById("rms-0") || {}).textContent || ""];
            """, between: drain) { (v: [String]) in v.count == 3 && Double(v[2]) != nil }
        #expect(look?[0] == "rgba(0, 0, 0, 0)" && look?[1] == "none", "\(String(describing: look))")

        // A restarted meter on the same port: the page finds it by itself.
        m.stop()
        meters.removeAll()
        let gone = try browser.waitFor(Self.readouts) { (v: [String: Any]) in v["state"] as? String != "LIVE" }
        #expect(gone?["state"] as? String != "LIVE")
        let again = try Self.startMeter(["--loudness"], server: server, port: m.port)
        meters = [again]
        _ = try again.steadyFrame()
        let back = try browser.waitFor(Self.readouts, timeout: 15, between: { _ = again.drain() }) { (v: [String: Any]) in
            v["state"] as? String == "LIVE" && Self.number(v["rms0"]).map { abs($0 - Self.rms) < 0.5 } == true
        }
        #expect(back?["state"] as? String == "LIVE", "\(String(describing: back))")
    }

    /// The height of channel 0's RMS bar over the scale's height (0 at the floor, 1 at the top),
    /// from the meter canvas's pixels: the opaque rows of the bar's middle column, less the
    /// 2-pixel hold marker.
    static let barFraction = """
        const c = document.getElementById("meterCanvas"), r = c.getBoundingClientRect(), dpr = c.width / r.width;
        const n = 2, scaleW = 48, gap = 10, usable = r.height - 12;
        const barW = Math.max(6, (r.width - scaleW - gap * (n + 1)) / n);
        const data = c.getContext("2d").getImageData(Math.round((scaleW + gap + barW / 2) * dpr), 0, 1, c.height).data;
        let opaque = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
        return [(opaque - 2 * dpr) / (usable * dpr), typeof OFF === "number" ? OFF : null];
        """

    @Test("the page of a calibrated run (--calibration 94): readouts in dB SPL as the frames carry them, the bar as high as uncalibrated")
    func calibratedPage() throws {
        let server = try Live.server()
        let m = try Self.startMeter(["--calibration", "94"], server: server)
        defer { m.stop() }
        var frame = try m.steadyFrame(calibration: 94)
        #expect(m.start.double("level_offset_db") == 94)
        let browser = try Browser()
        _ = m.drain()
        try browser.open("http://127.0.0.1:\(m.port)/")
        let drain = { if let f = m.drain() { frame = f } }
        let shown = try browser.waitFor(Self.readouts, between: drain) { (v: [String: Any]) in
            guard let r0 = Self.number(v["rms0"]), let rms = frame.doubles("rms_db") else { return false }
            return abs(r0 - rms[0]) < 0.5
        }
        #expect(abs((Self.number(shown?["rms0"]) ?? 0) - (Self.rms + 94)) < 0.5, "\(String(describing: shown))")
        // -15.05 dBFS on the -60..0 scale: three quarters of it (a bar pinned at the top, 1.0,
        // would be the calibrated level drawn on the dBFS scale).
        let expected = (Self.rms + 60) / 60
        let bar = try browser.waitFor(Self.barFraction, between: drain) { (v: [Any]) in
            (v.first as? Double).map { abs($0 - expected) < 0.03 } == true
        }
        #expect((bar?.first as? Double).map { abs($0 - expected) < 0.03 } == true, "bar \(String(describing: bar)) vs \(expected)")
        #expect(bar?.last as? Double == 94)
    }
}
