#!/usr/bin/env etinspect
-- repl_types.t - what Tab assumes a call gives, checked against what the
-- call gives: the REPL completes after df:group_by("x"): without making
-- the call (etinspect.repl's CALL_TYPES for the Frame, GroupBy and Series;
-- the "returns" column of docs/lua-api.md through etinspect.help for the
-- binding's types).  Each assumption is made here for real, on the sample
-- dump, and the type of the result compared; and help(x) is checked to
-- list what the reference lists.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local sample = t.build .. "/fixtures/sample.etdp"
if not t.exists(sample) then t.skip_all(sample .. " not built (run make)") end

local R = require "etinspect.repl"
local H = require "etinspect.help"
insp = etinspect.Inspector { etdump_path = sample } -- globals: what Tab completes
df = insp:to_dataframe { include_units = false }

-- arguments that make each method of the lists run
local ARGS = {
  Frame = {
    group_by = { "event_name" }, column = { "p50" }, filter = { function(r) return r.p50 > 0 end },
    query = { "p50 > 0" }, select = { { "event_name", "p50" } }, drop = { { "raw" } },
    sort = { "p50" }, head = { 2 }, tail = { 2 }, value_counts = { "event_name" },
    describe = {}, rename = { { p50 = "median" } }, mutate = { { x = 1 } }, assign = { { x = 1 } },
    join = { df:select { "event_name", "p90" }:head(3), "event_name" },
    merge = { df:select { "event_name", "p90" }:head(3), "event_name" },
  },
  GroupBy = { agg = { { p50 = "mean" } }, quantile = { 0.5 } },
  Series = { eq = { 1 }, ne = { 1 }, lt = { 1 }, le = { 1 }, gt = { 1 }, ge = { 1 }, isin = { { 1 } },
             between = { 0, 1 }, fillna = { 0 } },
}
local RECEIVER = {
  Frame = function() return df end,
  GroupBy = function() return df:group_by("event_name") end,
  Series = function() return df.p50 end,
}
for _, tname in ipairs({ "Frame", "GroupBy", "Series" }) do
  local names = {}
  for m in pairs(R.CALL_TYPES[tname]) do names[#names + 1] = m end
  table.sort(names)
  for _, m in ipairs(names) do
    local want = R.CALL_TYPES[tname][m]
    local recv = RECEIVER[tname]()
    local ok, got = pcall(function() return recv[m](recv, table.unpack(ARGS[tname][m] or {})) end)
    t.is(ok and H.type_of(got) or tostring(got), want,
      string.format("%s:%s(...) gives a %s, as Tab assumes", tname, m, want))
  end
end

-- the binding's types: every method the reference gives a type for exists,
-- and the calls that need no argument give that type
local checked = 0
for _, tname in ipairs({ "Inspector", "EventBlock", "Event", "PerfData", "ETRecord", "Graph" }) do
  local getters, methods = etinspect._core.members(tname)
  local have = {}
  for _, k in ipairs(getters or {}) do have[k] = true end
  for _, k in ipairs(methods or {}) do have[k] = true end
  for _, e in ipairs(H.entries(tname) or {}) do
    for span in e.name:gmatch("[^,]+") do
      local m = span:match("^%s*[%w_]+[.:]([%w_]+)")
      if m and H.returns(tname, m) then
        checked = checked + 1
        t.ok(have[m], string.format("%s.%s, documented to give a %s, exists", tname, m, H.returns(tname, m)))
      end
    end
  end
end
t.ok(checked >= 8, "documented return types checked: " .. checked)
t.is(H.type_of(insp:to_dataframe()), H.returns("Inspector", "to_dataframe"), "insp:to_dataframe() gives what the reference says")
t.is(H.type_of(insp.event_blocks[2]:to_dataframe()), H.returns("EventBlock", "to_dataframe"),
  "blk:to_dataframe() gives what the reference says")
t.is(H.returns("etinspect", "open_many"), "Dumps", "etinspect.open_many(...) gives Dumps (after the arrow)")

-- completion uses them, never calling
local calls = 0
counted = setmetatable({}, { __index = function() calls = calls + 1 return df end })
local function complete(line)
  local cands = R.complete(line, #line)
  return table.concat(cands, " ")
end
t.ok(complete('df:group_by("x"):su'):find('df:group_by%("x"%):sum') ~= nil, "after a call: the GroupBy's methods")
t.ok(complete("df.p50:notn"):find("df.p50:notna", 1, true) ~= nil, "a Series' methods")
t.ok(complete("df.p50:gt(1):an"):find("df.p50:gt(1):any", 1, true) ~= nil, "a mask is a Series")
t.ok(complete("insp:to_dataframe():he"):find("insp:to_dataframe():head", 1, true) ~= nil,
  "insp:to_dataframe(): a Frame, from the reference's returns column")
t.is(complete('df["p1'), 'p10"]', 'a column key inside df["')
t.is(complete("counted.x:he"), "", "a user's __index is not called")
t.is(complete("(df):he"), "", "a parenthesized expression: nothing")
t.is(calls, 0, "... not once")

-- help(x): the reference's rows, one line each
local text = H.text(insp, 100)
t.ok(text:find("\n  insp.event_blocks +sequence of EventBlock") ~= nil, "help(insp): the reference's insp.event_blocks row")
local widest = 0
for line in text:gmatch("[^\n]+") do widest = math.max(widest, utf8.len(line)) end
t.ok(widest <= 100, "help(insp) cut to the width (" .. widest .. ")")
t.ok(H.text(df, 80):find("columns: event_block_name, event_name, block_index, raw", 1, true) ~= nil, "help(frame): its columns")
t.ok(H.text(df.p50, 200):find("s:between", 1, true) ~= nil, "help(series): its methods")
t.ok(H.text(42, 80):find("a number value", 1, true) ~= nil, "help(42): what it is, what help knows")
t.done()
