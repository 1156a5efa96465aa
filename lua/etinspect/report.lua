--- etinspect.report: the Inspector's tabular views (spec §6.1-§6.7), added
-- as methods of the Inspector, EventBlock and Event userdata.
--
--   insp:to_dataframe{include_units=true, include_delegate_debug_data=false} -> Frame
--   insp:print_data_tabular([file] [, {file=io.stdout, include_units=true,
--                           include_delegate_debug_data=false}])
--   insp:save_data_to_tsv(path_or_file [, {include_units=true, include_delegate_debug_data=false}])
--   insp:find_total_for_module(name) -> number (target time unit)
--   insp:get_op_list(block_name, show_delegated_ops=true) -> {op_type = {Event, ...}}
--   insp:get_vgf_neural_statistics() -> sequence of VGF records (spec §6.7)
--   blk:to_dataframe{include_units=false, include_delegate_debug_data=false} -> Frame
--   ev:to_dataframe([units]) -> Frame (one row, spec §6.1)
--   ev:asdict([units]) -> row table (spec §6.1)
--
-- The rows -- which events, which columns in which order, None and NaN,
-- op_types' abbreviation, the delegate metadata columns and their pandas
-- dtypes -- are built once, in C (src/core/output/rows.c et_report_rows, the
-- command line's too) and reach Lua through _core.report_rows.  Here the
-- Lua frames get the events' own values in the list-valued cells (raw,
-- op_types, stack_traces, module_hierarchy, debug_data, start_time,
-- metadata tables) and print_data_tabular / save_data_to_tsv write the C
-- rendering as it is.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local etinspect = require("etinspect")
local core = etinspect._core
local Frame = require("etinspect.frame")
local pyrepr = require("etinspect.pyrepr")
local parsers = require("etinspect.parsers")

local M = {}

local EXCLUDED_EVENT = "OPERATOR_CALL"

local function is_sequence(t)
  local n = #t
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

--- A function (block, event) -> Event (1-based indices, as
-- _core.report_rows gives them) for rows of `target` (an Inspector,
-- EventBlock or Event); the blocks' event sequences are fetched once.
-- (`target` is an object of the binding, whose getmetatable() is the
-- read-only {__name = its type})
local function event_resolver(target)
  local mt = getmetatable(target)
  local ty = type(mt) == "table" and mt.__name
  if ty == "Event" then return function() return target end end
  if ty == "EventBlock" then
    local evs
    return function(_, e)
      evs = evs or target.events
      return evs[e]
    end
  end
  local blocks, cache = nil, {}
  return function(b, e)
    blocks = blocks or target.event_blocks
    local evs = cache[b]
    if not evs then
      evs = blocks[b].events
      cache[b] = evs
    end
    return evs[e]
  end
end

