#!/usr/bin/env etinspect
-- raw_frame_model.t - insp:raw_frame() and the model it needs (docs/lua-api.md,
-- "Raw events as a Frame"): on an Inspector whose model is still pending,
-- raw_frame builds the event blocks alone (which block holds each run),
-- leaving the samples and statistics for the first view of the model;
-- the build's warnings are given once, at raw_frame; the model completed
-- afterwards is the model built first, bit for bit; and on large.etdp (the
-- columns of 4 MiB and more, in mappings of their own) the rows of the
-- first and last runs are what run:events() gives.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

local fx = t.build .. "/fixtures"
if not t.exists(fx .. "/repeat.etdp") then t.skip_all("build/fixtures missing (run make)") end

local seen = {}
etinspect.on_warning(function(msg) seen[#seen + 1] = msg end)

local function count(pattern)
  local n = 0
  for _, w in ipairs(seen) do if w:find(pattern, 1, true) then n = n + 1 end end
  return n
end

-- every statistic and sample of every event, as text (%.17g: bit for bit)
local function model_text(insp)
  local out = {}
  for b, blk in ipairs(insp.event_blocks) do
    out[#out + 1] = string.format("block %d %s runs %d", b, blk.name, blk.num_runs or -1)
    for _, ev in ipairs(blk.events) do
      local pd = ev.perf_data
      if pd then
        local raw = {}
        for k, v in ipairs(pd.raw) do raw[k] = string.format("%.17g", v) end
        out[#out + 1] = string.format("%s p10 %.17g p50 %.17g p90 %.17g avg %.17g min %.17g max %.17g raw %s",
          tostring(ev.name), pd.p10, pd.p50, pd.p90, pd.avg, pd.min, pd.max, table.concat(raw, ","))
      end
    end
  end
  return table.concat(out, "\n")
end

-- repeat.etdp: its build warns that repeated events keep the last one
do
  local path = fx .. "/repeat.etdp"
  local first = etinspect.Inspector { etdump_path = path }
  local want = model_text(first)   -- the model built first, statistics included
  first:close()
  seen = {}
  local insp = etinspect.Inspector { etdump_path = path }
  t.is(count("only the last occurrence"), 0, "repeat: no warning about the model at open")
  local df = insp:raw_frame()
  t.ok(#df > 0, "repeat: raw_frame has rows")
  t.is(count("only the last occurrence"), 1, "repeat: raw_frame builds the blocks and gives their warning")
  local got = model_text(insp)
  t.is(count("only the last occurrence"), 1, "repeat: the model completed later does not warn again")
  t.ok(got == want, "repeat: samples and statistics completed after raw_frame are the model built first")
  if got ~= want then t.diag(got) t.diag(want) end
  local w = 0
  for _, m in ipairs(insp.warnings) do if m:find("only the last occurrence", 1, true) then w = w + 1 end end
  t.is(w, 1, "repeat: insp.warnings holds it once")
  insp:close()
end

-- groups.etdp: the blocks raw_frame reads are the model's (runs 1 and 3 share one)
do
  local insp = etinspect.Inspector { etdump_path = fx .. "/groups.etdp" }
  local df = insp:raw_frame()
  local blocks = {}
  for i = 1, #df do blocks[i] = df[i].block end
  t.is(table.concat(blocks, " "), "1 2 2 1", "groups: the block column before the model is viewed")
  t.is(#insp.event_blocks, 2, "groups: then the model's two blocks")
  t.is(insp:raw_frame()[4].block, 1, "groups: raw_frame again, over the completed model")
end

-- large.etdp: columns in mappings of their own (4 MiB and more)
local L = t.corpus .. "/large.etdp"
if t.exists(L) then
  local insp = etinspect.Inspector { etdump_path = L }
  local df = insp:raw_frame()
  t.is(#df, 1000502, "large: 1,000,502 rows")
  local nruns = 0
  for ri in insp:runs() do nruns = ri end
  local function check_run(ri, row0)
    local bad, i = nil, row0
    for ri2, run in insp:runs() do
      if ri2 == ri then
        for _, name, s, e, kind, iid, chain in run:events() do
          i = i + 1
          local r = df[i]
          if not (r.run == ri and r.name == name and r.kind == kind and r.start_time == s and
                  r.end_time == e and r.instruction_id == iid and r.chain_index == chain) then
            bad = bad or string.format("row %d (run %d): %s %s %s %s", i, ri, tostring(r.name),
              tostring(r.start_time), tostring(r.end_time), tostring(r.kind))
          end
        end
        break
      end
    end
    return bad, i - row0
  end
  local bad, n = check_run(1, 0)
  t.ok(n > 0 and not bad, "large: the first run's rows are run:events()")
  if bad then t.diag(bad) end
  -- the last run's rows end the frame
  local last_n = 0
  for ri, run in insp:runs() do
    if ri == nruns then for _ in run:events() do last_n = last_n + 1 end end
  end
  bad, n = check_run(nruns, #df - last_n)
  t.ok(n == last_n and not bad, "large: the last run's rows end the frame")
  if bad then t.diag(bad) end
  insp:close()
  t.is(#df, 1000502, "large: the frame outlives its inspector")
  t.ok(df[#df].run == nruns and df[1].run == 1, "large: its cells are readable after close")
else
  t.skip("large.etdp absent")
end

t.done()
