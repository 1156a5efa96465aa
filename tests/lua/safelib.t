#!/usr/bin/env etinspect
-- textload.t - the host loads Lua source only (src/host/textload.c):
-- load, loadfile, dofile, require's file searcher, scripts, -e and the
-- REPL refuse binary chunks, which Lua does not verify (a damaged one
-- crashed etinspect), and otherwise behave as the standard functions.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local bin = os.getenv("ETINSPECT") or "etinspect"
local BINARY = "attempt to load a binary chunk %(mode is 't'%)"

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))
local function write(name, s)
  local f = assert(io.open(dir .. "/" .. name, "wb"))
  f:write(s)
  f:close()
  return dir .. "/" .. name
end
local run = t.run

local dumped = string.dump(function(a) return a + 1 end)

-- load -------------------------------------------------------------------------------------
local f, err = load(dumped)
t.is(f, nil, "load: a binary chunk gives nil")
t.ok(err and err:find(BINARY), "load: and Lua's message saying only text is loaded")
f, err = load(dumped, "=bin", "bt")
t.ok(f == nil and err:find(BINARY), "load: mode 'bt' loads text only")
t.raises(function() load("return 1", "=x", "b") end,
  "bad argument #3 to 'load' %(mode 'b': etinspect loads text chunks only", "load: mode 'b' is an error naming it")
t.raises(function() load("return 1", "=x", {}) end, "bad argument #3 to 'load' %(string expected, got table%)",
  "load: a mode that is not a string is an error")
t.is(load("return 1 + 1")(), 2, "load: text still loads")
t.is(load("return x", "=env", "t", {x = 5})(), 5, "load: env becomes the chunk's _ENV")
t.raises(load("return print", "=nilenv", "t", nil), "attempt to index a nil value %(upvalue '_ENV'%)",
  "load: an explicit nil env is kept (no globals), as in the standard load")
local pieces = {"return ", "40 ", "+ 2"}
local k = 0
t.is(load(function() k = k + 1; return pieces[k] end)(), 42, "load: a reader function's pieces")
f, err = load(function() return {} end)
t.ok(f == nil and err:find("reader function must return a string"), "load: a reader returning a table")
k = 0
f, err = load(function() k = k + 1; return k == 1 and dumped or nil end)
t.ok(f == nil and err:find(BINARY), "load: a binary chunk from a reader gives nil")
f, err = load("return +", "=syntax")
t.ok(f == nil and err:find("^syntax:1:"), "load: a syntax error is returned with the chunk name")

-- loadfile, dofile ---------------------------------------------------------------------------
local binfile, textfile = write("bin.lua", dumped), write("text.lua", "return ..., 7")
f, err = loadfile(binfile)
t.ok(f == nil and err:find(BINARY), "loadfile: a binary chunk gives nil and the message")
t.raises(function() loadfile(textfile, "b") end, "bad argument #2 to 'loadfile' %(mode 'b'",
  "loadfile: mode 'b' is an error naming it")
local a, b = loadfile(textfile)("x")
t.ok(a == "x" and b == 7, "loadfile: a text file loads and takes arguments")
t.is(loadfile(write("env.lua", "return y"), "t", {y = 9})(), 9, "loadfile: env")
t.raises(function() dofile(binfile) end, BINARY, "dofile: a binary chunk raises")
a, b = dofile(textfile)
t.ok(a == nil and b == 7, "dofile: a text file runs and returns its values")
local co = coroutine.wrap(function() return dofile(write("yield.lua", "coroutine.yield(1); return 2")) end)
t.ok(co() == 1 and co() == 2, "dofile: the chunk may yield")

-- require -------------------------------------------------------------------------------------
write("textmod.lua", "return {answer = 42}")
write("binmod.lua", dumped)
package.path = dir .. "/?.lua;" .. package.path
t.is(require("textmod").answer, 42, "require: a text module on package.path")
t.raises(function() require "binmod" end,
  "error loading module 'binmod' from file '[^']*binmod.lua':\n\t.*" .. BINARY,
  "require: a binary module file is an error naming the module and the file")
local ok, e = pcall(require, "no_such_module_here")
t.ok(not ok and e:find("module 'no_such_module_here' not found:", 1, true)
  and e:find("no field package.preload['no_such_module_here']", 1, true)
  and e:find("no file '" .. dir .. "/no_such_module_here.lua'", 1, true),
  "require: a missing module lists where it looked, as the standard searcher")

