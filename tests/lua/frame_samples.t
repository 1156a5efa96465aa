#!/usr/bin/env etinspect
-- frame_samples.t - a model's samples given back and built again
-- (model.h et_inspector_drop_samples / et_inspector_ready_samples,
-- _core.drop_samples; issue 24's fleet row: open_many's frames do not keep
-- 16 bytes a sample resident in every model).  After the samples are
-- given back, everything that reads them - a frame's raw and start_time
-- cells made before or after, Event.start_time and PerfData (raw,
-- percentile, stddev) of views made before or after, the TSV, trace,
-- HTML and SQLite exports, the diff - gives the values of an Inspector that never
-- gave them back, bit for bit (durations compared as their 8 bytes),
-- also after the Inspector is closed and collected (the suite runs under
-- ASan+UBSan in make test-asan).  Refused where a second build could
-- differ or the dump's bytes may not outlive the Inspector: a delegate
-- time-scale converter, bytes given as etdump_data.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local core = etinspect._core

local fx = t.build .. "/fixtures"
local inputs = {
  fx .. "/sample.etdp", fx .. "/delegates.etdp", fx .. "/stats10.etdp",
  t.corpus .. "/medium.etdp", t.corpus .. "/debug.etdp", t.corpus .. "/multiblock.etdp",
}
for _, p in ipairs(inputs) do
  if not t.exists(p) then t.skip_all(p .. " missing (run make fixtures; the shared corpus)") end
end
etinspect.on_warning(function() end)

local function bits(x) return x == nil and "nil" or string.pack("<d", x) end

