-- api_driver.lua - the API harness (issue 12): drives the Lua API of
-- etinspect with call sequences chosen by a source of choices - the bytes
-- of a libFuzzer input (tests/fuzz/fuzz_api.c) or a seeded generator
-- (tests/lua/api_harness.t, `make check`).  Every method and field of
-- every userdata type is found in the metatables, the methods of the Lua
-- library's types (Frame, GroupBy, Dumps) in their method tables and the
-- module's functions in the module (so new ones are covered without
-- editing this file); they are called with right and wrong selves, right,
-- wrong and extreme arguments, and callbacks (delegate metadata parsers,
-- time-scale converters, warning handlers, write sinks, Frame callbacks
-- of filter, mutate, rename and agg, finalizers) that close their owner
-- or an open file, raise, yield, recurse, return the wrong type or run
-- the collector; some steps run inside coroutines, some with the standard
-- library's globals removed.  Errors are expected; what must never happen
-- is a crash, a sanitizer report or a panic.
--
--   local D = require "api_driver"
--   D.run(source, {dir = WORKDIR, fixtures = FIXTURE_DIR, src = CHECKOUT, steps = N}) -> stats
--   D.prng(seed) / D.bytes(string)   sources
--
-- The paths the API is given are all inside WORKDIR (the fixtures are
-- copied there first): nothing outside it is written.  Run it with WORKDIR
-- as the current directory: any string may end up used as a path.
local M = {}

-- ---- sources of choices ----------------------------------------------------------------

--- A deterministic generator (xorshift64*) of choices.
function M.prng(seed)
  local x = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) | 1
  return {
    int = function(_, n)
      x = x ~ (x >> 12); x = x ~ (x << 25); x = x ~ (x >> 27)
      local v = (x * 0x2545F4914F6CDD1D) >> 33
      return v % n + 1
    end,
  }
end

