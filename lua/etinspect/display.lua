--- etinspect.display: how the REPL shows Lua values, as IPython and pandas
-- show Python's.
--
--   display.render(style, ...) -> string   the values, separated as lua(1) does
--
-- * A Frame is rendered in `style` (the REPL's .mode: box, plain, markdown,
--   tsv, csv, json) under the display options: at most display.max_rows
--   rows (head and tail around a "..." row), cells cut at
--   display.max_colwidth, the table fitted to display.width, a footer
--   "[403 rows x 14 columns]" when something was left out.
-- * A table prints as a Lua constructor, on one line when it fits the width,
--   else one entry per line, indented; a sequence longer than
--   display.max_rows shows its head and tail around "..." (the top level
--   then says "[403 items]"); keys are sorted (an ordered dict keeps its
--   order); nesting deeper than 4 levels shows as {...}, a cycle as
--   <cycle>.
-- * A userdata with fields (Inspector, EventBlock, Event, ...) prints its
--   tostring and, at the top level, its fields, indented.
-- * Strings are quoted, escapes made visible; long strings are never cut.
--
-- The display options are the Frame's: etinspect.set_option(name, value),
-- get_option(name) with "display.max_rows" (default 60; nil: no limit),
-- "display.max_colwidth" (50) and "display.width" (nil: 80).
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local etinspect = require("etinspect")
local Frame = etinspect.Frame
local is_view = etinspect._core.is_view -- the API's read-only sequences

local M = {}

--- The Frame styles the REPL's .mode accepts (those of frame:render).
M.STYLES = { "box", "plain", "markdown", "tsv", "csv", "json" }

--- The value of display option `name` (etinspect.get_option; nil: no
-- limit, or for display.width an unknown width).
function M.get_option(name) return etinspect.get_option(name) end

--- Set display option `name` (etinspect.set_option: a non-negative integer,
-- or nil for no limit).
function M.set_option(name, value) return etinspect.set_option(name, value) end

--- Reset display option `name` to its default (etinspect.reset_option).
function M.reset_option(name) return etinspect.reset_option(name) end

-- max_rows, max_colwidth (nil: no limit; 0 means the same) and the width
local function opts()
  local function limit(name)
    local v = M.get_option(name)
    if v ~= 0 then return v end
  end
  return limit("display.max_rows"), limit("display.max_colwidth"), M.get_option("display.width") or 80
end

