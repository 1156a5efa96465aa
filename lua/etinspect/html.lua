--- etinspect.html: a self-contained HTML report of an Inspector.
--
--   insp:write_html(path [, opts])                    write it (temporary file + rename)
--   require("etinspect.html").render(insp [, opts])   -> the HTML text
--
-- One file that loads nothing: inline CSS, inline SVG, a few lines of inline
-- JavaScript (click a column heading of the events table to sort it), and a
-- Content-Security-Policy that forbids every external load.  Every text that
-- comes from the dump or the ETRecord is escaped.  See docs/html-report.md.
--
-- Options (all optional):
--   run        {block = NAME or INDEX, index = K}: the run the timeline shows
--              (default: run 1 of the first "Execute" block, else of block 1)
--   top        number of node types in the bar chart (default 20; 0 for all)
--   max_rows   events-table rows at most (default 5000; the rest are counted)
--   max_slices timeline slices at most (default 20000; the earliest are kept)
--   title      the page title (default "etinspect report: FILE")
local Frame = require("etinspect.frame")
local report = require("etinspect.report")
local pyrepr = require("etinspect.pyrepr")
local etinspect = require("etinspect")
local core = etinspect._core

local M = {}

--- The Content-Security-Policy of the page: nothing may be fetched; inline
-- styles and scripts and data: images are allowed.
M.CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
  .. "img-src data:; base-uri 'none'; form-action 'none'"

--- Default values of the numeric options.
M.DEFAULTS = { top = 20, max_rows = 5000, max_slices = 20000 }

local PER_SECOND = { ns = 1e9, us = 1e6, ms = 1e3, s = 1 }
local TRACKS = { "framework", "operators", "delegate" }
local MAX_LANES = 16

-- text ---------------------------------------------------------------------

