#!/usr/bin/env etinspect
-- scripts.t - the bundled report scripts and the host's script handling,
-- on the sample fixture (Default + 3 Execute runs; see tests/fixtures/sample.json).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local sample = t.build .. "/fixtures/sample.etdp"
if not t.exists(sample) then t.skip_all(sample .. " not built (run make)") end
local bin = os.getenv("ETINSPECT") or "etinspect"

local function run(cmd)
  local p = io.popen(cmd .. " 2>&1; echo \"status=$?\"")
  local out = p:read("a")
  p:close()
  local status = tonumber(out:match("status=(%d+)\n$"))
  return out:gsub("status=%d+\n$", ""), status
end

local insp = etinspect.Inspector{etdump_path = sample}

-- top_ops: durations in the sample are exact ns; means over 3 runs
local top = require("etinspect.scripts.top_ops").summary(insp)
t.is(#top, 4, "top_ops: four node types")
t.is(top[1]["node type"], "convolution", "top_ops: convolution first")
t.near(top[1]["avg (ms)"], (0.1200 + 0.1268 + 0.1236) / 3, 1e-12, "top_ops: convolution's mean time")
t.is(top[2]["node type"], "delegate:0", "top_ops: the delegated event next")
local pct = 0
for _, r in top:rows() do pct = pct + r["avg %"] end
t.near(pct, 100, 1e-9, "top_ops: shares add up to 100")
t.near(top[4]["cdf %"], 100, 1e-9, "top_ops: cdf ends at 100")

-- framework_tax: execute - (convolution + DELEGATE_CALL + addmm) per run
local tax = require("etinspect.scripts.framework_tax").table(insp)
t.is(#tax, 3, "framework_tax: one row per Execute run")
t.near(tax[1]["execute (ms)"], 0.184, 1e-12, "framework_tax: run 1 execute")
t.near(tax[1]["kernels and delegates (ms)"], 0.120 + 0.042 + 0.018, 1e-12, "framework_tax: run 1 kernels")
t.near(tax[1]["framework tax %"], 0.004 / 0.184 * 100, 1e-9, "framework_tax: run 1 percentage")

local del = require("etinspect.scripts.delegation").table(insp)
t.is(#del, 2, "delegation: delegated and not delegated")
t.near(del[1]["share %"] + del[2]["share %"], 100, 1e-9, "delegation: shares add up")
t.is(del[2].calls, 2, "delegation: two native kernels")

-- the host
local out, st = run(bin .. " --list-scripts")
t.ok(st == 0 and out:find("top_ops") and out:find("framework_tax") and out:find("delegation"),
  "--list-scripts lists the three scripts")
out, st = run(bin .. " --help framework_tax")
t.ok(st == 0 and out:find("usage: etinspect framework_tax ETDUMP") and out:find("%-%-format F"),
  "--help SCRIPT shows usage and arguments")
out, st = run(bin .. " top_ops " .. sample .. " --format tsv --top 2")
t.ok(st == 0 and out:find("^\tnode type\tcount\tavg %(ms%)\tavg %%\tcdf %%\n0\tconvolution\t1\t"),
  "running a bundled script by name, TSV output")
out, st = run(bin .. " top_ops")
t.ok(st == 2 and out:find("top_ops: an ETDump path is required") and not out:find("traceback"),
  "a usage error: message, no traceback, exit 2")
out, st = run(bin .. " top_ops /nonexistent.etdp")
t.ok(st == 1 and out:find("No such file or directory"), "an unreadable input: exit 1")
out, st = run(bin .. " no_such_script")
t.ok(st == 1 and out:find("neither a file nor a bundled script"), "an unknown script name")
local tmp = os.tmpname()
local f = io.open(tmp, "w")
f:write('return { description = "my report", args = { {"X", "an arg"} }, run = function(a) print("ran with", a[1]) end }\n')
f:close()
out, st = run(bin .. " --help " .. tmp)
t.ok(st == 0 and out:find("my report") and out:find("an arg"), "--help on a script file that declares itself")
out, st = run(bin .. " " .. tmp .. " hello")
t.ok(st == 0 and out:find("ran with\thello"), "a declared script file's run() gets the arguments")
f = io.open(tmp, "w")
f:write('print(#arg, arg[0] ~= nil, ...)\n')
f:close()
out, st = run(bin .. " " .. tmp .. " a b")
t.ok(st == 0 and out:find("^2\ttrue\ta\tb"), "a plain script gets arg and ...")
out, st = run(bin .. " -e 'error(\"boom\")'")
t.ok(st == 1 and out:find("boom") and out:find("stack traceback"), "-e: an error prints a traceback, exit 1")
out, st = run(bin .. " -l etinspect -e 'print(etinspect.version)'")
t.ok(st == 0 and out:find("^%d+%.%d+%.%d+"), "-l loads a module into a global")
os.remove(tmp)

-- modules: time per model module from the sample's ETRecord; kernels and
-- whole delegate calls count, once per module they touch
local rec = t.build .. "/fixtures/sample.etrecord"
if t.exists(rec) then
  local linked <close> = etinspect.Inspector { etdump_path = sample, etrecord = rec }
  local m = require("etinspect.scripts.modules").table(linked)
  local conv, call, addmm = (0.1200 + 0.1268 + 0.1236) / 3, (0.042 + 0.0454 + 0.0438) / 3,
                            (0.018 + 0.0197 + 0.0189) / 3
  t.is(#m, 4, "modules: the root and three modules")
  t.is(m[1].module .. " " .. m[1].type .. " " .. m[1].events, "L__self__ __main__.SampleModel 3",
       "modules: the root module holds every counted event")
  t.near(m[1]["time (ms)"], conv + call + addmm, 1e-12, "modules: the root's time")
  t.is(m[2].module .. " " .. m[2].path, "L__self___conv L['self'].conv", "modules: conv second")
  t.near(m[2]["share %"], conv / (conv + call + addmm) * 100, 1e-9, "modules: conv's share")
  t.is(m[3].module .. " " .. m[3].events, "L__self___block 1", "modules: the delegate call counts once for block")
  t.near(m[3]["time (ms)"], call, 1e-12, "modules: block's time is the DELEGATE_CALL's")
  out, st = run(bin .. " modules " .. sample .. " --etrecord " .. rec .. " --format tsv --top 1")
  t.ok(st == 0 and out:find("^\tmodule\tpath\ttype\tevents\ttime %(ms%)\tshare %%\n0\tL__self__\t\t__main__.SampleModel\t3\t"),
       "modules from the command line, TSV")
  out, st = run(bin .. " modules " .. sample)
  t.ok(st == 2 and out:find("modules: %-%-etrecord ETRECORD is required"), "modules without --etrecord: usage error")
  out, st = run(bin .. " top_ops " .. sample .. " --etrecord " .. rec .. " --format tsv --top 1")
  t.ok(st == 0 and out:find("\n0\tconvolution\t1\t"), "the other scripts take --etrecord too")
else
  t.ok(true, "skipped: " .. rec .. " not built")
end
t.done()