--- Text shown as it is (help's): display.text(s) is a value that render
-- writes out unquoted, so that it reaches the pager as values do.
local TEXT = { __name = "text" }
TEXT.__index = TEXT
function M.text(s)
  return setmetatable({ s }, TEXT)
end

---------------------------------------------------------------------------
-- Frames

local function render_frame(f, style)
  local max_rows, max_colwidth, width = opts()
  return f:render(style, { max_rows = max_rows or 0, max_colwidth = max_colwidth or 0, width = width })
end

---------------------------------------------------------------------------
-- Lua values

local KEYWORDS = {}
for w in ([[and break do else elseif end false for function goto if in local nil not or
            repeat return then true until while]]):gmatch("%a+") do KEYWORDS[w] = true end

local ESC = { ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r", ["\\"] = "\\\\", ['"'] = '\\"' }

--- A string as a one-line Lua literal: control bytes escaped, the C1
-- controls (U+0080-U+009F) as \u{NN}, and bytes that are not UTF-8 as
-- \xNN, so that no escape sequence of a name reaches the terminal.
function M.quote(s)
  local utf = utf8.len(s) ~= nil
  local out = s:gsub(utf and '[%c"\\]' or '[%c"\\\128-\255]', function(c)
    return ESC[c] or string.format(c:byte() < 128 and "\\%03d" or "\\x%02X", c:byte())
  end)
  if utf then
    out = out:gsub("\194([\128-\159])", function(c) return string.format("\\u{%X}", c:byte()) end)
  end
  return '"' .. out .. '"'
end

local function is_ident(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") and not KEYWORDS[k]
end

local function scalar(v)
  local t = type(v)
  if t == "string" then return M.quote(v) end
  if t == "function" then
    local info = debug.getinfo(v, "S")
    if info.what == "C" then return "function: builtin" end
    return string.format("function <%s:%d>", info.short_src, info.linedefined)
  end
  return tostring(v)
end

local function sort_keys(ks)
  table.sort(ks, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
end

-- The entries {key text or nil, value} a table shows, head and tail kept
-- when there are more than max_rows; `total` is the count of sequence
-- items (for the footer) when they were cut.
local function entries(v, max_rows)
  -- a read-only sequence of the API (insp.event_blocks): its items are
  -- behind C metamethods (#, [i]), which run no user code
  local view = is_view(v)
  local mt = not view and getmetatable(v)
  local ordered = type(mt) == "table" and rawget(mt, "__pairs") ~= nil
  -- a sequence of values or a JSON array holding nils (Null entries): its
  -- C __len counts them, trailing ones included
  local clen = type(mt) == "table" and rawget(mt, "__len")
  local n = (view or (type(clen) == "function" and debug.getinfo(clen, "S").what == "C")) and #v
    or rawlen(v)
  local out, cut_seq = {}, nil
  local function window(count, get)
    if max_rows and count > max_rows then
      local head = (max_rows + 1) // 2
      for i = 1, head do out[#out + 1] = get(i) end
      out[#out + 1] = { dots = true }
      for i = count - (max_rows - head) + 1, count do out[#out + 1] = get(i) end
      return true
    end
    for i = 1, count do out[#out + 1] = get(i) end
    return false
  end
  if not ordered and window(n, function(i) return { nil, view and v[i] or rawget(v, i) } end) then
    cut_seq = n
  end
  local keys = {}
  if not view then
    for k in pairs(v) do
      if ordered or not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
    end
  end
  if not ordered then sort_keys(keys) end
  window(#keys, function(i)
    local k = keys[i]
    return { is_ident(k) and k or "[" .. scalar(k) .. "]", (ordered and v[k] or rawget(v, k)) }
  end)
  return out, cut_seq
end

-- The fields of a userdata that has them (its __pairs lists its getters),
-- or nil.
local function fields(u)
  local ok, iter, state, init = pcall(pairs, u)
  if not ok then return nil end
  local out = {}
  local ok2, err = pcall(function()
    for k, v in iter, state, init do
      if v ~= nil then out[#out + 1] = { is_ident(k) and k or "[" .. scalar(k) .. "]", v } end
    end
  end)
  if not ok2 then out[#out + 1] = { nil, "<" .. tostring(err) .. ">" } end
  return out
end

local MAX_DEPTH = 4
local BUDGET = 5000 -- values shown in one display, at most

local function pp(v, indent, depth, seen, ctx)
  local t = type(v)
  if Frame.is_frame(v) then
    return depth == 0 and render_frame(v, ctx.style) or string.format("<Frame %d rows x %d columns>", #v, #v.columns)
  end
  if t == "userdata" then
    local s = tostring(v)
    if depth > 0 then return s end
    local fs = fields(v)
    if not fs or #fs == 0 then return s end
    return s .. " " .. ctx.block(fs, indent, depth, seen)
  end
  if t ~= "table" then return scalar(v) end
  local mt = getmetatable(v)
  if type(mt) == "table" and rawget(mt, "__tostring") and not rawget(mt, "__pairs") then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if depth >= MAX_DEPTH then return next(v) == nil and "{}" or "{...}" end
  ctx.budget = ctx.budget - 1
  if ctx.budget < 0 then return "{...}" end
  seen[v] = true
  local es, total = entries(v, ctx.max_rows)
  if depth == 0 and total then ctx.footer = string.format("[%d items]", total) end
  local s = ctx.block(es, indent, depth, seen)
  seen[v] = nil
  return s
end

-- {a, b, k = v} on one line when it fits; else a sequence of one-line
-- items fills the lines, and anything else has one entry per line.
local function block(ctx, es, indent, depth, seen)
  if #es == 0 then return "{}" end
  local parts, multi, keyed = {}, false, false
  for i, e in ipairs(es) do
    local s
    if e.dots then
      s = "..."
    else
      s = pp(e[2], indent + 2, depth + 1, seen, ctx)
      if e[1] then s = e[1] .. " = " .. s end
      keyed = keyed or e[1] ~= nil
    end
    parts[i] = s
    multi = multi or s:find("\n", 1, true) ~= nil
  end
  local line = "{" .. table.concat(parts, ", ") .. "}"
  if not multi and indent + #line <= ctx.width then return line end
  local pad = string.rep(" ", indent + 2)
  if not multi and not keyed then
    local lines, cur = {}, nil
    for _, s in ipairs(parts) do
      if cur and #pad + #cur + 2 + #s + 1 > ctx.width then
        lines[#lines + 1] = cur .. ","
        cur = nil
      end
      cur = cur and cur .. ", " .. s or s
    end
    lines[#lines + 1] = cur .. ","
    return "{\n" .. pad .. table.concat(lines, "\n" .. pad) .. "\n" .. string.rep(" ", indent) .. "}"
  end
  return "{\n" .. pad .. table.concat(parts, ",\n" .. pad) .. ",\n" .. string.rep(" ", indent) .. "}"
end

--- Render values for the REPL.
-- @tparam string style how frames print (a frame:render style)
-- @param ... the values
-- @treturn string the text, ending in a newline (empty for no values)
function M.render(style, ...)
  local n = select("#", ...)
  if n == 0 then return "" end
  local max_rows, _, width = opts()
  local out, multi = {}, false
  for i = 1, n do
    local ctx = { style = style, max_rows = max_rows, width = width, budget = BUDGET }
    ctx.block = function(es, indent, depth, seen) return block(ctx, es, indent, depth, seen) end
    local v = (select(i, ...))
    local s
    if type(v) == "table" and getmetatable(v) == TEXT then
      s = tostring(rawget(v, 1))
    else
      s = pp(v, 0, 0, {}, ctx)
    end
    if ctx.footer then s = s .. "\n\n" .. ctx.footer end
    s = s:gsub("\n$", "")
    out[i] = s
    multi = multi or s:find("\n", 1, true) ~= nil
  end
  return table.concat(out, multi and "\n" or "\t") .. "\n"
end

return M
