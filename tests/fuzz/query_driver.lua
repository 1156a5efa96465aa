-- query_driver.lua - frame:query and Series of hostile lengths against
-- their contracts (issue 24): an input is two choice bytes, then an
-- expression in pandas' query syntax (any bytes).  The expression runs on
-- a small frame (numbers with NaN, integers, missing cells, text with NUL
-- and invalid UTF-8, booleans, a column name with spaces) with a table of
-- @variables (numbers, text, lists, masks and Series of the frame's length
-- and of another, a function, a table with hostile metamethods).  It must
-- give a frame - the frame's columns, a subset of its rows in order - or
-- raise a clean error: a string starting "Frame:query: " that leaks no Lua
-- chunk position and no stack overflow.  Then filter and mutate get a
-- mask and a Series of a length the first byte picks (0, 1, the frame's,
-- one more or less, ...): they must work when it is the frame's length,
-- else raise naming both lengths.  Used by tests/fuzz/fuzz_query.c (the
-- libFuzzer target) and tests/lua/query_fuzz.t (a fixed slice).
--
--   local D = require "query_driver"   (package.path: tests/fuzz)
--   D.run(bytes [, query]) -> nil, or a string saying what broke the contract
--     (a finding); then "frame" or "error", what the query gave.  query
--     (for the driver's own test): a function standing in for Frame:query
--   D.expr(prng_int, n) -> a random expression of n tokens from D.TOKENS
local etinspect = require "etinspect"
local Frame = etinspect.Frame

local M = {}

-- the tokens the expressions are made of (fuzz_query.dict holds the same)
M.TOKENS = {
  "i", "k", "x", "y", "b", "`p50 (ms)`", "`k`", "`no such`", "zz", "@n", "@f", "@s", "@t", "@e", "@m",
  "@m2", "@xs", "@os", "@fn", "@tb", "@nan", "@big", "@neg", "@bool", "@nope", "and", "or", "not",
  "in", "not in", "True", "False", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "//", "%",
  "**", "&", "|", "~", "(", ")", "[", "]", ",", "0", "1", "2", "-1", "0.5", "1e308", "1e-3",
  "9223372036854775807", "9223372036854775808", ".5", "'a'", '"b"', "'a\\0b'", "''", "'\255\254'",
  "`", "@", "'", '"', "\\", "1x", "((", "))", " ",
}

-- the frame's n rows: i (row number), k (text, may be missing), x (numbers,
-- NaN), y (integers, may be missing), b (booleans), p50 (ms) (numbers)
local TEXT = { "a", "b", "a\0b", "\255\254", "\195\169", "", "zz" }
local NUMS = { 0, 1, 2, -1, 0.5, 2.5, -0.0, 1e300, 3, 0 / 0 }
local function frame(n, seed)
  local cells = {}
  local s = seed
  local function pick(m)
    s = (s * 1103515245 + 12345) % 2147483648
    return (s >> 16) % m + 1
  end
  for r = 1, n do
    cells[r] = {
      i = r - 1,
      k = pick(6) > 1 and TEXT[pick(#TEXT)] or nil,
      x = NUMS[pick(#NUMS)],
      y = pick(5) > 1 and (pick(9) - 5) or nil,
      b = pick(2) == 1,
      ["p50 (ms)"] = NUMS[pick(#NUMS)],
    }
  end
  return Frame.new({ "i", "k", "x", "y", "b", "p50 (ms)" }, cells)
end

-- a Series of n numbers, from a frame of its own, and its mask
local function series_of(n)
  local v = {}
  for j = 1, n do v[j] = (j % 3) - 1 + 0.5 end
  local s = Frame.from_columns({ v = v }).v
  return s, s:gt(0)
end

-- the message with the quoted expression taken out (query.lua's `shown`)
local function unquoted(msg, src)
  local shown = #src > 120 and string.format("%q...", src:sub(1, 120)) or string.format("%q", src)
  local a, b = msg:find(shown, 1, true)
  if a then return msg:sub(1, a - 1) .. msg:sub(b + 1) end
  return msg
end

-- nil when `msg` is a clean error of `where`, else why not
local function clean(msg, where, src)
  if type(msg) ~= "string" then return "an error that is not a string: " .. tostring(msg) end
  if msg:sub(1, #where + 2) ~= where .. ": " then return "an error not naming " .. where .. ": " .. msg end
  local m = src and unquoted(msg, src) or msg
  if m:find("stack overflow", 1, true) then return "a stack overflow: " .. msg end
  if m:find("etinspect%.[%w_]+:%d+") or m:find("%.lua:%d+") or m:find("%[C%]") then
    return "an error with a Lua position: " .. msg
  end
end

local function names(n, m, msg)
  return msg:find("%f[%d]" .. n .. "%f[%D]") and msg:find("%f[%d]" .. m .. "%f[%D]")
end

--- Run one input; nil, or what broke the contract.
function M.run(data, query)
  local b0, b1 = data:byte(1) or 0, data:byte(2) or 0
  local src = data:sub(3)
  local n = b0 % 9
  local df = frame(n, b1)
  local other = (n + 1 + b0 // 9 % 3) -- another length
  local os, m2 = series_of(other)
  local vars = {
    n = 2, f = 0.5, s = "a", t = { 1, "a", 2.5, 0 / 0 }, e = {}, m = df.x:gt(0.5), m2 = m2, xs = df.x,
    os = os, fn = function() return 1 end, nan = 0 / 0, big = math.maxinteger, neg = math.mininteger,
    bool = true,
    tb = setmetatable({}, {
      __add = function() error("tb: add") end, __lt = function() error("tb: lt") end,
      __eq = function() error("tb: eq") end, __len = function() error("tb: len") end,
      __index = function() error("tb: index") end,
    }),
  }

  -- the query: a frame (a subset of the rows, in order) or a clean error
  local ok, r = pcall(query or df.query, df, src, vars)
  if ok then
    if not Frame.is_frame(r) then return "query gave a " .. type(r) .. ", not a Frame" end
    if table.concat(r.columns, "\0") ~= table.concat(df.columns, "\0") then return "query changed the columns" end
    if #r > #df then return ("query gave %d rows of %d"):format(#r, #df) end
    local last = -1
    for j = 1, #r do
      local i = r[j].i
      if math.type(i) ~= "integer" or i <= last or i >= n then return "query's rows are not the frame's, in order" end
      last = i
    end
  else
    local why = clean(r, "Frame:query", src)
    if why then return why end
  end

  -- filter and mutate with a mask and a Series of a hostile length
  local lens = { 0, 1, n, n + 1, math.max(n - 1, 0), 2 * n + 1, 64 }
  local L = lens[b1 % #lens + 1]
  local s, mask = series_of(L)
  for _, case in ipairs {
    { "Frame:filter", function() return df:filter(mask) end },
    { "Frame:mutate", function() return df:mutate { z = s } end },
    { "Frame:mutate", function() return df:mutate { z = mask } end },
  } do
    local okc, res = pcall(case[2])
    if L == n then
      if not okc then return case[1] .. " with a Series of the frame's length raised: " .. tostring(res) end
      if not Frame.is_frame(res) or #res > n then return case[1] .. " gave no frame of at most " .. n .. " rows" end
    else
      if okc then return ("%s took a Series of %d values for %d rows"):format(case[1], L, n) end
      local why = clean(res, case[1])
      if why then return why end
      if not names(L, n, res) then return case[1] .. ": the error names not both lengths: " .. res end
    end
  end
  -- a query result's column (fewer rows) back into the frame
  if ok and #r ~= n then
    local okc, res = pcall(df.mutate, df, { z = r.x })
    if okc then return ("Frame:mutate took a column of %d values for %d rows"):format(#r, n) end
    local why = clean(res, "Frame:mutate")
    if why then return why end
  end
  return nil, ok and "frame" or "error"
end

-- the parts the grammar of M.expr draws from
local COLS = { "i", "x", "y", "`p50 (ms)`", "k", "b", "@xs", "@os", "`no such`" }
local LITS = { "0", "1", "2", "-1", "0.5", "1e308", "'a'", "''", "'a\\0b'", "True", "@n", "@f", "@s", "@nan",
  "@big", "@neg", "@tb", "@fn", "@nope" }
local CMPS = { "==", "!=", "<", "<=", ">", ">=" }
local ARITH = { "+", "-", "*", "/", "//", "%", "**" }

--- A random expression: mostly well formed (comparisons, and/or/not,
-- arithmetic, in lists, parentheses), now and then `count` random tokens
-- spliced in; `int(m)` gives 1..m.
function M.expr(int, count)
  local function one(list) return list[int(#list)] end
  local function operand(d)
    local r = int(6)
    if d > 3 or r <= 2 then return one(COLS) end
    if r == 3 then return one(LITS) end
    if r == 4 then return "-" .. operand(d + 1) end
    return operand(d + 1) .. " " .. one(ARITH) .. " " .. operand(d + 1)
  end
  local function cond(d)
    local r = int(d > 3 and 3 or 9)
    if r <= 2 then return operand(d) .. " " .. one(CMPS) .. " " .. operand(d) end
    if r == 3 then return one { "b", "@m", "@m2", "True", "False", "~b", "@bool" } end
    if r == 4 then return cond(d + 1) .. " " .. one { "and", "or", "&", "|" } .. " " .. cond(d + 1) end
    if r == 5 then return one { "not ", "~" } .. cond(d + 1) end
    if r == 6 then return "(" .. cond(d + 1) .. ")" end
    if r == 7 then
      local items = {}
      for j = 1, int(4) - 1 do items[j] = one(LITS) end
      return one(COLS) .. one { " in ", " not in " } .. "[" .. table.concat(items, ", ") .. "]"
    end
    if r == 8 then return one(COLS) .. one { " in ", " not in " } .. one { "@t", "@e", "@xs", "@s", "@fn" } end
    return operand(d) .. " " .. one(CMPS) .. " " .. operand(d) .. " " .. one(CMPS) .. " " .. operand(d)
  end
  local e = cond(0)
  if int(4) == 1 then -- splice random tokens in
    local words = {}
    for w in e:gmatch("%S+") do words[#words + 1] = w end
    for _ = 1, count do table.insert(words, int(#words + 1), M.TOKENS[int(#M.TOKENS)]) end
    e = table.concat(words, " ")
  end
  return e
end

return M
