#!/usr/bin/env etinspect
-- many_files.t - the number of dumps open together is not bounded by the
-- number of mappings (issue 25, item 13): the kernel refuses a process
-- more than vm.max_map_count mappings (open_many of 70,000 dumps failed at
-- the 65,423rd with "cannot map file").  Past the mapping budget
-- (ETINSPECT_MAX_MAPPINGS, lowered here to 100) an input is read into
-- memory instead; the results are the same.  Each case is a child
-- process, so that the variable is read at its start.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"

local bin = os.getenv("ETINSPECT") or "etinspect"
local src = t.corpus .. "/real_add_x10.etdp"
if not t.exists(src) then t.skip_all("corpus not found") end
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -m 700 " .. q(dir) .. " " .. q(dir .. "/dumps")))
local data = t.read(src)
local N = 300
for i = 1, N do
  local f = assert(io.open(string.format("%s/dumps/d%03d.etdp", dir, i), "wb"))
  f:write(data)
  f:close()
end

-- open_many over the directory; prints the dumps, the mappings of its
-- files, the rows, and writes the dataset's TSV to $2
local child = dir .. "/child.lua"
local f = assert(io.open(child, "w"))
f:write([[
local etinspect = require "etinspect"
local d = etinspect.open_many(arg[1])
local maps = 0
for l in io.lines("/proc/self/maps") do
  if l:find(arg[1], 1, true) then maps = maps + 1 end
end
local df = d:to_dataframe()
d:save_data_to_tsv(arg[2])
print(#d, maps, #df)
d:close()
]])
f:close()

local function run(env, out)
  return t.run(string.format("%s %s %s %s %s", env, q(bin), q(child), q(dir .. "/dumps"), q(out)))
end

local base, s1 = run("", dir .. "/mapped.tsv")
local dumps, maps = base:match("^(%d+)\t(%d+)")
t.is(s1, 0, "open_many of " .. N .. " dumps, default budget: exit 0")
t.is(tonumber(dumps), N, "every dump opened")
t.is(tonumber(maps), N, "with the default budget every dump is mapped")

local low, s2 = run("ETINSPECT_MAX_MAPPINGS=100", dir .. "/budget.tsv")
dumps, maps = low:match("^(%d+)\t(%d+)")
t.is(s2, 0, "ETINSPECT_MAX_MAPPINGS=100: open_many of " .. N .. " dumps, exit 0")
if not t.ok(tonumber(dumps) == N and tonumber(maps) and tonumber(maps) <= 100,
            "ETINSPECT_MAX_MAPPINGS=100: " .. N .. " dumps open with at most 100 mapped") then
  t.diag(low)
end
t.ok(t.exists(dir .. "/budget.tsv") and t.read(dir .. "/budget.tsv") == t.read(dir .. "/mapped.tsv"),
     "the dataset's TSV is the same, read or mapped")

local none, s3 = run("ETINSPECT_MAX_MAPPINGS=0", dir .. "/none.tsv")
maps = select(2, none:match("^(%d+)\t(%d+)"))
t.ok(s3 == 0 and tonumber(maps) == 0, "ETINSPECT_MAX_MAPPINGS=0: nothing mapped (" .. tostring(maps) .. ")")

-- the command line: every input read into memory gives the same table
local a, sa = t.run(string.format("%s --etdump_path %s --quiet --tsv_path %s", q(bin),
                                  q(dir .. "/dumps"), q(dir .. "/cli_mapped.tsv")))
local b, sb = t.run(string.format("ETINSPECT_MAX_MAPPINGS=0 %s --etdump_path %s --quiet --tsv_path %s",
                                  q(bin), q(dir .. "/dumps"), q(dir .. "/cli_read.tsv")))
t.ok(sa == 0 and sb == 0 and t.read(dir .. "/cli_mapped.tsv") == t.read(dir .. "/cli_read.tsv"),
     "command line: the TSV of " .. N .. " dumps is the same with every input read into memory")
if sa ~= 0 or sb ~= 0 then t.diag(a .. b) end
-- the large dump too, where the mapping's pages are otherwise given back
local large = t.corpus .. "/medium.etdp"
local ma = t.run(string.format("%s --etdump_path %s --quiet --tsv_path %s", q(bin), q(large),
                               q(dir .. "/m1.tsv")))
local mb = t.run(string.format("ETINSPECT_MAX_MAPPINGS=0 %s --etdump_path %s --quiet --tsv_path %s",
                               q(bin), q(large), q(dir .. "/m2.tsv")))
t.ok(t.exists(dir .. "/m1.tsv") and t.read(dir .. "/m1.tsv") == t.read(dir .. "/m2.tsv"),
     "medium.etdp read into memory: the same TSV" .. ((ma .. mb) ~= "" and (" (" .. ma .. mb .. ")") or ""))
os.execute("rm -rf " .. q(dir))
t.done()
