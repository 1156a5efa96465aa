#!/usr/bin/env etinspect
-- frame_columns.t - the Frame over typed C columns (issue 24 items 1, 2,
-- 4, 5, 7): Frame.from_columns' forms and errors; every Lua value kept as
-- it was (math.type, NaN apart from nil, text with NUL and invalid UTF-8,
-- tables); frame.col made once per frame; the verbs that keep the Lua
-- path (key columns of Lua objects or mixed kinds) agreeing with the C
-- path; nil keys as keys of their own; a displayed frame cutting long
-- list cells as formatting them whole would.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Frame = etinspect.Frame

-- from_columns ----------------------------------------------------------------
local f = Frame.from_columns { b = { 1, 2, 3 }, a = { "x", "y", "z" } }
t.is(table.concat(f.columns, ","), "a,b", "dict form: columns sorted by name")
t.is(#f, 3, "three rows")
f = Frame.from_columns({ b = { 1, 2, 3 }, a = { "x", "y", "z" } }, { "b", "a" })
t.is(table.concat(f.columns, ","), "b,a", "an order fixes the columns")
f = Frame.from_columns { { "z", { 1.5, 0 / 0, 3 } }, { "k", { "p", "q", "p" } } }
t.is(table.concat(f.columns, ","), "z,k", "pair form keeps its order")
t.ok(f.z[2] ~= f.z[2], "NaN kept")
t.raises(function() Frame.from_columns { a = { 1, 2 }, b = { 1 } } end,
  "column 'b' has 1 values, column 'a' has 2", "lengths differ: both named")
t.raises(function() Frame.from_columns({ a = { 1 } }, { "a", "c" }) end, "order%[2%] 'c' is no column given",
  "an order naming no column")
t.raises(function() Frame.from_columns({ a = { 1 }, b = { 2 } }, { "a" }) end, "column 'b' left out of the order",
  "an order leaving a column out")
t.raises(function() Frame.from_columns { a = 5 } end, "column 'a' must be a sequence, got number", "a non-sequence")
local holes = Frame.from_columns { a = { n = 3, 1, nil, 3 } }
t.is(#holes, 3, "values.n counts nil holes")
t.is(holes[2].a, nil, "a nil cell")
t.is(#Frame.from_columns { a = f.k }, 3, "a Series is a column sequence")

-- cells keep their Lua values --------------------------------------------------------
local obj = { 1, 2 }
local mixed = Frame.from_columns { { "v", { 1, 2.0, "t", obj, true, n = 6 } }, { "i", { 1, 2, 3, 4, 5, 6 } } }
local r = {}
for i = 1, 6 do r[i] = mixed[i].v end
t.ok(math.type(r[1]) == "integer" and math.type(r[2]) == "float" and r[3] == "t" and r[4] == obj
  and r[5] == true and r[6] == nil, "an object column keeps each value (integer, float, text, the table itself, nil)")
local text = Frame.from_columns { s = { "a\0b", "\xff\xfe", "a", "" } }
local sorted = text:sort("s")
t.is(table.concat({ sorted.s[1], sorted.s[2], sorted.s[3], sorted.s[4] }, "|"), "|a|a\0b|\xff\xfe",
  "text sorts by bytes, NUL and invalid UTF-8 kept")
local ints = Frame.from_columns { x = { 3, 1, 2 } }
t.is(math.type(ints:sort("x").x[1]), "integer", "an integer column stays integer through a sort")
t.is(math.type(ints:group_by("x"):agg { { "s", "x", "sum" } }.s[1]), "integer", "an integer sum is an integer")

-- frame.col: made once -----------------------------------------------------------------
local big = {}
for i = 1, 1000 do big[i] = i * 0.5 end
local bf = Frame.from_columns { x = big }
t.ok(rawequal(bf.x, bf.x), "frame.col is made once per frame (the same Series)")

-- the Lua path (object keys) agrees with the C path ------------------------------------------
local keys = { "b", "a", "b", "c", "a", "b" }
local vals = { 1.5, 2, 3, 4, 5.5, 6 }
local typed = Frame.from_columns { k = keys, v = vals }
local okeys = {}
for i, k in ipairs(keys) do okeys[i] = k end
okeys[7], vals[7] = obj, 7 -- one table key: the column becomes an object column
local objf = Frame.from_columns { k = okeys, v = vals }:head(6)
local a = typed:group_by("k"):agg { { "m", "v", "mean" }, { "n", "v", "count" } }
local b = objf:group_by("k"):agg { { "m", "v", "mean" }, { "n", "v", "count" } }
t.is(b:render("tsv"), a:render("tsv"), "group_by on an object column (Lua path) = typed column (C path)")
t.is(objf:sort("k", true):render("tsv"), typed:sort("k", true):render("tsv"), "sort: the same")
local right = Frame.from_columns { k = { "a", "b", "z" }, w = { 10, 20, 30 } }
t.is(objf:join(right, "k", { how = "outer" }):render("tsv"), typed:join(right, "k", { how = "outer" }):render("tsv"),
  "outer join: the same")

-- nil keys: keys of their own (as pandas' NaN keys with dropna = false) --------------------------
local nk = Frame.new({ "a", "b", "x" }, { { b = 1, x = 1 }, { b = 2, x = 2 }, { a = "p", b = 1, x = 3 } })
local g = nk:group_by({ "a", "b" }, { dropna = false }):size()
t.is(#g, 3, "(nil, 1) and (nil, 2) are two groups")
local nko = Frame.new({ "a", "b", "x" }, { { a = obj, b = 1, x = 1 }, { b = 1, x = 2 }, { b = 2, x = 3 } })
t.is(#nko:group_by({ "a", "b" }, { dropna = false }):size(), 3, "... also on the Lua path")
local jl = Frame.new({ "a", "b" }, { { b = 1 }, { b = 2 } })
local jr = Frame.new({ "a", "b", "y" }, { { b = 2, y = "two" } })
local j = jl:join(jr, { "a", "b" })
t.is(#j, 1, "a join on (nil, 2) matches (nil, 2) only")
t.is(j.y[1], "two", "... its row")

-- display: long list cells cut as if formatted whole -------------------------------------------
local long = {}
for i = 1, 500 do long[i] = i + 0.25 end
local lf = Frame.new({ "name", "raw" }, { { name = "a", raw = long }, { name = "b", raw = { 1, 2 } } })
local shown = lf:render("plain", { max_rows = 0, max_colwidth = 20 })
t.ok(shown:find("[1.25, 2.25, 3.25...\n", 1, true) ~= nil, "a 500-element cell shown cut to 20 characters")
local whole = lf:render("plain")
t.ok(whole:find("500.25]", 1, true) ~= nil, "no limit: the cell whole")

-- concat ------------------------------------------------------------------------------
local c1 = Frame.from_columns { { "k", { "a", "b" } }, { "v", { 1, 2 } } }
local c2 = Frame.from_columns { { "v", { 3 } }, { "k", { "c" } } }
local cc = Frame.concat { c1, c2 }
t.is(table.concat(cc.columns, ","), "k,v", "concat: the first frame's column order")
t.is(cc:render("tsv"), "\tk\tv\n0\ta\t1\n1\tb\t2\n2\tc\t3\n", "concat: rows in turn, relabelled")
local c3 = Frame.from_columns { { "k", { "d" } }, { "w", { true } } }
local cm = Frame.concat { c1, c3 }
t.ok(#cm == 3 and cm.v[3] ~= cm.v[3] and cm.w[1] ~= cm.w[1] and cm.w[3] == true,
  "concat: a column a frame lacks is NaN there")
local c4 = Frame.from_columns { { "k", { 1 } }, { "v", { 2.5 } } }
local ck = Frame.concat { c1, c4 }
t.ok(ck.k[3] == 1 and math.type(ck.v[3]) == "float" and math.type(ck.v[1]) == "integer",
  "concat: columns of two kinds keep each value")
t.raises(function() Frame.concat { c1, 5 } end, "item 2 is not a Frame", "concat: a non-frame")
t.raises(function() Frame.concat {} end, "no frame to concatenate", "concat: nothing")

-- a frame outliving its source ---------------------------------------------------------------
local kept = Frame.from_columns { x = { 1, 2, 3 } }:sort("x", true)
collectgarbage()
collectgarbage()
t.is(kept.x[1], 3, "a sorted frame keeps its columns after the source frame is collected")

t.done()
