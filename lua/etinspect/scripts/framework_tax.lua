--- etinspect.scripts.framework_tax: per run, how much of Method::execute
-- was spent outside kernels and delegates (the legacy profiler's framework
-- tax: execute time minus kernel and delegate time, as a percentage).
local common = require("etinspect.scripts.common")
local Frame = require("etinspect").Frame

local S = {
  description = "Framework tax per run: Method::execute minus kernel and delegate time",
  args = common.args { { "etdump", help = "the ETDump to read" } },
}

--- Is `name` the event of a method's whole execution: "Method::execute",
-- or "Method::execute::<method>", the name upstream gives it in blocks
-- named "Execute::<method>" (pytorch/executorch PR 8033)?
-- @tparam string name an event name
-- @treturn boolean
function S.is_execute_event(name)
  return name == "Method::execute" or name:sub(1, 17) == "Method::execute::"
end

--- Is `name` the name of an execute block: "Execute", or upstream's
-- "Execute::<method>"?
-- @tparam string name a block name
-- @treturn boolean
function S.is_execute_block(name)
  return name == "Execute" or name:sub(1, 9) == "Execute::"
end

--- One row per run of every block that has a Method::execute event
-- (either name, S.is_execute_event):
-- block, run (1-based within the block), execute, kernels and delegates
-- (native_call_* and DELEGATE_CALL events), tax (execute - kernels) and
-- tax % = tax / execute * 100.  Times in the target unit.
-- @tparam Inspector insp
-- @treturn Frame
function S.table(insp)
  local unit = insp.target_time_scale
  local rows = {}
  for _, blk in ipairs(insp.event_blocks) do
    local exec, kernel = nil, {}
    for _, ev in ipairs(blk.events) do
      local pd = ev.perf_data
      if pd then
        if S.is_execute_event(ev.name) then
          exec = pd.raw
        elseif not ev.is_delegated_op and (ev.name:find("^native_call_") or ev.name == "DELEGATE_CALL") then
          for r, x in ipairs(pd.raw) do kernel[r] = (kernel[r] or 0) + x end
        end
      end
    end
    if exec then
      for r, x in ipairs(exec) do
        local k = kernel[r] or 0
        rows[#rows + 1] = {
          block = blk.name, run = r,
          ["execute (" .. unit .. ")"] = x,
          ["kernels and delegates (" .. unit .. ")"] = k,
          ["framework tax (" .. unit .. ")"] = x - k,
          ["framework tax %"] = x > 0 and (x - k) / x * 100 or 0 / 0,
        }
      end
    end
  end
  return Frame.new({ "block", "run", "execute (" .. unit .. ")", "kernels and delegates (" .. unit .. ")",
                     "framework tax (" .. unit .. ")", "framework tax %" }, rows)
end

--- Print the table of the dump `o.etdump` (parsed arguments).
function S.run(o)
  local insp <close> = common.open(o)
  common.show(S.table(insp), o)
end

return S
