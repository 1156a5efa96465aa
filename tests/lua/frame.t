#!/usr/bin/env etinspect
-- frame.t - the Frame's verbs give pandas' numbers (tests/lua/frame_cases.lua,
-- written by gen_frame_cases.py with pandas 1.5.3 from the corpus's ref/
-- outputs), their errors name what is wrong, and the display options cut
-- rows, cells and columns as pandas does.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Frame = etinspect.Frame

if not t.exists(t.corpus .. "/medium.etdp") then t.skip_all("shared corpus not found at " .. t.corpus) end
local cases = require "frame_cases"

local function same(a, b)
  if a ~= a and b ~= b then return true end
  return a == b
end

-- compare two sequences of values (exact; NaN equals NaN)
local function seq_is(got, want, desc)
  local ok, why = #got == #want, nil
  if not ok then why = string.format("length %d, want %d", #got, #want) end
  for i = 1, math.max(#got, #want) do
    if ok and not same(got[i], want[i]) then
      ok, why = false, string.format("[%d] = %s, want %s", i, tostring(got[i]), tostring(want[i]))
    end
  end
  if not t.ok(ok, desc) then t.diag(why) end
end

local STATS = { "p10 (ms)", "p50 (ms)", "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)" }

for _, dump in ipairs { "medium", "small" } do
  local want = cases[dump]
  local insp = etinspect.Inspector { etdump_path = t.corpus .. "/" .. dump .. ".etdp" }
  local df = insp:to_dataframe():select(want.columns)
  local P = dump .. ": "
  t.is(#df, want.rows, P .. "rows")

  -- group_by on two columns, every aggregator ------------------------------
  local spec = {}
  for _, a in ipairs(want.group2_aggs) do spec[#spec + 1] = { a, "avg (ms)", a } end
  local g = df:group_by("event_block_name", "is_delegated_op"):agg(spec)
  t.is(#g, #want.group2, P .. "group_by(two columns): one row per group")
  local ok = true
  for i, row in ipairs(want.group2) do
    local r = g[i]
    if not (r and r.event_block_name == row[1] and r.is_delegated_op == row[2]) then ok = false end
    for k, a in ipairs(want.group2_aggs) do
      if not (r and same(r[a], row[k + 2])) then
        ok = false
        t.diag(string.format("%s group %d %s: %s, pandas %s", dump, i, a, tostring(r and r[a]), tostring(row[k + 2])))
      end
    end
  end
  t.ok(ok, P .. "count/sum/mean/median/std/var/min/max/first/last/quantile(0.9) equal pandas', groups sorted")
  local gs = df:group_by { "event_block_name", "is_delegated_op" }
  t.is(gs:agg(spec)[1]["std"], g[1]["std"], P .. "group_by{sequence} is group_by(varargs)")
  t.ok(tostring(gs):find("GroupBy%(event_block_name, is_delegated_op%): " .. #want.group2 .. " groups") ~= nil,
    P .. "a GroupBy prints its keys and groups")

  -- dict form, named form, whole-frame aggregation ------------------------
  local d = df:group_by("event_name"):agg { ["avg (ms)"] = { "sum", "max" }, ["p50 (ms)"] = "median" }
  t.is(table.concat(d.columns, "|"), "event_name|p50 (ms)|avg (ms)_sum|avg (ms)_max",
    P .. "dict form: outputs in the frame's column order, lists flattened as col_agg")
  ok = #d == #want.dict_form
  for i, row in ipairs(want.dict_form) do
    local r = d[i]
    if not (r and r.event_name == row[1] and same(r["avg (ms)_sum"], row[2]) and same(r["avg (ms)_max"], row[3])
            and same(r["p50 (ms)"], row[4])) then ok = false end
  end
  t.ok(ok, P .. "dict form {col = {\"sum\", \"max\"}, col2 = \"median\"} equals pandas'")
  local n = df:group_by("is_delegated_op"):agg {
    total = { "avg (ms)", "sum" }, n = { "event_name", "count" }, p90 = { "p90 (ms)", "quantile(0.9)" },
    spread = { column = "max (ms)", aggfunc = "std" } }
  ok = #n == #want.named_form
  for i, row in ipairs(want.named_form) do
    local r = n[i]
    if not (r and r.is_delegated_op == row[1] and same(r.total, row[2]) and r.n == row[3] and same(r.p90, row[4])
            and same(r.spread, row[5])) then ok = false end
  end
  t.ok(ok, P .. "named form {out = {col, agg}} and {out = {column=, aggfunc=}} equal pandas'")
  local m = df:group_by("event_block_name"):mean()
  local mcols = {}
  for i = 2, #m.columns do mcols[#mcols + 1] = m.columns[i] end
  t.is(table.concat(mcols, "|"), table.concat(want.group_mean_cols, "|"), P .. "g:mean(): the numeric columns (booleans too)")
  ok = #m == #want.group_mean
  for i, row in ipairs(want.group_mean) do
    for k, c in ipairs(want.group_mean_cols) do
      if not same(m[i][c], row[k + 1]) then ok = false end
    end
  end
  t.ok(ok, P .. "g:mean() equals pandas' mean(numeric_only=True)")

  -- sort, head, tail --------------------------------------------------------
  local ix = df:mutate { i = function(_, i) return i - 1 end }
  seq_is(ix:sort({ "is_delegated_op", "avg (ms)" }, { ascending = { false, true } }).i, want.sort2,
    P .. "sort on two columns, per-column direction (opts.ascending)")
  seq_is(ix:sort { "event_name", { "p50 (ms)", desc = true } }.i, want.sort_name_p50,
    P .. "sort{name, {name, desc = true}}")
  seq_is(ix:head(7).i, want.head7, P .. "head(7)")
  seq_is(ix:tail(4).i, want.tail4, P .. "tail(4)")
  seq_is(ix:head(-(#df - 3)).i, want.head_neg, P .. "head(-n): all but the last n")
  seq_is(ix:tail(-(#df - 2)).i, want.tail_neg, P .. "tail(-n): all but the first n")

  -- unique, value_counts, describe -----------------------------------------
  seq_is(df:unique("event_name"), want.unique, P .. "unique: first-seen order")
  local vc = df:value_counts("event_name")
  local names, counts, wn, wc = {}, {}, {}, {}
  for i, r in vc:rows() do names[i], counts[i] = r.event_name, r.count end
  for i, r in ipairs(want.value_counts) do wn[i], wc[i] = r[1], r[2] end
  seq_is(names, wn, P .. "value_counts: most frequent first, ties in first-seen order")
  seq_is(counts, wc, P .. "value_counts: the counts")
  local vc2 = df:value_counts({ "event_block_name", "is_delegated_op" }, { normalize = true })
  local got2, want2 = {}, {}
  for _, r in vc2:rows() do got2[#got2 + 1] = r.event_block_name .. tostring(r.is_delegated_op) .. "=" .. r.proportion end
  for _, r in ipairs(want.value_counts2) do want2[#want2 + 1] = r[1] .. tostring(r[2]) .. "=" .. r[3] end
  table.sort(got2)
  table.sort(want2)
  seq_is(got2, want2, P .. "value_counts(two columns, normalize): pandas' proportions")
  local dsc = df:select(STATS):describe()
  seq_is(dsc.stat, want.describe_index, P .. "describe: pandas' rows")
  ok = true
  for _, c in ipairs(STATS) do
    for i, v in ipairs(want.describe[c]) do
      if not same(dsc[i][c], v) then
        ok = false
        t.diag(string.format("%s describe %s %s: %s, pandas %s", dump, c, want.describe_index[i], tostring(dsc[i][c]), tostring(v)))
      end
    end
  end
  t.ok(ok, P .. "describe: count, mean, std, min, 25%, 50%, 75%, max equal pandas'")

  -- mutate, rename -----------------------------------------------------------
  local mu = df:mutate { x = function(r) return r["avg (ms)"] * 1000 / r["max (ms)"] end }
  seq_is(mu:head(6).x, want.mutate, P .. "mutate: a computed column")
  t.is(mu.columns[#mu.columns], "x", P .. "mutate: the new column comes last")
  local rn = df:rename { ["avg (ms)"] = "avg" }
  t.is(rn.columns[6], "avg", P .. "rename keeps the column's place")
  t.is(rn[3].avg, df[3]["avg (ms)"], P .. "rename keeps the values")

  -- join ---------------------------------------------------------------------
  local right = df:group_by("event_name"):agg { n = { "event_name", "count" }, best = { "min (ms)", "min" } }
  local j = df:join(right, "event_name")
  t.is(#j, want.join_inner_rows, P .. "inner join: rows")
  t.is(table.concat(j.columns, "|"), table.concat(want.join_inner_cols, "|"), P .. "inner join: columns")
  ok = true
  for i, row in ipairs(want.join_inner_head) do
    if not (j[i].event_name == row[1] and j[i].n == row[2] and same(j[i].best, row[3])) then ok = false end
  end
  t.ok(ok, P .. "inner join: grouped by key in the left's first-seen order, the right's columns")
  local part = df:group_by("event_name"):agg { ["avg (ms)"] = "mean" }
    :filter(function(r) return r.event_name:find("^native") ~= nil end)
  local jl = df:join(part, "event_name", { how = "left", suffixes = { "_a", "_b" } })
  t.is(table.concat(jl.columns, "|"), table.concat(want.join_left_cols, "|"), P .. "left join: pandas' suffixes on a shared column")
  t.is(#jl, want.join_left_rows, P .. "left join: every left row")
  seq_is(jl:head(12)["avg (ms)_b"], want.join_left_b, P .. "left join: NaN where the right has no match")
  local jr = df:join(part, "event_name", { how = "right" })
  t.is(#jr, want.join_right_rows, P .. "right join: rows")
  seq_is(jr:head(5).event_name, want.join_right_head, P .. "right join: the right's order")
  t.is(#df:join(part, "event_name", { how = "outer" }), want.join_outer_rows, P .. "outer join: rows")

  -- column access -------------------------------------------------------------
  t.is(df["avg (ms)"]:sum(), want.column_sum, P .. "df[\"avg (ms)\"]:sum(): pandas' Series.sum")
  t.is(df["p50 (ms)"]:median(), want.column_median, P .. "col:median(): pandas' Series.median")
  t.is(#df.event_name, want.rows, P .. "df.event_name: a sequence of every row")
end

-- errors name what is wrong -----------------------------------------------------
local insp = etinspect.Inspector { etdump_path = t.corpus .. "/small.etdp" }
local df = insp:to_dataframe()
local cols = "%(columns: event_block_name, event_name, block_index, raw, p10 %(ms%)"
t.raises(function() return df.nope end, "Frame has no column or method 'nope' " .. cols, "df.nope names the columns")
t.raises(function() df:sort("nope") end, "Frame:sort: no column 'nope' " .. cols, "sort on an unknown column")
t.raises(function() df:group_by("event_name", "nope") end, "Frame:group_by: no column 'nope'", "group_by: the second column is checked")
t.raises(function() df:group_by("event_name"):agg { nope = "sum" } end, "GroupBy:agg: no column 'nope'", "agg on an unknown column")
t.raises(function() df:group_by("is_delegated_op"):agg { event_name = "mean" } end,
  "mean: column 'event_name' holds string values %('native_call_permute_copy.out'%), not numbers",
  "mean of a text column names it")
t.raises(function() df:group_by("is_delegated_op"):agg { ["avg (ms)"] = "avg" } end,
  "unknown aggregator 'avg' %(count, sum, mean, median, std, var, min, max, first, last, quantile, quantile%(q%)",
  "an unknown aggregator lists the known ones")
t.raises(function() df:group_by("event_name"):agg { total = { "avg (msx)", "sum" } } end,
  "GroupBy:agg: no column 'avg %(msx%)'", "named form: a misspelt column is named")
t.raises(function() df:select("event_name", "nope") end, "Frame:select: no column 'nope'", "select")
t.raises(function() df:column("nope") end, "Frame:column: no column 'nope'", "column")
t.raises(function() df:rename { nope = "x" } end, "Frame:rename: no column 'nope'", "rename")
t.raises(function() df:join(df, "nope") end, "Frame:join %(left frame%): no column 'nope'", "join")
t.raises(function() df:sort("event_name", { bogus = 1 }) end, "Frame:sort: unknown option 'bogus'", "sort options")
t.raises(function() df:describe { percentile = { 0.5 } } end, "Frame:describe: unknown option 'percentile'", "describe options")
t.raises(function() df.x = 1 end, "Frames are not changed in place", "assignment is refused")
t.raises(function() df:print { styl = "plain" } end, "Frame:print: unknown option 'styl'", "print options")
t.raises(function() df:render("box", { max_rows = "10" }) end, "option 'max_rows' must be an integer, got string", "render limits")
t.raises(function() df:head(2.5) end, "Frame:head: bad argument #1 %(integer expected, got float%)", "head(2.5)")
local nounits = insp:to_dataframe { include_units = false }
t.raises(function() nounits:group_by("event_name"):agg { max = { "min", "sum" } } end,
  "is ambiguous %('min' is a column and an aggregator%)", "an ambiguous dict/named entry is an error")
t.is(nounits:group_by("event_name"):agg { max = { column = "min", aggfunc = "sum" } }.columns[2], "max",
  "... that {column =, aggfunc =} settles")

-- display options ------------------------------------------------------------------
t.is(etinspect.get_option("display.max_rows"), 60, "display.max_rows defaults to 60")
t.is(etinspect.get_option("display.max_colwidth"), 50, "display.max_colwidth defaults to 50")
t.is(etinspect.get_option("display.width"), nil, "display.width defaults to nil (unknown: 80)")
t.raises(function() etinspect.set_option("display.max_row", 5) end,
  "set_option: unknown option 'display.max_row' %(options: display.max_colwidth, display.max_rows, display.min_rows, display.width%)",
  "an unknown option is named, with the known ones")
t.raises(function() etinspect.set_option("display.max_rows", "5") end,
  "set_option: option 'display.max_rows' must be a non%-negative integer or nil, got string", "a wrong type is named")
t.raises(function() etinspect.set_option("display.max_rows", -1) end, "must be a non%-negative integer", "a negative limit")

local medium = etinspect.Inspector { etdump_path = t.corpus .. "/medium.etdp" }:to_dataframe()
local shown = tostring(medium)
local lines, widest = 0, 0
for line in (shown .. "\n"):gmatch("[^\n]*\n") do
  lines = lines + 1
  widest = math.max(widest, utf8.len(line) - 1)
end
t.ok(lines <= 30, "tostring(403-row frame): min_rows (10) rows, not 403 (" .. lines .. " lines)")
t.ok(widest <= 80, "... no line wider than 80 (" .. widest .. ")")
t.ok(shown:find("\n\n%[403 rows x 18 columns%]$") ~= nil, "... footer [403 rows x 18 columns] after a blank line")
t.ok(shown:find("│ 398 │", 1, true) and shown:find("│ ... │", 1, true) and shown:find("│   4 │", 1, true),
  "... rows 0-4, '...', 398-402")
t.ok(shown:find("│ ...   │", 1, true) ~= nil, "... a '...' column in place of the middle columns")
etinspect.set_option("display.width", 0) -- no width limit: the list columns, cut first to fit a width, stay
local wide = medium:render("box", {})
t.ok(wide:find("[0.291084, 0.291192, 0.294397, 0.289242, 0.2938...", 1, true) ~= nil,
  "a raw list is cut to max_colwidth (50) characters ending in '...'")
etinspect.set_option("display.max_colwidth", 20)
t.ok(medium:render("box", {}):find("│ [0.291084, 0.2911... │", 1, true) ~= nil, "set_option('display.max_colwidth', 20)")
t.ok(medium:render("box", { max_colwidth = 0, width = 0 }):find("0.2938%d") ~= nil, "render's max_colwidth = 0: cells whole")
etinspect.reset_option("all")
t.is(etinspect.get_option("display.max_colwidth"), 50, "reset_option('all')")
etinspect.set_option("display.max_rows", 3)
local three = 0
for _ in medium:select { "event_name" }:render("box", {}):gmatch("\n│") do three = three + 1 end
t.is(three, 1 + 3, "max_rows 3: a header row, one row, '...', one row")
etinspect.reset_option("display.max_rows")
t.is(#medium:render("box"), #medium:to_string(), "render(style) without limits is to_string(): everything")
t.is(select(2, medium:to_string():gsub("\n│ *%d+ │", "")), 403, "to_string: every row")
t.is(medium:render("tsv"), medium:to_tsv(), "TSV is never cut")
local small = df:select { "event_name", "avg (ms)" }:head(3)
t.is(small:render("plain", {}), small:render("plain"), "a small frame is shown whole")
local buf = io.tmpfile()
medium:print { file = buf, max_rows = 4, width = 0 }
buf:seek("set")
local printed = buf:read("a")
t.ok(printed:find("[403 rows x 18 columns]", 1, true) and not printed:find("│ ...   │", 1, true),
  "print{max_rows = 4, width = 0}: rows cut, columns whole")
local plain = medium:render("plain", { width = 60 })
local pw = 0
for line in plain:gmatch("[^\n]+") do pw = math.max(pw, utf8.len(line)) end
t.ok(pw <= 60 and plain:find("...", 1, true), "plain style fitted to width 60")
t.is(medium:render("markdown", { max_rows = 2 }), medium:render("markdown"), "markdown (a document format) is never cut")

t.done()
