#!/usr/bin/env etinspect
-- series.t - a Frame's column is a Series (src/lua/l_series.c): its
-- arithmetic, comparisons, masks and membership give pandas' values and
-- dtypes (tests/lua/series_cases.lua, written by gen_series_cases.py with
-- pandas 1.5.3), it is still the column sequence (#, [i], ipairs,
-- table.concat, the statistics), Frame:filter takes a mask, and its errors
-- name the column.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Frame = etinspect.Frame
local cases = require "series_cases"
local err_of = t.err_of

local rows = {}
for i = 1, cases.n do
  local r = {}
  for _, c in ipairs(cases.columns) do r[c] = cases.data[c][i] end
  rows[i] = r
end
local df = Frame.new(cases.columns, rows)

for _, c in ipairs(cases.series) do
  local lua, dtype, want = c[1], c[2], c[3]
  local fn = assert(load("local df = ...; return " .. lua, "=" .. lua, "t", { math = math }))
  local ok, s = pcall(fn, df)
  if not t.ok(ok and etinspect._core.is_series(s), lua .. ": a Series") then t.diag(tostring(s)) else
    local good, why = #s == cases.n, "length " .. #s
    for i = 1, cases.n do
      local g, w = s[i], want[i]
      local cell
      if type(g) == "number" and type(w) == "number" then
        cell = (g ~= g and w ~= w) or g == w
        if dtype == "float64" and math.type(g) ~= "float" then cell = false end
        if dtype == "int64" and math.type(g) ~= "integer" then cell = false end
      else
        cell = g == w
      end
      if not cell and good then good, why = false, string.format("[%d] = %s, pandas %s", i, tostring(g), tostring(w)) end
    end
    if not t.ok(good, lua .. ": pandas' values") then t.diag(why) end
    local expect = dtype == "object" and "object" or dtype
    t.is(s.dtype, expect, lua .. ": dtype " .. dtype)
  end
end

-- the column sequence ----------------------------------------------------------
local a = df.a
t.is(#a, cases.n, "#df.a")
t.is(a[2], -7, "df.a[2]")
t.is(a[0], nil, "df.a[0] is nil")
t.is(a[cases.n + 1], nil, "past the end: nil")
local n = 0
for i, v in ipairs(df.s) do n = i end
t.is(n, 2, "ipairs stops at the first missing cell, as over a Lua sequence with a hole")
t.is(table.concat(df.a, ","), "7,-7,0,5,3,-2", "table.concat(df.a)")
t.is(df.a:sum(), 6, "df.a:sum()")
t.is(df.a.name, "a", "s.name")
t.is((df.a * 2).name, "a", "a result keeps the name")
t.is((df.a + df.b).name, nil, "two names: none")
t.is(df.f[4] ~= df.f[4], true, "a NaN cell reads NaN")
t.is(df.s[3], nil, "a missing text cell reads nil")
t.ok(tostring(df.a):find("^Series 'a' %(int64, 6 values%): 7, %-7, 0") ~= nil, "tostring names the Series")

-- filter with a mask, mutate with a Series ------------------------------------------------
local f = df:filter(df.a:gt(0) & df.s:eq("x"))
t.is(#f, 2, "filter(mask): 2 rows")
t.is(f[2].a, 5, "... in order")
t.is(#df:filter { true, false, true, false, false, false }, 2, "filter(sequence of booleans)")
t.is(err_of(function() return df:filter(df.a) end),
  "Frame:filter: Series 'a' holds int64 values, not booleans (a mask comes from s:gt(x), s:eq(x), s:isin{...}, ...)",
  "filter(a column of numbers) raises naming it")
t.is(err_of(function() return df:filter(df:head(2).a:gt(0)) end), "Frame:filter: the mask has 2 values for 6 rows",
  "a mask of another length raises naming both")
t.is(err_of(function() return df:filter { true } end), "Frame:filter: the mask has 1 values for 6 rows",
  "a sequence of another length too")
local m = df:mutate { us = df["p50 (ms)"] * 1000 }
t.is(m.us[2], 250.0, "mutate{us = df[\"p50 (ms)\"] * 1000}")

local fc = Frame.from_columns { x = df.a, y = df.a * 2, s = df.s }
t.is(#fc, cases.n, "Frame.from_columns takes Series")
t.is(fc.y[2], -14, "... their values")
t.is(fc.s[3], nil, "... a missing text cell stays missing")
t.is(fc:filter(fc.s:eq("x")).y[2], 10, "... and they work as columns (filter)")
t.is(df:mutate { z = df.a * 2 }.z.dtype, "int64", "mutate keeps a Series' dtype")
t.is(#df:mutate { z = df.a * 2 }:group_by("s"):agg { z = "sum" }, 3, "... and the column groups")

-- errors -------------------------------------------------------------------------
t.is(err_of(function() return df.s * 2 end), "Series *: Series 's' holds text, not numbers", "arithmetic on text names the column")
t.is(err_of(function() return df.a > 1 end),
  "a Series compared with < or >: Lua makes the result one boolean; write s:lt(x) for pandas' s < x, s:gt(x) for s > x",
  "s > x raises naming the method")
t.ok((err_of(function() return df.a <= 1 end) or ""):find("s:le(x) for pandas' s <= x, s:ge(x) for s >= x", 1, true),
  "s <= x raises naming the method")
t.ok((err_of(function() return df.a == df.b end) or ""):find("a:eq(b)", 1, true), "s == s2 raises naming eq")
t.is(err_of(function() return df.a ^ -1 end),
  "Series ^: Integers to negative integer powers are not allowed (element 1; use a float exponent, as s ^ -1.0)",
  "int ^ negative int raises, as NumPy")
t.is(err_of(function() return df.a + df:head(2).a end), "Series +: Series 'a' has 2 values, the other operand 6",
  "Series of different lengths raise naming both")
t.is(err_of(function() return df.s:lt(1) end), "Series:lt: '<' not supported between text and number",
  "ordering text against a number raises, as pandas")
t.is(err_of(function() return df.a & df.b end),
  "Series &: Series 'a' holds int64 values, not booleans (compare first: s:gt(x), s:eq(x), ...)", "& on numbers raises")
t.is(err_of(function() return df.a.nope end), "Series 'a' has no field or method 'nope'", "an unknown method is named")
t.is(err_of(function() df.a[1] = 2 end),
  "Series 'a' is read-only (frames are never changed in place: use frame:mutate{...})", "a Series is read-only")
t.is(err_of(function() return df.a:gt(1, 2) end), "Series:gt: too many arguments (one value expected)", "gt(x, y) raises")
t.is(err_of(function() return df.s:sum() end), "sum: column 's' holds string values ('x'), not numbers",
  "a statistic over text names the column")
-- where Lua makes it differ (docs/differences.md, "Frame expressions") ----------------------
local function list(s)
  local o = {}
  for i = 1, #s do o[i] = tostring(s[i]) end
  return table.concat(o, ",")
end
local bm = Frame.new({ "m", "k" }, { { m = true, k = true }, { k = true }, { m = false, k = true } })
t.is(err_of(function() return bm.m & bm.k end),
  "Series &: Series 'm' has missing values (fill them first: s:fillna(false))", "& over a missing cell raises")
t.is(list(bm.m:fillna(false) & bm.k), "true,false,false", "... after fillna(false)")
local bb = Frame.new({ "m" }, { { m = true }, { m = true }, { m = false } })
t.is(list(bb.m + bb.m), "2,2,0", "booleans add as 0 and 1")
t.is(list(df.a:gt(0) ~ df.b:gt(0)), "false,false,false,true,false,true", "~ is xor of masks")
t.done()
