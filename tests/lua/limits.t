#!/usr/bin/env etinspect
-- limits.t - bounded work and the output guard from Lua (issue 14,
-- docs/user-guide.md "Limits"): stride-0 and oversize tensors refused or
-- bounded (tests/fixtures/stride0.json over a 64-byte debug buffer),
-- etinspect.limits, broadcast comparisons within the budget, and every
-- writer refusing to replace an input in use (checksums unchanged).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Tensor = etinspect.Tensor

etinspect.on_warning(function() end)
local fixtures = t.build .. "/fixtures"
if not t.exists(fixtures .. "/stride0.etdp") then t.skip_all("run make first (fixtures)") end

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))
local function path(name) return dir .. "/" .. name end
local function put(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local function copy(from, to) put(to, t.read(from)) end
local function raises_msg(fn)
  local ok, err = pcall(fn)
  return not ok and tostring(err) or ""
end

-- a 64-byte debug buffer: float 1.5 at byte 0, zeros after
put(path("d64.bin"), string.pack("<f", 1.5) .. string.rep("\0", 60))

-- tensors ---------------------------------------------------------------------

local insp = etinspect.Inspector { etdump_path = fixtures .. "/stride0.etdp",
                                   debug_buffer_path = path("d64.bin") }
local ev = insp.event_blocks[1].events
local huge = ev[1].debug_data[1]
t.is(huge.readable, false, "[2^40] stride 0 over 4 bytes: not readable")
t.ok(huge.error:find("sizes %[1099511627776%] with strides %[0%] broadcast 1099511627776 elements from 4 bytes, more than the broadcast budget of 1048576 elements %(raise it with %-%-max_broadcast_elements or etinspect%.limits%)$"),
     "... t.error names the shape and the budget")
t.is(huge.numel, 1099511627776, "... its shape is still known (numel)")
t.ok(math.type(huge.nbytes) == "integer" and huge.nbytes == 0, "... nbytes never negative (0: unreadable)")
for _, m in ipairs { "stats", "sum", "nan_count", "bytes", "tolist" } do
  t.ok(raises_msg(function() return huge[m](huge) end):find("broadcast budget", 1, true),
       "t:" .. m .. "() raises the budget error instead of looping 2^40 times")
end
t.ok(raises_msg(function() return huge[1] end):find("broadcast budget", 1, true), "t[1] raises it too")

local wide = ev[2].debug_data[1]
t.ok(not wide.readable and wide.error:find("broadcast 4194304 elements from 16 bytes", 1, true),
     "[1048576, 2, 2] strides [0, 2, 1]: 4194304 elements, over the default budget")
local overlap = ev[3].debug_data[1]
t.ok(not overlap.readable and overlap.error:find("sizes [3, 3] with strides [1, 1] name 9 elements of 4 bytes, more than the 20 bytes from offset 44 in the debug buffer hold (only a zero stride may repeat elements)", 1, true),
     "[3, 3] strides [1, 1] at offset 44: overlapping strides beyond the bytes refused")
local bc = ev[4].debug_data[1]
t.ok(bc.readable, "[1024] stride 0 over one float: a broadcast within the budget")
t.is(bc:sum(), 1536.0, "... sum 1024 * 1.5")
t.is(#bc:bytes(), 4096, "... t:bytes() is 4096 bytes (the broadcast materialised, bounded)")
local out = insp.event_blocks[1].run_output[1]
t.ok(not out.readable and out.error:find("broadcast 4398046511104 elements from 4 bytes", 1, true),
     "run_output [2^40, 2, 2] strides [0, 0, 0]: refused")
insp:close()

-- the budget is an option --------------------------------------------------------

t.is(etinspect.limits().broadcast_elements, 1048576, "etinspect.limits(): the default budget")
t.is(etinspect.limits { broadcast_elements = 4194304 }.broadcast_elements, 4194304,
     "etinspect.limits{broadcast_elements = 4194304} raises it")
insp = etinspect.Inspector { etdump_path = fixtures .. "/stride0.etdp", debug_buffer_path = path("d64.bin") }
wide = insp.event_blocks[1].events[2].debug_data[1]
t.ok(wide.readable, "... the [1048576, 2, 2] view is now readable")
local s = wide:stats()
t.is(s.count, 4194304, "... its statistics cover every element")
t.is(s.sum, 1069547520 * 1048576 + 0.0, "... sum: 2^20 copies of the int32 bits of 1.5 (then zeros)")
insp:close()
t.is(etinspect.limits { broadcast_elements = false }.broadcast_elements, 1048576, "false restores the default")
t.raises(function() etinspect.limits { broadcast_elements = 0 } end,
         "etinspect.limits: broadcast_elements must be >= 1, got 0", "0 is refused")
t.raises(function() etinspect.limits { broadcast = 5 } end,
         "etinspect.limits: unknown option 'broadcast' %(accepted: broadcast_elements%)", "unknown key")
t.raises(function() etinspect.limits { broadcast_elements = "many" } end,
         "etinspect.limits: option 'broadcast_elements' must be", "a string is refused")
t.raises(function() etinspect.limits(5) end, "etinspect.limits: bad argument #1", "not a table")

-- Tensor.new honours the same rules
local one = string.pack("<f", 2.0)
t.ok(raises_msg(function() return Tensor.new { dtype = "float32", shape = { 1 << 40 }, strides = { 0 }, bytes = one } end)
       :find("broadcast budget", 1, true), "Tensor.new: [2^40] stride 0 over 4 bytes refused")
local b1k = Tensor.new { dtype = "float32", shape = { 1000 }, strides = { 0 }, bytes = one }
t.is(b1k:sum(), 2000.0, "Tensor.new: [1000] stride 0: a bounded broadcast (sum 2000)")

-- broadcast comparisons ------------------------------------------------------------
local function zeros(n) local v = {} for i = 1, n do v[i] = 0 end return v end
local col = Tensor.new { dtype = "float32", shape = { 1024, 1 }, values = zeros(1024) }
local row = Tensor.new { dtype = "float32", shape = { 1, 2048 }, values = zeros(2048) }
local budget_msg = "broadcasting tensor a (float32 [1024, 1]) against tensor b (float32 [1, 2048]) makes 2097152 elements, more than the broadcast budget of 1048576 elements"
t.ok(raises_msg(function() return etinspect.compare_results({ col }, { row }) end):find(budget_msg, 1, true),
     "compare_results: [1024, 1] against [1, 2048] is over the budget")
t.ok(raises_msg(function() return etinspect.comparators.L1.element_compare(col, row) end):find(budget_msg, 1, true),
     "calculate_numeric_gap's L1: the same")
etinspect.limits { broadcast_elements = 1 << 21 }
t.is(etinspect.comparators.L1.element_compare(col, row), 0.0, "raised to 2^21: computed")
etinspect.limits { broadcast_elements = false }

-- outputs never replace an input ---------------------------------------------------

copy(fixtures .. "/sample.etdp", path("in.etdp"))
copy(t.src .. "/tests/fixtures/tensors.bin", path("in.bin"))
copy(t.src .. "/tests/bundled/distinct.bpte", path("in.bpte"))
copy(fixtures .. "/sample.etrecord", path("in.etrecord"))
local inputs = { "in.etdp", "in.bin", "in.bpte", "in.etrecord" }
local before = {}
for _, n in ipairs(inputs) do before[n] = t.read(path(n)) end
insp = etinspect.Inspector { etdump_path = path("in.etdp"), debug_buffer_path = path("in.bin"),
                             bundled_program_path = path("in.bpte"), etrecord = path("in.etrecord") }
local df = insp:to_dataframe()
local writers = {
  { "insp:save_data_to_tsv", function(p) insp:save_data_to_tsv(p) end },
  { "Frame:to_tsv", function(p) df:to_tsv(p) end },
  { "Frame:to_csv", function(p) df:to_csv(p) end },
  { "Frame:to_json", function(p) df:to_json(p) end },
  { "insp:write_trace", function(p) insp:write_trace(p) end },
  { "insp:write_html", function(p) insp:write_html(p) end },
  { "etinspect.write_npy", function(p) etinspect.write_npy(p, b1k) end },
}
for _, w in ipairs(writers) do
  for _, n in ipairs(inputs) do
    local dest = dir .. "/./" .. n -- another spelling: compared by device and inode
    local msg = raises_msg(function() w[2](dest) end)
    t.ok(msg:find("refusing to overwrite", 1, true) and msg:find(n, 1, true),
         w[1] .. " onto " .. n .. ": refused (" .. msg:sub(1, 90) .. ")")
  end
end
for _, n in ipairs { "in.bin", "in.bpte" } do
  t.ok(raises_msg(function() insp:to_sqlite(dir .. "/./" .. n) end):find("refusing to overwrite an input file with output", 1, true),
       "insp:to_sqlite onto " .. n .. ": refused by the core's guard")
end
for _, n in ipairs(inputs) do t.ok(t.read(path(n)) == before[n], n .. ": unchanged") end
local left = io.popen("ls -a '" .. dir .. "'"):read("a")
t.ok(not left:find("in%.%w+%.%w%w%w%w%w%w"), "no temporary file left beside the inputs")
insp:close()
-- closed: no longer an input in use
df:to_tsv(path("in.etdp"))
t.ok(t.read(path("in.etdp")) ~= before["in.etdp"], "after insp:close() the dump is no input: it may be replaced")

-- a .npy read back and rewritten: a round trip, not a hazard
etinspect.write_npy(path("a.npy"), b1k)
local a = etinspect.read_npy(path("a.npy"))
etinspect.write_npy(path("a.npy"), Tensor.new { dtype = "float32", shape = { 2 }, values = { 1, 2 } })
t.is(a:sum(), 2000.0, "read_npy then write_npy to the same path: allowed, the array read stays intact")

os.execute("rm -rf '" .. dir .. "'")
t.done()
