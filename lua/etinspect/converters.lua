--- etinspect.converters: built-in delegate time-scale converters.
--
-- A converter is function(event_name, ticks) -> time in the target unit
-- (spec §3.8); the Inspector subtracts the converted start from the
-- converted end.  Pass one as
-- `etinspect.Inspector{..., delegate_time_scale_converter = conv}`.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local M = {}

local PER_SECOND = { ns = 1e9, us = 1e6, ms = 1e3, s = 1 }

local function per_second(unit, what)
  local v = PER_SECOND[unit]
  if not v then error(what .. ": unknown time unit '" .. tostring(unit) .. "' (ns, us, ms, s)", 3) end
  return v
end

--- Ticks of one unit to another: converters.scale("us", "ms") divides by
-- 1000.  Errors on an unknown unit.
function M.scale(source, target)
  local f = per_second(source, "scale") / per_second(target, "scale")
  return function(_, ticks) return ticks / f end
end

--- Cycles of a clock at `hz` to time in `target` (default "ms"):
-- converters.cycles(1e9, "us") turns 1000 cycles into 1 us.
function M.cycles(hz, target)
  if type(hz) ~= "number" or hz <= 0 then error("cycles: the clock frequency must be a positive number of Hz", 2) end
  local k = per_second(target or "ms", "cycles") / hz
  return function(_, ticks) return ticks * k end
end

--- Qualcomm QNN: the unit is a suffix of the event name.  " (us)" values
-- are microseconds, converted to `opts.target` (default "ms"); values
-- without a suffix are cycles, converted with `opts.cycles_hz` when given
-- and otherwise left as cycles; " (bytes)" and " (count)" values are not
-- times and are left as they are.
function M.qnn(opts)
  require("etinspect")._core.check_options("converters.qnn", opts,
    { cycles_hz = "number", target = "string" }, 1)
  opts = opts or {}
  local target = opts.target or "ms"
  local us = per_second("us", "qnn") / per_second(target, "qnn")
  local cyc = opts.cycles_hz and per_second(target, "qnn") / opts.cycles_hz or nil
  return function(name, ticks)
    local unit = tostring(name):match(" %((%a+)%)$")
    if unit == "us" then return ticks / us end
    if unit == nil and cyc then return ticks * cyc end
    return ticks
  end
end

--- Core ML delegate events are in nanoseconds: to `target` (default "ms"),
-- as ExecuTorch's Core ML example converts them.
function M.coreml(target)
  return M.scale("ns", target or "ms")
end

return M
