#!/usr/bin/env etinspect
-- parity26.t - the reference's output where it is right (issue 26), from
-- Lua, on dumps made for each detail (tests/fixtures/*.json):
--  * trailing_null: an event logging an Int and then a Null keeps both
--    entries - #ev.debug_data and #ev:debug_data_raw() are 2, as the
--    reference's list [4, None] and the command line's JSON;
--  * late_outputs: the first of three runs logged no program outputs;
--    blk.run_output is the second run's (the reference extends its empty
--    list with the first non-empty one), without a warning;
--  * tostring says "1 run", "1 event block", "1 event";
--  * the "plain" style shows floats as pandas does: 0.0 and NaN.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local pr = require "etinspect.pyrepr"
local display = require "etinspect.display"
local warnings = {}
etinspect.on_warning(function(m) warnings[#warnings + 1] = m end)

local fixtures = t.build .. "/fixtures/"
for _, f in ipairs { "trailing_null", "late_outputs" } do
  if not t.exists(fixtures .. f .. ".etdp") then t.skip_all(fixtures .. f .. ".etdp not built (make fixtures)") end
end

-- trailing Null entries
local insp = etinspect.Inspector { etdump_path = fixtures .. "trailing_null.etdp" }
local ev = insp.event_blocks[1].events[1]
t.is(#ev.debug_data, 2, "#ev.debug_data counts a trailing Null")
t.is(ev.debug_data[1], 4, "... the Int first")
t.is(ev.debug_data[2], nil, "... the Null as nil")
t.is(#ev:debug_data_raw(), 2, "#ev:debug_data_raw() counts it too")
t.is(#ev:debug_data_of_run(1), 2, "so does ev:debug_data_of_run(1)")
t.is(pr.repr(ev.debug_data), "[4, None]", "pyrepr: [4, None], as the reference's list")
t.is(display.render("plain", ev.debug_data), "{4, nil}\n", "the REPL's display shows both entries")
local n = 0
for _ in ipairs(ev.debug_data) do n = n + 1 end
t.is(n, 1, "ipairs still stops at the nil (documented in debug-data.md)")
local full = etinspect.Inspector { etdump_path = fixtures .. "late_outputs.etdp" }
t.is(getmetatable(full.event_blocks[1].run_output), nil, "a sequence without nils stays a plain table")

-- program outputs from the second run on
warnings = {}
local blk = full.event_blocks[1]
t.is(#full.event_blocks, 1, "late_outputs: the three runs make one block")
t.is(blk.num_runs, 3, "... of 3 runs")
t.is(pr.repr(blk.run_output), "[7]", "blk.run_output: the second run's outputs")
t.is(pr.repr(blk:run_output_raw()), "[{'kind': 'int', 'value': 7}]", "blk:run_output_raw() describes the same run")
t.is(#blk:run_output_of_run(1), 0, "run 1 logged none (blk:run_output_of_run(1))")
t.is(pr.repr(blk:run_output_of_run(3)), "[7]", "run 3 the same as run 2")
t.is(#warnings, 0, "no warning: the reference accepts runs before the first with outputs")

-- singular counts
t.is(tostring(blk), "EventBlock 'Execute' (3 runs, 1 event)", "tostring: 1 event")
t.is(tostring(insp.event_blocks[1]), "EventBlock 'Execute' (1 run, 1 event)", "tostring: 1 run")
t.ok(tostring(insp):find("(1 event block, 1 event, ns -> ms)", 1, true) ~= nil, "tostring: 1 event block")
local two = etinspect.Inspector { etdump_path = fixtures .. "sample.etdp" }
t.ok(tostring(two):find("(2 event blocks, 10 events, ns -> ms)", 1, true) ~= nil, "plural kept for 2")

-- the plain style: floats as pandas shows them
local F = etinspect.Frame
local f = F.new({ "a", "b", "c" }, { { a = 0.0, b = 1, c = 0 / 0 }, { a = 2.5, b = 2, c = 3.0 } })
t.is(f:render("plain"), "  a  b    c\n0.0  1  NaN\n2.5  2  3.0\n", "plain: 0.0 and NaN, as pandas")
t.is(f:render("markdown"), "|   a | b |   c |\n|----:|--:|----:|\n|   0 | 1 | nan |\n| 2.5 | 2 |   3 |\n",
  "markdown keeps tabulate's format g (pandas' to_markdown)")
t.done()
