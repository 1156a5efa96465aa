#!/usr/bin/env etinspect
-- html.t - the HTML report (lua/etinspect/html.lua, src/core/output/htmldata.c):
-- its rows and top-operator bars counted against the model, its charts'
-- data (base64 samples and metadata) decoded and compared with the model
-- sample by sample, the per-block top operators against the corpus
-- references, escaping of hostile names (tests/fixtures/hostile_names.json),
-- the no-network rules (CSP, no external URL), options and their contract,
-- insp:write_html and --html_path.  The page in a browser: tests/e2e/html.t.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local html = require "etinspect.html"
local report = require "etinspect.report"
local core = etinspect._core

local sample = t.build .. "/fixtures/sample.etdp"
local sample_rec = t.build .. "/fixtures/sample.etrecord"
local hostile = t.build .. "/fixtures/hostile_names.etdp"
if not (t.exists(sample) and t.exists(sample_rec) and t.exists(hostile)) then
  t.skip_all("build/fixtures not built (run make fixtures)")
end
local bin = os.getenv("ETINSPECT") or "etinspect"
etinspect.on_warning(function() end)

--- Occurrences of a plain string.
local function count(s, needle)
  local n, i = 0, 1
  while true do
    local a, b = s:find(needle, i, true)
    if not a then return n end
    n, i = n + 1, b + 1
  end
end

--- The expected node type of an event, written out independently of
-- html.lua and top_ops: delegated events by name, native_call_OP.variant
-- as OP, nothing for the rest.
local function node_type(ev)
  if ev.is_delegated_op then return "delegate:" .. ev.name end
  local op = ev.name:match("^native_call_(.+)$")
  return op and (op:gsub("%.[%w_]+$", "")) or nil
end

--- The expected track of an event.
local function track(ev)
  if ev.is_delegated_op then return "delegate" end
  if ev.name:find("^Method::.") or ev.name:find("^Program::.") then return "framework" end
  return "operators"
end

