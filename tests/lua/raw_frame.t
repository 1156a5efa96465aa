#!/usr/bin/env etinspect
-- raw_frame.t - insp:raw_frame() (docs/lua-api.md, "Raw events as a
-- Frame"): one row per raw event, cell for cell what run:events() gives
-- (name, ticks, kind, instruction id, chain index, delegate ids), the
-- block each run was merged into, durations bit for bit the model's
-- samples where the runs' profile events map one to one onto the block's
-- events, missing cells where a kind has no such field, include_units,
-- and the contract (unknown option, extra argument, closed inspector).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

local fx = t.build .. "/fixtures"
if not t.exists(fx .. "/wrap.etdp") then t.skip_all("build/fixtures missing (run make)") end
etinspect.on_warning(function() end)

local COLUMNS = { "run", "block", "name", "kind", "start_time", "end_time", "duration",
                  "instruction_id", "chain_index", "delegate_debug_id_int", "delegate_debug_id_str" }

local function same(a, b) return a == b or (a ~= a and b ~= b) end

-- every row against run:events(); returns the number of rows compared
local function check_events(insp, df, label)
  local bad, i = nil, 0
  for ri, run in insp:runs() do
    for _, name, s, e, kind, iid, chain, did in run:events() do
      i = i + 1
      local r = df[i]
      if not r then bad = bad or string.format("row %d missing", i); break end
      local want_did_int = math.type(did) == "integer" and did or nil
      local want_did_str = type(did) == "string" and did or nil
      local prof, ids = kind == "profile", kind == "profile" or kind == "debug"
      local want = {
        run = ri, name = ids and name or nil, kind = kind,
        start_time = prof and s or nil, end_time = prof and e or nil,
        instruction_id = ids and iid or nil, chain_index = ids and chain or nil,
        delegate_debug_id_int = want_did_int, delegate_debug_id_str = want_did_str,
      }
      for k, v in pairs(want) do
        if not same(r[k], v) and not bad then
          bad = string.format("row %d: %s = %s, want %s", i, k, tostring(r[k]), tostring(v))
        end
      end
      if not prof and r.duration == r.duration and not bad then
        bad = string.format("row %d: a %s event's duration %s, want NaN", i, kind, tostring(r.duration))
      end
    end
  end
  if not t.is(#df, i, label .. ": one row per raw event") then return end
  if not t.ok(not bad, label .. ": every cell as run:events() gives it") then t.diag(bad) end
  return i
end

-- durations against the model's samples: for each block and each of its
-- runs, the run's profile rows in order against the block's events with
-- perf data in order, where the counts agree (no repeated event)
local function check_durations(insp, df, label)
  local rows_of = {}   -- run -> its profile rows' durations
  local block_of = {}  -- run -> block
  for i = 1, #df do
    local r = df[i]
    if r.kind == "profile" then
      local l = rows_of[r.run] or {}
      rows_of[r.run] = l
      l[#l + 1] = r.duration
      block_of[r.run] = r.block
    end
  end
  local compared, bad = 0, nil
  for b, blk in ipairs(insp.event_blocks) do
    local evs = {}
    for _, ev in ipairs(blk.events) do if ev.perf_data then evs[#evs + 1] = ev end end
    local k = 0
    for run = 1, #rows_of + 1000 do
      if block_of[run] == b then
        k = k + 1
        local l = rows_of[run]
        if #l == #evs then
          for j, ev in ipairs(evs) do
            local want = ev.perf_data.raw[k]
            if not same(l[j], want) and not bad then
              bad = string.format("block %d run %d event %d: %s, want %s", b, run, j,
                string.format("%.17g", l[j]), string.format("%.17g", want))
            end
            compared = compared + 1
          end
        end
      end
    end
  end
  t.ok(compared > 0, label .. ": durations compared with the model's samples (" .. compared .. ")")
  if not t.ok(not bad, label .. ": durations are the model's samples bit for bit") then t.diag(bad) end
end

local dumps = {
  { "wrap", fx .. "/wrap.etdp" }, { "appendix_c", fx .. "/appendix_c.etdp" },
  { "alloc_small", fx .. "/alloc_small.etdp" }, { "groups", fx .. "/groups.etdp" },
  { "delegate_ids", fx .. "/delegate_ids.etdp" }, { "debug_only", fx .. "/debug_only.etdp" },
}
for _, name in ipairs { "small", "medium", "debug", "alloc", "cycles" } do
  local p = t.corpus .. "/" .. name .. ".etdp"
  if t.exists(p) then dumps[#dumps + 1] = { name, p } end
end

for _, d in ipairs(dumps) do
  local label, path = d[1], d[2]
  local opts = { etdump_path = path }
  if label == "cycles" then opts.source_time_scale, opts.target_time_scale = "cycles", "cycles" end
  local ok, insp = pcall(etinspect.Inspector, opts)
  if t.ok(ok, label .. ": opens") then
    local df = insp:raw_frame()
    local cols = df.columns
    t.is(table.concat(cols, ","), table.concat(COLUMNS, ","), label .. ": the columns, in order")
    check_events(insp, df, label)
    if label ~= "debug_only" and label ~= "alloc" then check_durations(insp, df, label) end
    insp:close()
  else
    t.diag(insp)
  end
end

-- blocks: runs 1 and 3 share a signature (spec §3.5)
do
  local insp = etinspect.Inspector { etdump_path = fx .. "/groups.etdp" }
  local df = insp:raw_frame()
  local got = {}
  for i = 1, #df do got[i] = df[i].run .. ":" .. df[i].block end
  t.is(table.concat(got, " "), "1:1 2:2 2:2 3:1", "groups: runs 1 2 2 3 in blocks 1 2 2 1")
end

-- the 32-bit wrap-around, in ns (durations are ticks)
do
  local insp = etinspect.Inspector { etdump_path = fx .. "/wrap.etdp", target_time_scale = "ns" }
  local df = insp:raw_frame { include_units = true }
  t.is(df.columns[7], "duration (ns)", "include_units: 'duration (ns)'")
  local got = {}
  for i = 1, #df do got[i] = string.format("%g", df[i]["duration (ns)"]) end
  t.is(table.concat(got, " "), "496 512 0 2296", "wrap: 2^32 - start + end, delegated too")
  t.is(insp:raw_frame{ include_units = false }.columns[7], "duration", "include_units = false")
end

-- the same frame whatever the threads (the runs are split among them, each
-- with its own strings, merged in order)
if t.exists(t.corpus .. "/medium.etdp") then
  local bin = os.getenv("ETINSPECT") or (t.build .. "/etinspect")
  local code = "local i = require('etinspect').Inspector{etdump_path = '" .. t.corpus ..
    "/medium.etdp'} io.write(i:raw_frame():to_tsv())"
  local one, s1 = t.run("ETINSPECT_THREADS=1 '" .. bin .. "' -e \"" .. code .. "\"")
  local many, s5 = t.run("ETINSPECT_THREADS=5 '" .. bin .. "' -e \"" .. code .. "\"")
  t.ok(s1 == 0 and s5 == 0 and #one > 1000000, "medium: the raw frame's TSV with 1 and 5 threads")
  t.ok(one == many, "... the same bytes")
end

-- a legacy profiler dump has no raw runs: no rows, the same columns
do
  local legacy = t.src .. "/tests/legacy/big_endian.bin"
  if t.exists(legacy) then
    local insp = etinspect.Inspector { profile_results_path = legacy }
    local df = insp:raw_frame()
    t.is(#df, 0, "legacy dump: no rows")
    t.is(table.concat(df.columns, ","), table.concat(COLUMNS, ","), "legacy dump: the columns")
  end
end

-- the contract
do
  local insp = etinspect.Inspector { etdump_path = fx .. "/wrap.etdp" }
  t.is(t.err_of(insp.raw_frame, insp, { units = true }),
    "Inspector:raw_frame: unknown option 'units' (accepted: include_units)", "an unknown option")
  t.is(t.err_of(insp.raw_frame, insp, { include_units = 1 }),
    "Inspector:raw_frame: option 'include_units' must be a boolean, got number", "a wrong type")
  local e = t.err_of(insp.raw_frame, insp, nil, 2)
  t.ok(e and e:find("too many arguments", 1, true), "an extra argument raises: " .. tostring(e))
  local df = insp:raw_frame()
  insp:close()
  e = t.err_of(insp.raw_frame, insp)
  t.ok(e and e:find("inspector is closed", 1, true), "a closed inspector raises: " .. tostring(e))
  t.is(#df, 4, "a raw frame made before close keeps its rows")
  t.is(df[4].name, "Method::execute", "... and its cells")
end

t.done()
