#!/usr/bin/env etinspect
-- contracts.t - the argument contracts of docs/lua-api.md ("Lifetimes and
-- contracts") over every method and function of the API.
--  * Every C-implemented method is found in the types' metatables and must
--    be listed in C_METHODS (a new method without an entry fails this
--    test); each is called with a wrong self, too many arguments, wrong
--    positional arguments and (for options tables) unknown keys,
--    positional values and non-tables, and must raise the named error.
--  * Every method and function documented in docs/lua-api.md (the calls
--    `recv:method(` and `etinspect.fn(` in its tables, found by parsing
--    it) must have an entry in DOC, and every entry must be documented;
--    each is called with a misused positional argument and must raise the
--    exact named error; one that takes an options table must refuse an
--    unknown key (naming it and the accepted ones), a positional value in
--    the table and a non-table, each with a named error.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

local fx = t.build .. "/fixtures"
if not t.exists(fx .. "/sample.etdp") then t.skip_all("build/fixtures missing (run make)") end
etinspect.on_warning(function() end)
local tmp = os.tmpname()

-- one object of every type
local insp = etinspect.Inspector{etdump_path = fx .. "/sample.etdp", etrecord = fx .. "/sample.etrecord"}
local blk = insp.event_blocks[2]
local obj = {
  Inspector = insp, EventBlock = blk, Event = blk.events[1], PerfData = blk.events[1].perf_data,
  ETRecord = insp.etrecord, Graph = insp:get_exported_program(),
  Tensor = etinspect.Tensor.new{dtype = "float32", shape = {2}, values = {1, 2}},
}
for _, run in insp:runs() do obj.Run = run break end
obj.Node = obj.Graph.nodes[1]
etinspect.write_npy(tmp, obj.Tensor)
obj.NpyFile = debug.getuservalue(etinspect.read_npy(tmp))
obj.OutFile = etinspect._core.outfile(tmp .. ".out")
-- a Program and its dependents (tests/pte; docs/lua-api.md "Programs")
local prog = etinspect.parse_program(t.src .. "/tests/pte/add.pte")
obj.Program, obj.Method = prog, prog.methods[1]
obj.Instruction, obj.Operator = obj.Method.instructions[1], obj.Method.operators[1]

local err_of = t.err_of

-- The C methods.  args: valid arguments (after self); max: how many it
-- takes; bad: {arguments, the exact message, "@" standing for the method's
-- name}; opts: the position of its options table and the accepted keys as
-- the message lists them.
local C_METHODS = {
  {"Inspector", "close", args = {}, max = 0, skip_call = true},
  {"Inspector", "get_exported_program", args = {}, max = 2,
   bad = {{{{}}, "@: bad argument #1 (string expected, got table)"},
          {{nil, {}}, "@: bad argument #2 (string expected, got table)"}}},
  {"Inspector", "runs", args = {}, max = 0},
  {"Inspector", "write_trace", args = {tmp}, max = 2,
   bad = {{{}, "@: bad argument #1 (string expected, got no value)"},
          {{tmp, {runs = {1.5}}}, "@: runs[1]: expected an integer"},
          {{tmp, {window = {2, 1}}}, "@: window: expected {start_us, end_us} with start below end"}},
   opts = {2, "cycles_hz, format, runs, runs_apart, window"}},
  {"Inspector", "write_model_explorer", args = {tmp .. ".mx"}, max = 2,
   bad = {{{{}}, "@: bad argument #1 (string expected, got table)"}},
   opts = {2, "baseline"}},
  {"Inspector", "to_sqlite", args = {tmp .. ".db"}, max = 2,
   bad = {{{{}}, "@: bad argument #1 (string expected, got table)"}},
   opts = {2, "dump, replace"}},
  {"Inspector", "to_parquet", args = {tmp .. ".pq"}, max = 2,
   bad = {{{{}}, "@: bad argument #1 (string expected, got table)"}},
   opts = {2, "dump"}},
  {"EventBlock", "run_output_of_run", args = {1}, max = 1,
   bad = {{{"x"}, "@: bad argument #1 (number expected, got string)"},
          {{0}, "run 0 is out of range 1..3"}, {{math.maxinteger}, "run 9223372036854775807 is out of range 1..3"}}},
  {"EventBlock", "run_output_raw", args = {}, max = 1,
   bad = {{{1.5}, "@: bad argument #1 (number has no integer representation)"}}},
  {"EventBlock", "memory_summary", args = {}, max = 0},
  {"Event", "debug_data_of_run", args = {1}, max = 1,
   bad = {{{}, "@: bad argument #1 (number expected, got no value)"}, {{-1}, "run -1 is out of range 1..3"}}},
  {"Event", "debug_data_raw", args = {}, max = 1, bad = {{{{}}, "@: bad argument #1 (number expected, got table)"}}},
  {"PerfData", "percentile", args = {50}, max = 1,
   bad = {{{"p"}, "@: bad argument #1 (number expected, got string)"},
          {{101}, "@: bad argument #1 (percentile must be between 0 and 100)"},
          {{0 / 0}, "@: bad argument #1 (percentile must be between 0 and 100)"}}},
  {"Run", "events", args = {}, max = 0},
  {"ETRecord", "close", args = {}, max = 0, skip_call = true},
  {"ETRecord", "get_exported_program", args = {}, max = 2,
   bad = {{{true}, "@: bad argument #1 (string expected, got boolean)"}}},
  {"Graph", "node", args = {"x"}, max = 1, bad = {{{}, "@: bad argument #1 (string expected, got no value)"}}},
  {"Graph", "nodes_by_debug_handle", args = {1}, max = 1,
   bad = {{{"h"}, "@: bad argument #1 (number expected, got string)"}}},
  {"Graph", "print", args = {io.tmpfile()}, max = 1,
   bad = {{{"out.txt"}, "@: bad argument #1 (file expected, got string)"},
          {{{}}, "@: bad argument #1 (file expected, got table)"}}},
  {"Tensor", "at", args = {1}, max = -1, bad = {{{"i"}, "@: bad argument #1 (number expected, got string)"},
                                                {{1, 2}, "Tensor.new: at() needs 1 indices (one per dimension), got 2"}}},
  {"Tensor", "tolist", args = {}, max = 0}, {"Tensor", "bytes", args = {}, max = 0},
  {"Tensor", "min", args = {}, max = 0}, {"Tensor", "max", args = {}, max = 0},
  {"Tensor", "sum", args = {}, max = 0}, {"Tensor", "mean", args = {}, max = 0},
  {"Tensor", "std", args = {}, max = 0}, {"Tensor", "nan_count", args = {}, max = 0},
  {"Tensor", "inf_count", args = {}, max = 0}, {"Tensor", "stats", args = {}, max = 0},
  {"NpyFile", "close", args = {}, max = 0, skip_call = true},
  {"Inspector", "run_columns", args = {1}, max = 2,
   bad = {{{"x"}, "@: bad argument #1 (number expected, got string)"},
          {{0}, "@: bad argument #1 (run index 0 out of range 1..4)"},
          {{1, 5}, "@: bad argument #2 (table expected, got number)"}}},
  {"Inspector", "column_names", args = {}, max = 0},
  {"Inspector", "raw_frame", args = {}, max = 1,
   bad = {{{{units = true}}, "@: unknown option 'units' (accepted: include_units)"},
          {{"x"}, "@: bad argument #1 (options table expected, got string)"}}},
  {"OutFile", "write", args = {"x"}, max = -1, bad = {{{{}}, "@: bad argument #1 (string expected, got table)"}}},
  {"OutFile", "abort", args = {}, max = 0},
  {"OutFile", "commit", args = {}, max = 0, bad = {{{}, "OutFile: already committed or aborted"}}, skip_call = true},
  {"Program", "close", args = {}, max = 0, skip_call = true},
  {"Program", "method", args = {"forward"}, max = 1, bad = {{{{}}, "@: bad argument #1 (string expected, got table)"}}},
  {"Program", "summary", args = {}, max = 0},
  {"Program", "diff", args = {prog}, max = 1, bad = {{{1}, "@: bad argument #1 (etinspect.Program expected, got number)"}}},
}

-- every C method of every type is listed --------------------------------------------------
-- the types, and their methods written in C (_core.members: the third
-- result is the set of the Lua library's methods)
local core = etinspect._core
local listed = {}
for _, m in ipairs(C_METHODS) do listed[m[1] .. ":" .. m[2]] = m end
local types = core.types()
local found = 0
for _, ty in ipairs(types) do
  t.ok(obj[ty] ~= nil, "type " .. ty .. " has an object in this test")
  local _, names, in_lua = core.members(ty)
  for _, k in ipairs(names) do
    local fn = obj[ty] and obj[ty][k]
    if type(fn) == "function" and not in_lua[k] then
      found = found + 1
      t.ok(listed[ty .. ":" .. k] ~= nil, ty .. ":" .. k .. " (a C method) is in the contract list")
    end
  end
end
t.is(found, #C_METHODS, "every listed C method exists")

-- _core.extend: the Lua library's one way to add methods ---------------------------------
t.is(err_of(core.extend, "Nope", {f = print}), "_core.extend: unknown type 'Nope' (types: " .. table.concat(types, ", ") .. ")",
  "_core.extend of an unknown type")
t.is(err_of(core.extend, "Inspector", {to_dataframe = print, close = print, event_blocks = print, fresh = print}),
  "_core.extend: Inspector has 'close', 'event_blocks', 'to_dataframe' already", "_core.extend: names the type has, all named")
t.is(err_of(function() return obj.Inspector.fresh end), "Inspector has no field or method 'fresh'", "... (fresh is unknown)")
t.is(err_of(core.extend, "Event", {hello = 42}), "_core.extend: Event:hello must be a function, got number",
  "_core.extend of a value that is not a function")
t.is(err_of(core.extend, "Event", {print}), "_core.extend: Event: a method's name must be a string, got number",
  "_core.extend of a positional value")
t.is(err_of(core.extend, "Event", 42), "_core.extend: bad argument #2 (table of methods expected, got number)", "_core.extend of a non-table")
do
  local seen
  core.extend("PerfData", {contracts_probe = function(self, a) seen = {self, a}; return "ok" end})
  local pd = obj.PerfData
  t.is(pd:contracts_probe(1), "ok", "a method added by _core.extend is called as a method")
  t.ok(seen[1] == pd and seen[2] == 1, "... with self and its arguments")
  t.is(err_of(pd.contracts_probe, obj.Event), "PerfData:contracts_probe: bad self (PerfData expected, got Event)",
    "... its self checked as a C method's is")
  local _, names, in_lua = core.members("PerfData")
  local listed_name = false
  for _, k in ipairs(names) do listed_name = listed_name or k == "contracts_probe" end
  t.ok(listed_name and in_lua.contracts_probe, "... and _core.members names it, written in Lua")
  t.is(err_of(core.extend, "PerfData", {contracts_probe = print}), "_core.extend: PerfData has 'contracts_probe' already",
    "... and it cannot be replaced")
end

-- each C method's contract ---------------------------------------------------------------
local function call(m, args, self)
  local a = {}
  for i = 1, (args.n or #args) do a[i] = args[i] end
  return err_of(obj[m[1]][m[2]], self == nil and obj[m[1]] or self, table.unpack(a, 1, args.n or #args))
end
for _, m in ipairs(C_METHODS) do
  local q = m[1] .. ":" .. m[2]
  local other = m[1] == "Event" and obj.EventBlock or obj.Event
  t.is(call(m, m.args, "x"), q .. ": bad self (" .. m[1] .. " expected, got string)", q .. " with a string as self")
  t.is(call(m, m.args, other), q .. ": bad self (" .. m[1] .. " expected, got " .. (m[1] == "Event" and "EventBlock" or "Event") .. ")",
    q .. " with another type as self")
  if m.max >= 0 then
    local extra = {n = m.max + 1}
    for i = 1, m.max do extra[i] = m.args[i] end
    extra[m.max + 1] = "extra"
    t.is(call(m, extra), ("%s: too many arguments (it takes %d, got %d)"):format(q, m.max, m.max + 1),
      q .. " with one argument too many")
  end
  for _, b in ipairs(m.bad or {}) do
    local want = b[2]:gsub("^@", q)
    t.is(call(m, b[1]), want, q .. ": " .. want)
  end
  if m.opts then
    local pos, accepted = m.opts[1], m.opts[2]
    local function with(v) local a = {n = pos}; for i = 1, pos - 1 do a[i] = m.args[i] end; a[pos] = v; return a end
    t.is(call(m, with({bogus = 1})), ("%s: unknown option 'bogus' (accepted: %s)"):format(q, accepted),
      q .. ": an unknown option key")
    t.is(call(m, with({1})), q .. ": options must be named (got a positional value at [1])", q .. ": a positional value in the options")
    t.is(call(m, with(true)), ("%s: bad argument #%d (options table expected, got boolean)"):format(q, pos),
      q .. ": options that are not a table")
  end
  if not m.skip_call then
    local e = call(m, m.args)
    t.ok(e == nil, q .. " with valid arguments works" .. (e and (": " .. e) or ""))
  end
end

-- fields are read-only on every type ---------------------------------------------------------
for _, ty in ipairs(types) do
  local k = core.members(ty)[1]
  if k then
    t.is(err_of(function() obj[ty][k] = 1 end), ("field '%s' of %s is read-only"):format(k, ty), ty .. "." .. k .. " = 1")
  end
  t.ok((err_of(function() obj[ty].no_such_field = 1 end) or ""):find(ty .. " has no field 'no_such_field'", 1, true),
    ty .. ": a new field cannot be added")
  t.ok(getmetatable(obj[ty]).__gc == nil and getmetatable(obj[ty]).__name == ty, ty .. ": getmetatable hides the metatable")
end

-- module functions that take options --------------------------------------------------------
t.is(err_of(etinspect.Inspector, {etdump_path = fx .. "/sample.etdp", bogus = 1}),
  "etinspect.Inspector: unknown option 'bogus' (accepted: bundled_program_path, bundled_test_case, debug_buffer_path, "
  .. "delegate_metadata_parser, delegate_time_scale_converter, enable_module_hierarchy, etdump_data, etdump_path, "
  .. "etrecord, etrecord_json_budget, etrecord_method, profile_results_data, profile_results_path, program_path, reference_graph_name, source_time_scale, "
  .. "target_time_scale, time_scale)", "Inspector{bogus=}")
t.is(err_of(etinspect.Inspector, {etdump_path = fx .. "/sample.etdp", enable_module_hierarchy = "yes"}),
  "etinspect.Inspector: option 'enable_module_hierarchy' must be a boolean, got string", "Inspector: a wrong type")
t.is(err_of(etinspect.Inspector, {fx .. "/sample.etdp"}),
  "etinspect.Inspector: options must be named (got a positional value at [1])", "Inspector{path} (positional)")
t.is(err_of(etinspect.Inspector, fx .. "/sample.etdp"), "etinspect.Inspector: bad argument #1 (options table expected, got string)",
  "Inspector(path): a table is expected")
t.is(err_of(etinspect.Tensor.new), "Tensor.new: bad argument #1 (options table expected, got no value)", "Tensor.new()")
t.is(err_of(etinspect.Inspector, {etdump_path = fx .. "/sample.etdp", delegate_time_scale_converter = "ms"}),
  "etinspect.Inspector: option 'delegate_time_scale_converter' must be a callable, got string", "a converter that is a string")
t.is(err_of(etinspect.Inspector, {etdump_path = fx .. "/sample.etdp", bundled_test_case = 1.5}),
  "etinspect.Inspector: option 'bundled_test_case' must be an integer, got number", "bundled_test_case = 1.5")
t.is(err_of(etinspect.Tensor.new, {dtype = "float32", values = {1}, shap = {1}}),
  "Tensor.new: unknown option 'shap' (accepted: bytes, dtype, offset, shape, strides, values)", "Tensor.new{shap=}")
t.is(err_of(etinspect.Tensor.new, {dtype = 32, values = {1}}), "Tensor.new: option 'dtype' must be a string, got number",
  "Tensor.new{dtype=32}")
-- options are read raw: a metatable on the options table adds nothing
local proxy = setmetatable({}, {__index = {etdump_path = fx .. "/sample.etdp"}})
t.ok((err_of(etinspect.Inspector, proxy) or ""):find("Expecting exactly one of etdump_path or etdump_data"),
  "options behind __index are not read")

-- every documented method and function: a named error for each misuse -----------------------
local df = insp:to_dataframe()
local gb = df:group_by("event_name")
local s_ = df["p50 (ms)"]
local dumps = etinspect.open_many({fx .. "/sample.etdp"})
local ev, pd, rec, graph, tensor = obj.Event, obj.PerfData, obj.ETRecord, obj.Graph, obj.Tensor
local t_ = tensor
local DOC = {
  {"etinspect.Inspector", bad = function() return etinspect.Inspector(fx .. "/sample.etdp") end,
   opts = function(o) return etinspect.Inspector(o) end, want = "etinspect.Inspector: bad argument #1 (options table expected, got string)", where = "etinspect.Inspector", accepted = "bundled_program_path, bundled_test_case, debug_buffer_path, delegate_metadata_parser, delegate_time_scale_converter, enable_module_hierarchy, etdump_data, etdump_path, etrecord, etrecord_json_budget, etrecord_method, profile_results_data, profile_results_path, program_path, reference_graph_name, source_time_scale, target_time_scale, time_scale"},
  {"etinspect.on_warning", bad = function() return etinspect.on_warning("stderr") end, want = "etinspect.on_warning: bad argument #1 (function or nil expected, got string)"},
  {"etinspect.set_option", bad = function() return etinspect.set_option("display.max_rowz", 1) end, want = "set_option: unknown option 'display.max_rowz' (options: display.max_colwidth, display.max_rows, display.min_rows, display.width)"},
  {"etinspect.get_option", bad = function() return etinspect.get_option(42) end, want = "get_option: bad argument #1 (option name string expected, got number)"},
  {"etinspect.reset_option", bad = function() return etinspect.reset_option("x") end, want = "reset_option: unknown option 'x' (options: display.max_colwidth, display.max_rows, display.min_rows, display.width)"},
  {"etinspect.parse_etrecord", bad = function() return etinspect.parse_etrecord({}) end,
   opts = function(o) return etinspect.parse_etrecord(fx .. "/sample.etrecord", o) end, want = "etinspect.parse_etrecord: bad argument #1 (path string expected, got table)", where = "etinspect.parse_etrecord", accepted = "etrecord_json_budget"},
  {"etinspect.open_many", bad = function() return etinspect.open_many(42) end,
   opts = function(o) return etinspect.open_many({fx .. "/sample.etdp"}, o) end, want = "etinspect.open_many: bad argument #1 (a path or a sequence of paths expected, got number)", where = "etinspect.open_many", accepted = "bundled_program_path, bundled_test_case, debug_buffer_paths, delegate_metadata_parser, delegate_time_scale_converter, enable_module_hierarchy, etrecord, etrecord_json_budget, etrecord_method, reference_graph_name, source_time_scale, target_time_scale"},
  {"etinspect.diff", bad = function() return etinspect.diff(insp, "b.etdp") end,
   opts = function(o) return etinspect.diff(insp, insp, o) end, want = "diff: argument 2 (B) is not an Inspector", where = "etinspect.diff", accepted = "alpha, confidence, fail_above, include_units, min_runs"},
  {"etinspect.Tensor.new", bad = function() return etinspect.Tensor.new("float32") end,
   opts = function(o) return etinspect.Tensor.new(o) end, want = "Tensor.new: bad argument #1 (options table expected, got string)", where = "Tensor.new", accepted = "bytes, dtype, offset, shape, strides, values"},
  {"etinspect.Tensor.is_tensor", bad = function() return etinspect.Tensor.is_tensor() end, want = "<no error>"},
  {"etinspect.compare_results", bad = function() return etinspect.compare_results(1, 2) end,
   opts = function(o) return etinspect.compare_results({t_}, {t_}, nil, o) end, want = "compare_results: reference_output and run_output must be sequences of values", where = "compare_results", accepted = "file, print, style"},
  {"etinspect.print_compare_results", bad = function() return etinspect.print_compare_results("x") end,
   opts = function(o) return etinspect.print_compare_results({}, o) end, want = "print_compare_results: bad argument #1 (results table expected, got string)", where = "print_compare_results", accepted = "file, style"},
  {"etinspect.load_aot_outputs", bad = function() return etinspect.load_aot_outputs(42) end, want = "load_aot_outputs: a directory path is required"},
  {"etinspect.read_npy", bad = function() return etinspect.read_npy({}) end, want = "read_npy: bad argument #1 (path string expected, got table)"},
  {"etinspect.write_npy", bad = function() return etinspect.write_npy(tmp, "x") end, want = "write_npy: argument 2 must be a Tensor, got string"},
  {"etinspect.limits", bad = function() return etinspect.limits(5) end,
   opts = function(o) return etinspect.limits(o) end, want = "etinspect.limits: bad argument #1 (options table expected, got number)", where = "etinspect.limits", accepted = "broadcast_elements"},
  {"insp:to_dataframe", bad = function() return insp:to_dataframe(true) end,
   opts = function(o) return insp:to_dataframe(o) end, want = "Inspector:to_dataframe: bad argument #1 (options table expected, got boolean)", where = "Inspector:to_dataframe", accepted = "include_delegate_debug_data, include_units"},
  {"insp:print_data_tabular", bad = function() return insp:print_data_tabular("out.txt") end,
   opts = function(o) return insp:print_data_tabular(io.tmpfile(), o) end, want = "Inspector:print_data_tabular: option 'file' must be a file, got string", where = "Inspector:print_data_tabular", accepted = "file, include_delegate_debug_data, include_units"},
  {"insp:save_data_to_tsv", bad = function() return insp:save_data_to_tsv(42) end,
   opts = function(o) return insp:save_data_to_tsv(tmp .. ".tsv", o) end, want = "Inspector:save_data_to_tsv: bad argument #1 (a path or an open file expected, got number)", where = "Inspector:save_data_to_tsv", accepted = "include_delegate_debug_data, include_units"},
  {"insp:find_total_for_module", bad = function() return insp:find_total_for_module() end, want = "Inspector:find_total_for_module: bad argument #1 (module name string expected, got nil)"},
  {"insp:get_exported_program", bad = function() return insp:get_exported_program({}) end, want = "Inspector:get_exported_program: bad argument #1 (string expected, got table)"},
  {"insp:compare_results", bad = function() return insp:compare_results(1) end,
   opts = function(o) return insp:compare_results(o) end, want = "Inspector:compare_results: bad argument #1 (options table expected, got number)", where = "Inspector:compare_results", accepted = "block, metrics"},
  {"insp:calculate_numeric_gap", bad = function() return insp:calculate_numeric_gap(insp, 42) end,
   opts = function(o) return insp:calculate_numeric_gap(insp, "MSE", o) end, want = "calculate_numeric_gap: distance must be \"MSE\", \"L1\", \"SNR\" or a comparator {element_compare = function(a, b) -> number, preprocessing = function(mapping) -> mapping (optional)}, got int", where = "Inspector:calculate_numeric_gap", accepted = "block, reference_block"},
  {"insp:save_intermediate_outputs", bad = function() return insp:save_intermediate_outputs({}) end,
   opts = function(o) return insp:save_intermediate_outputs(tmp .. ".d", o) end, want = "Inspector:save_intermediate_outputs: bad argument #1 (directory path expected, got table)", where = "Inspector:save_intermediate_outputs", accepted = "block"},
  {"insp:get_op_list", bad = function() return insp:get_op_list(42) end, want = "Inspector:get_op_list: bad argument #1 (block name string expected, got number)"},
  {"insp:get_vgf_neural_statistics", bad = function() return insp.get_vgf_neural_statistics("x") end, want = "Inspector:get_vgf_neural_statistics: bad self (Inspector expected, got string)"},
  {"insp:runs", bad = function() return insp:runs(1) end, want = "Inspector:runs: too many arguments (it takes 0, got 1)"},
  {"insp:write_trace", bad = function() return insp:write_trace() end,
   opts = function(o) return insp:write_trace(tmp, o) end, want = "Inspector:write_trace: bad argument #1 (string expected, got no value)", where = "Inspector:write_trace", accepted = "cycles_hz, format, runs, runs_apart, window"},
  {"insp:write_model_explorer", bad = function() return insp:write_model_explorer({}) end,
   opts = function(o) return insp:write_model_explorer(tmp .. ".mx", o) end, want = "Inspector:write_model_explorer: bad argument #1 (string expected, got table)", where = "Inspector:write_model_explorer", accepted = "baseline"},
  {"insp:to_sqlite", bad = function() return insp:to_sqlite({}) end,
   opts = function(o) return insp:to_sqlite(tmp .. ".db", o) end, want = "Inspector:to_sqlite: bad argument #1 (string expected, got table)", where = "Inspector:to_sqlite", accepted = "dump, replace"},
  {"insp:to_parquet", bad = function() return insp:to_parquet({}) end,
   opts = function(o) return insp:to_parquet(tmp .. ".pq", o) end, want = "Inspector:to_parquet: bad argument #1 (string expected, got table)", where = "Inspector:to_parquet", accepted = "dump"},
  {"insp:sql", bad = function() return insp:sql("SELECT 1", 2) end, want = "Inspector:sql: too many arguments (it takes 1, got 2)"},
  {"insp:write_html", bad = function() return insp:write_html(42) end,
   opts = function(o) return insp:write_html(tmp .. ".html", o) end, want = "write_html: a path (or an open file) is required", where = "Inspector:write_html", accepted = "max_graph_nodes, max_rows, max_slices, run, title, top"},
  {"insp:close", bad = function() return insp.close("x") end, want = "Inspector:close: bad self (Inspector expected, got string)"},
  {"dumps:inspector", bad = function() return dumps:inspector(true) end, want = "Dumps:inspector: bad argument #1 (dump index or name expected, got boolean)"},
  {"dumps:to_dataframe", bad = function() return dumps:to_dataframe(true) end,
   opts = function(o) return dumps:to_dataframe(o) end, want = "Dumps:to_dataframe: bad argument #1 (options table expected, got boolean)", where = "Dumps:to_dataframe", accepted = "include_delegate_debug_data, include_units"},
  {"dumps:print_data_tabular", bad = function() return dumps:print_data_tabular("x") end,
   opts = function(o) return dumps:print_data_tabular(o) end, want = "Dumps:print_data_tabular: bad argument #1 (options table expected, got string)", where = "Dumps:print_data_tabular", accepted = "file, include_delegate_debug_data, include_units"},
  {"dumps:save_data_to_tsv", bad = function() return dumps:save_data_to_tsv(42) end,
   opts = function(o) return dumps:save_data_to_tsv(tmp .. ".tsv", o) end, want = "Dumps:save_data_to_tsv: bad argument #1 (a path or an open file expected, got number)", where = "Dumps:save_data_to_tsv", accepted = "include_delegate_debug_data, include_units"},
  {"dumps:to_sqlite", bad = function() return dumps:to_sqlite(42) end,
   opts = function(o) return dumps:to_sqlite(tmp .. ".db2", o) end, want = "Dumps:to_sqlite: bad argument #1 (a path expected, got number)", where = "Dumps:to_sqlite", accepted = "none"},
  {"dumps:to_parquet", bad = function() return dumps:to_parquet(42) end,
   opts = function(o) return dumps:to_parquet(tmp .. ".pq2", o) end, want = "Dumps:to_parquet: bad argument #1 (a directory expected, got number)", where = "Dumps:to_parquet", accepted = "none"},
  {"dumps:sql", bad = function() return dumps:sql(42) end, want = "Dumps:sql: bad argument #1 (an SQL query expected, got number)"},
  {"dumps:close", bad = function() return dumps.close("x") end, want = "expected Dumps (use dumps:method())"},
  {"blk:run_output_of_run", bad = function() return blk:run_output_of_run("x") end, want = "EventBlock:run_output_of_run: bad argument #1 (number expected, got string)"},
  {"blk:run_output_raw", bad = function() return blk:run_output_raw("x") end, want = "EventBlock:run_output_raw: bad argument #1 (number expected, got string)"},
  {"blk:memory_summary", bad = function() return blk:memory_summary(1) end, want = "EventBlock:memory_summary: too many arguments (it takes 0, got 1)"},
  {"blk:to_dataframe", bad = function() return blk:to_dataframe(true) end,
   opts = function(o) return blk:to_dataframe(o) end, want = "EventBlock:to_dataframe: bad argument #1 (options table expected, got boolean)", where = "EventBlock:to_dataframe", accepted = "include_delegate_debug_data, include_units"},
  {"ev:debug_data_of_run", bad = function() return ev:debug_data_of_run() end, want = "Event:debug_data_of_run: bad argument #1 (number expected, got no value)"},
  {"ev:debug_data_raw", bad = function() return ev:debug_data_raw("x") end, want = "Event:debug_data_raw: bad argument #1 (number expected, got string)"},
  {"ev:to_dataframe", bad = function() return ev:to_dataframe(true) end, want = "Event:to_dataframe: bad argument #1 (units suffix string expected, got boolean)"},
  {"ev:asdict", bad = function() return ev:asdict(1) end, want = "Event:asdict: bad argument #1 (units suffix string expected, got number)"},
  {"pd:percentile", bad = function() return pd:percentile("x") end, want = "PerfData:percentile: bad argument #1 (number expected, got string)"},
  {"insp:run_columns", bad = function() return insp:run_columns("x") end, want = "Inspector:run_columns: bad argument #1 (number expected, got string)"},
  {"insp:column_names", bad = function() return insp:column_names(1) end, want = "Inspector:column_names: too many arguments (it takes 0, got 1)"},
  {"rec:get_exported_program", bad = function() return rec:get_exported_program(true) end, want = "ETRecord:get_exported_program: bad argument #1 (string expected, got boolean)"},
  {"rec:close", bad = function() return rec.close("x") end, want = "ETRecord:close: bad self (ETRecord expected, got string)"},
  {"etinspect.parse_program", bad = function() return etinspect.parse_program({}) end, want = "etinspect.parse_program: bad argument #1 (path string expected, got table)"},
  {"prog:method", bad = function() return prog:method({}) end, want = "Program:method: bad argument #1 (string expected, got table)"},
  {"prog:summary", bad = function() return prog:summary(1) end, want = "Program:summary: too many arguments (it takes 0, got 1)"},
  {"prog:diff", bad = function() return prog:diff("x") end, want = "Program:diff: bad argument #1 (etinspect.Program expected, got string)"},
  {"prog:close", bad = function() return prog.close("x") end, want = "Program:close: bad self (Program expected, got string)"},
  {"g:node", bad = function() return graph:node() end, want = "Graph:node: bad argument #1 (string expected, got no value)"},
  {"g:nodes_by_debug_handle", bad = function() return graph:nodes_by_debug_handle("x") end, want = "Graph:nodes_by_debug_handle: bad argument #1 (number expected, got string)"},
  {"g:print", bad = function() return graph:print("out.txt") end, want = "Graph:print: bad argument #1 (file expected, got string)"},
  {"frame:rows", bad = function() return df.rows("x") end, want = "Frame:rows: expected a Frame (use frame:method())"},
  {"frame:column", bad = function() return df:column("nope") end, want = "Frame:column: no column 'nope' (columns: event_block_name, event_name, block_index, raw, p10 (ms), p50 (ms), p90 (ms), avg (ms), min (ms), max (ms), op_types, delegate_debug_identifier, stack_traces, module_hierarchy, is_delegated_op, delegate_backend_name, debug_data, start_time)"},
  {"frame:filter", bad = function() return df:filter("x") end, want = "Frame:filter: bad argument #1 (function(row, i), a mask or a sequence of booleans expected, got string)"},
  {"frame:select", bad = function() return df:select(42) end, want = "Frame:select: column 1 must be a name, got number"},
  {"frame:drop", bad = function() return df:drop("nope") end, want = "Frame:drop: no column 'nope' (columns: event_block_name, event_name, block_index, raw, p10 (ms), p50 (ms), p90 (ms), avg (ms), min (ms), max (ms), op_types, delegate_debug_identifier, stack_traces, module_hierarchy, is_delegated_op, delegate_backend_name, debug_data, start_time)"},
  {"frame:sort", bad = function() return df:sort(42) end,
   opts = function(o) return df:sort("event_name", o) end, want = "Frame:sort: bad argument #1 (column name or sequence of columns expected, got number)", where = "Frame:sort", accepted = "ascending, na_position", nontable = "Frame:sort: no column 'x' (columns: event_block_name, event_name, block_index, raw, p10 (ms), p50 (ms), p90 (ms), avg (ms), min (ms), max (ms), op_types, delegate_debug_identifier, stack_traces, module_hierarchy, is_delegated_op, delegate_backend_name, debug_data, start_time)"},
  {"frame:head", bad = function() return df:head("x") end, want = "Frame:head: bad argument #1 (integer expected, got string)"},
  {"frame:tail", bad = function() return df:tail({}) end, want = "Frame:tail: bad argument #1 (integer expected, got table)"},
  {"frame:group_by", bad = function() return df:group_by(42) end,
   opts = function(o) return df:group_by({"event_name"}, o) end, want = "Frame:group_by: column 1 must be a name, got number", where = "Frame:group_by", accepted = "dropna, sort", nontable = "Frame:group_by: columns as a sequence, or as arguments, not both"},
  {"g:agg", bad = function() return gb:agg(42) end, want = "GroupBy:agg: bad argument #1 (an aggregation table, an aggregator name or a function expected, got number)"},
  {"g:size", bad = function() return gb.size("x") end, want = "GroupBy:size: expected a GroupBy (use g:method())"},
  {"g:count", bad = function() return gb.count("x") end, want = "GroupBy:count: expected a GroupBy (use g:method())"},
  {"g:sum", bad = function() return gb.sum("x") end, want = "GroupBy:sum: expected a GroupBy (use g:method())"},
  {"g:mean", bad = function() return gb.mean("x") end, want = "GroupBy:mean: expected a GroupBy (use g:method())"},
  {"g:median", bad = function() return gb.median("x") end, want = "GroupBy:median: expected a GroupBy (use g:method())"},
  {"g:std", bad = function() return gb.std("x") end, want = "GroupBy:std: expected a GroupBy (use g:method())"},
  {"g:var", bad = function() return gb.var("x") end, want = "GroupBy:var: expected a GroupBy (use g:method())"},
  {"g:min", bad = function() return gb.min("x") end, want = "GroupBy:min: expected a GroupBy (use g:method())"},
  {"g:max", bad = function() return gb.max("x") end, want = "GroupBy:max: expected a GroupBy (use g:method())"},
  {"g:first", bad = function() return gb.first("x") end, want = "GroupBy:first: expected a GroupBy (use g:method())"},
  {"g:last", bad = function() return gb.last("x") end, want = "GroupBy:last: expected a GroupBy (use g:method())"},
  {"g:quantile", bad = function() return gb:quantile("x") end, want = "GroupBy:quantile: bad argument #1 (a number between 0 and 1 expected, got x)"},
  {"g:groups", bad = function() return gb.groups("x") end, want = "GroupBy:groups: expected a GroupBy (use g:method())"},
  {"frame:unique", bad = function() return df:unique(42) end, want = "Frame:unique: no column '42' (columns: event_block_name, event_name, block_index, raw, p10 (ms), p50 (ms), p90 (ms), avg (ms), min (ms), max (ms), op_types, delegate_debug_identifier, stack_traces, module_hierarchy, is_delegated_op, delegate_backend_name, debug_data, start_time)"},
  {"frame:value_counts", bad = function() return df:value_counts(42) end,
   opts = function(o) return df:value_counts("event_name", o) end, want = "Frame:value_counts: column 1 must be a name, got number", where = "Frame:value_counts", accepted = "ascending, dropna, normalize, sort"},
  {"frame:describe", bad = function() return df:describe(5) end,
   opts = function(o) return df:describe(o) end, want = "Frame:describe: bad argument #1 (options table expected, got number)", where = "Frame:describe", accepted = "percentiles"},
  {"frame:rename", bad = function() return df:rename(42) end, want = "Frame:rename: bad argument #1 (table {old = new} or function expected, got number)"},
  {"frame:mutate", bad = function() return df:mutate(42) end, want = "Frame:mutate: bad argument #1 (table of new columns expected, got number)"},
  {"frame:join", bad = function() return df:join(42, "event_name") end,
   opts = function(o) return df:join(df, "event_name", o) end, want = "Frame:join: bad argument #1 (Frame expected, got number)", where = "Frame:join", accepted = "how, suffixes"},
  {"frame:print", bad = function() return df:print("box") end,
   opts = function(o) return df:print(o) end, want = "Frame:print: bad argument #1 (options table expected, got string)", where = "Frame:print", accepted = "file, max_colwidth, max_rows, min_rows, style, width"},
  {"frame:render", bad = function() return df:render(42) end,
   opts = function(o) return df:render("plain", o) end, want = "Frame:render: unknown style '42' (box, plain, markdown, tsv, csv, json)", where = "Frame:render", accepted = "max_colwidth, max_rows, min_rows, width"},
  {"frame:to_string", bad = function() return df:to_string(42) end, want = "Frame:to_string: bad argument #1 (style name expected, got number)"},
  {"frame:to_tsv", bad = function() return df:to_tsv(42) end, want = "Frame:to_tsv: bad argument #1 (a path or an open file expected, got number)"},
  {"frame:to_csv", bad = function() return df:to_csv({}) end, want = "Frame:to_csv: bad argument #1 (a path or an open file expected, got table)"},
  {"frame:to_json", bad = function() return df:to_json(true) end, want = "Frame:to_json: bad argument #1 (a path or an open file expected, got boolean)"},
  {"Frame.new", bad = function() return etinspect.Frame.new(42) end, want = "Frame.new: columns must be a sequence of names"},
  {"Frame.from_columns", bad = function() return etinspect.Frame.from_columns(42) end, want = "Frame.from_columns: bad argument #1 (table of column sequences expected, got number)"},
  {"Frame.concat", bad = function() return etinspect.Frame.concat(42) end, want = "Frame.concat: bad argument #1 (a sequence of frames expected, got number)"},
  {"frame:query", bad = function() return df:query("avg >") end, want = 'Frame:query: at 6: unexpected end of expression in "avg >"'},
  {"s:gt", bad = function() return s_:gt() end, want = "Series:gt: bad argument #1 (a value to compare with expected)"},
  {"s:ge", bad = function() return s_:ge(1, 2) end, want = "Series:ge: too many arguments (one value expected)"},
  {"s:lt", bad = function() return s_:lt("x") end, want = "Series:lt: Series 'p50 (ms)' holds numbers, compared with text"},
  {"s:le", bad = function() return s_:le(true, 1) end, want = "Series:le: too many arguments (one value expected)"},
  {"s:eq", bad = function() return s_:eq() end, want = "Series:eq: bad argument #1 (a value to compare with expected)"},
  {"s:ne", bad = function() return s_:ne(1, 2) end, want = "Series:ne: too many arguments (one value expected)"},
  {"s:isin", bad = function() return s_:isin(5) end, want = "Series:isin: bad argument #1 (a sequence of values expected, got number)"},
  {"s:isna", bad = function() return s_:isna(1) end, want = "Series:isna: too many arguments (it takes 0, got 1)"},
  {"s:notna", bad = function() return s_:notna(1) end, want = "Series:notna: too many arguments (it takes 0, got 1)"},
  {"s:between", bad = function() return s_:between(0, 1, "all") end, want = "Series:between: inclusive must be 'both', 'neither', 'left' or 'right', got all"},
  {"s:abs", bad = function() return s_:abs(1) end, want = "Series:abs: too many arguments (it takes 0, got 1)"},
  {"s:fillna", bad = function() return s_:fillna("x") end, want = "Series:fillna: Series 'p50 (ms)' holds float64 values; a string cannot fill it"},
  {"s:any", bad = function() return s_:any(1) end, want = "Series:any: too many arguments (it takes 0, got 1)"},
  {"s:all", bad = function() return s_:all(1) end, want = "Series:all: too many arguments (it takes 0, got 1)"},
  {"s:tolist", bad = function() return s_:tolist(1) end, want = "Series:tolist: too many arguments (it takes 0, got 1)"},
  {"t:at", bad = function() return t_:at("i") end, want = "Tensor:at: bad argument #1 (number expected, got string)"},
  {"t:tolist", bad = function() return t_:tolist(1) end, want = "Tensor:tolist: too many arguments (it takes 0, got 1)"},
  {"t:bytes", bad = function() return t_:bytes(1) end, want = "Tensor:bytes: too many arguments (it takes 0, got 1)"},
  {"t:min", bad = function() return t_:min(1) end, want = "Tensor:min: too many arguments (it takes 0, got 1)"},
  {"t:max", bad = function() return t_:max(1) end, want = "Tensor:max: too many arguments (it takes 0, got 1)"},
  {"t:sum", bad = function() return t_:sum(1) end, want = "Tensor:sum: too many arguments (it takes 0, got 1)"},
  {"t:mean", bad = function() return t_:mean(1) end, want = "Tensor:mean: too many arguments (it takes 0, got 1)"},
  {"t:std", bad = function() return t_:std(1) end, want = "Tensor:std: too many arguments (it takes 0, got 1)"},
  {"t:nan_count", bad = function() return t_:nan_count(1) end, want = "Tensor:nan_count: too many arguments (it takes 0, got 1)"},
  {"t:inf_count", bad = function() return t_:inf_count(1) end, want = "Tensor:inf_count: too many arguments (it takes 0, got 1)"},
  {"t:stats", bad = function() return t_:stats(1) end, want = "Tensor:stats: too many arguments (it takes 0, got 1)"},
}
-- the documented names (docs/lua-api.md: the calls in its tables)
local documented, order = {}, {}
do
  local section
  for line in io.lines(t.src .. "/docs/lua-api.md") do
    section = line:match("^##+ (.+)") or section
    local first = line:match("^| (.-) |")
    if first then
      for code in first:gmatch("`([^`]+)`") do
        for recv, sep, name in code:gmatch("([%w_%.]+)([:%.])([%w_]+)%s*[%({]") do
          local q = recv .. sep .. name
          if not documented[q] then documented[q] = section; order[#order + 1] = q end
        end
      end
    end
  end
end
t.ok(#order > 90, #order .. " methods and functions documented in docs/lua-api.md")
local entry = {}
for _, e in ipairs(DOC) do entry[e[1]] = e end
for _, q in ipairs(order) do
  t.ok(entry[q] ~= nil, q .. " (documented in " .. documented[q] .. ") has a contract entry")
end
for _, e in ipairs(DOC) do
  t.ok(documented[e[1]] ~= nil, e[1] .. " (a contract entry) is documented")
end
for _, e in ipairs(DOC) do
  local q = e[1]
  if e.want == "<no error>" then -- a predicate: every value is an argument
    t.is(e.bad(), false, q .. ": any argument, no error")
  else
    t.is(err_of(e.bad), e.want, q .. ": a misused argument is a named error")
  end
  if e.opts then
    t.is(err_of(e.opts, {bogus_option = 1}),
      ("%s: unknown option 'bogus_option' (accepted: %s)"):format(e.where, e.accepted),
      q .. ": an unknown option key is an error naming it and the accepted ones")
    local pos = err_of(e.opts, {1})
    if e.nontable then -- columns may come as further arguments: a table there is a column list
      t.ok(pos and pos:find(e.where .. ": ", 1, true) == 1, q .. ": a positional value in the options is a named error: " .. tostring(pos))
      t.is(err_of(e.opts, "x"), e.nontable, q .. ": a string where the options go is a named error")
    else
      t.is(pos, e.where .. ": options must be named (got a positional value at [1])",
        q .. ": a positional value in the options is a named error")
      t.ok((err_of(e.opts, "x") or ""):find("^" .. e.where:gsub("%p", "%%%0") .. ": bad argument #%d+ %(options table expected, got string%)$"),
        q .. ": options that are not a table: a named error")
    end
  end
end
dumps:close()

obj.OutFile:abort()
for _, suffix in ipairs{"", ".db", ".db2", ".tsv", ".html", ".out"} do os.remove(tmp .. suffix) end
os.execute("rm -rf '" .. tmp .. ".d'")
os.execute("rm -rf '" .. tmp .. ".pq' '" .. tmp .. ".pq2'")
t.done()
