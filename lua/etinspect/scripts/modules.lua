--- etinspect.scripts.modules: time per module of the model, from the
-- ETRecord's nn_module_stack (spec §5.6, §6.5): "which part of my model is
-- slow", in the model's own names.
local common = require("etinspect.scripts.common")
local Frame = require("etinspect").Frame

local S = {
  description = "Time per model module (needs --etrecord): each module with its submodules",
  args = common.args {
    { "etdump", help = "the ETDump to read" },
    { "--top", type = "integer", default = 0, metavar = "N",
      help = "show the N most expensive modules; 0 shows all" },
  },
}

--- The events whose time is counted: native_call_* kernels and whole
-- DELEGATE_CALLs (their delegated events are inside them, and
-- OPERATOR_CALL repeats its kernel), outside the "Default" block.
local function counted(blk, ev)
  return blk.name ~= "Default" and ev.perf_data ~= nil and not ev.is_delegated_op
    and (ev.name == "DELEGATE_CALL" or ev.name:find("^native_call_") ~= nil)
end

--- Build the table: one row per module key seen in the events' module
-- hierarchy, with its path and type, the number of counted events that
-- ran code of the module (or of a submodule), their total mean time
-- (target unit; an event counts once per module, as find_total_for_module
-- counts it) and its share % of all counted time.  Sorted by time, then
-- key.  Events without module hierarchy go to the row "(no module)".
-- @tparam Inspector insp
-- @treturn Frame
function S.table(insp)
  local unit = insp.target_time_scale
  local time, events, info, order = {}, {}, {}, {}
  local grand = 0
  local function add(key, path, ty, avg)
    if not time[key] then
      time[key], events[key], info[key] = 0, 0, { path, ty }
      order[#order + 1] = key
    end
    time[key] = time[key] + avg
    events[key] = events[key] + 1
  end
  for _, blk in ipairs(insp.event_blocks) do
    for _, ev in ipairs(blk.events) do
      if counted(blk, ev) then
        local avg = ev.perf_data.avg
        grand = grand + avg
        local seen, any = {}, false
        for _, stack in pairs(ev.module_hierarchy) do
          if stack then
            for key, entry in pairs(stack) do
              if not seen[key] then
                seen[key] = true
                any = true
                add(key, entry[1], entry[2], avg)
              end
            end
          end
        end
        if not any then add("(no module)", "", "", avg) end
      end
    end
  end
  table.sort(order, function(a, b)
    if time[a] ~= time[b] then return time[a] > time[b] end
    return a < b
  end)
  local col = "time (" .. unit .. ")"
  local rows = {}
  for i, key in ipairs(order) do
    rows[i] = { module = key, path = info[key][1], type = info[key][2], events = events[key],
                [col] = time[key], ["share %"] = grand > 0 and time[key] / grand * 100 or 0 }
  end
  return Frame.new({ "module", "path", "type", "events", col, "share %" }, rows)
end

--- Print the table of the dump `o.etdump` linked to `o.etrecord`.
function S.run(o)
  if not o.etrecord then
    common.usage_error("--etrecord ETRECORD is required (module names come from it)")
  end
  local insp <close> = common.open(o)
  local f = S.table(insp)
  if o.top > 0 then f = f:head(o.top) end
  common.show(f, o)
end

return S
