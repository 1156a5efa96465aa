--- etinspect.scripts.delegation: how much of the kernel time was
-- delegated (DELEGATE_CALL) and how much ran on portable/optimized kernels
-- (native_call_*), per block.
local common = require("etinspect.scripts.common")
local Frame = require("etinspect").Frame

local S = {
  description = "Delegated vs non-delegated share of kernel time, per block",
  args = common.args { { "etdump", help = "the ETDump to read" } },
}

--- One row per block (and kind): block, kind ("delegated" for DELEGATE_CALL
-- events, "not delegated" for native_call_* kernels), calls (events),
-- time (sum of mean times, target unit) and share % of the block's kernel
-- time.
-- @tparam Inspector insp
-- @treturn Frame
function S.table(insp)
  local unit = insp.target_time_scale
  local rows = {}
  for _, blk in ipairs(insp.event_blocks) do
    local t = { delegated = 0, ["not delegated"] = 0 }
    local n = { delegated = 0, ["not delegated"] = 0 }
    for _, ev in ipairs(blk.events) do
      local pd = ev.perf_data
      if pd and not ev.is_delegated_op then
        local kind = ev.name == "DELEGATE_CALL" and "delegated"
          or (ev.name:find("^native_call_") and "not delegated") or nil
        if kind then t[kind] = t[kind] + pd.avg; n[kind] = n[kind] + 1 end
      end
    end
    local total = t.delegated + t["not delegated"]
    if total > 0 then
      for _, kind in ipairs { "delegated", "not delegated" } do
        rows[#rows + 1] = { block = blk.name, kind = kind, calls = n[kind],
          ["time (" .. unit .. ")"] = t[kind], ["share %"] = t[kind] / total * 100 }
      end
    end
  end
  return Frame.new({ "block", "kind", "calls", "time (" .. unit .. ")", "share %" }, rows)
end

--- Print the table of the dump `o.etdump` (parsed arguments).
function S.run(o)
  local insp <close> = common.open(o)
  common.show(S.table(insp), o)
end

return S