--- Make `s` printable, valid UTF-8: control characters and bytes that are
-- not UTF-8 become visible escapes ("\n", "\t", "\x01"), as the text tables
-- show them.
-- @tparam string s
-- @treturn string
local function printable(s)
  if utf8.len(s) == nil then
    local out, i = {}, 1
    while i <= #s do
      local n, bad = utf8.len(s, i)
      if n then out[#out + 1] = s:sub(i); break end
      out[#out + 1] = s:sub(i, bad - 1)
      out[#out + 1] = string.format("\\x%02x", s:byte(bad))
      i = bad + 1
    end
    s = table.concat(out)
  end
  return (s:gsub("[%c]", function(c)
    return c == "\n" and "\\n" or c == "\t" and "\\t" or string.format("\\x%02x", c:byte())
  end))
end

local ESCAPES = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }

--- Escape any value for HTML text and attribute values (double- or
-- single-quoted): & < > " ' become entities, control characters and
-- invalid UTF-8 visible escapes.  nil is "".
-- @param v a value (tostring is applied)
-- @treturn string
function M.escape(v)
  if v == nil then return "" end
  return (printable(tostring(v)):gsub("[&<>\"']", ESCAPES))
end
local esc = M.escape

--- Truncate `s` to at most `n` characters (UTF-8), ending with "…" when cut.
-- @tparam string s
-- @tparam integer n
-- @treturn string
local function shorten(s, n)
  s = printable(s)
  local len = utf8.len(s)
  if len <= n then return s end
  if n < 2 then return "" end
  return s:sub(1, utf8.offset(s, n) - 1) .. "…"
end

--- Is `v` NaN?
local function is_nan(v) return v ~= v end

--- A number as the report shows it: integers (and integral floats below
-- 2^53) in full, other numbers with 6 significant digits; nil and NaN "".
-- @tparam number|nil v
-- @treturn string
local function num(v)
  if v == nil or is_nan(v) then return "" end
  if math.type(v) == "integer" then return string.format("%d", v) end
  if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%.0f", v) end
  return core.g(v)
end

--- An integer with thousands separators: 1234567 -> "1,234,567".
-- @tparam number v
-- @treturn string
local function grouped(v)
  local s = string.format("%.0f", v)
  local sign, digits = s:match("^(-?)(%d+)$")
  if not digits then return s end
  digits = digits:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return sign .. digits
end

--- A byte count in binary units: "2.0 KiB"; below 1024, "N B".
-- @tparam number n
-- @treturn string
local function human_bytes(n)
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local i = 1
  while math.abs(n) >= 1024 and i < #units do n = n / 1024; i = i + 1 end
  if i == 1 then return string.format("%d B", math.floor(n)) end
  return string.format("%.1f %s", n, units[i])
end

--- The last component of a path.
local function basename(p) return (tostring(p):match("([^/]+)/*$") or tostring(p)) end

-- the model ----------------------------------------------------------------

--- The timeline track of an event: "delegate" for a delegated event,
-- "operators" for a kernel (a node type of the top_ops script), else
-- "framework" (OPERATOR_CALL, DELEGATE_CALL, Method::*, ...).
-- @tparam Event ev
-- @treturn string
function M.track(ev)
  if ev.is_delegated_op then return "delegate" end
  if require("etinspect.scripts.top_ops").node_type(ev) then return "operators" end
  return "framework"
end

--- Resolve the run the timeline shows.
-- @tparam Inspector insp
-- @tparam[opt] table spec {block = name or index, index = run (1-based)}
-- @treturn integer|nil block index (nil when there are no blocks)
-- @treturn integer run index within the block
local function choose_run(insp, spec)
  local blocks = insp.event_blocks
  if spec ~= nil and type(spec) ~= "table" then
    error("write_html: opts.run must be a table {block = NAME or INDEX, index = K}", 0)
  end
  spec = spec or {}
  local bi
  local block = spec.block
  if block == nil then
    if #blocks == 0 then return nil, 1 end
    bi = 1
    for i, blk in ipairs(blocks) do
      if blk.name == "Execute" then bi = i; break end
    end
  elseif math.type(block) == "integer" then
    if block < 1 or block > #blocks then
      error(string.format("write_html: opts.run.block %d is not a block (there are %d)", block, #blocks), 0)
    end
    bi = block
  elseif type(block) == "string" then
    for i, blk in ipairs(blocks) do
      if blk.name == block then bi = i; break end
    end
    if not bi then error("write_html: opts.run.block: no block named '" .. block .. "'", 0) end
  else
    error("write_html: opts.run.block must be a block name or index", 0)
  end
  local k = spec.index or 1
  local runs = blocks[bi].num_runs
  if math.type(k) ~= "integer" or k < 1 or (k > runs and runs > 0) then
    error(string.format("write_html: opts.run.index %s is not a run of block %d '%s' (it has %d)",
      tostring(k), bi, blocks[bi].name, runs), 0)
  end
  return bi, k
end

--- The slices of one run: every event of the block with perf data and a
-- start time in that run, placed on its track.  Start times are the run's
-- raw ticks relative to its earliest event, converted with the source time
-- scale (cycles stay ticks); a 32-bit clock that wrapped inside the run is
-- unwrapped.  Durations are perf_data.raw[index] (target unit).
-- @tparam Inspector insp
-- @tparam[opt] table run {block = name or index, index = K} (see opts.run)
-- @treturn table {block = EventBlock, block_index =, index =, unit =,
--   span = run length (target unit), origin = first raw tick, slices =
--   sequence of {name, track, start, duration, event} in start order}, or
--   nil when the dump has no blocks
function M.timeline(insp, run)
  local bi, k = choose_run(insp, run)
  if not bi then return nil end
  local blk = insp.event_blocks[bi]
  local src, dst = insp.source_time_scale, insp.target_time_scale
  local factor = 1
  if PER_SECOND[src] and PER_SECOND[dst] then factor = PER_SECOND[src] / PER_SECOND[dst] end
  local raw = {}
  local lo, hi
  for _, ev in ipairs(blk.events) do
    local pd, st = ev.perf_data, ev.start_time
    local t = st and st[k]
    local d = pd and pd.raw[k]
    if t and d and d == d then
      raw[#raw + 1] = { ev = ev, t = t, d = d }
      if not lo or t < lo then lo = t end
      if not hi or t > hi then hi = t end
    end
  end
  -- a 32-bit device clock that wrapped during the run: small values come after large ones
  if lo and lo >= 0 and hi < 1 << 32 and hi - lo > 1 << 31 then
    lo = nil
    for _, s in ipairs(raw) do
      if s.t < 1 << 31 then s.t = s.t + (1 << 32) end
      if not lo or s.t < lo then lo = s.t end
    end
  end
  local slices, span = {}, 0
  for i, s in ipairs(raw) do
    local start = (s.t - lo) / factor
    slices[i] = { name = s.ev.name, track = M.track(s.ev), start = start, duration = s.d,
                  event = s.ev, order = i }
    if start + s.d > span then span = start + s.d end
  end
  table.sort(slices, function(a, b)
    if a.start ~= b.start then return a.start < b.start end
    if a.duration ~= b.duration then return a.duration > b.duration end
    return a.order < b.order
  end)
  for _, s in ipairs(slices) do s.order = nil end
  return { block = blk, block_index = bi, index = k, unit = dst, span = span,
           origin = lo, slices = slices }
end

--- The events behind the rows of the display frame (report.display_frame):
-- every event but OPERATOR_CALL, block by block, with its block index.
-- @tparam Inspector insp
-- @treturn {{event = Event, block = integer}, ...}
local function display_events(insp)
  local out = {}
  for bi, blk in ipairs(insp.event_blocks) do
    for _, ev in ipairs(blk.events) do
      if not tostring(ev.name):find("OPERATOR_CALL", 1, true) then
        out[#out + 1] = { event = ev, block = bi }
      end
    end
  end
  return out
end

--- The modules of an event, from its ETRecord module hierarchy: for each
-- linked graph node the innermost module, "path (Type)", distinct ones
-- joined by ", ".
-- @tparam Event ev
-- @treturn string
local function event_modules(ev)
  local ok, mh = pcall(function() return ev.module_hierarchy end)
  if not ok or type(mh) ~= "table" then return "" end
  local seen, out = {}, {}
  for _, stack in pairs(mh) do
    if type(stack) == "table" then
      local last
      for _, entry in pairs(stack) do last = entry end
      if type(last) == "table" then
        local path, typ = tostring(last[1] or ""), tostring(last[2] or "")
        local s = path ~= "" and path or "(root)"
        if typ ~= "" then s = s .. " (" .. (typ:match("([^%.]+)$") or typ) .. ")" end
        if not seen[s] then seen[s] = true; out[#out + 1] = s end
      end
    end
  end
  return table.concat(out, ", ")
end

-- page parts ---------------------------------------------------------------

local STYLE = [[
:root{--fg:#1d232a;--muted:#5b6672;--line:#d9dee4;--bg:#fff;--alt:#f5f7f9;
--framework:#8c9aab;--operators:#3d74b6;--delegate:#e0832b;--bar:#3d74b6}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1320px;margin:0 auto;padding:16px 20px 40px}
h1{font-size:22px;margin:0 0 8px;word-break:break-all}
h2{font-size:17px;margin:28px 0 6px;padding-bottom:4px;border-bottom:1px solid var(--line)}
p.note,.muted{color:var(--muted);font-size:13px;margin:4px 0 8px}
nav{font-size:13px;margin:4px 0 0}nav a{margin-right:14px;color:var(--operators)}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0 0;font-size:13px}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;word-break:break-all}
code,.mono,td.name{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12.5px;width:100%}
th,td{padding:3px 6px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{position:sticky;top:0;background:#eef1f4;font-weight:600}
#summary th{cursor:pointer}#summary th[aria-sort]::after{content:" \25B4"}#summary th[aria-sort=descending]::after{content:" \25BE"}
tbody tr:nth-child(even){background:var(--alt)}tbody tr:hover{background:#e6eef8}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.num{white-space:nowrap}
td.name{min-width:18em;max-width:32em;overflow-wrap:anywhere}
td.ticks{text-align:right;font-size:11.5px}
svg{display:block;width:100%;height:auto;font-family:system-ui,sans-serif}
svg text{font-size:11px;fill:var(--fg)}
svg .axis line,svg line.grid{stroke:var(--line)}svg .axis text,svg text.tick{fill:var(--muted);font-size:10px}
rect.bar{fill:var(--bar)}rect.bar[data-kind=delegate]{fill:var(--delegate)}rect.bar:hover{opacity:.8}
rect.slice{stroke:#fff;stroke-width:.5}rect.slice:hover{stroke:var(--fg);stroke-width:1}
rect.slice[data-track=framework]{fill:var(--framework)}rect.slice[data-track=operators]{fill:var(--operators)}
rect.slice[data-track=delegate]{fill:var(--delegate)}
text.slice-label{font-size:9.5px;fill:#fff;pointer-events:none}
text.track-label{font-weight:600}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:-1px}
footer{margin-top:32px;color:var(--muted);font-size:12px}
]]

local SCRIPT = [[
(function () {
  "use strict";
  document.documentElement.setAttribute("data-js", "ready");
  var table = document.getElementById("summary");
  if (!table || !table.tHead) return;
  var heads = table.tHead.rows[0].cells;
  function key(cell) {
    var v = cell.getAttribute("data-v");
    if (v !== null) { var n = parseFloat(v); return isNaN(n) ? -Infinity : n; }
    return cell.textContent;
  }
  function sortBy(col) {
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
  }
  Array.prototype.forEach.call(heads, function (th, i) {
    th.title = "sort by this column";
    th.addEventListener("click", function () { sortBy(i); });
  });
})();
]]

--- The header: file, format, blocks, runs, events, time unit, ETRecord.
-- @treturn string HTML
local function header_html(insp, view)
  local out = {}
  --- Add one term and its (HTML) description.
  local function item(k, v) out[#out + 1] = "<dt>" .. esc(k) .. "</dt><dd>" .. v .. "</dd>" end
  local path = insp.etdump_path or insp.profile_results_path
  local blocks = insp.event_blocks
  local runs, events, names = 0, 0, {}
  for _, blk in ipairs(blocks) do
    runs = runs + blk.num_runs
    events = events + #blk.events
    names[#names + 1] = string.format("%s (%d run%s, %d events)", esc(blk.name), blk.num_runs,
      blk.num_runs == 1 and "" or "s", #blk.events)
  end
  out[#out + 1] = '<header id="header"><h1>' .. esc(view.title) .. "</h1>"
  out[#out + 1] = '<dl class="meta">'
  item("File", path and ('<code id="file">' .. esc(path) .. "</code>") or "(bytes in memory)")
  item("Format", insp.format == "profile_results" and "legacy profiler dump" or "ETDump")
  item("Blocks", '<span id="blocks">' .. #blocks .. "</span>"
    .. (#names > 0 and (": " .. table.concat(names, "; ")) or ""))
  item("Runs", '<span id="runs">' .. runs .. "</span>")
  item("Events", '<span id="events">' .. events .. "</span>")
  local src, dst = insp.source_time_scale, insp.target_time_scale
  item("Time unit", '<span id="time-unit">' .. esc(dst) .. "</span>"
    .. (src == dst and (src == "cycles" and " (cycles: raw ticks)" or "")
        or (" (raw timestamps in " .. esc(src) .. ")")))
  local rec = insp.etrecord
  if rec then
    local methods = {}
    for i, m in ipairs(rec.methods or {}) do methods[i] = esc(m) end
    item("ETRecord", '<code id="etrecord">' .. esc(rec.path) .. "</code>"
      .. (#methods > 0 and (" (methods: " .. table.concat(methods, ", ") .. ")") or ""))
  else
    item("ETRecord", '<span id="etrecord" class="muted">none linked</span>')
  end
  local w = insp.warnings or {}
  if #w > 0 then item("Warnings", '<a href="#warnings">' .. #w .. "</a>") end
  out[#out + 1] = "</dl>"
  out[#out + 1] = '<nav><a href="#top-ops-section">Top operators</a><a href="#timeline-section">Timeline</a>'
    .. '<a href="#summary-section">Events</a>'
    .. (view.has_memory and '<a href="#memory-section">Memory</a>' or "") .. "</nav></header>"
  return table.concat(out, "\n")
end

--- The warnings found while loading, as a list (nothing when none).
-- @treturn string HTML
local function warnings_html(insp)
  local w = insp.warnings or {}
  if #w == 0 then return "" end
  local out = { '<section id="warnings"><h2>Warnings</h2><ul>' }
  for _, m in ipairs(w) do out[#out + 1] = '<li class="warning">' .. esc(m) .. "</li>" end
  out[#out + 1] = "</ul></section>"
  return table.concat(out, "\n")
end

--- The bar chart: the top node types of the top_ops script by total time.
-- @treturn string HTML
local function top_ops_html(insp, opts)
  local summary = require("etinspect.scripts.top_ops").summary(insp)
  local unit = insp.target_time_scale
  local avg_col = "avg (" .. unit .. ")"
  local n = #summary
  local top = opts.top
  if top > 0 and top < n then n = top end
  local out = { '<section id="top-ops-section"><h2>Top operators by total time</h2>' }
  out[#out + 1] = string.format('<p class="note">Per node type: the sum over its events of the '
    .. "mean time per run (%s), as the <code>top_ops</code> script computes it; showing %d of %d "
    .. "node types.</p>", esc(unit), n, #summary)
  if n == 0 then
    out[#out + 1] = '<p class="note" id="top-ops-empty">No operator or delegate events with timings.</p></section>'
    return table.concat(out, "\n")
  end
  local W, LW, ROW, VW = 1280, 300, 22, 200
  local BW = W - LW - VW
  local max = 0
  for i = 1, n do max = math.max(max, summary[i][avg_col]) end
  local H = n * ROW + 8
  out[#out + 1] = string.format('<svg id="top-ops" viewBox="0 0 %d %d" role="img" '
    .. 'aria-label="Top operators by total time">', W, H)
  for i = 1, n do
    local r = summary[i]
    local nt, v = tostring(r["node type"]), r[avg_col]
    local y = 4 + (i - 1) * ROW
    local w = max > 0 and v > 0 and v / max * BW or 0
    if w < 1 and v > 0 then w = 1 end
    local kind = nt:find("^delegate:") and "delegate" or "operator"
    local tip = string.format("%s\n%s events, %s %s per run in total, %.1f%% of all", esc(nt),
      num(r.count), esc(num(v)), esc(unit), r["avg %"])
    local label = unit == "cycles" and num(v) or string.format("%.4g", v)
    out[#out + 1] = string.format('<g class="bar-row"><text x="%d" y="%.1f" text-anchor="end">%s</text>'
      .. '<rect class="bar" data-name="%s" data-kind="%s" data-value="%s" x="%d" y="%d" width="%.2f" height="%d">'
      .. "<title>%s</title></rect>"
      .. '<text x="%.2f" y="%.1f" class="value">%s %s (%.1f%%)</text></g>',
      LW - 8, y + 12.5, esc(shorten(nt, 44)),
      esc(nt), kind, core.repr(v + 0.0), LW, y + 1, w, ROW - 6, tip,
      LW + w + 6, y + 12.5, esc(label), esc(unit), r["avg %"])
  end
  out[#out + 1] = "</svg></section>"
  return table.concat(out, "\n")
end

--- A "nice" axis step (1, 2 or 5 times a power of ten) near span/target.
-- @tparam number span
-- @tparam integer target number of intervals wanted
-- @treturn number
local function nice_step(span, target)
  local raw = span / target
  local p = 10 ^ math.floor(math.log(raw, 10))
  for _, m in ipairs { 1, 2, 5, 10 } do
    if raw <= m * p then return m * p end
  end
  return 10 * p
end

--- The timeline: one run, one row per track, nested slices in lanes.
-- @treturn string HTML
local function timeline_html(insp, opts)
  local out = { '<section id="timeline-section">' }
  local tl = M.timeline(insp, opts.run)
  if not tl then
    out[#out + 1] = '<h2>Timeline</h2><p class="note">The dump has no event blocks.</p></section>'
    return table.concat(out, "\n")
  end
  local blk = tl.block
  out[#out + 1] = string.format('<h2>Timeline: block %d “%s”, run %d of %d</h2>', tl.block_index,
    esc(blk.name), tl.index, blk.num_runs)
  local slices = tl.slices
  local total = #slices
  if total > opts.max_slices then
    local kept = {}
    for i = 1, opts.max_slices do kept[i] = slices[i] end
    slices = kept
  end
  local unit = tl.unit
  local src = insp.source_time_scale
  out[#out + 1] = string.format('<p class="note">Every event of the run with a duration, placed at its '
    .. "start (raw %s ticks, relative to the run's first event%s) and as long as its duration (%s). "
    .. "Other runs of the block and other blocks are not shown. "
    .. '<span class="legend"><span style="background:var(--framework)"></span>framework'
    .. '<span style="background:var(--operators)"></span>operators'
    .. '<span style="background:var(--delegate)"></span>delegate</span></p>',
    esc(src), src == unit and "" or (", converted to " .. esc(unit)), esc(unit))
  if total > #slices then
    out[#out + 1] = string.format('<p class="note truncated" id="timeline-truncated">Showing the first '
      .. "%d of %d slices (opts.max_slices).</p>", #slices, total)
  end
  if total == 0 then
    out[#out + 1] = '<p class="note" id="timeline-empty">No event of this run has a start time and a duration.</p></section>'
    return table.concat(out, "\n")
  end
  local span = 0
  for _, s in ipairs(slices) do span = math.max(span, s.start + s.duration) end
  if not (span > 0) then span = 1 end
  -- lanes per track: a slice goes to the first lane free at its start
  local eps = span * 1e-9
  local lanes, by_track = {}, {}
  for _, tr in ipairs(TRACKS) do lanes[tr] = {}; by_track[tr] = 0 end
  for _, s in ipairs(slices) do
    local ends = lanes[s.track]
    local lane
    for l = 1, #ends do
      if ends[l] <= s.start + eps then lane = l; break end
    end
    if not lane then
      lane = #ends < MAX_LANES and #ends + 1 or #ends
    end
    ends[lane] = math.max(ends[lane] or 0, s.start + s.duration)
    s.lane = lane
    by_track[s.track] = by_track[s.track] + 1
  end
  local W, X0, RIGHT, AXIS, LANE, GAP = 1280, 120, 16, 26, 18, 10
  local PW = W - X0 - RIGHT
  local top = {}
  local y = AXIS
  for _, tr in ipairs(TRACKS) do
    top[tr] = y
    y = y + math.max(1, #lanes[tr]) * LANE + GAP
  end
  local H = y
  --- The x coordinate of time t (target unit, from the run's start).
  local function x(t) return X0 + t / span * PW end
  out[#out + 1] = string.format('<svg id="timeline" viewBox="0 0 %d %d" role="img" aria-label="Timeline of one run" '
    .. 'data-block="%d" data-run="%d" data-span="%s" data-unit="%s">', W, H, tl.block_index, tl.index,
    core.repr(span + 0.0), esc(unit))
  -- axis and grid
  local step = nice_step(span, 10)
  out[#out + 1] = '<g class="axis">'
  local t = 0
  while t <= span + step * 1e-9 do
    local xt = x(t)
    out[#out + 1] = string.format('<line x1="%.2f" y1="%d" x2="%.2f" y2="%d"/>'
      .. '<text x="%.2f" y="%d" text-anchor="%s">%s</text>', xt, AXIS - 6, xt, H - GAP,
      xt, AXIS - 10, t == 0 and "start" or "middle", esc(num(t) .. (t == 0 and (" " .. unit) or "")))
    t = t + step
  end
  out[#out + 1] = "</g>"
  -- track labels
  for _, tr in ipairs(TRACKS) do
    local h = math.max(1, #lanes[tr]) * LANE
    out[#out + 1] = string.format('<g class="track" data-track="%s" data-slices="%d">'
      .. '<text class="track-label" x="8" y="%.1f">%s</text>'
      .. '<line class="grid" x1="0" y1="%.1f" x2="%d" y2="%.1f"/></g>',
      tr, by_track[tr], top[tr] + h / 2 + 4, tr, top[tr] + h + GAP / 2, W, top[tr] + h + GAP / 2)
  end
  -- slices
  for _, s in ipairs(slices) do
    local sx = x(s.start)
    local w = s.duration / span * PW
    if w < 1 then w = 1 end
    local sy = top[s.track] + (s.lane - 1) * LANE + 1
    local tip = string.format("%s\n%s track; starts at %s %s, lasts %s %s", esc(s.name), s.track,
      esc(num(s.start)), esc(unit), esc(num(s.duration)), esc(unit))
    out[#out + 1] = string.format('<rect class="slice" data-name="%s" data-track="%s" data-start="%s" '
      .. 'data-duration="%s" x="%.2f" y="%d" width="%.2f" height="%d"><title>%s</title></rect>',
      esc(s.name), s.track, core.repr(s.start + 0.0), core.repr(s.duration + 0.0), sx, sy, w, LANE - 2, tip)
    if w >= 40 then
      local chars = math.floor((w - 6) / 6.2)
      out[#out + 1] = string.format('<text class="slice-label" x="%.2f" y="%d">%s</text>', sx + 3,
        sy + 12, esc(shorten(s.name, chars)))
    end
  end
  out[#out + 1] = "</svg></section>"
  return table.concat(out, "\n")
end

--- One cell of the events table.
-- @tparam string col column name
-- @param v the cell's value
-- @treturn string HTML (<td>)
local function summary_cell(col, v)
  if type(v) == "number" then
    return string.format('<td class="num" data-v="%s">%s</td>',
      is_nan(v) and "" or (math.type(v) == "integer" and string.format("%d", v) or core.repr(v)), esc(num(v)))
  end
  if type(v) == "boolean" then return "<td>" .. (v and "True" or "False") .. "</td>" end
  if v == nil then return "<td></td>" end
  if type(v) == "table" then
    local items = {}
    local n = #v
    if col == "start_time" then
      -- the first run's start; all of them (up to 100) in the tooltip
      local text = (n > 0 and num(v[1]) or "") .. (n > 1 and string.format(" … (%d\u{a0}runs)", n) or "")
      local full = {}
      for i = 1, math.min(n, 100) do full[i] = num(v[i]) end
      return string.format('<td class="ticks mono" data-v="%s" title="%s">%s</td>', n > 0 and num(v[1]) or "",
        esc(table.concat(full, ", ") .. (n > 100 and ", …" or "")), esc(text))
    end
    for i = 1, n do items[i] = pyrepr.str(v[i]) end
    return "<td>" .. esc(table.concat(items, ", ")) .. "</td>"
  end
  local cls = (col == "event_name") and ' class="name"' or ""
  return "<td" .. cls .. ">" .. esc(pyrepr.str(v)) .. "</td>"
end

--- The events table: the rows of print_data_tabular (report.display_frame).
-- Without an ETRecord the op_types and delegate_backend_name columns (empty
-- then) are left out; with one, a module column follows op_types.
-- @treturn string HTML
local function summary_html(insp, opts)
  local f = report.display_frame(insp)
  local linked = insp.etrecord ~= nil
  local evs = display_events(insp)
  local cols = {}
  for _, c in ipairs(f.columns) do
    if linked or (c ~= "op_types" and c ~= "delegate_backend_name") then cols[#cols + 1] = c end
    if linked and c == "op_types" and #evs == #f then cols[#cols + 1] = "module" end
  end
  local out = { '<section id="summary-section"><h2>Events</h2>' }
  local n = math.min(#f, opts.max_rows)
  out[#out + 1] = string.format('<p class="note">The rows of <code>print_data_tabular</code>: every event '
    .. "of every block but OPERATOR_CALL, times in %s. Click a heading to sort.</p>", esc(insp.target_time_scale))
  if n < #f then
    out[#out + 1] = string.format('<p class="note truncated" id="summary-truncated">Showing the first %d of '
      .. "%d rows (opts.max_rows); <code>--tsv_path</code> writes them all.</p>", n, #f)
  end
  out[#out + 1] = '<div class="scroll"><table id="summary"><thead><tr><th class="num">#</th>'
  for _, c in ipairs(cols) do
    local numeric = c:find("^p%d") or c:find("^avg") or c:find("^min") or c:find("^max")
    -- long names may break after their underscores
    out[#out + 1] = "<th" .. (numeric and ' class="num"' or "") .. ">" .. esc(c):gsub("_", "_<wbr>") .. "</th>"
  end
  out[#out + 1] = "</tr></thead><tbody>"
  for i = 1, n do
    local row = f[i]
    local cells = { string.format('<tr class="event" id="event-%d"%s><td class="num" data-v="%d">%d</td>', i - 1,
      #evs == #f and string.format(' data-block="%d"', evs[i].block) or "", i - 1, i - 1) }
    for _, c in ipairs(cols) do
      if c == "module" then
        cells[#cells + 1] = "<td>" .. esc(event_modules(evs[i].event)) .. "</td>"
      else
        cells[#cells + 1] = summary_cell(c, row[c])
      end
    end
    cells[#cells + 1] = "</tr>"
    out[#out + 1] = table.concat(cells)
  end
  out[#out + 1] = "</tbody></table></div></section>"
  return table.concat(out, "\n")
end

--- The memory rows of every block (block:memory_summary()), or {} when no
-- block has allocations (legacy dumps have no EventBlock memory_summary).
-- @treturn {{block_index=, block=, row}, ...}
local function memory_rows(insp)
  local rows = {}
  for bi, blk in ipairs(insp.event_blocks) do
    local ok, summary = pcall(function() return blk:memory_summary() end)
    if ok and type(summary) == "table" then
      for _, r in ipairs(summary) do rows[#rows + 1] = { block_index = bi, block = blk, row = r } end
    end
  end
  return rows
end

--- The memory table: per block and allocator, from block:memory_summary().
-- @treturn string HTML ("" when no block has allocations)
local function memory_html(rows)
  if #rows == 0 then return "" end
  local out = { '<section id="memory-section"><h2>Memory</h2>',
    '<p class="note">Allocation events per block and allocator: bytes over all runs of the block, '
      .. "per run, and the largest single allocation.</p>",
    '<div class="scroll"><table id="memory"><thead><tr><th>block</th><th class="num">allocator id</th>'
      .. '<th>allocator</th><th class="num">allocations</th><th class="num">bytes</th>'
      .. '<th class="num">bytes per run</th><th class="num">largest</th></tr></thead><tbody>' }
  for _, m in ipairs(rows) do
    local r = m.row
    --- A byte-count cell: grouped digits, binary units in the tooltip.
    local function bytes(v)
      return string.format('<td class="num" data-v="%s" title="%s">%s</td>', num(v), esc(human_bytes(v)),
        esc(v == math.floor(v) and grouped(v) or string.format("%.1f", v)))
    end
    out[#out + 1] = string.format('<tr class="alloc"><td>%d “%s”</td><td class="num">%d</td><td>%s</td>'
      .. '<td class="num">%s</td>%s%s%s</tr>', m.block_index, esc(m.block.name), r.allocator_id,
      r.allocator and esc(r.allocator) or '<span class="muted">(unnamed)</span>', grouped(r.allocations),
      bytes(r.bytes), bytes(r.bytes_per_run), bytes(r.largest))
  end
  out[#out + 1] = "</tbody></table></div></section>"
  return table.concat(out, "\n")
end

--- Check and complete the options (defaults of M.DEFAULTS).
-- @tparam[opt] table opts
-- @treturn table
local function options(opts)
  if opts ~= nil and type(opts) ~= "table" then error("write_html: opts must be a table", 0) end
  opts = opts or {}
  local o = {}
  for k, v in pairs(M.DEFAULTS) do
    local given = opts[k]
    if given ~= nil then
      if math.type(given) ~= "integer" or given < 0 then
        error("write_html: opts." .. k .. " must be a non-negative integer", 0)
      end
      v = given
    end
    o[k] = v
  end
  o.run, o.title = opts.run, opts.title
  return o
end

--- Render the report of an Inspector as one HTML document.
-- @tparam Inspector insp
-- @tparam[opt] table opts run, top, max_rows, max_slices, title (see the
--   module's comment)
-- @treturn string the HTML text (UTF-8)
function M.render(insp, opts)
  local o = options(opts)
  local path = insp.etdump_path or insp.profile_results_path
  local mem = memory_rows(insp)
  local view = {
    title = o.title or ("etinspect report: " .. (path and basename(path) or "ETDump")),
    has_memory = #mem > 0,
  }
  local parts = {
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    -- M.CSP is a constant without double quotes: written as it is, greppable
    '<meta http-equiv="Content-Security-Policy" content="' .. M.CSP .. '">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="etinspect ' .. esc(etinspect.version) .. '">',
    "<title>" .. esc(view.title) .. "</title>",
    "<style>" .. STYLE .. "</style>",
    "</head>",
    "<body><main>",
    header_html(insp, view),
    warnings_html(insp),
    top_ops_html(insp, o),
    timeline_html(insp, o),
    summary_html(insp, o),
    memory_html(mem),
    '<footer>Written by etinspect ' .. esc(etinspect.version) .. ". This page loads nothing: "
      .. "its styles, charts and script are inline.</footer>",
    "</main>",
    "<script>" .. SCRIPT .. "</script>",
    "</body>",
    "</html>",
    "",
  }
  return table.concat(parts, "\n")
end

--- Are two paths the same file?  The same string, or an existing file
-- with exactly the same bytes (another spelling of the path, a link).
-- @tparam string a
-- @tparam string b
-- @treturn boolean
local function same_file(a, b)
  if a == b then return true end
  local fa = io.open(a, "rb")
  if not fa then return false end
  local fb = io.open(b, "rb")
  if not fb then fa:close(); return false end
  local same = fa:seek("end") == fb:seek("end")
  if same then
    fa:seek("set"); fb:seek("set")
    repeat
      local ca, cb = fa:read(1 << 16), fb:read(1 << 16)
      if ca ~= cb then same = false; break end
    until ca == nil
  end
  fa:close(); fb:close()
  return same
end

--- Inspector:write_html(path [, opts]): write the report to `path` through a
-- temporary file renamed into place (or to an open file).  Refuses to
-- overwrite the ETDump (or legacy dump) and the ETRecord it was read from.
-- @tparam Inspector insp
-- @tparam string|file path
-- @tparam[opt] table opts as for render
function M.write_html(insp, path, opts)
  if type(path) ~= "string" and io.type(path) ~= "file" then
    error("write_html: a path (or an open file) is required", 2)
  end
  if type(path) == "string" then
    local rec = insp.etrecord
    for _, input in ipairs { insp.etdump_path or false, insp.profile_results_path or false,
                             rec and rec.path or false } do
      if input and same_file(path, input) then
        error("write_html: refusing to overwrite the input '" .. input .. "'", 2)
      end
    end
  end
  Frame.emit(M.render(insp, opts), path)
end

--- Add write_html to the Inspector's methods (called by etinspect.init).
function M.install()
  debug.getregistry()["etinspect.Inspector"].__methods.write_html = M.write_html
end

return M
