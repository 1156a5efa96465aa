#!/usr/bin/env etinspect
-- frame_contracts.t - the Frame's contract (issue 24 item 6, issue 25 item
-- 16): extra positional arguments and unknown options raise, naming them;
-- to_csv{index = false}; a missing statistic is NaN; a column sequence of
-- the wrong length, a column's statistics over text and describe's
-- percentiles behave as pandas'; errors point at the caller's line; pandas'
-- names suggest etinspect's; to_json escapes as --json does.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Frame = etinspect.Frame
local err_of = t.err_of

local df = Frame.new({ "a", "b" }, { { a = 1, b = "x" }, { a = 2, b = "y" }, { a = 4, b = "x" } })
local g = df:group_by("b")
local col = df.a

-- extra positional arguments ------------------------------------------------
local extra = {
  { "Frame:head", function() return df:head(3, 4) end },
  { "Frame:tail", function() return df:tail(1, 2) end },
  { "Frame:rows", function() return df:rows(1) end },
  { "Frame:column", function() return df:column("a", "b") end },
  { "Frame:filter", function() return df:filter(function() return true end, 1) end },
  { "Frame:unique", function() return df:unique("a", true) end },
  { "Frame:describe", function() return df:describe({}, 1) end },
  { "Frame:rename", function() return df:rename({}, 1) end },
  { "Frame:mutate", function() return df:mutate({}, 1) end },
  { "Frame:assign", function() return df:assign({}, 1) end },
  { "Frame:join", function() return df:join(df, "a", {}, 1) end },
  { "Frame:merge", function() return df:merge(df, "a", {}, 1) end },
  { "Frame:value_counts", function() return df:value_counts("a", {}, 1) end },
  { "Frame:render", function() return df:render("box", {}, 1) end },
  { "Frame:to_string", function() return df:to_string("box", 1) end },
  { "Frame:print", function() return df:print({ file = io.tmpfile() }, 1) end },
  { "Frame:to_json", function() return df:to_json(nil, 1) end },
  { "Frame:to_tsv", function() return df:to_tsv(nil, {}, 1) end },
  { "Frame:to_csv", function() return df:to_csv(nil, {}, 1) end },
  { "Frame:sort", function() return df:sort("a", true, 1) end },
  { "Frame:sort", function() return df:sort("a", {}, 1) end },
  { "Frame:sort", function() return df:sort({ "a" }, {}, 1) end },
  { "Frame:select", function() return df:select({ "a" }, "b") end },
  { "Frame:drop", function() return df:drop({ "a" }, "b") end },
  { "GroupBy:agg", function() return g:agg("sum", 1) end },
  { "GroupBy:size", function() return g:size(1) end },
  { "GroupBy:sum", function() return g:sum("a") end },
  { "GroupBy:quantile", function() return g:quantile(0.5, 1) end },
  { "GroupBy:groups", function() return g:groups(1) end },
  { "column:sum", function() return col:sum(1) end },
  { "column:quantile", function() return col:quantile(0.5, 1) end },
  { "Frame.new", function() return Frame.new({ "a" }, {}, 1) end },
  { "Frame.quantile", function() return Frame.quantile(0.5, 1) end },
  { "Frame.from_columns", function() return Frame.from_columns({ a = { 1 } }, { "a" }, 1) end },
}
for _, c in ipairs(extra) do
  local e = err_of(c[2])
  t.ok(e and e:find(c[1], 1, true) == 1 and (e:find("too many arguments", 1, true)
    or e:find("not both", 1, true)), c[1] .. ": an extra argument raises, naming the method")
  if not (e and e:find(c[1], 1, true) == 1) then t.diag(tostring(e)) end
end
t.is(err_of(function() return df:head(3, 4) end), "Frame:head: too many arguments (2 given, at most 1 accepted)",
  "df:head(3, 4): the message")
t.is(err_of(function() return df:select({ "a" }, "b") end),
  "Frame:select: columns as a sequence, or as arguments, not both (argument #2 is string)", "select{...}, more")
