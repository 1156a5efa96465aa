-- columns.lua ETDUMP - benchmark: build the Inspector from Lua, then sum
-- the durations (ticks) of every profile event per name through the
-- columnar path (insp:run_columns).  Prints the CPU time of each part, as
-- iterate.lua does, and the same totals.
local etinspect = require "etinspect"
local t0 = os.clock()
local insp = etinspect.Inspector{etdump_path = assert(arg[1], "usage: columns.lua ETDUMP")}
local t1 = os.clock()
local sum, n, cols = {}, 0, nil
local nruns = 0
for _ in insp:runs() do nruns = nruns + 1 end
for i = 1, nruns do
  cols = insp:run_columns(i, cols)
  local kind, name, s, e = cols.kind, cols.name, cols.start_time, cols.end_time
  for j = 1, cols.n do
    if kind[j] == 1 then
      local id = name[j]
      sum[id] = (sum[id] or 0) + (e[j] - s[j])
      n = n + 1
    end
  end
end
local names = insp:column_names()
local total, c = {}, 0
for id, v in pairs(sum) do total[names[id] or "?"] = v; c = c + 1 end
local t2 = os.clock()
print(string.format("build %.3f s  iterate %.3f s  (%d profile events, %d names)", t1 - t0, t2 - t1, n, c))
