-- frame_driver.lua - the Frame against its oracle (issue 24): random
-- frames and random sequences of verbs, run on etinspect's Frame (the
-- columnar engine) and on tests/lua/frame_oracle.lua (the Lua Frame of
-- before the engine); after every step the two results must be the same
-- frame, compared cell by cell (see `same_frame`), and a verb that raises
-- on one must raise on the other.  Choices come from a source: the bytes
-- of a libFuzzer input (tests/fuzz/fuzz_frame.c) or a seeded generator
-- (tests/lua/frame_oracle.t).
--
--   local D = require "frame_driver"      (package.path: tests/fuzz and tests/lua)
--   D.run(source, {steps = N, stats = S}) -> nil, or raises "frame_driver: MISMATCH ..."
--     S (optional): {steps = 0, raised = 0, errors = {}} counts the verbs run,
--     those that raised on both sides, and each error message's count
--   D.prng(seed) / D.bytes(string)        sources (as api_driver's)
--
-- Cells are compared as pandas shows them: a missing cell (nil or NaN) equals
-- a missing cell, numbers by value (an integer 2 equals 2.0: a typed column
-- may hold the float), text byte for byte, booleans as booleans.  Error
-- messages are not compared (the engine names its errors better).
local etinspect = require "etinspect"
local Oracle = require "frame_oracle"
local Frame = etinspect.Frame

local M = {}

--- A deterministic generator (xorshift64*) of choices.
function M.prng(seed)
  local x = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) | 1
  return {
    int = function(_, n)
      x = x ~ (x >> 12); x = x ~ (x << 25); x = x ~ (x >> 27)
      return ((x * 0x2545F4914F6CDD1D) >> 33) % n + 1
    end,
  }
end

--- Choices read from a string of bytes; nil once used up.
function M.bytes(s)
  local pos = 0
  return {
    int = function(_, n)
      if pos >= #s then return nil end
      pos = pos + 1
      return s:byte(pos) % n + 1
    end,
  }
end

-- ---- values -------------------------------------------------------------------------------

local TEXT = { "a", "b", "c", "a\0b", "\255\254", "\195\169", "", "a\0", "zz" }
local NUMS = { 0, 1, 2, -1, 0.5, 2.5, -0.0, 1e300, 3, 0 / 0 }

local function missing(v) return v == nil or v ~= v end

local function same_cell(a, b)
  if missing(a) or missing(b) then return missing(a) and missing(b) end
  if type(a) ~= type(b) then return false end
  return a == b
end

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

--- nil when frames a and b are the same (columns in order, rows, cells),
-- else a sentence saying where they differ.
local function same_frame(a, b)
  local ca, cb = a.columns, b.columns
  if #ca ~= #cb then return ("%d columns, the oracle %d"):format(#ca, #cb) end
  for j = 1, #ca do
    if ca[j] ~= cb[j] then return ("column %d is %s, the oracle's %s"):format(j, show(ca[j]), show(cb[j])) end
  end
  if #a ~= #b then return ("%d rows, the oracle %d"):format(#a, #b) end
  for i = 1, #a do
    local ra, rb = a[i], b[i]
    for _, c in ipairs(ca) do
      if not same_cell(ra[c], rb[c]) then
        return ("row %d column %s: %s, the oracle %s"):format(i, show(c), show(ra[c]), show(rb[c]))
      end
    end
  end
end
M.same_frame = same_frame

local function same_seq(a, b, n)
  for i = 1, n do
    if not same_cell(a[i], b[i]) then return ("[%d] %s, the oracle %s"):format(i, show(a[i]), show(b[i])) end
  end
end

-- ---- the run -------------------------------------------------------------------------------