--- The metadata function _core.report_rows calls for each delegated
-- event: nil when the event shows its raw metadata (no parser, or the
-- parser failed and the raw list is used), else the keys and the cells of
-- its parsed metadata (a list: one key "delegate_debug_metadata"; a dict:
-- its keys, in the dict's order when it has one, else sorted).  Tables
-- met are kept in `rich[b][e][key]` for the Lua frame's cells.
local function parsed_metadata(event_at, rich)
  return function(b, e)
    local ev = event_at(b, e)
    local md = ev.delegate_debug_metadatas
    if type(md) ~= "table" then
      error("Unexpected type for delegate_debug_metadata: " .. type(md), 0)
    end
    local raw = ev.raw_delegate_debug_metadatas
    if #md == #raw and #raw > 0 and is_sequence(md) then
      local same = true
      for i = 1, #raw do if md[i] ~= raw[i] then same = false; break end end
      if same then return nil end -- the raw bytes, as for events without a parser
    end
    local keys, cells, keep = {}, {}, {}
    rich[b] = rich[b] or {}
    rich[b][e] = keep
    local mt = getmetatable(md)
    if next(md) == nil then return keys, cells end
    if not (mt and (mt.__pydict or mt.__order)) and is_sequence(md) then
      keys[1], cells[1] = "delegate_debug_metadata", pyrepr.str(md)
      keep.delegate_debug_metadata = md
    else
      local order = mt and mt.__order
      if not order then
        order = {}
        for k in pairs(md) do order[#order + 1] = k end
        table.sort(order, function(x, y) return tostring(x) < tostring(y) end)
      end
      for _, k in ipairs(order) do
        local v = md[k]
        if v ~= nil then
          local name = type(k) == "string" and k or pyrepr.str(k)
          keys[#keys + 1] = name
          cells[#cells + 1] = pyrepr.cell(v)
          if type(v) == "table" then keep[name] = v end
        end
      end
    end
    return keys, cells
  end
end

--- The raw metadata list as a cell of a Lua frame: the byte strings,
-- rendered as the reference's bytes reprs ([b'...', '']).
local function raw_metadata_cell(ev)
  return pyrepr.bytes_list(ev.raw_delegate_debug_metadatas)
end


--- Rows of _core.report_rows as a Frame of C columns (opts.frame): the
-- numbers, names and flags as C columns, raw and start_time as list views
-- of the model's samples (kept alive by the frame, see docs/lua-api.md
-- "Frames and their Inspector"); the cells only Lua values can hold
-- (op_types' lists, stack_traces, module_hierarchy, debug_data, the parsed
-- metadata's tables, a column of mixed kinds) are the events' own values
-- (o.nan_stats: a missing statistic is NaN, not nil).
-- With `block_index` (Inspector and EventBlock to_dataframe), a column
-- block_index follows event_name (event_block_name when there is none).
-- @param target Inspector, EventBlock or Event
-- @tparam table o options of _core.report_rows
-- @tparam[opt] boolean block_index
local function frame_of(target, o, block_index)
  local event_at = event_resolver(target)
  local rich = {}
  if o.metadata then o.parsed = parsed_metadata(event_at, rich) end
  o.values = true -- the list-valued cells are filled below, from the events
  o.frame = true
  local cols, T, lua, blocks, events, n_md = core.report_rows(target, o)
  local base = #cols - n_md
  local pos = {}
  for j = 1, base do pos[cols[j]] = j end
  local function seq(j, want)
    if not j or lua[j] == nil and not want then return nil end
    local s = lua[j]
    if not s then s = {}; lua[j] = s end
    return s
  end
  -- no row's event has linked nodes: one empty dict per column, shared
  -- by its cells (C made op_types and debug_data list columns of empty
  -- lists when it could)
  for _, c in ipairs { "stack_traces", "module_hierarchy" } do
    local j = pos[c]
    if j and lua[j] == false then
      local d = #blocks > 0 and event_at(blocks[1], events[1])[c]
      local s = {}
      for i = 1, #blocks do s[i] = d end
      lua[j] = s
      pos[c] = nil
    end
  end
  local ops_s, st_s = seq(pos.op_types), seq(pos.stack_traces, true)
  local mh_s, dd_s = seq(pos.module_hierarchy, true), seq(pos.debug_data, true)
  if pos.debug_data and T:kind(pos.debug_data) == "list" then dd_s = nil; lua[pos.debug_data] = nil end
  for j = base + 1, #cols do seq(j, true) end
  local need_ev = ops_s or st_s or mh_s or dd_s or n_md > 0
  for i = 1, need_ev and #blocks or 0 do
    local ev = event_at(blocks[i], events[i])
    if ops_s then
      local ops = ev.op_types
      if #ops < 5 then ops_s[i] = ops end
    end
    if st_s then st_s[i] = ev.stack_traces end
    if mh_s then mh_s[i] = ev.module_hierarchy end
    if dd_s then dd_s[i] = ev.debug_data end
    if n_md > 0 then
      local keep = rich[blocks[i]] and rich[blocks[i]][events[i]]
      for j = base + 1, #cols do
        local k, s = cols[j], lua[j]
        if keep then
          if keep[k] ~= nil then s[i] = keep[k] end
        elseif k == "delegate_debug_metadata" and type(s[i]) == "string" then
          s[i] = raw_metadata_cell(ev)
        end
      end
    end
  end
  -- the columns of Lua values replace their placeholders in T
  local js, seqs = {}, {}
  for j = 1, #cols do
    if lua[j] then js[#js + 1] = j; seqs[#seqs + 1] = lua[j] end
  end
  if #js > 0 then
    local LT = core.tab_from_columns(seqs, #blocks)
    local pick, k = {}, 1
    for j = 1, #cols do
      if lua[j] then
        pick[#pick + 1] = LT; pick[#pick + 1] = k; k = k + 1
      else
        pick[#pick + 1] = T; pick[#pick + 1] = j
      end
    end
    T = core.tab_compose(pick, #blocks)
  end
  -- block_index (1-based, as insp.event_blocks[i]) after the names
  -- (event_name, else event_block_name), where a display cut to the width
  -- leaves it out with the list columns next to it: two blocks of one name (two "Execute" of a method with branches) stay
  -- apart under group_by and filter; the TSV and the printed table keep
  -- the reference's columns (they are rendered in C from the rows)
  local after = pos.event_name or pos.event_block_name
  if block_index and after then
    local BT = core.tab_from_columns({ blocks }, #blocks)
    local pick, named = {}, {}
    for j = 1, #cols do
      pick[#pick + 1] = T; pick[#pick + 1] = j; named[#named + 1] = cols[j]
      if j == after then
        pick[#pick + 1] = BT; pick[#pick + 1] = 1; named[#named + 1] = "block_index"
      end
    end
    T = core.tab_compose(pick, #blocks)
    cols = named
  end
  return Frame.wrap(cols, T)
end

local function units_of(insp_or_blk, include_units)
  if include_units then return " (" .. insp_or_blk.target_time_scale .. ")" end
  return ""
end

local INSP_OPTS = { include_units = "boolean", include_delegate_debug_data = "boolean" }

--- Inspector.to_dataframe (spec §6.2): every block's rows, concatenated;
-- the metadata columns are the union over the blocks (NaN where a block
-- or an event has none); block_index (1-based) after event_name, so
-- that two blocks of one name stay apart.
-- @tparam[opt] {include_units=true, include_delegate_debug_data=false} opts
-- @treturn Frame
-- @raise unknown options and wrong types (named), the metadata's errors
function M.inspector_to_dataframe(insp, opts)
  core.check_options("Inspector:to_dataframe", opts, INSP_OPTS, 1)
  opts = opts or {}
  return frame_of(insp, { units = units_of(insp, opts.include_units ~= false), nan_stats = true,
                          metadata = opts.include_delegate_debug_data, op = "Inspector:to_dataframe" }, true)
end

--- EventBlock.to_dataframe (spec §6.2): event_block_name, event_name, block_index
-- first, then the event columns; units off by default (as the reference's).
-- @tparam[opt] {include_units=false, include_delegate_debug_data=false} opts
-- @treturn Frame
function M.block_to_dataframe(blk, opts)
  core.check_options("EventBlock:to_dataframe", opts, INSP_OPTS, 1)
  opts = opts or {}
  return frame_of(blk, { units = units_of(blk, opts.include_units), nan_stats = true,
                         metadata = opts.include_delegate_debug_data, op = "EventBlock:to_dataframe" }, true)
end

local function check_units(where, units)
  if units ~= nil and type(units) ~= "string" then
    error(where .. ": bad argument #1 (units suffix string expected, got " .. type(units) .. ")", 3)
  end
  return units or ""
end

--- Event.to_dataframe(units) (spec §6.1): the event's row as a one-row
-- Frame, without event_block_name; `units` is the statistics columns'
-- suffix (the reference's `_units`, e.g. " (ms)"; default "").
-- @tparam[opt] string units
-- @treturn Frame
function M.event_to_dataframe(ev, units)
  units = check_units("Event:to_dataframe", units)
  return frame_of(ev, { units = units, nan_stats = true, op = "Event:to_dataframe" })
end

--- Event.asdict(units): the event's row (spec §6.1) as a table keyed by
-- column name.  A missing statistic is nil (the reference's None); op_types
-- with 5 or more entries are abbreviated.
-- @tparam[opt] string units
-- @treturn table
function M.event_asdict(ev, units)
  units = check_units("Event:asdict", units)
  return frame_of(ev, { units = units, op = "Event:asdict" })[1]
end

--- The frame print_data_tabular and save_data_to_tsv show (spec §6.3),
-- as a Lua Frame.
-- @tparam Inspector insp
-- @tparam[opt] table opts as for to_dataframe
-- @treturn Frame
function M.display_frame(insp, opts)
  opts = opts or {}
  return frame_of(insp, { units = units_of(insp, opts.include_units ~= false), display = true,
                          metadata = opts.include_delegate_debug_data })
end

--- The display frame rendered by C ("grid" or "tsv"), as the command line
-- renders it.
local function display_text(insp, opts, render, op)
  local o = { units = units_of(insp, opts.include_units ~= false), display = true,
              metadata = opts.include_delegate_debug_data, render = render, op = op }
  if o.metadata then o.parsed = parsed_metadata(event_resolver(insp), {}) end
  return core.report_rows(insp, o)
end

local PRINT_OPTS = { file = "file", include_units = "boolean", include_delegate_debug_data = "boolean" }

--- insp:print_data_tabular([file] [, opts]) (spec §6.3): the reference's
-- table (tabulate's fancy_grid) of the display frame, never truncated.
-- `file` (an open file, or anything with a write method) may come first,
-- as in Python's print_data_tabular(sys.stderr), or as opts.file.
-- @raise unknown options and wrong types, named ("option 'file' must be a
--   file, got string")
function M.print_data_tabular(insp, file, opts)
  if type(file) == "table" and io.type(file) == nil and type(file.write) ~= "function" then
    opts, file = file, nil
  end
  if file ~= nil then
    core.check_options("Inspector:print_data_tabular", { file = file }, PRINT_OPTS, 1)
  end
  core.check_options("Inspector:print_data_tabular", opts, PRINT_OPTS, file ~= nil and 2 or 1)
  opts = opts or {}
  local out = file or opts.file or io.stdout
  -- checked: a failed write is an error naming the file and the reason
  core.write_to(out, "Inspector:print_data_tabular",
                display_text(insp, opts, "grid", "Inspector:print_data_tabular"))
end

local TSV_OPTS = { include_units = "boolean", include_delegate_debug_data = "boolean" }

--- insp:save_data_to_tsv(path_or_file [, opts]) (spec §6.4): the display
-- frame as pandas' to_csv(sep="\t") writes it; a path is written through a
-- temporary file.
function M.save_data_to_tsv(insp, dest, opts)
  if dest == nil then error("Inspector:save_data_to_tsv: a path or an open file is required", 2) end
  if type(dest) ~= "string" and io.type(dest) ~= "file"
     and not (type(dest) == "table" and type(dest.write) == "function") then
    error("Inspector:save_data_to_tsv: bad argument #1 (a path or an open file expected, got "
          .. type(dest) .. ")", 2)
  end
  core.check_options("Inspector:save_data_to_tsv", opts, TSV_OPTS, 2)
  return Frame.emit(display_text(insp, opts or {}, "tsv", "Inspector:save_data_to_tsv"), dest, nil,
                    "Inspector:save_data_to_tsv")
end

--- Sum of perf_data.avg over events (not OPERATOR_CALL) whose module
-- hierarchy names a module containing `name` (spec §6.5).  Target units.
-- @tparam string name
-- @treturn number
function M.find_total_for_module(insp, name)
  if type(name) ~= "string" then
    error("Inspector:find_total_for_module: bad argument #1 (module name string expected, got "
          .. type(name) .. ")", 2)
  end
  local total = 0.0
  for _, blk in ipairs(insp.event_blocks) do
    for _, ev in ipairs(blk.events) do
      if ev.name ~= EXCLUDED_EVENT then
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
  if type(block_name) ~= "string" then
    error("Inspector:get_op_list: bad argument #1 (block name string expected, got " .. type(block_name) .. ")", 2)
  end
  if show_delegated_ops ~= nil and type(show_delegated_ops) ~= "boolean" then
    error("Inspector:get_op_list: bad argument #2 (boolean expected, got " .. type(show_delegated_ops) .. ")", 2)
  end
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

--- insp:get_vgf_neural_statistics() (spec §6.7): the VGF neural statistics
-- records in the raw delegate metadata of every event of every block, in
-- order (etinspect.parsers.vgf on each event's raw list): JSON objects of
-- schema "executorch.vgf.neural_statistics", version 1, whose segments'
-- blobs carry raw_data (base64-decoded).
-- @treturn {table,...}
-- @raise "Malformed VGF neural statistics delegate metadata", "Unsupported
--   VGF neural statistics metadata schema version: 2", "Malformed base64
--   data in VGF neural statistics blob" ...
function M.get_vgf_neural_statistics(insp)
  local out = {}
  for _, blk in ipairs(insp.event_blocks) do
    for _, ev in ipairs(blk.events) do
      local raw = ev.raw_delegate_debug_metadatas
      if #raw > 0 then
        local ok, recs = pcall(parsers.vgf, raw)
        if not ok then error(recs, 2) end
        for _, r in ipairs(recs) do out[#out + 1] = r end
      end
    end
  end
  return out
end

--- Add the methods to the userdata types (_core.extend: wrapped as the C
-- methods are, self checked and the owner pinned while they run).
function M.install()
  core.extend("Inspector", {
    to_dataframe = M.inspector_to_dataframe,
    print_data_tabular = M.print_data_tabular,
    save_data_to_tsv = M.save_data_to_tsv,
    find_total_for_module = M.find_total_for_module,
    get_op_list = M.get_op_list,
    get_vgf_neural_statistics = M.get_vgf_neural_statistics,
  })
  core.extend("EventBlock", { to_dataframe = M.block_to_dataframe })
  core.extend("Event", { to_dataframe = M.event_to_dataframe, asdict = M.event_asdict })
end

return M
