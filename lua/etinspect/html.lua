--- etinspect.html: a self-contained HTML report of an Inspector.
--
--   insp:write_html(path [, opts])                    write it (temporary file + rename)
--   require("etinspect.html").render(insp [, opts])   -> the HTML text
--
-- One file that loads nothing: inline CSS, inline SVG, an inline script
-- (lua/etinspect/html_assets.lua) and the dump's samples inline as base64
-- (src/core/output/htmldata.h), under a Content-Security-Policy that forbids every
-- external load.  Every text that comes from the dump or the ETRecord is
-- escaped.  In page order: header, warnings, the run-over-run chart, top
-- operators per block (time per run and its spread over the runs), the
-- timeline (canvas: zoom, pan, every block and run), the events table,
-- memory.  See docs/html-report.md.
--
-- Options (all optional; checked with the options contract):
--   run        {block = NAME or INDEX, index = K}: the run the timeline shows
--              first (default: run 1 of the first "Execute" block, or
--              upstream's "Execute::<method>", else of
--              block 1)
--   top        node types per block in the top-operators chart (default 20;
--              0 for all)
--   max_rows   events-table rows at most (default 5000; the rest are counted)
--   max_slices samples (event x run) the page holds for its charts at most
--              (default 2,000,000; the first runs of every block are kept;
--              0: no limit)
--   title      the page title (default "etinspect report: FILE")
--   max_graph_nodes  with an ETRecord, the graph view's nodes at most
--              (default 2000; a larger graph gets a note instead; 0: no
--              limit) - see etinspect.html_graph
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local pyrepr = require("etinspect.pyrepr")
local assets = require("etinspect.html_assets")
local etinspect = require("etinspect")
-- loaded now, not at the first report: a script may have removed the
-- globals (require) by then
local top_ops = require("etinspect.scripts.top_ops")
local graph_view = require("etinspect.html_graph")
local core = etinspect._core

local M = {}

--- The Content-Security-Policy of the page: nothing may be fetched; inline
-- styles and scripts and data: images are allowed.
M.CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
  .. "img-src data:; base-uri 'none'; form-action 'none'"

--- Default values of the numeric options.
M.DEFAULTS = { top = 20, max_rows = 5000, max_slices = 2000000, max_graph_nodes = 2000 }

--- The options contract of write_html and render.
local OPTIONS = { run = "table", top = "integer", max_rows = "integer", max_slices = "integer",
                  title = "string", max_graph_nodes = "integer" }

--- Events-table cells listing more items than this collapse (<details>).
local LIST_OPEN = 3
--- Start ticks listed in a start_time cell's tooltip.
local TICKS_SHOWN = 20
--- Blocks with a top-operators chart at most (the rest are counted).
local MAX_OP_BLOCKS = 12

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
  v = tostring(v)
  if not v:find("[%c&<>\"'\128-\255]") then return v end -- the common case: nothing to do
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

--- A "nice" axis step (1, 2 or 5 times a power of ten) near span/target.
-- @tparam number span (> 0)
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


