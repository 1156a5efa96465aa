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
-- @tparam[opt] {string,...} positional the fields the non-options go to, in
--   order, all required (default {"etdump"}); e.g. {"etdump_a", "etdump_b"}
-- @treturn table {etdump = path, <option> = value...} (the positional
--   fields instead of etdump when `positional` is given)
function M.parse(script, args, known, positional)
  positional = positional or { "etdump" }
  local npos = 0
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
    elseif npos < #positional then
      npos = npos + 1
      out[positional[npos]] = a
    else
      usage(script .. ": unexpected argument '" .. a .. "'")
    end
    i = i + 1
  end
  if npos < #positional then
    if #positional == 1 then usage(script .. ": an ETDump path is required") end
    usage(string.format("%s: %d ETDump paths are required, got %d", script, #positional, npos))
  end
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
