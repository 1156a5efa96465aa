--- etinspect.scripts.top_ops: operators by total time, in the layout of
-- TensorFlow Lite's benchmark "Summary by node type".
local common = require("etinspect.scripts.common")
local Frame = require("etinspect").Frame

local S = {
  description = "Top operators by total time (TFLite 'summary by node type' layout)",
  args = common.args {
    { "etdump", help = "the ETDump to read" },
    { "--top", type = "integer", default = 20, metavar = "N",
      help = "show the N most expensive node types; 0 shows all" },
  },
}

--- The node type of an event: the operator of a native_call_<op>.<overload>
-- kernel, "delegate:<name>" for a delegated event, nil for framework
-- events (OPERATOR_CALL, DELEGATE_CALL, Method::*).
function S.node_type(ev)
  if ev.is_delegated_op then return "delegate:" .. ev.name end
  local op = ev.name:match("^native_call_(.+)$")
  if not op then return nil end
  return (op:gsub("%.[%w_]+$", ""))
end

--- Build the summary: one row per node type with count (events of that
-- type), avg (sum of the events' mean time per run, target units),
-- avg % (of all node types), cdf % (cumulative, in this order).
-- @tparam Inspector insp
-- @treturn Frame
function S.summary(insp)
  local unit = insp.target_time_scale
  local totals, counts, order = {}, {}, {}
  for _, blk in ipairs(insp.event_blocks) do
    if blk.name ~= "Default" then
      for _, ev in ipairs(blk.events) do
        local nt = S.node_type(ev)
        local pd = ev.perf_data
        if nt and pd then
          if not totals[nt] then totals[nt] = 0; counts[nt] = 0; order[#order + 1] = nt end
          totals[nt] = totals[nt] + pd.avg
          counts[nt] = counts[nt] + 1
        end
      end
    end
  end
  local grand = 0
  for _, v in pairs(totals) do grand = grand + v end
  table.sort(order, function(a, b)
    if totals[a] ~= totals[b] then return totals[a] > totals[b] end
    return a < b
  end)
  local avg_col = "avg (" .. unit .. ")"
  local rows, cdf = {}, 0
  for i, nt in ipairs(order) do
    local pct = grand > 0 and totals[nt] / grand * 100 or 0
    cdf = cdf + pct
    rows[i] = { ["node type"] = nt, count = counts[nt], [avg_col] = totals[nt],
                ["avg %"] = pct, ["cdf %"] = cdf }
  end
  return Frame.new({ "node type", "count", avg_col, "avg %", "cdf %" }, rows)
end

--- Print the summary of the dump `o.etdump` (parsed arguments).
function S.run(o)
  local insp <close> = common.open(o)
  local f = S.summary(insp)
  if o.top > 0 then f = f:head(o.top) end
  common.show(f, o)
end

return S
