/// The live meter page served at `/`: one self-contained HTML document (its CSS and
/// JavaScript inline, no outside asset, nothing read from disk) that follows `/events` and
/// `/status` of the server that sent it.
///
/// It draws a bar per channel on a dB scale (-60 to 0, colour zones at -18 and -6; moved by the
/// start line's `level_offset_db` in a calibrated run, the zones staying below full scale) with the
/// RMS level, the hop's peak and a peak hold (2 s, then falling 20 dB/s), numeric readouts
/// under each bar, M/S/I/LRA loudness when the start line says `"loudness":true`, the band
/// spectrum when it carries `bands_hz`, the recording state, and the latest events; tiles for
/// the true peak so far, the sound level (`--spl`, in the start line's `spl_unit`) and the
/// `--meter` reading on its own scale; the short-term readout coloured against the start line's
/// `target_lufs`; and a history chart with a spectrogram (`MeterPage.historyScript`). The
/// browser's EventSource reconnects by itself (the stream asks for 1 s), and a new start line
/// (a restarted meter) rebuilds the layout. `?overlay=1` draws on a transparent background
/// without the page's chrome, for an OBS browser source.
public enum MeterPage {
    public static let html: [UInt8] = Array(text.utf8)
    /// Sent with the page: it may load nothing but from its own origin (its inline script and
    /// style aside), so a page that tried an outside request would show it as blocked.
    public static let contentSecurityPolicy = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"

    static let text = """
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pulsemeter</title>
<style>
\(style)</style>
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
    <div class="panel" id="tiles">
      <div class="lu" id="tile-m"><span>MOMENTARY</span><b id="lufs-m">–</b><small>LUFS</small></div>
      <div class="lu" id="tile-s"><span>SHORT-TERM</span><b id="lufs-s">–</b><small>LUFS</small>
        <div class="gauge"><div class="fill" id="s-fill"></div><div class="mark" id="s-target-mark"></div></div></div>
      <div class="lu" id="tile-i"><span>INTEGRATED</span><b id="lufs-i">–</b><small>LUFS</small></div>
      <div class="lu" id="tile-lra"><span>RANGE</span><b id="lra">–</b><small>LU</small></div>
      <div class="lu" id="tile-tp"><span>TRUE PEAK</span><b id="true-peak">–</b><small>dBTP</small></div>
      <div class="lu" id="tile-target"><span>TARGET</span><b id="target">–</b><small>LUFS</small></div>
      <div class="lu" id="tile-spl"><span id="spl-name">SOUND LEVEL</span><b id="spl">–</b><small id="spl-unit"></small>
        <span id="leq"></span></div>
      <div class="lu" id="tile-meter"><span id="meter-name">METER</span><b id="meter">–</b><small id="meter-unit"></small>
        <div class="gauge"><div class="fill" id="meter-fill"></div></div></div>
    </div>
    <div class="panel" id="spec"><h2>Spectrum</h2><canvas id="specCanvas"></canvas></div>
    <div class="panel" id="log"><h2>Events</h2></div>
  </section>
</main>
<section class="panel" id="hist">
  <div class="histhead"><h2>History</h2><span class="grow"></span>
    <button id="win-60" class="on">60 s</button><button id="win-600">10 min</button></div>
  <svg id="histChart"></svg>
  <canvas id="sgram"></canvas>
</section>
<footer>
  <span>time <b id="pos">0.0</b> s</span>
  <span>frames <b id="frames">0</b></span>
  <span>dropped <b id="dropped">0</b></span>
</footer>
<script>
\(script)
\(historyScript)
connect();
poll();
requestAnimationFrame(draw);
</script>
</body>
</html>
"""
}
