#!/usr/bin/env etinspect
-- etrecord_budget.t - the ETRecord JSON budget from Lua and the command line
-- (docs/etrecord.md "Budgets"): parse_etrecord's and the Inspector's option,
-- its contract, and the messages that name the entry and the budget.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"

-- a Lua pattern matching s literally
local function plain(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

local rec = t.build .. "/fixtures/sample.etrecord"
local dump = t.build .. "/fixtures/sample.etdp"
if not t.exists(rec) or not t.exists(dump) then t.skip_all("build/fixtures/sample.etrecord missing (make)") end

-- the sample's program is 4276 bytes: a budget of 300 admits it (cap 4800
-- bytes), one of 50 does not (cap 800 bytes)
local r = etinspect.parse_etrecord(rec, { etrecord_json_budget = 300 })
t.ok(r:get_exported_program() ~= nil, "parse_etrecord: a budget of 300 reads the sample's program")
r:close()
local msg = "sample.etrecord: entry 'edge_dialect_exported_program/forward': declares 4276 bytes "
  .. "uncompressed, above the cap of 800 bytes per entry (raise it with --etrecord_json_budget "
  .. "or the Lua option etrecord_json_budget)"
t.raises(function() etinspect.parse_etrecord(rec, { etrecord_json_budget = 50 }) end, plain(msg),
  "parse_etrecord: a budget of 50 refuses the program, naming the entry and the cap")
t.raises(function() etinspect.Inspector { etdump_path = dump, etrecord = rec, etrecord_json_budget = 50 } end,
  plain(msg), "Inspector: etrecord_json_budget passed on")
local insp = etinspect.Inspector { etdump_path = dump, etrecord = rec, etrecord_json_budget = 300 }
t.ok(insp.etrecord ~= nil, "Inspector: a budget of 300 links the sample")
insp:close()

-- the contract
t.raises(function() etinspect.parse_etrecord(rec, { json_budget = 5 }) end,
  plain("etinspect.parse_etrecord: unknown option 'json_budget' (accepted: etrecord_json_budget)"),
  "parse_etrecord: an unknown option")
t.raises(function() etinspect.parse_etrecord(rec, { etrecord_json_budget = "big" }) end,
  plain("etinspect.parse_etrecord: option 'etrecord_json_budget' must be an integer, got string"),
  "parse_etrecord: a string budget")
t.raises(function() etinspect.parse_etrecord(rec, { etrecord_json_budget = 0 }) end,
  plain("option 'etrecord_json_budget' must be a number of JSON values from 1 to 268435455, got 0"),
  "parse_etrecord: a budget of 0")
local parsed = etinspect.parse_etrecord(rec)
t.raises(function() etinspect.Inspector { etdump_path = dump, etrecord = parsed, etrecord_json_budget = 9 } end,
  plain("etrecord_json_budget: only with etrecord = PATH"), "Inspector: a budget with an ETRecord already parsed")
parsed:close()

-- the command line
local function run(args)
  local p = io.popen(os.getenv("ETINSPECT") .. " " .. args .. " 2>&1; echo \"rc=$?\"")
  local out = p:read("a")
  p:close()
  return out
end
local out = run("--etdump_path " .. dump .. " --etrecord_path " .. rec .. " --etrecord_json_budget 50 --quiet")
t.ok(out:find(msg, 1, true) and out:find("rc=1", 1, true), "CLI: a budget of 50: the message, exit 1")
out = run("--etdump_path " .. dump .. " --etrecord_path " .. rec .. " --etrecord_json_budget 300 --quiet")
t.is(out, "rc=0\n", "CLI: a budget of 300: exit 0")
out = run("--etdump_path " .. dump .. " --etrecord_path " .. rec .. " --etrecord_json_budget 1x --quiet")
t.ok(out:find("argument --etrecord_json_budget: expected a number of JSON values from 1 to 268435455, found '1x'", 1, true)
  and out:find("rc=2", 1, true), "CLI: a budget that is not a number: usage error, exit 2")
out = run("--etdump_path " .. dump .. " --etrecord_json_budget 300 --quiet")
t.ok(out:find("argument --etrecord_json_budget: only with --etrecord_path", 1, true), "CLI: a budget without a record")
out = run("--etdump_path " .. dump .. " --etrecord_path " .. rec .. " --etrecord_json_budget 50 --quiet --html_path "
  .. os.tmpname() .. ".html")
t.ok(out:find(msg, 1, true) and out:find("rc=1", 1, true), "CLI: --html_path's Inspector gets the budget too")
t.done()
