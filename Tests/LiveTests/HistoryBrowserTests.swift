import Foundation
import Glibc
import Testing

extension LiveSuite.Listen {
    /// 1 s steps of a 1 kHz sine at amplitudes 0.5, 0.25, 0.125 and 0.0625 (RMS -9.03, -15.05,
    /// -21.07, -27.09 dBFS), 2 s of digital silence, then 0.25: distinct levels for the chart's
    /// y values and a silence for its event markers.
    static func steps() -> [Int16] {
        let amplitudes = [0.5, 0.25, 0.125, 0.0625, 0, 0] + Array(repeating: 0.25, count: 32)
        var out: [Int16] = []
        out.reserveCapacity(2 * Live.rate * amplitudes.count)
        for (s, a) in amplitudes.enumerated() {
            for i in 0..<Live.rate {
                let v = Int16((32768 * a * sin(2 * Double.pi * 1000 * Double(s * Live.rate + i) / Double(Live.rate))).rounded())
                out += [v, v]
            }
        }
        return out
    }

    /// The chart as drawn: each series' path, the y axis ticks (y, label), the event markers
    /// (name, x), and every resource the page loaded, with its origin.
    static let chart = """
        const svg = document.getElementById("histChart");
        const paths = [...svg.querySelectorAll("path.series")].map((p) => [p.dataset.series, p.getAttribute("d")]);
        const ticks = [...svg.querySelectorAll(".ytick")].map((g) =>
          [Number(g.querySelector("line").getAttribute("y1")), Number(g.querySelector("text").textContent)]);
        const marks = [...svg.querySelectorAll("line.ev")].map((l) => [l.dataset.event, Number(l.getAttribute("x1"))]);
        const loaded = performance.getEntriesByType("resource").map((e) => e.name);
        return JSON.stringify({paths, ticks, marks, loaded, origin: location.origin});
        """

    /// A path's points: "M x y L x y ...".
    static func points(_ d: String) -> [(x: Double, y: Double)] {
        d.split(whereSeparator: { $0 == "M" || $0 == "L" }).compactMap { p in
            let xy = p.split(separator: " ").compactMap { Double($0) }
            return xy.count == 2 ? (xy[0], xy[1]) : nil
        }
    }

