--- etinspect.report: the Inspector's tabular views (spec §6.1-§6.6), added
-- as methods of the Inspector, EventBlock and Event userdata.
--
--   insp:to_dataframe{include_units=true, include_delegate_debug_data=false} -> Frame
--   insp:print_data_tabular{file=io.stdout, include_units=true,
--                           include_delegate_debug_data=false}
--   insp:save_data_to_tsv(path_or_file, {include_units=true, include_delegate_debug_data=false})
--   insp:find_total_for_module(name) -> number (target time unit)
--   insp:get_op_list(block_name, show_delegated_ops=true) -> {op_type = {Event, ...}}
--   blk:to_dataframe{include_units=false, include_delegate_debug_data=false} -> Frame
--   ev:asdict([units]) -> row table (spec §6.1)
local Frame = require("etinspect.frame")

local M = {}

local EXCLUDED_COLUMNS = { raw = true, delegate_debug_identifier = true, stack_traces = true,
                           module_hierarchy = true, debug_data = true }
local EXCLUDED_EVENT = "OPERATOR_CALL"
local STATS = { "p10", "p50", "p90", "avg", "min", "max" }

--- The columns of an event row, in order, for a units suffix ("" or " (ms)").
local function event_columns(units)
  local cols = { "event_name", "raw" }
  for _, s in ipairs(STATS) do cols[#cols + 1] = s .. units end
  for _, c in ipairs { "op_types", "delegate_debug_identifier", "stack_traces", "module_hierarchy",
                       "is_delegated_op", "delegate_backend_name", "debug_data", "start_time" } do
    cols[#cols + 1] = c
  end
  return cols
end

--- Event.asdict(units): one row of spec §6.1.  A missing statistic is nil
-- (the reference's None); op_types with 5 or more entries are abbreviated.
function M.event_asdict(ev, units)
  units = units or ""
  local pd = ev.perf_data
  local ops = ev.op_types
  if #ops >= 5 then
    ops = string.format("['%s', '%s' ... '%s'] (%d total)", ops[1], ops[2], ops[#ops], #ops)
  end
  local row = {
    event_name = ev.name,
    raw = pd and pd.raw or nil,
    op_types = ops,
    delegate_debug_identifier = ev.delegate_debug_identifier,
    stack_traces = ev.stack_traces,
    module_hierarchy = ev.module_hierarchy,
    is_delegated_op = ev.is_delegated_op,
    delegate_backend_name = ev.delegate_backend_name,
    debug_data = ev.debug_data,
    start_time = ev.start_time,
  }
  if pd then
    for _, s in ipairs(STATS) do row[s .. units] = pd[s] end
  end
  return row
end

local NaN = 0 / 0

--- EventBlock.to_dataframe (spec §6.2): event_block_name first, then the
-- event columns; with include_delegate_debug_data, the parsed (or raw)
-- delegate metadata as extra columns: a list as one column
-- "delegate_debug_metadata", a table of fields as one column per key
-- (keys sorted), missing cells NaN as pandas fills them.
function M.block_to_dataframe(blk, opts)
  opts = opts or {}
  local units = opts.include_units and (" (" .. blk.target_time_scale .. ")") or ""
  local cols = { "event_block_name" }
  for _, c in ipairs(event_columns(units)) do cols[#cols + 1] = c end
  local rows, extra, seen = {}, {}, {}
  for i, ev in ipairs(blk.events) do
    local row = M.event_asdict(ev, units)
    row.event_block_name = blk.name
    rows[i] = row
    if opts.include_delegate_debug_data then
      local md = ev.delegate_debug_metadatas
      if type(md) == "table" and next(md) ~= nil then
        local fields
        if md[1] ~= nil then
          fields = { delegate_debug_metadata = md }
        else
          fields = md
        end
        local keys = {}
        for k in pairs(fields) do keys[#keys + 1] = tostring(k) end
        table.sort(keys)
        for _, k in ipairs(keys) do
          if not seen[k] then seen[k] = true; extra[#extra + 1] = k end
          row[k] = fields[k]
        end
      elseif md ~= nil and type(md) ~= "table" then
        error("Unexpected type for delegate_debug_metadata: " .. type(md))
      end
    end
  end
  for _, k in ipairs(extra) do
    cols[#cols + 1] = k
    for _, row in ipairs(rows) do
      if row[k] == nil then row[k] = NaN end
    end
  end
  return Frame.new(cols, rows)
end

--- Inspector.to_dataframe (spec §6.2): every block's frame, concatenated;
-- columns are the union (a block without a metadata column gets NaN there).
function M.inspector_to_dataframe(insp, opts)
  opts = opts or {}
  local o = { include_units = opts.include_units ~= false,
              include_delegate_debug_data = opts.include_delegate_debug_data }
  local cols, seen, rows = {}, {}, {}
  for _, blk in ipairs(insp.event_blocks) do
    local f = M.block_to_dataframe(blk, o)
    for _, c in ipairs(f.columns) do
      if not seen[c] then seen[c] = true; cols[#cols + 1] = c end
    end
    for _, r in f:rows() do rows[#rows + 1] = r end
  end
  -- a metadata column that some block lacks: NaN there, as pd.concat fills it
  local base = { event_block_name = true }
  local units = o.include_units and (" (" .. insp.target_time_scale .. ")") or ""
  for _, c in ipairs(event_columns(units)) do base[c] = true end
  for _, c in ipairs(cols) do
    if not base[c] then
      for _, r in ipairs(rows) do
        if r[c] == nil then r[c] = NaN end
      end
    end
  end
  return Frame.new(cols, rows)
end

--- The frame print_data_tabular and save_data_to_tsv show (spec §6.3).
function M.display_frame(insp, opts)
  local f = M.inspector_to_dataframe(insp, opts)
  local keep = {}
  for _, c in ipairs(f.columns) do
    if not EXCLUDED_COLUMNS[c] then keep[#keep + 1] = c end
  end
  return f:filter(function(r)
    return not tostring(r.event_name):find(EXCLUDED_EVENT, 1, true)
  end):select(keep)
end

function M.print_data_tabular(insp, opts)
  opts = opts or {}
  local f = M.display_frame(insp, opts)
  local out = opts.file or io.stdout
  out:write(f:render("box"))
end

function M.save_data_to_tsv(insp, dest, opts)
  if dest == nil then error("save_data_to_tsv: a path or an open file is required", 2) end
  return Frame.emit(M.display_frame(insp, opts):render("tsv"), dest)
end

--- Sum of perf_data.avg over events (not OPERATOR_CALL) whose module
-- hierarchy names a module containing `name` (spec §6.5).  Target units.
function M.find_total_for_module(insp, name)
  local total = 0.0
  for _, blk in ipairs(insp.event_blocks) do
    for _, ev in ipairs(blk.events) do
      if ev.name ~= "OPERATOR_CALL" then
        for _, hierarchy in pairs(ev.module_hierarchy) do
          local found = false
          if type(hierarchy) == "table" then
            for key in pairs(hierarchy) do
              if tostring(key):find(name, 1, true) then found = true; break end
            end
          end
          if found then
            local pd = ev.perf_data
            if pd then total = total + pd.avg end
            break
          end
        end
      end
    end
  end
  return total
end

--- op type -> sequence of Events of that type in the named block (the
-- reference's is an empty stub).  Events without op types are left out;
-- delegated events only when show_delegated_ops (default true).
function M.get_op_list(insp, block_name, show_delegated_ops)
  if show_delegated_ops == nil then show_delegated_ops = true end
  local out = {}
  for _, blk in ipairs(insp.event_blocks) do
    if blk.name == block_name then
      for _, ev in ipairs(blk.events) do
        if show_delegated_ops or not ev.is_delegated_op then
          for _, op in ipairs(ev.op_types) do
            out[op] = out[op] or {}
            table.insert(out[op], ev)
          end
        end
      end
    end
  end
  return out
end

--- Install the methods on the userdata types.
function M.install()
  local reg = debug.getregistry()
  local function add(mtname, name, fn) reg[mtname].__methods[name] = fn end
  add("etinspect.Inspector", "to_dataframe", M.inspector_to_dataframe)
  add("etinspect.Inspector", "print_data_tabular", M.print_data_tabular)
  add("etinspect.Inspector", "save_data_to_tsv", M.save_data_to_tsv)
  add("etinspect.Inspector", "find_total_for_module", M.find_total_for_module)
  add("etinspect.Inspector", "get_op_list", M.get_op_list)
  add("etinspect.EventBlock", "to_dataframe", M.block_to_dataframe)
  add("etinspect.Event", "asdict", M.event_asdict)
end

return M
