-- api_driver.lua - the API harness (issue 12): drives the Lua API of
-- etinspect with call sequences chosen by a source of choices - the bytes
-- of a libFuzzer input (tests/fuzz/fuzz_api.c) or a seeded generator
-- (tests/lua/api_harness.t, `make check`).  Every method and field of
-- every userdata type is found in the metatables (so new ones are covered
-- without editing this file) and called with right and wrong selves,
-- right, wrong and extreme arguments, and callbacks (delegate metadata
-- parsers, time-scale converters, warning handlers, write sinks, Frame
-- callbacks, finalizers) that close their owner, raise, yield, recurse,
-- return the wrong type or run the collector; some steps run inside
-- coroutines.  Errors are expected; what must never happen is a crash, a
-- sanitizer report or a panic.
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
  local saved = {table = table, string = string, io = io, require = require, print = print,
                 tostring = tostring, pairs = pairs, ipairs = ipairs, type = type,
                 collectgarbage = collectgarbage, coroutine = coroutine, pcall = pcall,
                 setmetatable = setmetatable, getmetatable = getmetatable, next = next,
                 select = select, error = error}

  -- the fixtures, copied (a step may overwrite any of them)
  local files = {}
  for _, name in ipairs{"sample.etdp", "sample.etrecord", "delegates.etdp", "tensors.etdp",
                        "tensors_bad.etdp", "debug_differs.etdp", "alloc_small.etdp", "groups.etdp"} do
    if copy(fx .. "/" .. name, dir .. "/" .. name) then files[name] = dir .. "/" .. name end
  end
  if opts.src then copy(opts.src .. "/tests/fixtures/tensors.bin", dir .. "/tensors.bin") end
  local dumps = {}
  for name, p in saved.pairs(files) do if name:match("%.etdp$") then dumps[#dumps + 1] = p end end
  table.sort(dumps)

  local function int(n)
    local v = src:int(n)
    if v == nil then error({stop = true}) end
    return v
  end
  local function pick(list) if #list == 0 then return nil end return list[int(#list)] end

  -- the types, their methods and fields, from the metatables
  local types = {}
  for name, mt in saved.pairs(reg) do
    if saved.type(name) == "string" and name:match("^etinspect%.") and saved.type(mt) == "table"
      and saved.type(mt.__methods) == "table" then
      local t = {name = name:sub(11), methods = {}, getters = {}}
      for k in saved.pairs(mt.__methods) do t.methods[#t.methods + 1] = k end
      for k in saved.pairs(mt.__getters) do t.getters[#t.getters + 1] = k end
      table.sort(t.methods); table.sort(t.getters)
      types[t.name] = t
    end
  end
  local function type_of(v)
    local mt = saved.getmetatable(v)
    local n = saved.type(mt) == "table" and mt.__name
    return saved.type(n) == "string" and types[n] and n or nil
  end

  local quiet = function() end
  etinspect.on_warning(quiet)
  local pool, owners, objs = {}, {}, {}
  local function keep(v)
    if v ~= nil and (saved.type(v) == "userdata" or saved.type(v) == "table") and #pool < 400 then
      pool[#pool + 1] = v
      local tn = type_of(v)
      if tn then objs[#objs + 1] = v end
      if tn == "Inspector" or tn == "ETRecord" then owners[#owners + 1] = v end
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
    local kind = int(9)
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
      elseif kind == 8 then local o = pick(owners); if o then saved.pcall(o.close, o) end; error("after close")
      else saved.collectgarbage("step"); return ok(...) end
    end
  end
  local function sink()
    local k = int(4)
    if k == 1 then return io.tmpfile() end
    if k == 2 then return {write = callback(function(self) return self end)} end
    if k == 3 then return setmetatable({}, {__index = {write = callback(function(self) return self end)}}) end
    return {write = 42}
  end

  local OPTION_KEYS = {"include_units", "include_delegate_debug_data", "file", "cycles_hz", "runs",
    "runs_apart", "window", "dump", "block", "metrics", "top", "max_rows", "bogus", "style",
    "reference_block", "run", "title", "print"}
  local strings = {dir .. "/out1.json", dir .. "/out2", dir .. "/sub/out3", "", "ns", "cycles", "json",
    "forward", "edge_dialect_graph_module", "MSE", "float32", dir .. "/" .. ("x"):rep(300),
    "native_call_addmm.out", "0-3,7"}
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
    function() -- a field
      local v = pick(objs) or open_inspector()
      read_field(v, type_of(v))
    end,
    function() -- a method
      local v = pick(objs) or open_inspector()
      call_method(v, type_of(v), false)
    end,
    function() -- a method
      local v = pick(objs) or open_inspector()
      call_method(v, type_of(v), false)
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
          for _, y in saved.pairs(v) do n = n + 1; if n > 3 then break end; if type_of(v) then keep(y) end end
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
        setmetatable({}, {__gc = function() if o then saved.pcall(o.close, o) end end})
      end
    end,
    function() -- a Frame and its callbacks
      local insp = pick(owners)
      if insp and type_of(insp) == "Inspector" then
        note("Frame")
        local df = insp:to_dataframe()
        keep(df)
        local k = int(4)
        local cb = callback(function() return true end)
        if k == 1 then keep(df:filter(cb))
        elseif k == 2 then keep(df:sort(function(a, b) cb(); return false end))
        elseif k == 3 and df.group_by then keep(df:group_by("event_name"))
        else local _ = tostring(df) end
      end
    end,
    function() -- the standard library replaced for one step
      table, string, io, require = nil, nil, nil, nil
      local ok = saved.pcall(action)
      table, string, io, require = saved.table, saved.string, saved.io, saved.require
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
        keep(etinspect.read_npy(dir .. "/t.npy"))
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
    table, string, io, require = saved.table, saved.string, saved.io, saved.require
    if not ok then
      if saved.type(e) == "table" and e.stop then break end
      stats.errors = stats.errors + 1
    end
  end
  etinspect.on_warning(quiet)
  -- close what is left (some may be busy or linked: errors are fine)
  for i = #owners, 1, -1 do saved.pcall(owners[i].close, owners[i]) end
  pool, owners, objs = nil, nil, nil
  saved.collectgarbage("incremental", 200, 100)
  saved.collectgarbage()
  return stats
end

--- The names of every method and field of every type, for coverage
-- ("Inspector:close", "Event.name").
function M.surface()
  local reg, all = debug.getregistry(), {}
  for name, mt in pairs(reg) do
    if type(name) == "string" and name:match("^etinspect%.") and type(mt) == "table" and type(mt.__methods) == "table" then
      for k in pairs(mt.__methods) do all[#all + 1] = name:sub(11) .. ":" .. k end
      for k in pairs(mt.__getters) do all[#all + 1] = name:sub(11) .. "." .. k end
    end
  end
  table.sort(all)
  return all
end

return M
