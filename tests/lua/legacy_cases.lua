-- legacy_cases.lua - the legacy profiler dumps the tests build (see
-- profwriter.lua).  Expected values in legacy.t and tests/e2e/legacy.t were
-- worked out from spec §9.3, and cross-checked by running ExecuTorch's
-- parse_profiler_results.py on these same bytes.
local pw = require "profwriter"
local M = {}

-- a 32-character name: no NUL left in its field
M.LONG = "native_call_convolution_out_1234"
assert(#M.LONG == 32)

-- "main": a load block, then three iterations of "execute" (ticks in ns);
-- two allocators, defined in the load block only
local function execute(i)
  local b = ({ 2000000, 10000000, 20000000 })[i]
  local exec_end = ({ 5000000, 13500000, 22999999 })[i]
  local add_end = ({ 3334567, 11100000, 21100050 })[i]
  return {
    name = "execute",
    events = {
      { "Method::execute", -1, 0, b, exec_end },
      { "native_call_add.out", 0, 1, b + 100000, add_end },
      { "native_call_mul.out", 0, 2, b + 1400000, b + 2000000 + (i - 1) * 200000 },
      { "delegate_execute", 0, 3, b + 2000000, b + 2500000 },
      { M.LONG, 0, 4, b + 2500000, b + 2500000 + 333 * i },
    },
    mem = { { 1, 1024 } },
    max_prof = 8, max_alloc = 2, max_mem = 4,
  }
end

M.main = {
  {
    name = "load",
    events = { { "Program::load_method", -1, 0, 1000, 51000 } },
    allocators = { { "method_allocator", 0 }, { "planned_memory", 1 } },
    mem = { { 0, 256 }, { 0, 128 }, { 1, 4096 } },
  },
  execute(1), execute(2), execute(3),
}

-- blocks at their maximum counts, with the runtime's default slot counts
-- (1024 events, 32 allocators, 1024 allocations: 66 880 bytes a block)
do
  local events, mem, allocators = {}, {}, {}
  for i = 1, 1024 do
    events[i] = { "native_call_op" .. (i - 1) % 7, 0, i - 1, 1000 * i, 1000 * i + i }
    mem[i] = { (i - 1) % 32, i }
  end
  for i = 1, 32 do allocators[i] = { "allocator_" .. (i - 1), i - 1 } end
  M.full = { { name = "full", events = events, allocators = allocators, mem = mem,
    max_prof = 1024, max_alloc = 32, max_mem = 1024 } }
end

-- two events whose names contain Method::execute: the reference takes the
-- lexicographically largest duration list
M.two_exec = {
  { name = "b", events = {
      { "Method::execute", -1, 0, 0, 3000000 },
      { "Method::execute#2", -1, 0, 0, 3000000 },
      { "native_call_x", 0, 1, 0, 1000000 } } },
  { name = "b", events = {
      { "Method::execute", -1, 0, 0, 2000000 },
      { "Method::execute#2", -1, 0, 0, 4000000 },
      { "native_call_x", 0, 1, 0, 1000000 } } },
}

function M.bytes(name)
  return pw.dump(M[name])
end

return M
