#!/usr/bin/env etinspect
-- differences.t - rows of docs/differences.md that no other test shows:
-- Double and Float debug scalars read exactly (the reference rounds them
-- through flatc's JSON text to 12 and 6 decimals), and get_op_list
-- populated (the reference's is a stub returning {}).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local pr = require "etinspect.pyrepr"
etinspect.on_warning(function() end)

local fixtures = t.build .. "/fixtures/"
if not t.exists(fixtures .. "debug_scalars.etdp") then t.skip_all(fixtures .. "debug_scalars.etdp not built (run make)") end

-- tests/fixtures/debug_scalars.json: Double 0.1234567890123456 and 1.5e-13,
-- Float 0.1 and 3.4e-7 (as float32), one debug event each.  The reference
-- reads flatc's JSON, where a double has 12 decimals and a float 6:
-- 0.123456789012, 0.0, 0.1 and 0.0.
local insp = etinspect.Inspector { etdump_path = fixtures .. "debug_scalars.etdp" }
local got = {}
for _, ev in ipairs(insp.event_blocks[1].events) do
  if ev.debug_data then got[ev.name] = ev.debug_data[1] end
end
t.is(got.d, 0.1234567890123456, "Double: every digit (the reference: 0.123456789012)")
t.is(got.tiny, 1.5e-13, "Double below 1e-12: kept (the reference: 0.0)")
t.is(pr.repr(got.f), "0.10000000149011612", "Float: the float32 value, widened exactly (the reference: 0.1)")
local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end
t.is(got.f, f32(0.1), "... float32(0.1) exactly")
t.is(got.big, f32(3.4e-7), "Float below 5e-7: float32(3.4e-7) exactly (the reference: 0.0)")

-- get_op_list: op type -> events of that type in the block
local linked = etinspect.Inspector { etdump_path = fixtures .. "sample.etdp", etrecord = fixtures .. "sample.etrecord" }
local function summary(ops)
  local keys = {}
  for k, v in pairs(ops) do keys[#keys + 1] = k .. "=" .. #v end
  table.sort(keys)
  return table.concat(keys, " ")
end
t.is(summary(linked:get_op_list("Execute")), "aten.addmm.default=2 aten.convolution.default=4 aten.relu.default=2",
     "get_op_list: op types with their events (the reference: {})")
local names = {}
for i, ev in ipairs(linked:get_op_list("Execute")["aten.convolution.default"]) do names[i] = ev.name end
t.is(table.concat(names, ","), "native_call_convolution.out,OPERATOR_CALL,0,DELEGATE_CALL",
     "get_op_list: the events of one op type, in block order")
t.is(summary(linked:get_op_list("Execute", false)), "aten.addmm.default=2 aten.convolution.default=3 aten.relu.default=1",
     "get_op_list(block, false): delegated events left out")
t.is(next(linked:get_op_list("NoSuchBlock")), nil, "get_op_list: an unknown block gives {}")
t.done()
