/// The live meter page served at `/`: one self-contained HTML document (its CSS and
/// JavaScript inline, no outside asset, nothing read from disk) that follows `/events` and
/// `/status` of the server that sent it.
///
/// It draws a bar per channel on a dB scale (-60 to 0, colour zones at -18 and -6; moved by the
/// start line's `level_offset_db` in a calibrated run, the zones staying below full scale) with the
/// RMS level, the hop's peak and a peak hold (2 s, then falling 20 dB/s), numeric readouts
/// under each bar, M/S/I/LRA loudness when the start line says `"loudness":true`, the band
/// spectrum when it carries `bands_hz`, the recording state, and the latest events. The
/// browser's EventSource reconnects by itself (the stream asks for 1 s), and a new start line
/// (a restarted meter) rebuilds the layout. `?overlay=1` draws on a transparent background
/// without the page's chrome, for an OBS browser source.
public enum MeterPage {
    public static let html: [UInt8] = Array(text.utf8)
    /// Sent with the page: it may load nothing but from its own origin (its inline script and
    /// style aside), so a page that tried an outside request would show it as blocked.
    public static let contentSecurityPolicy = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"

    static let text = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pulsemeter</title>
<style>
:root {
  --bg: #0c0f13; --panel: #141920; --line: #232b35; --text: #d8dee6; --dim: #7d8894;
  --green: #35d07f; --yellow: #f2c94c; --red: #ff5a5f; --blue: #4aa8ff;
  font-family: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text); }
