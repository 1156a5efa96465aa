#!/usr/bin/env etinspect
-- query_fuzz.t - a fixed slice of the query fuzz target (tests/fuzz/
-- query_driver.lua; the libFuzzer target is build/fuzz/fuzz_query): 3,000
-- expressions of 1 to 12 random tokens (query syntax, columns, @variables,
-- hostile literals) and hand-picked hostile ones, each with a mask and a
-- Series of a hostile length for filter and mutate; each must give a frame
-- or a clean "Frame:query: ..." error, and filter/mutate must take the
-- frame's length only, naming both lengths otherwise.  Then the contract
-- check itself must see a broken contract (a test that cannot fail is a
-- defect).
local src = os.getenv("ET_SRC") or "."
package.path = src .. "/tests/lua/?.lua;" .. src .. "/tests/fuzz/?.lua;" .. package.path
local t = require "tap"
local D = require "query_driver"

-- what the fuzz target found ----------------------------------------------------------
local Frame = require("etinspect").Frame
-- Frame.new keeps 1 an integer and 0.5 a float: an object column, which
-- compared and computed as numbers (pandas' float64) all the same
local mixed = Frame.new({ "x" }, { { x = 1 }, { x = 0.5 }, {} })
t.is(#mixed:query("x > 0.5"), 1, "a column of integers and floats: query compares it as numbers")
local ge = mixed.x:ge(0.5):tolist()
t.ok(ge[1] == true and ge[2] == true and ge[3] == false, "... Series:ge too (a missing cell: false)")
local doubled = (mixed.x * 2):tolist()
t.ok(doubled[1] == 2 and doubled[2] == 1 and doubled[3] ~= doubled[3], "... and arithmetic (missing: NaN)")
t.raises(function() return Frame.new({ "x" }, { { x = 1 }, { x = "a" } }):query("x > 0") end,
  "Frame:query: Series:gt: Series 'x' holds mixed values, which have no order", "numbers and text: still no order")
local small = Frame.from_columns { v = { 1, 2 } }
t.raises(function() return mixed:query("@m", { m = small.v:gt(0) }) end,
  "^Frame:query: \"@m\" gives a mask of 2 values for 3 rows", "an @mask of another length: the query names it")

local x = 88172645463325252
local function int(m)
  x = x ~ (x << 13); x = x ~ (x >> 7); x = x ~ (x << 17)
  return (x >> 1) % m + 1
end

local bad, frames, errors = nil, 0, 0
local hostile = {
  "", " ", "x > 0.5", "`p50 (ms)` > 0 and k == 'a'", "k in ['a', 'zz'] or not b", "x in @t", "k not in @t",
  "@m", "@m2", "@bool", "@xs > @os", "x + @tb > 1", "x in @fn", "@nope", "1 // 0", "y // 0 > 0", "y % 0 == 0",
  "@neg // -1 == @neg", "y ** -1 > 0", "x ** 2 ** 3 > 1", "1 < x < 2 < 3", "not not not True", "~b & b | b",
  string.rep("(", 5000) .. "x" .. string.rep(")", 5000) .. " > 0",
  string.rep("-", 5000) .. "x > 0", string.rep("not ", 5000) .. "b", string.rep("x + ", 5000) .. "x > 0",
  string.rep("x < ", 5000) .. "x", "[" .. string.rep("1, ", 5000) .. "1] == x", string.rep("[", 5000),
  "'unfinished", "`unfinished", "@", "@1", "1x", "x ==", "== x", "(x > 0", "x > 0)", "[1, 2,] == x", "\0",
  "x > 0\0", "k == '\255'", "`\0` > 1", "9223372036854775808 > x", "1e999 > x", "x > -1e999", "True + True > 1",
}
for j, h in ipairs(hostile) do
  local why = D.run(string.char(j % 9 + 2, j * 7 % 256) .. h)
  if why then bad = bad or ("hostile %q: %s"):format(h:sub(1, 60), why) end
end
for j = 1, 3000 do
  local e = D.expr(int, int(12))
  local why, got = D.run(string.char(int(256) - 1, int(256) - 1) .. e)
  if why then bad = bad or ("%q: %s"):format(e, why); break end
  if got == "frame" then frames = frames + 1 else errors = errors + 1 end
end
if not t.ok(bad == nil, "3,000 random and " .. #hostile .. " hostile expressions: a frame or a clean error; "
  .. "filter and mutate take a Series of the frame's length only") then
  t.diag(bad)
end
t.ok(frames > 300 and errors > 300, ("both outcomes reached (%d frames, %d clean errors)"):format(frames, errors))

-- the contract check sees what it must
local function swap(f) return (D.run("\3\0x > 0", f)) end
t.ok(swap(function() error("oops", 0) end) ~= nil, "an error not naming Frame:query is a finding")
t.ok(swap(function() error("Frame:query: stack overflow", 0) end) ~= nil, "a stack overflow is a finding")
t.ok(swap(function() error("Frame:query: etinspect.query:12: boom", 0) end) ~= nil, "a Lua position is a finding")
t.ok(swap(function() return 1 end) ~= nil, "a result that is not a frame is a finding")
t.ok(swap(function(df) return df:sort("i", true) end) ~= nil, "rows out of order are a finding")
t.ok(swap(function(df) return df:select { "i" } end) ~= nil, "other columns are a finding")
t.is(swap(function(df, e, v) return df:query(e, v) end), nil, "the real query passes")
t.done()
