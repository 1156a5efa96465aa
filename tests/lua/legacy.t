#!/usr/bin/env etinspect
-- legacy.t - legacy profiler dumps (prof_result_t blocks, spec §9) opened
-- as an Inspector: values, framework tax, memory, and malformed dumps.
-- The dumps are written by profwriter.lua from the struct layouts; the
-- expected values are what ExecuTorch's parse_profiler_results.py gives for
-- the same bytes (legacy_cases.lua).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local pw = require "profwriter"
local cases = require "legacy_cases"
local repr = etinspect._core.repr
etinspect.on_warning(function() end) -- warnings are checked through insp.warnings

local function open(name_or_bytes, ts)
  local bytes = cases[name_or_bytes] and cases.bytes(name_or_bytes) or name_or_bytes
  return etinspect.Inspector { profile_results_data = bytes, time_scale = ts }
end

local function list(l)
  local out = {}
  for i, x in ipairs(l) do out[i] = math.type(x) == "integer" and tostring(x) or repr(x) end
  return table.concat(out, ", ")
end

local function event(insp, block, name)
  for _, b in ipairs(insp.event_blocks) do
    if b.name == block then
      for _, ev in ipairs(b.events) do if ev.name == name then return ev end end
    end
  end
end

-- one block x 3 iterations, and a second block; ticks in ns -----------------
local insp = open("main", "ns")
t.is(insp.format, "profile_results", "format")
t.is(#insp.event_blocks, 2, "two block names, two EventBlocks")
t.is(insp.event_blocks[1].name, "load", "blocks in first-appearance order")
local exe = insp.event_blocks[2]
t.is(exe.num_runs, 3, "three iterations of 'execute' are its runs")
t.is(exe.target_time_scale, "ms", "ns ticks come out in ms")
t.is(#exe.events, 5, "five events in 'execute'")
local ev = event(insp, "execute", "Method::execute")
t.is(list(ev.perf_data.raw), "3.0, 3.5, 3.0", "Method::execute durations (2999999 ns rounds to 3.0 ms)")
t.ok(ev.chain_index == -1 and ev.instruction_id == 0, "chain -1, instruction 0")
ev = event(insp, "execute", "native_call_add.out")
t.is(list(ev.perf_data.raw), "1.2346, 1.0, 1.0001", "add: 1234567 ns -> 1.2346; 1000050 ns -> 1.0001 (4 decimals)")
t.ok(ev.chain_index == 0 and ev.instruction_id == 1, "add: chain 0, instruction 1")
t.is(list(ev.start_time), "2100000, 10100000, 20100000", "start_time: raw ticks per iteration")
t.is(repr(ev.perf_data.p50), "1.0001", "perf data over the iterations: p50")
t.is(repr(ev.perf_data.max), "1.2346", "perf data over the iterations: max")
ev = event(insp, "execute", cases.LONG)
t.ok(ev ~= nil, "a 32-character name with no NUL is read whole")
t.is(list(ev.perf_data.raw), "0.0003, 0.0007, 0.001", "333 ns steps, rounded to 4 decimals")
t.is(list(event(insp, "load", "Program::load_method").perf_data.raw), "0.05", "load block: one iteration")

-- framework tax: Method::execute minus native_call_* and delegate_execute
local tax = insp.framework_tax
t.is(#tax, 1, "one block has a framework tax ('load' has no kernels)")
t.is(tax[1].block, "execute", "framework tax: its block")
t.is(list(tax[1].exec_time), "3.0, 3.5, 3.0", "framework tax: execution time")
t.is(list(tax[1].kernel_and_delegate_time), "2.3349, 2.3007, 2.5010999999999997",
  "framework tax: kernels and delegates, summed as the reference sums")
t.is(list(tax[1].framework_tax), "22.17, 34.27, 16.63", "framework tax (%)")

-- memory: per allocator, from the global allocator table
local mem = insp.memory_allocations
t.is(#mem, 2, "memory: one entry per block")
local m1, m2 = mem[1].allocations, mem[2].allocations
t.ok(#m1 == 2 and m1[1].allocator_name == "method_allocator" and m1[1].total_allocations_done == 384
  and m1[2].allocator_name == "planned_memory" and m1[2].total_allocations_done == 4096,
  "memory of 'load': two allocators, 256 + 128 and 4096 bytes")
t.ok(#m2 == 1 and m2[1].allocator_name == "planned_memory" and m2[1].total_allocations_done == 1024,
  "memory of 'execute': an allocator defined in another block, first iteration only")
t.is(table.concat(insp.event_blocks[1].allocators, ","), "method_allocator,planned_memory", "block.allocators")
t.is(#insp.warnings, 0, "no warnings")

-- time scales: us divides by 1000, cycles and ms are integers
insp = open("main", "us")
t.is(list(event(insp, "execute", "native_call_add.out").perf_data.raw), "1234.567, 1000.0, 1000.05", "us ticks")
t.is(list(insp.framework_tax[1].kernel_and_delegate_time), "2334.9, 2300.666, 2501.049", "us: kernel sums")
insp = open("main", "cycles")
t.is(insp.target_time_scale, "cycles", "cycles stay cycles")
t.is(list(insp.framework_tax[1].exec_time), "3000000, 3500000, 2999999", "cycles: integer execution times")
t.is(list(insp.framework_tax[1].kernel_and_delegate_time), "2334900, 2300666, 2501049", "cycles: integer sums")
t.is(list(insp.framework_tax[1].framework_tax), "22.17, 34.27, 16.63", "cycles: the same tax")
insp = open("main", "ms")
t.is(event(insp, "execute", "native_call_mul.out").perf_data.raw[3], 1000000.0, "ms ticks are not divided")

-- the lexicographically largest Method::execute list is the execution time
insp = open("two_exec", "ns")
t.is(list(insp.framework_tax[1].exec_time), "3.0, 4.0", "two Method::execute events: the larger list")
t.is(list(insp.framework_tax[1].framework_tax), "66.67, 75.0", "... and its tax")

-- maximum counts: the runtime's default slot counts, every slot used
insp = open("full", "ns")
local evs = insp.event_blocks[1].events
t.is(#evs, 1024, "1024 profiling entries (the maximum)")
t.ok(evs[1024].name == "native_call_op1" and evs[1024].instruction_id == 1023
  and evs[1024].perf_data.raw[1] == 0.001, "the last entry")
local fm = insp.memory_allocations[1].allocations
t.ok(#fm == 32 and fm[32].allocator_name == "allocator_31" and fm[32].total_allocations_done == 16896,
  "32 allocators, 1024 allocations summed per allocator")

-- big-endian devices
local be = {}
for i, b in ipairs(cases.main) do
  local c = {}
  for k, v in pairs(b) do c[k] = v end
  c.big_endian = true
  be[i] = c
end
insp = open(pw.dump(be), "ns")
t.is(list(event(insp, "execute", "native_call_add.out").perf_data.raw), "1.2346, 1.0, 1.0001",
  "a big-endian dump gives the same values")
t.ok(insp.warnings[1] and insp.warnings[1]:find("big%-endian"), "... and says it is big-endian")

-- an allocation naming no allocator: a warning, not the reference's KeyError
insp = open(pw.dump { { name = "x", mem = { { 7, 10 } } } }, "ns")
t.ok(insp.memory_allocations[1].allocations[1].allocator_name == nil
  and insp.memory_allocations[1].allocations[1].allocator_id == 7, "unknown allocator: no name, its id")
t.ok(insp.warnings[1] and insp.warnings[1]:find("allocator id 7 which no allocator table names"),
  "unknown allocator: a warning")

insp = open(pw.dump { { name = "x", mem = { { 7, 10 }, { 9, 1 }, { 7, 5 }, { 8, 2 } } } }, "ns")
t.is(#insp.warnings, 1, "several unknown allocators: one warning for the block")
t.ok(insp.warnings[1]:find("allocator id 7 and 2 other ids which no allocator table names", 1, true),
  "... naming the first id and how many others")
-- a warning per block name, 20,000 of them: each given once, all in insp.warnings, in order
do
  local blocks, given = {}, 0
  for i = 1, 20000 do blocks[i] = { name = "b" .. i, mem = { { 7, 10 } } } end
  etinspect.on_warning(function() given = given + 1 end)
  local many = open(pw.dump(blocks), "ns")
  local w = many.warnings
  etinspect.on_warning(function() end)
  t.ok(#w == 20000 and given == 20000, "20,000 blocks naming no allocator: 20,000 warnings, each given once ("
    .. #w .. ", " .. given .. ")")
  local in_order = true
  for i = 1, #w do in_order = in_order and w[i]:find("block 'b" .. i .. "':", 1, true) ~= nil end
  t.ok(in_order, "... in insp.warnings in the blocks' order")
end
local al = insp.memory_allocations[1].allocations
t.ok(#al == 3 and al[1].allocator_id == 7 and al[1].total_allocations_done == 15 and al[2].allocator_id == 9
  and al[3].allocator_id == 8, "allocations summed per allocator, in first-seen order")

-- zero execution time: the tax is undefined (the reference divides by zero)
insp = open(pw.dump { { name = "z", events = { { "Method::execute", -1, 0, 5, 5 }, { "native_call_a", 0, 1, 5, 5 } } } }, "ns")
local z = insp.framework_tax[1].framework_tax[1]
t.ok(z ~= z, "zero execution time: NaN tax")
t.ok(insp.warnings[1]:find("Method::execute took 0 in iteration 0"), "zero execution time: a warning")

-- malformed dumps --------------------------------------------------------------
local function bad(bytes, pattern, desc)
  t.raises(function() open(bytes, "ns") end, pattern, desc)
end
local good = cases.bytes("main")
-- an empty input: no blocks, as the legacy parser prints nothing; a warning
local prepr = require("etinspect.pyrepr").repr
local empty = open("", "ns")
t.is(#empty.event_blocks .. " " .. prepr(empty.warnings), "0 ['<profile_results_data>: empty file: no profiling blocks']",
     "empty input: no blocks, one warning")
-- cut after the last block's entries in use: read as the legacy parser reads it
local cut = open(good:sub(1, #good - 24), "ns")
local whole = open(good, "ns")
t.is(#cut.warnings .. " " .. cut.warnings[1], ("1 <profile_results_data>: block 3 'execute' at offset 1472 is cut short: its 8 profiling, "
     .. "2 allocator and 4 memory slots end at offset 2096, the file at 2072; its entries in use end at offset 2072 "
     .. "and are read, as the legacy parser reads them"), "cut after the entries in use: a warning")
t.is(prepr(cut.event_blocks[2].events[2].perf_data.raw), prepr(whole.event_blocks[2].events[2].perf_data.raw),
     "... and the values of the whole dump")
t.is(cut.memory_allocations[2].allocations[1].total_allocations_done, 1024, "... the last block's memory too")
t.ok(open(good:sub(1, #good - 23), "ns").warnings[1]:find("the file at 2073; its entries in use end at offset 2072", 1, true),
     "cut inside the unused slots: read, with the warning")
bad(good:sub(1, #good - 25),
  "block 3 at offset 1472: truncated: its entries in use %(5 profiling, 0 allocator, 1 memory%) end at offset 2072, the file at 2071",
  "cut inside an entry in use: an error")
bad(good:sub(1, 40), "block 0 at offset 0: truncated header: 40 bytes left, prof_header_t needs 64",
  "truncated header")
bad(good:sub(1, 64 + 56 + 10),
  "block 0 at offset 0: truncated: its entries in use %(1 profiling, 2 allocator, 3 memory%) end at offset 224, the file at 130",
  "truncated regions")
bad(good .. string.rep("\0", 20), "block 4 at offset 2096: truncated header: 20 bytes left", "trailing bytes")
bad(pw.dump { { name = "v", version = 2 } },
  "block 0 'v' at offset 0: prof_ver %(offset 32%) is 2, expected 1", "wrong version")
bad(cases.bytes("main"):sub(1, 1472) .. pw.block { name = "v", version = 3 },
  "block 3 'v' at offset 1472: prof_ver %(offset 1504%) is 3, expected 1", "wrong version in a later block")
bad(pw.dump { { name = "c", events = { { "a", 0, 0, 0, 1 } }, counts = { prof = 2 } } },
  "block 0 at offset 0: prof_entries %(offset 40%) is 2, above max_prof_entries %(1%)", "prof_entries over its maximum")
bad(pw.dump { { name = "c", counts = { alloc = 1 } } },
  "allocator_entries %(offset 48%) is 1, above max_allocator_entries %(0%)", "allocator_entries over its maximum")
bad(pw.dump { { name = "c", counts = { mem = 5 }, max_mem = 4 } },
  "mem_prof_entries %(offset 56%) is 5, above max_mem_prof_entries %(4%)", "mem_prof_entries over its maximum")
local function iters(b1, b2) return pw.dump { b1, b2 } end
bad(iters({ name = "i", events = { { "a", 0, 0, 0, 1 } } }, { name = "i", events = { { "a", 0, 0, 0, 1 }, { "b", 0, 1, 1, 2 } } }),
  "block 'i' at offset 120 %(iteration 1%) has 2 profiling entries, iteration 0 at offset 0 has 1",
  "iterations with different numbers of entries")
bad(iters({ name = "i", events = { { "a", 0, 0, 0, 1 } } }, { name = "i", events = { { "b", 0, 0, 0, 1 } } }),
  "entry 0 %(offset 184%) is 'b', 'a' in iteration 0", "iterations with different names")
bad(iters({ name = "i", mem = { { 0, 8 } } }, { name = "i", mem = { { 0, 8 }, { 0, 8 } } }),
  "has 2 memory allocation entries, iteration 0 has 1", "iterations with different numbers of allocations")
bad(iters({ name = "i", mem = { { 0, 8 } } }, { name = "i", mem = { { 1, 8 } } }),
  "allocation 0 %(offset 136%) has allocator id 1, 0 in iteration 0", "iterations with different allocators")
bad(iters({ name = "i", mem = { { 0, 8 } } }, { name = "i", mem = { { 0, 9 } } }),
  "allocation 0 %(offset 140%) has size 9, 8 in iteration 0", "iterations with different sizes")
t.raises(function() etinspect.Inspector { profile_results_data = good, time_scale = "s" } end,
  "time scales are ns, us, ms and cycles", "seconds refused")
t.raises(function() etinspect.Inspector { profile_results_data = good, target_time_scale = "us" } end,
  "profile results take time_scale", "target_time_scale refused for profile results")
t.raises(function() etinspect.Inspector { etdump_data = good, time_scale = "us" } end,
  "time_scale is for profile results", "time_scale refused for an ETDump")
t.raises(function() etinspect.Inspector { profile_results_data = good, etdump_data = good } end,
  "Expecting exactly one of etdump_path, etdump_data, profile_results_path", "two inputs refused")
t.raises(function() etinspect.Inspector { profile_results_path = t.build .. "/no/such/file" } end,
  "no/such/file: No such file or directory", "missing file")
t.done()
