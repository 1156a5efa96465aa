-- api_run.lua - run the API harness (api_driver.lua) over a range of seeds:
--   etinspect tests/fuzz/api_run.lua WORKDIR FIXTURES SRC FIRST LAST [STEPS]
-- from inside WORKDIR (any string may become a path).  Prints one line per
-- seed ("seed N: C calls"), then "calls=... errors=... covered=A/B" and the
-- names never reached ("uncovered: ...").  Exit 0 unless it crashes.
local dir, fixtures, src, first, last, steps = ...
package.path = src .. "/tests/fuzz/?.lua;" .. package.path
local D = require "api_driver"
local stats = {calls = 0, errors = 0, covered = {}, steps = 0}
-- the surface as shipped, before the seeds run: _core.extend adds methods
-- ("Run:fz4") that a later seed may never call
local surface = D.surface()
for seed = tonumber(first), tonumber(last) do
  local before = stats.calls
  D.run(D.prng(seed), {dir = dir, fixtures = fixtures, src = src, steps = tonumber(steps) or 60, stats = stats})
  io.write("seed ", seed, ": ", stats.calls - before, " calls\n")
  io.flush()
end
local reached, missing = 0, {}
for _, name in ipairs(surface) do
  if stats.covered[name] then reached = reached + 1 else missing[#missing + 1] = name end
end
io.write(("calls=%d errors=%d covered=%d/%d\n"):format(stats.calls, stats.errors, reached, #surface))
io.write("uncovered: ", table.concat(missing, " "), "\n")
if os.getenv("API_RUN_COUNTS") then
  for _, name in ipairs(surface) do io.write(name, " ", stats.covered[name] or 0, "\n") end
end
