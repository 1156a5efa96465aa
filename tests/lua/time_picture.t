#!/usr/bin/env etinspect
-- time_picture.t - the trace and the HTML report's timeline draw one
-- picture of time (src/core/output/timeline.h): for every run of every
-- block, the same slices on the same tracks at the same places.
--
-- own_clock (tests/fixtures/own_clock.json): a delegate on a clock of its
-- own - delegated events logged at ticks 10 and 600 while their
-- DELEGATE_CALL runs from 2100 to 4000, and one logged with start tick 0
-- and a duration longer than its DELEGATE_CALL.  Both outputs give them
-- synthetic starts one after the other from their DELEGATE_CALL's start;
-- nothing is drawn before Method::execute.  OPERATOR_CALL and
-- DELEGATE_CALL are on the operators track in both.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local html = require "etinspect.html"
local core = etinspect._core
etinspect.on_warning(function() end)

local fixtures = t.build .. "/fixtures/"
if not t.exists(fixtures .. "own_clock.etdp") then t.skip_all("own_clock.etdp not built (make fixtures)") end

local CAT = { framework = "framework", operator = "operators", delegate = "delegate" }

-- The trace's slices of run `rd` (RunData index) of process `pid`, as
-- {name, track, start (ms from the run's first non-delegated slice), dur}.
local function trace_run(doc, pid, rd)
  local out, lo = {}, math.huge
  for _, e in ipairs(doc.traceEvents) do
    if e.ph == "X" and e.pid == pid and e.args.run == rd then
      out[#out + 1] = { name = e.name, track = CAT[e.cat], ts = e.ts / 1000, dur = e.dur / 1000,
                        logged = e.args.logged_dur_us and e.args.logged_dur_us / 1000 }
      if e.cat ~= "delegate" and e.ts / 1000 < lo then lo = e.ts / 1000 end
    end
  end
  for _, s in ipairs(out) do s.start = s.ts - lo end
  return out
end

local function by_start(a, b)
  if math.abs(a.start - b.start) > 1e-9 then return a.start < b.start end
  if a.name ~= b.name then return a.name < b.name end
  return a.track < b.track
end

-- Compare the two pictures of every run of every block of `path`; returns
-- the number of slices compared and the first difference (or nil).
local function compare(path, max_runs)
  local insp = etinspect.Inspector { etdump_path = path }
  local tmp = os.tmpname()
  insp:write_trace(tmp)
  local doc = assert(core.json_decode(t.read(tmp)))
  os.remove(tmp)
  local n = 0
  for bi, blk in ipairs(insp.event_blocks) do
    -- the block's runs: the RunData indices its slices carry, in order
    local rds, seen = {}, {}
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "X" and e.pid == bi and not seen[e.args.run] then
        seen[e.args.run] = true
        rds[#rds + 1] = e.args.run
      end
    end
    table.sort(rds)
    for k = 1, math.min(blk.num_runs, max_runs or math.huge) do
      local tl = html.timeline(insp, { block = bi, index = k })
      local want = trace_run(doc, bi, rds[k])
      local got = {}
      for _, s in ipairs(tl.slices) do
        got[#got + 1] = { name = s.name, track = s.track, start = s.start, dur = s.duration }
      end
      table.sort(want, by_start)
      table.sort(got, by_start)
      if #got ~= #want then
        return n, string.format("block %d run %d: %d slices in the HTML, %d in the trace", bi, k, #got, #want)
      end
      for i = 1, #got do
        local g, w = got[i], want[i]
        local tol = 1e-6 * math.max(1, math.abs(w.start))
        -- the trace cuts a synthetic slice at its container's end; the page keeps its logged length
        local wdur = w.logged or w.dur
        if g.name ~= w.name or g.track ~= w.track or math.abs(g.start - w.start) > tol
            or math.abs(g.dur - wdur) > 1e-6 * math.max(1, math.abs(wdur)) then
          return n, string.format("block %d run %d: HTML %s %s %.9g+%.9g, trace %s %s %.9g+%.9g", bi, k,
            g.name, g.track, g.start, g.dur, w.name, w.track, w.start, wdur)
        end
        n = n + 1
      end
    end
  end
  insp:close()
  return n
end

-- own_clock, slice by slice
local insp = etinspect.Inspector { etdump_path = fixtures .. "own_clock.etdp" }
local tl = html.timeline(insp)
local got = {}
for _, s in ipairs(tl.slices) do
  got[#got + 1] = ("%s %s %.4f %.4f"):format(s.name, s.track, s.start, s.duration)
end
t.is(table.concat(got, "\n"), table.concat({
  "Method::execute framework 0.0000 0.0040",
  "OPERATOR_CALL operators 0.0001 0.0009",
  "native_call_add.out operators 0.0002 0.0007",
  "DELEGATE_CALL operators 0.0011 0.0019",
  "0 delegate 0.0011 0.0005",
  "1 delegate 0.0016 0.0003",
  "2 delegate 0.0031 0.0007",
  "DELEGATE_CALL operators 0.0031 0.0004",
}, "\n"), "own_clock: delegated events inside their DELEGATE_CALL, one after the other; none before Method::execute")
t.is(html.track(insp.event_blocks[1].events[2]), "operators", "html.track(OPERATOR_CALL): operators, as the trace")
insp:close()

local n, diff = compare(fixtures .. "own_clock.etdp")
t.ok(n == 8 and not diff, "own_clock: the trace and the HTML agree on all 8 slices" .. (diff and (": " .. diff) or ""))
for _, name in ipairs { "sample", "delegates", "wrap", "upstream_names" } do
  if t.exists(fixtures .. name .. ".etdp") then
    n, diff = compare(fixtures .. name .. ".etdp")
    t.ok(n > 0 and not diff, ("%s: the trace and the HTML agree on every run (%d slices)"):format(name, n)
      .. (diff and (": " .. diff) or ""))
  end
end
for _, name in ipairs { "cycles", "multiblock", "small", "real_add_x10" } do
  local path = t.corpus .. "/" .. name .. ".etdp"
  if t.exists(path) then
    n, diff = compare(path, 20)
    t.ok(n > 0 and not diff, ("corpus %s: the trace and the HTML agree (%d slices)"):format(name, n)
      .. (diff and (": " .. diff) or ""))
  else
    t.skip(path .. " missing")
  end
end
t.done()
