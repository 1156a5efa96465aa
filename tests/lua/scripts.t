#!/usr/bin/env etinspect
-- scripts.t - the bundled report scripts and the host's script handling,
-- on the sample fixture (Default + 3 Execute runs; see tests/fixtures/sample.json).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local sample = t.build .. "/fixtures/sample.etdp"
if not t.exists(sample) then t.skip_all(sample .. " not built (run make)") end
local bin = os.getenv("ETINSPECT") or "etinspect"

local run = t.run

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

-- upstream's names (pytorch/executorch PR 8033): blocks Execute::<method>,
-- their execute event Method::execute::<method> (tests/fixtures/upstream_names.json)
local ft = require("etinspect.scripts.framework_tax")
t.ok(ft.is_execute_event("Method::execute") and ft.is_execute_event("Method::execute::decode")
  and not ft.is_execute_event("Method::execute:") and not ft.is_execute_event("Method::init"),
  "framework_tax.is_execute_event: both names, nothing else")
t.ok(ft.is_execute_block("Execute") and ft.is_execute_block("Execute::forward")
  and not ft.is_execute_block("Default") and not ft.is_execute_block("Executor"),
  "framework_tax.is_execute_block: both names, nothing else")
local up = etinspect.Inspector{etdump_path = t.build .. "/fixtures/upstream_names.etdp"}
local utax = ft.table(up)
t.is(#utax, 4, "framework_tax, upstream names: one row per run of Execute::forward and Execute::decode")
t.is(utax[1].block, "Execute::forward", "framework_tax, upstream names: forward's block first")
t.is(utax[3].block, "Execute::decode", "framework_tax, upstream names: then decode's")
t.near(utax[1]["execute (ms)"], 0.000543, 1e-15, "framework_tax, upstream names: forward run 1: Method::execute::forward")
t.near(utax[1]["kernels and delegates (ms)"], 0.000101 + 0.000316 + 0.000071, 1e-15,
  "framework_tax, upstream names: forward run 1: embedding + DELEGATE_CALL + softmax")
t.near(utax[3]["execute (ms)"], 0.000339, 1e-15, "framework_tax, upstream names: decode run 1: Method::execute::decode")
t.near(utax[3]["kernels and delegates (ms)"], 4 * 0.000056, 1e-15, "framework_tax, upstream names: decode run 1: four kernels")
up:close()

local del = require("etinspect.scripts.delegation").table(insp)
t.is(#del, 2, "delegation: delegated and not delegated")
t.near(del[1]["share %"] + del[2]["share %"], 100, 1e-9, "delegation: shares add up")
t.is(del[2].calls, 2, "delegation: two native kernels")

-- the host
local out, st = run(bin .. " --list-scripts")
t.ok(st == 0 and out:find("top_ops") and out:find("framework_tax") and out:find("delegation")
  and out:find("\netrecord +Summarise an ETRecord"), "--list-scripts lists the scripts")
out, st = run(bin .. " --help framework_tax")
t.is(out, [[
Usage: etinspect framework_tax
       [--format {box,plain,markdown,tsv,csv,json}]
       [--source_time_scale {ns,us,ms,s,cycles}]
       [--target_time_scale {ns,us,ms,s,cycles}] [--etrecord ETRECORD]
       [--delegate_time_scale_converter CONV]
       [--delegate_metadata_parser PARSER] [--plugin FILE] [-h] etdump

Framework tax per run: Method::execute minus kernel and delegate time

Arguments:
   etdump                the ETDump to read

Options:
   --format {box,plain,markdown,tsv,csv,json}
                         output format (default: box)
   --source_time_scale {ns,us,ms,s,cycles}
                         unit of the raw timestamps (default: ns)
   --target_time_scale {ns,us,ms,s,cycles}
                         unit of the durations shown (default: ms)
   --etrecord ETRECORD   link the events to this ETRecord (op types, modules)
   --delegate_time_scale_converter CONV
                         delegate clock: NAME (converters, plugins) or FILE.lua
   --delegate_metadata_parser PARSER
                         delegate metadata: NAME (parsers, plugins) or FILE.lua
   --plugin FILE         a Lua file run first (registers parsers, converters)
   -h, --help            Show this help message and exit.
]], "--help SCRIPT shows exactly the script's declared arguments")
local out2 = run(bin .. " framework_tax --help")
t.is(out2, out, "SCRIPT --help shows the same")
out, st = run(bin .. " top_ops " .. sample .. " --format tsv --top 2")
t.ok(st == 0 and out:find("^\tnode type\tcount\tavg %(ms%)\tavg %%\tcdf %%\n0\tconvolution\t1\t"),
  "running a bundled script by name, TSV output")
out, st = run(bin .. " top_ops")
t.is(out, "etinspect: top_ops: missing argument 'etdump' (etinspect --help top_ops)\n",
  "a usage error: one line naming the script and the missing argument, no traceback")
t.is(st, 2, "a usage error: exit 2")
out, st = run(bin .. " top_ops " .. sample .. " --top many")
t.ok(st == 2 and out:find("top_ops: --top: expected an integer, got 'many'", 1, true),
  "a typed option: a bad value is named")
out, st = run(bin .. " top_ops " .. sample .. " --tpo 3")
t.ok(st == 2 and out:find("unknown option '--tpo'", 1, true) and out:find("Did you mean '--top'?", 1, true),
  "an unknown option: named, with a suggestion")
out, st = run(bin .. " top_ops /nonexistent.etdp")
t.ok(st == 1 and out:find("No such file or directory"), "an unreadable input: exit 1")
out, st = run(bin .. " no_such_script")
t.is(out, "etinspect: 'no_such_script' is neither a bundled or user script nor a file (etinspect --list-scripts)\n",
  "an unknown script name: no traceback")
t.is(st, 2, "an unknown script name: exit 2")
out, st = run(bin .. " top_op " .. sample)
t.ok(st == 2 and out:find("'top_op' is neither a bundled or user script nor a file. Did you mean top_ops?", 1, true),
  "a near miss: did you mean top_ops?")
out, st = run(bin .. " framework " .. sample)
t.ok(st == 2 and out:find("Did you mean framework_tax?", 1, true), "a prefix: did you mean framework_tax?")

-- a bundled script's name comes before a file of that name
local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir " .. dir)
for _, n in ipairs { "diff", "top_ops" } do
  local f = io.open(dir .. "/" .. n, "w")
  f:write('print("the file ran")\n')
  f:close()
end
out, st = run("cd " .. dir .. " && " .. bin .. " top_ops " .. sample .. " --format tsv --top 1")
t.ok(st == 0 and out:find("\n0\tconvolution\t1\t") and not out:find("the file ran"),
  "an entry named top_ops in the current directory does not shadow the bundled top_ops")
out, st = run("cd " .. dir .. " && " .. bin .. " diff " .. sample .. " " .. sample .. " --format csv")
t.ok(st == 0 and out:find("^,block,event,") and not out:find("the file ran"),
  "an entry named diff in the current directory does not shadow the bundled diff")
out, st = run("cd " .. dir .. " && " .. bin .. " ./top_ops")
t.ok(st == 1 and not out:find("the file ran") and out:find("./top_ops: a text file", 1, true),
  "./top_ops (a text file whose name does not end in .lua) is not run: an input error naming it")
os.execute("cp " .. dir .. "/top_ops " .. dir .. "/top_ops.lua")
out, st = run("cd " .. dir .. " && " .. bin .. " top_ops.lua")
t.ok(st == 0 and out == "the file ran\n", "top_ops.lua runs the file")
local f = io.open(dir .. "/notes", "w")
f:write("print('x')\n")
f:close()
out, st = run("cd " .. dir .. " && " .. bin .. " notes")
t.ok(st == 1 and out:find("notes: a text file, not an ETDump, ETRecord, BundledProgram, legacy profiler " ..
  "dump or debug buffer (etinspect runs a file as a Lua script only when its name ends in .lua)", 1, true),
  "a text file named without .lua is not run: the message says how")
os.execute("rm -rf " .. dir)

-- a script file that declares its arguments gets them parsed
local tmp = os.tmpname() .. ".lua"
f = io.open(tmp, "w")
f:write([[
return {
  description = "my report",
  args = {
    { "etdump", help = "the dump" },
    { "--top", type = "integer", default = 5, help = "rows" },
    { "--scale", type = "number", help = "a factor" },
    { "--names", args = "*", help = "names" },
    { "--verbose", type = "boolean", help = "say more" },
  },
  run = function(a)
    print(a.etdump, a.top, math.type(a.top), a.scale, a.verbose, #a.names, etinspect ~= nil)
  end,
}
]])
f:close()
out, st = run(bin .. " --help " .. tmp)
t.ok(st == 0 and out:find("my report") and out:find("%-%-top TOP +rows %(default: 5%)")
  and out:find("%-%-verbose +say more") and not out:find("%-%-format"),
  "--help on a script file shows exactly its declared arguments")
out, st = run(bin .. " " .. tmp .. " d.etdp --scale 2.5 --verbose --names a b")
t.is(out, "d.etdp\t5\tinteger\t2.5\ttrue\t2\ttrue\n", "a declared script's run() gets typed, parsed arguments")
out, st = run(bin .. " " .. tmp .. " d.etdp")
t.is(out, "d.etdp\t5\tinteger\tnil\tfalse\t0\ttrue\n", "defaults: integer default, absent flag false")
out, st = run(bin .. " " .. tmp .. " d.etdp --bogus")
t.ok(st == 2 and out:find("unknown option '--bogus'", 1, true), "a declared script: an unknown option is a usage error")
f = io.open(tmp, "w")
f:write('return { args = { { "x", hepl = "typo" } }, run = function() end }\n')
f:close()
out, st = run(bin .. " " .. tmp .. " 1")
t.ok(st == 1 and out:find("args[1]: unknown option 'hepl'", 1, true),
  "a declaration with an unknown key: named")
f = io.open(tmp, "w")
f:write('return { args = { { "--n", type = "float" } }, run = function() end }\n')
f:close()
out, st = run(bin .. " " .. tmp)
t.ok(st == 1 and out:find("args[1]: unknown type 'float' (string, integer, number, boolean)", 1, true),
  "a declaration with an unknown type: named")
f = io.open(tmp, "w")
f:write('return { description = "raw", run = function(a) print(#a, a[1], a[2]) end }\n')
f:close()
out, st = run(bin .. " " .. tmp .. " --x y")
t.is(out, "2\t--x\ty\n", "a script declaring no args gets them as they are")
f = io.open(tmp, "w")
f:write('print(#arg, arg[0] ~= nil, etinspect.version ~= nil, ...)\n')
f:close()
out, st = run(bin .. " " .. tmp .. " a b")
t.ok(st == 0 and out:find("^2\ttrue\ttrue\ta\tb"), "a plain script gets arg, ... and the etinspect global")
out, st = run(bin .. " --help " .. tmp)
t.ok(st == 0 and out:find("a plain script %(it declares no arguments"), "--help on a plain script says so")
out, st = run("printf 'print(\"stdin:\", ...)' | " .. bin .. " - p q")
t.is(out, "stdin:\tp\tq\n", "etinspect - reads the script from standard input")
out, st = run(bin .. " -e 'print(etinspect.version == require(\"etinspect\").version)'")
t.is(out, "true\n", "-e sees the etinspect global")
os.remove(tmp)
out, st = run(bin .. " /nonexistent/script.lua")
t.ok(st == 1 and out:find("/nonexistent/script.lua: No such file or directory", 1, true),
  "a missing script path: exit 1, named")
out, st = run(bin .. " -e 'error(\"boom\")'")
t.ok(st == 1 and out:find("boom") and out:find("stack traceback"), "-e: an error prints a traceback, exit 1")
out, st = run(bin .. " -l etinspect -e 'print(etinspect.version)'")
t.ok(st == 0 and out:find("^%d+%.%d+%.%d+"), "-l loads a module into a global")
-- an -e chunk that makes reading and writing globals raise: the host's
-- later steps (-l, arg, the REPL's start) report it, never abort
local hostile = " -e 'require = nil; setmetatable(_G, {__index = function() error(\"boom-get\") end, "
  .. "__newindex = function() error(\"boom-set\") end})'"
local set_only = " -e 'setmetatable(_G, {__newindex = function() error(\"boom-set\") end})'"
for _, case in ipairs{
  {hostile, " -l string", "boom%-get", "-l after it"},
  {hostile, " -i </dev/null", "boom%-set", "the REPL after it (arg)"},
  {set_only, " " .. t.src .. "/tests/lua/tap.lua", "boom%-set", "a script after it (arg)"},
  {" -e 'require = nil; setmetatable(_G, {__index = function(_, k) if k == \"require\" then "
    .. "error(\"boom-require\") end end})'", " -i </dev/null", "boom%-require", "the REPL's start"},
} do
  out, st = run(bin .. case[1] .. case[2])
  t.ok(st == 1 and out:find("^etinspect: %(command line%):1: " .. case[3]) and not out:find("PANIC"),
    "an -e chunk whose _G metamethods raise, then " .. case[4] .. ": the error, exit 1")
end

-- etinspect FILE: inputs by content
out, st = run(bin .. " " .. sample .. " --quiet --tsv_path /dev/stdout")
t.ok(st == 0 and out:find("^\tevent_block_name\tevent_name"), "etinspect DUMP: the command line, by content")
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
  out, st = run(bin .. " " .. rec)
  t.ok(st == 0 and out:find("^ETRecord '.-sample.etrecord' %(6 entries, methods: forward%)\nexport_graph_id: 0\n" ..
    "graphs: edge_dialect_graph_module\n\nmethod +instructions +delegate calls +num_outs entries +edge program nodes\n" ..
    "forward +3 +1 +3 +5\n"), "etinspect ETRECORD: the summary")
  out, st = run(bin .. " " .. rec .. " " .. sample .. " --quiet --tsv_path /dev/stdout")
  t.ok(st == 0 and out:find("\n2\tExecute\tnative_call_convolution.out\t.-%['aten.convolution.default'%]"),
    "etinspect RECORD DUMP: linked, whatever the order")
  out, st = run(bin .. " top_ops " .. sample .. " --etrecord " .. rec .. " --format tsv --top 1")
  t.ok(st == 0 and out:find("\n0\tconvolution\t1\t"), "the other scripts take --etrecord too")
else
  t.skip(rec .. " not built")
end
-- a traceback names the library's functions one way: package.loaded holds
-- the module once ("etinspect"), so Lua's lookup of a function's name does
-- not depend on its table walk (it named 'etinspect.init.Inspector' in
-- about half the runs); the hash seed differs from run to run
do
  local tmp = os.tmpname()
  local script = tmp .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write('require("etinspect").Inspector{etdump_path = "/nonexistent/x.etdp"}\n')
  f:close()
  local names = {}
  for _ = 1, 12 do
    local out = run(bin .. " " .. script)
    names[out:match("in function '([^']*Inspector)'") or "none"] = true
  end
  os.remove(script)
  os.remove(tmp)
  local seen = {}
  for k in pairs(names) do seen[#seen + 1] = k end
  table.sort(seen)
  t.is(table.concat(seen, ", "), "etinspect.Inspector", "a traceback names etinspect.Inspector in 12 runs of 12")
  t.is(package.loaded["etinspect.init"], true, "package.loaded['etinspect.init'] is not a second copy of the module")
end

t.done()
