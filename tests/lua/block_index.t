#!/usr/bin/env etinspect
-- block_index.t - frames carry block_index, so that two blocks of one name
-- stay apart: multiblock.etdp (corpus) has a method with branches, two
-- blocks named "Execute" (13 and 12 events).  group_by and filter on
-- block_index tell them apart; the TSV keeps the reference's columns.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
etinspect.on_warning(function() end)

local path = t.corpus .. "/multiblock.etdp"
if not t.exists(path) then t.skip_all(path .. " missing") end
local insp = etinspect.Inspector { etdump_path = path }
local df = insp:to_dataframe()
t.is(table.concat(df.columns, ",", 1, 3), "event_block_name,event_name,block_index",
  "to_dataframe: block_index after event_block_name")

local function groups(f)
  local out = {}
  for _, r in f:rows() do out[#out + 1] = ("%s/%s=%d"):format(r.event_block_name, tostring(r.block_index), r.n) end
  return table.concat(out, " ")
end
t.is(groups(df:group_by("event_block_name", "block_index"):agg { n = { "event_name", "count" } }),
  "Default/1=3 Execute/2=13 Execute/3=12", "group_by(name, block_index): the two Execute blocks apart")
local merged = df:group_by("event_block_name"):agg { n = { "event_name", "count" } }
t.is(#merged, 2, "group_by(name) alone merges them, as pandas would (the reason for block_index)")
local b3 = df:filter(function(r) return r.block_index == 3 end)
t.is(#b3, 12, "filter on block_index: block 3's 12 events")
t.is(#b3, #insp.event_blocks[3].events, "... insp.event_blocks[3]'s (the same 1-based index)")
local blk = insp.event_blocks[2]:to_dataframe()
t.is(blk.columns[3], "block_index", "EventBlock:to_dataframe carries it too")
t.is(blk.block_index[1], 2, "... its block's index")
t.is(insp.event_blocks[2].events[1]:to_dataframe().columns[1], "event_name",
  "Event:to_dataframe: no block columns, as the reference")

-- the reference's TSV: unchanged
local tmp = os.tmpname()
insp:save_data_to_tsv(tmp)
local head = t.read(tmp):match("^[^\n]*")
os.remove(tmp)
t.is(head, "\tevent_block_name\tevent_name\tp10 (ms)\tp50 (ms)\tp90 (ms)\tavg (ms)\tmin (ms)\tmax (ms)\top_types\tis_delegated_op\tdelegate_backend_name\tstart_time",
  "save_data_to_tsv: the reference's columns, no block_index")
t.done()
