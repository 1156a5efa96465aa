--- etinspect.help: the fields and methods of etinspect's objects, one line
-- each, read from docs/lua-api.md (embedded at build time as the module
-- etinspect.lua_api_doc), so that the REPL's help(x) and ?x and the
-- reference are one text.
--
--   help.type_of(v)            -> "Inspector", "Frame", ... or nil
--   help.entries(type)         -> { {name=, returns=, meaning=}, ... } or nil
--   help.text(v, width)        -> the help of v, lines cut at `width`
--   help.returns(type, method) -> the type a method returns, when the
--                                 reference names one, or nil
--
-- Which rows of the reference belong to a type: those of its tables whose
-- first cell starts with the type's variable (`insp.`, `insp:`, `#insp`,
-- `blk.` ...), in the sections where that variable names the type.
local etinspect = require("etinspect")
local core = etinspect._core
local _ENV = core.std -- the standard library as it was at load

local M = {}

-- type -> the variable the reference writes for it, and the sections (by
-- title, nil: any) where that variable is this type
local TYPES = {
  Inspector = { vars = { "insp" } },
  EventBlock = { vars = { "blk" } },
  Event = { vars = { "ev" } },
  PerfData = { vars = { "pd" } },
  Dumps = { vars = { "dumps" } },
  ETRecord = { vars = { "rec" }, sections = { ["ETRecord, Graph and Node"] = true } },
  Graph = { vars = { "g" }, sections = { ["ETRecord, Graph and Node"] = true } },
  Node = { vars = { "node" }, sections = { ["ETRecord, Graph and Node"] = true } },
  Frame = { vars = { "frame" }, sections = { Frame = true, ["Series, masks and query"] = true } },
  GroupBy = { vars = { "g" }, sections = { Frame = true } },
  Series = { vars = { "s", "m1" }, sections = { ["Series, masks and query"] = true } },
  Tensor = { vars = { "t" }, sections = { Values = true } },
  etinspect = { vars = { "etinspect" }, sections = { Module = true } },
}
M.TYPES = TYPES

local parsed -- { {section=, cells={...}}, ... }, the rows of every table

