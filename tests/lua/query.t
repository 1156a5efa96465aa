#!/usr/bin/env etinspect
-- query.t - frame:query(expr [, vars]) keeps the rows pandas' df.query keeps
-- (tests/lua/series_cases.lua, written by gen_series_cases.py with pandas
-- 1.5.3), on the corpus too, and its errors name the position and token,
-- an unknown column and the columns, a missing @name.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Frame = etinspect.Frame
local cases = require "series_cases"
local err_of = t.err_of

local rows = {}
for i = 1, cases.n do
  local r = { row = i - 1 }
  for _, c in ipairs(cases.columns) do r[c] = cases.data[c][i] end
  rows[i] = r
end
local cols = { "row" }
for _, c in ipairs(cases.columns) do cols[#cols + 1] = c end
local df = Frame.new(cols, rows)

for _, q in ipairs(cases.queries) do
  local ok, r = pcall(df.query, df, q[1], cases.vars)
  if not t.ok(ok, q[1] .. ": runs") then t.diag(tostring(r)) else
    local got = {}
    for i = 1, #r do got[i] = r[i].row end
    t.is(table.concat(got, ","), table.concat(q[2], ","), q[1] .. ": pandas' rows")
  end
end

t.is(#df:query("True"), cases.n, "True: every row")
t.is(#df:query("False"), 0, "False: none")
t.is(#df:query("a > 0"), #df:filter(df.a:gt(0)), "query is the mask's filter")

-- errors ------------------------------------------------------------------------------
local E = {
  { "a >", 'Frame:query: at 4: unexpected end of expression in "a >"' },
  { "a > )", [[Frame:query: at 5: unexpected ')' in "a > )"]] },
  { "a > 1 b", [[Frame:query: at 7: unexpected 'b' in "a > 1 b"]] },
  { "(a > 1", [[Frame:query: at 7: expected ')', got end of expression in "(a > 1"]] },
  { "'abc", [[Frame:query: at 1: unfinished string in "'abc"]] },
  { "a > 1 $ 2", [[Frame:query: at 7: unexpected character '$' in "a > 1 $ 2"]] },
  { "nope > 1", "Frame:query: at 1: no column 'nope' (columns: row, a, b, f, s, p50 (ms))" },
  { "`p50` > 1", "Frame:query: at 1: no column 'p50' (columns: row, a, b, f, s, p50 (ms))" },
  { "a > @x", "Frame:query: at 5: @x is not in the variables table (none given: frame:query(expr, {name = value}))" },
  { "a + 1", 'Frame:query: "a + 1" gives a Series of int64, not a mask (a comparison, in, and/or/not)' },
  { "s * 2 > 1", "Frame:query: Series *: Series 's' holds text, not numbers" },
}
for _, e in ipairs(E) do
  t.is(err_of(function() return df:query(e[1]) end), e[2], "error: " .. e[1])
end
-- hostile expressions: refused with a message, never a Lua stack overflow
local deep = string.rep("(", 5000) .. "a > 1" .. string.rep(")", 5000)
t.is(err_of(function() return df:query(deep) end),
  'Frame:query: at 1001: the expression nests deeper than 1000 levels in "' .. string.rep("(", 120) .. '"...',
  "parentheses nested 5000 deep: refused, the expression cut in the message")
t.ok((err_of(function() return df:query(string.rep("not ", 5000) .. "a > 1") end) or ""):find("nests deeper than 1000", 1, true),
  "5000 nots: refused")
t.ok((err_of(function() return df:query("a > 0" .. string.rep(" or a > 0", 5000)) end) or ""):find("nests deeper than 1000", 1, true),
  "5000 ors: refused")
t.is(#df:query("a > 100" .. string.rep(" or a > 100", 500) .. " or a == 7"), 1, "500 ors: evaluated")
t.is(err_of(function() return df:query(1) end), "Frame:query: bad argument #1 (an expression string expected, got number)",
  "query(1)")
t.is(err_of(function() return df:query("a > 1", {}, 3) end), "Frame:query: too many arguments (3 given, at most 2 accepted)",
  "an extra argument")

-- on the corpus -------------------------------------------------------------------------
local medium = t.corpus .. "/medium.etdp"
if not t.exists(medium) then
  t.skip("shared corpus not found at " .. t.corpus)
else
  local d = etinspect.Inspector { etdump_path = medium }:to_dataframe()
  local q = d:query("`p50 (ms)` > 0.01 and event_name != 'OPERATOR_CALL' and not is_delegated_op")
  local f = d:filter(function(r) return r["p50 (ms)"] > 0.01 and r.event_name ~= "OPERATOR_CALL" and not r.is_delegated_op end)
  t.is(#q, #f, "medium.etdp: the query keeps the rows the Lua predicate keeps (" .. #f .. ")")
  local same = #q == #f
  for i = 1, math.min(#q, #f) do
    same = same and q[i].event_name == f[i].event_name and q[i]["avg (ms)"] == f[i]["avg (ms)"]
      and q[i].event_block_name == f[i].event_block_name
  end
  t.ok(same, "... the same rows, in order")
  t.ok(#f > 0 and #f < #d, "... a proper subset")
  local names = d:query("event_name in @n", { n = { "OPERATOR_CALL", "Method::execute" } })
  local k = 0
  for _, r in d:rows() do if r.event_name == "OPERATOR_CALL" or r.event_name == "Method::execute" then k = k + 1 end end
  t.is(#names, k, "medium.etdp: in @list")
end
t.done()