    /// The page is opened 30 s into a 38 s run (issue 42's done-when): the backfill covers
    /// those 30 s, the frames as printed from the first.
    @Test("history: a page opened 30 s into a run is backfilled from /history (its lines the frames' as printed), then follows /events; one point per retained frame, y within 1 px of each level, silence markers at the events' times; nothing loaded from another origin, under a default-src 'self' policy")
    func historyChart() throws {
        let server = try Live.server()
        // Chromium starts before the meter, and the run goes on 8 s after the page is opened:
        // Chromium started 30 s into a 34 s run once took all 4 s left (CI32: the page's
        // address refused the connection, the meter had ended).
        let browser = try Browser()
        let m = try Self.startMeter(["--fps", "10", "--events", "--silence-min", "1", "--duration", "38"],
                                    server: server, samples: Self.steps())
        defer { m.stop() }
        var lines: [JSONLine] = []
        func read(until ok: @escaping (JSONLine) -> Bool, timeout: Double) -> Bool {
            let r = m.process.readLines(until: { (try? JSONLine($0)).map(ok) ?? false }, timeout: timeout)
            lines += r.lines.compactMap { try? JSONLine($0) }
            return r.matched
        }
        #expect(read(until: { $0.type == "frame" && ($0.double("t") ?? 0) >= 30 }, timeout: 45), "stderr: \(m.process.stderrText)")
        let page = try HTTP.request(port: m.port, "/")
        #expect(page.headers["content-security-policy"]?.hasPrefix("default-src 'self'") == true, "\(page.headers)")
        let early = try HTTP.request(port: m.port, "/history?seconds=600").text.split(separator: "\n").map(String.init)
        try browser.open("http://127.0.0.1:\(m.port)/")
        #expect(read(until: { $0.type == "end" }, timeout: 20), "no end line; stderr: \(m.process.stderrText)")

        // At 10 frames per second each frame is a slot of its own: /history's lines are the
        // frames' lines as printed, up to the slot still open when it was asked.
        let frames = lines.filter { $0.type == "frame" }
        let earlyFrames = early.filter { $0.hasPrefix(#"{"type":"frame""#) }
        #expect(earlyFrames.count >= 295, "\(earlyFrames.count) frames retained 30 s in")
        #expect(earlyFrames == Array(frames.prefix(earlyFrames.count).map(\.raw)), "the backfill is the frames as printed, from the first")

        // The run ended: the page holds every frame but the last (its slot never closed).
        let retained = Array(frames.dropLast())
        let drawn = try browser.waitFor(Self.chart, timeout: 15) { (s: String) in
            guard let o = try? JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any],
                  let paths = o["paths"] as? [[String]], let d = paths.first?.last else { return false }
            return Self.points(d).count == retained.count
        }
        let drawnText = try #require(drawn)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(drawnText.utf8)) as? [String: Any])
        let paths = try #require(o["paths"] as? [[String]])
        #expect(paths.map(\.first) == ["rms-0", "rms-1"], "\(paths.map(\.first))")
        let ticks = try #require(o["ticks"] as? [[Double]])
        let top = try #require(ticks.first), bottom = try #require(ticks.last)
        #expect(top[1] == 0 && bottom[1] == -60, "ticks \(ticks)")
        let y = { (db: Double) in top[0] + (min(0, max(-60, db)) - top[1]) / (bottom[1] - top[1]) * (bottom[0] - top[0]) }
        let t = retained.map { $0.double("t") ?? 0 }
        for (c, p) in paths.enumerated() {
            let pts = Self.points(p[1])
            #expect(pts.count == retained.count, "channel \(c): \(pts.count) points for \(retained.count) retained frames")
            guard pts.count == retained.count, let x0 = pts.first?.x, let x1 = pts.last?.x, let t0 = t.first, let t1 = t.last else { continue }
            let x = { (s: Double) in x0 + (s - t0) / (t1 - t0) * (x1 - x0) }
            for (i, f) in retained.enumerated() {
                let level = f.doubles("rms_db")?[c] ?? 0
                #expect(abs(pts[i].y - y(level)) <= 1, "t \(t[i]): y \(pts[i].y) for \(level) dBFS (\(y(level)))")
                #expect(abs(pts[i].x - x(t[i])) <= 1, "t \(t[i]): x \(pts[i].x), \(x(t[i])) on the time axis")
            }
            // The silence events, where the time axis puts their times.
            if c == 0 {
                let events = lines.filter { $0.type == "event" }
                let marks = try #require(o["marks"] as? [[Any]])
                #expect(events.count >= 2 && marks.map { $0[0] as? String } == events.map { $0.object["event"] as? String },
                        "marks \(marks), events \(events.map(\.raw))")
                for (e, mark) in zip(events, marks) {
                    let at = x(e.double("t") ?? 0), drawnAt = mark[1] as? Double ?? 0
                    #expect(abs(drawnAt - at) <= 1, "\(e.raw): marker at \(drawnAt), the time axis puts it at \(at)")
                }
            }
        }
        let origin = try #require(o["origin"] as? String)
        let loaded = try #require(o["loaded"] as? [String])
        #expect(loaded.contains { $0.hasPrefix(origin + "/history") }, "\(loaded)")
        #expect(loaded.allSatisfy { $0.hasPrefix(origin + "/") }, "loaded from elsewhere: \(loaded)")
    }

    /// Each readout's box, its tile's box, its text and colour and the colours behind it
    /// composited over the page's background (set to `background`).
    static func overlayLook(_ background: String) -> String {
        """
        document.documentElement.style.background = "\(background)";
        const rgba = (c) => { const v = c.match(/[0-9.]+/g).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
        const behind = (el) => {
          const layers = [];
          for (let e = el; e; e = e.parentElement) layers.push(rgba(getComputedStyle(e).backgroundColor));
          let c = [255, 255, 255];
          for (const l of layers.reverse()) c = [0, 1, 2].map((k) => l[k] * l[3] + c[k] * (1 - l[3]));
          return c;
        };
        const look = (el) => { const r = el.getBoundingClientRect(), p = el.closest(".lu").getBoundingClientRect();
          return {box: [r.left, r.top, r.right, r.bottom], tile: [p.left, p.top, p.right, p.bottom], text: el.textContent,
                  colour: rgba(getComputedStyle(el).color), behind: behind(el)}; };
        const out = {};
        for (const id of ["lufs-s", "lufs-i", "true-peak", "spl"]) out[id] = look(document.getElementById(id));
        const tp = document.querySelectorAll("#true-peak i");
        tp.forEach((e, i) => { out["true-peak-" + i] = look(e); });
        const bars = document.getElementById("meterCanvas").getBoundingClientRect();
        const mark = document.getElementById("s-target-mark");
        return JSON.stringify({readouts: out, width: innerWidth, height: innerHeight, bars: [bars.left, bars.top, bars.right, bars.bottom],
          mark: [getComputedStyle(mark).display, mark.style.left], splUnit: document.getElementById("spl-unit").textContent,
          splShown: getComputedStyle(document.getElementById("tile-spl")).display});
        """
    }

