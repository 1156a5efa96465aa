#!/usr/bin/env etinspect
-- frame_edge.t - the Frame's verbs at the edges, against pandas 1.5's
-- answers (tests/lua/frame_cases.lua, "generated", written by
-- gen_frame_cases.py): NaN and missing values, an empty frame, one row,
-- strings with NUL and invalid UTF-8, duplicate join keys and a missing
-- key on both sides of a join.  Each frame has the columns i (the row's
-- number, to follow rows through a verb), k (text, may be missing), x
-- (numbers, may be NaN) and y (integers).  A missing number is NaN and a
-- missing text cell nil, as pandas' NaN in a float and an object column.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Frame = etinspect.Frame
local cases = require("frame_cases").generated

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

-- equal as pandas' cells: NaN equals NaN (a number), nil equals nil only
local function same(got, want)
  if want == nil then return got == nil end
  if want ~= want then return type(got) == "number" and got ~= got end
  return got == want
end

-- the frame made from a case's {columns, rows} (rows: positional cells)
local function frame_of(tab)
  local rows = {}
  for r, cells in ipairs(tab.rows) do
    local row = {}
    for c, name in ipairs(tab.columns) do row[name] = cells[c] end
    rows[r] = row
  end
  return Frame.new(tab.columns, rows)
end

local check = t.ok

-- a frame against pandas' {columns, rows}, cell by cell
local function frame_is(got, want, desc)
  local why
  local cols = got.columns
  if table.concat(cols, "|") ~= table.concat(want.columns, "|") then
    why = "columns " .. table.concat(cols, "|") .. ", want " .. table.concat(want.columns, "|")
  elseif #got ~= #want.rows then
    why = string.format("%d rows, want %d", #got, #want.rows)
  else
    for r, cells in ipairs(want.rows) do
      local row = got[r]
      for c, name in ipairs(want.columns) do
        if not why and not same(row[name], cells[c]) then
          why = string.format("row %d column %s: %s, want %s", r, name, show(row[name]), show(cells[c]))
        end
      end
    end
  end
  if not check(not why, desc) then t.diag(why) end
end

-- a sequence of n values against want (NaN equals NaN, nil nil)
local function seq_is(got, want, n, desc)
  local why
  if #got ~= n then why = string.format("length %d, want %d", #got, n) end
  for i = 1, n do
    if not why and not same(got[i], want[i]) then
      why = string.format("[%d] = %s, want %s", i, show(got[i]), show(want[i]))
    end
  end
  if not check(not why, desc) then t.diag(why) end
end

-- the i column of a frame (the rows' numbers, in order)
local function ids(f)
  local out = {}
  for r = 1, #f do out[r] = f[r].i end
  return out
end

local order = { "nan", "empty", "one", "bytes", "dupkeys" }
for _, name in ipairs(order) do
  local want = cases[name]
  local P = name .. ": "
  local F = frame_of(want.frame)
  local R = frame_of(want.right)
  t.is(#F, #want.frame.rows, P .. "rows")

  -- group_by + every aggregator, in pandas' order (keys sorted, missing keys left out)
  local spec = {}
  for i, a in ipairs(want.aggs) do spec[i] = { a, "x", a } end
  frame_is(F:group_by("k"):agg(spec), want.group, P .. "group_by(k):agg(every aggregator)")
  frame_is(F:group_by({ "k" }, { sort = false, dropna = false }):agg { { "count", "x", "count" }, { "sum", "x", "sum" } },
    want.group_nodrop_unsorted, P .. "group_by{sort = false, dropna = false}: first-seen order, a missing key is a group")
  frame_is(F:group_by("k"):size(), want.size, P .. "group_by(k):size()")

  -- sort: stable, missing last (or first)
  local nrows = #want.frame.rows
  seq_is(ids(F:sort("x")), want.sort_x, nrows, P .. "sort(x): NaN last")
  seq_is(ids(F:sort("x", true)), want.sort_x_desc, nrows, P .. "sort(x, descending): NaN last")
  seq_is(ids(F:sort("k")), want.sort_k, nrows, P .. "sort(k): by bytes, missing last")
  seq_is(ids(F:sort("k", true)), want.sort_k_desc, nrows, P .. "sort(k, descending)")
  seq_is(ids(F:sort { "k", { "x", desc = true } }), want.sort_k_x, nrows, P .. "sort{k, {x, desc}}")
  seq_is(ids(F:sort({ "x" }, { na_position = "first" })), want.sort_x_nafirst, nrows,
    P .. "sort(x, na_position = first)")

  -- head, tail, filter
  seq_is(ids(F:head(3)), want.head3, #want.head3, P .. "head(3)")
  seq_is(ids(F:tail(2)), want.tail2, #want.tail2, P .. "tail(2)")
  seq_is(ids(F:filter(function(r) return r.x > 0.75 end)), want.filter, #want.filter,
    P .. "filter(x > 0.75): NaN compares false")

  -- unique, value_counts, describe, mutate
  seq_is(F:unique("k"), want.unique.values, want.unique.n, P .. "unique(k): first-seen order, the missing value kept")
  local vc = F:value_counts("k")
  local keys, counts, wk, wc = {}, {}, {}, {}
  for r = 1, #vc do keys[r], counts[r] = vc[r].k, vc[r].count end
  for r, kv in ipairs(want.value_counts) do wk[r], wc[r] = kv[1], kv[2] end
  seq_is(keys, wk, #wk, P .. "value_counts(k): most frequent first, ties first-seen, missing left out")
  seq_is(counts, wc, #wc, P .. "value_counts(k): the counts")
  local okd, d = pcall(function() return F:select { "x", "y" }:describe() end)
  if not okd then
    check(false, P .. "describe")
    t.diag(d)
  else
    seq_is(d.stat, want.describe_index, #want.describe_index, P .. "describe: pandas' rows")
    for _, c in ipairs { "x", "y" } do
      local got = {}
      for r = 1, #d do got[r] = d[r][c] end
      seq_is(got, want.describe[c], #want.describe_index, P .. "describe: column " .. c)
    end
  end
  local mu = F:mutate { m = function(r) return r.x * 2 + r.y end }
  local m = {}
  for r = 1, #mu do m[r] = mu[r].m end
  seq_is(m, want.mutate, nrows, P .. "mutate{m = x * 2 + y}")

  -- joins on k: duplicate keys multiply, a missing key matches a missing key
  for _, how in ipairs { "inner", "left", "right", "outer" } do
    frame_is(F:join(R, "k", { how = how }):select { "i", "k", "z" }, want["join_" .. how],
      P .. how .. " join on k")
  end

  -- concat, when the Frame has it
  local has_concat = pcall(function() return Frame.concat end) and Frame.concat
  if has_concat then
    local c = Frame.concat { F, F:head(2) }
    seq_is(ids(c), want.concat, #want.concat, P .. "Frame.concat{F, F:head(2)}")
  end
end

t.done()