--- A string as a JSON string literal safe inside a <script> element:
-- printable (valid UTF-8, no control characters), with `"` `\` escaped and
-- `<` `>` `&` as \u escapes, so no "</script" or "<!--" can appear.
-- @tparam string s
-- @treturn string
local JSON_ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["<"] = "\\u003c", [">"] = "\\u003e", ["&"] = "\\u0026" }
local function json_str(s)
  return '"' .. printable(tostring(s)):gsub('[\\"<>&]', JSON_ESCAPES) .. '"'
end

-- the model ----------------------------------------------------------------

--- The timeline track of an event, as the trace gives it (one rule in C,
-- src/core/output/timeline.h): "delegate" for a delegated event,
-- "framework" for Method::* and Program::* events, else "operators"
-- (OPERATOR_CALL around its kernel, DELEGATE_CALL, native_call_*, ...).
-- @tparam Event ev
-- @treturn string
function M.track(ev)
  return core.html_track(ev)
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
      if require("etinspect.scripts.framework_tax").is_execute_block(blk.name) then bi = i; break end
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

--- The slices of one run as the page's timeline places them: every event
-- of the block with a duration and a start in that run, on its track.
-- Starts are relative to the run's origin - its earliest start tick among
-- non-delegated events (among all when it has none) - converted with the
-- source time scale (cycles stay ticks); a 32-bit clock that wrapped inside
-- the run is unwrapped; a delegated event logged with start tick 0 (a
-- backend that logs durations only) or outside its DELEGATE_CALL gets a
-- synthetic start inside it, as in the trace (src/core/output/timeline.h).
-- Durations are perf_data.raw[index] (target unit).
-- (src/core/output/htmldata.h)
-- @tparam Inspector insp
-- @tparam[opt] table run {block = name or index, index = K} (see opts.run)
-- @treturn table {block = EventBlock, block_index =, index =, unit =,
--   span = run length (target unit), origin = the origin's raw tick,
--   slices = sequence of {name, track, start, duration, event} in start
--   order (longer first at equal starts)}, or nil when the dump has no
--   blocks
-- @raise the opts.run errors of write_html
function M.timeline(insp, run)
  local bi, k = choose_run(insp, run)
  if not bi then return nil end
  local blk = insp.event_blocks[bi]
  local starts, origin = core.html_run(blk, k)
  local slices, span = {}, 0
  for e, ev in ipairs(blk.events) do
    local pd, start = ev.perf_data, starts[e]
    local d = pd and pd.raw[k]
    if start == start and d and d == d then
      slices[#slices + 1] = { name = ev.name, track = M.track(ev), start = start, duration = d,
                              event = ev, order = e }
      if start + d > span then span = start + d end
    end
  end
  table.sort(slices, function(a, b)
    if a.start ~= b.start then return a.start < b.start end
    if a.duration ~= b.duration then return a.duration > b.duration end
    return a.order < b.order
  end)
  for _, s in ipairs(slices) do s.order = nil end
  return { block = blk, block_index = bi, index = k, unit = insp.target_time_scale, span = span,
           origin = origin, slices = slices }
end

--- The modules of an event, from its ETRecord module hierarchy: for each
-- linked graph node the innermost module, "path (Type)", distinct ones in
-- order.
-- @tparam Event ev
-- @treturn {string,...}
local function event_modules(ev)
  local ok, mh = pcall(function() return ev.module_hierarchy end)
  if not ok or type(mh) ~= "table" then return {} end
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
  return out
end

-- page parts ---------------------------------------------------------------

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
  if #names > 12 then
    local n = #names
    for i = n, 13, -1 do names[i] = nil end
    names[13] = string.format("… %d more", n - 12)
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
  out[#out + 1] = '<nav><a href="#runs-section">Run over run</a><a href="#top-ops-section">Top operators</a>'
    .. '<a href="#timeline-section">Timeline</a>'
    .. (view.has_graph and '<a href="#graph-section">Graph</a>' or "") .. '<a href="#summary-section">Events</a>'
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

--- A note saying which runs the page's data holds, when max_slices cut it.
-- @treturn string HTML ("" when every run is there)
local function kept_note(insp, plan, id)
  local cut = {}
  for bi, blk in ipairs(insp.event_blocks) do
    if plan[bi].runs < blk.num_runs then
      cut[#cut + 1] = string.format("block %d: the first %d of %d runs", bi, plan[bi].runs, blk.num_runs)
    end
  end
  if #cut == 0 then return "" end
  return string.format('<p class="note truncated" id="%s">The page holds %s samples (opts.max_slices): %s.</p>',
    id, grouped(plan.samples), esc(table.concat(cut, "; ")))
end

--- The run-over-run chart: canvas and controls, drawn by the page's script.
-- @treturn string HTML
local function runs_html(insp, plan)
  return table.concat({
    '<section id="runs-section"><h2>Run over run</h2>',
    string.format('<p class="note">The duration of one event in every run, in dump order (x: the RunData index), '
      .. "in %s: warm-up shows as first runs above the rest (the first run is ringed), drift as a trend "
      .. "(the dark line: medians of about 50 buckets of runs; more runs than pixels are drawn as one "
      .. "min–max line per pixel). By default <code>Method::execute</code> (upstream's "
      .. "<code>Method::execute::&lt;method&gt;</code> too) of every block; pick another "
      .. "event below or click a row of the events table.</p>", esc(insp.target_time_scale)),
    kept_note(insp, plan, "runs-truncated"),
    '<div class="controls"><label>event <select id="runs-event"></select></label></div>',
    '<div class="chart"><canvas id="runs-chart" height="280" role="img" '
      .. 'aria-label="Duration of an event per run"></canvas><div class="tip" id="runs-tip"></div></div>',
    '<ul class="stats" id="runs-stats"></ul></section>',
  }, "\n")
end

--- The top node types of each block (top_ops' node types, blocks other
-- than "Default"): per node type its time per run of the block - the sum
-- of its events' durations in a run - as the mean over the runs (bars) and
-- its spread over them (box: min, p25, median, p75, max).
-- @treturn {{block=, index=, rows = {{name=, kind=, events=, spread}, ...}, types=}, ...}
local function top_ops_by_block(insp, top)
  local out = {}
  for bi, blk in ipairs(insp.event_blocks) do
    if blk.name ~= "Default" then
      local groups, ids, names, counts = {}, {}, {}, {}
      for e, ev in ipairs(blk.events) do
        local nt = ev.perf_data and top_ops.node_type(ev)
        if nt then
          local g = ids[nt]
          if not g then g = #names + 1; ids[nt] = g; names[g] = nt; counts[g] = 0 end
          groups[e] = g
          counts[g] = counts[g] + 1
        end
      end
      if #names > 0 then
        local spread = core.html_spread(blk, groups)
        local rows = {}
        for g, nt in ipairs(names) do
          rows[g] = { name = nt, kind = nt:find("^delegate:") and "delegate" or "operator", events = counts[g],
                      s = spread[g] }
        end
        table.sort(rows, function(a, b)
          local x, y = a.s.mean, b.s.mean
          if x ~= y then
            if x ~= x then return false end
            if y ~= y then return true end
            return x > y
          end
          return a.name < b.name
        end)
        local total = 0
        for _, r in ipairs(rows) do if r.s.mean == r.s.mean then total = total + r.s.mean end end
        local n = #rows
        if top > 0 and top < n then for i = n, top + 1, -1 do rows[i] = nil end end
        out[#out + 1] = { block = blk, index = bi, rows = rows, types = n, total = total }
      end
    end
  end
  return out
end

--- A number for a chart label: cycles in full, times with 4 digits.
local function label_num(v, unit)
  if unit == "cycles" then return num(v) end
  return string.format("%.4g", v)
end

--- The top-operators section: one chart per block (at most MAX_OP_BLOCKS).
-- @treturn string HTML
local function top_ops_html(insp, opts)
  local unit = insp.target_time_scale
  local charts = top_ops_by_block(insp, opts.top)
  local out = { '<section id="top-ops-section"><h2>Top operators: time per run of each block</h2>' }
  out[#out + 1] = string.format('<p class="note">Per block and node type (operators as <code>top_ops</code> '
    .. "names them, delegated events as <code>delegate:NAME</code>): its time in a run of the block - the "
    .. "sum of its events' durations in that run - as the mean over the block's runs (bars) and how it "
    .. "spreads over them (box: p25–p75 with the median, whiskers: min and max), in %s. Blocks are "
    .. "different runs (branches, methods): their times are not added up.</p>", esc(unit))
  if #charts == 0 then
    out[#out + 1] = '<p class="note" id="top-ops-empty">No operator or delegate events with timings.</p></section>'
    return table.concat(out, "\n")
  end
  local W, LW, BW, VW, GAP = 1280, 250, 330, 150, 30
  local BX0 = LW + BW + VW + GAP
  local PW = W - BX0 - 16
  local ROW, HEAD, FOOT = 22, 20, 24
  for ci, c in ipairs(charts) do
    if ci > MAX_OP_BLOCKS then
      out[#out + 1] = string.format('<p class="note truncated" id="top-ops-truncated">%d more blocks have '
        .. "operators; they are not charted.</p>", #charts - MAX_OP_BLOCKS)
      break
    end
    local blk, rows = c.block, c.rows
    out[#out + 1] = string.format('<h3>Block %d “%s”: %s run%s, showing %d of %d node types</h3>', c.index,
      esc(blk.name), grouped(blk.num_runs), blk.num_runs == 1 and "" or "s", #rows, c.types)
    local max_mean, max_max = 0, 0
    for _, r in ipairs(rows) do
      if r.s.mean == r.s.mean then max_mean = math.max(max_mean, r.s.mean) end
      if r.s.max == r.s.max then max_max = math.max(max_max, r.s.max) end
    end
    local H = HEAD + #rows * ROW + FOOT
    out[#out + 1] = string.format('<svg class="top-ops" id="top-ops-%d" data-block="%d" viewBox="0 0 %d %d" '
      .. 'role="img" aria-label="Top operators of block %d">', c.index, c.index, W, H, c.index)
    out[#out + 1] = string.format('<text class="panel" x="%d" y="13">mean time per run (%s)</text>'
      .. '<text class="panel" x="%d" y="13">spread over the %s runs</text>', LW, esc(unit), BX0,
      grouped(blk.num_runs))
    for i, r in ipairs(rows) do
      local s = r.s
      local y = HEAD + (i - 1) * ROW
      local v = s.mean
      local w = max_mean > 0 and v > 0 and v / max_mean * BW or 0
      if w < 1 and v > 0 then w = 1 end
      local share = c.total > 0 and v / c.total * 100 or 0
      local tip = string.format("%s\nblock %d: %d event%s, %s %s per run on average (%.1f%% of the block's "
        .. "operator time); per run min %s, median %s, max %s", esc(r.name), c.index, r.events,
        r.events == 1 and "" or "s", esc(num(v)), esc(unit), share, esc(num(s.min)), esc(num(s.p50)),
        esc(num(s.max)))
      out[#out + 1] = string.format('<g class="bar-row"><text x="%d" y="%.1f" text-anchor="end">%s</text>'
        .. '<rect class="bar" data-name="%s" data-kind="%s" data-block="%d" data-value="%s" data-runs="%d" '
        .. 'x="%d" y="%d" width="%.2f" height="%d"><title>%s</title></rect>'
        .. '<text x="%.2f" y="%.1f" class="value">%s %s (%.1f%%)</text></g>',
        LW - 8, y + 12.5, esc(shorten(r.name, 40)), esc(r.name), r.kind, c.index, core.repr(v + 0.0), s.runs,
        LW, y + 1, w, ROW - 6, tip, LW + w + 6, y + 12.5, esc(label_num(v, unit)), esc(unit), share)
      if max_max > 0 and s.min == s.min then
        --- x of a value in the box panel
        local function bx(t) return BX0 + t / max_max * PW end
        local mid = y + (ROW - 4) / 2 + 1
        out[#out + 1] = string.format('<g class="box" data-name="%s" data-block="%d" data-min="%s" data-p25="%s" '
          .. 'data-median="%s" data-p75="%s" data-max="%s"><title>%s</title>'
          .. '<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f"/>'
          .. '<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f"/><line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f"/>'
          .. '<rect x="%.2f" y="%d" width="%.2f" height="%d"/>'
          .. '<line class="median" x1="%.2f" y1="%d" x2="%.2f" y2="%d"/></g>',
          esc(r.name), c.index, core.repr(s.min + 0.0), core.repr(s.p25 + 0.0), core.repr(s.p50 + 0.0),
          core.repr(s.p75 + 0.0), core.repr(s.max + 0.0), tip,
          bx(s.min), mid, bx(s.max), mid,
          bx(s.min), mid - 4, bx(s.min), mid + 4, bx(s.max), mid - 4, bx(s.max), mid + 4,
          bx(s.p25), y + 3, math.max(1, bx(s.p75) - bx(s.p25)), ROW - 8,
          bx(s.p50), y + 2, bx(s.p50), y + ROW - 4)
      end
    end
    -- the box panel's axis
    if max_max > 0 then
      local step = nice_step(max_max, 5)
      local ay = HEAD + #rows * ROW + 2
      local ticks = { '<g class="axis">' }
      local t = 0
      while t <= max_max * (1 + 1e-9) do
        local x = BX0 + t / max_max * PW
        ticks[#ticks + 1] = string.format('<line x1="%.2f" y1="%d" x2="%.2f" y2="%d"/>'
          .. '<text x="%.2f" y="%d" text-anchor="middle">%s</text>', x, HEAD - 4, x, ay + 4, x, ay + 16,
          esc(label_num(t, unit)))
        t = t + step
      end
      ticks[#ticks + 1] = "</g>"
      out[#out + 1] = table.concat(ticks)
    end
    out[#out + 1] = "</svg>"
  end
  out[#out + 1] = "</section>"
  return table.concat(out, "\n")
end

--- The timeline: canvas and controls, drawn by the page's script.
-- @treturn string HTML
local function timeline_html(insp, plan)
  local out = { '<section id="timeline-section"><h2>Timeline</h2>' }
  local src, unit = insp.source_time_scale, insp.target_time_scale
  out[#out + 1] = string.format('<p class="note">Every event with a duration in one run of a block (or in '
    .. "all its runs), placed at its start (raw %s ticks from the run's first event%s) and as long as its "
    .. "duration (%s). Pick a block and a run; zoom with the wheel, the buttons, a double click or + and "
    .. "− (shift: out), pan by dragging or with the arrow keys. Slices narrower than a pixel are drawn "
    .. "merged, lighter; zoom in to tell them apart. Overlapping events stack in lanes."
    .. '<span class="legend"><span style="background:var(--framework)"></span>framework'
    .. '<span style="background:var(--operators)"></span>operators'
    .. '<span style="background:var(--delegate)"></span>delegate</span></p>',
    esc(src), src == unit and "" or (", converted to " .. esc(unit)), esc(unit))
  out[#out + 1] = kept_note(insp, plan, "timeline-truncated")
  out[#out + 1] = '<div class="controls"><label>block <select id="tl-block"></select></label>'
    .. '<label>run <input type="number" id="tl-run" min="1" value="1"></label><span id="tl-run-of"></span>'
    .. '<span><button type="button" id="tl-prev" title="previous run">◀</button>'
    .. '<button type="button" id="tl-next" title="next run">▶</button></span>'
    .. '<label><input type="checkbox" id="tl-all"> all runs of the block</label>'
    .. '<span>zoom <button type="button" id="tl-zoom-in" title="zoom in">+</button>'
    .. '<button type="button" id="tl-zoom-out" title="zoom out">−</button>'
    .. '<button type="button" id="tl-reset" title="the whole run">fit</button></span></div>'
  out[#out + 1] = '<div class="chart"><canvas id="timeline" tabindex="0" height="120" role="img" '
    .. 'aria-label="Timeline of a run"></canvas><div class="tip" id="tl-tip"></div></div>'
  out[#out + 1] = '<p class="note" id="tl-window"></p></section>'
  return table.concat(out, "\n")
end

--- A list cell of the events table: every item the same way, wrapping
-- between items; more than LIST_OPEN items collapse behind a <details>.
-- @tparam {string,...} items
-- @treturn string HTML (<td>)
local function list_cell(items)
  local n = #items
  if n == 0 then return '<td class="list"></td>' end
  local shown = n > LIST_OPEN and LIST_OPEN - 1 or n
  local out = { '<td class="list">' }
  for i = 1, shown do out[#out + 1] = '<span class="item">' .. esc(items[i]) .. "</span>" end
  if shown < n then
    out[#out + 1] = string.format("<details><summary> +%d more</summary>", n - shown)
    for i = shown + 1, n do out[#out + 1] = '<span class="item">' .. esc(items[i]) .. "</span>" end
    out[#out + 1] = "</details>"
  end
  out[#out + 1] = "</td>"
  return table.concat(out)
end

--- A number cell of the events table (data-v: the value to 17 significant
-- digits, exact, for sorting).
local function num_cell(v)
  if v == nil then return "<td></td>" end
  if v ~= v then return '<td class="num" data-v=""></td>' end
  return string.format('<td class="num" data-v="%.17g">%s</td>', v, num(v))
end

--- The start_time cell: the first run's start tick and the number of runs;
-- the first TICKS_SHOWN ticks in the tooltip.
local function ticks_cell(ev)
  local ticks, n = core.html_starts(ev, TICKS_SHOWN)
  if not ticks or n == 0 then return '<td class="ticks mono"></td>' end
  -- integers: nothing to escape
  local first = ticks[1]
  local text = n > 1 and string.format("%d<small>%s\u{a0}runs</small>", first, grouped(n)) or string.format("%d", first)
  return string.format('<td class="ticks mono" data-v="%d" title="%s%s">%s</td>', first,
    table.concat(ticks, ", "), n > #ticks and ", …" or "", text)
end

local STATS = { "p10", "p50", "p90", "avg", "min", "max" }

--- The events table: the rows of print_data_tabular (report.display_frame:
-- every event of every block but OPERATOR_CALL, in block order), built
-- straight from the events.  Without an ETRecord the op_types and
-- delegate_backend_name columns (empty then) are left out; with one, a
-- module column follows op_types.
-- @treturn string HTML
local function summary_html(insp, opts)
  local unit = insp.target_time_scale
  local linked = insp.etrecord ~= nil
  local cols = { "event_block_name", "event_name" }
  for _, s in ipairs(STATS) do cols[#cols + 1] = s .. " (" .. unit .. ")" end
  if linked then cols[#cols + 1] = "op_types"; cols[#cols + 1] = "module" end
  cols[#cols + 1] = "is_delegated_op"
  if linked then cols[#cols + 1] = "delegate_backend_name" end
  cols[#cols + 1] = "start_time"
  -- with a delegate metadata parser: its result per delegated event, as
  -- the reference's include_delegate_debug_data shows a list (Python str)
  local parsed = insp.delegate_metadata_parser ~= nil
  if parsed then cols[#cols + 1] = "delegate_debug_metadata" end
  local total = 0
  for _, blk in ipairs(insp.event_blocks) do
    for _, ev in ipairs(blk.events) do
      if not tostring(ev.name):find("OPERATOR_CALL", 1, true) then total = total + 1 end
    end
  end
  local out = { '<section id="summary-section"><h2>Events</h2>' }
  local n = math.min(total, opts.max_rows)
  out[#out + 1] = string.format('<p class="note">The rows of <code>print_data_tabular</code>: every event '
    .. "of every block but OPERATOR_CALL, times in %s. Click a heading to sort, a row to chart its runs."
    .. "</p>", esc(unit))
  if n < total then
    out[#out + 1] = string.format('<p class="note truncated" id="summary-truncated">Showing the first %d of '
      .. "%d rows (opts.max_rows); <code>--tsv_path</code> writes them all.</p>", n, total)
  end
  local head = { '<div class="scroll"><table id="summary"><thead><tr><th class="num">#</th>' }
  for _, c in ipairs(cols) do
    local numeric = c:find("^p%d") or c:find("^avg") or c:find("^min") or c:find("^max")
    -- long names may break after their underscores
    head[#head + 1] = "<th" .. (numeric and ' class="num"' or "") .. ">" .. esc(c):gsub("_", "_<wbr>") .. "</th>"
  end
  head[#head + 1] = "</tr></thead><tbody>"
  out[#out + 1] = table.concat(head)
  local row = 0
  for bi, blk in ipairs(insp.event_blocks) do
    if row >= n then break end
    local bname = '<td>' .. esc(blk.name) .. "</td>"
    for e, ev in ipairs(blk.events) do
      local name = ev.name
      if not tostring(name):find("OPERATOR_CALL", 1, true) then
        if row >= n then break end
        local pd = ev.perf_data
        local cells = { string.format('<tr class="event" id="event-%d" data-block="%d" data-event="%d">'
          .. '<td class="num" data-v="%d">%d</td>', row, bi, e, row, row), bname,
          '<td class="name">' .. esc(name) .. "</td>" }
        for _, s in ipairs(STATS) do cells[#cells + 1] = num_cell(pd and pd[s]) end
        if linked then
          local ops = {}
          for i, op in ipairs(ev.op_types) do ops[i] = pyrepr.str(op) end
          cells[#cells + 1] = list_cell(ops)
          cells[#cells + 1] = list_cell(event_modules(ev))
        end
        cells[#cells + 1] = "<td>" .. (ev.is_delegated_op and "True" or "False") .. "</td>"
        if linked then
          local backend = ev.delegate_backend_name
          cells[#cells + 1] = "<td>" .. (backend ~= nil and esc(backend) or "") .. "</td>"
        end
        cells[#cells + 1] = ticks_cell(ev)
        if parsed then
          local md = ev.is_delegated_op and ev.delegate_debug_metadatas
          cells[#cells + 1] = '<td class="metadata mono">' .. (md and esc(pyrepr.str(md)) or "") .. "</td>"
        end
        cells[#cells + 1] = "</tr>"
        out[#out + 1] = table.concat(cells)
        row = row + 1
      end
    end
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

--- The page's metadata for its script (JSON, safe inside <script>): the
-- time unit, the distinct event names, per block its name, runs, the runs
-- and byte offset of its samples (plan), per event its name's index
-- (0-based) and track (one letter: f, o, d), and the run the timeline
-- shows first.
-- @treturn string JSON
local function meta_json(insp, plan, opts)
  local names, ids = {}, {}
  local blocks = {}
  local letter = { framework = "f", operators = "o", delegate = "d" }
  for bi, blk in ipairs(insp.event_blocks) do
    local ev_ids, tracks = {}, {}
    for e, ev in ipairs(blk.events) do
      local name = ev.name
      local id = ids[name]
      if not id then
        id = #names
        names[id + 1] = json_str(name)
        ids[name] = id
      end
      ev_ids[e] = id
      tracks[e] = letter[M.track(ev)]
    end
    blocks[bi] = string.format('{"name":%s,"runs":%d,"kept":%d,"offset":%d,"ev":[%s],"track":"%s"}',
      json_str(blk.name), blk.num_runs, plan[bi].runs, plan[bi].offset, table.concat(ev_ids, ","),
      table.concat(tracks))
  end
  local bi, k = choose_run(insp, opts.run)
  return string.format('{"unit":%s,"names":[%s],"blocks":[%s],"timeline":{"block":%d,"run":%d}}',
    json_str(insp.target_time_scale), table.concat(names, ","), table.concat(blocks, ","), bi or 0, k or 1)
end

--- Complete the options (checked with the contract by the caller) with
-- M.DEFAULTS.
-- @tparam[opt] table opts
-- @treturn table
local function options(opts)
  opts = opts or {}
  local o = {}
  for k, v in pairs(M.DEFAULTS) do
    local given = opts[k]
    if given ~= nil then
      given = math.tointeger(given)
      if given < 0 then error("write_html: opts." .. k .. " must be a non-negative integer", 0) end
      v = given
    end
    o[k] = v
  end
  o.run, o.title = opts.run, opts.title
  return o
end

--- Write the page to `sink` (a function taking strings) and its data
-- through `data(max_slices)` (writing the base64 text).
local function write_page(insp, o, put, data)
  local path = insp.etdump_path or insp.profile_results_path
  choose_run(insp, o.run) -- option errors before anything is written
  local plan = core.html_plan(insp, o.max_slices)
  local mem = memory_rows(insp)
  local graph, why = graph_view.data(insp, (choose_run(insp, o.run)), o.max_graph_nodes)
  local view = {
    title = o.title or ("etinspect report: " .. (path and basename(path) or "ETDump")),
    has_memory = #mem > 0,
    has_graph = insp.etrecord ~= nil,
  }
  put(table.concat({
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    -- M.CSP is a constant without double quotes: written as it is, greppable
    '<meta http-equiv="Content-Security-Policy" content="' .. M.CSP .. '">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="etinspect ' .. esc(etinspect.version) .. '">',
    "<title>" .. esc(view.title) .. "</title>",
    "<style>" .. assets.STYLE .. graph_view.STYLE .. "</style>",
    "</head>",
    "<body><main>",
    header_html(insp, view),
    warnings_html(insp),
    runs_html(insp, plan),
    "",
  }, "\n"))
  put(top_ops_html(insp, o) .. "\n")
  put(timeline_html(insp, plan) .. "\n")
  put(graph_view.section_html(graph, why, insp.target_time_scale, esc) .. "\n")
  put(summary_html(insp, o) .. "\n")
  put(memory_html(mem) .. "\n")
  put('<footer>Written by etinspect ' .. esc(etinspect.version) .. ". This page loads nothing: "
      .. "its styles, charts, script and data are inline.</footer>\n</main>\n")
  put('<script type="application/json" id="et-meta">' .. meta_json(insp, plan, o) .. "</script>\n")
  put('<script type="application/octet-stream" id="et-data">')
  data(o.max_slices)
  put("</script>\n<script>" .. assets.SCRIPT .. "</script>\n")
  if graph then
    -- the graph's data, the layout library with its licence, the view's script
    put('<script type="application/json" id="et-graph">' .. graph_view.json(graph, json_str) .. "</script>\n")
    local lib = graph_view.library()
    put("<script>/*! dagre, inlined for the graph view (vendor/dagre).\n" .. lib.LICENSE .. "*/\n" .. lib.JS
      .. "</script>\n")
    put("<script>" .. graph_view.SCRIPT .. "</script>\n")
  end
  put("</body>\n</html>\n")
end

--- Render the report of an Inspector as one HTML document.
-- @tparam Inspector insp
-- @tparam[opt] table opts run, top, max_rows, max_slices, title (see the
--   module's comment)
-- @treturn string the HTML text (UTF-8)
-- @raise the options contract's errors ("html.render: unknown option ..."),
--   the opts.run errors
function M.render(insp, opts)
  core.check_options("html.render", opts, OPTIONS, 1)
  local o = options(opts)
  local parts = {}
  write_page(insp, o, function(s) parts[#parts + 1] = s end,
    function(max) parts[#parts + 1] = core.html_data(insp, max) end)
  return table.concat(parts)
end

--- Inspector:write_html(path [, opts]): write the report to `path` through
-- the core's output file (a temporary file renamed into place; outfile.h),
-- or to an open file.  The page's data goes from the model to the file
-- without a copy in Lua.  Refuses to overwrite the ETDump (or legacy dump)
-- and the ETRecord it was read from.
-- @tparam Inspector insp
-- @tparam string|file path
-- @tparam[opt] table opts as for render
-- @raise "write_html: a path (or an open file) is required", "write_html:
--   refusing to overwrite the input 'PATH'", the options contract's errors
--   ("Inspector:write_html: unknown option ..."), the opts.run errors, the
--   file's I/O errors
function M.write_html(insp, path, opts)
  if type(path) ~= "string" and io.type(path) ~= "file" then
    error("write_html: a path (or an open file) is required", 2)
  end
  core.check_options("Inspector:write_html", opts, OPTIONS, 2)
  local o = options(opts)
  if io.type(path) == "file" then
    write_page(insp, o, function(s) assert(path:write(s)) end,
      function(max) core.html_data(insp, max, path) end)
    return
  end
  local rec = insp.etrecord
  local inputs = {}
  for _, input in ipairs { insp.etdump_path or false, insp.profile_results_path or false,
                           rec and rec.path or false } do
    if input then
      if core.same_file(path, input) then
        error("write_html: refusing to overwrite the input '" .. input .. "'", 2)
      end
      inputs[#inputs + 1] = input
    end
  end
  local ok, err = pcall(function()
    local of <close> = core.outfile(path, inputs)
    write_page(insp, o, function(s) of:write(s) end, function(max) core.html_data(insp, max, of) end)
    of:commit()
  end)
  -- the message without this file's position (the error is the caller's)
  if not ok then error((tostring(err):gsub("^%[etinspect%] etinspect%.html:%d+: ", "")), 2) end
end

--- Add write_html to the Inspector's methods (called by etinspect.init).
function M.install()
  core.extend("Inspector", { write_html = M.write_html })
end

return M
