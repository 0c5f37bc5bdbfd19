extension MeterPage {
    /// The page's history: one point per tenth of a second, as `/history` retains the frames
    /// (`HistorySlots`: levels as power means, peaks as maxima), backfilled from `/history` once
    /// the stream is open, then merged from `/events` the same way. An SVG chart of the last
    /// 60 s or 10 min (`M` and `S` with loudness, else RMS per channel; the target and
    /// integrated lines; silence, clip and gap events on the time axis) and, with bands, a
    /// spectrogram (time by band, colour by dB) on a canvas.
    static let historyScript = #"""
const SLOTS_PER_S = 10, HIST_MAX = 6000, HIST_FLOOR = -60;
let hist = [], marks = [], histWindow = 60, slot = null, histReady = false, pending = [], pendingMarks = [], histDrawn = 0, histDirty = true;

function power(db) { return db <= -159.99 ? 0 : Math.pow(10, db / 10); }
function powerDb(p) { return p > 0 ? Math.max(-160, 10 * Math.log10(p)) : -160; }
function slotOf(pos) { return Math.floor(pos * SLOTS_PER_S / info.rate); }
function pointOf(f) {
  return {t: f.pos / info.rate, pos: f.pos, rms: f.rms_db, m: f.lufs_m, s: f.lufs_s, i: f.lufs_i, bands: f.bands_db};
}

function historyStart(start) {
  hist = []; marks = []; slot = null; histReady = false; pending = []; pendingMarks = []; histDirty = true;
  $("sgram").classList.toggle("on", !!start.bands_hz);
}

// The retained frames, once the stream runs (so no slot falls between the two).
let histLoading = false;
async function historyLoad() {
  histLoading = true;
  try {
    const r = await fetch("/history", {cache: "no-store"});
    const text = await r.text();
    for (const line of text.split("\n")) {
      if (!line) continue;
      const o = JSON.parse(line);
      if (o.type === "frame") hist.push(pointOf(o)); else historyMark(o);
    }
  } catch (e) { /* the meter restarted: the next start line starts over */ }
  histReady = true;
  const last = hist.length ? slotOf(hist[hist.length - 1].pos) : -1;
  for (const f of pending) if (slotOf(f.pos) > last) historyMerge(f);
  // Events streamed while /history was asked: those after its last frame are not in it.
  const lastPos = hist.length ? hist[hist.length - 1].pos : -1;
  for (const o of pendingMarks) if (o.pos > lastPos) historyMark(o);
  pending = []; pendingMarks = [];
  histDirty = true;
}

function historyFrame(f) {
  if (!info || f.stream || overlay) return;
  if (!histReady) { pending.push(f); if (!histLoading) historyLoad(); return; }
  historyMerge(f);
}

// Frames of one slot merged as the server merges them; a slot is a point once the next begins.
function historyMerge(f) {
  const k = slotOf(f.pos);
  if (slot && slot.k !== k) historyClose();
  if (!slot) slot = {k: k, n: 0, rms: f.rms_db.map(() => 0), m: 0, s: 0, bands: f.bands_db ? f.bands_db.map(() => 0) : null, last: f};
  slot.n++;
  f.rms_db.forEach((v, c) => { slot.rms[c] += power(v); });
  if (f.lufs_m !== undefined) { slot.m += power(f.lufs_m); slot.s += power(f.lufs_s); }
  if (slot.bands && f.bands_db) f.bands_db.forEach((v, b) => { slot.bands[b] += power(v); });
  slot.last = f;
}

function historyClose() {
  const n = slot.n, p = pointOf(slot.last);
  p.rms = slot.rms.map((x) => powerDb(x / n));
  if (p.m !== undefined) { p.m = powerDb(slot.m / n); p.s = powerDb(slot.s / n); }
  if (slot.bands) p.bands = slot.bands.map((x) => powerDb(x / n));
  hist.push(p);
  if (hist.length > HIST_MAX) hist.splice(0, hist.length - HIST_MAX);
  slot = null;
  histDirty = true;
}

function historyEvent(o) {
  if (overlay) return;
  if (!histReady) { pendingMarks.push(o); return; }
  historyMark(o);
  histDirty = true;
}

function historyMark(o) {
  if (o.stream) return;
  const kind = o.type === "gap" ? "gap" : o.event === "clip" ? "clip" : o.event && o.event.startsWith("silence") ? "silence" : null;
  if (!kind || !info) return;
  marks.push({t: o.pos / info.rate, kind: kind, what: o.type === "gap" ? "gap" : o.event});
  if (marks.length > 1000) marks.shift();
}

function historyWindow(seconds) {
  histWindow = seconds;
  $("win-60").classList.toggle("on", seconds === 60);
  $("win-600").classList.toggle("on", seconds === 600);
  histDirty = true;
}
$("win-60").addEventListener("click", () => historyWindow(60));
$("win-600").addEventListener("click", () => historyWindow(600));

// The chart: y from HIST_FLOOR to 0 dB (relative to full scale; LUFS as they are), ticks each
// 10 dB labelled in the run's unit; x the window ending at the newest point.
function drawHistory(now) {
  if (overlay || !info || !histDirty || now - histDrawn < 200) return;
  histDrawn = now; histDirty = false;
  const svg = $("histChart"), r = svg.getBoundingClientRect();
  const w = Math.max(100, Math.round(r.width)), h = Math.max(60, Math.round(r.height));
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  const L = 46, R = 12, T = 10, B = 22, pw = w - L - R, ph = h - T - B;
  const end = hist.length ? hist[hist.length - 1].t : 0, start = end - histWindow;
  const x = (t) => L + (t - start) / histWindow * pw;
  const y = (db) => T + ph * Math.min(0, Math.max(HIST_FLOOR, db)) / HIST_FLOOR;
  const loud = !!info.loudness, off = loud ? 0 : OFF;
  const shown = hist.filter((p) => p.t >= start);
  let out = "";
  for (let db = 0; db >= HIST_FLOOR; db -= 10) {
    const yy = y(db).toFixed(1);
    out += "<g class='ytick'><line x1='" + L + "' x2='" + (L + pw) + "' y1='" + yy + "' y2='" + yy + "'></line>" +
      "<text x='" + (L - 6) + "' y='" + yy + "' text-anchor='end' dominant-baseline='middle'>" + Math.round(db + off) + "</text></g>";
  }
  const step = histWindow > 60 ? 60 : 10;
  for (let s = 0; s <= histWindow; s += step) {
    const xx = x(end - s).toFixed(1);
    out += "<g class='xtick'><line x1='" + xx + "' x2='" + xx + "' y1='" + T + "' y2='" + (T + ph) + "'></line>" +
      "<text x='" + xx + "' y='" + (h - 6) + "' text-anchor='middle'>" + (s === 0 ? "now" : "-" + (step === 60 ? s / 60 + " min" : s + " s")) + "</text></g>";
  }
  const series = loud ? [["s", "#4aa8ff", (p) => p.s], ["m", "rgba(216,222,230,.55)", (p) => p.m]]
    : Array.from({length: info.channels}, (_, c) => ["rms-" + c, ["#4aa8ff", "#35d07f", "#f2c94c", "#ff5a5f"][c % 4], (p) => p.rms[c] - OFF]);
  series.forEach(([key, colour], k) => {
    const label = loud ? (key === "s" ? "short-term" : "momentary") : channelLabel(k, info.channels);
    out += "<text class='legend' x='" + (L + pw - 4) + "' y='" + (T + 12 + 13 * k) + "' text-anchor='end' style='fill:" + colour + "'>" + label + "</text>";
  });
  for (const [key, colour, value] of series) {
    const d = shown.map((p, i) => (i ? "L" : "M") + x(p.t).toFixed(2) + " " + y(value(p)).toFixed(2)).join("");
    out += "<path class='series' data-series='" + key + "' stroke='" + colour + "' d='" + d + "'></path>";
  }
  if (loud && info.target_lufs !== undefined) {
    const yy = y(info.target_lufs).toFixed(2);
    out += "<line class='target' id='hist-target' x1='" + L + "' x2='" + (L + pw) + "' y1='" + yy + "' y2='" + yy + "'></line>" +
      "<text x='" + (L + pw / 2) + "' y='" + (yy - 4) + "' text-anchor='middle'>target " + info.target_lufs.toFixed(1) + "</text>";
  }
  const lastI = hist.length ? hist[hist.length - 1].i : undefined;
  if (loud && lastI !== undefined && lastI > -159.99) {
    const yy = y(lastI).toFixed(2);
    out += "<line class='integrated' id='hist-integrated' x1='" + L + "' x2='" + (L + pw) + "' y1='" + yy + "' y2='" + yy + "'></line>" +
      "<text x='" + (L + 4) + "' y='" + (yy - 4) + "'>I " + lastI.toFixed(1) + "</text>";
  }
  out += "<g id='hist-events'>";
  for (const m of marks) {
    if (m.t < start || m.t > end) continue;
    const xx = x(m.t).toFixed(2);
    out += "<line class='ev " + m.kind + "' data-event='" + m.what + "' data-t='" + m.t + "' x1='" + xx + "' x2='" + xx + "' y1='" + (T + ph - 10) + "' y2='" + (T + ph + 4) + "'><title>" + m.what + "</title></line>";
  }
  svg.innerHTML = out + "</g>";
  if (info.bands_hz) drawSpectrogram(shown, start, end);
}

// dB (relative to full scale) to a colour: dark blue at -90, through violet and orange, to pale
// yellow at 0.
const RAMP = [[-90, 12, 16, 40], [-60, 40, 40, 140], [-40, 150, 50, 140], [-20, 240, 120, 40], [0, 255, 240, 170]];
function rampColour(db) {
  const v = Math.max(-90, Math.min(0, db));
  for (let i = 1; i < RAMP.length; i++) {
    if (v <= RAMP[i][0]) {
      const a = RAMP[i - 1], b = RAMP[i], f = (v - a[0]) / (b[0] - a[0]);
      return [0, 1, 2].map((k) => Math.round(a[k + 1] + (b[k + 1] - a[k + 1]) * f));
    }
  }
  return RAMP[RAMP.length - 1].slice(1);
}

// One column per point at its time, one row per band (lowest at the bottom).
function drawSpectrogram(shown, start, end) {
  const [ctx, w, h] = fit($("sgram"));
  ctx.clearRect(0, 0, w, h);
  const n = info.bands_hz.length, cols = Math.max(1, Math.round(w));
  const img = ctx.createImageData(cols, n);
  let j = 0;
  for (let c = 0; c < cols; c++) {
    const t = start + (c + 0.5) / cols * histWindow;
    while (j + 1 < shown.length && shown[j + 1].t <= t) j++;
    const p = shown[j];
    if (!p || !p.bands || p.t > t + 1 / SLOTS_PER_S || t - p.t > 1 / SLOTS_PER_S + 0.001) continue;
    for (let b = 0; b < n; b++) {
      const [r, g, bl] = rampColour(p.bands[b] - OFF), at = ((n - 1 - b) * cols + c) * 4;
      img.data[at] = r; img.data[at + 1] = g; img.data[at + 2] = bl; img.data[at + 3] = 255;
    }
  }
  const tmp = document.createElement("canvas");
  tmp.width = cols; tmp.height = n;
  tmp.getContext("2d").putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(tmp, 0, 0, w, h);
}
"""#
}
