#!/usr/bin/env etinspect
-- report.t - the Inspector's tabular views from Lua: their options
-- contracts, Event:to_dataframe and asdict, get_vgf_neural_statistics, the
-- json parser's values, and one implementation of the rows for the command
-- line and the Lua API (spec §6.1-§6.7).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local pyrepr = etinspect.pyrepr

if not t.exists(t.corpus .. "/small.etdp") then t.skip_all("shared corpus not found at " .. t.corpus) end
local insp = etinspect.Inspector { etdump_path = t.corpus .. "/small.etdp" }

-- contracts -----------------------------------------------------------------------
t.raises(function() insp:to_dataframe { include_unit = false } end,
  "Inspector:to_dataframe: unknown option 'include_unit' %(accepted: include_delegate_debug_data, include_units%)",
  "to_dataframe: a misspelt option is named")
t.raises(function() insp:to_dataframe(true) end,
  "Inspector:to_dataframe: bad argument #1 %(options table expected, got boolean%)", "to_dataframe(true)")
t.raises(function() insp:to_dataframe { include_units = "no" } end,
  "option 'include_units' must be a boolean, got string", "to_dataframe: a wrong type")
t.raises(function() insp:save_data_to_tsv(os.tmpname(), { include_unitz = false }) end,
  "Inspector:save_data_to_tsv: unknown option 'include_unitz'", "save_data_to_tsv: a misspelt option")
t.raises(function() insp:save_data_to_tsv() end, "a path or an open file is required", "save_data_to_tsv()")
t.raises(function() insp:save_data_to_tsv(42) end,
  "save_data_to_tsv: bad argument #1 %(a path or an open file expected, got number%)", "save_data_to_tsv(42)")
t.raises(function() insp:print_data_tabular { file = "x" } end,
  "Inspector:print_data_tabular: option 'file' must be a file, got string", "print_data_tabular{file = 'x'}")
t.raises(function() insp:print_data_tabular { fil = io.stdout } end,
  "Inspector:print_data_tabular: unknown option 'fil'", "print_data_tabular: a misspelt option")
t.raises(function() insp.event_blocks[1]:to_dataframe { include_units = 1 } end,
  "EventBlock:to_dataframe: option 'include_units' must be a boolean, got number", "blk:to_dataframe: a wrong type")
t.raises(function() insp.event_blocks[1].events[1]:to_dataframe(true) end,
  "Event:to_dataframe: bad argument #1 %(units suffix string expected, got boolean%)", "ev:to_dataframe(true)")
t.raises(function() insp:find_total_for_module() end, "module name string expected, got nil", "find_total_for_module()")