-- every sample of every event of `insp`: raw as bytes, start ticks, as text
local function model_samples(insp)
  local out = {}
  for bi, b in ipairs(insp.event_blocks) do
    for ei, ev in ipairs(b.events) do
      local pd, st = ev.perf_data, ev.start_time
      local parts = { bi .. "." .. ei }
      if pd then
        for k, v in ipairs(pd.raw) do parts[#parts + 1] = bits(v) .. (st and ("@" .. st[k]) or "") end
        parts[#parts + 1] = bits(pd:percentile(37.5)) .. bits(pd.stddev) .. bits(pd.p50)
      elseif st then
        parts[#parts + 1] = "st" .. #st
      end
      out[#out + 1] = table.concat(parts, ",")
    end
  end
  return table.concat(out, "\n")
end

-- the raw and start_time cells of a frame, as text
local function frame_samples(df)
  local out = {}
  for i = 1, #df do
    local r, s = df.raw[i], df.start_time[i]
    local parts = { tostring(i) }
    if r then for k, v in ipairs(r) do parts[#parts + 1] = bits(v) end else parts[#parts + 1] = "nil" end
    if s then
      for _, v in ipairs(s) do parts[#parts + 1] = math.type(v) .. v end
    else
      parts[#parts + 1] = "nil"
    end
    out[#out + 1] = table.concat(parts, ",")
  end
  return table.concat(out, "\n")
end

local tmp = os.tmpname()
local sqlite3 = os.execute("command -v sqlite3 >/dev/null 2>&1")
local function sql(db, q)
  local p = assert(io.popen("sqlite3 -init /dev/null -batch '" .. db .. "' '" .. q .. "' 2>&1"))
  local out = p:read("a")
  p:close()
  return out
end

for _, path in ipairs(inputs) do
  local name = path:match("[^/]+$")
  local ref <close> = etinspect.Inspector { etdump_path = path }
  local want_model, want_frame = model_samples(ref), frame_samples(ref:to_dataframe())
  ref:save_data_to_tsv(tmp .. ".ref.tsv")
  ref:write_trace(tmp .. ".ref.json")

  local insp = etinspect.Inspector { etdump_path = path }
  local ev1 = insp.event_blocks[1].events[1] -- a view made before
  local pd1 = ev1.perf_data
  local before = insp:to_dataframe()         -- a frame made before
  t.is(core.drop_samples(insp), true, name .. ": the samples are given back")
  t.is(core.drop_samples(insp), false, name .. ": given back once")
  t.is(frame_samples(before), want_frame, name .. ": a frame made before reads the same cells")
  t.ok(core.drop_samples(insp), name .. ": reading the cells built them again; given back again")
  if pd1 then
    t.is(bits(pd1:percentile(90)) .. bits(pd1.raw[#pd1.raw]), bits(ref.event_blocks[1].events[1].perf_data:percentile(90))
         .. bits(ref.event_blocks[1].events[1].perf_data.raw[#pd1.raw]), name .. ": a PerfData made before reads the same")
    core.drop_samples(insp)
  end
  t.is(tostring(ev1.start_time and #ev1.start_time), tostring(ref.event_blocks[1].events[1].start_time
       and #ref.event_blocks[1].events[1].start_time), name .. ": an Event made before reads its start times")
  core.drop_samples(insp)
  t.is(model_samples(insp), want_model, name .. ": Event.start_time, PerfData after: the same, bit for bit")
  core.drop_samples(insp)
  t.is(frame_samples(insp:to_dataframe()), want_frame, name .. ": a frame made after: the same cells")
  core.drop_samples(insp)
  insp:save_data_to_tsv(tmp .. ".tsv")
  t.is(t.read(tmp .. ".tsv"), t.read(tmp .. ".ref.tsv"), name .. ": save_data_to_tsv: the same bytes")
  core.drop_samples(insp)
  insp:write_trace(tmp .. ".json")
  t.is(t.read(tmp .. ".json"), t.read(tmp .. ".ref.json"), name .. ": write_trace: the same bytes")
  core.drop_samples(insp)
  local html = require("etinspect.html")
  t.is(html.render(insp, { title = "x" }), html.render(ref, { title = "x" }), name .. ": the HTML report: the same page")
  core.drop_samples(insp)
  local dd = etinspect.diff(ref, insp)
  local dr = etinspect.diff(ref, ref)
  t.is(dd:to_tsv(), dr:to_tsv(), name .. ": diff against the reference: as the reference against itself")
  if sqlite3 then
    core.drop_samples(insp)
    os.remove(tmp .. ".db")
    os.remove(tmp .. ".ref.db")
    insp:to_sqlite(tmp .. ".db", { dump = "x" })
    ref:to_sqlite(tmp .. ".ref.db", { dump = "x" })
    local q = "SELECT * FROM samples ORDER BY 1, 2, 3, 4"
    t.is(sql(tmp .. ".db", q), sql(tmp .. ".ref.db", q), name .. ": to_sqlite: the same samples table")
  end
  -- closed and collected with its samples given back: its frames still read them
  local f = insp:to_dataframe():sort("avg (ms)", true)
  t.ok(core.drop_samples(insp), name .. ": given back before close")
  insp:close()
  insp, ev1, pd1, before = nil, nil, nil, nil
  collectgarbage()
  collectgarbage()
  local fs, rs = frame_samples(f), frame_samples(ref:to_dataframe():sort("avg (ms)", true))
  t.is(fs, rs, name .. ": after close and collection, a sorted frame's cells are the same")
end

-- the fleet: open_many's frame gives its models' samples back
local d <close> = etinspect.open_many(inputs)
local df = d:to_dataframe()
local dropped = 0
for _, insp in ipairs(d.inspectors) do
  if not core.drop_samples(insp) then dropped = dropped + 1 end
end
t.is(dropped, #inputs, "open_many:to_dataframe gave back every dump's samples (drop_samples: false)")
local want = {}
for i, path in ipairs(inputs) do
  local ref <close> = etinspect.Inspector { etdump_path = path }
  want[i] = frame_samples(ref:to_dataframe())
end
local got, at = {}, 1
for i, insp in ipairs(d.inspectors) do
  local n = #insp:to_dataframe()
  got[i] = frame_samples(df:head(at + n - 1):tail(n))
  at = at + n
end
-- the row labels of the slices differ from 1.. of the references: compare cells only
local function strip(s) return (s:gsub("\n?%d+,", "\n")) end
for i = 1, #inputs do
  t.is(strip(got[i]), strip(want[i]), "open_many: " .. d.names[i] .. "'s raw and start_time cells")
end
local g = df:group_by("dump"):agg { n = { "avg (ms)", "count" } }
t.is(#g, #inputs, "group_by over the frame: one group per dump")
local last = strip(frame_samples(df:tail(3)))
for _, insp in ipairs(d.inspectors) do core.drop_samples(insp) end
d:close()
collectgarbage()
collectgarbage()
t.is(strip(frame_samples(df:tail(3))), last, "after close and collection: the cells read the same")

-- a dump rewritten in place (same size) after its samples were given
-- back: reading them again gives other values or an error, never a crash
do
  local copy = tmp .. ".etdp"
  local f = assert(io.open(copy, "wb"))
  f:write(t.read(fx .. "/stats10.etdp"))
  f:close()
  local dc <close> = etinspect.open_many({ copy })
  local frame = dc:to_dataframe()
  f = assert(io.open(copy, "r+b"))
  local size = f:seek("end")
  math.randomseed(7)
  for _ = 1, 200 do
    f:seek("set", math.random(0, size - 1))
    f:write(string.char(math.random(0, 255)))
  end
  f:close()
  local ok, err = pcall(frame_samples, frame)
  t.ok(ok or tostring(err):find(copy, 1, true),
       "a dump rewritten in place: the cells read, or raise naming the file (" .. tostring(err):sub(1, 200) .. ")")
  ok, err = pcall(function() return dc.inspectors[1].event_blocks[1].events[1].perf_data.raw end)
  t.ok(ok or tostring(err):find(copy, 1, true),
       "... and an Event's samples (" .. tostring(err):sub(1, 200) .. ")")
  os.remove(copy)
end

-- refused where a second build could differ, or the bytes could go
local conv <close> = etinspect.Inspector { etdump_path = fx .. "/delegates.etdp",
  delegate_time_scale_converter = function(_, ticks) return ticks / 1e6 end }
local _ = conv.event_blocks
t.is(core.drop_samples(conv), false, "a delegate time-scale converter: not given back")
local bytes <close> = etinspect.Inspector { etdump_data = t.read(fx .. "/sample.etdp") }
_ = bytes.event_blocks
t.is(core.drop_samples(bytes), false, "etdump_data: not given back")
local pending <close> = etinspect.Inspector { etdump_path = fx .. "/sample.etdp" }
t.is(core.drop_samples(pending), false, "a model not built yet: nothing to give back")
local closed = etinspect.Inspector { etdump_path = fx .. "/sample.etdp" }
closed:close()
t.is(core.drop_samples(closed), false, "a closed Inspector: false")

for _, s in ipairs { ".ref.tsv", ".tsv", ".ref.json", ".json", ".db", ".ref.db" } do os.remove(tmp .. s) end
os.remove(tmp)
t.done()