--- The starts (target units from the run's origin lo) of the events of run
-- k as the trace places them (docs/trace.md, "Synthetic starts"): a
-- delegated event logged with tick 0 or outside its DELEGATE_CALL follows
-- the ones before it from the DELEGATE_CALL's start (without one, from the
-- run's first non-delegated start), cut at its end.
local function placed_starts(blk, k, lo, factor)
  local evs, start, dur = blk.events, {}, {}
  local function fin(x) return x == x and x ~= math.huge and x ~= -math.huge end
  local first, last
  for e, ev in ipairs(evs) do
    local st = ev.perf_data and ev.start_time and ev.start_time[k]
    if st then
      dur[e] = ev.perf_data.raw[k]
      start[e] = (ev.is_delegated_op and st == 0 and lo > 0) and 0 / 0 or (st - lo) / factor
      if not ev.is_delegated_op and fin(dur[e]) then
        first = math.min(first or start[e], start[e])
        last = math.max(last or -math.huge, start[e] + dur[e])
      end
    end
  end
  local function parent(e)
    local id, found = evs[e].instruction_id, nil
    for p, ev in ipairs(evs) do
      if not ev.is_delegated_op and ev.name == "DELEGATE_CALL" and ev.instruction_id == id and start[p] then
        if p > e then return p end
        found = found or p
      end
    end
    return found
  end
  local cursor, run_cur = {}, first or 0
  for e, ev in ipairs(evs) do
    if ev.is_delegated_op and start[e] and fin(dur[e]) then
      local p = parent(e)
      if p and not fin(dur[p]) then p = nil end
      local st = ev.start_time[k]
      if st == 0 or (p and (start[e] < start[p] or start[e] > start[p] + dur[p])) then
        local at = p and (cursor[p] or start[p]) or run_cur
        local stop = p and start[p] + dur[p] or last or math.huge
        start[e] = at
        local d = math.min(dur[e], stop - at)
        if p then cursor[p] = at + d else run_cur = at + d end
      end
    end
  end
  return start
end

--- The block the timeline shows by default: the first "Execute" (or
-- upstream's "Execute::<method>"), else 1.
local function default_block(insp)
  for i, blk in ipairs(insp.event_blocks) do
    if blk.name == "Execute" or blk.name:find("^Execute::") then return i end
  end
  return 1
end

--- Every start tag of the page with a src, href, action or url( that does
-- not stay in the page: a description of the first, or nil.
local function external_reference(doc)
  for tag in doc:gmatch("<[%a][^>]*>") do
    -- attribute names only: quoted values (escaped names) are not looked into
    local low = tag:lower():gsub('"[^"]*"', '""'):gsub("'[^']*'", "''")
    if low:find("%ssrc%s*=") or low:find("%saction%s*=") or low:find("%sxlink:href%s*=")
      or low:find("%sposter%s*=") or low:find("%ssrcset%s*=") then
      return tag
    end
    local href = tag:match('%shref%s*=%s*"([^"]*)"')
    if low:find("%shref%s*=") and not (href and href:find("^#")) then return tag end
  end
  local low = doc:lower()
  if low:find("url%(") then return "url(" end
  if low:find("@import") then return "@import" end
  if low:find("//[%w%-%.]+%.%a%a") and low:find("[%w]+://") then return low:match("[%w]+://%S*") end
  return nil
end

--- Bytes of base64 text (RFC 4648 with padding), or nil and a reason.
local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local B64V = {}
for i = 1, 64 do B64V[B64:byte(i)] = i - 1 end
local function unbase64(s)
  if #s % 4 ~= 0 then return nil, "length " .. #s .. " is not a multiple of 4" end
  local out = {}
  for i = 1, #s, 4 do
    local a, b, c, d = s:byte(i, i + 3)
    local va, vb = B64V[a], B64V[b]
    local vc, vd = B64V[c] or (c == 61 and 0), B64V[d] or (d == 61 and 0)
    if not (va and vb and vc and vd) then return nil, "bad character near " .. i end
    local v = ((va * 64 + vb) * 64 + vc) * 64 + vd
    local n = c == 61 and 1 or d == 61 and 2 or 3
    out[#out + 1] = string.char(v >> 16, (v >> 8) & 255, v & 255):sub(1, n)
  end
  return table.concat(out)
end

--- The page's metadata and samples: meta (decoded JSON), blob (bytes).
local function page_data(doc)
  local mtext = doc:match('<script type="application/json" id="et%-meta">(.-)</script>')
  local dtext = doc:match('<script type="application/octet%-stream" id="et%-data">(.-)</script>')
  if not (mtext and dtext) then return nil end
  return core.json_decode(mtext), assert(unbase64(dtext)), mtext
end

local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end
local function same_f32(got, want) return got == f32(want) or (got ~= got and want ~= want) end
local PER_SECOND = { ns = 1e9, us = 1e6, ms = 1e3, s = 1 }

--- Check the page's data against the model: every block's kept runs, and
-- per event and run its name, track, start and duration (float32).  The
-- origin of a run is its earliest start tick among non-delegated events
-- (all timed events when it has none); no wrap-around in these dumps.
-- `runs`: the kept runs per block expected (default: all).
local function check_data(name, insp, doc, runs)
  local meta, blob = page_data(doc)
  if not t.ok(meta ~= nil, name .. ": the page holds its metadata and samples") then return end
  local src, dst = insp.source_time_scale, insp.target_time_scale
  local factor = PER_SECOND[src] and PER_SECOND[dst] and PER_SECOND[src] / PER_SECOND[dst] or 1
  t.is(meta.unit, dst, name .. ": the data's time unit")
  local off, bad = 0, nil
  for bi, blk in ipairs(insp.event_blocks) do
    local m = meta.blocks[bi]
    local R, E = runs and runs[bi] or blk.num_runs, #blk.events
    if m.name ~= blk.name or m.runs ~= blk.num_runs or m.kept ~= R or m.offset ~= off or #m.track ~= E then
      bad = bad or string.format("block %d: %s %s runs %s kept %s at %s", bi, m.name, m.runs, m.kept, m.offset)
    end
    -- origins from the model
    local lo = {}
    for k = 1, R do
      local nd, any
      for _, ev in ipairs(blk.events) do
        local st = ev.perf_data and ev.start_time and ev.start_time[k]
        if st then
          if not ev.is_delegated_op then nd = math.min(nd or st, st) end
          any = math.min(any or st, st)
        end
      end
      lo[k] = nd or any
    end
    for k = 1, R do
      local origin = string.unpack("<d", blob, off + 8 * (k - 1) + 1)
      local want = lo[k] and (lo[k] - lo[1]) / factor or 0 / 0
      if not (origin == want or (origin ~= origin and want ~= want)) then
        bad = bad or string.format("block %d run %d: origin %s, want %s", bi, k, origin, want)
      end
    end
    local placed = {}
    for e, ev in ipairs(blk.events) do
      if meta.names[m.ev[e] + 1] ~= html.escape(ev.name):gsub("&lt;", "<"):gsub("&gt;", ">")
          :gsub("&quot;", '"'):gsub("&#39;", "'"):gsub("&amp;", "&") then
        bad = bad or string.format("block %d event %d: name %s", bi, e, tostring(meta.names[m.ev[e] + 1]))
      end
      if m.track:sub(e, e) ~= track(ev):sub(1, 1) then
        bad = bad or string.format("block %d event %d: track %s", bi, e, m.track:sub(e, e))
      end
      local pd = ev.perf_data
      for k = 1, R do
        placed[k] = placed[k] or placed_starts(blk, k, lo[k], factor)
        local at = off + 12 * R + 4 * ((e - 1) * R + (k - 1)) + 1
        local start = string.unpack("<f", blob, at)
        local dur = string.unpack("<f", blob, at + 4 * E * R)
        local st = pd and ev.start_time and ev.start_time[k]
        local want_start = st and placed[k][e] or 0 / 0
        local want_dur = pd and pd.raw[k] or 0 / 0
        if not same_f32(start, want_start) or not same_f32(dur, want_dur) then
          bad = bad or string.format("block %d event %d run %d: start %s dur %s, want %s %s", bi, e, k,
            start, dur, want_start, want_dur)
        end
      end
    end
    local bytes = R * 12 + R * E * 8
    off = off + (bytes + 7) // 8 * 8
  end
  t.ok(bad == nil and #blob == off, name .. ": every kept sample in the data equals the model's (" .. #blob
    .. " bytes)")
  if bad then t.diag(bad) end
  return meta, blob
end

--- The expected top operators of a block: per node type {mean, min, max}
-- of its time per run (the sum of its events' durations in the run).
local function expected_top(blk)
  local per, order = {}, {}
  for _, ev in ipairs(blk.events) do
    local nt = ev.perf_data and node_type(ev)
    if nt then
      if not per[nt] then per[nt] = {}; order[#order + 1] = nt end
      for k, v in ipairs(ev.perf_data.raw) do per[nt][k] = (per[nt][k] or 0) + v end
    end
  end
  local out = {}
  for _, nt in ipairs(order) do
    local sums, total, lo, hi = per[nt], 0, math.huge, -math.huge
    for _, v in ipairs(sums) do total = total + v; lo = math.min(lo, v); hi = math.max(hi, v) end
    out[nt] = { mean = total / #sums, min = lo, max = hi }
  end
  return out, #order
end

--- The bars of the page: {block, name, value, min, max} per bar, in order.
local function page_bars(doc)
  local bars = {}
  for attrs in doc:gmatch('<rect class="bar"([^>]*)>') do
    bars[#bars + 1] = { block = tonumber(attrs:match('data%-block="(%d+)"')),
                        name = attrs:match('data%-name="([^"]*)"'),
                        value = tonumber(attrs:match('data%-value="([^"]*)"')) }
  end
  local i = 0
  for attrs in doc:gmatch('<g class="box"([^>]*)>') do
    i = i + 1
    if bars[i] then
      bars[i].min = tonumber(attrs:match('data%-min="([^"]*)"'))
      bars[i].median = tonumber(attrs:match('data%-median="([^"]*)"'))
      bars[i].max = tonumber(attrs:match('data%-max="([^"]*)"'))
      bars[i].box_name = attrs:match('data%-name="([^"]*)"')
    end
  end
  return bars
end

--- The checks every rendering must pass; `name` prefixes the descriptions.
local function check_page(name, insp, doc, opts)
  opts = opts or {}
  t.ok(doc:find("^<!DOCTYPE html>\n<html") ~= nil, name .. ": an HTML document")
  t.ok(doc:find('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
    .. "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:", 1, true) ~= nil,
    name .. ": the CSP meta tag forbids every external load")
  local lower = doc:lower()
  t.ok(not lower:find("http://", 1, true) and not lower:find("https://", 1, true),
    name .. ": no http:// or https:// anywhere")
  local ext = external_reference(doc)
  t.ok(ext == nil, name .. ": no external reference (src, href outside the page, url(), @import)")
  if ext then t.diag(ext) end
  -- with an ETRecord's graph view: its data, the layout library and its script too
  local graph = doc:find('<script type="application/json" id="et-graph">', 1, true) ~= nil
  t.is(graph, insp.etrecord ~= nil, name .. ": a graph view exactly when an ETRecord is linked")
  local scripts, running = graph and 6 or 3, graph and 3 or 1
  t.is(count(lower, "<script"), scripts, name .. ": " .. scripts .. " script elements: metadata, samples and the "
    .. "page's script" .. (graph and ", the graph's data, dagre and the graph's script" or ""))
  t.is(count(lower, "<script>"), running, name .. ": " .. running .. " of them run (no type)")
  t.is(count(lower, "</script"), scripts, name .. ": no script element is closed early by a name")
  t.is(count(lower, "<style"), 1, name .. ": one style element")
  t.ok(not doc:find("[%z\1-\9\11-\31\127]"), name .. ": no control characters but newlines")
  t.ok(utf8.len(doc) ~= nil, name .. ": valid UTF-8")
  local rows = #report.display_frame(insp)
  t.is(count(doc, '<tr class="event"'), math.min(rows, opts.max_rows or 5000),
    name .. ": one events-table row per display-frame row")
  local bars, top = 0, opts.top or 20
  for _, blk in ipairs(insp.event_blocks) do
    if blk.name ~= "Default" then
      local _, n = expected_top(blk)
      bars = bars + ((top > 0 and n > top) and top or n)
    end
  end
  t.is(count(doc, '<rect class="bar"'), bars, name .. ": one bar per node type of each block (top " .. top .. ")")
  local mem = 0
  for _, blk in ipairs(insp.event_blocks) do
    local ok, rows_ = pcall(function() return blk:memory_summary() end)
    if ok then mem = mem + #rows_ end
  end
  t.is(count(doc, '<tr class="alloc"'), mem, name .. ": one memory row per block and allocator")
  t.is(doc:find('<table id="memory">', 1, true) ~= nil, mem > 0, name .. ": the memory table only with allocations")
end

-- the sample (Default + 3 Execute runs) ------------------------------------
local insp = etinspect.Inspector{etdump_path = sample}
local doc = html.render(insp)
check_page("sample", insp, doc)
local meta = check_data("sample", insp, doc)
t.is(meta.timeline.block, 2, "sample: the timeline shows the Execute block first")
t.is(meta.timeline.run, 1, "sample: ... its run 1")
t.ok(doc:find('<th>op_<wbr>types</th>', 1, true) == nil, "sample without ETRecord: no op_types column")
t.ok(doc:find('id="etrecord" class="muted">none linked', 1, true) ~= nil, "sample: header says no ETRecord")
t.ok(doc:find('<span id="blocks">2</span>', 1, true) and doc:find('<span id="runs">4</span>', 1, true),
  "sample: header counts blocks and runs")
t.ok(doc:find('<code id="file">' .. sample:gsub("&", "&amp;"), 1, true) ~= nil, "sample: header names the file")
t.ok(doc:find('<span id="time-unit">ms</span>', 1, true) ~= nil, "sample: header names the time unit")
t.ok(doc:find('<tr class="event" id="event-2" data-block="2" data-event="1">', 1, true) ~= nil,
  "sample: a row names its block and event (the convolution: block 2, event 1)")
t.ok(doc:find('<td class="ticks mono" data-v="100300" title="100300, 350300, 600300">100300<small>3\u{a0}runs</small>',
  1, true) ~= nil, "sample: start_time shows run 1's tick, the number of runs, every tick in the tooltip")
t.ok(doc:find('<td class="num" data-v="0.12346666666666667">0.123467</td>', 1, true) ~= nil,
  "sample: a statistic shown as the table does, exact for sorting")
-- top operators: per block, the time per run
local bars = page_bars(doc)
t.is(#bars, 4, "sample: 4 node types in the Execute block")
t.ok(bars[1].name == "convolution" and bars[1].block == 2, "sample: the first bar is the top node type, convolution")
local want = expected_top(insp.event_blocks[2])
local fine = true
for _, b in ipairs(bars) do
  local w = want[b.name:gsub("&amp;", "&")]
  fine = fine and w and math.abs(b.value - w.mean) <= 1e-15 and b.min == w.min and b.max == w.max
    and b.box_name == b.name
end
t.ok(fine, "sample: each bar is the mean time per run, each box spans min..max of the runs")
t.is(html.render(insp), doc, "rendering is deterministic")

-- the timeline's placement (html.timeline, the same code as the data)
local tl = html.timeline(insp, { block = "Execute", index = 2 })
t.is(#tl.slices, 8, "timeline: 8 slices in run 2 of Execute")
t.is(tl.origin, 350000, "timeline: the run's origin is its earliest start tick")
local first = tl.slices[1]
t.ok(first.name == "Method::execute" and first.start == 0 and first.duration == 0.1959,
  "timeline: Method::execute first, at 0, lasting perf_data.raw[2]")
local conv
for _, s in ipairs(tl.slices) do if s.name == "native_call_convolution.out" then conv = s end end
t.near(conv.start, 300 / 1e6, 1e-12, "timeline: a slice's start is its start tick relative to the run, in ms")
t.ok(conv.track == "operators" and conv.duration == 0.1268, "timeline: its track and duration")

-- options
local run2 = html.render(insp, { run = { block = "Execute", index = 2 } })
t.ok(run2:find('"timeline":{"block":2,"run":2}', 1, true) ~= nil, "opts.run: the timeline starts at run 2 of Execute")
t.ok(html.render(insp, { run = { block = 1 } }):find('"timeline":{"block":1,"run":1}', 1, true) ~= nil,
  "opts.run.block by index")
t.raises(function() html.render(insp, { run = { block = "Nope" } }) end, "no block named 'Nope'",
  "opts.run: an unknown block name")
t.raises(function() html.render(insp, { run = { block = "Execute", index = 4 } }) end,
  "opts.run.index 4 is not a run of block 2 'Execute' %(it has 3%)", "opts.run: a run out of range")
t.raises(function() html.render(insp, { top = -1 }) end, "opts.top must be a non%-negative integer",
  "opts.top: non-negative")
t.raises(function() html.render(insp, { top = "3" }) end,
  "html.render: option 'top' must be an integer, got string", "the options contract: a wrong type")
t.raises(function() html.render(insp, { bogus = 1 }) end,
  "html.render: unknown option 'bogus' %(accepted: max_graph_nodes, max_rows, max_slices, run, title, top%)",
  "the options contract: an unknown key")
t.raises(function() insp:write_html(os.tmpname(), { max_rows = 1.5 }) end,
  "Inspector:write_html: option 'max_rows' must be an integer, got number", "write_html: the contract too")
t.raises(function() insp:write_html(os.tmpname(), { 5 }) end,
  "Inspector:write_html: options must be named", "write_html: positional options")
local cut = html.render(insp, { top = 2, max_rows = 3, max_slices = 10 })
check_page("sample top=2 max_rows=3 max_slices=10", insp, cut, { top = 2, max_rows = 3 })
-- 10 samples: run 1 of both blocks (2 + 8 events); a second Execute run does not fit
check_data("sample max_slices=10", insp, cut, { 1, 1 })
t.ok(cut:find('id="summary-truncated"', 1, true) and cut:find('id="timeline-truncated"', 1, true)
  and cut:find("block 2: the first 1 of 3 runs", 1, true),
  "truncated tables and data say so")
check_data("sample max_slices=7", insp, html.render(insp, { max_slices = 7 }), { 1, 0 })
check_data("sample max_slices=18", insp, html.render(insp, { max_slices = 18 }), { 1, 2 })
check_data("sample max_slices=0 (no limit)", insp, html.render(insp, { max_slices = 0 }), { 1, 3 })
t.is(count(html.render(insp, { top = 0 }), '<rect class="bar"'), 4, "opts.top = 0: every node type")
t.ok(html.render(insp, { title = "<T&>" }):find("<title>&lt;T&amp;&gt;</title>", 1, true) ~= nil,
  "opts.title, escaped")

-- the sample with its ETRecord ----------------------------------------------
local linked = etinspect.Inspector{etdump_path = sample, etrecord = sample_rec}
local ldoc = html.render(linked)
check_page("sample + ETRecord", linked, ldoc)
t.ok(ldoc:find('<code id="etrecord">' .. sample_rec, 1, true) ~= nil, "ETRecord: named in the header")
t.ok(ldoc:find("<th>op_<wbr>types</th><th>module</th>", 1, true) ~= nil, "ETRecord: op_types and module columns")
t.ok(ldoc:find('<td class="list"><span class="item">aten.convolution.default</span></td>'
  .. '<td class="list"><span class="item">L[&#39;self&#39;].conv (Conv2d)</span></td>', 1, true) ~= nil,
  "ETRecord: the convolution's op type and module")
t.ok(ldoc:find('<td class="name">DELEGATE_CALL</td>', 1, true) and ldoc:find('<td class="list"><span class="item">'
  .. 'aten.convolution.default</span><span class="item">aten.relu.default</span></td>', 1, true) ~= nil,
  "ETRecord: the DELEGATE_CALL's two op types listed like every other row's")
t.ok(ldoc:find("<td>XnnpackBackend</td>", 1, true) ~= nil, "ETRecord: the delegate backend")

-- upstream's names (pytorch/executorch PR 8033) ----------------------------------
-- blocks Default, Execute::forward, Execute::decode; execute events
-- Method::execute::<method> (tests/fixtures/upstream_names.json)
local up = etinspect.Inspector{etdump_path = t.build .. "/fixtures/upstream_names.etdp"}
local udoc = html.render(up)
check_page("upstream names", up, udoc)
local umeta = check_data("upstream names", up, udoc)
t.is(umeta.timeline.block, 2, "upstream names: the timeline shows Execute::forward first")
t.ok(udoc:find("<code>Method::execute::&lt;method&gt;</code>", 1, true) ~= nil,
  "upstream names: the run-over-run note names both execute events")
up:close()

-- hostile names ---------------------------------------------------------------
local bad = etinspect.Inspector{etdump_path = hostile}
local bdoc = html.render(bad)
check_page("hostile names", bad, bdoc)
check_data("hostile names", bad, bdoc)
for _, raw in ipairs { "<script>alert", "<img src=x", "<svg onload", "</table>\"", "<b>op", "<i>arena",
                       "</style><style>", "&amp;.out\"" } do
  t.ok(not bdoc:find(raw, 1, true), "hostile names: no raw " .. raw)
end
t.ok(bdoc:find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;", 1, true) ~= nil,
  "hostile names: the event name shown escaped")
t.ok(bdoc:find('"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e \\u0026 \\"x\\""', 1, true) ~= nil,
  "hostile names: the event name in the metadata, < > & as \\u escapes")
t.ok(bdoc:find("&lt;i&gt;arena&lt;/i&gt; &amp; &#39;q&#39; &quot;x&quot;", 1, true) ~= nil,
  "hostile names: the allocator name shown escaped")
t.ok(bdoc:find("&quot;&gt;&lt;svg onload=alert(3)&gt; &amp; &lt;/table&gt;", 1, true) ~= nil,
  "hostile names: the block name shown escaped")
t.ok(bdoc:find("native_call_&lt;b&gt;op&lt;/b&gt;&amp;amp;.out", 1, true) ~= nil,
  "hostile names: an entity in a name is not decoded")
t.ok(bdoc:find("ctl\\x01\\ttab", 1, true) ~= nil, "hostile names: control characters shown as escapes")
t.is(html.escape("a\255b<"), "a\\xffb&lt;", "escape: invalid UTF-8 shown as escapes")
t.is(html.escape("plain_name.out"), "plain_name.out", "escape: nothing to do")

-- the corpus --------------------------------------------------------------------
local small = t.corpus .. "/small.etdp"
if t.exists(small) then
  local si = etinspect.Inspector{etdump_path = small}
  local sdoc = html.render(si)
  check_page("small.etdp", si, sdoc)
  check_data("small.etdp", si, sdoc)
  t.is(count(sdoc, '<tr class="event"'), 13, "small.etdp: 13 rows (19 events, 6 OPERATOR_CALL)")
  t.is(count(sdoc, '<rect class="bar"'), 11, "small.etdp: 11 node types")
  -- multiblock: two Execute blocks (branches); per block, the time per run
  local mi = etinspect.Inspector{etdump_path = t.corpus .. "/multiblock.etdp"}
  local mdoc = html.render(mi)
  check_page("multiblock.etdp", mi, mdoc)
  check_data("multiblock.etdp", mi, mdoc)
  local sums = {}
  for _, b in ipairs(page_bars(mdoc)) do if b.name == "sum" then sums[b.block] = b end end
  -- corpus ref/multiblock.tsv: native_call_sum.IntList_out of block 2 (5 runs) and block 3 (4 runs),
  -- the one sum event of each: its avg, min and max over the runs
  t.ok(sums[2] and sums[2].value == 0.0008175999999999999 and sums[2].min == 0.000746 and sums[2].max == 0.000899,
    "multiblock: block 2's sum, 0.0008176 ms per run (min 0.000746, max 0.000899: ref)")
  t.ok(sums[3] and sums[3].value == 0.00082825 and sums[3].min == 0.000815 and sums[3].max == 0.000842,
    "multiblock: block 3's sum, 0.00082825 ms per run (min 0.000815, max 0.000842: ref)")
  t.ok(not mdoc:find("0.00164585", 1, true), "multiblock: no bar adds the two blocks' times (0.00164585)")
  t.ok(mdoc:find("<h3>Block 2 “Execute”: 5 runs, showing 4 of 4 node types</h3>", 1, true)
    and mdoc:find("<h3>Block 3 “Execute”: 4 runs, showing 4 of 4 node types</h3>", 1, true),
    "multiblock: each chart is labelled with its block and runs")
  local mmeta, mblob = page_data(mdoc)
  local idx = {}
  for k = 1, 5 do idx[k] = string.unpack("<I4", mblob, mmeta.blocks[2].offset + 8 * 5 + 4 * (k - 1) + 1) end
  t.is(table.concat(idx, ","), "1,2,3,7,8", "multiblock: block 2's runs are RunData 1, 2, 3, 7, 8 (T T T . . . T T)")
  for k = 1, 4 do idx[k] = string.unpack("<I4", mblob, mmeta.blocks[3].offset + 8 * 4 + 4 * (k - 1) + 1) end
  idx[5] = nil
  t.is(table.concat(idx, ","), "4,5,6,9", "multiblock: block 3's runs are RunData 4, 5, 6, 9")
  local ai = etinspect.Inspector{etdump_path = t.corpus .. "/alloc.etdp"}
  local adoc = html.render(ai)
  check_page("alloc.etdp", ai, adoc)
  t.ok(count(adoc, '<tr class="alloc"') > 0, "alloc.etdp: a memory table")
  -- a 32-bit clock that wraps inside a run: the run stays short
  local ci = etinspect.Inspector{etdump_path = t.corpus .. "/cycles.etdp"}
  check_page("cycles.etdp", ci, html.render(ci))
  local ctl = html.timeline(ci)
  t.ok(ctl.span < 1, "cycles.etdp: a clock wrap inside the run is unwrapped (span " .. ctl.span .. " ms)")
  t.ok(ctl.origin > 1 << 31, "cycles.etdp: ... from the last ticks before the wrap (origin " .. ctl.origin .. ")")
else
  t.skip("shared corpus not found at " .. t.corpus)
end

-- a clock that wraps between runs, and delegates that log durations only
local wrap = t.build .. "/fixtures/wrap.etdp"
if t.exists(wrap) then
  local wi = etinspect.Inspector{etdump_path = wrap}
  local wmeta, wblob = page_data(html.render(wi))
  local ok_ = true
  for bi, m in ipairs(wmeta.blocks) do
    local prev = -math.huge
    for k = 1, m.kept do
      local o = string.unpack("<d", wblob, m.offset + 8 * (k - 1) + 1)
      if o == o then ok_ = ok_ and o >= prev; prev = o end
    end
    if not ok_ then t.diag("block " .. bi) end
  end
  t.ok(ok_, "wrap.etdp: run origins never go back in time")
end

-- every fixture and corpus dump renders --------------------------------------
local files = {}
for _, dir in ipairs { t.build .. "/fixtures", t.corpus } do
  local p = io.popen("ls '" .. dir .. "' 2>/dev/null")
  for f in p:lines() do
    if f:find("%.etdp$") and f ~= "large.etdp" then files[#files + 1] = dir .. "/" .. f end
  end
  p:close()
end
local rendered, failures = 0, {}
for _, f in ipairs(files) do
  local ok, i = pcall(etinspect.Inspector, { etdump_path = f })
  if ok then
    local ok2, d = pcall(html.render, i)
    local m = ok2 and page_data(d)
    if ok2 and m and count(d, '<tr class="event"') == #report.display_frame(i) and not d:lower():find("https?://")
        and #m.blocks == #i.event_blocks then
      rendered = rendered + 1
    else
      failures[#failures + 1] = f .. ": " .. tostring(ok2 and "wrong page" or d)
    end
  end
end
t.ok(#failures == 0 and rendered > 10, "every readable fixture and corpus dump renders (" .. rendered .. ")")
for _, m in ipairs(failures) do t.diag(m) end
local legacy = etinspect.Inspector{profile_results_path = t.src .. "/tests/legacy/main.bin"}
local ldump = html.render(legacy)
check_page("legacy dump", legacy, ldump)
local lmeta = page_data(ldump)
t.ok(lmeta and #lmeta.blocks == #legacy.event_blocks, "legacy dump: its blocks in the data (durations, no starts)")

-- write_html ---------------------------------------------------------------------
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir '" .. dir .. "'"))
local out = dir .. "/report.html"
insp:write_html(out)
t.is(t.read(out), doc, "write_html writes what render returns")
insp:write_html(out, { top = 1 })
t.is(count(t.read(out), '<rect class="bar"'), 1, "write_html: options, and it replaces an existing file")
local fh = assert(io.open(dir .. "/open.html", "wb"))
insp:write_html(fh)
fh:close()
t.is(t.read(dir .. "/open.html"), doc, "write_html to an open file")
local copy = dir .. "/copy.etdp"
local bytes = t.read(sample)
local f = assert(io.open(copy, "wb")); f:write(bytes); f:close()
local ci = etinspect.Inspector{etdump_path = copy}
t.raises(function() ci:write_html(copy) end, "refusing to overwrite the input", "write_html: not onto the ETDump")
t.raises(function() ci:write_html(dir .. "/./copy.etdp") end, "refusing to overwrite the input",
  "write_html: not onto the ETDump by another path")
t.raises(function() linked:write_html(sample_rec) end, "refusing to overwrite the input",
  "write_html: not onto the ETRecord")
t.is(t.read(copy), bytes, "write_html: the ETDump is untouched")
t.raises(function() insp:write_html() end, "a path", "write_html: a path is required")
t.raises(function() insp:write_html(dir .. "/no/such/dir/x.html") end,
  "^[^\n]*html%.t:%d+: [^\n]*/no/such/dir/x%.html: cannot create a file beside it: No such file or directory",
  "write_html: an unwritable path is an error naming it, at the caller's line")
local left = io.popen("ls -a '" .. dir .. "'"):read("a")
t.ok(not left:find("report%.html%."), "write_html: no temporary file is left behind")

-- --html_path: the same page as the library's
local cli_out = dir .. "/cli.html"
local st = os.execute(string.format("'%s' --etdump_path '%s' --html_path '%s' -q", bin, sample, cli_out))
t.ok(st and t.read(cli_out) == doc, "--html_path writes the library's page")
st = os.execute(string.format("'%s' --etdump_path '%s' --etrecord_path '%s' --html_path '%s' -q", bin, sample,
  sample_rec, cli_out))
t.ok(st and t.read(cli_out) == ldoc, "--html_path with --etrecord_path")
os.execute("rm -rf '" .. dir .. "'")

t.done()