-- print_data_tabular takes a file first, as Python's print_data_tabular(sys.stderr)
local ref_print = t.read(t.ref .. "/small.print.txt")
local f = io.tmpfile()
insp:print_data_tabular(f)
f:seek("set")
t.is(f:read("a"), ref_print, "print_data_tabular(file) prints the reference's table there")
f = io.tmpfile()
insp:print_data_tabular(f, { include_units = true })
f:seek("set")
t.is(f:read("a"), ref_print, "print_data_tabular(file, opts)")
f = io.tmpfile()
insp:print_data_tabular { file = f }
f:seek("set")
t.is(f:read("a"), ref_print, "print_data_tabular{file = f}")
local sink = { parts = {} }
function sink:write(s) self.parts[#self.parts + 1] = s end
insp:print_data_tabular(sink)
t.is(table.concat(sink.parts), ref_print, "print_data_tabular(any value with a write method)")

-- the rows: one implementation for the command line and Lua ------------------------------
local tmp = os.tmpname()
insp:save_data_to_tsv(tmp)
t.is(t.read(tmp), t.read(t.ref .. "/small.tsv"), "save_data_to_tsv equals the reference's")
local df = insp:to_dataframe()
local display = require("etinspect.report").display_frame(insp)
t.is(display:render("tsv"), t.read(t.ref .. "/small.tsv"), "the Lua display frame (rich cells) renders the same TSV")
t.is(type(df[1].raw), "table", "to_dataframe: raw is the event's list of durations")
t.is(df[1].raw[2], insp.event_blocks[1].events[1].perf_data.raw[2], "... the event's own values")
t.is(pyrepr.repr(df[1].start_time), "[1000266, 1035274, 1070640, 1104735, 1136573, 1169143, 1200619, 1236249, 1271077, 1304198]",
  "start_time: the raw start ticks")
t.is(df[1].p10, nil, "no column p10 with units on") -- (a row is a table: unknown keys are nil)
local blk = insp.event_blocks[1]:to_dataframe()
t.is(blk.columns[5], "p10", "EventBlock:to_dataframe: no units by default")
t.is(#blk, #insp.event_blocks[1].events, "EventBlock:to_dataframe: one row per event")
os.remove(tmp)

-- Event:to_dataframe and asdict (spec §6.1) -----------------------------------------------
local ev = insp.event_blocks[1].events[5]
local edf = ev:to_dataframe()
t.is(#edf, 1, "Event:to_dataframe: one row")
t.is(table.concat(edf.columns, "|"), "event_name|raw|p10|p50|p90|avg|min|max|op_types|delegate_debug_identifier|"
  .. "stack_traces|module_hierarchy|is_delegated_op|delegate_backend_name|debug_data|start_time",
  "Event:to_dataframe: asdict's columns, no event_block_name")
t.is(edf[1].event_name, "0", "... the delegated event's name")
t.is(edf[1].delegate_debug_identifier, 0, "... its identifier")
t.is(edf[1].p50, 0.0012799999999999478, "... its p50")
t.is(ev:to_dataframe(" (ms)").columns[3], "p10 (ms)", "Event:to_dataframe(units)")
t.is(ev:asdict(" (us)")["avg (us)"], ev.perf_data.avg, "asdict(units)")
t.is(ev:to_dataframe():render("tsv"), "\tevent_name\traw\tp10\tp50\tp90\tavg\tmin\tmax\top_types\t"
  .. "delegate_debug_identifier\tstack_traces\tmodule_hierarchy\tis_delegated_op\tdelegate_backend_name\t"
  .. "debug_data\tstart_time\n0\t0\t" .. pyrepr.repr(ev.perf_data.raw) .. "\t0.0011228999999998602\t"
  .. "0.0012799999999999478\t0.0013139999999999042\t0.0012418999999999735\t0.0010589999999999211\t"
  .. "0.001322999999999963\t[]\t0\t{}\t{}\tTrue\t\t[]\t" .. pyrepr.repr(ev.start_time) .. "\n",
  "Event:to_dataframe's TSV, as pandas writes pd.DataFrame(event.asdict())")

-- include_delegate_debug_data: bytes reprs in the Lua frame too ---------------------------
local dd = insp:to_dataframe { include_delegate_debug_data = true }
t.is(dd.columns[#dd.columns], "delegate_debug_metadata", "raw metadata: one column")
local cell = dd[6].delegate_debug_metadata
t.is(pyrepr.repr(cell):sub(1, 38), "[b'\\x00\\x01\\x02\\xff\\xfe\\x7f\\x80\\x10', ", "raw metadata renders as Python bytes")
t.is(cell[1], "\0\1\2\255\254\127\128\16", "... the cell holds the bytes")
t.ok(dd[1].delegate_debug_metadata ~= dd[1].delegate_debug_metadata, "... NaN where an event has none")

-- the json parser: objects in order, arrays as sequences ------------------------------------
local arr = etinspect.parsers.json { '{"tile": [4, 4], "name": "conv", "none": null, "deep": {"a": []}}' }
t.is(pyrepr.repr(arr), "{'tile': [4, 4], 'name': 'conv', 'none': None, 'deep': {'a': []}}",
  "json parser: the object's order, arrays as lists, null as None")
t.is(#arr.tile, 2, "json arrays are sequences")
t.is(rawget(arr.tile, "n"), nil, "... without an n field")
local holes = etinspect._core.json_decode("[1, null, 3, null]")
t.is(#holes, 4, "an array with nulls keeps its JSON length")
t.is(pyrepr.repr(holes), "[1, None, 3, None]", "... and prints its Nones")
local names = {}
for k in pairs(arr) do names[#names + 1] = k end
t.is(table.concat(names, ","), "tile,name,none,deep", "pairs over a JSON object: its order")
arr.extra = 1
t.is(pyrepr.repr(arr):sub(-11), "'extra': 1}", "a key added later goes last")
local jinsp = etinspect.Inspector { etdump_path = t.corpus .. "/small.etdp", delegate_metadata_parser = "json" }
etinspect.on_warning(function() end)
local jdf = jinsp:to_dataframe { include_delegate_debug_data = true }
local jc = {}
for i = 19, #jdf.columns do jc[#jc + 1] = jdf.columns[i] end
t.is(table.concat(jc, "|"), "op|algo|delegate_debug_metadata|variant",
  "json parser: columns in the JSON's order, first-seen over the events (binary metadata: the raw list)")

-- get_vgf_neural_statistics (spec §6.7) -----------------------------------------------------
t.is(#insp:get_vgf_neural_statistics(), 0, "get_vgf_neural_statistics: none in small.etdp")
local fx = t.build .. "/fixtures/delegates.etdp"
if t.exists(fx) then
  local vi = etinspect.Inspector { etdump_path = fx }
  local stats = vi:get_vgf_neural_statistics()
  t.is(#stats, 2, "get_vgf_neural_statistics: one record per run of the VGF event")
  t.is(stats[1].schema, "executorch.vgf.neural_statistics", "... the schema")
  t.is(stats[1].segments[1].debug_database.raw_data, "hello", "... blobs base64-decoded into raw_data")
  t.is(stats[1].segments[1].statistics_info.raw_data, "", "... an unavailable blob gets raw_data ''")
  local vp = etinspect.Inspector { etdump_path = fx, delegate_metadata_parser = "vgf" }
  etinspect.on_warning(function() end)
  local tsv = assert(io.tmpfile())
  vp:save_data_to_tsv(tsv, { include_delegate_debug_data = true })
  tsv:seek("set")
  local text = tsv:read("a")
  t.ok(text:find("{'available': True, 'encoding': 'base64', 'data': 'aGVsbG8=', 'raw_data': b'hello'}, "
    .. "'statistics_info': {'available': False, 'raw_data': b''}", 1, true) ~= nil,
    "vgf parser's TSV: raw_data as Python bytes reprs, as the reference writes them")
  vp:close()
else
  t.skip("build/fixtures/delegates.etdp not built")
end

-- hostile parsers: closing the Inspector mid-table, odd keys and values ------------------
local victim
victim = etinspect.Inspector { etdump_path = t.corpus .. "/small.etdp",
  delegate_metadata_parser = function() victim:close(); return { x = 1 } end }
-- the lifetime rule (docs/lua-api.md): close() is refused while the table
-- is built; the parser's error is a parser failure (a warning, raw kept)
local vdf = victim:to_dataframe { include_delegate_debug_data = true }
t.is(#vdf, 19, "a parser that closes its Inspector: refused, the frame is built")
t.ok(victim.warnings[#victim.warnings]:find(
  "Inspector is busy %(Inspector:to_dataframe is running%); close it after Inspector:to_dataframe returns; the raw metadata is kept"),
  "... the parser's failure is a warning naming the running method")
local v2
v2 = etinspect.Inspector { etdump_path = t.corpus .. "/small.etdp",
  delegate_metadata_parser = function() v2:close(); return { x = 1 } end }
v2:print_data_tabular(io.tmpfile(), { include_delegate_debug_data = true })
t.ok(v2.warnings[#v2.warnings]:find("Inspector is busy %(Inspector:print_data_tabular is running%)"),
  "... also while print_data_tabular builds the table")
v2:close()
t.raises(function() return v2.event_blocks end, "inspector is closed",
  "... and it closes once the method returned")
local odd = etinspect.Inspector { etdump_path = t.corpus .. "/small.etdp",
  delegate_metadata_parser = function() return { [true] = 1, f = print, t = setmetatable({}, { __tostring = error }) } end }
local otsv = odd:save_data_to_tsv(nil or io.tmpfile(), { include_delegate_debug_data = true })
t.is(otsv, nil, "a parser's odd keys and values (boolean keys, functions, tables) still make a table")

t.done()
