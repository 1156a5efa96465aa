--- etinspect.scripts.common: argument handling shared by the bundled
-- report scripts.
local etinspect = require("etinspect")
local M = {}

--- Raise a usage error: the host prints `msg` without a traceback and
-- exits with status 2.
function M.usage_error(msg)
  error(setmetatable({ usage = msg }, { __tostring = function(e) return e.usage end }), 0)
end
local function usage(msg) M.usage_error(msg) end

--- Parse script arguments: the first non-option is the ETDump; options
-- "--name value" (or "--name=value") go into the returned table.  Errors
-- name the script and say what was expected.
-- @tparam string script the script's name, for messages
-- @tparam {string,...} args the script's arguments
-- @tparam table known option name -> default value (a number default makes
--   the option numeric)
-- @treturn table {etdump = path, <option> = value...}
function M.parse(script, args, known)
  local out = {}
  for k, v in pairs(known) do out[k] = v end
  local i = 1
  while i <= #args do
    local a = args[i]
    local name, value = a:match("^%-%-([%w_]+)=(.*)$")
    if not name then name = a:match("^%-%-([%w_]+)$") end
    if name then
      if known[name] == nil then usage(script .. ": unknown option --" .. name) end
      if value == nil then
        i = i + 1
        value = args[i]
        if value == nil then usage(script .. ": --" .. name .. " needs a value") end
      end
      if type(known[name]) == "number" then
        local n = tonumber(value)
        if not n then usage(script .. ": --" .. name .. " expects a number, got '" .. value .. "'") end
        value = n
      end
      out[name] = value
    elseif not out.etdump then
      out.etdump = a
    else
      usage(script .. ": unexpected argument '" .. a .. "'")
    end
    i = i + 1
  end
  if not out.etdump then usage(script .. ": an ETDump path is required") end
  return out
end

--- Open the Inspector the options describe (etdump, source/target scale,
-- etrecord and etrecord_method when given; "" means none).  An unreadable
-- or malformed input is reported without a traceback (exit 1).
function M.open(opts)
  local function opt(v) if v ~= nil and v ~= "" then return v end end
  local ok, insp = pcall(etinspect.Inspector, {
    etdump_path = opts.etdump,
    source_time_scale = opts.source_time_scale,
    target_time_scale = opts.target_time_scale,
    etrecord = opt(opts.etrecord),
    etrecord_method = opt(opts.etrecord_method),
  })
  if not ok then
    error(setmetatable({ input = tostring(insp) }, { __tostring = function(e) return e.input end }), 0)
  end
  return insp
end

--- Print a frame in the chosen format (box, plain, markdown, tsv, csv, json).
function M.show(frame, opts)
  io.write(frame:render(opts.format or "box"))
end

M.COMMON_OPTIONS = {
  { "--format F", "box (default), plain, markdown, tsv, csv or json" },
  { "--source_time_scale S", "unit of the raw timestamps (default ns)" },
  { "--target_time_scale S", "unit of the durations shown (default ms)" },
  { "--etrecord R", "link the events to this ETRecord (op types, modules)" },
}

return M
