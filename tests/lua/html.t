#!/usr/bin/env etinspect
-- html.t - the HTML report (lua/etinspect/html.lua): its rows, bars and
-- timeline slices counted against the model, escaping of hostile names
-- (tests/fixtures/hostile_names.json), the no-network rules (CSP, no
-- external URL), options, insp:write_html and --html_path.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local html = require "etinspect.html"
local report = require "etinspect.report"
local top_ops = require "etinspect.scripts.top_ops"

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

--- The expected track of an event, written out independently of html.lua.
local function track(ev)
  if ev.is_delegated_op then return "delegate" end
  if ev.name:find("^native_call_") then return "operators" end
  return "framework"
end

--- Expected timeline of run k of block bi: events with a start and a duration.
local function expected_slices(insp, bi, k)
  local n, tracks = 0, { framework = 0, operators = 0, delegate = 0 }
  for _, ev in ipairs(insp.event_blocks[bi].events) do
    local pd = ev.perf_data
    if pd and pd.raw[k] and ev.start_time and ev.start_time[k] then
      n = n + 1
      tracks[track(ev)] = tracks[track(ev)] + 1
    end
  end
  return n, tracks
end

--- The block the timeline shows by default: the first "Execute", else 1.
local function default_block(insp)
  for i, blk in ipairs(insp.event_blocks) do if blk.name == "Execute" then return i end end
  return 1
end

