--- etinspect.options: display options, as pandas' set_option / get_option
-- / reset_option (docs/lua-api.md, "Display options").
--
--   etinspect.set_option(name, value)
--   etinspect.get_option(name) -> value
--   etinspect.reset_option(name)          name "all" resets every option
--
-- Options (integers; 0 or nil means no limit, as pandas' None):
--   display.max_rows      60   a frame with more rows shows min_rows of them:
--                              the first and the last half, around a "..." row
--   display.min_rows      10   rows shown when max_rows is exceeded
--   display.max_colwidth  50   longer cells are cut to this many characters,
--                              ending in "..."
--   display.width         nil  characters per line; nil: unknown (80 is used;
--                              the REPL, and a script whose output is a
--                              terminal, set the terminal's width); wider
--                              tables lose their middle columns to a "..."
--                              column
-- tostring(frame) and frame:print() follow them (styles box and plain);
-- frame:render(style, opts) takes them as per-call overrides; the document
-- styles (markdown, TSV, CSV, JSON) are never cut.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local M = {}

local DEFAULTS = {
  ["display.max_rows"] = 60,
  ["display.min_rows"] = 10,
  ["display.max_colwidth"] = 50,
  ["display.width"] = false, -- nil: unknown
}

--- The width used when display.width is nil (unknown).
M.DEFAULT_WIDTH = 80

local values = {}
for k, v in pairs(DEFAULTS) do values[k] = v end

local function names()
  local out = {}
  for k in pairs(DEFAULTS) do out[#out + 1] = k end
  table.sort(out)
  return table.concat(out, ", ")
end

local function check_name(where, name)
  if type(name) ~= "string" then
    error(where .. ": bad argument #1 (option name string expected, got " .. type(name) .. ")", 3)
  end
  if DEFAULTS[name] == nil then
    error(where .. ": unknown option '" .. name .. "' (options: " .. names() .. ")", 3)
  end
end

--- Set a display option.
-- @tparam string name e.g. "display.max_rows"
-- @param value a non-negative integer; nil (pandas' None): no limit, or
--   for display.width an unknown width
-- @raise "set_option: unknown option 'x' (options: ...)", "set_option:
--   option 'display.max_rows' must be a non-negative integer, got string"
function M.set_option(name, value)
  check_name("set_option", name)
  if value == nil then
    values[name] = false
    return
  end
  if math.type(value) ~= "integer" and not (type(value) == "number" and value == math.floor(value)
                                            and value >= 0 and value < 2^53) then
    error(string.format("set_option: option '%s' must be a non-negative integer%s, got %s", name,
      " or nil", type(value)), 2)
  end
  if value < 0 then
    error(string.format("set_option: option '%s' must be a non-negative integer, got %s", name,
      tostring(value)), 2)
  end
  values[name] = math.tointeger(value)
end

--- The value of a display option (nil: no limit, or an unknown display.width).
-- @tparam string name
function M.get_option(name)
  check_name("get_option", name)
  local v = values[name]
  if v == false then return nil end
  return v
end

--- Restore an option's default ("all": every option).
-- @tparam string name
function M.reset_option(name)
  if name == "all" then
    for k, v in pairs(DEFAULTS) do values[k] = v end
    return
  end
  check_name("reset_option", name)
  values[name] = DEFAULTS[name]
end

--- The names of the options, sorted.
-- @treturn {string,...}
function M.list()
  local out = {}
  for k in pairs(DEFAULTS) do out[#out + 1] = k end
  table.sort(out)
  return out
end

--- The limits a display uses: the options, overridden by `o` (a table
-- with max_rows, min_rows, max_colwidth, width; any may be nil).  Returns
-- a table {max_rows=, min_rows=, max_colwidth=, width=} with 0 for "no
-- limit" and the width resolved (nil -> DEFAULT_WIDTH).
function M.limits(o)
  o = o or {}
  local function pick(k, key)
    if o[k] ~= nil then return o[k] end
    return M.get_option(key)
  end
  local width = pick("width", "display.width")
  return {
    max_rows = pick("max_rows", "display.max_rows") or 0,
    min_rows = pick("min_rows", "display.min_rows") or 0,
    max_colwidth = pick("max_colwidth", "display.max_colwidth") or 0,
    width = width == nil and M.DEFAULT_WIDTH or width,
  }
end

--- Add set_option, get_option and reset_option to the module table.
-- @tparam table module the etinspect module
function M.install(module)
  module.set_option = M.set_option
  module.get_option = M.get_option
  module.reset_option = M.reset_option
end

return M
