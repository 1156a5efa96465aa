#!/usr/bin/env etinspect
-- api_harness.t - a fixed-seed slice of the API harness (tests/fuzz/
-- api_driver.lua; the libFuzzer target is build/fuzz/fuzz_api, `make
-- fuzz`): seeds 1..300, 100 steps each, in a child etinspect working in a
-- scratch directory.  It must exit 0 with no sanitizer report, and reach
-- every method and field of every type.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"

local fx = t.build .. "/fixtures"
if not t.exists(fx .. "/sample.etdp") then t.skip_all("build/fixtures missing (run make)") end
local bin = os.getenv("ETINSPECT") or (t.build .. "/etinspect")
local FIRST, LAST, STEPS = 1, 300, 100

local work = os.tmpname()
os.remove(work)
assert(os.execute("mkdir -p '" .. work .. "'"))
local out, err = work .. "/stdout.txt", work .. "/stderr.txt"
local cmd = ("cd '%s' && '%s' '%s/tests/fuzz/api_run.lua' '%s' '%s' '%s' %d %d %d >'%s' 2>'%s'"):format(
  work, bin, t.src, work, fx, t.src, FIRST, LAST, STEPS, out, err)
local ok, how, code = os.execute(cmd)
local stdout, stderr = t.read(out), t.read(err)
t.ok(ok and code == 0, ("seeds %d..%d x %d steps: exit 0 (%s %s)"):format(FIRST, LAST, STEPS, how, code))
local report = stderr:match("==%d+==ERROR.-\n") or stderr:match("[^\n]*runtime error[^\n]*") or stderr:match("[^\n]*PANIC[^\n]*")
t.ok(report == nil, "no sanitizer report or panic" .. (report and (": " .. report) or ""))
if not (ok and code == 0) then t.diag(stderr:sub(-3000)) end
local seeds = 0
for _ in stdout:gmatch("seed %d+: %d+ calls\n") do seeds = seeds + 1 end
t.is(seeds, LAST - FIRST + 1, "every seed ran to its end")
local calls, errors, reached, total = stdout:match("calls=(%d+) errors=(%d+) covered=(%d+)/(%d+)")
t.ok(calls and tonumber(calls) > 10000, "calls made: " .. tostring(calls) .. " (" .. tostring(errors) .. " raised errors, as they should)")
t.ok(reached and reached == total, ("every method and field reached: %s of %s"):format(reached, total))
if reached ~= total then t.diag(stdout:match("uncovered:[^\n]*") or "") end
os.execute("rm -rf '" .. work .. "'")
t.done()
