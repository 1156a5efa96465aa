-- blocks.lua ETDUMP - benchmark: open the dump from Lua, then read the event
-- blocks and a perf data statistic: the model, its samples and statistics
-- are made at that first view (docs/performance.md, fifth pass).  Prints
-- the CPU time of each part (os.clock) and what it read.
local etinspect = require "etinspect"
local t0 = os.clock()
local insp = etinspect.Inspector{etdump_path = assert(arg[1], "usage: blocks.lua ETDUMP")}
local t1 = os.clock()
local blocks = insp.event_blocks
local p50 = blocks[1].events[1].perf_data.p50
local t2 = os.clock()
print(string.format("open %.3f s  first view %.3f s  (%d blocks, events[1] p50 %s)", t1 - t0, t2 - t1,
  #blocks, p50))
