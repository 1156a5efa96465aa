#!/usr/bin/env etinspect
-- api.t - the Lua API (module etinspect) on the shared corpus, checked
-- against the reference Inspector's outputs (../shared/corpus/ref).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

if not t.exists(t.corpus .. "/small.etdp") then t.skip_all("shared corpus not found at " .. t.corpus) end

local warnings = {}
etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
local function take_warnings() local w = warnings; warnings = {}; return w end

-- module ------------------------------------------------------------------
t.is(etinspect.TimeScale.NS, "ns", "TimeScale.NS")
t.is(etinspect.TimeScale.CYCLES, "cycles", "TimeScale.CYCLES")
t.ok(etinspect.version:match("^%d+%.%d+%.%d+$") ~= nil, "version")

-- constructor errors (spec §1.3) ---------------------------------------------
t.raises(function() etinspect.Inspector{} end, "Expecting exactly one of etdump_path or etdump_data",
  "neither etdump_path nor etdump_data")
t.raises(function() etinspect.Inspector{etdump_path = "x", etdump_data = "y"} end,
  "Expecting exactly one of etdump_path or etdump_data", "both etdump_path and etdump_data")
t.raises(function() etinspect.Inspector{etdump_path = t.corpus .. "/cycles.etdp", source_time_scale = "cycles"} end,
  "For TimeScale in cycles both the source and target time scale have to be in cycles%.",
  "cycles mixed with ms")
t.raises(function() etinspect.Inspector{etdump_path = "/nonexistent.etdp"} end,
  "/nonexistent.etdp: No such file or directory", "missing file")
t.raises(function() etinspect.Inspector{etdump_data = "not an etdump at all"} end,
  "not an ETDump", "bad bytes")
t.raises(function() etinspect.Inspector{etdump_pth = "x"} end, "unknown option 'etdump_pth'",
  "a misspelt option is refused")
t.raises(function() etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp", target_time_scale = "hours"} end,
  "choose from 'ns', 'us', 'ms', 's', 'cycles'", "bad time scale")
t.raises(function() etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp", delegate_metadata_parser = "nope"} end,
  "unknown delegate metadata parser 'nope'", "unknown parser name")