t.is(#df:head(2), 2, "head(2) still works")
t.is(#df:sort("a", true), 3, "sort(col, desc) still works")

-- unknown options, to_csv's index ---------------------------------------------
t.is(err_of(function() return df:to_csv(nil, { indx = false }) end),
  "Frame:to_csv: unknown option 'indx' (accepted: index)", "to_csv: an unknown option is named")
t.is(df:to_csv(nil, { index = false }), "a,b\n1,x\n2,y\n4,x\n", "to_csv{index = false}: no row labels (pandas' index=False)")
t.is(df:to_csv(nil, { index = true }), ",a,b\n0,1,x\n1,2,y\n2,4,x\n", "to_csv{index = true}: the row labels")
t.is(df:to_csv(), ",a,b\n0,1,x\n1,2,y\n2,4,x\n", "to_csv(): the row labels by default")
do
  local path = os.tmpname()
  df:to_csv(path, { index = false })
  t.is(t.read(path), "a,b\n1,x\n2,y\n4,x\n", "to_csv(path, {index = false}) writes no row labels")
  os.remove(path)
end

-- mutate with a sequence of the wrong length ----------------------------------
t.is(err_of(function() return df:mutate { x = { 1, 2 } } end), "Frame:mutate: column 'x' has 2 values for 3 rows",
  "mutate{x = {1, 2}} on 3 rows names both lengths")
t.is(err_of(function() return df:mutate { x = {} } end), "Frame:mutate: column 'x' has 0 values for 3 rows",
  "mutate{x = {}} on 3 rows raises")
t.is(df:mutate { x = { 7, 8, 9 } }.x[3], 9, "a sequence of #frame values is the column")
t.is(df:mutate { x = "k" }.x[2], "k", "a string is every row's value")

-- a column's errors name it ----------------------------------------------------
t.is(err_of(function() return df.b:sum() end), "sum: column 'b' holds string values ('x'), not numbers",
  "col:sum() over text names the column")
t.is(err_of(function() return df["b"]:mean() end), "mean: column 'b' holds string values ('x'), not numbers",
  "col:mean() names the column")
t.is(err_of(function() return df:column("b"):quantile(0.9) end),
  "quantile: column 'b' holds string values ('x'), not numbers", "col:quantile(q) names the column")
t.is(err_of(function() return Frame.new({ "m" }, { { m = 1 }, { m = "z" } }).m:max() end),
  "max: column 'm' mixes number and string values", "col:max() names the column")

-- describe's percentiles ---------------------------------------------------------
do
  local d = Frame.new({ "v" }, { { v = 1 }, { v = 2 }, { v = 3 }, { v = 10 } }):describe { percentiles = { 0.99, 0.9 } }
  local stats = {}
  for i = 1, #d do stats[i] = d[i].stat end
  t.is(table.concat(stats, " "), "count mean std min 50% 90% 99% max",
    "describe{percentiles = {0.99, 0.9}}: 50% added, sorted (pandas)")
  t.is(d[5].v, 2.5, "... 50% is the median")
  t.near(d[6].v, 7.9, 1e-12, "... 90%")
  t.is(err_of(function() return df:describe { percentiles = { 0.5, 0.5 } } end),
    "Frame:describe: percentiles[2] (0.5) given twice", "a duplicate percentile raises (pandas)")
end

-- errors point at the caller's line ----------------------------------------------
local src = debug.getinfo(1, "S").short_src
-- the "chunk:line" an error of fn gives, and the line fn made it on
local function where_of(fn)
  local line
  local ok, e = pcall(fn, function() line = debug.getinfo(2, "l").currentline end)
  return not ok and tostring(e):match("^(.-:%d+): ") or tostring(e), src .. ":" .. tostring(line)
end
local positions = {
  { "agg: unknown column", function(mark) mark(); local r = g:agg { { "x", "nope", "sum" } }; return r end },
  { "agg: unknown aggregator", function(mark) mark(); local r = g:agg { { "x", "a", "nope" } }; return r end },
  { "agg: unknown aggregator (dict)", function(mark) mark(); local r = g:agg { a = "nope" }; return r end },
  { "col:sum() over text", function(mark) mark(); local r = df.b:sum(); return r end },
  { "value_counts: unknown column", function(mark) mark(); local r = df:value_counts("nope"); return r end },
  { "head(3, 4)", function(mark) mark(); local r = df:head(3, 4); return r end },
  { "mutate: wrong length", function(mark) mark(); local r = df:mutate { x = { 1 } }; return r end },
  { "g:sum() over text", function(mark)
      mark(); local r = Frame.new({ "k", "v" }, { { k = 1, v = "s" } }):group_by("k"):agg { v = "sum" }; return r end },
}
for _, c in ipairs(positions) do
  local got, want = where_of(c[2])
  t.is(got, want, c[1] .. ": the error points at the caller's line")
end

-- pandas' names -------------------------------------------------------------------------
t.is(err_of(function() return df.groupby end),
  "Frame has no column or method 'groupby'; pandas' groupby is df:group_by(...) in etinspect (columns: a, b)",
  "df.groupby suggests group_by")
t.ok((err_of(function() return df.sort_values end) or ""):find("pandas' sort_values is df:sort(...)", 1, true),
  "df.sort_values suggests sort")
t.ok((err_of(function() return df.shape end) or ""):find("pandas' shape is #df, #df.columns", 1, true),
  "df.shape suggests #df, #df.columns")
t.is(err_of(function() return df.nope end), "Frame has no column or method 'nope' (columns: a, b)",
  "a name pandas does not have: no suggestion")

-- to_json escapes as --json does (src/core/base/strbuf.c) ---------------------------------
do
  local name = "op\255x" -- not UTF-8
  local f = Frame.new({ "n\192\128", "v" }, { { ["n\192\128"] = name, v = "\237\160\128|\127|\1|\u{e9}|\u{1F600}" } })
  local j = f:to_json()
  t.is(j, '[{"n\\ufffd\\ufffd": "op\\ufffdx", "v": "\\ufffd\\ufffd\\ufffd|\127|\\u0001|\u{e9}|\u{1F600}"}]\n',
    "to_json: each byte that starts no valid UTF-8 is \\ufffd, as in --json; valid text is kept")
  t.ok(utf8.len(j) ~= nil, "to_json's text is valid UTF-8")
  t.is(f:to_json():sub(-3), "}]\n", "to_json: the document ends")
end

-- a missing statistic is NaN --------------------------------------------------------------
local dbg = t.corpus .. "/debug.etdp"
if not t.exists(dbg) then
  t.skip("shared corpus not found at " .. t.corpus)
else
  etinspect.on_warning(function() end)
  local insp = etinspect.Inspector { etdump_path = dbg }
  local d = insp:to_dataframe { include_units = false }
  local ok, e = pcall(function() return d:filter(function(r) return r.p50 > 0.001 end) end)
  t.ok(ok, "debug.etdp: filter(r.p50 > 0.001) on to_dataframe runs (" .. tostring(e) .. ")")
  t.is(ok and #e, 6, "... 6 rows")
  local nans, nils = 0, 0
  for _, r in d:rows() do
    for _, c in ipairs { "p10", "p50", "p90", "avg", "min", "max" } do
      if r[c] == nil then nils = nils + 1 elseif r[c] ~= r[c] then nans = nans + 1 end
    end
  end
  t.is(nils, 0, "debug.etdp: no statistic is nil")
  t.is(nans, 30, "debug.etdp: the 5 events without perf data have NaN statistics")
  local du = insp:to_dataframe()
  local p = du["p50 (ms)"]
  t.ok(p[37] ~= p[37], "with units: NaN too")
  local blk = insp.event_blocks[#insp.event_blocks]
  local bf = blk:to_dataframe()
  local bn = 0
  for _, r in bf:rows() do if r.p50 ~= r.p50 then bn = bn + 1 end end
  t.ok(bn > 0, "EventBlock:to_dataframe: NaN too (" .. bn .. ")")
  local ev
  for _, b in ipairs(insp.event_blocks) do
    for _, x in ipairs(b.events) do if not x.perf_data then ev = ev or x end end
  end
  t.ok(ev and ev:to_dataframe()[1].p50 ~= ev:to_dataframe()[1].p50, "Event:to_dataframe: NaN")
  t.is(ev and ev:asdict().p50, nil, "Event:asdict keeps None (nil), as the reference")
end

t.done()