function M.run(src, opts)
  local steps = opts and opts.steps or 20
  local exhausted = false
  local function pick(n)
    local v = src:int(n)
    if v == nil then exhausted = true; return 1 end
    return v
  end
  local function one(list) return list[pick(#list)] end

  -- a frame: i (row number), k (text, may be missing), x (numbers, NaN), y (integers, may be missing)
  local function rows_of(n, keys)
    local rows = {}
    for r = 1, n do
      local k = pick(8) > 1 and one(keys) or nil
      local y = pick(6) > 1 and (pick(7) - 3) or nil
      rows[r] = { i = r - 1, k = k, x = one(NUMS), y = y }
    end
    return rows
  end
  local n = pick(12) - 1
  local rows = rows_of(n, TEXT)
  local cols = { "i", "k", "x", "y" }
  local cur, ora = Frame.new(cols, rows), Oracle.new(cols, rows)
  local right_rows = {}
  for r = 1, pick(6) - 1 do
    right_rows[r] = { k = pick(6) > 1 and one(TEXT) or nil, z = pick(100) }
  end
  local right, oright = Frame.new({ "k", "z" }, right_rows), Oracle.new({ "k", "z" }, right_rows)

  local log = {}
  -- run fn on both frames; results compared by `cmp` (default: as frames)
  local function step(label, fn, cmp)
    log[#log + 1] = label
    local ok1, r1 = pcall(fn, cur, right)
    local ok2, r2 = pcall(fn, ora, oright)
    if ok1 ~= ok2 then
      error(("frame_driver: MISMATCH after %s: the engine %s, the oracle %s"):format(
        table.concat(log, " -> "), ok1 and "returned" or ("raised " .. tostring(r1)),
        ok2 and "returned" or ("raised " .. tostring(r2))), 0)
    end
    local st = opts and opts.stats
    if st then
      st.steps = st.steps + 1
      if not ok1 then
        st.raised = st.raised + 1
        local msg = tostring(r1):gsub("^[^\n]-:%d+: ", "", 1)
        st.errors[msg] = (st.errors[msg] or 0) + 1
      end
    end
    if not ok1 then return nil end
    local why = (cmp or same_frame)(r1, r2)
    if why then
      error(("frame_driver: MISMATCH after %s: %s"):format(table.concat(log, " -> "), why), 0)
    end
    return r1, r2
  end

  local AGGS = { "count", "sum", "mean", "median", "std", "var", "min", "max", "first", "last",
                 "quantile", "quantile(0.25)" }
  local KEYS = { "k", "y", "x", "i" }
  for _ = 1, steps do
    if exhausted then break end
    local verb = pick(14)
    local a, b
    if verb == 1 then
      local t = one(NUMS)
      a, b = step("filter(x > " .. show(t) .. ")", function(f) return f:filter(function(r) return r.x > t end) end)
    elseif verb == 2 then
      local key, desc = one(KEYS), pick(2) == 1
      local nf = pick(2) == 1 and "first" or "last"
      a, b = step(("sort(%s, desc=%s, na=%s)"):format(key, desc, nf), function(f)
        return f:sort({ key }, { ascending = not desc, na_position = nf })
      end)
    elseif verb == 3 then
      local k1, k2 = one(KEYS), one(KEYS)
      a, b = step("sort{" .. k1 .. ", {" .. k2 .. ", desc}}", function(f)
        return f:sort { k1, { k2, desc = true } }
      end)
    elseif verb == 4 then
      local h = pick(8) - 3
      a, b = step("head(" .. h .. ")", function(f) return f:head(h) end)
    elseif verb == 5 then
      local h = pick(8) - 3
      a, b = step("tail(" .. h .. ")", function(f) return f:tail(h) end)
    elseif verb == 6 then
      local key, agg = one { "k", "y" }, one(AGGS)
      local sort, dropna = pick(2) == 1, pick(2) == 1
      local col = one { "x", "y", "i" }
      step(("group_by(%s, sort=%s, dropna=%s):agg(%s of %s)"):format(key, sort, dropna, agg, col),
        function(f) return f:group_by({ key }, { sort = sort, dropna = dropna }):agg { { "v", col, agg } } end)
    elseif verb == 7 then
      local key = one { "k", "y" }
      step("group_by(" .. key .. "):size()", function(f) return f:group_by(key):size() end)
    elseif verb == 8 then
      local how = one { "inner", "left", "right", "outer" }
      step("join(right, k, " .. how .. ")", function(f, r) return f:join(r, "k", { how = how }) end)
    elseif verb == 9 then
      local c = one(KEYS)
      step("unique(" .. c .. ")", function(f) return f:unique(c) end, function(u1, u2)
        if #u1 ~= #u2 then return ("%d values, the oracle %d"):format(#u1, #u2) end
        return same_seq(u1, u2, #u1)
      end)
    elseif verb == 10 then
      local c = one { "k", "y" }
      step("value_counts(" .. c .. ")", function(f) return f:value_counts(c) end)
    elseif verb == 11 then
      step("describe()", function(f) return f:select { "x", "y" }:describe() end)
    elseif verb == 12 then
      a, b = step("mutate{m = x * 2}", function(f)
        return f:mutate { m = function(r) return r.x * 2 end }
      end)
    elseif verb == 13 then
      local keep = one { { "i", "k" }, { "x", "i" }, { "k", "x", "y", "i" } }
      a, b = step("select{" .. table.concat(keep, ",") .. "}", function(f)
        return f:select(keep):mutate { i = function(r, i) return r.i or i end }
      end)
      -- select keeps i for the next steps (mutate fills it back when dropped)
    else
      a, b = step("rename{x = w}:rename{w = x}", function(f)
        return f:rename { x = "w" }:rename { w = "x" }
      end)
    end
    -- the verbs that give a frame of the same columns continue from it
    if a and b then
      local ok = true
      for _, c in ipairs(cols) do
        local found = false
        for _, d in ipairs(a.columns) do if d == c then found = true end end
        ok = ok and found
      end
      if ok then cur, ora = a, b end
    end
  end
end

return M
