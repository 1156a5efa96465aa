--- etinspect.converters: built-in delegate time-scale converters.  A
-- converter is function(event_name, ticks) -> time in the target unit
-- (spec §3.8).
local M = {}

return M
