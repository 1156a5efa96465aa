#!/usr/bin/env etinspect
-- columns.t - the columnar path (docs/lua-api.md, "Columns"):
-- insp:run_columns and insp:column_names against run:events() event by
-- event on the sample fixture and on every corpus dump; reuse of a cols
-- table; errors.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
etinspect.on_warning(function() end)

local kinds = {empty = 0, profile = 1, debug = 2, allocation = 3}

-- every event of every run of `path`, both ways; returns events compared
local function compare(path)
  local insp = etinspect.Inspector{etdump_path = path}
  local names, cols, n, bad = insp:column_names(), nil, 0, nil
  for _, run in insp:runs() do
    cols = insp:run_columns(run.index, cols)
    local i = 0
    for _, name, s, e, kind in run:events() do
      i = i + 1
      local want_name = (kind == "profile" or kind == "debug") and name or nil
      local got_name = cols.name[i] ~= 0 and names[cols.name[i]] or nil
      if cols.kind[i] ~= kinds[kind] or got_name ~= want_name or cols.start_time[i] ~= s
         or cols.end_time[i] ~= e then
        bad = bad or string.format("run %d event %d: %s %s %s %s", run.index, i, kind,
          tostring(name), tostring(s), tostring(e))
      end
    end
    n = n + i
    if cols.n ~= i then bad = bad or string.format("run %d: cols.n %d, events %d", run.index, cols.n, i) end
  end
  insp:close()
  return n, bad
end

local n, bad = compare(t.build .. "/fixtures/sample.etdp")
t.ok(n > 0 and not bad, "sample.etdp: run_columns equals run:events() (" .. (bad or n .. " events") .. ")")

local insp = etinspect.Inspector{etdump_path = t.build .. "/fixtures/sample.etdp"}
local cols = insp:run_columns(1)
t.is(insp:column_names(), insp:column_names(), "one names table per inspector")
local seen = {}
for id in pairs(insp:column_names()) do seen[#seen + 1] = id end
t.is(#seen, #insp:column_names(), "names are a sequence of ids 1..n")
local again = insp:run_columns(1, cols)
t.is(again, cols, "a cols table given is refilled and returned")
t.raises(function() insp:run_columns(0) end, "run index 0 out of range 1%.%.", "index 0")
t.raises(function() insp:run_columns(1, 5) end, "table expected", "cols not a table")
insp:close()
t.raises(function() insp:run_columns(1) end, "inspector is closed", "closed inspector")

local corpus = t.shared and (t.shared .. "/corpus/etdump") or nil
if corpus and t.exists(corpus .. "/small.etdp") then
  for _, f in ipairs{"small", "multiblock", "debug", "alloc", "cycles", "real_bundled_debug"} do
    local m, b = compare(corpus .. "/" .. f .. ".etdp")
    t.ok(m > 0 and not b, f .. ".etdp: run_columns equals run:events() (" .. (b or m .. " events") .. ")")
  end
else
  t.skip("ET_SHARED corpus not found: corpus dumps not compared")
end
t.done()
