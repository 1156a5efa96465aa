#!/bin/sh
# stock_lua.t - the lifetime rule of docs/lua-api.md ("Lifetimes and
# contracts") where the etinspect host cannot guard it: etinspect.so in a
# stock lua5.4, whose debug library reaches the binding's metatables.
# There a perverse script calls __gc and __close by hand (on an
# Inspector, on an ETRecord linked to an open Inspector, on the NpyFile
# under a live Tensor, inside a callback), and the raw methods and getters
# the metatables hold (debug.getregistry()["etinspect.Inspector"]:
# __methods, whose wrappers hold the raw function as upvalue 1, __getters,
# and the same tables as upvalues of __index) on a closed object or with a
# wrong self.  Each ends in a value or a Lua error, never a crash or a read
# of freed memory.  Under make test-asan the module is build/asan/etinspect.so
# with the sanitizer's runtime preloaded into lua5.4.
. "$(dirname "$0")/lib.sh"
: "${ET_BIN:=$ET_BUILD}"

command -v lua5.4 >/dev/null 2>&1 || skip_all "lua5.4 not installed: scripts/install-deps.sh"
SO="$ET_BIN/etinspect.so"
[ -f "$SO" ] || skip_all "$SO not built (make $SO)"
[ -f "$ET_BUILD/fixtures/sample.etrecord" ] || skip_all "build/fixtures missing (run make test)"
PRELOAD=
case "$ETINSPECT" in
*/asan/*)
    # the module needs the sanitizer's runtime loaded before anything else
    PRELOAD=$(ldd "$SO" 2>/dev/null | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p' | head -n 1)
    [ -n "$PRELOAD" ] || skip_all "$SO links no shared libasan (a clang build?): cannot preload it into lua5.4"
    ;;
esac

mkdir -p "$T/cpath"
ln -s "$SO" "$T/cpath/etinspect.so"
cat >"$T/stock.lua" <<'EOF'
package.cpath = os.getenv("T") .. "/cpath/?.so"
package.path = os.getenv("ET_SRC") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

local fx = t.build .. "/fixtures"
local SAMPLE, DELEGATES, RECORD = fx .. "/sample.etdp", fx .. "/delegates.etdp", fx .. "/sample.etrecord"
local tmp = os.getenv("T") .. "/out"
local warnings = {}
etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)
local function take() local w = warnings; warnings = {}; return w end
local err_of = t.err_of

local reg = debug.getregistry()
local IMT, RMT, EMT = reg["etinspect.Inspector"], reg["etinspect.ETRecord"], reg["etinspect.Event"]
t.ok(type(IMT) == "table" and type(IMT.__gc) == "function" and type(IMT.__close) == "function",
  "a stock lua5.4's debug.getregistry() reaches the Inspector's metatable and its finalizers")

-- __gc and __close of an Inspector called by hand -------------------------------------------
do
  local insp = etinspect.Inspector{etdump_path = SAMPLE}
  local ev = insp.event_blocks[2].events[1]
  t.is(debug.getmetatable(insp), IMT, "debug.getmetatable(insp) is that metatable")
  t.is(select("#", IMT.__gc(insp)), 0, "__gc(insp) called by hand: a close(), nothing returned")
  t.is(tostring(insp), "Inspector (closed)", "... the Inspector is closed")
  t.is(err_of(function() return insp.event_blocks end), "inspector is closed", "... its fields raise")
  t.is(err_of(function() return ev.name end), "Event used after its inspector was closed", "... and its events'")
  t.is(err_of(IMT.__gc, insp), nil, "__gc again: nothing")
  t.is(err_of(IMT.__close, insp), nil, "__close after it: nothing")
  t.is(err_of(insp.close, insp), nil, "close() after it: nothing")
  local i2 = etinspect.Inspector{etdump_path = SAMPLE}
  t.is(err_of(IMT.__close, i2, "an error object"), nil, "__close(insp, err) called by hand on an open Inspector")
  t.is(err_of(function() return #i2.event_blocks end), "inspector is closed", "... closes it")
  t.is(err_of(IMT.__gc, {}), nil, "__gc with a table: ignored")
  t.is(err_of(IMT.__gc, io.stdout), nil, "__gc with a file: ignored")
  t.is(io.type(io.stdout), "file", "... which stays open")
  t.is(err_of(IMT.__close, {}), "close: expected an Inspector, ETRecord or other closable object, got table",
    "__close with a table: an error")
  t.is(err_of(IMT.__close, io.stdout), "close: expected an Inspector, ETRecord or other closable object, got userdata",
    "__close with a file: an error")
end

-- __gc of an ETRecord linked to an open Inspector -----------------------------------------------
do
  local rec = etinspect.parse_etrecord(RECORD)
  local insp = etinspect.Inspector{etdump_path = SAMPLE, etrecord = rec}
  t.is(debug.getmetatable(rec), RMT, "debug.getmetatable(rec) is the ETRecord's metatable")
  t.is(err_of(RMT.__gc, rec), "ETRecord is linked to an open Inspector; close the Inspector first",
    "__gc called by hand is a close(): refused while linked")
  t.is(err_of(RMT.__close, rec), "ETRecord is linked to an open Inspector; close the Inspector first",
    "... and __close")
  t.is(table.concat(insp.event_blocks[2].events[1].op_types, ","), "aten.convolution.default",
    "... the Inspector still reads its record")
  t.is(insp:get_exported_program(), rec:get_exported_program(), "... and shares its Graph")
  collectgarbage()
  local held = setmetatable({rec = rec, insp = insp}, {__mode = "v"})
  rec, insp = nil, nil
  collectgarbage(); collectgarbage()
  t.ok(held.rec == nil and held.insp == nil, "an Inspector and its ETRecord collected together")

  rec = etinspect.parse_etrecord(RECORD)
  insp = etinspect.Inspector{etdump_path = SAMPLE, etrecord = rec}
  local g = rec:get_exported_program()
  IMT.__gc(insp)
  t.is(err_of(RMT.__gc, rec), nil, "once the Inspector is closed (its __gc by hand), the record's __gc closes it")
  t.is(err_of(function() return rec.methods end), "ETRecord used after it was closed", "... its fields raise")
  t.is(err_of(function() return g.nodes end), "Graph used after its ETRecord was closed", "... and its Graph's")
end

-- the NpyFile under a live Tensor --------------------------------------------------------------
do
  etinspect.write_npy(tmp, etinspect.Tensor.new{dtype = "float32", shape = {3}, values = {1, 2, 3}})
  local x = etinspect.read_npy(tmp)
  local owner = debug.getuservalue(x)
  t.is(getmetatable(owner).__gc, nil, "the NpyFile behind a Tensor: no __gc through getmetatable")
  local NMT = debug.getmetatable(owner)
  t.is(NMT, reg["etinspect.NpyFile"], "... but debug.getmetatable reaches its metatable")
  t.is(x[2], 2.0, "the tensor reads")
  NMT.__gc(owner)
  t.is(err_of(function() return x[1] end), "Tensor used after its owner was closed",
    "its finalizer called by hand through the debug library: the tensor raises, never reads freed memory")
  t.is(err_of(function() return x[3] end), "Tensor used after its owner was closed", "... every element")
  t.is(err_of(NMT.__close, owner), nil, "__close after it: nothing")
  local held = setmetatable({x = x, owner = owner}, {__mode = "v"})
  x, owner = nil, nil
  collectgarbage(); collectgarbage()
  t.ok(held.x == nil and held.owner == nil, "the Tensor and its closed NpyFile collected")
end

-- finalizers called by hand inside callbacks ---------------------------------------------------
do
  local insp
  insp = etinspect.Inspector{etdump_path = DELEGATES,
    delegate_metadata_parser = function(raw) IMT.__gc(insp); return {} end}
  take()
  insp:write_trace(tmp)
  local w = take()
  local refused = 0
  for _, m in ipairs(w) do
    if m:find("Inspector is busy (Inspector:write_trace is running); close it after "
      .. "Inspector:write_trace returns; the raw metadata is kept", 1, true) then refused = refused + 1 end
  end
  t.ok(#w > 0 and refused == #w,
    "__gc(insp) by hand in the parser while write_trace runs: refused, as warnings (" .. #w .. "): " .. tostring(w[1]))
  t.is(insp.event_blocks[1].events[1].name, "0", "... the Inspector is still open")
  insp = etinspect.Inspector{etdump_path = DELEGATES,
    delegate_metadata_parser = function(raw) IMT.__close(insp); return {} end}
  local md = insp.event_blocks[1].events[1].delegate_debug_metadatas
  w = take()
  t.ok(#w == 1 and w[1]:find("Inspector is busy (Event.delegate_debug_metadatas is running); close it after "
    .. "Event.delegate_debug_metadatas returns; the raw metadata is kept", 1, true),
    "__close(insp) by hand in the parser while a field is read: refused, as a warning: " .. tostring(w[1]))
  t.is(type(md), "table", "... the raw metadata is kept")
  IMT.__close(insp)

  local rec = etinspect.parse_etrecord(RECORD)
  local i2 = etinspect.Inspector{etdump_path = DELEGATES, etrecord = rec,
    delegate_time_scale_converter = function(name, ticks) RMT.__gc(rec); return ticks end}
  w = take()
  t.ok(#w > 0 and w[1]:find("ETRecord is busy (etinspect.Inspector is running)", 1, true),
    "__gc(rec) by hand in the time-scale converter of the Inspector linking it: refused, as a warning")
  t.is(i2.etrecord, rec, "... the record stays linked")
  i2:close()
  rec:close()
end

-- raw getters and methods from the registry -----------------------------------------------------
do
  local closed = etinspect.Inspector{etdump_path = SAMPLE}
  local ev = closed.event_blocks[2].events[1]
  closed:close()
  local open = etinspect.Inspector{etdump_path = SAMPLE}
  local _, raw_write_trace = debug.getupvalue(IMT.__methods.write_trace, 1)
  t.is(debug.getinfo(raw_write_trace, "S").what, "C", "upvalue 1 of a method's wrapper: the raw C method")
  local _, m1 = debug.getupvalue(IMT.__index, 1)
  local _, g2 = debug.getupvalue(IMT.__index, 2)
  t.ok(m1 == IMT.__methods and g2 == IMT.__getters, "upvalues 1 and 2 of __index: the __methods and __getters tables")

  t.is(err_of(IMT.__getters.event_blocks, closed), "inspector is closed", "a raw getter on a closed Inspector")
  t.is(err_of(g2.warnings, closed), "inspector is closed", "... another, through __index's upvalue")
  t.is(err_of(IMT.__index, closed, "event_blocks"), "inspector is closed", "__index called by hand on it")
  t.is(err_of(raw_write_trace, closed, tmp), "inspector is closed", "a raw method on it")
  t.is(err_of(IMT.__methods.write_trace, closed, tmp), "inspector is closed", "a wrapped method on it")
  t.is(err_of(EMT.__getters.name, ev), "Event used after its inspector was closed", "a raw getter on its Event")

  t.is(err_of(IMT.__getters.event_blocks, {}), "bad argument #1 to '?' (etinspect.Inspector expected, got table)",
    "a raw getter with a table for self")
  t.is(err_of(IMT.__getters.event_blocks, ev), "bad argument #1 to '?' (etinspect.Inspector expected, got Event)",
    "... with an Event")
  t.is(err_of(IMT.__getters.event_blocks), "bad argument #1 to '?' (etinspect.Inspector expected, got no value)",
    "... with nothing")
  t.is(err_of(raw_write_trace, io.stdout, tmp), "bad argument #1 to '?' (etinspect.Inspector expected, got FILE*)",
    "a raw method with a file for self")
  t.is(err_of(IMT.__methods.write_trace, {}, tmp), "Inspector:write_trace: bad self (Inspector expected, got table)",
    "a wrapped method with a table for self")
  t.is(err_of(IMT.__index, io.stdout, "event_blocks"),
    "bad argument #1 to '?' (etinspect.Inspector expected, got FILE*)", "__index called by hand on a file")
  t.is(err_of(EMT.__getters.name, open), "bad argument #1 to '?' (etinspect.Event expected, got Inspector)",
    "an Event's raw getter with an Inspector for self")
  t.is(#open.event_blocks, 2, "the open Inspector still reads")

  -- a raw getter runs unpinned: its parser may close the Inspector under it
  local insp
  insp = etinspect.Inspector{etdump_path = DELEGATES,
    delegate_metadata_parser = function(raw) insp:close(); return {parsed = true} end}
  local e1 = insp.event_blocks[1].events[1]
  take()
  local md = EMT.__getters.delegate_debug_metadatas(e1)
  t.is(md.parsed, true, "a raw getter whose parser closes the Inspector: the parser's value")
  t.is(#take(), 0, "... no warning")
  t.is(err_of(function() return e1.name end), "Event used after its inspector was closed", "... then the event raises")

  -- every raw C getter and method of every type, with a self of another kind
  local pool = {{{}, "table"}, {1, "number"}, {"x", "string"}, {true, "boolean"}, {io.stdout, "FILE*"},
                {open, "Inspector"}, {open.event_blocks[2].events[1], "Event"}}
  local types = {}
  for k, v in pairs(reg) do
    if type(k) == "string" and type(v) == "table" and rawget(v, "__methods") then types[#types + 1] = k end
  end
  table.sort(types)
  local calls, odd = 0, {}
  for _, k in ipairs(types) do
    local mt = reg[k]
    local name = mt.__name
    for _, kind in ipairs{"__methods", "__getters"} do
      for field, f in pairs(mt[kind]) do
        local raw = f
        if kind == "__methods" then _, raw = debug.getupvalue(f, 1) end
        if field ~= "close" and debug.getinfo(raw, "S").what == "C" then
          for _, s in ipairs(pool) do
            if s[2] ~= name then
              local want = ("bad argument #1 to '?' (%s expected, got %s)"):format(k, s[2])
              if name == "OutFile" and field == "abort" then
                want = ("OutFile:abort: bad self (OutFile expected, got %s)"):format(type(s[1]))
              end
              calls = calls + 1
              local got = err_of(raw, s[1])
              if got ~= want then odd[#odd + 1] = ("%s.%s(%s): %s"):format(name, field, s[2], tostring(got)) end
            end
          end
        end
      end
    end
  end
  t.ok(calls > 500 and #odd == 0, ("every raw C getter and method of the %d types with a self of another kind: "
    .. "%d calls, each 'bad argument #1' naming the type"):format(#types, calls))
  for _, o in ipairs(odd) do t.diag(o) end
  t.is(#open.event_blocks, 2, "... and the open Inspector still reads")
end

collectgarbage(); collectgarbage() -- every finalizer runs here: a crash fails the test
-- t.done() leaves by os.exit without closing the state: lua5.4 would
-- dlclose etinspect.so, whose process-lifetime input registry
-- (src/core/files/mapfile.c) LeakSanitizer would then see unreachable
t.done()
EOF
ET_BUILD="$ET_BUILD" ET_SRC="$ET_SRC" T="$T" LD_PRELOAD="$PRELOAD" lua5.4 "$T/stock.lua"
