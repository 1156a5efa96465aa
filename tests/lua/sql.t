#!/usr/bin/env etinspect
-- sql.t - Inspector:sql and Dumps:sql (lua/etinspect/sql.lua, the virtual
-- tables of src/core/output/sqlvtab.c): a query's result as a Frame with
-- the model's own numbers (PerfData, the blocks, the raw samples), NULL
-- as a missing value, several dumps as one dataset, and the errors.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local sample = t.build .. "/fixtures/sample.etdp"
local stats10 = t.build .. "/fixtures/stats10.etdp"
if not (t.exists(sample) and t.exists(stats10)) then
  t.skip_all("build/fixtures not built (run make fixtures)")
end
etinspect.on_warning(function() end)

local insp <close> = etinspect.Inspector { etdump_path = sample }
local f = insp:sql("SELECT block_index, event_index, name, p50, avg, num_samples FROM events ORDER BY block_index, event_index")
t.ok(etinspect.Frame.is_frame(f), "insp:sql gives a Frame")
t.is(table.concat(f.columns, ","), "block_index,event_index,name,p50,avg,num_samples", "the result's columns, in order")
local cols = {}
for _, c in ipairs(f.columns) do cols[c] = f:column(c) end
local n, same = 0, true
for b, blk in ipairs(insp.event_blocks) do
  for e, ev in ipairs(blk.events) do
    n = n + 1
    local row = {}
    for c, v in pairs(cols) do row[c] = v[n] end
    local pd = ev.perf_data
    if row.block_index ~= b - 1 or row.event_index ~= e - 1 or row.name ~= ev.name
      or (pd and (row.p50 ~= pd.p50 or row.avg ~= pd.avg or row.num_samples ~= #pd.raw))
      or (not pd and (row.p50 ~= nil or row.num_samples ~= 0)) then
      same = false
      t.diag(string.format("row %d: %s %s", n, tostring(row.name), tostring(row.p50)))
    end
  end
end
t.ok(same and n == #f and n > 0, "events: the model's names and PerfData, row for row (" .. n .. " events)")

-- the samples are the raw durations, run by run
local s = insp:sql("SELECT duration FROM samples WHERE block_index = 1 AND event_index = 0 ORDER BY run")
local raw = insp.event_blocks[2].events[1].perf_data.raw
local ok_raw = #s == #raw and #raw > 0
for i = 1, #raw do ok_raw = ok_raw and s:column("duration")[i] == raw[i] end
t.ok(ok_raw, "samples: the PerfData's raw durations in run order")

-- NULL is a missing value; a result with no rows keeps its columns
local nul = insp:sql("SELECT NULL AS x, 1 AS y")
t.ok(nul:column("x")[1] == nil and nul:column("y")[1] == 1, "NULL is a missing value")
local none = insp:sql("SELECT name FROM events WHERE 0")
t.ok(#none == 0 and none.columns[1] == "name", "no rows: an empty Frame with the columns")

-- several dumps as one dataset
local dumps <close> = etinspect.open_many({ sample, stats10 })
local counts = dumps:sql("SELECT dump, count(*) AS n FROM events GROUP BY dump ORDER BY dump")
local want = {}
for i, name in ipairs(dumps.names) do
  local k = 0
  for _, blk in ipairs(dumps.inspectors[i].event_blocks) do k = k + #blk.events end
  want[name] = k
end
t.ok(#counts == 2 and counts:column("n")[1] == want[counts:column("dump")[1]]
     and counts:column("n")[2] == want[counts:column("dump")[2]], "dumps:sql: every dump under its name")

-- errors
t.raises(function() insp:sql("SELECT nope FROM events") end, "SQL: no such column: nope", "an unknown column")
t.raises(function() insp:sql("DELETE FROM events") end, "may not be modified", "a write is refused")
t.raises(function() insp:sql("ATTACH ':memory:' AS x") end, "not authorized", "ATTACH is refused")
t.raises(function() insp:sql("SELECT 1; SELECT 2") end, "only one statement", "one statement at a time")
t.raises(function() insp:sql(42) end, "Inspector:sql: bad argument #1 %(an SQL query expected, got number%)",
  "a query that is not a string")
t.raises(function() insp:sql("SELECT 1 AS a, 2 AS a") end, "two columns named 'a'", "two result columns of one name")
t.raises(function() insp:sql("SELECT 1", 2) end, "Inspector:sql: too many arguments %(it takes 1, got 2%)",
  "an extra argument")
t.raises(function() insp:sql("") end, "an empty query", "an empty query")
local err = t.err_of(function() insp:sql("SELECT nope") end)
t.ok(err and not err:find("sql.lua", 1, true), "the error is the caller's (no library position): " .. tostring(err))
local closed = etinspect.Inspector { etdump_path = sample }
closed:close()
t.raises(function() closed:sql("SELECT 1") end, "closed", "a closed Inspector")
t.done()
