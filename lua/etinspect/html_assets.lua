--- etinspect.html_assets: the style sheet and the script of the HTML report
-- (lua/etinspect/html.lua; docs/html-report.md).  Constant text, inlined
-- into every page: the page loads nothing.
--
-- The script reads two data elements of the page:
--   <script type="application/json" id="et-meta">   names, blocks, defaults
--   <script type="application/octet-stream" id="et-data">  base64 samples
-- (layout in src/core/output/htmldata.h) and draws the run-over-run chart and the
-- timeline on canvases.  It writes no dump text as HTML: names reach the
-- page through textContent and canvas text only.
local M = {}

M.STYLE = [==[
:root{--fg:#1d232a;--muted:#5b6672;--line:#d9dee4;--bg:#fff;--alt:#f5f7f9;
--framework:#8c9aab;--operators:#3d74b6;--delegate:#e0832b;--bar:#3d74b6;--box:#6b7d90}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1320px;margin:0 auto;padding:16px 20px 40px}
h1{font-size:22px;margin:0 0 8px;overflow-wrap:anywhere}
h2{font-size:17px;margin:28px 0 6px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:14px 0 4px}
p.note,.muted{color:var(--muted);font-size:13px;margin:4px 0 8px}
nav{font-size:13px;margin:4px 0 0}nav a{margin-right:14px;color:var(--operators)}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0 0;font-size:13px}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;overflow-wrap:anywhere}
code,.mono,td.name{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12.5px;width:100%}
th,td{padding:3px 6px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{position:sticky;top:0;background:#eef1f4;font-weight:600}
#summary td{overflow-wrap:anywhere}
#summary th{cursor:pointer}#summary th[aria-sort]::after{content:" \25B4"}#summary th[aria-sort=descending]::after{content:" \25BE"}
#summary tbody tr{cursor:pointer}#summary tr[aria-selected=true]{outline:2px solid var(--operators);outline-offset:-2px}
tbody tr:nth-child(even){background:var(--alt)}tbody tr:hover{background:#e6eef8}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}#summary td.num{white-space:nowrap;overflow-wrap:normal}
td.name{min-width:9em;max-width:26em}
td.ticks{text-align:right;font-size:11.5px;white-space:nowrap}td.ticks small{display:block;color:var(--muted)}
td.list .item{display:inline}td.list .item+.item::before{content:", "}
td.list details{display:inline}td.list summary{display:inline;cursor:pointer;color:var(--operators)}
svg{display:block;width:100%;height:auto;font-family:system-ui,sans-serif}
svg text{font-size:11px;fill:var(--fg)}
svg .axis line,svg line.grid{stroke:var(--line)}svg .axis text,svg text.tick{fill:var(--muted);font-size:10px}
rect.bar{fill:var(--bar)}rect.bar[data-kind=delegate]{fill:var(--delegate)}rect.bar:hover{opacity:.8}
g.box line,g.box rect{stroke:var(--box);stroke-width:1.2}g.box rect{fill:#dfe6ee}g.box line.median{stroke:var(--fg);stroke-width:2}
text.panel{font-weight:600;fill:var(--muted)}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:-1px}
.controls{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;font-size:13px;margin:6px 0}
.controls select{max-width:34em}.controls input[type=number]{width:6em}
.controls button{font:inherit;padding:1px 9px}
.chart{position:relative}
canvas{display:block;width:100%;border:1px solid var(--line);background:#fff;touch-action:none}
canvas#timeline{cursor:grab}canvas#timeline.dragging{cursor:grabbing}
.tip{position:absolute;pointer-events:none;background:rgba(29,35,42,.92);color:#fff;font-size:12px;line-height:1.35;
padding:4px 7px;border-radius:3px;white-space:pre;max-width:560px;overflow:hidden;text-overflow:ellipsis;display:none;z-index:2}
ul.stats{margin:4px 0 8px;padding:0;list-style:none;font-size:13px}ul.stats li{margin:2px 0}
footer{margin-top:32px;color:var(--muted);font-size:12px}
]==]

M.SCRIPT = [==[
(function () {
  "use strict";
  var doc = document, root = doc.documentElement;
  root.setAttribute("data-js", "ready");
  function $(id) { return doc.getElementById(id); }

  /* ---- the events table: sort by a heading, click a row to chart it ---- */
  var table = $("summary");
  if (table && table.tHead) {
    var heads = table.tHead.rows[0].cells;
    var key = function (cell) {
      var v = cell.getAttribute("data-v");
      if (v !== null) { var n = parseFloat(v); return isNaN(n) ? -Infinity : n; }
      return cell.textContent;
    };
    var sortBy = function (col) {
      var th = heads[col];
      var desc = th.getAttribute("aria-sort") === "ascending";
      for (var i = 0; i < heads.length; i++) heads[i].removeAttribute("aria-sort");
      th.setAttribute("aria-sort", desc ? "descending" : "ascending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.forEach(function (r, i) { r._i = i; });
      rows.sort(function (a, b) {
        var x = key(a.cells[col]), y = key(b.cells[col]);
        var c = (typeof x === "number" && typeof y === "number") ? x - y
              : String(x).localeCompare(String(y));
        if (desc) c = -c;
        return c || a._i - b._i;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    };
    Array.prototype.forEach.call(heads, function (th, i) {
      th.title = "sort by this column";
      th.addEventListener("click", function () { sortBy(i); });
    });
  }

  var metaEl = $("et-meta"), dataEl = $("et-data");
  if (!metaEl || !dataEl) { root.setAttribute("data-rendered", "no-data"); return; }
  var META = JSON.parse(metaEl.textContent);
  var UNIT = META.unit, NAMES = META.names;

  /* ---- the samples (src/core/output/htmldata.h) ---- */
  function bytesOf(text) {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
    var bin = atob(text), n = bin.length, u = new Uint8Array(n);
    for (var i = 0; i < n; i++) u[i] = bin.charCodeAt(i);
    return u;
  }
  var buf = bytesOf(dataEl.textContent.trim()).buffer;
  var BLOCKS = META.blocks.map(function (m, i) {
    var R = m.kept, E = m.track.length, o = m.offset;
    return {
      index: i + 1, name: m.name, runs: m.runs, R: R, E: E, ev: m.ev, track: m.track,
      origin: new Float64Array(buf, o, R),
      runIndex: new Uint32Array(buf, o + 8 * R, R),
      start: new Float32Array(buf, o + 12 * R, E * R),
      dur: new Float32Array(buf, o + 12 * R + 4 * E * R, E * R)
    };
  });

  /* ---- formatting ---- */
  function fmt(v) {
    if (!isFinite(v)) return String(v);
    if (v === 0) return "0";
    var a = Math.abs(v);
    if (a >= 1e6 || a < 1e-4) return v.toExponential(3).replace(/\.?0+e/, "e");
    return String(Number(v.toPrecision(5)));
  }
  function fmtTick(v, step) {
    if (Math.abs(v) < step * 1e-6) v = 0;
    var d = Math.max(0, Math.min(12, -Math.floor(Math.log10(step) + 1e-9)));
    if (step >= 1e6 || (step < 1e-4 && v !== 0)) return fmt(v);
    return v.toFixed(d);
  }
  function niceStep(span, target) {
    var raw = span / target, p = Math.pow(10, Math.floor(Math.log10(raw)));
    var ms = [1, 2, 5, 10];
    for (var i = 0; i < ms.length; i++) if (raw <= ms[i] * p) return ms[i] * p;
    return 10 * p;
  }
  function grouped(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function nameOf(b, e) { return NAMES[b.ev[e]]; }
  function median(a) {
    if (!a.length) return NaN;
    var s = Float64Array.from(a).sort(), m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
  function lowerBound(arr, v, lo, hi) {
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (arr[mid] < v) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function option(sel, value, text) {
    var o = doc.createElement("option");
    o.value = value; o.textContent = text;
    sel.appendChild(o);
    return o;
  }
  function sizeCanvas(c, h) {
    var dpr = window.devicePixelRatio || 1, w = Math.max(200, c.clientWidth || 800);
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
    }
    c.style.height = h + "px";
    var ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    return { ctx: ctx, w: w, h: h };
  }
  function showTip(tip, host, x, y, text) {
    if (text === null) { tip.style.display = "none"; return; }
    tip.textContent = text;
    tip.style.display = "block";
    var left = Math.min(x + 14, host.clientWidth - tip.offsetWidth - 4);
    tip.style.left = Math.max(0, left) + "px";
    tip.style.top = (y + 16) + "px";
  }

  /* ---- run over run ---- */
  var PALETTE = ["#3d74b6", "#e0832b", "#3a9a5b", "#b8474a", "#7d5cb5", "#8a6d3b", "#d267a8", "#5b6672"];
  var rr = { canvas: $("runs-chart"), sel: $("runs-event"), stats: $("runs-stats"), tip: $("runs-tip"),
             series: [], layout: null };

  function eventMean(b, e) {
    var s = 0, n = 0, base = e * b.R;
    for (var k = 0; k < b.R; k++) { var v = b.dur[base + k]; if (isFinite(v)) { s += v; n++; } }
    return n ? s / n : NaN;
  }
  /* Method::execute, or upstream's Method::execute::<method> (as
     framework_tax.is_execute_event) */
  function isExec(name) { return name === "Method::execute" || name.lastIndexOf("Method::execute::", 0) === 0; }
  function execEvents() {
    var out = [];
    BLOCKS.forEach(function (b) {
      if (!b.R) return;
      for (var e = 0; e < b.E; e++) if (isExec(nameOf(b, e))) { out.push([b, e]); break; }
    });
    return out;
  }
  function eventLabel(b, e) { return "block " + b.index + " \u00b7 " + nameOf(b, e) + " (event " + (e + 1) + ")"; }
  function ensureOption(b, e) {
    var v = b.index + ":" + (e + 1);
    for (var i = 0; i < rr.sel.options.length; i++) if (rr.sel.options[i].value === v) return v;
    option(rr.sel, v, eventLabel(b, e));
    return v;
  }
  function seriesOf(value) {
    var pairs;
    if (value === "exec") pairs = execEvents();
    else {
      var m = /^(\d+):(\d+)$/.exec(value);
      var b = m && BLOCKS[+m[1] - 1];
      pairs = b && +m[2] >= 1 && +m[2] <= b.E ? [[b, +m[2] - 1]] : [];
    }
    return pairs.map(function (p, i) {
      var b = p[0], e = p[1], xs = [], ys = [], ks = [];
      for (var k = 0; k < b.R; k++) {
        var v = b.dur[e * b.R + k];
        if (isFinite(v)) { xs.push(b.runIndex[k]); ys.push(v); ks.push(k); }
      }
      return { block: b, event: e, xs: xs, ys: ys, ks: ks, color: PALETTE[i % PALETTE.length] };
    });
  }
  function seriesStats(s) {
    var ys = s.ys, n = ys.length, med = median(ys);
    var label = "block " + s.block.index + " \u201c" + s.block.name + "\u201d \u00b7 " + nameOf(s.block, s.event);
    if (n < 2) return { text: label + ": " + n + " run" + (n === 1 ? "" : "s") + "; too few to show a trend" };
    var restMed = median(ys.slice(1)), ratio = ys[0] / restMed;
    var warm = 0;
    while (warm < n - 1 && ys[warm] > 1.1 * med) warm++;
    var text = label + ": " + grouped(n) + " runs, median " + fmt(med) + " " + UNIT + "; first run " +
      fmt(ys[0]) + " " + UNIT + " (" + ratio.toFixed(2) + "\u00d7 the median of the others)";
    text += warm ? "; warm-up: the first " + warm + " run" + (warm === 1 ? " is" : "s are") +
      " more than 10% above the median" : "; no warm-up (no leading run 10% above the median)";
    var drift = NaN;
    var q = Math.max(1, Math.floor((n - warm) / 10));
    if (n - warm >= 20) {
      var first = median(ys.slice(warm, warm + q)), last = median(ys.slice(n - q));
      drift = (last / first - 1) * 100;
      text += "; drift: median of the last " + q + " run" + (q === 1 ? "" : "s") + " " + fmt(last) +
        " vs the first " + q + " after warm-up " + fmt(first) + " (" + (drift >= 0 ? "+" : "") +
        drift.toFixed(1) + "%)";
    }
    return { text: text, median: med, ratio: ratio, warm: warm, drift: drift };
  }
  function drawRuns() {
    var c = rr.canvas;
    if (!c) return;
    var g = sizeCanvas(c, 280), ctx = g.ctx, W = g.w, H = g.h;
    var L = 70, Rm = 16, T = 14, B = 40, PW = W - L - Rm, PH = H - T - B;
    var xs0 = Infinity, xs1 = -Infinity, y1 = 0, y0 = Infinity, pts = 0;
    rr.series.forEach(function (s) {
      for (var i = 0; i < s.xs.length; i++) {
        xs0 = Math.min(xs0, s.xs[i]); xs1 = Math.max(xs1, s.xs[i]);
        y0 = Math.min(y0, s.ys[i]); y1 = Math.max(y1, s.ys[i]);
      }
      pts += s.xs.length;
    });
    c.setAttribute("data-series", rr.series.length);
    c.setAttribute("data-points", pts);
    ctx.font = "11px system-ui,sans-serif";
    if (!pts) {
      ctx.fillStyle = "#5b6672";
      ctx.fillText("No run of this event has a duration.", L, T + 20);
      rr.layout = null;
      return;
    }
    if (!(y0 > 0.3 * y1)) y0 = 0;
    var ys = niceStep((y1 - y0) || Math.abs(y1) || 1, 5);
    y0 = Math.floor(y0 / ys) * ys; y1 = Math.ceil(y1 / ys) * ys;
    if (y1 <= y0) y1 = y0 + ys;
    if (xs1 <= xs0) { xs0 -= 1; xs1 += 1; }
    var pad = (xs1 - xs0) * 0.015;
    xs0 -= pad; xs1 += pad;
    var X = function (x) { return L + (x - xs0) / (xs1 - xs0) * PW; };
    var Y = function (y) { return T + PH - (y - y0) / (y1 - y0) * PH; };
    rr.layout = { X: X, Y: Y, L: L, T: T, PW: PW, PH: PH, xs0: xs0, xs1: xs1 };
    ctx.strokeStyle = "#d9dee4"; ctx.fillStyle = "#5b6672"; ctx.lineWidth = 1;
    ctx.textAlign = "right";
    for (var yv = y0; yv <= y1 + ys * 1e-6; yv += ys) {
      var yy = Math.round(Y(yv)) + 0.5;
      ctx.beginPath(); ctx.moveTo(L, yy); ctx.lineTo(L + PW, yy); ctx.stroke();
      ctx.fillText(fmtTick(yv, ys), L - 6, yy + 4);
    }
    ctx.save(); ctx.translate(14, T + PH / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = "center";
    ctx.fillText(UNIT + " per run", 0, 0); ctx.restore();
    ctx.textAlign = "center";
    var xsStep = Math.max(1, niceStep(xs1 - xs0, 10));
    for (var xv = Math.ceil(xs0 / xsStep) * xsStep; xv <= xs1; xv += xsStep) {
      var xx = Math.round(X(xv)) + 0.5;
      ctx.beginPath(); ctx.moveTo(xx, T + PH); ctx.lineTo(xx, T + PH + 4); ctx.stroke();
      ctx.fillText(String(xv), xx, T + PH + 16);
    }
    ctx.fillText("run (RunData index, in dump order)", L + PW / 2, H - 6);
    rr.series.forEach(function (s) {
      var n = s.xs.length;
      ctx.fillStyle = s.color; ctx.strokeStyle = s.color;
      if (n <= PW) {
        for (var i = 0; i < n; i++) {
          ctx.beginPath(); ctx.arc(X(s.xs[i]), Y(s.ys[i]), 2.2, 0, 2 * Math.PI); ctx.fill();
        }
      } else { /* level of detail: one min-max line per pixel column */
        var col = -1, lo = 0, hi = 0;
        var flush = function () {
          if (col >= 0) ctx.fillRect(col, Y(hi), 1, Math.max(1, Y(lo) - Y(hi)));
        };
        for (var j = 0; j < n; j++) {
          var cx = Math.floor(X(s.xs[j])), v = s.ys[j];
          if (cx !== col) { flush(); col = cx; lo = hi = v; }
          else { if (v < lo) lo = v; if (v > hi) hi = v; }
        }
        flush();
      }
      if (n >= 20) { /* trend: medians of ~50 buckets */
        var size = Math.max(2, Math.ceil(n / 50));
        ctx.lineWidth = 2; ctx.globalAlpha = 0.9; ctx.strokeStyle = "#1d232a";
        ctx.beginPath();
        for (var a = 0; a < n; a += size) {
          var bx = s.xs.slice(a, a + size), by = s.ys.slice(a, a + size);
          var px = X(median(bx)), py = Y(median(by));
          if (a === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
        }
        ctx.stroke(); ctx.globalAlpha = 1; ctx.lineWidth = 1;
      }
      ctx.strokeStyle = s.color; ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.arc(X(s.xs[0]), Y(s.ys[0]), 5, 0, 2 * Math.PI); ctx.stroke();
      ctx.lineWidth = 1;
    });
  }
  function chooseRuns(value) {
    rr.sel.value = value;
    rr.series = seriesOf(value);
    rr.canvas.setAttribute("data-event", value);
    while (rr.stats.firstChild) rr.stats.removeChild(rr.stats.firstChild);
    rr.series.forEach(function (s) {
      var st = seriesStats(s), li = doc.createElement("li");
      li.className = "series";
      li.style.borderLeft = "4px solid " + s.color;
      li.style.paddingLeft = "6px";
      li.setAttribute("data-block", s.block.index);
      li.setAttribute("data-runs", s.ys.length);
      if (isFinite(st.ratio)) li.setAttribute("data-first-ratio", st.ratio.toFixed(4));
      if (isFinite(st.drift)) li.setAttribute("data-drift", st.drift.toFixed(2));
      li.textContent = st.text;
      rr.stats.appendChild(li);
    });
    drawRuns();
  }
  function initRuns() {
    if (!rr.canvas) return;
    var ex = execEvents();
    if (ex.length) option(rr.sel, "exec", "Method::execute (every block that has it)");
    var cand = [];
    BLOCKS.forEach(function (b) {
      for (var e = 0; e < b.E; e++) {
        var m = eventMean(b, e);
        if (isFinite(m) && !isExec(nameOf(b, e))) cand.push([m * b.runs, b, e]);
      }
    });
    cand.sort(function (p, q) { return q[0] - p[0] || p[1].index - q[1].index || p[2] - q[2]; });
    cand.slice(0, 15).forEach(function (p) { ensureOption(p[1], p[2]); });
    rr.sel.addEventListener("change", function () { chooseRuns(rr.sel.value); });
    if (rr.sel.options.length) chooseRuns(rr.sel.options[0].value);
    else { rr.series = []; drawRuns(); }
    rr.canvas.addEventListener("mousemove", function (ev) {
      var lay = rr.layout, r = rr.canvas.getBoundingClientRect();
      var x = ev.clientX - r.left, y = ev.clientY - r.top, best = null, bd = 64;
      if (lay) rr.series.forEach(function (s) {
        var want = lay.xs0 + (x - lay.L) / lay.PW * (lay.xs1 - lay.xs0);
        var i = lowerBound(s.xs, want, 0, s.xs.length);
        for (var j = Math.max(0, i - 2); j < Math.min(s.xs.length, i + 2); j++) {
          var dx = lay.X(s.xs[j]) - x, dy = lay.Y(s.ys[j]) - y, d = dx * dx + dy * dy;
          if (d < bd) { bd = d; best = [s, j]; }
        }
      });
      showTip(rr.tip, rr.canvas.parentNode, x, y, best ? "RunData " + best[0].xs[best[1]] + " \u00b7 block " +
        best[0].block.index + " run " + (best[0].ks[best[1]] + 1) + "\n" + nameOf(best[0].block, best[0].event) +
        ": " + fmt(best[0].ys[best[1]]) + " " + UNIT : null);
    });
    rr.canvas.addEventListener("mouseleave", function () { showTip(rr.tip, null, 0, 0, null); });
    if (table) table.tBodies[0].addEventListener("click", function (ev) {
      var tr = ev.target.closest("tr.event");
      if (!tr || ev.target.closest("summary")) return;
      var b = BLOCKS[+tr.getAttribute("data-block") - 1], e = +tr.getAttribute("data-event") - 1;
      if (!b || !(e >= 0 && e < b.E)) return;
      var prev = table.querySelector("tr[aria-selected=true]");
      if (prev) prev.removeAttribute("aria-selected");
      tr.setAttribute("aria-selected", "true");
      chooseRuns(ensureOption(b, e));
      $("runs-section").scrollIntoView({ block: "start" });
    });
  }

  /* ---- the timeline ---- */
  var TRACKS = ["framework", "operators", "delegate"], TCODE = { f: 0, o: 1, d: 2 };
  var TCOLOR = ["#8c9aab", "#3d74b6", "#e0832b"];
  var MAX_LANES = 16, LANE = 17, GAP = 9, AXIS = 24, X0 = 96, RIGHT = 12;
  var tl = { canvas: $("timeline"), tip: $("tl-tip"), block: $("tl-block"), run: $("tl-run"),
             all: $("tl-all"), readout: $("tl-window"), view: null, t0: 0, t1: 1, b: null, k: 0 };

  /* The slices of run k of block b (all runs: k < 0), sorted by start
   * (longer first, then event order), in lanes per track. */
  function buildView(b, k) {
    var R = b.R, E = b.E, st = b.start, du = b.dur;
    var runs = [];
    if (k >= 0) runs.push(k);
    else for (var r = 0; r < R; r++) if (isFinite(b.origin[r])) runs.push(r);
    var n = 0;
    runs.forEach(function (r) {
      for (var e = 0; e < E; e++) if (isFinite(st[e * R + r]) && isFinite(du[e * R + r])) n++;
    });
    var S = new Float64Array(n), D = new Float64Array(n), EV = new Int32Array(n), RK = new Int32Array(n);
    var pos = 0, perm = null, monotone = true, maxStart = -Infinity;
    runs.forEach(function (r) {
      var off = k >= 0 ? 0 : b.origin[r];
      var cmp = function (a, c) {
        var sa = st[a * R + r], sc = st[c * R + r];
        return sa - sc || du[c * R + r] - du[a * R + r] || a - c;
      };
      var count = 0, e;
      for (e = 0; e < E; e++) if (isFinite(st[e * R + r]) && isFinite(du[e * R + r])) count++;
      var ok = perm !== null && perm.length === count;
      for (var i = 0; ok && i < perm.length; i++) {
        e = perm[i];
        if (!(isFinite(st[e * R + r]) && isFinite(du[e * R + r])) || (i && cmp(perm[i - 1], e) > 0)) ok = false;
      }
      if (!ok) {
        perm = [];
        for (e = 0; e < E; e++) if (isFinite(st[e * R + r]) && isFinite(du[e * R + r])) perm.push(e);
        perm.sort(cmp);
      }
      for (i = 0; i < perm.length; i++) {
        e = perm[i];
        S[pos] = off + st[e * R + r]; D[pos] = du[e * R + r]; EV[pos] = e; RK[pos] = r;
        if (S[pos] < maxStart) monotone = false;
        if (S[pos] > maxStart) maxStart = S[pos];
        pos++;
      }
    });
    if (!monotone) { /* runs that overlap in time: one global order */
      var idx = Array.from({ length: n }, function (_, i) { return i; });
      idx.sort(function (a, c) { return S[a] - S[c] || D[c] - D[a] || RK[a] - RK[c] || EV[a] - EV[c]; });
      var S2 = new Float64Array(n), D2 = new Float64Array(n), E2 = new Int32Array(n), R2 = new Int32Array(n);
      idx.forEach(function (j, i) { S2[i] = S[j]; D2[i] = D[j]; E2[i] = EV[j]; R2[i] = RK[j]; });
      S = S2; D = D2; EV = E2; RK = R2;
    }
    var lo = Infinity, hi = -Infinity, i2;
    for (i2 = 0; i2 < n; i2++) { if (S[i2] < lo) lo = S[i2]; if (S[i2] + D[i2] > hi) hi = S[i2] + D[i2]; }
    if (!n) { lo = 0; hi = 1; }
    if (!(hi > lo)) hi = lo + (Math.abs(lo) || 1) * 1e-6 + 1e-12;
    var eps = (hi - lo) * 1e-9, ends = [[], [], []], lane = new Int8Array(n), tr = new Int8Array(n);
    for (i2 = 0; i2 < n; i2++) {
      var t = TCODE[b.track.charAt(EV[i2])] || 0, L = ends[t], l = 0;
      while (l < L.length && L[l] > S[i2] + eps) l++;
      if (l === MAX_LANES) l = MAX_LANES - 1;
      L[l] = Math.max(l < L.length ? L[l] : -Infinity, S[i2] + D[i2]);
      lane[i2] = l; tr[i2] = t;
    }
    var lanes = [[], [], []];
    for (t = 0; t < 3; t++) for (l = 0; l < Math.max(1, ends[t].length); l++) lanes[t].push({ n: 0 });
    for (i2 = 0; i2 < n; i2++) lanes[tr[i2]][lane[i2]].n++;
    lanes.forEach(function (ls) {
      ls.forEach(function (q) {
        q.s = new Float64Array(q.n); q.e = new Float64Array(q.n); q.pm = new Float64Array(q.n);
        q.id = new Int32Array(q.n); q.n = 0;
      });
    });
    for (i2 = 0; i2 < n; i2++) {
      var q = lanes[tr[i2]][lane[i2]], j = q.n++;
      q.s[j] = S[i2]; q.e[j] = S[i2] + D[i2]; q.id[j] = i2;
      q.pm[j] = j ? Math.max(q.pm[j - 1], q.e[j]) : q.e[j];
    }
    var perTrack = [0, 0, 0];
    for (i2 = 0; i2 < n; i2++) perTrack[tr[i2]]++;
    return { b: b, k: k, n: n, S: S, D: D, EV: EV, RK: RK, lanes: lanes, lo: lo, hi: hi, perTrack: perTrack };
  }

  function tlLayout() {
    var v = tl.view, y = AXIS, tops = [];
    for (var t = 0; t < 3; t++) { tops.push(y); y += v.lanes[t].length * LANE + GAP; }
    return { tops: tops, h: y + 4 };
  }

  function drawTimeline() {
    var v = tl.view, c = tl.canvas;
    if (!v) return;
    var lay = tlLayout(), g = sizeCanvas(c, lay.h), ctx = g.ctx, W = g.w, H = g.h, PW = W - X0 - RIGHT;
    var t0 = tl.t0, t1 = tl.t1, sc = PW / (t1 - t0);
    var X = function (t) { return X0 + (t - t0) * sc; };
    ctx.font = "10px system-ui,sans-serif";
    ctx.fillStyle = "#5b6672"; ctx.strokeStyle = "#d9dee4"; ctx.lineWidth = 1;
    var step = niceStep(t1 - t0, Math.max(2, Math.floor(PW / 110)));
    ctx.textAlign = "center";
    for (var tv = Math.ceil(t0 / step) * step; tv <= t1 + step * 1e-9; tv += step) {
      var x = Math.round(X(tv)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, AXIS - 6); ctx.lineTo(x, H - 4); ctx.stroke();
      ctx.fillText(fmtTick(tv, step), x, AXIS - 10);
    }
    ctx.textAlign = "left";
    ctx.fillText(UNIT, 4, AXIS - 10);
    var drawn = 0, groups = 0, inGroups = 0;
    ctx.save();
    ctx.beginPath(); ctx.rect(X0, 0, PW, H); ctx.clip();
    for (var t = 0; t < 3; t++) {
      var top = lay.tops[t];
      v.lanes[t].forEach(function (q, l) {
        var y = top + l * LANE + 1, h = LANE - 2, n = q.s.length;
        var i = lowerBound(q.pm, t0 + 1e-300, 0, n);
        while (i < n && q.pm[i] <= t0) i++;
        while (i < n && q.s[i] < t1) {
          var x0 = X(q.s[i]), x1 = X(q.e[i]);
          if (x1 - x0 >= 1) {
            ctx.fillStyle = TCOLOR[t]; ctx.globalAlpha = 1;
            var cx0 = Math.max(x0, X0 - 2), cx1 = Math.min(x1, X0 + PW + 2);
            ctx.fillRect(cx0, y, Math.max(1, cx1 - cx0 - (x1 - x0 >= 3 ? 0.6 : 0)), h);
            if (cx1 - cx0 >= 40) {
              ctx.fillStyle = "#fff";
              ctx.save(); ctx.beginPath(); ctx.rect(cx0, y, cx1 - cx0 - 3, h); ctx.clip();
              ctx.fillText(nameOf(v.b, v.EV[q.id[i]]), cx0 + 3, y + h - 4);
              ctx.restore();
            }
            drawn++; i++;
            continue;
          }
          /* level of detail: sub-pixel slices merge with their neighbours */
          var gx0 = x0, gx1 = Math.max(x1, x0 + 1), j = i, cnt = 0;
          for (;;) {
            var j2 = lowerBound(q.s, t0 + (Math.floor(gx1) + 1 - X0) / sc, j, n);
            if (j2 <= j) j2 = j + 1;
            cnt += j2 - j;
            gx1 = Math.max(gx1, X(q.pm[j2 - 1]));
            j = j2;
            if (j >= n || q.s[j] >= t1) break;
            var nx0 = X(q.s[j]), nx1 = X(q.e[j]);
            if (nx1 - nx0 >= 1 || nx0 > gx1 + 1) break;
            gx1 = Math.max(gx1, nx1);
          }
          ctx.fillStyle = TCOLOR[t]; ctx.globalAlpha = cnt > 1 ? 0.6 : 1;
          ctx.fillRect(gx0, y, Math.max(1, gx1 - gx0), h);
          ctx.globalAlpha = 1;
          if (cnt > 1) { groups++; inGroups += cnt; } else drawn++;
          i = j;
        }
      });
    }
    ctx.restore();
    ctx.fillStyle = "#1d232a"; ctx.font = "600 11px system-ui,sans-serif";
    for (t = 0; t < 3; t++) {
      var ht = v.lanes[t].length * LANE;
      ctx.fillText(TRACKS[t], 6, lay.tops[t] + ht / 2 + 4);
      ctx.strokeStyle = "#d9dee4";
      ctx.beginPath(); ctx.moveTo(0, lay.tops[t] + ht + GAP / 2 + 0.5); ctx.lineTo(W, lay.tops[t] + ht + GAP / 2 + 0.5);
      ctx.stroke();
    }
    c.setAttribute("data-block", v.b.index);
    c.setAttribute("data-run", v.k >= 0 ? v.k + 1 : "all");
    c.setAttribute("data-t0", t0);
    c.setAttribute("data-t1", t1);
    c.setAttribute("data-span", v.hi - v.lo);
    c.setAttribute("data-slices", v.n);
    c.setAttribute("data-tracks", v.perTrack.join(" "));
    c.setAttribute("data-drawn", drawn);
    c.setAttribute("data-merged", groups);
    c.setAttribute("data-merged-slices", inGroups);
    tl.readout.textContent = "Showing " + fmt(t0 - v.lo) + "\u2013" + fmt(t1 - v.lo) + " " + UNIT + " of " +
      fmt(v.hi - v.lo) + " " + UNIT + " \u00b7 " + grouped(v.n) + " slices: " + grouped(drawn) + " drawn, " +
      grouped(inGroups) + " merged into " + grouped(groups) + " groups (narrower than a pixel)";
  }

  function setWindow(a, z) {
    var v = tl.view, span = v.hi - v.lo, min = Math.max(span * 1e-7, 1e-12);
    if (z - a < min) { var mid = (a + z) / 2; a = mid - min / 2; z = mid + min / 2; }
    if (z - a > span) { a = v.lo; z = v.hi; }
    if (a < v.lo) { z += v.lo - a; a = v.lo; }
    if (z > v.hi) { a -= z - v.hi; z = v.hi; }
    tl.t0 = Math.max(v.lo, a); tl.t1 = Math.min(v.hi, z);
    drawTimeline(); /* a few milliseconds even for a million slices: no need to defer */
  }
  function zoom(f, at) {
    if (at === undefined) at = (tl.t0 + tl.t1) / 2;
    setWindow(at - (at - tl.t0) * f, at + (tl.t1 - at) * f);
  }
  function timeAt(px) {
    var PW = tl.canvas.clientWidth - X0 - RIGHT;
    return tl.t0 + (px - X0) / PW * (tl.t1 - tl.t0);
  }

  function showView() {
    var b = BLOCKS[+tl.block.value - 1];
    if (!b) return;
    var all = tl.all.checked, k = Math.min(Math.max(1, Math.round(+tl.run.value) || 1), b.R) - 1;
    tl.run.max = b.R; tl.run.value = k + 1; tl.run.disabled = all;
    $("tl-prev").disabled = all || k === 0; $("tl-next").disabled = all || k === b.R - 1;
    $("tl-run-of").textContent = "of " + grouped(b.R) + (b.R < b.runs ? " kept (the block has " + grouped(b.runs) +
      ")" : "") + (all ? "" : " \u00b7 RunData " + b.runIndex[k]);
    tl.view = buildView(b, all ? -1 : k);
    tl.t0 = tl.view.lo; tl.t1 = tl.view.hi;
    drawTimeline();
  }

  function initTimeline() {
    var c = tl.canvas;
    if (!c) return;
    var first = null;
    BLOCKS.forEach(function (b) {
      if (!b.R || !b.E) return;
      option(tl.block, b.index, b.index + " \u00b7 " + b.name + " (" + grouped(b.runs) + " run" + (b.runs === 1 ? "" : "s") +
        ", " + grouped(b.E) + " events)");
      if (first === null) first = b.index;
    });
    if (first === null) { root.setAttribute("data-timeline", "empty"); return; }
    var d = META.timeline || {};
    tl.block.value = BLOCKS[d.block - 1] && BLOCKS[d.block - 1].R ? d.block : first;
    tl.run.value = d.run || 1;
    tl.block.addEventListener("change", function () { tl.run.value = 1; showView(); });
    tl.run.addEventListener("change", showView);
    tl.all.addEventListener("change", showView);
    $("tl-prev").addEventListener("click", function () { tl.run.value = +tl.run.value - 1; showView(); });
    $("tl-next").addEventListener("click", function () { tl.run.value = +tl.run.value + 1; showView(); });
    $("tl-zoom-in").addEventListener("click", function () { zoom(0.5); });
    $("tl-zoom-out").addEventListener("click", function () { zoom(2); });
    $("tl-reset").addEventListener("click", function () { setWindow(tl.view.lo, tl.view.hi); });
    c.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = c.getBoundingClientRect(), dy = ev.deltaMode === 1 ? ev.deltaY * 30 : ev.deltaY;
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(dy)) {
        var dx = ev.shiftKey ? dy : ev.deltaX, PW = c.clientWidth - X0 - RIGHT;
        setWindow(tl.t0 + dx / PW * (tl.t1 - tl.t0), tl.t1 + dx / PW * (tl.t1 - tl.t0));
      } else zoom(Math.exp(Math.max(-5, Math.min(5, dy * 0.002))), timeAt(ev.clientX - r.left));
    }, { passive: false });
    var drag = null;
    c.addEventListener("pointerdown", function (ev) {
      drag = { x: ev.clientX, t0: tl.t0, t1: tl.t1 };
      c.setPointerCapture(ev.pointerId); c.classList.add("dragging");
    });
    c.addEventListener("pointerup", function (ev) {
      drag = null; c.classList.remove("dragging");
      if (c.hasPointerCapture(ev.pointerId)) c.releasePointerCapture(ev.pointerId);
    });
    c.addEventListener("dblclick", function (ev) {
      var r = c.getBoundingClientRect();
      zoom(ev.shiftKey ? 2 : 0.5, timeAt(ev.clientX - r.left));
    });
    c.addEventListener("keydown", function (ev) {
      var w = tl.t1 - tl.t0;
      if (ev.key === "+" || ev.key === "=") zoom(0.5);
      else if (ev.key === "-") zoom(2);
      else if (ev.key === "0") setWindow(tl.view.lo, tl.view.hi);
      else if (ev.key === "ArrowLeft") setWindow(tl.t0 - w / 10, tl.t1 - w / 10);
      else if (ev.key === "ArrowRight") setWindow(tl.t0 + w / 10, tl.t1 + w / 10);
      else return;
      ev.preventDefault();
    });
    c.addEventListener("pointermove", function (ev) {
      var r = c.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      if (drag) {
        var PW = c.clientWidth - X0 - RIGHT, dt = (ev.clientX - drag.x) / PW * (drag.t1 - drag.t0);
        setWindow(drag.t0 - dt, drag.t1 - dt);
        showTip(tl.tip, null, 0, 0, null);
        return;
      }
      showTip(tl.tip, c.parentNode, x, y, hit(x, y));
    });
    c.addEventListener("mouseleave", function () { showTip(tl.tip, null, 0, 0, null); });
    window.addEventListener("resize", function () { drawTimeline(); drawRuns(); });
    showView();
  }

  /* The tooltip text at (x, y) of the canvas, or null. */
  function hit(x, y) {
    var v = tl.view, lay = tlLayout();
    if (!v || x < X0) return null;
    for (var t = 0; t < 3; t++) {
      var l = Math.floor((y - lay.tops[t]) / LANE);
      if (l < 0 || l >= v.lanes[t].length) continue;
      var q = v.lanes[t][l], n = q.s.length, PW = tl.canvas.clientWidth - X0 - RIGHT;
      var px = (tl.t1 - tl.t0) / PW, at = timeAt(x);
      var a = lowerBound(q.pm, at - px, 0, n), z = lowerBound(q.s, at + px, a, n);
      var best = -1;
      for (var i = a; i < z; i++) if (q.s[i] <= at + px && q.e[i] >= at - px) { if (best < 0 || q.e[i] - q.s[i] > q.e[best] - q.s[best]) best = i; }
      if (best < 0) return null;
      var s = q.id[best], name = nameOf(v.b, v.EV[s]);
      var more = z - a > 1 ? "\n(" + (z - a) + " slices within a pixel: zoom in)" : "";
      return name + "\n" + TRACKS[t] + " \u00b7 run " + (v.RK[s] + 1) + " (RunData " + v.b.runIndex[v.RK[s]] + ")" +
        "\nstarts at " + fmt(v.S[s] - (v.k >= 0 ? 0 : v.lo)) + " " + UNIT + ", lasts " + fmt(v.D[s]) + " " + UNIT + more;
    }
    return null;
  }

  initRuns();
  initTimeline();
  root.setAttribute("data-rendered", String(Math.round(performance.now())));
})();
]==]

return M