-- damaged bytecode cannot crash the process (it did: 20,000 one-byte mutations of a dump
-- segfaulted etinspect within a second)
do
  local s = string.dump(function(x, y)
    local tt = {x, y}
    for i = 1, 3 do tt[i] = (tt[i] or 0) + i end
    return tt[1] .. "x"
  end)
  math.randomseed(7)
  local loaded = 0
  for _ = 1, 20000 do
    local p = math.random(20, #s)
    local c = s:sub(1, p - 1) .. string.char(math.random(0, 255)) .. s:sub(p + 1)
    local fn = load(c)
    if fn then loaded = loaded + 1; pcall(fn, 1, 2) end
  end
  t.is(loaded, 0, "20,000 damaged binary chunks: none loads")
end

-- the host's own chunks -----------------------------------------------------------------------
local out, status = run(bin .. " '" .. binfile .. "'")
t.ok(status == 1 and out:find(BINARY), "a script file holding a binary chunk: exit 1 and the message")
out, status = run(bin .. " - < '" .. binfile .. "'")
t.ok(status == 1 and out:find(BINARY), "a binary chunk on standard input: exit 1 and the message")
out, status = run(bin .. " -e \"$(printf '\\033Lua')\"")
t.ok(status == 1 and out:find(BINARY), "-e with a binary chunk's signature: exit 1 and the message")
out, status = run(bin .. " -e 'print(select(2, load(string.dump(function() end))))'")
t.ok(status == 0 and out:find(BINARY), "-e code sees the text-only load")

-- the debug library ----------------------------------------------------------------------------
local SAMPLE = t.build .. "/fixtures/sample.etdp"
local INTERNAL = "%(etinspect's internal state is not open to scripts%)"
if not t.exists(SAMPLE) then
  t.skip("build/fixtures missing (run make): the debug library's cases")
else
  local insp = etinspect.Inspector{etdump_path = SAMPLE}
  local _, run = insp:runs()(nil, 0)
  local iter = run:events()
  t.raises(function() debug.setupvalue(iter, 2, io.stdout) end,
    "debug.setupvalue: a C function's upvalues are not available " .. INTERNAL,
    "setupvalue of the events() iterator's state is refused")
  t.raises(function() debug.upvaluejoin(function() return iter end, 1, iter, 1) end,
    "debug.upvaluejoin: a C function's upvalues are not available", "upvaluejoin with a C function is refused")
  t.ok(select(2, iter()) ~= nil, "... and the iterator still runs")
  local ev = insp.event_blocks[1].events[1]
  t.raises(function() debug.setmetatable(insp, debug.getmetatable(ev)) end,
    "debug.setmetatable: a userdata's metatable cannot be changed", "an Inspector cannot be given the Event metatable")
  t.raises(function() debug.setmetatable(io.stdout, nil) end, "debug.setmetatable: a userdata's metatable",
    "nor a file its metatable removed")
  t.raises(function() debug.setuservalue(ev, insp, 1) end, "debug.setuservalue: a userdata's user values cannot",
    "an Event's anchor cannot be replaced")
  local reg = debug.getregistry()
  t.raises(function() reg["etinspect.Inspector"] = reg["etinspect.Event"] end,
    "debug.getregistry: the registry is read%-only", "the registry cannot be written")
  t.ok(reg["etinspect.Inspector"] == nil and reg["etinspect.Event"] == nil,
    "... and hides the types' metatables (their raw methods and getters run unpinned)")
  local hid, types = 0, 0
  for k, v in pairs(reg) do
    if type(v) == "table" and rawget(v, "__gc") and rawget(v, "__metatable") == false then hid = hid + 1 end
    if type(v) == "table" and rawget(v, "__metatable") ~= nil then types = types + 1 end
  end
  t.is(hid, 0, "... and the internal holders' metatables (their finalizers are not safe by hand)")
  t.is(types, 0, "... walked with pairs too")
  t.is(reg._LOADED, package.loaded, "... but shows the rest")
  t.is(debug.getmetatable(insp), getmetatable(insp), "debug.getmetatable of an Inspector: what getmetatable gives")
  t.is(debug.getmetatable(insp).__name, "Inspector", "... the read-only {__name = \"Inspector\"}")
  t.ok(debug.getmetatable(ev).__methods == nil and debug.getmetatable(ev).__getters == nil
    and debug.getmetatable(ev).__gc == nil and debug.getmetatable(ev).__index == nil,
    "... no methods, getters, finalizer or dispatch of an Event's")
  t.raises(function() debug.getmetatable(insp).__methods = {} end, "read%-only", "... and read-only")
  t.is(type(debug.getmetatable(io.stdout).__index), "table", "other userdata: the standard debug.getmetatable")
  local view = insp.event_blocks
  t.is(type(debug.getmetatable(view).__index), "table", "a read-only sequence's metatable: a table's, as the standard one")
  -- no method can be added to a type from a script through the debug library
  t.raises(function() reg["etinspect.Inspector"].__methods.mine = print end, "attempt to index a nil value",
    "a method cannot be added through the registry")
  t.raises(function() debug.getmetatable(insp).__methods.mine = print end, "attempt to index a nil value",
    "nor through debug.getmetatable")
  t.raises(function() return insp.mine end, "Inspector has no field or method 'mine'", "... the Inspector has none")
  -- nor a raw method or getter reached, to run without the pin
  t.raises(function() debug.getupvalue(insp.write_trace, 1) end,
    "debug.getupvalue: a C function's upvalues are not available " .. INTERNAL, "a method wrapper's upvalues are refused")
  t.raises(function() debug.getupvalue(insp.to_dataframe, 3) end,
    "debug.getupvalue: a C function's upvalues are not available", "... a Lua-library method's too")
  t.is(select(2, debug.getupvalue(function() return insp end, 1)), insp, "a Lua function's upvalues: the standard getupvalue")
  local raw = {}
  local hooked = etinspect.Inspector{etdump_path = t.build .. "/fixtures/delegates.etdp",
    delegate_metadata_parser = function()
      for lv = 1, 10 do
        local i = debug.getinfo(lv, "fS")
        if i and i.what == "C" and i.func ~= nil then raw[#raw + 1] = i.func end
      end
      return {}
    end}
  for _, b in ipairs(hooked.event_blocks) do for _, e in ipairs(b.events) do local _ = e.delegate_debug_metadatas end end
  t.is(#raw, 0, "debug.getinfo gives no func for a C function's frame (the raw getter calling a parser)")
  local function here() return debug.getinfo(1, "f").func end
  t.is(here(), here, "... a Lua function's frame: its func")
  t.is(debug.getinfo(print).func, print, "... and a function given: itself")
  t.raises(function() debug.getinfo({}) end, "bad argument #1 to '[%w.]*getinfo' %(number expected, got table%)",
    "getinfo's argument errors name it")
  hooked:close()
  t.ok(insp.event_blocks[1].name ~= nil, "the Inspector works after all of this")
  t.raises(function() return debug.setlocal(2, 1, io.stdout) end,
    "debug.setlocal: a C function's stack slots are not available", "setlocal in a C function's frame is refused")
  t.raises(function() return debug.getlocal(2, 1) end,
    "debug.getlocal: a C function's stack slots are not available", "getlocal in a C function's frame is refused")
  local function lua_frame(a) local b = a * 2; return debug.getlocal(1, 2), debug.setlocal(1, 2, 5), b end
  local n1, n2, v = lua_frame(3)
  t.ok(n1 == "b" and n2 == "b" and v == 5, "getlocal/setlocal of a Lua frame behave as the standard ones")
  t.raises(function() debug.getlocal(100, 1) end, "bad argument #1 to '[%w.]*getlocal' %(level out of range%)",
    "a level out of range names the function")
  -- a parser that swaps its caller's stack slot: the parser's error, the shell alive
  local warned = {}
  etinspect.on_warning(function(m) warned[#warned + 1] = m end)
  local d = etinspect.Inspector{etdump_path = t.build .. "/fixtures/delegates.etdp",
    delegate_metadata_parser = function() debug.setlocal(2, 1, io.stdout); return {} end}
  local n = 0
  for _, b in ipairs(d.event_blocks) do
    for _, e in ipairs(b.events) do n = n + #e.delegate_debug_metadatas end
  end
  etinspect.on_warning(nil)
  t.ok(n > 0 and warned[1] and warned[1]:find("debug.setlocal: a C function's stack slots"),
    "a parser calling debug.setlocal on its C caller: a warning naming it; the raw metadata is kept")
end

os.execute("rm -rf '" .. dir .. "'")
t.done()