-- small.etdp -----------------------------------------------------------------
local insp = etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp"}
t.is(#insp.event_blocks, 1, "small: one block")
t.is(#insp, 1, "#insp is the number of blocks")
t.is(insp.source_time_scale, "ns", "source_time_scale")
t.is(insp.target_time_scale, "ms", "target_time_scale")
t.is(insp.etdump_path, t.corpus .. "/small.etdp", "etdump_path")
local blk = insp.event_blocks[1]
t.is(blk.name, "Execute", "block name")
t.is(#blk, 19, "#block is its number of events")
t.is(#blk.events, 19, "block.events")
t.is(blk.num_runs, 10, "block.num_runs")
t.is(blk.bundled_input_index, -1, "bundled_input_index -1")
t.is(#blk.run_output, 0, "run_output empty")
t.is(blk.reference_output, nil, "reference_output nil")
t.is(blk.target_time_scale, "ms", "block target_time_scale")
t.ok(tostring(blk):find("EventBlock 'Execute' %(10 runs, 19 events%)") ~= nil, "block __tostring")

local byname = {}
for _, ev in ipairs(blk.events) do byname[ev.name] = ev end
local addmm = byname["native_call_addmm.out"]
local pd = addmm.perf_data
-- exact values from ref/small.json
t.is(pd.raw[1], 0.016809, "raw[1] of native_call_addmm.out")
t.is(pd.p10, 0.0135036, "p10")
t.is(pd.p50, 0.015529500000000002, "p50 (NumPy linear, to the last bit)")
t.is(pd.p90, 0.0168125, "p90")
t.is(pd.avg, 0.0151446, "avg (NumPy pairwise mean)")
t.is(pd.min, 0.013167, "min")
t.is(pd.max, 0.016844, "max")
t.is(#pd, 10, "#perf_data is the sample count")
t.is(pd:percentile(50), pd.p50, "percentile(50) == p50")
t.is(pd:percentile(100), pd.max, "percentile(100) == max")
local mean, acc = 0, 0
for _, x in ipairs(pd.raw) do mean = mean + x end
mean = mean / #pd.raw
for _, x in ipairs(pd.raw) do acc = acc + (x - mean) ^ 2 end
t.near(pd.stddev, math.sqrt(acc / #pd.raw), 1e-12, "stddev (population)")
t.raises(function() return pd:percentile(101) end, "between 0 and 100", "percentile out of range")
t.is(addmm.start_time[1], 1001255, "start_time[1] (raw ticks)")
t.is(math.type(addmm.start_time[1]), "integer", "start times are integers")
t.is(addmm.instruction_id, 1, "instruction_id")
t.is(addmm.is_delegated_op, false, "is_delegated_op false")
t.is(addmm.delegate_debug_identifier, nil, "no delegate identifier")
t.is(#addmm.op_types, 0, "op_types empty without ETRecord")
t.is(addmm.debug_handles, nil, "debug_handles nil without ETRecord")
t.is(addmm.num_outputs, 1, "num_outputs")
t.is(#addmm.raw_delegate_debug_metadatas, 0, "no metadata: empty list")
t.raises(function() return addmm.no_such_field end, "Event has no field or method 'no_such_field'",
  "unknown field")

local d0 = byname["0"]
t.is(d0.delegate_debug_identifier, 0, "delegated int id 0 (an integer)")
t.is(math.type(d0.delegate_debug_identifier), "integer", "... of integer type")
t.is(d0.is_delegated_op, true, "is_delegated_op true")
t.is(d0.raw_delegate_debug_metadatas[1], '{"op":"conv2d","algo":"winograd"}', "JSON metadata bytes")
t.is(byname["1"].raw_delegate_debug_metadatas[1], "\0\1\2\255\254\127\128\16", "binary metadata bytes")
t.is(d0.perf_data.p10, 0.0011228999999998602, "delegated p10 keeps the reference's float arithmetic")
local add1 = byname["add #1"]
t.is(add1.delegate_debug_identifier, "add #1", "string delegate identifier")
t.is(add1.raw_delegate_debug_metadatas[10], '{"variant":9}', "metadata differs per run")
t.is(add1.delegate_debug_metadatas[3], '{"variant":2}', "without a parser: the raw list")
local n = 0
for k, v in pairs(addmm) do n = n + 1; if k == "name" then t.is(v, "native_call_addmm.out", "__pairs yields fields") end end
t.ok(n >= 15, "__pairs over every field")

-- frames ---------------------------------------------------------------------
local df = insp:to_dataframe()
t.is(#df, 19, "to_dataframe: one row per event")
local want_cols = { "event_block_name", "event_name", "block_index", "raw", "p10 (ms)", "p50 (ms)", "p90 (ms)", "avg (ms)",
                    "min (ms)", "max (ms)", "op_types", "delegate_debug_identifier", "stack_traces",
                    "module_hierarchy", "is_delegated_op", "delegate_backend_name", "debug_data", "start_time" }
t.is(table.concat(df.columns, "|"), table.concat(want_cols, "|"), "to_dataframe columns (spec §6.1, and block_index)")
t.ok(df:head(1):render("tsv"):find("\t%[%]\t\t{}\t{}\tFalse\t\t%[%]\t%[1000266, ") ~= nil,
  "op_types [], identifier None, stack_traces {}, module_hierarchy {} as pandas renders them")
t.is(table.concat(insp:to_dataframe{include_units = false}.columns, "|"):find("p50|", 1, true) ~= nil, true,
  "include_units=false drops the units")
t.is(table.concat(blk:to_dataframe().columns, "|"):find("p50 (ms)", 1, true), nil,
  "EventBlock.to_dataframe defaults to no units")
insp:save_data_to_tsv("/tmp/etinspect-api-small.tsv")
t.is(t.read("/tmp/etinspect-api-small.tsv"), t.read(t.ref .. "/small.tsv"), "save_data_to_tsv(path) equals the reference")
os.remove("/tmp/etinspect-api-small.tsv")
local out = io.tmpfile()
insp:print_data_tabular{file = out}
out:seek("set")
t.is(out:read("a"), t.read(t.ref .. "/small.print.txt"), "print_data_tabular{file=} equals the reference")
local f2 = io.tmpfile()
insp:save_data_to_tsv(f2)
f2:seek("set")
t.is(f2:read("a"), t.read(t.ref .. "/small.tsv"), "save_data_to_tsv(open file)")

local top = df:filter(function(r) return r.event_name ~= "OPERATOR_CALL" end)
  :sort("avg (ms)", true):head(2)
t.is(top[1].event_name, "Method::execute", "filter/sort/head: the slowest event")
t.is(top[2].event_name, "native_call_addmm.out", "... then addmm")
local sel = df:select{"event_name", "p50 (ms)"}
t.is(#sel.columns, 2, "select keeps two columns")
t.raises(function() df:select{"nope"} end, "no column 'nope'", "select an unknown column")
local g = df:group_by("is_delegated_op"):agg{ { "n", "event_name", "count" }, { "total", "avg (ms)", "sum" } }
t.is(#g, 2, "group_by: two groups")
t.is(g[1].is_delegated_op, false, "groups in first-seen order")
t.is(g[2].n, 5, "five delegated events")
t.ok(df:to_csv():match("^,event_block_name,event_name,block_index,raw,") ~= nil, "to_csv header")
t.ok(df:head(1):to_json():match('^%[{"event_block_name": "Execute", "event_name": "native_call_permute_copy.out", "block_index": 1') ~= nil,
  "to_json rows")

-- delegate metadata parsers and converters (spec §3.8-§3.9) -------------------
local calls = 0
local p = etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp",
  delegate_metadata_parser = function(list) calls = calls + 1; return { joined = table.concat(list, "-") } end}
local pev
for _, ev in ipairs(p.event_blocks[1].events) do if ev.name == "add #1" then pev = ev end end
t.is(pev.delegate_debug_metadatas.joined:sub(1, 27), '{"variant":0}-{"variant":1}', "parser result")
local _ = pev.delegate_debug_metadatas
t.is(calls, 1, "the parser runs once per event (cached)")
local wide = p:to_dataframe{include_delegate_debug_data = true}
t.is(wide.columns[#wide.columns], "joined", "a parsed dict becomes columns")
t.ok(wide[1].joined ~= wide[1].joined, "events without metadata: NaN in that column, as pandas")

take_warnings()
local bad = etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp",
  delegate_metadata_parser = function() error("parser exploded") end}
local bev = bad.event_blocks[1].events
local raw_kept
for _, ev in ipairs(bev) do if ev.name == "0" then raw_kept = ev.delegate_debug_metadatas end end
local w = take_warnings()
t.is(#w, 1, "a raising parser gives one warning")
t.ok(w[1] and w[1]:find("parser exploded") and w[1]:find("event '0'") and w[1]:find("function at"),
  "the warning names the event, the function and the error")
t.is(raw_kept[1], '{"op":"conv2d","algo":"winograd"}', "... and the raw metadata is kept")

local num = etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp",
  delegate_metadata_parser = function() return 42 end}
for _, ev in ipairs(num.event_blocks[1].events) do if ev.name == "1" then _ = ev.delegate_debug_metadatas end end
w = take_warnings()
t.ok(#w == 1 and w[1]:find("returned a number") and w[1]:find("event '1'"), "a parser returning a number: warning")
local tbl = io.tmpfile()
num:print_data_tabular{file = tbl, include_delegate_debug_data = true}
tbl:seek("set")
t.ok(#tbl:read("a") > 1000, "the table still prints")

local conv = etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp",
  delegate_time_scale_converter = function(name, ticks) return ticks / 1000 end}
for _, ev in ipairs(conv.event_blocks[1].events) do
  if ev.name == "0" then t.near(ev.perf_data.raw[1], (1019340 - 1018210) / 1000 - 0, 0.2, "a converter gives microseconds") break end
end
take_warnings()
local nilconv = etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp",
  delegate_time_scale_converter = function() return nil end}
w = take_warnings()
t.is(#w, 5, "a converter returning nil: one warning per delegated event")
t.ok(w[1]:find("returned a nil") and w[1]:find("default conversion"), "... saying the default is used")
local ne
for _, ev in ipairs(nilconv.event_blocks[1].events) do if ev.name == "0" then ne = ev end end
t.is(ne.perf_data.p10, 0.0011228999999998602, "... and the default conversion is used")

-- time scales ----------------------------------------------------------------
local cyc = etinspect.Inspector{etdump_path = t.corpus .. "/cycles.etdp",
  source_time_scale = etinspect.TimeScale.CYCLES, target_time_scale = etinspect.TimeScale.CYCLES}
for _, ev in ipairs(cyc.event_blocks[1].events) do
  if ev.name == "dsp_kernel" then t.is(ev.perf_data.p50, 512.0, "cycles: delegated wrap-around is 512 cycles") end
end

-- etdump_data ---------------------------------------------------------------
local bytes = t.read(t.corpus .. "/small.etdp")
local fromdata = etinspect.Inspector{etdump_data = bytes}
local fd
for _, ev in ipairs(fromdata.event_blocks[1].events) do if ev.name == "native_call_addmm.out" then fd = ev end end
t.is(fd.perf_data.p50, pd.p50, "etdump_data gives the same model")
t.is(fromdata.etdump_path, nil, "etdump_path nil for etdump_data")

-- raw runs and events ---------------------------------------------------------
local runs, events, ticks = 0, 0, 0
for i, run in insp:runs() do
  runs = runs + 1
  t.ok(i == run.index, "run index") -- 10 tests
  for _, name, s, e, kind in run:events() do
    events = events + 1
    if name == "Method::execute" and kind == "profile" then ticks = ticks + (e - s) end
  end
end
t.is(runs, 10, "insp:runs() visits every run")
t.is(events, 190, "run:events() visits every event")
local me = byname["Method::execute"].perf_data
local sum = 0
for _, x in ipairs(me.raw) do sum = sum + x end
t.near(ticks / 1e6, sum, 1e-12, "raw durations agree with perf_data")

-- the iterator's name cache gives back each event's own name: per name, as
-- many raw profile events as the model has samples (small.etdp has 12 names,
-- the Vulkan fixture 11 names of 13 to 220 bytes)
for _, file in ipairs { t.corpus .. "/small.etdp", t.build .. "/fixtures/vulkan.etdp" } do
  local i2 = etinspect.Inspector{etdump_path = file}
  local raw, model = {}, {}
  for _, run in i2:runs() do
    for _, name, _, _, kind, _, _, did in run:events() do
      if kind == "profile" then
        local k = name or tostring(did)
        raw[k] = (raw[k] or 0) + 1
      end
    end
  end
  for _, blk in ipairs(i2.event_blocks) do
    for _, ev in ipairs(blk.events) do model[ev.name] = (model[ev.name] or 0) + #ev.perf_data end
  end
  local same, n = true, 0
  for k, c in pairs(model) do
    n = n + 1
    if raw[k] ~= c then same = false; t.diag(k .. ": " .. tostring(raw[k]) .. " raw, " .. c .. " in the model") end
  end
  for k in pairs(raw) do if not model[k] then same = false; t.diag("only raw: " .. k) end end
  t.ok(same and n >= 11, "run:events() names match the model's events: " .. file:match("[^/]+$"))
end
-- two names of the same length that share a cache slot (see push_name in
-- src/lua/l_runs.c), alternating
do
  local i3 = etinspect.Inspector{etdump_path = t.build .. "/fixtures/name_clash.etdp"}
  local seq = {}
  for _, run in i3:runs() do
    for _, name in run:events() do seq[#seq + 1] = name:match("op(%d+)") end
  end
  t.is(table.concat(seq, ","), "011,028,011,028", "run:events(): names sharing a cache slot stay apart")
end

-- other Inspector methods -----------------------------------------------------
t.is(insp:find_total_for_module("L__self___conv1"), 0.0, "find_total_for_module without ETRecord")
local ep, msg = insp:get_exported_program()
t.ok(ep == nil and msg:find("etrecord_path"), "get_exported_program: nil and a message")
t.is(next(insp:get_op_list("Execute")), nil, "get_op_list: no op types without ETRecord")

-- closing ----------------------------------------------------------------------
local ev1 = insp.event_blocks[1].events[1]
local pd1 = ev1.perf_data
insp:close()
t.raises(function() return ev1.name end, "Event used after its inspector was closed", "event after close")
t.raises(function() return pd1.p50 end, "PerfData used after its inspector was closed", "perf data after close")
t.raises(function() return insp.event_blocks end, "inspector is closed", "inspector after close")
t.is(tostring(insp), "Inspector (closed)", "__tostring after close")
do
  local scoped <close> = etinspect.Inspector{etdump_path = t.corpus .. "/small.etdp"}
  ev1 = scoped.event_blocks[1].events[1]
end
t.raises(function() return ev1.name end, "used after its inspector was closed", "<close> closes it")

-- allocations and debug (the reference fails on these) --------------------------
local alloc = etinspect.Inspector{etdump_path = t.corpus .. "/alloc.etdp"}
t.is(table.concat(alloc.event_blocks[1].allocators, ","), "method_allocator,planned_memory_0,temp_allocator",
  "block allocators")
take_warnings()
local dbg = etinspect.Inspector{etdump_path = t.corpus .. "/debug.etdp", debug_buffer_path = t.corpus .. "/debug.bin"}
t.is(#take_warnings(), 0, "debug.etdp: no warning about the event blocks before they are looked at")
t.is(#dbg.event_blocks, 2, "debug.etdp: two event blocks")
w = take_warnings()
t.ok(#w == 1 and w[1]:find("different debug data"), "... made at that first view, with one warning")
t.is(#dbg.warnings, 1, "... in dbg.warnings")
local _ = dbg.event_blocks[1].events[1].perf_data
t.is(#take_warnings(), 0, "... given once")
local dd = dbg.event_blocks[2].events[1].debug_data[1]
t.ok(etinspect.Tensor.is_tensor(dd), "debug_data entry is a Tensor")
t.is(dd.dtype, "float32", "... dtype")
t.is(table.concat(dd.shape, "x"), "2x3", "... shape")
t.is(table.concat(dd:tolist()[2], ","), "1.25,1.5,1.75", "... values")
local raw = dbg.event_blocks[2].events[1]:debug_data_raw()[1]
t.is(raw.kind, "tensor", "debug_data_raw keeps the raw description")
t.is(raw.offset, 0, "... with the offset")
local ro = dbg.event_blocks[2].run_output
t.is(#ro, 2, "run_output holds the two flagged program outputs")
t.ok(etinspect.Tensor.is_tensor(ro[1]) and ro[1].dtype == "float32", "... a tensor")
t.ok(type(ro[2]) == "table" and #ro[2] == 2 and etinspect.Tensor.is_tensor(ro[2][2]),
  "... and a TensorList (a sequence of Tensors)")
t.is(dbg.event_blocks[2]:run_output_raw()[2].kind, "tensor_list", "run_output_raw describes them")

-- the statistics are computed when the model is first viewed, not by Inspector{}
-- (et_inspector_options.defer_stats): raw runs and columns first, then every view agrees
-- with the reference, whichever comes first
for _, first in ipairs{"runs", "columns", "tsv", "perf_data", "tostring"} do
  local d = etinspect.Inspector{etdump_path = t.corpus .. "/medium.etdp"}
  if first == "runs" then
    for _, run in d:runs() do for _ in run:events() do end end
  elseif first == "columns" then
    d:run_columns(1)
  elseif first == "perf_data" then
    t.ok(d.event_blocks[1].events[1].perf_data.p50 > 0, "deferred statistics: perf_data read first")
  elseif first == "tostring" then
    t.ok(tostring(d.event_blocks[1].events[1]):find("p50 [%d.]+ ms") ~= nil, "deferred statistics: an Event's tostring first")
  end
  local tmp = os.tmpname()
  d:save_data_to_tsv(tmp)
  t.is(t.read(tmp), t.read(t.ref .. "/medium.tsv"), "deferred statistics, " .. first .. " first: the TSV equals the reference")
  os.remove(tmp)
  d:close()
end

t.done()
