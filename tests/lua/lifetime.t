#!/usr/bin/env etinspect
-- lifetime.t - the lifetime rule of docs/lua-api.md ("Lifetimes and
-- contracts"), case by case from issue 12: callbacks (delegate metadata
-- parser, time-scale converter, warning handler, write sink, Frame
-- callback, a finalizer) that close their owner, raise, yield, recurse,
-- return the wrong type or run the collector; finalizers out of reach;
-- read-only fields; stable identity; scripts that replace the standard
-- library.  Every case must end cleanly under the ASan+UBSan build too.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

local fx = t.build .. "/fixtures"
if not t.exists(fx .. "/delegates.etdp") then t.skip_all("build/fixtures missing (run make)") end
local DELEGATES, SAMPLE = fx .. "/delegates.etdp", fx .. "/sample.etdp"
local RECORD = fx .. "/sample.etrecord"
local tmp = os.tmpname()

local warnings = {}
etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
local function take() local w = warnings; warnings = {}; return w end
local err_of = t.err_of
local function any(list, pattern)
  for _, w in ipairs(list) do if w:find(pattern) then return w end end
end

-- the parser closes the Inspector while write_trace runs --------------------------------
do
  local insp
  insp = etinspect.Inspector{etdump_path = DELEGATES,
    delegate_metadata_parser = function(raw) insp:close(); return {} end}
  take()
  insp:write_trace(tmp)
  local w = take()
  t.ok(#w > 0 and w[1]:find("Inspector is busy %(Inspector:write_trace is running%); close it after "
    .. "Inspector:write_trace returns", 1), "close() inside write_trace's parser is refused, as a warning")
  t.ok(w[1]:find("failed on event '0' %(event_blocks%[1%]%.events%[1%]%)"), "... naming the event 1-based: " .. w[1])
  t.ok(#t.read(tmp) > 100, "... and the trace is written")
  t.is(#insp.event_blocks, 1, "the Inspector is still open")
  insp:close()
  t.is(err_of(function() return insp.event_blocks end), "inspector is closed", "closed after the call returns")
end

-- the parser closes the Inspector, then raises --------------------------------------------
do
  local insp
  insp = etinspect.Inspector{etdump_path = DELEGATES,
    delegate_metadata_parser = function(raw) pcall(insp.close, insp); error("parser exploded") end}
  take()
  local ev = insp.event_blocks[1].events[1]
  local md = ev.delegate_debug_metadatas
  local w = take()
  t.ok(#w == 1 and w[1]:find("delegate metadata parser %(function at .-lifetime%.t:%d+%) failed on event '0' "
    .. "%(event_blocks%[1%]%.events%[1%]%): .-parser exploded; the raw metadata is kept"),
    "a parser that closes and raises: one warning naming the event and the error")
  t.is(type(md), "table", "... the raw metadata is kept")
  t.is(ev.name, "0", "... and the Inspector is still open")
  t.is(insp.warnings[#insp.warnings], w[1], "the parser's warning is in insp.warnings")
end

-- the parser's other misdeeds: yields, recursion, wrong type, the collector ----------------
do
  local insp
  local function open(parser) insp = etinspect.Inspector{etdump_path = DELEGATES, delegate_metadata_parser = parser}; return insp end
  open(function(raw) coroutine.yield(1) end)
  take()
  local md = insp.event_blocks[1].events[1].delegate_debug_metadatas
  t.ok(any(take(), "attempt to yield"), "a yielding parser: a warning")
  open(function(raw) coroutine.yield(1) end)
  local co = coroutine.wrap(function() return insp.event_blocks[1].events[1].delegate_debug_metadatas end)
  t.is(type(co()), "table", "... also inside a coroutine: the raw metadata")
  take()
  local depth = 0
  open(function(raw, ev) depth = depth + 1; local _ = ev.delegate_debug_metadatas; return {} end)
  md = insp.event_blocks[1].events[1].delegate_debug_metadatas
  t.ok(depth > 10 and type(md) == "table", "a parser reading its own event's metadata recurses until the C stack ends it")
  take()
  open(function() return "not a table" end)
  md = insp.event_blocks[1].events[1].delegate_debug_metadatas
  t.ok(any(take(), "returned a string for event '0' %(event_blocks%[1%]%.events%[1%]%), expected a table"),
    "a parser returning a string: a warning")
  open(function() collectgarbage(); collectgarbage(); return {ok = true} end)
  md = insp.event_blocks[1].events[1].delegate_debug_metadatas
  t.is(md.ok, true, "a parser running the collector works")
  open(function(raw, ev) insp.event_blocks[1].events[1]:debug_data_raw(); return {ev.name} end)
  t.is(insp.event_blocks[1].events[1].delegate_debug_metadatas[1], "0", "a parser using the API works")
end

-- the time-scale converter --------------------------------------------------------------------
do
  local rec = etinspect.parse_etrecord(RECORD)
  take()
  local insp = etinspect.Inspector{etdump_path = DELEGATES, etrecord = rec,
    delegate_time_scale_converter = function(name, ticks) rec:close(); return ticks end}
  local w = take()
  t.ok(any(w, "delegate time%-scale converter %(function at .-%) failed on delegated event '0': .*ETRecord is busy "
    .. "%(etinspect%.Inspector is running%)"), "a converter closing the ETRecord being linked: refused, warned")
  t.ok(any(insp.warnings, "delegate time%-scale converter"), "the converter's warnings are in insp.warnings")
  t.is(insp.etrecord, rec, "... and the record stays linked")
  t.is(err_of(rec.close, rec), "ETRecord is linked to an open Inspector; close the Inspector first",
    "the linked record cannot be closed")
  insp:close()
  rec:close()
  t.is(err_of(function() return rec.methods end), "ETRecord used after it was closed", "then it can")

  local kinds = {
    yield = function() coroutine.yield() end,
    raise = function() error({}) end,
    wrong = function() return "12" end,
    gc = function(name, ticks) collectgarbage(); return ticks / 1e6 end,
    recurse = function(name, ticks)
      return etinspect.Inspector{etdump_path = DELEGATES}.event_blocks[1].num_runs + ticks
    end,
  }
  for _, k in ipairs{"yield", "raise", "wrong", "gc", "recurse"} do
    take()
    local ok, i2 = pcall(etinspect.Inspector, {etdump_path = DELEGATES, delegate_time_scale_converter = kinds[k]})
    local w = take()
    t.ok(ok and #i2.event_blocks == 1 and (k == "gc" or k == "recurse" or #w > 0) and #i2.warnings == #w,
      "a converter that does '" .. k .. "': the Inspector opens, warnings in insp.warnings (" .. #w .. ")")
  end
  local ok = pcall(etinspect.Inspector, {etdump_path = DELEGATES, delegate_time_scale_converter = setmetatable({},
    {__call = function(self, name, ticks) return ticks end})})
  t.ok(ok, "a callable table is a converter")
end

-- the warning handler closes the Inspector while a value is decoded --------------------------
if t.exists(fx .. "/tensors_bad.etdp") then
  local bad = etinspect.Inspector{etdump_path = fx .. "/tensors_bad.etdp",
    debug_buffer_path = t.src .. "/tests/fixtures/tensors.bin"}
  local ev
  for _, e in ipairs(bad.event_blocks[1].events) do if e.name == "no_int_table" then ev = e end end
  local seen
  etinspect.on_warning(function(msg) seen = msg; bad:close() end)
  local v = ev.debug_data
  etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
  t.ok(seen and seen:find("'no_int_table'"), "the handler saw the value's warning")
  t.is(v[1], nil, "... the value reads as nil")
  t.is(ev.name, "no_int_table", "... and its close() was refused: the Inspector is open")
  t.ok(any(bad.warnings, "Int without its int_value table"), "... the warning is in insp.warnings")
  -- handlers that raise, yield, recurse
  for _, h in ipairs{function() error("handler failed") end, function() coroutine.yield() end,
                     function() local _ = ev.debug_data end} do
    etinspect.on_warning(h)
    local ok = pcall(function() return ev:debug_data_of_run(1) end)
    t.ok(ok, "a failing warning handler: the read still works")
  end
  etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
  bad:close()
else
  t.skip("tensors_bad fixture missing")
end

-- sinks: Graph:print whose write closes the ETRecord -----------------------------------------
do
  local rec = etinspect.parse_etrecord(RECORD)
  local g = rec:get_exported_program()
  local lines = 0
  local sink = {write = function(self, s) lines = lines + 1; rec:close() end}
  local e = err_of(g.print, g, sink)
  t.is(e and e:match("ETRecord is busy.*"), "ETRecord is busy (Graph:print is running); close it after Graph:print returns",
    "a sink closing the ETRecord during Graph:print: refused")
  t.is(#g.nodes > 0 and g.nodes[1].name ~= nil, true, "... the Graph still reads")
  local n = 0
  g:print{write = function(self, s) n = n + 1; collectgarbage() end}
  t.is(n, #g.nodes, "a sink running the collector: one write per node")
  t.ok((err_of(g.print, g, {write = function() error("disk full") end}) or ""):find("disk full"),
    "a raising sink: its error")
  local co = coroutine.wrap(function() g:print{write = function() coroutine.yield() end} end)
  t.ok((err_of(co) or ""):find("attempt to yield across a C%-call boundary"), "a yielding sink: a clean error")
  t.is(err_of(g.print, g, {write = 42}), "Graph:print: bad argument #1 (file expected, got table)",
    "a sink whose write is not a function")
  t.is(err_of(g.print, g, 42), "Graph:print: bad argument #1 (file expected, got number)", "not a sink")
  rec:close()
  t.is(err_of(function() return g.nodes end), "Graph used after its ETRecord was closed", "a Graph after close")
end

-- Frame callbacks ------------------------------------------------------------------------------
do
  local insp = etinspect.Inspector{etdump_path = SAMPLE}
  local df = insp:to_dataframe()
  local kept = df:filter(function(r) insp:close(); return true end)
  t.is(#kept, #df, "a Frame callback closing the Inspector: the frame (plain data) is unaffected")
  t.ok((err_of(df.filter, df, function() error("cb failed") end) or ""):find("cb failed"), "a raising Frame callback")
  local co = coroutine.wrap(function() return #df:filter(function(r) coroutine.yield("y"); return true end) end)
  local r = { pcall(co) }
  t.ok(r[1] == true or tostring(r[2]):find("yield"), "a yielding Frame callback: a value or a clean error")
end

-- finalizers out of reach ---------------------------------------------------------------------
do
  local rec = etinspect.parse_etrecord(RECORD)
  local insp = etinspect.Inspector{etdump_path = SAMPLE, etrecord = rec}
  local mt = getmetatable(rec)
  t.is(mt.__gc, nil, "getmetatable(rec) has no __gc")
  t.is(mt.__name, "ETRecord", "... but names the type")
  t.ok((err_of(function() mt.__name = "x" end) or ""):find("read%-only"), "... and is read-only")
  t.is(getmetatable(insp).__gc, nil, "nor has an Inspector's")
  t.is(debug.getmetatable(rec).__gc, nil, "nor has debug.getmetatable(rec): no finalizer is reached by hand")
  t.is(err_of(rec.close, rec), "ETRecord is linked to an open Inspector; close the Inspector first",
    "close() is refused while linked")
  t.is(table.concat(insp.event_blocks[2].events[1].op_types, ","), "aten.convolution.default",
    "... the Inspector still reads its record")
  collectgarbage()
  local held = setmetatable({rec = rec, insp = insp}, {__mode = "v"})
  rec, insp = nil, nil
  collectgarbage(); collectgarbage()
  t.ok(held.rec == nil and held.insp == nil, "an Inspector and its ETRecord collected together")
  local npy = etinspect.write_npy and t.src .. "/build/lifetime.npy"
  if npy then
    etinspect.write_npy(tmp, etinspect.Tensor.new{dtype = "float32", shape = {3}, values = {1, 2, 3}})
    local x = etinspect.read_npy(tmp)
    local owner = debug.getuservalue(x)
    t.is(getmetatable(owner).__gc, nil, "the NpyFile behind a Tensor: no __gc through getmetatable")
    t.is(x[2], 2.0, "the tensor reads")
    t.is(debug.getmetatable(owner).__gc, nil, "... nor through debug.getmetatable")
    owner:close()
    t.is(err_of(function() return x[1] end), "Tensor used after its owner was closed",
      "the NpyFile closed under it: the tensor raises, never reads freed memory")
  end
end

-- a finalizer of the user's closes the Inspector at any allocation --------------------------
-- Where the collector first runs a finalizer depends on the allocations
-- before it (a longer path to the fixtures moves it), so each round opens a
-- fresh Inspector after a different amount of garbage.  Every round must
-- hold the rule: a close is refused while a read runs, succeeds at most
-- once, and only when idle, and every read after it raises.  The rounds go
-- on until one has seen a refusal (the first finalizer can land between
-- two reads, close the Inspector, and leave nothing to refuse).
do
  local busy, closes, errors, rounds, bad = 0, 0, 0, 0, nil
  for round = 1, 40 do
    rounds = round
    for _ = 1, round * 7 do local _ = {} end
    local insp = etinspect.Inspector{etdump_path = DELEGATES, delegate_metadata_parser = "json"}
    local closed_by = {}
    local gc_mt = {__gc = function()
      local open = tostring(insp) ~= "Inspector (closed)"
      local ok, e = pcall(insp.close, insp)
      if open then closed_by[#closed_by + 1] = ok and "closed" or tostring(e) end
    end}
    collectgarbage("incremental", 100, 400) -- short cycles: finalizers run inside the reads
    local r_errors, r_busy, r_closes = 0, 0, 0
    for _ = 1, 150 do
      local ok, e = pcall(function()
        for _, blk in ipairs(insp.event_blocks) do
          for _, ev in ipairs(blk.events) do
            setmetatable({}, gc_mt)
            local _ = ev.stack_traces; _ = ev.delegate_debug_metadatas; _ = tostring(ev); _ = ev.debug_data
          end
        end
      end)
      if not ok then
        r_errors = r_errors + 1
        if not tostring(e):find("inspector is closed") and not tostring(e):find("used after its inspector was closed") then
          bad = bad or ("round %d: a read raised %s"):format(round, tostring(e))
        end
      end
    end
    collectgarbage("incremental", 200, 100)
    for _, c in ipairs(closed_by) do
      if c == "closed" then r_closes = r_closes + 1
      elseif c:find("Inspector is busy") then r_busy = r_busy + 1
      else bad = bad or ("round %d: close raised %s"):format(round, c) end
    end
    if r_closes > 1 then bad = bad or ("round %d: closed %d times"):format(round, r_closes) end
    if (r_closes == 1) ~= (r_errors > 0) then
      bad = bad or ("round %d: %d closes but %d reads raised"):format(round, r_closes, r_errors)
    end
    busy, closes, errors = busy + r_busy, closes + r_closes, errors + r_errors
    insp:close()
    if busy > 0 or bad then break end
  end
  if bad then t.diag(bad) end
  t.ok(busy > 0 and bad == nil,
    ("user finalizers closing the Inspector: refused while a read runs (%d), closed once when idle (%d), "
     .. "later reads raise (%d), in %d round(s)"):format(busy, closes, errors, rounds))
end

-- ... also inside the Lua library's methods and the C helpers they call (_core) ---------------
-- A finalizer that closes the Inspector and arms itself again, with the
-- collector stepping at (nearly) every allocation: it runs at the
-- allocations inside each call, which must refuse it and finish.
do
  local core = etinspect._core
  -- each makes its call with everything it needs built first (before the
  -- finalizer is armed: an allocation there would close the Inspector
  -- before the call starts)
  local calls = {
    {"to_dataframe", function(i) local o = {include_delegate_debug_data = true}; return function() return i:to_dataframe(o) end end},
    {"print_data_tabular", function(i) local f, o = io.tmpfile(), {include_delegate_debug_data = true}
      return function() return i:print_data_tabular(f, o) end end},
    {"write_html", function(i) local f = io.tmpfile(); return function() return i:write_html(f) end end},
    {"run_columns", function(i) return function() return i:run_columns(1) end end},
    {"_core.html_plan", function(i) return function() return core.html_plan(i, 100) end end},
    {"_core.html_data", function(i) return function() return core.html_data(i, 100) end end},
    {"_core.html_spread", function(i) local b, g = i.event_blocks[1], {1, 1, 2}; return function() return core.html_spread(b, g) end end},
    {"_core.html_run", function(i) local b = i.event_blocks[1]; return function() return core.html_run(b, 1) end end},
    {"_core.html_starts", function(i) local e = i.event_blocks[1].events[1]; return function() return core.html_starts(e, 3) end end},
    {"_core.report_rows", function(i) local o = {metadata = true, parsed = function() return nil end}
      return function() return core.report_rows(i, o) end end},
    {"_core.sqlite_export", function(i) local a, n = {i}, {"d"}; return function() return core.sqlite_export(tmp .. ".db", a, n) end end},
  }
  local total_refused = 0
  for _, c in ipairs(calls) do
    local insp = etinspect.Inspector{etdump_path = DELEGATES, delegate_metadata_parser = "json"}
    local call = c[2](insp)
    pcall(call) -- once unarmed: the method's first lookup allocates before it runs
    local refused, armed = 0, true
    local gc_mt
    gc_mt = {__gc = function()
      if not armed then return end
      local ok = pcall(insp.close, insp)
      if ok then armed = false else refused = refused + 1; setmetatable({}, gc_mt) end
    end}
    -- a whole cycle at every allocation (the pause takes effect once a
    -- cycle ends: one is run first)
    collectgarbage("incremental", 1, 1000, 20)
    collectgarbage()
    setmetatable({}, gc_mt)
    local ok, e = pcall(call)
    collectgarbage("incremental", 200, 100, 13)
    armed = false
    -- (closed before the call pinned it, e.g. while its arguments were
    -- built: a clean error is right too)
    local clean = ok or tostring(e):find("inspector is closed") or tostring(e):find("used after its inspector was closed")
    t.ok(clean, ("a finalizer closing the Inspector at the allocations inside %s: refused while it runs (%d "
      .. "times)%s"):format(c[1], refused, ok and "" or (", else a clean error: " .. tostring(e))))
    total_refused = total_refused + refused
    pcall(insp.close, insp)
  end
  t.ok(total_refused > 10, total_refused .. " closes refused in all")
  os.remove(tmp .. ".db")
end

-- the C helpers of the library (_core) refuse hostile arguments with named errors ----------------
do
  local core = etinspect._core
  t.is(err_of(core.render, "tsv", {"a"}, {5}), "rows[1]: a table expected, got number",
    "_core.render: a row that is not a table (the half-built frame is freed: no leak)")
  local len = setmetatable({}, {__len = function() error("hostile __len") end})
  t.ok(core.render("tsv", len, len) ~= nil, "_core.render: lengths are read raw (no __len runs)")
  t.is(err_of(core.expand_dumps, {1}), "expand_dumps: paths[1]: expected a string, got number",
    "_core.expand_dumps: a path that is not a string")
  t.is(err_of(core.dump_names, "x"), "dump_names: bad argument #1 (a sequence of paths expected, got string)",
    "_core.dump_names: not a sequence")
  t.is(err_of(core.sqlite_export, tmp, {"x"}, {"n"}), "sqlite_export: inspectors[1]: an Inspector expected, got string",
    "_core.sqlite_export: not an Inspector")
  t.is(err_of(core.check_options, "f", {}, {a = 1}), "check_options: spec must map option names to type strings",
    "_core.check_options: a spec value that is not a string")
  t.is(err_of(core.outfile, tmp .. ".of", {1, tmp}),
    "_core.outfile: inputs[1]: expected a string, got number",
    "_core.outfile: an input that is not a path string is named, not skipped")
  t.is(err_of(core.write_file, tmp .. ".of", "x", {tmp, true}),
    "_core.write_file: inputs[2]: expected a string, got boolean",
    "_core.write_file: the same contract")
  t.is(err_of(core.write_file, tmp .. ".of", "x", true),
    "_core.write_file: bad argument #3 (a sequence of inputs expected, got boolean)",
    "_core.write_file: inputs that are not a sequence are named")
  local many = {}
  for i = 1, 20 do many[i] = tmp .. ".in" .. i end
  many[21] = tmp .. ".in21"
  core.write_file(tmp .. ".in21", "input")
  t.is(err_of(core.write_file, tmp .. ".in21", "x", many),
    tmp .. ".in21: refusing to overwrite an input file with output (the input " .. tmp .. ".in21)",
    "_core.write_file: the 21st input is guarded too (no cap of 8)")
  os.remove(tmp .. ".in21")
  local of = core.outfile(tmp .. ".of", {tmp})
  of:abort()
  t.is(err_of(of.write, of, "x"), "OutFile: already committed or aborted", "an aborted OutFile refuses writes")
  t.is(getmetatable(of).__gc, nil, "OutFile's finalizer is out of reach")
  t.is(err_of(of.write, "x"), "OutFile:write: bad self (OutFile expected, got string)", "OutFile: a wrong self")
end

-- a finalizer of the user's closes the ETRecord while an Inspector is being built --------
do
  collectgarbage("incremental", 100, 400)
  -- the pause takes effect once a cycle ends: run one, or the threshold the
  -- cases above left (twice the heap then) may not be reached in these 30
  -- constructions, and no finalizer runs (it was not, once the library grew)
  collectgarbage()
  local closed, opened = 0, 0
  for i = 1, 30 do
    local rec = etinspect.parse_etrecord(RECORD)
    for k = 1, 20 do setmetatable({}, {__gc = function() if pcall(rec.close, rec) then closed = closed + 1 end end}) end
    package.loaded["etinspect.parsers"] = nil -- loaded again: Lua code runs inside the constructor
    local ok, insp = pcall(etinspect.Inspector, {etdump_path = SAMPLE, etrecord = rec, delegate_metadata_parser = "json",
      delegate_time_scale_converter = function(n, ticks) return ticks end})
    if ok then opened = opened + 1; assert(insp.event_blocks[2].events[1].op_types[1] == "aten.convolution.default") end
  end
  collectgarbage("incremental", 200, 100)
  t.ok(closed > 0, ("finalizers closing the ETRecord during the construction: %d closed it, %d Inspectors "
    .. "opened, none read a freed record"):format(closed, opened))
end

-- read-only fields and sequences ----------------------------------------------------------------
do
  local insp = etinspect.Inspector{etdump_path = SAMPLE}
  local blk = insp.event_blocks[2]
  local ev = blk.events[1]
  t.is(err_of(function() ev.name = "x" end), "field 'name' of Event is read-only", "ev.name = 'x'")
  t.is(err_of(function() ev.foo = 1 end), "Event has no field 'foo' (its fields are read-only; keep your own data in a table)",
    "ev.foo = 1")
  t.is(err_of(function() insp.close = nil end), "field 'close' of Inspector is read-only", "a method cannot be replaced")
  t.is(err_of(function() blk.events[1] = nil end),
    "EventBlock.events is read-only (a sequence of the API: copy it to change it)", "blk.events[1] = nil")
  t.is(err_of(function() table.insert(insp.event_blocks, 1) end),
    "Inspector.event_blocks is read-only (a sequence of the API: copy it to change it)", "table.insert(insp.event_blocks, x)")
  t.is(err_of(function() insp.warnings[1] = "x" end),
    "Inspector.warnings is read-only (a sequence of the API: copy it to change it)", "insp.warnings")
  local n = 0
  for i, e in pairs(blk.events) do n = n + 1; assert(e == blk.events[i]) end
  t.is(n, #blk.events, "pairs over a read-only sequence")
  t.is(select("#", table.unpack(blk.events)), 8, "table.unpack of it")
end

-- insp.warnings: the same read-only view on every read, still read after close() ------------
do
  local insp = etinspect.Inspector{etdump_path = DELEGATES, delegate_metadata_parser = function() error("no") end}
  for _, b in ipairs(insp.event_blocks) do
    for _, ev in ipairs(b.events) do local _ = ev.delegate_debug_metadatas end
  end
  take()
  local w = insp.warnings
  local n, first = #w, w[1]
  t.ok(n > 1 and first:find("delegate metadata parser", 1, true), "the parser's warnings: " .. n)
  t.ok(rawequal(w, insp.warnings), "insp.warnings: the same table on every read")
  t.ok(etinspect._core.is_view(w) and getmetatable(w) == false, "... a read-only view")
  t.ok(w[0] == nil and w[n + 1] == nil and w["1"] == nil and w[1.5] == nil and w[1.0] == first
    and next(w) == nil and rawlen(w) == 0, "... items only at 1 .. #w")
  local copy = {}
  for i, m in pairs(w) do copy[i] = m end
  t.is(#copy, n, "... pairs gives every warning")
  insp:close()
  t.is(err_of(function() return insp.warnings end), "inspector is closed", "insp.warnings after close() raises")
  t.ok(#w == n and w[1] == first and w[n] == copy[n], "a view taken before close() still reads the warnings")
  local k = 0
  for i, m in ipairs(w) do k = i; assert(m == copy[i]) end
  t.is(k, n, "... ipairs over it")
  t.is(err_of(function() w[n + 1] = "x" end),
    "Inspector.warnings is read-only (a sequence of the API: copy it to change it)", "... writes refused")
  t.is(err_of(function() table.insert(w, "x") end),
    "Inspector.warnings is read-only (a sequence of the API: copy it to change it)", "... table.insert refused")
  t.is(#w, n, "... nothing was added")
  insp = nil
  collectgarbage()
  collectgarbage()
  t.ok(#w == n and w[n] == copy[n], "... and while the view is kept, the Inspector and its warnings are")
end

-- stable identity --------------------------------------------------------------------------------
do
  local insp = etinspect.Inspector{etdump_path = SAMPLE, etrecord = RECORD}
  local b = insp.event_blocks[2]
  t.ok(b.events[1] == b.events[1], "b.events[1] == b.events[1]")
  t.ok(insp.event_blocks == insp.event_blocks and b.events == b.events, "the sequences themselves")
  t.ok(insp.event_blocks[2] == b, "insp.event_blocks[k] is the same block")
  t.ok(b.events[1].perf_data == b.events[1].perf_data, "ev.perf_data")
  local seen = {}
  for _, ev in ipairs(b.events) do seen[ev] = true end
  local k = 0
  for i = 1, #b.events do if seen[b.events[i]] then k = k + 1 end end
  t.is(k, #b.events, "events are table keys")
  local g = insp:get_exported_program()
  t.ok(g == insp:get_exported_program() and g == insp.etrecord:get_exported_program(), "the same Graph")
  t.ok(g.nodes[1] == g:node(g.nodes[1].name), "g:node gives the Node of g.nodes")
  local h = g.nodes[1].debug_handle
  if h then t.ok(g:nodes_by_debug_handle(h)[1] == g:node(g.nodes[1].name), "... and nodes_by_debug_handle") else t.skip("no handle") end
end

-- a script that replaces the standard library ------------------------------------------------------
do
  local saved = {table = table, string = string, io = io, require = require, print = print, tostring = tostring}
  local insp = etinspect.Inspector{etdump_path = DELEGATES, delegate_metadata_parser = "json"}
  local rec = etinspect.parse_etrecord(RECORD)
  local g = rec:get_exported_program()
  local out = io.tmpfile()
  table, string, io, require, print = nil, nil, nil, nil, nil
  local ok, e = pcall(function()
    local keys = {}
    for k in pairs(insp.event_blocks[1].events[1]) do keys[#keys + 1] = k end
    insp:write_trace(tmp)
    local i2 = etinspect.Inspector{etdump_path = DELEGATES, delegate_metadata_parser = "json"}
    g:print(out)
    return #keys
  end)
  table, string, io, require, print = saved.table, saved.string, saved.io, saved.require, saved.print
  t.ok(ok and e > 10, "with table, string, io, require and print set to nil the API works: " .. saved.tostring(e))
end

-- the Lua library keeps the standard library it was loaded with ------------------------------------
do
  local insp = etinspect.Inspector{etdump_path = DELEGATES, delegate_metadata_parser = "json"}
  local df = insp:to_dataframe()
  local want = tostring(df)
  local names = {"table", "string", "io", "math", "os", "utf8", "pairs", "ipairs", "type", "tostring",
                 "tonumber", "select", "error", "pcall", "setmetatable", "getmetatable", "next", "rawget",
                 "rawlen", "assert", "require", "print"}
  local saved = {}
  for _, k in ipairs(names) do saved[k] = _G[k] end
  local out = io.tmpfile()
  for _, k in ipairs(names) do _G[k] = nil end
  local ok, e = saved.pcall(function()
    local r = {}
    r[1] = saved.tostring(df)
    r[2] = df:to_tsv()
    r[3] = #insp:to_dataframe{include_delegate_debug_data = true}
    insp:save_data_to_tsv(out)
    insp:print_data_tabular(out)
    insp:write_html(out)
    r[4] = etinspect.pyrepr.repr({1, "a"})
    r[5] = #df:group_by("event_name"):agg{n = {"event_name", "count"}}
    r[6] = #etinspect.diff(insp, insp)
    return r
  end)
  for _, k in saved.ipairs(names) do _G[k] = saved[k] end
  t.ok(ok, "with the standard library's globals set to nil the library's methods work: " .. tostring(ok or e))
  if ok then
    t.is(e[1], want, "... tostring(frame) is the same")
    t.is(e[4], "[1, 'a']", "... pyrepr too")
  end
end

-- os.exit(true) from inside a callback: the state closes under a running write --------------------
do
  local bin = os.getenv("ETINSPECT") or (t.build .. "/etinspect")
  local script_base = os.tmpname()
  local script = script_base .. ".lua" -- etinspect runs a file as a script only by this name
  local f = assert(io.open(script, "w"))
  f:write(([[
local etinspect = require "etinspect"
local insp = etinspect.Inspector{etdump_path = %q, delegate_metadata_parser = function() os.exit(3, true) end}
insp:write_trace(%q)
]]):format(DELEGATES, tmp))
  f:close()
  local ok, how, code = os.execute(bin .. " " .. script .. " 2>/dev/null")
  t.is(code, 3, "os.exit(3, true) inside a parser during write_trace: exit 3, no sanitizer report")
  os.remove(script)
  local function leftovers()
    local p = io.popen("ls '" .. tmp .. "'.?????? 2>/dev/null")
    local l = p:read("a")
    p:close()
    return l
  end
  t.is(leftovers(), "", "... its temporary file is gone")
  -- without closing the state (no finalizer runs): the core's registry
  -- removes what was never committed at exit()
  -- (write_html writes through an OutFile, as the last case does)
  for _, case in ipairs{{"write_trace", "os.exit(4)"}, {"save_data_to_tsv", "os.exit(6)"}, {"OutFile", "os.exit(5)"}} do
    f = assert(io.open(script, "w"))
    if case[1] == "OutFile" then
      f:write(([[
local of = require("etinspect")._core.outfile(%q)
of:write("half a page")
%s
]]):format(tmp, case[2]))
    else
      f:write(([[
local etinspect = require "etinspect"
local insp = etinspect.Inspector{etdump_path = %q, delegate_metadata_parser = function() %s end}
insp:%s(%q%s)
]]):format(DELEGATES, case[2], case[1], tmp, case[1] == "save_data_to_tsv" and ", {include_delegate_debug_data = true}" or ""))
    end
    f:close()
    local _, _, c = os.execute(bin .. " " .. script .. " 2>/dev/null")
    t.is(c, tonumber(case[2]:match("%d")), case[2] .. " inside a parser during " .. case[1] .. ": exit status")
    t.is(leftovers(), "", "... no temporary file left (removed at exit)")
    os.remove(script)
  end
  os.remove(script_base)
end

-- the event blocks are made at their first view, with their warnings: ---------------------
-- the warning handler runs then, inside that view
do
  local REPEAT = fx .. "/repeat.etdp"
  local function opened()
    take()
    local insp = etinspect.Inspector{etdump_path = REPEAT}
    local n = 0
    for _, run in insp:runs() do for _ in run:events() do n = n + 1 end end
    t.ok(n > 0 and #take() == 0, "raw runs read, blocks not made yet: no warning about them")
    return insp
  end
  -- the handler closes the Inspector: refused while a view runs (busy), done
  -- where nothing is running (#insp), and then that view raises
  local insp = opened()
  local seen, closed
  etinspect.on_warning(function(msg) seen = msg; closed = {pcall(insp.close, insp)} end)
  local blocks = insp.event_blocks
  t.ok(seen and seen:find("only the last occurrence", 1, true), "the handler saw the blocks' warning")
  t.ok(not closed[1] and tostring(closed[2]):find("Inspector is busy (Inspector.event_blocks is running)", 1, true),
    "... its close() inside insp.event_blocks was refused")
  t.is(#blocks, 1, "... the view gave the blocks")
  insp = opened()
  seen, closed = nil, nil
  local e = err_of(function() return #insp end)
  etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
  t.ok(seen and closed[1], "inside #insp the handler closed it")
  t.is(e, "inspector is closed", "... and #insp raises: nothing is read of the closed inspector")
  t.is(err_of(function() return insp.event_blocks end), "inspector is closed", "... later views too")
  t.is(tostring(insp), "Inspector (closed)", "... tostring says so")
  -- the handler reads the blocks itself: made once, the warning given once
  insp = opened()
  local inner
  etinspect.on_warning(function(msg)
    warnings[#warnings + 1] = msg
    inner = #insp.event_blocks
  end)
  t.is(#insp.event_blocks, 1, "a handler that reads the blocks: the view gives them")
  etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
  t.is(inner, 1, "... the handler saw them too")
  t.is(#take(), 1, "... the warning was given once")
  t.is(#insp.warnings, 1, "... and is in insp.warnings once")
  -- handlers that raise, yield or run the collector: the view still works
  for _, h in ipairs{function() error("handler failed") end, function() coroutine.yield() end,
                     function() collectgarbage() end} do
    insp = opened()
    etinspect.on_warning(h)
    local ok, s = pcall(tostring, insp)
    etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
    t.ok(ok and s:find("(1 event block, 3 events, ns -> ms)", 1, true), "a failing handler: tostring makes the blocks")
    t.is(#insp.warnings, 1, "... and the warning is in insp.warnings")
  end
end

os.remove(tmp)
t.done()
