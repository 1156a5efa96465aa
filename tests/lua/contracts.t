#!/usr/bin/env etinspect
-- contracts.t - the argument contracts of docs/lua-api.md ("Lifetimes and
-- contracts") over every method of the API: every C-implemented method is
-- found in the types' metatables and must be listed below (a new method
-- without an entry fails this test); each is called with a wrong self, too
-- many arguments, wrong positional arguments and (for options tables)
-- unknown keys, positional values and non-tables, and must raise the
-- named error.  The Lua-library methods are in a second list (see LEAD).
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

local function err_of(fn, ...)
  local ok, e = pcall(fn, ...)
  return not ok and (tostring(e):gsub("^[^\n]-:%d+: ", "", 1)) or nil
end
local function todo(cond, desc, why)
  t.n = t.n + 1
  io.write(cond and "ok " or "not ok ", t.n, " - ", desc, " # TODO ", why, "\n")
end

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
   opts = {2, "cycles_hz, runs, runs_apart, window"}},
  {"Inspector", "to_sqlite", args = {tmp .. ".db"}, max = 2,
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
}

-- LEAD: the Lua-library methods (lua/etinspect/*.lua, other helpers'
-- files).  Extend this list after merging and drop `todo` from an entry
-- once its method checks its options with _core.check_options; the checks
-- of an entry with todo = true (or todo = "nontable": only the check of a
-- non-table options argument) are reported as TAP TODO (they cannot fail
-- the suite).
local LUA_METHODS = {
  {"Inspector", "to_dataframe", opts = 1, todo = true},
  {"Inspector", "print_data_tabular", opts = 1, base = {file = io.tmpfile()}, todo = true},
  {"Inspector", "save_data_to_tsv", args = {tmp .. ".tsv"}, opts = 2, todo = true},
  {"Inspector", "write_html", args = {tmp .. ".html"}, opts = 2, todo = true},
  {"Inspector", "compare_results", opts = 1},
  {"Inspector", "calculate_numeric_gap", args = {insp, "MSE"}, opts = 3},
  {"Inspector", "save_intermediate_outputs", args = {tmp .. ".d"}, opts = 2, todo = "nontable"},
  {"EventBlock", "to_dataframe", opts = 1, todo = true},
}

-- every C method of every type is listed --------------------------------------------------
local reg = debug.getregistry()
local listed = {}
for _, m in ipairs(C_METHODS) do listed[m[1] .. ":" .. m[2]] = m end
local types = {}
for name, mt in pairs(reg) do
  if type(name) == "string" and name:match("^etinspect%.") and type(mt) == "table" and type(mt.__methods) == "table" then
    types[#types + 1] = name:sub(11)
  end
end
table.sort(types)
local found = 0
for _, ty in ipairs(types) do
  t.ok(obj[ty] ~= nil, "type " .. ty .. " has an object in this test")
  local methods = reg["etinspect." .. ty].__methods
  local names = {}
  for k in pairs(methods) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    local fn = obj[ty] and obj[ty][k]
    if type(fn) == "function" and debug.getinfo(fn, "S").what == "C" then
      found = found + 1
      t.ok(listed[ty .. ":" .. k] ~= nil, ty .. ":" .. k .. " (a C method) is in the contract list")
    end
  end
end
t.is(found, #C_METHODS, "every listed C method exists")

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
  local getters = reg["etinspect." .. ty].__getters
  local k = next(getters)
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
  .. "etrecord, etrecord_method, profile_results_data, profile_results_path, reference_graph_name, source_time_scale, "
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

-- the Lua-library methods (LEAD list) ---------------------------------------------------------
local lua_listed = {}
for _, m in ipairs(LUA_METHODS) do lua_listed[m[1] .. ":" .. m[2]] = true end
for _, ty in ipairs(types) do
  local names = {}
  for k, fn in pairs(reg["etinspect." .. ty].__methods) do
    if type(fn) == "function" and debug.getinfo(fn, "S").what == "Lua" then names[#names + 1] = k end
  end
  table.sort(names)
  for _, k in ipairs(names) do
    local q = ty .. ":" .. k
    if lua_listed[q] then t.ok(true, q .. " (a Lua-library method) is in LUA_METHODS")
    else todo(false, q .. " (a Lua-library method) is in LUA_METHODS", "LEAD: list it if it takes options") end
  end
end
for _, m in ipairs(LUA_METHODS) do
  local q = m[1] .. ":" .. m[2]
  local fn = obj[m[1]][m[2]]
  if type(fn) ~= "function" then
    todo(false, q .. " exists", "not on this branch")
  else
    local a = {n = m.opts}
    for i = 1, m.opts - 1 do a[i] = m.args[i] end
    a[m.opts] = {bogus_option = 1}
    for k, v in pairs(m.base or {}) do a[m.opts][k] = v end
    local e = err_of(fn, obj[m[1]], table.unpack(a, 1, a.n)) or ""
    local ok = e:find("unknown option 'bogus_option'", 1, true) ~= nil
    a[m.opts] = true
    local e2 = err_of(fn, obj[m[1]], table.unpack(a, 1, a.n)) or ""
    local ok2 = e2:find(q, 1, true) ~= nil
    if m.todo == true then
      todo(ok, q .. ": an unknown option key is a named error", "its file checks options after merging")
    else
      t.ok(ok, q .. ": an unknown option key is a named error" .. (ok and "" or (" -- got: " .. e)))
    end
    if m.todo then
      todo(ok2, q .. ": a non-table options argument is an error naming the method", "after merging")
    else
      t.ok(ok2 or e2:find("options", 1, true), q .. ": a non-table options argument is a named error" .. (ok2 and "" or (" -- got: " .. e2)))
    end
  end
end

for _, suffix in ipairs{"", ".db", ".tsv", ".html"} do os.remove(tmp .. suffix) end
os.execute("rm -rf '" .. tmp .. ".d'")
t.done()
