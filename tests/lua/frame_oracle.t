#!/usr/bin/env etinspect
-- frame_oracle.t - a fixed-seed slice of the Frame's fuzz target
-- (tests/fuzz/frame_driver.lua; the libFuzzer target is
-- build/fuzz/fuzz_frame): seeds 1..400, 25 verbs each, on random frames
-- with NaN, missing cells, NUL and invalid UTF-8 text; etinspect's Frame
-- and the oracle (tests/lua/frame_oracle.lua, the Lua Frame of before
-- issue 24) must give the same frames, and raise together.  Then the
-- comparison itself must see a difference (a test that cannot fail is a
-- defect).
local src = os.getenv("ET_SRC") or "."
package.path = src .. "/tests/lua/?.lua;" .. src .. "/tests/fuzz/?.lua;" .. package.path
local t = require "tap"
local D = require "frame_driver"
local Frame = require("etinspect").Frame

local FIRST, LAST, STEPS = 1, 400, 25
local bad
local st = { steps = 0, raised = 0, errors = {} }
for seed = FIRST, LAST do
  local ok, err = pcall(D.run, D.prng(seed), { steps = STEPS, stats = st })
  if not ok then bad = ("seed %d: %s"):format(seed, tostring(err)); break end
end
if not t.ok(bad == nil, ("seeds %d..%d x %d verbs: the engine and the oracle agree"):format(FIRST, LAST, STEPS)) then
  t.diag(bad)
end
t.is(st.steps, (LAST - FIRST + 1) * STEPS, "every verb of every seed ran")
t.ok(st.raised < st.steps // 10, ("most verbs return a frame: %d of %d raised on both sides"):format(st.raised, st.steps))

-- the comparison sees what it must
local a = Frame.new({ "k", "x" }, { { k = "a", x = 1 }, { k = "b", x = 0 / 0 } })
t.is(D.same_frame(a, a), nil, "same_frame: a frame equals itself (NaN equals NaN)")
t.ok(D.same_frame(a, Frame.new({ "k", "x" }, { { k = "a", x = 1 }, { k = "b", x = 2 } })) ~= nil,
  "same_frame: NaN differs from a number")
t.ok(D.same_frame(a, Frame.new({ "k", "x" }, { { k = "a", x = 1 }, { k = "a\0", x = 0 / 0 } })) ~= nil,
  "same_frame: text differs byte for byte")
t.ok(D.same_frame(a, Frame.new({ "x", "k" }, { { k = "a", x = 1 }, { k = "b", x = 0 / 0 } })) ~= nil,
  "same_frame: the column order counts")
t.ok(D.same_frame(a, a:head(1)) ~= nil, "same_frame: the row count counts")
-- a byte source: runs to its end without an error of its own
t.ok(pcall(D.run, D.bytes("\1\2\3\4\5\6\7\8\9\10\11\12\13\14"), { steps = 50 }), "a byte source runs out cleanly")
t.done()