--- Choices read from a string of bytes (a fuzzer's input); nil once used up.
function M.bytes(s)
  local pos = 0
  return {
    int = function(_, n)
      if pos >= #s then return nil end
      local v
      if n <= 256 then
        pos = pos + 1; v = s:byte(pos)
      else
        v = (s:byte(pos + 1) or 0) * 256 + (s:byte(pos + 2) or 0); pos = pos + 2
      end
      return v % n + 1
    end,
  }
end

-- ---- the harness ------------------------------------------------------------------------

local function copy(from, to)
  local f = io.open(from, "rb")
  if not f then return false end
  local data = f:read("a")
  f:close()
  local g = assert(io.open(to, "wb"))
  g:write(data)
  g:close()
  return true
end

function M.run(src, opts)
  local etinspect = require "etinspect"
  local dir, fx = opts.dir, opts.fixtures
  local steps = opts.steps or 60
  local stats = opts.stats or {calls = 0, errors = 0, covered = {}, steps = 0}
  local reg = debug.getregistry()
  local dbg, load_ = debug, load
  local saved = {table = table, string = string, io = io, require = require, print = print,
                 tostring = tostring, pairs = pairs, ipairs = ipairs, type = type,
                 collectgarbage = collectgarbage, coroutine = coroutine, pcall = pcall,
                 setmetatable = setmetatable, getmetatable = getmetatable, next = next,
                 select = select, error = error, math = math, os = os, utf8 = utf8,
                 tonumber = tonumber, rawget = rawget, rawlen = rawlen, assert = assert,
                 debug = debug}
  -- the globals a step may remove (restored after every step)
  local GLOBALS = {"table", "string", "io", "require", "tostring", "pairs", "ipairs", "type",
                   "setmetatable", "getmetatable", "next", "select", "error", "math", "os",
                   "utf8", "tonumber", "rawget", "rawlen", "assert", "pcall", "print"}
  local function restore_globals() for _, k in saved.ipairs(GLOBALS) do _G[k] = saved[k] end end

  -- the fixtures, copied (a step may overwrite any of them)
  local files = {}
  for _, name in ipairs{"sample.etdp", "sample.etrecord", "delegates.etdp", "tensors.etdp",
                        "tensors_bad.etdp", "debug_differs.etdp", "alloc_small.etdp", "groups.etdp"} do
    if copy(fx .. "/" .. name, dir .. "/" .. name) then files[name] = dir .. "/" .. name end
  end
  if opts.src then copy(opts.src .. "/tests/fixtures/tensors.bin", dir .. "/tensors.bin") end
  if opts.src and copy(opts.src .. "/tests/pte/keyword_spotting.pte", dir .. "/model.pte") then
    files["model.pte"] = dir .. "/model.pte" -- a program (parse_program, program_path)
  end
  local dumps = {}
  for name, p in saved.pairs(files) do if name:match("%.etdp$") then dumps[#dumps + 1] = p end end
  table.sort(dumps)

  local function int(n)
    local v = src:int(n)
    if v == nil then error({stop = true}) end
    return v
  end
  local function pick(list) if #list == 0 then return nil end return list[int(#list)] end

  -- the types, their methods and fields (sorted), as _core gives them
  local types = {}
  for _, name in saved.ipairs(etinspect._core.types()) do
    local getters, methods = etinspect._core.members(name)
    types[name] = {name = name, methods = methods, getters = getters}
  end
  -- the Lua library's types: their methods tables and how to tell them
  local Frame = etinspect.Frame
  local Dumps = require("etinspect.many").Dumps
  local lua_types = {
    {name = "Frame", mt = Frame.metatable, methods = Frame.methods, getters = {"columns"}},
    {name = "GroupBy", mt = Frame.GroupBy, methods = Frame.GroupBy.__index, getters = {}},
    {name = "Dumps", mt = Dumps, methods = Dumps.__index, getters = {"names", "paths", "inspectors"}},
  }
  local by_mt = {}
  for _, lt in saved.ipairs(lua_types) do
    local t = {name = lt.name, methods = {}, getters = lt.getters}
    for k in saved.pairs(lt.methods) do t.methods[#t.methods + 1] = k end
    table.sort(t.methods)
    types[lt.name] = t
    by_mt[lt.mt] = lt.name
  end
  local function type_of(v)
    local mt = saved.getmetatable(v)
    if by_mt[mt] then return by_mt[mt] end
    local n = saved.type(mt) == "table" and mt.__name
    return saved.type(n) == "string" and types[n] and n or nil
  end
  -- the module's functions ("Inspector", "Tensor.new", "Frame.new")
  local module_fns = {}
  for _, name in saved.ipairs(M.module_functions(etinspect)) do
    local t, k = name:match("^([%w_]+)%.([%w_]+)$")
    module_fns[#module_fns + 1] = {name = name, fn = t and etinspect[t][k] or etinspect[name]}
  end

  local quiet = function() end
  etinspect.on_warning(quiet)
  local pool, owners, objs, files_pool = {}, {}, {}, {}
  local by_type, present = {}, {} -- objects per type (each type as likely as another)
  local function keep(v)
    if saved.io.type(v) == "file" and #files_pool < 20 then files_pool[#files_pool + 1] = v end
    if v ~= nil and (saved.type(v) == "userdata" or saved.type(v) == "table") and #pool < 400 then
      pool[#pool + 1] = v
      local tn = type_of(v)
      if tn then
        objs[#objs + 1] = v
        if not by_type[tn] then by_type[tn] = {}; present[#present + 1] = tn end
        local l = by_type[tn]
        if #l < 20 then l[#l + 1] = v end
      end
      if tn == "Inspector" or tn == "ETRecord" or tn == "Dumps" or tn == "Program" then owners[#owners + 1] = v end
      if not tn and saved.type(v) == "table" then -- a sequence of objects: keep two of them
        local ok, n = saved.pcall(function() return #v end)
        if ok and saved.type(n) == "number" and n >= 1 then
          for _, i in saved.ipairs{1, n} do
            local okx, x = saved.pcall(function() return v[i] end)
            if okx and type_of(x) and #pool < 400 then pool[#pool + 1] = x; objs[#objs + 1] = x end
          end
        end
      end
    end
    return v
  end
  local function note(what) stats.covered[what] = (stats.covered[what] or 0) + 1 end

  local action -- forward: one random step (callbacks recurse into it)
  local depth = 0

  -- a callback of a random kind; `ok` gives its well-behaved result
  local function callback(ok)
    local kind = int(11)
    return function(...)
      if kind == 1 then return ok(...)
      elseif kind == 2 then local o = pick(owners); if o then o:close() end; return ok(...)
      elseif kind == 3 then error(int(2) == 1 and "callback failed" or {"a table error"})
      elseif kind == 4 then coroutine.yield(1)
      elseif kind == 5 then
        if depth < 3 then depth = depth + 1; saved.pcall(action); depth = depth - 1 end
        return ok(...)
      elseif kind == 6 then return pick{42, "str", {}, true, 0 / 0, function() end}
      elseif kind == 7 then saved.collectgarbage(); return ok(...)
      elseif kind == 8 then local o = pick(owners); if o then saved.pcall(function() o:close() end) end; error("after close")
      elseif kind == 9 then saved.collectgarbage("step"); return ok(...)
      elseif kind == 11 then -- the debug library on the C code that called this callback
        saved.pcall(function() dbg.setlocal(int(5), int(4), pick(pool)) end)
        saved.pcall(function() return dbg.getlocal(int(5), int(4)) end)
        return ok(...)
      else -- the sink or output file of a write in progress, closed under it
        local f = pick(files_pool)
        if f then saved.pcall(f.close, f) end
        return ok(...)
      end
    end
  end
  local function sink()
    local k = int(4)
    if k == 1 then return keep(io.tmpfile()) end
    if k == 2 then return {write = callback(function(self) return self end)} end
    if k == 3 then return setmetatable({}, {__index = {write = callback(function(self) return self end)}}) end
    return {write = 42}
  end

  local OPTION_KEYS = {"include_units", "include_delegate_debug_data", "file", "cycles_hz", "runs",
    "runs_apart", "window", "dump", "block", "metrics", "top", "max_rows", "bogus", "style",
    "reference_block", "run", "title", "print", "how", "suffixes", "ascending", "na_position",
    "sort", "dropna", "normalize", "percentiles", "max_colwidth", "min_rows", "width", "alpha",
    "confidence", "min_runs", "broadcast_elements", "replace", "max_slices", "delegate_metadata_parser",
    "debug_buffer_paths", "etrecord", "metrics"}
  local strings = {dir .. "/out1.json", dir .. "/out2", dir .. "/sub/out3", "", "ns", "cycles", "json",
    "forward", "edge_dialect_graph_module", "MSE", "float32", dir .. "/" .. ("x"):rep(300),
    "native_call_addmm.out", "0-3,7", "event_name", "event_block_name", "display.max_rows",
    "display.width", "quantile(0.9)", "mean", "box", "csv", dir .. "/out.html", dir .. "/out.tsv",
    dir .. "/out.db", dir .. "/*.etdp"}
  local function arg()
    local k = int(12)
    if k == 1 then return nil
    elseif k == 2 then return pick{0, 1, -1, 2, 3, math.maxinteger, math.mininteger, 0.5, 1e308, -1e308, 0 / 0, 1 / 0}
    elseif k == 3 then return pick(strings)
    elseif k == 4 then return pick{true, false}
    elseif k == 5 then return pick(pool)
    elseif k == 6 then return callback(function(...) return ... end)
    elseif k == 7 then return sink()
    elseif k == 8 then
      local t = {}
      for _ = 1, int(3) do t[pick(OPTION_KEYS)] = arg() end
      return t
    elseif k == 9 then return {int(3), "x"}
    elseif k == 10 then return pick(dumps)
    elseif k == 11 then return setmetatable({}, {__index = function() error("hostile __index") end,
                                                 __len = function() return -1 end})
    else return coroutine.create(function() end) end
  end

  local function open_inspector()
    local o = {etdump_path = pick(dumps) or "missing"}
    if int(3) == 1 then o.delegate_metadata_parser = int(2) == 1 and "json" or callback(function() return {x = 1} end) end
    if int(4) == 1 then o.delegate_time_scale_converter = callback(function(name, ticks) return ticks / 1000 end) end
    if int(3) == 1 then o.etrecord = int(2) == 1 and files["sample.etrecord"] or pick(owners) end
    if int(4) == 1 then o.debug_buffer_path = dir .. "/tensors.bin" end
    if int(6) == 1 then o[pick(OPTION_KEYS)] = arg() end
    if int(8) == 1 then o.target_time_scale = pick{"us", "cycles", "hours"} end
    note("etinspect.Inspector")
    return keep(etinspect.Inspector(o))
  end

  local function call_method(v, tn, wrong_self)
    local name = pick(types[tn].methods)
    if not name then return end
    local fn = v[name]
    local args = {n = int(4) - 1}
    for i = 1, args.n do args[i] = arg() end
    local self = v
    if wrong_self then self = int(2) == 1 and pick(pool) or arg() end
    note(tn .. ":" .. name .. (wrong_self and " (wrong self)" or ""))
    local r = table.pack(fn(self, table.unpack(args, 1, args.n)))
    for i = 1, r.n do keep(r[i]) end
    if saved.type(r[1]) == "function" and int(2) == 1 then -- an iterator (runs, events)
      for _ = 1, 5 do if r[1](r[2], r[3]) == nil then break end end
    end
  end

  local function read_field(v, tn)
    local name = pick(types[tn].getters)
    if not name then return end
    note(tn .. "." .. name)
    local x = keep(v[name])
    if saved.type(x) == "table" and int(2) == 1 then
      for _, y in saved.ipairs(x) do keep(y); if int(4) == 1 then break end end
    end
  end

  local steps_list = {
    function() open_inspector() end,
    function() note("etinspect.parse_etrecord"); keep(etinspect.parse_etrecord(int(4) == 1 and arg() or files["sample.etrecord"])) end,
    function() -- a field
      local v = pick(objs) or open_inspector()
      read_field(v, type_of(v))
    end,
    function() -- a field of an object of any type met so far
      local tn = pick(present)
      if tn then read_field(pick(by_type[tn]), tn) end
    end,
    function() -- a method
      local v = pick(objs) or open_inspector()
      call_method(v, type_of(v), false)
    end,
    function() -- a method of an object of any type met so far
      local tn = pick(present)
      if tn then call_method(pick(by_type[tn]), tn, false) end
    end,
    function() -- a sweep: every field of one object
      local tn = pick(present)
      if not tn then return end
      local v = pick(by_type[tn])
      for _, name in saved.ipairs(types[tn].getters) do
        note(tn .. "." .. name)
        saved.pcall(function() return keep(v[name]) end)
      end
    end,
    function() -- (twice as likely as other steps)
      local tn = pick(present)
      if tn then call_method(pick(by_type[tn]), tn, false) end
    end,
    function() -- a method with a wrong self
      local v = pick(objs)
      if v then call_method(v, type_of(v), true) end
    end,
    function() -- a write
      local v = pick(objs)
      if v then local tn = type_of(v); note(tn .. " (write)"); v[pick(types[tn].getters) or "x"] = arg() end
    end,
    function() local o = pick(owners); if o and int(2) == 1 then note("close"); o:close() end end,
    function() -- walk down: an Inspector's block, event, perf data; an ETRecord's graph and node
      local o = pick(owners) or open_inspector()
      if type_of(o) == "Inspector" then
        local blocks = o.event_blocks
        local b = keep(blocks[int(#blocks + 1) - 1] or blocks[1])
        if b then
          local evs = b.events
          local ev = keep(evs[int(#evs + 1) - 1] or evs[1])
          if ev then keep(ev.perf_data) end
        end
        for _, run in o:runs() do keep(run); if int(3) == 1 then break end end
        o = o.etrecord
      end
      if o then
        local g = keep(o:get_exported_program())
        if g then keep(g.nodes[int(#g.nodes + 1) - 1]) end
      end
    end,
    function() saved.collectgarbage(int(2) == 1 and "collect" or "step") end,
    function() -- the collector's pace: short cycles run finalizers inside C code
      local k = int(3)
      if k == 1 then saved.collectgarbage("incremental", 100, 400)
      elseif k == 2 then saved.collectgarbage("generational", 10, 50)
      else saved.collectgarbage("incremental", 200, 100) end
    end,
    function() note("on_warning"); etinspect.on_warning(int(3) == 1 and quiet or callback(function() end)) end,
    function() -- tostring, #, pairs
      local v = pick(pool)
      if v ~= nil then
        local _ = tostring(v)
        if type_of(v) or saved.type(v) == "table" then
          local n = 0
          -- pairs order of a plain table depends on addresses: keep only
          -- what an object's own (sorted) __pairs gives
          -- (a userdata's; a Lua-library type is a table whose own fields
          -- come in the order of their keys' hashes, seeded per state)
          local keep_fields = saved.type(v) == "userdata" and type_of(v)
          for _, y in saved.pairs(v) do n = n + 1; if n > 3 then break end; if keep_fields then keep(y) end end
          local ok = saved.pcall(function() return #v end)
        end
      end
    end,
    function() -- a step inside a coroutine, resumed a few times
      local co = coroutine.create(function() return action() end)
      for _ = 1, 3 do
        local ok = coroutine.resume(co)
        if not ok or coroutine.status(co) == "dead" then break end
      end
      if int(2) == 1 then coroutine.close(co) end
    end,
    function() -- finalizers by hand, and hidden values
      local v = pick(pool)
      if v ~= nil and saved.type(v) == "userdata" then
        local mt = saved.getmetatable(v)
        if saved.type(mt) == "table" then local _ = mt.__gc end
        local uv = debug.getuservalue(v)
        keep(uv)
        if int(3) == 1 then
          local dmt = debug.getmetatable(uv ~= nil and saved.type(uv) == "userdata" and uv or v)
          if dmt and dmt.__gc then note("__gc by hand"); dmt.__gc(uv ~= nil and saved.type(uv) == "userdata" and uv or v) end
        end
      end
    end,
    function() -- finalizers of the user's that close owners at any allocation
      for _ = 1, int(5) do
        local o = pick(owners)
        setmetatable({}, {__gc = function() if o then saved.pcall(function() o:close() end) end end})
      end
    end,
    function() -- a Frame and its verbs with callbacks
      local insp = pick(owners)
      if insp and type_of(insp) == "Inspector" then
        local df = keep(int(3) == 1 and insp:to_dataframe{include_delegate_debug_data = int(2) == 1}
                        or pick(insp.event_blocks):to_dataframe())
        if int(2) == 1 then -- a GroupBy, and one of its verbs
          local g = keep(df:group_by(pick{"event_name", "event_block_name", "is_delegated_op"}))
          call_method(g, "GroupBy", false)
        end
        local k = int(10)
        if k == 1 then keep(df:filter(callback(function() return int(2) == 1 end)))
        elseif k == 2 then keep(df:mutate{x = callback(function(row) return row.event_name end)})
        elseif k == 3 then keep(df:mutate{{"a", callback(function() return 1 end)}, {"b", callback(function(r) return r.a end)}})
        elseif k == 4 then keep(df:rename(callback(function(c) return c .. "_" end)))
        elseif k == 5 then
          local g = keep(df:group_by(pick{"event_name", "event_block_name"}))
          keep(g:agg(int(2) == 1 and callback(function(v) return #v end)
                     or {n = {"event_name", callback(function(v) return #v end)}}))
        elseif k == 6 then keep(df:join(keep(df:head(int(4))), "event_name", {how = pick{"inner", "left", "outer", "x"}}))
        elseif k == 7 then keep(df:value_counts("event_name", {normalize = int(2) == 1}))
        elseif k == 8 then keep(df:sort("event_name", {ascending = int(2) == 1}))
        elseif k == 9 then df:print{file = sink(), style = pick{"box", "plain", "csv", "json", "markdown", "tsv"}}
        else local _ = tostring(df) end
      end
    end,
    function() -- a function of the module, with arbitrary arguments
      local f = pick(module_fns)
      note("etinspect." .. f.name)
      local args = {n = int(4) - 1}
      for i = 1, args.n do args[i] = arg() end
      local r = table.pack(f.fn(table.unpack(args, 1, args.n)))
      for i = 1, r.n do keep(r[i]) end
    end,
    function() -- the binding's interface for the Lua library (_core), with arbitrary
      -- arguments, and a method it added called on an object (its callback may close
      -- the owner, raise, yield: the added method runs pinned)
      local core = etinspect._core
      local k = int(6)
      if k == 1 then
        note("_core.extend")
        local tn = int(4) == 1 and arg() or pick(core.types())
        local methods = int(4) == 1 and arg() or {["fz" .. int(4)] = callback(function() return 1 end)}
        core.extend(tn, methods)
      elseif k == 2 then
        note("_core.members"); keep((core.members(int(2) == 1 and arg() or pick(pool))))
      elseif k == 3 then
        note("_core.peek"); keep(core.peek(pick(pool), int(2) == 1 and arg() or pick(strings)))
      elseif k == 4 then
        note("_core.tuple"); keep(core.tuple(arg()))
      elseif k == 5 then
        note("_core.types"); local _ = core.types()
      else
        local v = pick(pool)
        local m = v ~= nil and saved.type(v) == "userdata" and v["fz" .. int(4)]
        if saved.type(m) == "function" then note("a method added by _core.extend"); keep(m(v, arg())) end
      end
    end,
    function() -- several dumps, with callbacks
      note("etinspect.open_many")
      local o = {}
      if int(2) == 1 then o.delegate_metadata_parser = callback(function() return {y = 2} end) end
      if int(3) == 1 then o.delegate_time_scale_converter = callback(function(_, t) return t end) end
      if int(3) == 1 then o.etrecord = files["sample.etrecord"] end
      keep(etinspect.open_many(int(2) == 1 and dumps or dir, o))
    end,
    function() -- two dumps compared
      local a, b = pick(owners), pick(owners)
      if type_of(a) == "Inspector" and type_of(b) == "Inspector" then
        note("etinspect.diff")
        keep(etinspect.diff(a, b, int(2) == 1 and {min_runs = int(4), alpha = 0.5} or nil))
      end
    end,
    function() -- the HTML report, to a path, an open file, or a file a callback closes
      local insp = pick(owners)
      if insp and type_of(insp) == "Inspector" then
        note("Inspector:write_html")
        local dest = int(2) == 1 and dir .. "/r.html" or keep(io.tmpfile())
        insp:write_html(dest, int(2) == 1 and {top = int(5), run = int(4), max_slices = int(3) * 100} or nil)
      end
    end,
    function() -- an output file of the library (_core.outfile), left open at times
      note("OutFile")
      local of = keep(etinspect._core.outfile(dir .. "/of" .. int(3) .. ".txt", int(2) == 1 and dumps or nil))
      if int(2) == 1 then of:write("x", 1) end
      if int(3) == 1 then of:commit() end
    end,
    function() -- the standard library's globals removed for one step
      for _, k in saved.ipairs(GLOBALS) do if int(2) == 1 then _G[k] = nil end end
      local ok = saved.pcall(action)
      restore_globals()
    end,
    function() -- the debug library and binary chunks turned on the objects (safelib.c refuses
      -- whatever would swap a type, an anchor, a C upvalue or the registry)
      local v, w = pick(pool), pick(pool)
      -- a userdata's metatable: its functions are C functions (the Lua library's own
      -- closures, which a script may legitimately rewire, are left alone)
      local mt = saved.type(v) == "userdata" and dbg.getmetatable(v)
      local k = int(8)
      note("debug library")
      if k == 1 then if saved.type(v) == "userdata" then dbg.setmetatable(v, dbg.getmetatable(w)) end
      elseif k == 2 then dbg.setuservalue(v, w, int(2))
      elseif k == 3 then
        local f = saved.type(mt) == "table" and saved.rawget(mt, pick{"__index", "__newindex", "__gc", "__close", "__tostring"})
        if saved.type(f) == "function" then dbg.setupvalue(f, int(4), w) end
      elseif k == 4 then
        local f = saved.type(mt) == "table" and saved.rawget(mt, "__index")
        if saved.type(f) == "function" then dbg.upvaluejoin(function() return v, w end, int(2), f, int(4)) end
      elseif k == 5 then
        local name = saved.type(mt) == "table" and saved.rawget(mt, "__name")
        if name then reg["etinspect." .. saved.tostring(name)] = dbg.getmetatable(w) end
      elseif k == 6 then
        local f = saved.type(mt) == "table" and saved.rawget(mt, "__gc")
        if saved.type(f) == "function" then f(v) end -- a public finalizer, by hand
      elseif k == 7 then
        local d = saved.string.dump(function(a) return a + 1 end)
        local p = int(#d)
        local fn = load_(d:sub(1, p - 1) .. saved.string.char(int(256) - 1) .. d:sub(p + 1))
        if fn then fn(v) end
      else keep(dbg.getupvalue(pick{etinspect.Inspector, etinspect.diff, saved.print}, int(3))) end
    end,
    function() -- a Tensor from values, and numeric helpers
      note("Tensor.new")
      keep(etinspect.Tensor.new{dtype = pick{"float32", "int64", "bool", "bfloat16", "uint8", "x"},
        shape = int(2) == 1 and {int(3) - 1, 2} or nil, values = int(2) == 1 and {1, 2, 3, 4} or arg()})
    end,
    function() -- an npy round trip
      local v = pick(pool)
      if type_of(v) == "Tensor" then
        note("npy")
        etinspect.write_npy(dir .. "/t.npy", v)
        local t = keep(etinspect.read_npy(dir .. "/t.npy"))
        keep(debug.getuservalue(t)) -- its NpyFile (closable: its Tensors must notice)
      end
    end,
    function() -- a program and what depends on it: a method, an instruction, an operator
      note("etinspect.parse_program")
      local p = keep(etinspect.parse_program(int(4) == 1 and arg() or files["model.pte"]))
      local m = keep(p.methods[int(2)])
      if m then
        local ins = m.instructions
        keep(ins[int(#ins + 1) - 1] or ins[1])
        keep(m.operators[int(3)])
      end
    end,
  }
  action = function()
    stats.calls = stats.calls + 1
    return steps_list[int(#steps_list)]()
  end

  local ok, e
  for _ = 1, steps do
    stats.steps = stats.steps + 1
    ok, e = saved.pcall(action)
    -- whatever a step did to the globals, the next one starts clean
    restore_globals()
    if not ok then
      if saved.type(e) == "table" and e.stop then break end
      stats.errors = stats.errors + 1
    end
  end
  etinspect.on_warning(quiet)
  -- process-wide settings back to their defaults (a fuzzer's next input
  -- runs in the same process)
  etinspect.limits{broadcast_elements = false}
  -- close what is left (some may be busy or linked: errors are fine)
  for i = #owners, 1, -1 do saved.pcall(function() owners[i]:close() end) end
  pool, owners, objs, files_pool, by_type, present = nil, nil, nil, nil, nil, nil
  saved.collectgarbage("incremental", 200, 100)
  saved.collectgarbage()
  return stats
end

--- The functions of the module `etinspect` ("Inspector", "diff",
-- "Tensor.new", "Frame.new"), sorted: its function fields and those of its
-- tables Tensor and Frame (the private _core is not the API).
function M.module_functions(etinspect)
  local all = {}
  for k, v in pairs(etinspect) do
    if type(v) == "function" and type(k) == "string" then all[#all + 1] = k end
  end
  for _, t in ipairs{"Tensor", "Frame"} do
    for k, v in pairs(etinspect[t]) do
      if type(v) == "function" and type(k) == "string" and k ~= "emit" and k ~= "compare"
        and k ~= "column_of" and k ~= "json" then
        all[#all + 1] = t .. "." .. k
      end
    end
  end
  table.sort(all)
  return all
end

--- The names of every method and field of every type, and of every
-- function of the module, for coverage ("Inspector:close", "Event.name",
-- "Frame:filter", "etinspect.diff").
function M.surface()
  local etinspect = require "etinspect"
  local all = {}
  for _, name in ipairs(etinspect._core.types()) do
    local getters, methods = etinspect._core.members(name)
    for _, k in ipairs(methods) do all[#all + 1] = name .. ":" .. k end
    for _, k in ipairs(getters) do all[#all + 1] = name .. "." .. k end
  end
  local lua_types = {Frame = etinspect.Frame.methods, GroupBy = etinspect.Frame.GroupBy.__index,
                     Dumps = require("etinspect.many").Dumps.__index}
  for tn, methods in pairs(lua_types) do
    for k in pairs(methods) do all[#all + 1] = tn .. ":" .. k end
  end
  for _, name in ipairs(M.module_functions(etinspect)) do all[#all + 1] = "etinspect." .. name end
  -- the binding's interface for the Lua library, reachable by scripts too
  for _, name in ipairs{"_core.extend", "_core.members", "_core.peek", "_core.tuple", "_core.types",
                        "a method added by _core.extend"} do
    all[#all + 1] = name
  end
  table.sort(all)
  return all
end

return M
