extension MeterPage {
    /// The page's live script: follows `/events` (reconnecting by itself) and polls `/status`;
    /// draws the bars, readouts, tiles and spectrum of the latest frame, and hands frames and
    /// events to the history (`historyScript`).
    static let script = #"""
"use strict";
const overlay = new URLSearchParams(location.search).get("overlay") === "1";
if (overlay) document.documentElement.classList.add("overlay");
const FLOOR = -60, HOLD_MS = 2000, FALL_DB_PER_S = 20;
// A calibrated run's levels come shifted by the start line's level_offset_db: the bars and
// scales are drawn relative to full scale, labelled in the calibrated unit.
let OFF = 0;
const $ = (id) => document.getElementById(id);
let info = null, frame = null, holds = [], frameCount = 0, lastFrameAt = 0, connected = false;
// --meter: each kind's name and its scale (the ANSI meter's, MeterKind.scale), in its unit.
const METERS = {dbfs: ["dBFS RMS", -60, 0], vu: ["VU", -20, 3], ppm1: ["PPM TYPE I", -50, 0], ppm2: ["PPM TYPE II", -50, 0],
                k20: ["K-20", -40, 20], k14: ["K-14", -46, 14], k12: ["K-12", -48, 12]};
// The short-term gauge's range (LUFS) and how far from the target still reads on target.
const S_LOW = -50, S_HIGH = 0, ON_TARGET_LU = 1;

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
  const loud = !!start.loudness, target = start.target_lufs, meter = METERS[start.meter];
  for (const id of ["tile-m", "tile-s", "tile-i", "tile-lra", "tile-tp"]) $(id).classList.toggle("on", loud);
  $("tile-target").classList.toggle("on", target !== undefined);
  $("tile-spl").classList.toggle("on", !!start.spl);
  $("tile-meter").classList.toggle("on", !!meter);
  $("tiles").classList.toggle("on", loud || !!start.spl || !!meter);
  $("spec").classList.toggle("on", !!start.bands_hz);
  if (target !== undefined) {
    $("target").textContent = target.toFixed(1);
    $("s-target-mark").style.left = gaugePercent(target, S_LOW, S_HIGH) + "%";
  }
  $("s-target-mark").classList.toggle("on", target !== undefined);
  if (start.spl) {
    $("spl-name").textContent = "SOUND LEVEL " + start.time_weighting.toUpperCase();
    $("spl-unit").textContent = start.spl_unit;
  }
  if (meter) { $("meter-name").textContent = meter[0]; $("meter-unit").textContent = start.meter === "vu" ? "VU" : meter[0].startsWith("K") ? "" : "dBFS"; }
  historyStart(start);
}

function gaugePercent(v, lo, hi) { return Math.max(0, Math.min(100, (v - lo) / (hi - lo) * 100)); }

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
    historyFrame(frame);
  });
  es.addEventListener("event", (e) => {
    const ev = JSON.parse(e.data);
    historyEvent(ev);
    if (ev.event === "clip") log("clip", "clip on channel " + channelLabel(ev.channel, info ? info.channels : 2) + " (" + ev.samples + " samples)");
    else if (ev.event === "silence_start") log("silence", "silence since " + ev.t.toFixed(1) + " s");
    else if (ev.event === "silence_end") log("silence", "sound again after " + ev.duration.toFixed(1) + " s of silence");
  });
  es.addEventListener("gap", (e) => { const g = JSON.parse(e.data); historyEvent(g); log("gap", "gap of " + g.seconds.toFixed(1) + " s (" + g.reason + ")"); });
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

// M, S (coloured against the target: on it within 1 LU, over it red, under it blue), I, LRA
// and the true peak so far per channel (red over -1 dBTP).
function showLoudness(f) {
  $("lufs-m").textContent = fmt(f.lufs_m, 1);
  const s = $("lufs-s"), target = info.target_lufs;
  s.textContent = fmt(f.lufs_s, 1);
  s.className = target === undefined || f.lufs_s <= -159.99 ? "" :
    Math.abs(f.lufs_s - target) <= ON_TARGET_LU ? "ok" : f.lufs_s > target ? "hot" : "low";
  $("s-fill").style.width = gaugePercent(f.lufs_s, S_LOW, S_HIGH) + "%";
  $("lufs-i").textContent = fmt(f.lufs_i, 1);
  if (f.lra !== undefined) $("lra").textContent = f.lra.toFixed(1);
  if (f.true_peak_db) {
    $("true-peak").innerHTML = f.true_peak_db.map((v) => "<i class='" + (v > -1 ? "hot" : "") + "'>" + fmt(v, 1) + "</i>").join("");
  }
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
    if (frame.lufs_m !== undefined) showLoudness(frame);
    if (frame.spl_db !== undefined) {
      $("spl").textContent = Math.max(...frame.spl_db).toFixed(1);
      $("leq").textContent = "Leq " + Math.max(...frame.leq_db).toFixed(1);
    }
    if (frame.meter_db !== undefined && METERS[info.meter]) {
      const m = METERS[info.meter], v = Math.max(...frame.meter_db);
      $("meter").textContent = fmt(v, 1);
      $("meter-fill").style.width = gaugePercent(v, m[1], m[2]) + "%";
    }
    $("pos").textContent = frame.t.toFixed(1);
    $("frames").textContent = frameCount;
  }
  drawHistory(now);
  requestAnimationFrame(draw);
}
"""#
}
