--- etinspect.query: pandas' query syntax over a Frame (issue 24 item 3),
-- evaluated with Series operations (src/lua/l_series.c): no Lua call per
-- row.  frame:query(expr [, vars]) (docs/lua-api.md "Series, masks and
-- query"):
--
--   comparisons     == != < <= > >=, chained (1 < a < 4)
--   logic           and or not, & | ~ (as pandas: & and | bind as and, or)
--   arithmetic      + - * / // % ** and unary -
--   membership      a in [1, 2], a not in ["x", "y"], a in @names
--   literals        numbers (1, 2.5, 1e-3), 'text' or "text", True, False
--   names           a column (`p50 (ms)` in backticks when it has spaces),
--                   @name: vars.name
--
-- An expression is parsed once into a tree (cached), then evaluated; its
-- result is a mask (one boolean per row) or one boolean (every row or
-- none).  Errors name the position and the token ("Frame:query: at 5:
-- unexpected ')'"), an unknown column and the frame's columns, an @name
-- missing from vars.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local core = require("etinspect")._core

local M = {}

-- ---------------------------------------------------------------- tokens

local KEYWORDS = { ["and"] = true, ["or"] = true, ["not"] = true, ["in"] = true,
                   True = true, False = true }
local OPS = { "**", "//", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%",
              "&", "|", "~", "(", ")", "[", "]", "," }

-- Tokens of `src`: {t = kind, v = value, pos = 1-based byte}; kinds "num",
-- "str", "name", "col" (backticks), "var" (@name), "kw", "op", "eof".
-- The expression as errors quote it: cut to 120 bytes.
local function shown(src)
  if #src > 120 then return string.format("%q...", src:sub(1, 120)) end
  return string.format("%q", src)
end

local function tokenize(src, where)
  local toks, i, n = {}, 1, #src
  local function fail(msg, at) error(string.format("%s: at %d: %s in %s", where, at, msg, shown(src)), 0) end
  while true do
    local s = src:match("^%s*()", i)
    i = s
    if i > n then break end
    local c = src:sub(i, i)
    local num = src:match("^%d+%.?%d*[eE][+-]?%d+", i) or src:match("^%.%d+[eE][+-]?%d+", i)
      or src:match("^%d+%.?%d*", i) or src:match("^%.%d+", i)
    if num then
      if src:match("^[%a_]", i + #num) then fail("bad number '" .. num .. src:sub(i + #num, i + #num) .. "'", i) end
      toks[#toks + 1] = { t = "num", v = math.tointeger(tonumber(num)) or tonumber(num), pos = i, text = num }
      i = i + #num
    elseif c == "'" or c == '"' then
      local j, buf = i + 1, {}
      while true do
        local d = src:sub(j, j)
        if d == "" then fail("unfinished string", i) end
        if d == c then break end
        if d == "\\" then
          local e = src:sub(j + 1, j + 1)
          buf[#buf + 1] = ({ n = "\n", t = "\t", r = "\r", ["\\"] = "\\", ["'"] = "'", ['"'] = '"' })[e] or ("\\" .. e)
          j = j + 2
        else
          buf[#buf + 1] = d
          j = j + 1
        end
      end
      toks[#toks + 1] = { t = "str", v = table.concat(buf), pos = i, text = src:sub(i, j) }
      i = j + 1
    elseif c == "`" then
      local j = src:find("`", i + 1, true)
      if not j then fail("unfinished `name`", i) end
      toks[#toks + 1] = { t = "col", v = src:sub(i + 1, j - 1), pos = i, text = src:sub(i, j) }
      i = j + 1
    elseif c == "@" then
      local name = src:match("^[%a_][%w_]*", i + 1)
      if not name then fail("'@' must be followed by a name", i) end
      toks[#toks + 1] = { t = "var", v = name, pos = i, text = "@" .. name }
      i = i + 1 + #name
    elseif src:match("^[%a_]", i) then
      local name = src:match("^[%a_][%w_]*", i)
      toks[#toks + 1] = { t = KEYWORDS[name] and "kw" or "col", v = name, pos = i, text = name }
      i = i + #name
    else
      local op
      for _, o in ipairs(OPS) do
        if src:sub(i, i + #o - 1) == o then op = o; break end
      end
      if not op then fail("unexpected character '" .. c .. "'", i) end
      toks[#toks + 1] = { t = "op", v = op, pos = i, text = op }
      i = i + #op
    end
  end
  toks[#toks + 1] = { t = "eof", pos = n + 1, text = "end of expression" }
  return toks
end

-- ---------------------------------------------------------------- parser

local MAX_DEPTH = 1000 -- nesting of the tree (parentheses, operators): a hostile expression is refused

-- precedence (low to high): or | ; and & ; not ~ ; comparisons and in ;
-- + - ; * / // % ; unary - ; ** (right-associative) ; atoms
local function parse(src, where)
  local toks = tokenize(src, where)
  local p = 1
  local function peek() return toks[p] end
  local function fail(tok, msg)
    error(string.format("%s: at %d: %s in %s", where, tok.pos,
      msg or (tok.t == "eof" and "unexpected end of expression" or ("unexpected '" .. tok.text .. "'")), shown(src)), 0)
  end
  local function is(t, v) local k = toks[p]; return k.t == t and (v == nil or k.v == v) end
  local function take() p = p + 1; return toks[p - 1] end
  -- a node, refused when the tree would be deeper than MAX_DEPTH
  local function mk(node, at)
    local d = 0
    for _, c in ipairs { node.a, node.b } do if c.d and c.d > d then d = c.d end end
    for _, c in ipairs(node.operands or node.items or {}) do if c.d and c.d > d then d = c.d end end
    node.d = d + 1
    if node.d > MAX_DEPTH then fail(at, "the expression nests deeper than " .. MAX_DEPTH .. " levels") end
    return node
  end
  local depth = 0 -- recursion of the parser (parentheses, unary operators)
  local function enter(at)
    depth = depth + 1
    if depth > MAX_DEPTH then fail(at, "the expression nests deeper than " .. MAX_DEPTH .. " levels") end
  end
  local function expect(t, v, what)
    if not is(t, v) then fail(peek(), "expected " .. what .. ", got " .. peek().text) end
    return take()
  end

  local expr
  local function atom()
    local k = peek()
    if k.t == "num" or k.t == "str" then take(); return { k = "lit", v = k.v } end
    if k.t == "kw" and (k.v == "True" or k.v == "False") then take(); return { k = "lit", v = k.v == "True" } end
    if k.t == "col" then take(); return { k = "col", name = k.v, pos = k.pos } end
    if k.t == "var" then take(); return { k = "var", name = k.v, pos = k.pos } end
    if is("op", "(") then
      enter(take())
      local e = expr()
      expect("op", ")", "')'")
      depth = depth - 1
      return e
    end
    if is("op", "[") then
      enter(take())
      local items = {}
      if not is("op", "]") then
        repeat
          items[#items + 1] = expr()
        until not (is("op", ",") and take() and not is("op", "]"))
      end
      expect("op", "]", "']' or ','")
      depth = depth - 1
      return mk({ k = "list", items = items }, k)
    end
    fail(k)
  end
  local unary
  local function power()
    local a = atom()
    if is("op", "**") then
      local at = take()
      enter(at)
      local b = unary()
      depth = depth - 1
      return mk({ k = "bin", op = "**", a = a, b = b }, at) -- right-associative, binds -x tightly: 2 ** -1
    end
    return a
  end
  function unary()
    if is("op", "-") or is("op", "+") then
      local at = take()
      enter(at)
      local a = unary()
      depth = depth - 1
      if at.v == "+" then return a end
      return mk({ k = "neg", a = a }, at)
    end
    return power()
  end
  local function term()
    local a = unary()
    while is("op", "*") or is("op", "/") or is("op", "//") or is("op", "%") do
      local at = take()
      a = mk({ k = "bin", op = at.v, a = a, b = unary() }, at)
    end
    return a
  end
  local function arith()
    local a = term()
    while is("op", "+") or is("op", "-") do
      local at = take()
      a = mk({ k = "bin", op = at.v, a = a, b = term() }, at)
    end
    return a
  end
  local CMP = { ["=="] = "eq", ["!="] = "ne", ["<"] = "lt", ["<="] = "le", [">"] = "gt", [">="] = "ge" }
  local function comparison()
    local first = arith()
    local ops, operands = {}, { first }
    while true do
      local k = peek()
      if k.t == "op" and CMP[k.v] then
        take()
        ops[#ops + 1] = CMP[k.v]
        operands[#operands + 1] = arith()
      elseif k.t == "kw" and k.v == "in" then
        take()
        ops[#ops + 1] = "in"
        operands[#operands + 1] = arith()
      elseif k.t == "kw" and k.v == "not" and toks[p + 1].t == "kw" and toks[p + 1].v == "in" then
        take(); take()
        ops[#ops + 1] = "notin"
        operands[#operands + 1] = arith()
      else
        break
      end
    end
    if #ops == 0 then return first end
    return mk({ k = "cmp", ops = ops, operands = operands }, peek())
  end
  local function negation()
    if is("kw", "not") or is("op", "~") then
      local at = take()
      enter(at)
      local a = negation()
      depth = depth - 1
      return mk({ k = "not", a = a }, at)
    end
    return comparison()
  end
  local function conj()
    local a = negation()
    while is("kw", "and") or is("op", "&") do
      local at = take()
      a = mk({ k = "and", a = a, b = negation() }, at)
    end
    return a
  end
  function expr()
    local a = conj()
    while is("kw", "or") or is("op", "|") do
      local at = take()
      a = mk({ k = "or", a = a, b = conj() }, at)
    end
    return a
  end
  local tree = expr()
  if not is("eof") then fail(peek()) end
  return tree
end

-- ---------------------------------------------------------------- evaluation

local is_series = core.is_series

local FLIP = { eq = "eq", ne = "ne", lt = "gt", le = "ge", gt = "lt", ge = "le" }
local function scalar_cmp(op, a, b)
  if op == "eq" then return a == b end
  if op == "ne" then return a ~= b end
  if type(a) ~= type(b) then error(string.format("'%s' not supported between %s and %s", op, type(a), type(b)), 0) end
  if op == "lt" then return a < b elseif op == "le" then return a <= b
  elseif op == "gt" then return a > b else return a >= b end
end

local function compare(op, a, b)
  if op == "in" or op == "notin" then
    if type(b) ~= "table" or is_series(b) then
      if is_series(b) then b = b:tolist() else b = { b } end
    end
    local r
    if is_series(a) then
      r = a:isin(b)
      if op == "notin" then r = ~r end
    else
      r = false
      for _, v in ipairs(b) do if v == a then r = true end end
      if op == "notin" then r = not r end
    end
    return r
  end
  if is_series(a) then return a[op](a, b) end
  if is_series(b) then return b[FLIP[op]](b, a) end
  return scalar_cmp(op, a, b)
end

local function logic(op, a, b)
  if is_series(a) or is_series(b) then
    if op == "and" then return a & b end
    return a | b
  end
  if type(a) ~= "boolean" or type(b) ~= "boolean" then
    error(string.format("'%s' needs booleans or masks, got %s and %s", op, type(a), type(b)), 0)
  end
  if op == "and" then return a and b end
  return a or b
end

local ARITH = {
  ["+"] = function(a, b) return a + b end,
  ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end,
  ["/"] = function(a, b)
    if not is_series(a) and not is_series(b) then return (a + 0.0) / b end
    return a / b
  end,
  ["//"] = function(a, b) return a // b end,
  ["%"] = function(a, b) return a % b end,
  ["**"] = function(a, b) return a ^ b end,
}

local function eval(node, df, vars, where, src)
  local k = node.k
  if k == "lit" then return node.v end
  if k == "col" then
    for _, c in ipairs(df.columns) do
      if c == node.name then return df:column(c) end
    end
    error(string.format("%s: at %d: no column '%s' (columns: %s)", where, node.pos, node.name,
      table.concat(df.columns, ", ")), 0)
  end
  if k == "var" then
    local v = vars and vars[node.name]
    if v == nil then
      error(string.format("%s: at %d: @%s is not in the variables table%s", where, node.pos, node.name,
        vars and "" or " (none given: frame:query(expr, {name = value}))"), 0)
    end
    return v
  end
  if k == "list" then
    local out = {}
    for i, it in ipairs(node.items) do out[i] = eval(it, df, vars, where, src) end
    return out
  end
  if k == "neg" then
    local a = eval(node.a, df, vars, where, src)
    if type(a) ~= "number" and not is_series(a) then error("unary '-' of " .. type(a), 0) end
    return -a
  end
  if k == "not" then
    local a = eval(node.a, df, vars, where, src)
    if is_series(a) then return ~a end
    if type(a) ~= "boolean" then error("'not' of " .. type(a), 0) end
    return not a
  end
  if k == "bin" then
    local a, b = eval(node.a, df, vars, where, src), eval(node.b, df, vars, where, src)
    for _, v in ipairs { a, b } do
      if not is_series(v) and type(v) ~= "number" and type(v) ~= "boolean" then
        error(string.format("'%s' of %s (numbers or columns of numbers expected)", node.op, type(v)), 0)
      end
    end
    return ARITH[node.op](a, b)
  end
  if k == "and" or k == "or" then
    return logic(k, eval(node.a, df, vars, where, src), eval(node.b, df, vars, where, src))
  end
  if k == "cmp" then -- a < b < c is (a < b) and (b < c), as Python's
    local left = eval(node.operands[1], df, vars, where, src)
    local result
    for i, op in ipairs(node.ops) do
      local right = eval(node.operands[i + 1], df, vars, where, src)
      local r = compare(op, left, right)
      result = result == nil and r or logic("and", result, r)
      left = right
    end
    return result
  end
  error("query: unknown node " .. tostring(k), 0)
end

local cache, cached = {}, 0

--- The rows of `df` where `expr` holds (pandas' df.query(expr)).
-- @tparam Frame df
-- @tparam string expr
-- @tparam[opt] table vars values for @name
-- @treturn Frame
-- @raise syntax errors (position, token), an unknown column (and the
--   columns), an @name not in vars, type errors of the operations
function M.query(df, expr, vars)
  local where = "Frame:query"
  if type(expr) ~= "string" then
    error(where .. ": bad argument #1 (an expression string expected, got " .. type(expr) .. ")", 0)
  end
  if vars ~= nil and type(vars) ~= "table" then
    error(where .. ": bad argument #2 (a table of variables expected, got " .. type(vars) .. ")", 0)
  end
  local tree = cache[expr]
  if not tree then
    tree = parse(expr, where)
    if cached >= 256 then cache, cached = {}, 0 end
    cache[expr], cached = tree, cached + 1
  end
  local ok, r = pcall(eval, tree, df, vars, where, expr)
  if not ok then
    r = tostring(r)
    if r:sub(1, #where) ~= where then r = where .. ": " .. r:gsub("^[^\n]-:%d+: ", "", 1) end
    error(r, 0)
  end
  if type(r) == "boolean" then
    return r and df:head(#df) or df:head(0)
  end
  if not is_series(r) or r.dtype ~= "bool" then
    error(string.format("%s: %s gives %s, not a mask (a comparison, in, and/or/not)", where, shown(expr),
      is_series(r) and ("a Series of " .. r.dtype) or type(r)), 0)
  end
  if #r ~= #df then -- an @mask of another frame
    error(string.format("%s: %s gives a mask of %d values for %d rows", where, shown(expr), #r, #df), 0)
  end
  return df:filter(r)
end

M.parse = parse

return M