-- Split a table row into its cells ("\|" is a bar inside a cell).
local function cells_of(line)
  local body = line:gsub("\\|", "\1"):match("^%s*|(.*)|%s*$")
  if not body then return nil end
  local out = {}
  for c in (body .. "|"):gmatch("(.-)|") do
    out[#out + 1] = c:gsub("\1", "|"):match("^%s*(.-)%s*$")
  end
  return out
end

local function rows()
  if parsed then return parsed end
  local ok, doc = pcall(require, "etinspect.lua_api_doc")
  parsed = {}
  if not ok or type(doc) ~= "string" then return parsed end
  local section
  for line in doc:gmatch("[^\n]*") do
    local title = line:match("^##+%s+(.-)%s*$")
    if title then
      section = title
    elseif line:match("^|") and not line:match("^|[%s:|-]*$") then
      local cells = cells_of(line)
      if cells and #cells >= 2 and cells[1]:match("^`") then
        parsed[#parsed + 1] = { section = section, cells = cells }
      end
    end
  end
  return parsed
end

-- Markdown made plain: code spans, links and emphasis as their text.
local function plain(s)
  s = s:gsub("%[([^%]]*)%]%([^)]*%)", "%1"):gsub("`", ""):gsub("%*%*", ""):gsub("%*([^*]+)%*", "%1")
  return s
end

-- Does the first code span of a row's first cell belong to variable `var`?
local function owned(cell, var)
  local span = cell:match("^`([^`]*)`")
  if not span then return false end
  span = span:gsub("^#", ""):gsub("^%-", ""):gsub("^tostring%((.*)%)$", "%1")
  return span == var or span:sub(1, #var + 1):match("^" .. var .. "[%.:%[ ]$") ~= nil
end

--- The rows of the reference for type `t`: {name=, returns=, meaning=}
-- (markdown made plain), in the reference's order; nil for a type it has
-- no rows for.
function M.entries(t)
  local spec = TYPES[t]
  if not spec then return nil end
  local out = {}
  for _, r in ipairs(rows()) do
    if not spec.sections or spec.sections[r.section] then
      for _, var in ipairs(spec.vars) do
        if owned(r.cells[1], var) then
          local c = r.cells
          out[#out + 1] = { name = plain(c[1]), returns = #c >= 3 and plain(c[2]) or "",
                            meaning = plain(c[#c]), section = r.section }
          break
        end
      end
    end
  end
  return #out > 0 and out or nil
end

--- The name of v's type as the reference names it ("Inspector", "Frame",
-- "Series", "etinspect" for the module ...), or nil.
function M.type_of(v)
  if rawequal(v, etinspect) then return "etinspect" end
  if type(v) == "userdata" and core.is_series(v) then return "Series" end
  if type(v) == "userdata" or type(v) == "table" then
    local mt = getmetatable(v)
    local name = type(mt) == "table" and rawget(mt, "__name")
    if not name and type(v) == "userdata" and type(mt) == "table" then
      -- the binding's types show a read-only copy of their metatable
      local ok, n = pcall(function() return mt.__name end)
      name = ok and n
    end
    if type(name) == "string" and TYPES[name] then return name end
  end
  return nil
end

--- The type that field or method `name` of type `t` gives, when the
-- reference's "returns" column names one ("Frame", "Inspector", ...; the
-- type after an arrow, "table → Inspector"), or nil.
function M.returns(t, name)
  for _, e in ipairs(M.entries(t) or {}) do
    for span in e.name:gmatch("[^,]+") do
      local m = span:match("^%s*[%w_]+[.:]([%w_]+)")
      if m == name then
        local r = e.returns:match("→%s*([%a]+)") or e.returns:match("^([%a]+)")
        if r and TYPES[r] then return r end
      end
    end
  end
  return nil
end

--- The names the reference gives type `t`: fields (`sep` ".") or methods
-- (":"), as a set; a Series also has the column statistics (`col:sum()`).
function M.names(t, sep)
  local out = {}
  for _, e in ipairs(M.entries(t) or {}) do
    for span in e.name:gmatch("[^,]+") do
      local s2, m = span:match("^%s*[%w_]+([.:])([%a_][%w_]*)")
      if m and s2 == sep then out[m] = true end
    end
  end
  if t == "Series" and sep == ":" then
    local ok, doc = pcall(require, "etinspect.lua_api_doc")
    if ok and type(doc) == "string" then
      for m in doc:gmatch("`col:([%a_][%w_]*)%(") do out[m] = true end
    end
  end
  return out
end

local function cut(line, width)
  if not width or width < 8 or (utf8.len(line) or #line) <= width then return line end
  return line:sub(1, (utf8.offset(line, width - 2) or (width - 2)) - 1) .. "..."
end

--- The help of value v: its type and, one line each, its fields and
-- methods from the reference (a Frame also lists its columns); for another
-- value what it is.  Lines are cut at `width` (nil: not cut).
-- @treturn string text ending in a newline
function M.text(v, width)
  local t = M.type_of(v)
  local out = {}
  local ok, s = pcall(tostring, v)
  s = ok and type(s) == "string" and s:match("^[^\n]*") or type(v)
  if t == "Frame" then s = string.format("Frame (%d rows x %d columns)", #v, #v.columns) end
  if not t then
    out[1] = cut(string.format("%s: a %s value; help(x) knows %s.", s, type(v),
      "an Inspector, EventBlock, Event, PerfData, Dumps, ETRecord, Graph, Node, Frame, GroupBy, Series, Tensor " ..
      "and the module etinspect"), width)
    out[2] = ".help lists the meta commands; the reference is docs/lua-api.md (man etinspect-lua)."
    return table.concat(out, "\n") .. "\n"
  end
  local es = M.entries(t) or {}
  out[1] = cut(string.format("%s: %s fields and methods (docs/lua-api.md, man etinspect-lua):",
    t == "etinspect" and "the module etinspect" or s, #es), width)
  if t == "Frame" then
    local cols = rawget(v, "_columns")
    if type(cols) == "table" then out[#out + 1] = cut("  columns: " .. table.concat(cols, ", "), width) end
  end
  local w = 0
  for _, e in ipairs(es) do w = math.max(w, utf8.len(e.name) or #e.name) end
  w = math.min(w, 36)
  for _, e in ipairs(es) do
    local what = e.returns ~= "" and (e.meaning ~= "" and e.returns .. ": " .. e.meaning or e.returns)
                 or e.meaning
    local pad = math.max(0, w - (utf8.len(e.name) or #e.name))
    out[#out + 1] = cut("  " .. e.name .. string.rep(" ", pad) .. "  " .. what, width)
  end
  return table.concat(out, "\n") .. "\n"
end

return M