    /// WCAG 2 contrast ratio of two sRGB colours (0-255).
    static func contrast(_ a: [Double], _ b: [Double]) -> Double {
        func luminance(_ c: [Double]) -> Double {
            let l = c.prefix(3).map { v -> Double in
                let s = v / 255
                return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]
        }
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test("the overlay at 600 x 300, 400 x 200, 300 x 150 and 1920 x 120 over white and black: short-term, integrated, true peak and the dB(A) tile inside the viewport and their tiles, text 4.5:1 or more against what is behind it, the bars in view; --target -16 marks the target (and the page's chart draws its line)")
    func overlaySizes() throws {
        let server = try Live.server()
        let m = try Self.startMeter(["--loudness", "--target", "-16", "--spl", "--calibration", "94"], server: server)
        defer { m.stop() }
        _ = try m.steadyFrame(calibration: 94)
        let browser = try Browser()
        try browser.open("http://127.0.0.1:\(m.port)/?overlay=1")
        for (w, h) in [(600, 300), (400, 200), (300, 150), (1920, 120)] {
            try browser.viewport(width: w, height: h)
            for background in ["#ffffff", "#000000"] {
                let shown = try browser.waitFor(Self.overlayLook(background), between: { _ = m.drain() }) { (s: String) in
                    s.contains(#""true-peak-1""#) && !s.contains(#""text":"–""#)
                }
                let shownText = try #require(shown)
                let o = try #require(try JSONSerialization.jsonObject(with: Data(shownText.utf8)) as? [String: Any])
                let width = o["width"] as? Double ?? 0, height = o["height"] as? Double ?? 0
                #expect(width == Double(w) && height == Double(h))
                let readouts = try #require(o["readouts"] as? [String: [String: Any]])
                for (id, r) in readouts {
                    let box = r["box"] as? [Double] ?? [], tile = r["tile"] as? [Double] ?? []
                    let inside = box.count == 4 && tile.count == 4 && box[2] > box[0] && box[0] >= max(0, tile[0]) - 0.5 && box[1] >= max(0, tile[1]) - 0.5
                        && box[2] <= min(width, tile[2]) + 0.5 && box[3] <= min(height, tile[3]) + 0.5
                    #expect(inside, "\(w)x\(h) \(background): \(id) at \(box), its tile \(tile)")
                    let ratio = Self.contrast(r["colour"] as? [Double] ?? [], r["behind"] as? [Double] ?? [])
                    #expect(ratio >= 4.5, "\(w)x\(h) \(background): \(id) '\(r["text"] ?? "")' \(r["colour"] ?? "") on \(r["behind"] ?? ""): \(ratio):1")
                }
                let bars = o["bars"] as? [Double] ?? []
                #expect(bars.count == 4 && bars[0] >= 0 && bars[1] >= 0 && bars[2] <= width && bars[3] <= height && bars[3] - bars[1] > 20, "bars \(bars)")
                #expect(o["mark"] as? [String] == ["block", "68%"], "the target's mark at -16 on -50..0 LUFS: \(o["mark"] ?? "")")
                #expect(o["splUnit"] as? String == "dB(A)" && o["splShown"] as? String != "none")
            }
            let png = try browser.screenshot()
            let size = png.count > 24 ? png[16..<24].reduce(into: [Int]()) { $0.append(Int($1)) } : []
            #expect(size.count == 8 && (size[0] << 24 | size[1] << 16 | size[2] << 8 | size[3]) == w
                    && (size[4] << 24 | size[5] << 16 | size[6] << 8 | size[7]) == h, "screenshot IHDR \(size)")
        }
        try browser.viewport(width: 1200, height: 900)
        try browser.open("http://127.0.0.1:\(m.port)/")
        let target = try browser.waitFor("const l = document.getElementById('hist-target'); return l ? l.getAttribute('y1') : '';",
                                         between: { _ = m.drain() }) { (s: String) in !s.isEmpty }
        #expect(target?.isEmpty == false, "no target line in the page's chart")
    }
}