body { display: flex; flex-direction: column; }
header { display: flex; align-items: center; gap: 14px; padding: 10px 18px; border-bottom: 1px solid var(--line); }
header .name { font-weight: 600; font-size: 15px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
header .spec { color: var(--dim); font-size: 13px; }
header .grow { flex: 1; }
.pill { font-size: 12px; font-weight: 700; letter-spacing: .06em; padding: 3px 9px; border-radius: 99px; background: #232b35; color: var(--dim); }
.pill.live { background: rgba(53,208,127,.15); color: var(--green); }
.pill.down { background: rgba(255,90,95,.15); color: var(--red); }
.pill.rec { background: rgba(255,90,95,.18); color: var(--red); display: none; }
.pill.rec.on { display: inline-block; }
.pill.rec .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: var(--red); margin-right: 6px; animation: blink 1s steps(2) infinite; }
@keyframes blink { 50% { opacity: .25; } }
main { flex: 1; display: flex; gap: 14px; padding: 14px 18px; min-height: 0; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px; }
#meters { flex: 1 1 auto; display: flex; flex-direction: column; min-width: 220px; }
#meterCanvas { flex: 1; width: 100%; min-height: 200px; display: block; }
#readouts { display: grid; gap: 6px; margin-top: 8px; font-variant-numeric: tabular-nums; }
.ro { text-align: center; font-size: 12px; color: var(--dim); }
.ro b { display: block; font-size: 17px; color: var(--text); font-weight: 600; }
.ro .pk { color: var(--dim); font-size: 12px; }
.ro .pk.hot { color: var(--red); }
#side { flex: 0 0 300px; display: flex; flex-direction: column; gap: 14px; min-height: 0; }
#loud { display: none; }
#loud.on { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
.lu { font-variant-numeric: tabular-nums; }
.lu span { display: block; font-size: 11px; color: var(--dim); letter-spacing: .08em; }
.lu b { font-size: 28px; font-weight: 600; }
.lu small { color: var(--dim); font-size: 12px; margin-left: 3px; }
#spec { display: none; }
#spec.on { display: block; }
#specCanvas { width: 100%; height: 160px; display: block; }
#log { flex: 1; overflow: auto; font-size: 12px; color: var(--dim); min-height: 60px; }
#log div { padding: 2px 0; border-bottom: 1px solid var(--line); }
#log .clip { color: var(--red); } #log .silence { color: var(--yellow); } #log .gap { color: var(--blue); }
h2 { margin: 0 0 8px; font-size: 11px; font-weight: 700; letter-spacing: .1em; color: var(--dim); text-transform: uppercase; }
footer { color: var(--dim); font-size: 12px; padding: 6px 18px 10px; display: flex; gap: 18px; font-variant-numeric: tabular-nums; }
html.overlay, html.overlay body, html.overlay main { background: transparent; }
html.overlay header, html.overlay footer, html.overlay #log, html.overlay #side h2 { display: none; }
html.overlay .panel { background: rgba(10,12,16,.35); border-color: transparent; }
html.overlay main { padding: 6px; }
@media (max-width: 700px) { main { flex-direction: column; } #side { flex: none; } }
</style>
</head>
<body>
<header>
  <span class="pill" id="state">CONNECTING</span>
  <span class="name" id="source">pulsemeter</span>
  <span class="spec" id="spec-text"></span>
  <span class="grow"></span>
  <span class="pill rec" id="rec"><span class="dot"></span>REC <span id="rec-time">0:00</span></span>
</header>
<main>
  <section class="panel" id="meters">
    <canvas id="meterCanvas"></canvas>
    <div id="readouts"></div>
  </section>
  <section id="side">
    <div class="panel" id="loud">
      <div class="lu"><span>MOMENTARY</span><b id="lufs-m">–</b><small>LUFS</small></div>
      <div class="lu"><span>SHORT-TERM</span><b id="lufs-s">–</b><small>LUFS</small></div>
      <div class="lu"><span>INTEGRATED</span><b id="lufs-i">–</b><small>LUFS</small></div>
      <div class="lu"><span>RANGE</span><b id="lra">–</b><small>LU</small></div>
    </div>
    <div class="panel" id="spec"><h2>Spectrum</h2><canvas id="specCanvas"></canvas></div>
    <div class="panel" id="log"><h2>Events</h2></div>
  </section>
</main>
<footer>
  <span>time <b id="pos">0.0</b> s</span>
  <span>frames <b id="frames">0</b></span>
  <span>dropped <b id="dropped">0</b></span>
</footer>
<script>
"use strict";
const overlay = new URLSearchParams(location.search).get("overlay") === "1";
if (overlay) document.documentElement.classList.add("overlay");
const FLOOR = -60, HOLD_MS = 2000, FALL_DB_PER_S = 20;
// A calibrated run's levels come shifted by the start line's level_offset_db: the bars and
// scales are drawn relative to full scale, labelled in the calibrated unit.
let OFF = 0;
const $ = (id) => document.getElementById(id);
let info = null, frame = null, holds = [], frameCount = 0, lastFrameAt = 0, connected = false;

function fmt(v, d) { return v <= -159.99 ? "-inf" : v.toFixed(d); }
function fmtLevel(v, d) { return v - OFF <= -159.99 ? "-inf" : v.toFixed(d); }
function channelLabel(i, n) {
  if (info && info.channel_names && info.channel_names[i]) {
    const m = {"front-left":"L","front-right":"R","front-center":"C","lfe":"LFE","rear-left":"Ls","rear-right":"Rs","mono":"M"};
    return m[info.channel_names[i]] || info.channel_names[i];
  }
  if (n === 1) return "M";
  if (n === 2) return ["L", "R"][i];
  return String(i + 1);
}

function setup(start) {
  info = start;
  OFF = start.level_offset_db || 0;
  holds = Array.from({length: start.channels}, () => ({db: -160 + OFF, at: 0}));
  $("source").textContent = start.source;
  $("spec-text").textContent = (start.rate / 1000) + " kHz · " + start.channels + " ch · " + start.fps + " fps";
  const ro = $("readouts");
  ro.style.gridTemplateColumns = "48px repeat(" + start.channels + ", 1fr)";
  ro.innerHTML = "<div class='ro'>dBFS</div>" + Array.from({length: start.channels}, (_, i) =>
    "<div class='ro'><span>" + channelLabel(i, start.channels) + "</span><b id='rms-" + i + "'>-inf</b>" +
    "<span class='pk' id='peak-" + i + "'>-inf</span></div>").join("");
  $("loud").classList.toggle("on", !!start.loudness);
  $("spec").classList.toggle("on", !!start.bands_hz);
}

function log(cls, text) {
  const el = document.createElement("div");
  el.className = cls;
  el.textContent = new Date().toLocaleTimeString() + "  " + text;
  const box = $("log");
  box.insertBefore(el, box.children[1] || null);
  while (box.children.length > 60) box.lastChild.remove();
}

function connect() {
  const es = new EventSource("/events");
  es.addEventListener("open", () => { connected = true; });
  es.addEventListener("error", () => { connected = false; });
  es.addEventListener("start", (e) => { setup(JSON.parse(e.data)); frameCount = 0; });
  es.addEventListener("frame", (e) => {
    frame = JSON.parse(e.data);
    frameCount++;
    lastFrameAt = performance.now();
    const now = performance.now();
    frame.peak_db.forEach((p, i) => {
      const h = holds[i];
      if (!h) return;
      const fallen = h.db - Math.max(0, now - h.at - HOLD_MS) / 1000 * FALL_DB_PER_S;
      if (p >= fallen) { h.db = p; h.at = now; }
    });
  });
  es.addEventListener("event", (e) => {
    const ev = JSON.parse(e.data);
    if (ev.event === "clip") log("clip", "clip on channel " + channelLabel(ev.channel, info ? info.channels : 2) + " (" + ev.samples + " samples)");
    else if (ev.event === "silence_start") log("silence", "silence since " + ev.t.toFixed(1) + " s");
    else if (ev.event === "silence_end") log("silence", "sound again after " + ev.duration.toFixed(1) + " s of silence");
  });
  es.addEventListener("gap", (e) => { const g = JSON.parse(e.data); log("gap", "gap of " + g.seconds.toFixed(1) + " s (" + g.reason + ")"); });
  es.addEventListener("file", (e) => { const f = JSON.parse(e.data); log("", f.event + " " + f.file); });
  es.addEventListener("end", () => { log("", "the meter stopped"); });
}

async function poll() {
  try {
    const r = await fetch("/status", {cache: "no-store"});
    const s = await r.json();
    $("rec").classList.toggle("on", s.recording);
    if (info) {
      const secs = Math.floor(s.counters.recorded_frames_total / info.rate);
      $("rec-time").textContent = Math.floor(secs / 60) + ":" + String(secs % 60).padStart(2, "0");
    }
    $("dropped").textContent = s.counters.dropped_frames_total;
    if (!info && s.start.length) setup(s.start[0]);
  } catch (e) { /* the server is restarting: the stream reconnects by itself */ }
  setTimeout(poll, 1000);
}

function fit(canvas) {
  const r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(r.width * dpr)), h = Math.max(1, Math.round(r.height * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return [ctx, r.width, r.height];
}

function drawMeters(now) {
  const [ctx, w, h] = fit($("meterCanvas"));
  ctx.clearRect(0, 0, w, h);
  const n = info ? info.channels : 2, scaleW = 48, gap = 10, top = 6, bottom = 6;
  const barW = Math.max(6, (w - scaleW - gap * (n + 1)) / n), usable = h - top - bottom;
  const y = (level) => top + usable * (Math.min(0, Math.max(FLOOR, level - OFF)) / FLOOR);
  ctx.font = "11px ui-sans-serif, system-ui, sans-serif";
  ctx.textAlign = "right"; ctx.textBaseline = "middle";
  for (let db = 0; db >= FLOOR; db -= 6) {
    ctx.fillStyle = "#7d8894"; ctx.fillText(String(Math.round(db + OFF)), scaleW - 8, y(db + OFF));
    ctx.fillStyle = "rgba(255,255,255,0.06)"; ctx.fillRect(scaleW, Math.round(y(db + OFF)), w - scaleW, 1);
  }
  const grad = ctx.createLinearGradient(0, y(OFF), 0, y(FLOOR + OFF));
  grad.addColorStop(0, "#ff5a5f"); grad.addColorStop(6 / 60, "#ff5a5f"); grad.addColorStop(6 / 60 + 0.001, "#f2c94c");
  grad.addColorStop(18 / 60, "#f2c94c"); grad.addColorStop(18 / 60 + 0.001, "#35d07f"); grad.addColorStop(1, "#1f8a55");
  const stale = !frame || now - lastFrameAt > 1500;
  for (let i = 0; i < n; i++) {
    const x = scaleW + gap + i * (barW + gap);
    ctx.fillStyle = "rgba(255,255,255,0.05)";
    ctx.fillRect(x, top, barW, usable);
    if (!frame || stale) continue;
    const rms = frame.rms_db[i], peak = frame.peak_db[i];
    ctx.globalAlpha = 0.35; ctx.fillStyle = grad;
    ctx.fillRect(x, y(peak), barW, y(FLOOR + OFF) - y(peak));
    ctx.globalAlpha = 1;
    ctx.fillRect(x, y(rms), barW, y(FLOOR + OFF) - y(rms));
    const hd = holdValue(i, now);
    if (hd - OFF > FLOOR) { ctx.fillStyle = hd - OFF >= -6 ? "#ff5a5f" : "#e8edf2"; ctx.fillRect(x, y(hd) - 1, barW, 2); }
  }
}

function holdValue(i, now) {
  const h = holds[i];
  if (!h) return -160 + OFF;
  return Math.max(-160 + OFF, h.db - Math.max(0, now - h.at - HOLD_MS) / 1000 * FALL_DB_PER_S);
}

function drawSpectrum() {
  if (!info || !info.bands_hz || !frame || !frame.bands_db) return;
  const [ctx, w, h] = fit($("specCanvas"));
  ctx.clearRect(0, 0, w, h);
  const n = frame.bands_db.length, bw = w / n;
  const grad = ctx.createLinearGradient(0, 0, 0, h);
  grad.addColorStop(0, "#4aa8ff"); grad.addColorStop(1, "#1d4f86");
  ctx.fillStyle = grad;
  for (let b = 0; b < n; b++) {
    const v = Math.min(0, Math.max(-90, frame.bands_db[b] - OFF));
    const bh = (v + 90) / 90 * (h - 14);
    ctx.fillRect(b * bw + 0.5, h - 14 - bh, Math.max(1, bw - 1), bh);
  }
  ctx.fillStyle = "#7d8894"; ctx.font = "10px ui-sans-serif, system-ui, sans-serif"; ctx.textBaseline = "bottom";
  const lo = info.bands_hz[0][0], hi = info.bands_hz[n - 1][1];
  ctx.textAlign = "left"; ctx.fillText(lo < 1000 ? Math.round(lo) + " Hz" : (lo / 1000).toFixed(1) + " kHz", 0, h);
  ctx.textAlign = "right"; ctx.fillText((hi / 1000).toFixed(1) + " kHz", w, h);
}

let lastText = 0;
function draw(now) {
  drawMeters(now);
  drawSpectrum();
  const live = connected && frame && now - lastFrameAt < 1500;
  const st = $("state");
  st.textContent = live ? "LIVE" : connected ? "NO AUDIO" : "RECONNECTING";
  st.className = "pill " + (live ? "live" : "down");
  if (frame && now - lastText > 100) {
    lastText = now;
    frame.rms_db.forEach((v, i) => {
      const r = $("rms-" + i), p = $("peak-" + i);
      if (!r) return;
      r.textContent = fmtLevel(v, 1);
      const hd = holdValue(i, now);
      p.textContent = "peak " + fmtLevel(hd, 1);
      p.classList.toggle("hot", hd - OFF >= -1);
    });
    if (frame.lufs_m !== undefined) {
      $("lufs-m").textContent = fmt(frame.lufs_m, 1);
      $("lufs-s").textContent = fmt(frame.lufs_s, 1);
      $("lufs-i").textContent = fmt(frame.lufs_i, 1);
      if (frame.lra !== undefined) $("lra").textContent = frame.lra.toFixed(1);
    }
    $("pos").textContent = frame.t.toFixed(1);
    $("frames").textContent = frameCount;
  }
  requestAnimationFrame(draw);
}

connect();
poll();
requestAnimationFrame(draw);
</script>
</body>
</html>
"""#
}