--- Slices of the page by track (from the rect elements' attributes).
local function page_tracks(doc)
  local tracks = { framework = 0, operators = 0, delegate = 0 }
  for tr in doc:gmatch('<rect class="slice" data%-name="[^"]*" data%-track="(%w+)"') do
    tracks[tr] = (tracks[tr] or 0) + 1
  end
  return tracks
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
  t.is(count(lower, "<script"), 1, name .. ": one script element, the page's own")
  t.is(count(lower, "<style"), 1, name .. ": one style element")
  t.ok(not doc:find("[%z\1-\9\11-\31\127]"), name .. ": no control characters but newlines")
  t.ok(utf8.len(doc) ~= nil, name .. ": valid UTF-8")
  local frame = report.display_frame(insp)
  local rows = math.min(#frame, opts.max_rows or 5000)
  t.is(count(doc, '<tr class="event"'), rows, name .. ": one summary row per display-frame row")
  local ops = #top_ops.summary(insp)
  local top = opts.top or 20
  if top > 0 then ops = math.min(ops, top) end
  t.is(count(doc, '<rect class="bar"'), ops, name .. ": one bar per top node type")
  if #insp.event_blocks > 0 then
    local bi = default_block(insp)
    local n, tracks = expected_slices(insp, bi, 1)
    if opts.max_slices then n = math.min(n, opts.max_slices) end
    t.is(count(doc, '<rect class="slice"'), n, name .. ": one slice per event timed in the run")
    if not opts.max_slices then
      local got = page_tracks(doc)
      t.ok(got.framework == tracks.framework and got.operators == tracks.operators
        and got.delegate == tracks.delegate,
        string.format("%s: slices per track (framework %d, operators %d, delegate %d)", name,
          tracks.framework, tracks.operators, tracks.delegate))
    end
  end
  local mem = 0
  for _, blk in ipairs(insp.event_blocks) do
    local ok, rows_ = pcall(function() return blk:memory_summary() end)
    if ok then mem = mem + #rows_ end
  end
  t.is(count(doc, '<tr class="alloc"'), mem, name .. ": one memory row per block and allocator")
  t.is(doc:find('<table id="memory">', 1, true) ~= nil, mem > 0, name .. ": the memory table only with allocations")
end

--- The value of a slice's data attribute, by event name.
local function slice_attr(doc, ev_name, attr)
  local pat = '<rect class="slice" data%-name="' .. ev_name:gsub("%p", "%%%0") .. '"[^>]*data%-' .. attr .. '="([^"]*)"'
  return tonumber(doc:match(pat))
end

-- the sample (Default + 3 Execute runs) ------------------------------------
local insp = etinspect.Inspector{etdump_path = sample}
local doc = html.render(insp)
check_page("sample", insp, doc)
t.ok(doc:find('<svg id="timeline"[^>]* data%-block="2" data%-run="1"') ~= nil,
  "sample: the timeline shows run 1 of the Execute block by default")
-- Method::execute starts at tick 100000 in run 1, the convolution at 100300, ns -> ms
t.near(slice_attr(doc, "Method::execute", "start"), 0, 1e-12, "sample: the run's first event starts at 0")
t.near(slice_attr(doc, "native_call_convolution.out", "start"), 300 / 1e6, 1e-9,
  "sample: a slice's start is its start tick relative to the run, in ms")
t.near(slice_attr(doc, "native_call_convolution.out", "duration"), 0.12, 1e-12,
  "sample: a slice's duration is perf_data.raw[run]")
t.ok(doc:find('<th>op_<wbr>types</th>', 1, true) == nil, "sample without ETRecord: no op_types column")
t.ok(doc:find('id="etrecord" class="muted">none linked', 1, true) ~= nil, "sample: header says no ETRecord")
t.ok(doc:find('<span id="blocks">2</span>', 1, true) and doc:find('<span id="runs">4</span>', 1, true),
  "sample: header counts blocks and runs")
t.ok(doc:find('<code id="file">' .. sample:gsub("&", "&amp;"), 1, true) ~= nil, "sample: header names the file")
t.ok(doc:find('<span id="time-unit">ms</span>', 1, true) ~= nil, "sample: header names the time unit")
local bar = top_ops.summary(insp)[1]
t.ok(doc:find('<rect class="bar" data-name="convolution" data-kind="operator" data-value="', 1, true) ~= nil,
  "sample: the first bar is the top node type, " .. bar["node type"])
t.is(html.render(insp), doc, "rendering is deterministic")

-- options
local run2 = html.render(insp, { run = { block = "Execute", index = 2 } })
t.ok(run2:find('<svg id="timeline"[^>]* data%-block="2" data%-run="2"') ~= nil, "opts.run picks run 2 of Execute")
local ev = insp.event_blocks[2].events[1]
local first = math.huge
for _, e in ipairs(insp.event_blocks[2].events) do first = math.min(first, e.start_time[2]) end
t.near(slice_attr(run2, ev.name, "start"), (ev.start_time[2] - first) / 1e6, 1e-9,
  "opts.run: run 2's start times")
t.near(slice_attr(run2, ev.name, "duration"), ev.perf_data.raw[2], 1e-12, "opts.run: run 2's durations")
local default_blk = html.render(insp, { run = { block = 1 } })
t.ok(default_blk:find('<svg id="timeline"[^>]* data%-block="1" data%-run="1"') ~= nil, "opts.run.block by index")
t.is(count(default_blk, '<rect class="slice"'), (expected_slices(insp, 1, 1)), "opts.run: the Default block's slices")
t.raises(function() html.render(insp, { run = { block = "Nope" } }) end, "no block named 'Nope'",
  "opts.run: an unknown block name")
t.raises(function() html.render(insp, { run = { block = "Execute", index = 4 } }) end,
  "opts.run.index 4 is not a run of block 2 'Execute' %(it has 3%)", "opts.run: a run out of range")
t.raises(function() html.render(insp, { top = -1 }) end, "opts.top must be a non%-negative integer",
  "opts.top: checked")
check_page("sample top=2 max_rows=3 max_slices=2", insp,
  html.render(insp, { top = 2, max_rows = 3, max_slices = 2 }), { top = 2, max_rows = 3, max_slices = 2 })
local cut = html.render(insp, { max_rows = 3, max_slices = 2 })
t.ok(cut:find('id="summary-truncated"', 1, true) and cut:find('id="timeline-truncated"', 1, true),
  "truncated tables and timelines say so")
t.is(count(html.render(insp, { top = 0 }), '<rect class="bar"'), #top_ops.summary(insp), "opts.top = 0: every node type")
t.ok(html.render(insp, { title = "<T&>" }):find("<title>&lt;T&amp;&gt;</title>", 1, true) ~= nil,
  "opts.title, escaped")

-- the sample with its ETRecord ----------------------------------------------
local linked = etinspect.Inspector{etdump_path = sample, etrecord = sample_rec}
local ldoc = html.render(linked)
check_page("sample + ETRecord", linked, ldoc)
t.ok(ldoc:find('<code id="etrecord">' .. sample_rec, 1, true) ~= nil, "ETRecord: named in the header")
t.ok(ldoc:find("<th>op_<wbr>types</th>%s*<th>module</th>") ~= nil, "ETRecord: op_types and module columns")
t.ok(ldoc:find("<td>aten.convolution.default</td><td>L[&#39;self&#39;].conv (Conv2d)</td>", 1, true) ~= nil,
  "ETRecord: the convolution's op type and module")
t.ok(ldoc:find("<td>XnnpackBackend</td>", 1, true) ~= nil, "ETRecord: the delegate backend")

-- hostile names ---------------------------------------------------------------
local bad = etinspect.Inspector{etdump_path = hostile}
local bdoc = html.render(bad)
check_page("hostile names", bad, bdoc)
for _, raw in ipairs { "<script>alert", "<img src=x", "<svg onload", "</table>\"", "<b>op", "<i>arena",
                       "</style><style>", "&amp;.out\"" } do
  t.ok(not bdoc:find(raw, 1, true), "hostile names: no raw " .. raw)
end
t.ok(bdoc:find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;", 1, true) ~= nil,
  "hostile names: the event name shown escaped")
t.is(count(bdoc, 'data-name="&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"'), 1,
  "hostile names: escaped in the slice's attribute")
t.ok(bdoc:find("&lt;i&gt;arena&lt;/i&gt; &amp; &#39;q&#39; &quot;x&quot;", 1, true) ~= nil,
  "hostile names: the allocator name shown escaped")
t.ok(bdoc:find("&quot;&gt;&lt;svg onload=alert(3)&gt; &amp; &lt;/table&gt;", 1, true) ~= nil,
  "hostile names: the block name shown escaped")
t.ok(bdoc:find("native_call_&lt;b&gt;op&lt;/b&gt;&amp;amp;.out", 1, true) ~= nil,
  "hostile names: an entity in a name is not decoded")
t.ok(bdoc:find("ctl\\x01\\ttab", 1, true) ~= nil, "hostile names: control characters shown as escapes")
t.is(html.escape("a\255b<"), "a\\xffb&lt;", "escape: invalid UTF-8 shown as escapes")

-- the corpus --------------------------------------------------------------------
local small = t.corpus .. "/small.etdp"
if t.exists(small) then
  local si = etinspect.Inspector{etdump_path = small}
  local sdoc = html.render(si)
  check_page("small.etdp", si, sdoc)
  t.is(count(sdoc, '<tr class="event"'), 13, "small.etdp: 13 rows (19 events, 6 OPERATOR_CALL)")
  t.is(count(sdoc, '<rect class="bar"'), 11, "small.etdp: 11 node types")
  t.is(count(sdoc, '<rect class="slice"'), 19, "small.etdp: 19 slices in run 1")
  local ai = etinspect.Inspector{etdump_path = t.corpus .. "/alloc.etdp"}
  local adoc = html.render(ai)
  check_page("alloc.etdp", ai, adoc)
  t.ok(count(adoc, '<tr class="alloc"') > 0, "alloc.etdp: a memory table")
  -- a 32-bit clock that wraps inside a run: the run stays short
  local ci = etinspect.Inspector{etdump_path = t.corpus .. "/cycles.etdp"}
  local cdoc = html.render(ci)
  check_page("cycles.etdp", ci, cdoc)
  local span = tonumber(cdoc:match('<svg id="timeline"[^>]* data%-span="([^"]*)"'))
  t.ok(span and span < 1, "cycles.etdp: a clock wrap inside the run is unwrapped (span " .. tostring(span) .. " ms)")
else
  t.skip("shared corpus not found at " .. t.corpus)
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
    if ok2 and count(d, '<tr class="event"') == #report.display_frame(i) and not d:lower():find("https?://") then
      rendered = rendered + 1
    else
      failures[#failures + 1] = f .. ": " .. tostring(ok2 and "wrong page" or d)
    end
  end
end
t.ok(#failures == 0 and rendered > 10, "every readable fixture and corpus dump renders (" .. rendered .. ")")
for _, m in ipairs(failures) do t.diag(m) end
local legacy = etinspect.Inspector{profile_results_path = t.src .. "/tests/legacy/main.bin"}
check_page("legacy dump", legacy, html.render(legacy))

-- write_html ---------------------------------------------------------------------
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir '" .. dir .. "'"))
local out = dir .. "/report.html"
insp:write_html(out)
t.is(t.read(out), doc, "write_html writes what render returns")
insp:write_html(out, { top = 1 })
t.is(count(t.read(out), '<rect class="bar"'), 1, "write_html: options, and it replaces an existing file")
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
t.raises(function() insp:write_html(dir .. "/no/such/dir/x.html") end, "No such file or directory",
  "write_html: an unwritable path is an error")

-- --html_path: the same page as the library's
local cli_out = dir .. "/cli.html"
local st = os.execute(string.format("'%s' --etdump_path '%s' --html_path '%s' -q", bin, sample, cli_out))
t.ok(st and t.read(cli_out) == doc, "--html_path writes the library's page")
st = os.execute(string.format("'%s' --etdump_path '%s' --etrecord_path '%s' --html_path '%s' -q", bin, sample,
  sample_rec, cli_out))
t.ok(st and t.read(cli_out) == ldoc, "--html_path with --etrecord_path")
os.execute("rm -rf '" .. dir .. "'")

t.done()
