#!/usr/bin/env etinspect
-- frame_pandas_order.t - where the Frame once parted from pandas 1.5 and
-- now follows it (issue 24), on the C path (typed columns) and the Lua
-- path (a key or value column holding a Lua object) alike: first/last of
-- a group without a value is NaN; an outer join keeps its keys in
-- first-seen order (the left's, then the right's others; merge's
-- sort=False), not sorted; describe of a frame without rows gives count 0
-- and NaN for its number columns; to_tsv{index = false} leaves out the
-- index as to_csv(sep="\t", index=False) does, with strict options.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Frame = etinspect.Frame

local function isnan(x) return type(x) == "number" and x ~= x end
local obj = setmetatable({}, { __tostring = function() return "obj" end })

-- a frame of `columns` and positional rows (nil: a missing cell); on the
-- Lua path a row with an object key is appended, then cut away: the same
-- values, but the key column (the first) is an object column, so grouping
-- and joining take the Lua path
local function make(columns, cells, path)
  local rows = {}
  for i, c in ipairs(cells) do
    local r = {}
    for j, name in ipairs(columns) do r[name] = c[j] end
    rows[i] = r
  end
  if path == "C" then return Frame.new(columns, rows) end
  rows[#cells + 1] = { [columns[1]] = obj }
  return Frame.new(columns, rows):head(#cells)
end

-- first/last of a group without a value -----------------------------------------------
local N = 0 / 0
local cells = { { "a", N, nil }, { "b", 1.5, "p" }, { "a", N, nil }, { "b", 2.5, "q" } }
for _, path in ipairs { "C", "Lua" } do
  local f = make({ "k", "x", "s" }, cells, path)
  t.is(f._t:kind(1), path == "C" and "str" or "obj", path .. ": the key column's kind (the path taken)")
  local g = f:group_by("k"):agg { { "fx", "x", "first" }, { "lx", "x", "last" }, { "fs", "s", "first" },
    { "ls", "s", "last" } }
  t.is(#g, 2, path .. ": two groups")
  t.ok(isnan(g[1].fx) and isnan(g[1].lx), path .. ": first/last of x in a group of NaN only: NaN (pandas)")
  t.ok(g[1].fs == nil and g[1].ls == nil, path .. ": first/last of text in a group without text: nil (pandas' None)")
  t.is(g[2].fx, 1.5, path .. ": first present value")
  t.is(g[2].lx, 2.5, path .. ": last present value")
  t.is(g[2].ls, "q", path .. ": last present text")
  local gf = f:select { "k", "x" }:group_by("k"):first()
  t.ok(isnan(gf[1].x), path .. ": g:first() too")
end

-- outer join: keys in first-seen order ----------------------------------------------
-- pandas 1.5.3: pd.DataFrame({"k": ["c", None, "a", "c"], "v": [1, 2, 3, 4]}).merge(
--   pd.DataFrame({"k": ["z", "a", None, "b"], "w": [10, 20, 30, 40]}), on="k", how="outer")
-- gives k = c c None a z b (v 1 4 2 3 NaN NaN; w NaN NaN 30 20 10 40)
local lcells = { { "c", 1 }, { nil, 2 }, { "a", 3 }, { "c", 4 } }
local rcells = { { "z", 10 }, { "a", 20 }, { nil, 30 }, { "b", 40 } }
local want_k = { "c", "c", false, "a", "z", "b" }
local want_v = { 1, 4, 2, 3, 0 / 0, 0 / 0 }
local want_w = { 0 / 0, 0 / 0, 30, 20, 10, 40 }
for _, path in ipairs { "C", "Lua" } do
  local l = make({ "k", "v" }, lcells, path)
  local r = make({ "k", "w" }, rcells, path)
  local j = l:join(r, "k", { how = "outer" })
  t.is(#j, 6, path .. ": outer join: six rows")
  local why
  for i = 1, 6 do
    local row = j[i]
    local k = want_k[i] or nil
    local okv = isnan(want_v[i]) and isnan(row.v) or row.v == want_v[i]
    local okw = isnan(want_w[i]) and isnan(row.w) or row.w == want_w[i]
    if not why and (row.k ~= k or not okv or not okw) then
      why = string.format("row %d: k %s v %s w %s", i, tostring(row.k), tostring(row.v), tostring(row.w))
    end
  end
  t.ok(not why, path .. ": outer join: the left's keys first-seen (the missing key where it is first seen), "
    .. "then the right's others")
  if why then t.diag(why) end
end
-- two keys: first-seen order of the pairs
local a = Frame.from_columns { p = { 2, 1, 2 }, q = { "y", "x", "x" }, v = { 1, 2, 3 } }
local b = Frame.from_columns { p = { 0, 2 }, q = { "z", "x" }, w = { 7, 8 } }
local j2 = a:join(b, { "p", "q" }, { how = "outer" })
local got = {}
for i = 1, #j2 do got[i] = j2[i].p .. j2[i].q end
t.is(table.concat(got, " "), "2y 1x 2x 0z", "outer join on two keys: the pairs in first-seen order")
t.is(j2[3].w, 8, "... a pair in both gets the right's row")

-- describe of a frame without rows ---------------------------------------------------
local function describes_empty(d, cols, desc, nstats)
  nstats = nstats or 8
  local why
  if table.concat(d.columns, ",") ~= "stat," .. table.concat(cols, ",") then
    why = "columns " .. table.concat(d.columns, ",")
  elseif #d ~= nstats then
    why = #d .. " rows"
  else
    for _, c in ipairs(cols) do
      if d[1][c] ~= 0 then why = "count of " .. c .. ": " .. tostring(d[1][c]) end
      for i = 2, nstats do
        if not why and not isnan(d[i][c]) then why = d[i].stat .. " of " .. c .. ": " .. tostring(d[i][c]) end
      end
    end
  end
  t.ok(not why, desc)
  if why then t.diag(why) end
end
describes_empty(Frame.new({ "x", "y" }, {}):describe(), { "x", "y" },
  "Frame.new(cols, {}):describe(): count 0, NaN (pandas' empty float columns)")
local typed = Frame.from_columns { n = { 1, 2 }, s = { "a", "b" }, x = { 0.5, 1.5 } }
describes_empty(typed:filter(function() return false end):describe(), { "n", "x" },
  "a filter to no rows: the number columns, count 0 and NaN; text left out")
describes_empty(typed:head(0):describe { percentiles = { 0.9 } }, { "n", "x" }, "head(0), other percentiles", 7)
t.raises(function() return Frame.from_columns({ s = { "a" } }):head(0):describe() end,
  "Frame:describe: no numeric column %(columns: s%)", "a text column without rows is still text")
t.raises(function() return Frame.new({ "x" }, { {}, {} }):describe() end,
  "Frame:describe: no numeric column", "a column of rows without values is not numeric (pandas: object NaN)")

-- to_tsv{index = false} ----------------------------------------------------------------
local f = Frame.new({ "a", "b c" }, { { a = 1, ["b c"] = "x\ty" }, { a = 2.5 } })
t.is(f:to_tsv(), '\ta\tb c\n0\t1\t"x\ty"\n1\t2.5\t\n', "to_tsv(): the index first (pandas' to_csv(sep='\\t'))")
t.is(f:to_tsv(nil, { index = true }), f:to_tsv(), "index = true: the same")
t.is(f:to_tsv(nil, { index = false }), 'a\tb c\n1\t"x\ty"\n2.5\t\n',
  "index = false: no index field (pandas' to_csv(sep='\\t', index=False))")
t.is(f:select {}:to_tsv(nil, { index = false }), "\n\n\n", "index = false without columns: empty lines (pandas)")
t.is(f:select {}:to_csv(nil, { index = false }), "\n\n\n", "to_csv too (pandas)")
t.is(f:select {}:to_tsv(), '""\n0\n1\n', "with the index, without columns: as pandas")
t.is(Frame.new({ "a" }, {}):to_tsv(nil, { index = false }), "a\n", "index = false without rows: the header")
t.is(f:render("tsv"), f:to_tsv(), "render('tsv') keeps the index")
local path = os.tmpname()
f:to_tsv(path, { index = false })
local fh = assert(io.open(path, "rb"))
t.is(fh:read("a"), 'a\tb c\n1\t"x\ty"\n2.5\t\n', "index = false to a path")
fh:close()
os.remove(path)
t.raises(function() f:to_tsv(nil, { idx = false }) end, "Frame:to_tsv: unknown option 'idx'", "an unknown option raises")
t.raises(function() f:to_tsv(nil, { index = 0 }) end, "Frame:to_tsv: option 'index' must be a boolean",
  "index must be a boolean")
t.raises(function() f:to_tsv(nil, { index = false }, 3) end, "Frame:to_tsv: too many arguments",
  "an extra argument raises")
t.raises(function() f:to_tsv(nil, "index") end, "Frame:to_tsv", "options must be a table")

t.done()
