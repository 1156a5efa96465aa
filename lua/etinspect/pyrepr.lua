--- etinspect.pyrepr: Lua values rendered as Python renders them.
--
-- The reference Inspector's tables show lists and dicts with Python's str()
-- (`[399054]`, `['aten.convolution.default']`, `{'node': 'trace'}`), floats
-- with repr() (`0.0009305000000000001`) and booleans as True/False. This
-- module reproduces that for Lua values, so frames print as the reference's
-- DataFrames do.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local core = require("etinspect")._core

local M = {}

local function is_nan(x) return x ~= x end

--- Python repr() of a string: single quotes unless the text holds a single
-- quote and no double quote; backslash escapes for \\, the quote, \n, \r,
-- \t and other control bytes.
-- @tparam string s
-- @treturn string
function M.repr_string(s)
  local q = "'"
  if s:find("'", 1, true) and not s:find('"', 1, true) then q = '"' end
  local out = s:gsub("[%c\\" .. q .. "]", function(c)
    if c == "\\" then return "\\\\" end
    if c == q then return "\\" .. q end
    if c == "\n" then return "\\n" end
    if c == "\r" then return "\\r" end
    if c == "\t" then return "\\t" end
    return string.format("\\x%02x", c:byte())
  end)
  return q .. out .. q
end

--- Python repr() of bytes: b'...' with the quote chosen as for str,
-- \\, the quote, \t, \n and \r escaped and every other byte outside
-- 0x20..0x7e as \xNN (so no raw non-UTF-8 byte is ever printed).
-- @tparam string s
-- @treturn string
function M.repr_bytes(s)
  local q = "'"
  if s:find("'", 1, true) and not s:find('"', 1, true) then q = '"' end
  local out = s:gsub("[\0-\31\\\127-\255" .. q .. "]", function(c)
    if c == "\\" or c == q then return "\\" .. c end
    if c == "\n" then return "\\n" end
    if c == "\r" then return "\\r" end
    if c == "\t" then return "\\t" end
    return string.format("\\x%02x", c:byte())
  end)
  return "b" .. q .. out .. q
end

--- Mark the string at `t[key]` as Python bytes: repr() and str() of the
-- table `t` render it as b'...' (repr_bytes), as the reference renders a
-- bytes value its delegate metadata parsers return (the VGF blobs'
-- raw_data, spec §6.7).  The value stays a Lua string.  The mark lives in
-- `t`'s metatable (field __pybytes_keys): the metatable is replaced by a
-- shallow copy holding it, so a metatable shared with other tables is not
-- changed; a protected metatable (__metatable) leaves `t` unmarked.
-- @tparam table t
-- @param key the key whose string value is bytes
-- @treturn table t
function M.mark_bytes(t, key)
  local mt = getmetatable(t)
  if mt ~= nil and type(mt) ~= "table" then return t end -- protected
  local copy = {}
  for k, v in pairs(mt or {}) do copy[k] = v end
  local keys = {}
  for k in pairs(copy.__pybytes_keys or {}) do keys[k] = true end
  keys[key] = true
  copy.__pybytes_keys = keys
  pcall(setmetatable, t, copy)
  return t
end

local BYTES_LIST = { __pybytes = true, __name = "bytes list" }

--- A copy of a sequence of byte strings that renders as the reference's
-- raw delegate metadata list: each non-empty string as bytes
-- (b'{"op": 1}'), an empty one as '' (the reference's "" for a run
-- without metadata).
-- @tparam {string,...} list
-- @treturn table
function M.bytes_list(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = v end
  return setmetatable(out, BYTES_LIST)
end

local function is_sequence(t)
  local n = #t
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

--- Python repr() of a Lua value: nil -> None, booleans -> True/False,
-- integers in decimal, floats as repr() (nan, inf), strings quoted,
-- tuples (metatable __pytuple) as (a, b), sequences as [a, b], other
-- tables -- and tables whose metatable has __pydict, even empty ones -- as
-- {'k': v}: in the order of the metatable's __order (an ordered dict, whose
-- missing values are None), else with keys sorted.
-- @param v any Lua value
-- @treturn string
function M.repr(v)
  local t = type(v)
  if v == nil then return "None" end
  if t == "boolean" then return v and "True" or "False" end
  if t == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    return core.repr(v)
  end
  if t == "string" then return M.repr_string(v) end
  if t == "table" then
    local mt = getmetatable(v)
    if mt and mt.__pybytes then
      local parts = {}
      for i = 1, #v do
        local x = v[i]
        parts[i] = (type(x) == "string" and x ~= "") and M.repr_bytes(x) or M.repr(x)
      end
      return "[" .. table.concat(parts, ", ") .. "]"
    end
    if mt and mt.__pytuple then
      local parts = {}
      for i = 1, #v do parts[i] = M.repr(v[i]) end
      return "(" .. table.concat(parts, ", ") .. (#v == 1 and ",)" or ")")
    end
    if not (mt and mt.__pydict) and is_sequence(v) then
      local parts = {}
      for i = 1, #v do parts[i] = M.repr(v[i]) end
      return "[" .. table.concat(parts, ", ") .. "]"
    end
    local keys = mt and mt.__order
    if not keys then
      keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    end
    local bytes = mt and mt.__pybytes_keys or {}
    local parts = {}
    for i, k in ipairs(keys) do
      local x = v[k]
      parts[i] = M.repr(k) .. ": " .. ((bytes[k] and type(x) == "string") and M.repr_bytes(x) or M.repr(x))
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(v)
end

--- Python str() of a value: like repr() except that a string is itself.
-- @param v any Lua value
-- @treturn string
function M.str(v)
  if type(v) == "string" then return v end
  return M.repr(v)
end

--- A cell as the C writers take it: nil, booleans, numbers and strings as
-- they are; tables rendered with str().
-- @param v any Lua value
-- @return nil, boolean, number or string
function M.cell(v)
  local t = type(v)
  if t == "table" then return M.str(v) end
  if t == "userdata" or t == "function" then return tostring(v) end
  return v
end

local function dict_pairs(t)
  local order = getmetatable(t).__order
  local i = 0
  return function()
    i = i + 1
    local k = order[i]
    if k ~= nil then return k, t[k] end
  end, t, nil
end

local function dict_newindex(t, k, v)
  if v ~= nil then
    local order = getmetatable(t).__order
    local known = false
    for _, x in ipairs(order) do if x == k then known = true; break end end
    if not known then order[#order + 1] = k end
  end
  rawset(t, k, v)
end

--- A Python dict: a table that keeps its keys in insertion order (for
-- pairs, printing, and the columns a delegate-metadata parser's result
-- becomes), from a sequence of {key, value} pairs; keys added later go to
-- the end.
--   pyrepr.dict{ {"size", 33}, {"runs", 10} }   -> {'size': 33, 'runs': 10}
-- @tparam[opt] {{key, value},...} items
-- @treturn table
function M.dict(items)
  local t = setmetatable({}, { __pydict = true, __order = {}, __pairs = dict_pairs,
                               __newindex = dict_newindex, __name = "dict" })
  for i, kv in ipairs(items or {}) do
    if type(kv) ~= "table" or kv[1] == nil then
      error(string.format("pyrepr.dict: item %d must be a {key, value} pair", i), 2)
    end
    t[kv[1]] = kv[2]
  end
  return t
end

M.is_nan = is_nan
return M
