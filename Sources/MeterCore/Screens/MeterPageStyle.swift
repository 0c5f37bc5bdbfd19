extension MeterPage {
    /// The page's CSS. The overlay (`html.overlay`) keeps the bars and the short-term,
    /// integrated and true-peak tiles in view at any size from 300 x 150 up and as a 1920 x 120
    /// strip: the tiles fill a grid beside the bars, their text sized by the viewport's height,
    /// each on its own dark plate (light text at 4.5:1 or more over white or black video).
    static let style = #"""
:root {
  --bg: #0c0f13; --panel: #141920; --line: #232b35; --text: #d8dee6; --dim: #7d8894;
  --green: #35d07f; --yellow: #f2c94c; --red: #ff5a5f; --blue: #4aa8ff; --plate: rgba(10,12,16,.9);
  font-family: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
* { box-sizing: border-box; }
html, body { margin: 0; min-height: 100%; background: var(--bg); color: var(--text); }
body { display: flex; flex-direction: column; }
header { display: flex; align-items: center; gap: 14px; padding: 10px 18px; border-bottom: 1px solid var(--line); }
header .name { font-weight: 600; font-size: 15px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
header .spec { color: var(--dim); font-size: 13px; }
.grow { flex: 1; }
.pill { font-size: 12px; font-weight: 700; letter-spacing: .06em; padding: 3px 9px; border-radius: 99px; background: #232b35; color: var(--dim); }
.pill.live { background: rgba(53,208,127,.15); color: var(--green); }
.pill.down { background: rgba(255,90,95,.15); color: var(--red); }
.pill.rec { background: rgba(255,90,95,.18); color: var(--red); display: none; }
.pill.rec.on { display: inline-block; }
.pill.rec .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: var(--red); margin-right: 6px; animation: blink 1s steps(2) infinite; }
@keyframes blink { 50% { opacity: .25; } }
main { display: flex; gap: 14px; padding: 14px 18px 0; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px; }
#meters { flex: 1 1 auto; display: flex; flex-direction: column; min-width: 220px; }
#meterCanvas { flex: 1; width: 100%; min-height: 300px; display: block; }
#readouts { display: grid; gap: 6px; margin-top: 8px; font-variant-numeric: tabular-nums; }
.ro { text-align: center; font-size: 12px; color: var(--dim); }
.ro b { display: block; font-size: 17px; color: var(--text); font-weight: 600; }
.ro .pk { color: var(--dim); font-size: 12px; }
.ro .pk.hot { color: var(--red); }
#side { flex: 0 0 320px; display: flex; flex-direction: column; gap: 14px; min-height: 0; }
#tiles { display: none; grid-template-columns: 1fr 1fr; gap: 10px; }
#tiles.on { display: grid; }
.lu { font-variant-numeric: tabular-nums; display: none; min-width: 0; }
.lu.on { display: block; }
.lu span { display: block; font-size: 11px; color: var(--dim); letter-spacing: .08em; white-space: nowrap; }
.lu b { font-size: 28px; font-weight: 600; white-space: nowrap; }
.lu small { color: var(--dim); font-size: 12px; margin-left: 3px; }
.lu b.ok { color: var(--green); } .lu b.hot, .lu i.hot { color: var(--red); } .lu b.low { color: var(--blue); }
#true-peak { font-size: 20px; }
#true-peak i { font-style: normal; margin-right: .4em; }
.gauge { position: relative; height: 6px; margin-top: 4px; background: rgba(255,255,255,.12); border-radius: 3px; }
.gauge .fill { position: absolute; left: 0; top: 0; bottom: 0; background: var(--blue); border-radius: 3px; }
.gauge .mark { position: absolute; top: -3px; bottom: -3px; width: 2px; margin-left: -1px; background: #fff; display: none; }
.gauge .mark.on { display: block; }
#spec { display: none; }
#spec.on { display: block; }
#specCanvas { width: 100%; height: 120px; display: block; }
#log { flex: 1; overflow: auto; font-size: 12px; color: var(--dim); min-height: 60px; }
#log div { padding: 2px 0; border-bottom: 1px solid var(--line); }
#log .clip { color: var(--red); } #log .silence { color: var(--yellow); } #log .gap { color: var(--blue); }
h2 { margin: 0 0 8px; font-size: 11px; font-weight: 700; letter-spacing: .1em; color: var(--dim); text-transform: uppercase; }
#hist { margin: 14px 18px 0; }
.histhead { display: flex; align-items: center; gap: 8px; }
.histhead button { font: inherit; font-size: 12px; background: #232b35; color: var(--dim); border: 0; border-radius: 6px; padding: 3px 9px; cursor: pointer; }
.histhead button.on { background: #2f3a47; color: var(--text); }
#histChart { display: block; width: 100%; height: 240px; font-size: 11px; }
#histChart .ytick line, #histChart .xtick line { stroke: rgba(255,255,255,.08); }
#histChart text { fill: #9aa5b1; }
#histChart path { fill: none; stroke-width: 1.5; stroke-linejoin: round; }
#histChart .target { stroke: var(--yellow); stroke-dasharray: 6 4; }
#histChart .integrated { stroke: var(--green); }
#histChart .ev { stroke-width: 2; }
#histChart .ev.clip { stroke: var(--red); } #histChart .ev.silence { stroke: var(--yellow); } #histChart .ev.gap { stroke: var(--blue); }
#sgram { display: none; width: calc(100% - 58px); height: 120px; margin: 8px 12px 0 46px; image-rendering: pixelated; }
#sgram.on { display: block; }
footer { color: var(--dim); font-size: 12px; padding: 8px 18px 10px; display: flex; gap: 18px; font-variant-numeric: tabular-nums; }
@media (max-width: 700px) { html:not(.overlay) main { flex-direction: column; height: auto; } html:not(.overlay) #side { flex: none; } }

html.overlay, html.overlay body { background: transparent; height: 100%; overflow: hidden; }
html.overlay header, html.overlay footer, html.overlay #log, html.overlay #spec, html.overlay #hist,
html.overlay #readouts, html.overlay h2, html.overlay #tile-m, html.overlay #tile-lra, html.overlay #tile-target { display: none; }
html.overlay main { height: 100%; padding: 4px; gap: 4px; }
html.overlay .panel { border: 0; border-radius: 6px; padding: 4px; }
html.overlay #meters { flex: 0 0 32%; min-width: 0; background: var(--plate); }
html.overlay #meterCanvas { min-height: 0; }
html.overlay #side { flex: 1 1 0; min-width: 0; gap: 4px; }
html.overlay #tiles { flex: 1; min-height: 0; padding: 0; gap: 4px; background: transparent; grid-template-columns: repeat(auto-fit, minmax(88px, 1fr)); }
html.overlay .lu.on { display: flex; flex-direction: column; justify-content: center; min-height: 0; overflow: hidden;
  white-space: nowrap; background: var(--plate); border-radius: 6px; padding: 1px 6px; }
html.overlay .lu span { color: #c9d1da; font-size: clamp(9px, 6vh, 13px); }
html.overlay .lu b { color: #f4f7fa; font-size: clamp(13px, min(12vh, 6vw), 36px); line-height: 1.1; }
html.overlay .lu b.ok { color: #5fe39b; } html.overlay .lu b.hot, html.overlay .lu i.hot { color: #ff7b7f; } html.overlay .lu b.low { color: #7cc0ff; }
html.overlay .lu small { color: #c9d1da; }
html.overlay #true-peak { font-size: clamp(11px, min(9vh, 4vw), 24px); }
html.overlay #true-peak i { display: block; }
html.overlay .lu small { font-size: clamp(9px, 6vh, 12px); }
html.overlay #leq { display: none; }
"""#
}
