-- profwriter.lua - writes legacy profiler dumps (prof_result_t blocks) from
-- the struct layouts of spec §9.1, for the tests.
--
--   local pw = require "profwriter"
--   local bytes = pw.dump{ block, block, ... }
--   pw.write(path, bytes)
--
-- A block is a table:
--   name        string (at most 32 bytes; 32 leaves no NUL)
--   events      sequence of {name, chain, instr, start, end_}   (prof_event_t)
--   allocators  sequence of {name, id}                          (prof_allocator_t)
--   mem         sequence of {allocator_id, size}                (mem_prof_event_t)
--   max_prof, max_alloc, max_mem   slot counts (default: the number used)
--   version     prof_ver (default 1)
--   counts      {prof=, alloc=, mem=} to write other counts than the lists'
--   big_endian  write the block in big-endian byte order
-- Unused slots are zero-filled.
local M = {}

function M.block(b)
  local e = b.big_endian and ">" or "<"
  local counts = b.counts or {}
  local np, na, nm = #(b.events or {}), #(b.allocators or {}), #(b.mem or {})
  local maxp, maxa, maxm = b.max_prof or np, b.max_alloc or na, b.max_mem or nm
  local out = {
    string.pack(e .. "c32I4I4I4I4I4I4I4I4", b.name or "", b.version or 1, maxp, counts.prof or np,
      maxa, counts.alloc or na, maxm, counts.mem or nm, 0),
  }
  for i = 1, maxp do
    local ev = (b.events or {})[i]
    out[#out + 1] = ev and string.pack(e .. "c32i4I4I8I8", ev[1], ev[2], ev[3], ev[4], ev[5])
      or string.rep("\0", 56)
  end
  for i = 1, maxa do
    local a = (b.allocators or {})[i]
    out[#out + 1] = a and string.pack(e .. "c32I8", a[1], a[2]) or string.rep("\0", 40)
  end
  for i = 1, maxm do
    local m = (b.mem or {})[i]
    out[#out + 1] = m and string.pack(e .. "I4I4", m[1], m[2]) or string.rep("\0", 8)
  end
  return table.concat(out)
end

function M.dump(blocks)
  local parts = {}
  for i, b in ipairs(blocks) do parts[i] = M.block(b) end
  return table.concat(parts)
end

function M.write(path, bytes)
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
end

return M
