-- iterate.lua ETDUMP - benchmark: build the Inspector from Lua, then
-- iterate every raw event and sum durations (ticks) per name.  Prints the
-- CPU time of each part (os.clock) and the number of events.
local etinspect = require "etinspect"
local t0 = os.clock()
local insp = etinspect.Inspector{etdump_path = assert(arg[1], "usage: iterate.lua ETDUMP")}
local t1 = os.clock()
local total, n = {}, 0
for _, run in insp:runs() do
  for _, name, s, e, kind in run:events() do
    if kind == "profile" then
      local k = name or "?"
      total[k] = (total[k] or 0) + (e - s)
      n = n + 1
    end
  end
end
local t2 = os.clock()
print(string.format("build %.3f s  iterate %.3f s  (%d profile events, %d names)", t1 - t0, t2 - t1, n,
  (function() local c = 0; for _ in pairs(total) do c = c + 1 end; return c end)()))
