--- etinspect.numeric: numerical debugging (spec §1.7, §7) -- comparing a
-- run's outputs with reference outputs, and intermediate outputs with a
-- reference's (another Inspector, or AOT outputs saved by
-- scripts/export_aot_outputs.py); docs/numerical-debugging.md.
--
--   etinspect.compare_results(reference_output, run_output [, metrics [, opts]]) -> results
--   etinspect.print_compare_results(results [, opts])
--   etinspect.comparators.MSE / .L1 / .SNR          built-in comparators
--   etinspect.load_aot_outputs(dir) -> aot          an AOT outputs directory
--   etinspect.write_npy(path, tensor)               a Tensor as a .npy file
--   etinspect.read_npy(path) -> Tensor              a .npy file (memory-mapped)
--   insp:compare_results([opts]) -> Frame           run vs reference outputs, per block
--   insp:calculate_numeric_gap(reference, distance [, opts]) -> Frame
--   insp:save_intermediate_outputs(dir [, opts])    the runtime side as an AOT directory
--
-- Values are what the Inspector gives (Values in docs/lua-api.md): a Tensor,
-- a number, a boolean, nil (Python's None), or a sequence of values (a
-- tensor list; holes for None, length in field `n`).  Python's dicts keyed
-- by debug-handle tuples are sequences of records here, in the dict's
-- order:
--   AOT outputs      {debug_handle = {h, ...}, output = v}
--   runtime outputs  {debug_handle = {h, ...}, output = v, num_outputs = n}
--   runtime entries  the same with instruction_id (before merging, §7.3)
--   op names         {debug_handle = {h, ...}, names = {"op", ...}}
--   stack traces     {debug_handle = {h, ...}, names = {...}, traces = {name = trace}}
--   mapping (§7.4)   {aot = {debug_handle = tuple, output = v},
--                     runtime = {debug_handle = tuple, output = v}}
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local etinspect = require("etinspect")
local core = etinspect._core
local Frame = require("etinspect.frame")
local pyrepr = require("etinspect.pyrepr")

local M = {}

local NaN = 0 / 0

-- ---------------------------------------------------------------- values

--- Is `v` a Tensor (etinspect.Tensor)?
local function is_tensor(v) return etinspect.Tensor.is_tensor(v) end
M.is_tensor = is_tensor

--- Is `v` a sequence in Python's sense (a list or tuple: any table that
-- is not an ordered dict)?  Tensors are not sequences.
local function is_sequence(v)
  if type(v) ~= "table" then return false end
  local mt = getmetatable(v)
  return not (mt and mt.__pydict)
end
M.is_sequence = is_sequence

--- Length of a sequence: field n when set (holes for None), else #v.
local function len(v)
  return math.type(v.n) == "integer" and v.n or #v
end
M.len = len

--- A tuple (renders as (1, 2)) holding the elements of sequence `v`.
local function tuple(v)
  local t = {}
  local n = len(v)
  for i = 1, n do t[i] = v[i] end
  if v.n ~= nil then t.n = n end
  return core.tuple(t)
end
M.tuple = tuple

--- A new ordered dict (Python's dict): dict_set(d, k, v) appends k once.
local function new_dict()
  local order = {}
  local mt = { __pydict = true, __order = order, __name = "dict" }
  mt.__pairs = function(d)
    local i = 0
    return function()
      i = i + 1
      local k = order[i]
      if k ~= nil then return k, d[k] end
    end, d, nil
  end
  return setmetatable({}, mt)
end

local function dict_set(d, k, v)
  local order = getmetatable(d).__order
  local seen = false
  for _, x in ipairs(order) do if x == k then seen = true; break end end
  if not seen then order[#order + 1] = k end
  rawset(d, k, v)
end

local function hkey(h)
  local parts = {}
  for i = 1, len(h) do parts[i] = string.format("%d", h[i]) end
  return table.concat(parts, ",")
end

local function set_of(h)
  local s = {}
  for i = 1, len(h) do s[h[i]] = true end
  return s
end

local function overlaps(set, h)
  for i = 1, len(h) do if set[h[i]] then return true end end
  return false
end

--- Handles as a Lua sequence: an integer becomes {h}.
local function handles(h)
  if math.type(h) == "integer" then return { h } end
  local out = {}
  for i = 1, len(h) do out[i] = h[i] end
  return out
end

-- Python-like name of a value's type, for messages and notes.
local function kind(v)
  if v == nil then return "None" end
  if is_tensor(v) then return "tensor" end
  if math.type(v) == "integer" then return "int" end
  if type(v) == "number" then return "float" end
  if type(v) == "boolean" then return "bool" end
  if is_sequence(v) then return "list" end
  return type(v)
end

-- ---------------------------------------------------------------- §1.7

local METRICS = { "snr", "mse", "cosine_similarity" }

-- The options contract (docs/lua-api.md, "Contracts"): unknown keys and
-- wrong types raise, naming them.
local function check_opts(opts, spec, where, argn)
  core.check_options(where, opts, spec, argn or 1)
  return opts or {}
end

--- compare_results (spec §1.7): for each metric ("snr", "mse",
-- "cosine_similarity", in that order) that `metrics` names (nil: all; a
-- sequence of names, or a string -- then, as in Python's `in`, every
-- metric whose name is a substring of it), walk the pairs of
-- `reference_output` and `run_output` (the shorter length wins): a pair of
-- Tensors gives the metric (float32 arithmetic, rounded to 2 decimals,
-- numeric.h), any other pair nil (None).
-- @param reference_output sequence of values (e.g. blk.reference_output)
-- @param run_output sequence of values (e.g. blk.run_output)
-- @param[opt] metrics sequence of metric names or a string
-- @param[opt] opts {print = true} prints the results as the reference does
--   (print_compare_results); {print = true, style = "box", file = f} as a table
-- @treturn dict metric name -> list of numbers (nil for None; field n = length)
-- @raise "Input tensors must have the same shape" (cosine), PyTorch's
--   broadcasting message (snr, mse), a tensor that cannot be read
function M.compare_results(reference_output, run_output, metrics, opts)
  core.check_options("compare_results", opts, { print = "boolean", file = "file", style = "string" }, 4)
  if type(reference_output) ~= "table" or type(run_output) ~= "table" then
    error("compare_results: reference_output and run_output must be sequences of values", 2)
  end
  local n = math.min(len(reference_output), len(run_output))
  local results = new_dict()
  for _, name in ipairs(METRICS) do
    local wanted = metrics == nil
    if type(metrics) == "string" then
      wanted = metrics:find(name, 1, true) ~= nil
    elseif type(metrics) == "table" then
      for _, m in ipairs(metrics) do if m == name then wanted = true end end
    end
    if wanted then
      local list = { n = n }
      for i = 1, n do
        local r, v = reference_output[i], run_output[i]
        if is_tensor(r) and is_tensor(v) then list[i] = core.numeric_metric(name, r, v) end
      end
      dict_set(results, name, list)
    end
  end
  if opts and opts.print then M.print_compare_results(results, { file = opts.file, style = opts.style }) end
  return results
end

local function fixed5(v)
  if v == nil then return "None" end
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  return string.format("%.5f", v)
end

--- The results of compare_results as a Frame: one row per output index
-- (0-based, as the reference prints it), one column per metric.
function M.results_frame(results)
  local cols, n = { "output_index" }, 0
  for name, list in pairs(results) do
    cols[#cols + 1] = name
    n = math.max(n, len(list))
  end
  local rows = {}
  for i = 1, n do
    local row = { output_index = i - 1 }
    for name, list in pairs(results) do
      local v = list[i]
      row[name] = v == nil and NaN or v
    end
    rows[i] = row
  end
  return Frame.new(cols, rows)
end

--- Print compare_results' results.  Without opts.style, as the reference
-- prints them: per metric its name, 20 dashes, one line per value
-- (f"{i:<5}{v:>8.5f}"; None printed as "None", where the reference
-- raises), then an empty line.  With opts.style ("box", "plain",
-- "markdown", "tsv", "csv", "json"), results_frame(results) in that style.
-- @param results what compare_results returned
-- @param[opt] opts {file = io.stdout, style = nil}
function M.print_compare_results(results, opts)
  if type(results) ~= "table" then
    error("print_compare_results: bad argument #1 (results table expected, got " .. type(results) .. ")", 2)
  end
  opts = check_opts(opts, { file = "file", style = "string" }, "print_compare_results", 2)
  local out = opts.file or io.stdout
  -- checked: a failed write is an error naming the file and the reason
  if opts.style then
    core.write_to(out, "print_compare_results", M.results_frame(results):render(opts.style))
    return
  end
  local text = {}
  for name, list in pairs(results) do
    text[#text + 1] = name .. "\n" .. string.rep("-", 20) .. "\n"
    for i = 1, len(list) do
      text[#text + 1] = string.format("%-5d%8s\n", i - 1, fixed5(list[i]))
    end
    text[#text + 1] = "\n\n"
  end
  core.write_to(out, "print_compare_results", table.concat(text))
end

-- Blocks chosen by `sel`: nil all, an index, or a name.
local function select_blocks(insp, sel, what)
  local out = {}
  for i, blk in ipairs(insp.event_blocks) do
    if sel == nil or sel == i or sel == blk.name then out[#out + 1] = { index = i, block = blk } end
  end
  if sel ~= nil and #out == 0 then
    error(string.format("%s: no event block %s", what, pyrepr.repr(sel)), 3)
  end
  return out
end

--- insp:compare_results([opts]) -> Frame: every block that has both
-- run_output and reference_output (a BundledProgram's expected outputs),
-- one row per output.  Columns: block, block_index (1-based, as
-- insp.event_blocks), bundled_input_index, output_index (1-based, as
-- blk.run_output), shape (the run output's, or its type), snr, mse,
-- cosine_similarity (compare_results' metrics: NaN where the reference
-- gives None - a pair that is not two tensors), max_abs_diff (float64,
-- also for numbers and booleans), and - only when a row has one - note
-- (why a metric is missing: "no reference output", "not tensors: int and
-- int", "shapes differ: [2, 2] and [4]", a tensor that cannot be read).
-- Unequal numbers of outputs give rows for the extra ones.  Nothing is
-- printed.
-- @param[opt] opts {block = index or name, metrics = {names}}
-- @raise "compare_results: unknown metric 'x' ...", "... no event block 'x'",
--   "compare_results: unknown option 'x'"
function M.inspector_compare_results(insp, opts)
  opts = check_opts(opts, { block = "integer|string", metrics = "table|string" },
                    "Inspector:compare_results")
  local want, known = {}, {}
  for _, m in ipairs(METRICS) do known[m] = true end
  for _, m in ipairs(opts.metrics or METRICS) do
    if not known[m] then
      error(string.format("compare_results: unknown metric %s (snr, mse, cosine_similarity)",
                          pyrepr.repr(m)), 2)
    end
    want[m] = true
  end
  local cols = { "block", "block_index", "bundled_input_index", "output_index", "shape" }
  for _, m in ipairs(METRICS) do if want[m] then cols[#cols + 1] = m end end
  cols[#cols + 1] = "max_abs_diff"
  local rows, any_note = {}, false
  for _, b in ipairs(select_blocks(insp, opts.block, "compare_results")) do
    local blk = b.block
    local run, ref = blk.run_output, blk.reference_output
    if type(run) == "table" and type(ref) == "table" then
      for i = 1, math.max(len(run), len(ref)) do
        local r, v = ref[i], run[i]
        local row = { block = blk.name, block_index = b.index,
                      bundled_input_index = blk.bundled_input_index, output_index = i,
                      max_abs_diff = NaN }
        for _, m in ipairs(METRICS) do if want[m] then row[m] = NaN end end
        row.shape = is_tensor(v) and pyrepr.repr(v.shape) or is_tensor(r) and pyrepr.repr(r.shape)
                    or kind(v ~= nil and v or r)
        local note
        if i > len(ref) then
          note = "no reference output"
        elseif i > len(run) then
          note = "no run output"
        elseif is_tensor(r) and is_tensor(v) then
          for _, m in ipairs(METRICS) do
            if want[m] then
              local ok, res = pcall(core.numeric_metric, m, r, v)
              if ok then
                row[m] = res
              elseif m == "cosine_similarity" and tostring(res):find("same shape", 1, true) then
                note = note or string.format("shapes differ: %s and %s", pyrepr.repr(r.shape),
                                             pyrepr.repr(v.shape))
              else
                note = note or tostring(res)
              end
            end
          end
        else
          note = string.format("not tensors: %s and %s", kind(r), kind(v))
        end
        local nr, nv = type(r) == "number" or type(r) == "boolean" or is_tensor(r),
                       type(v) == "number" or type(v) == "boolean" or is_tensor(v)
        if nr and nv and i <= len(ref) and i <= len(run) then
          local ok, res = pcall(core.max_abs_diff, r, v)
          if ok then row.max_abs_diff = res else note = note or tostring(res) end
        end
        row.note = note
        if note then any_note = true end
        rows[#rows + 1] = row
      end
    end
  end
  if any_note then cols[#cols + 1] = "note" end
  return Frame.new(cols, rows)
end

-- ---------------------------------------------------------------- comparators

local function check_not_sequence(v)
  if is_sequence(v) then
    error("convert_to_float_tensor: a sequence is neither a tensor nor a number "
          .. "(the reference asserts); compare its elements instead", 0)
  end
end

local function builtin(name)
  return {
    _builtin = true,
    name = name,
    --- element_compare(a, b) -> number: the distance of two tensors or
    -- numbers (spec §7.5; numeric.h et_numeric_distance).
    element_compare = function(a, b)
      check_not_sequence(a)
      check_not_sequence(b)
      return core.numeric_distance(name, a, b)
    end,
  }
end

--- The built-in comparators of calculate_numeric_gap: tables with an
-- element_compare(a, b) -> number, usable in custom comparators too
-- ({preprocessing = fn, element_compare = etinspect.comparators.SNR.element_compare}).
M.comparators = { MSE = builtin("MSE"), L1 = builtin("L1"), SNR = builtin("SNR") }

-- The comparator `distance` names or is (spec §7.1 step 6).
local function resolve_comparator(distance, insp)
  if type(distance) == "string" then
    local name = distance:match("^%s*(.-)%s*$"):upper()
    local c = M.comparators[name]
    if not c then error("Unsupported distance metric " .. pyrepr.repr(distance), 0) end
    return c
  end
  if type(distance) == "table" and type(distance.element_compare) == "function"
     and (distance.preprocessing == nil or type(distance.preprocessing) == "function") then
    if not distance._builtin and distance.inspector == nil then distance.inspector = insp end
    return distance
  end
  error("calculate_numeric_gap: distance must be \"MSE\", \"L1\", \"SNR\" or a comparator "
        .. "{element_compare = function(a, b) -> number, preprocessing = function(mapping) -> "
        .. "mapping (optional)}, got " .. kind(distance), 3)
end

-- ---------------------------------------------------------------- §7.3

--- _merge_runtime_debug_handles(a, b): the elements of a not in b (order
-- and duplicates kept), then those of b not yet emitted (duplicates
-- dropped).
function M.combine_debug_handles(a, b)
  local out, inb = {}, set_of(b)
  for i = 1, len(a) do
    if not inb[a[i]] then out[#out + 1] = a[i] end
  end
  local seen = set_of(out)
  for i = 1, len(b) do
    if not seen[b[i]] then
      out[#out + 1] = b[i]
      seen[b[i]] = true
    end
  end
  return out
end

--- merge_runtime_overlapping_debug_handles (spec §7.3).
-- @param entries sequence of {debug_handle = {h, ...}, instruction_id = i,
--   output = v, num_outputs = n}, in the dict's order
-- @return sequence of the same records (new tables; debug_handle the
--   merged tuple, the other fields those of the entry whose value won)
function M.merge_runtime_overlapping_debug_handles(entries)
  -- `merged` in the reference's dict order: records with a sequence
  -- number (a new key goes to the end), found through an index handle ->
  -- records holding it, removed by marking them dead
  local index, live, seq = {}, {}, 0
  local empty_key -- the record of the empty tuple (the only key that can
                  -- be set again without overlapping itself)
  local function add(rec)
    seq = seq + 1
    rec.seq = seq
    live[seq] = rec
    for i = 1, len(rec.debug_handle) do
      local h = rec.debug_handle[i]
      local s = index[h]
      if not s then s = {}; index[h] = s end
      s[rec] = true
    end
  end
  local function remove(rec)
    live[rec.seq] = nil
    for i = 1, len(rec.debug_handle) do
      local s = index[rec.debug_handle[i]]
      if s then s[rec] = nil end
    end
  end
  for _, e in ipairs(entries) do
    local h = e.debug_handle
    local found, olap = {}, {}
    for i = 1, len(h) do
      for rec in pairs(index[h[i]] or {}) do
        if not found[rec] then found[rec] = true; olap[#olap + 1] = rec end
      end
    end
    table.sort(olap, function(x, y) return x.seq < y.seq end)
    local cur, last = h, e
    for _, m in ipairs(olap) do
      if m.instruction_id < e.instruction_id then
        cur = M.combine_debug_handles(m.debug_handle, cur)
      else
        cur = M.combine_debug_handles(cur, m.debug_handle)
        last = m
      end
      remove(m)
    end
    local rec = { debug_handle = tuple(cur), instruction_id = last.instruction_id,
                  output = last.output, num_outputs = last.num_outputs }
    if len(cur) == 0 and empty_key and live[empty_key.seq] == empty_key then
      rec.seq = empty_key.seq -- merged[()] = last: updated in place
      live[rec.seq] = rec
      empty_key = rec
    else
      add(rec)
      if len(cur) == 0 then empty_key = rec end
    end
  end
  local out = {}
  for i = 1, seq do
    local rec = live[i]
    if rec then
      out[#out + 1] = { debug_handle = rec.debug_handle, instruction_id = rec.instruction_id,
                        output = rec.output, num_outputs = rec.num_outputs }
    end
  end
  return out
end

-- ---------------------------------------------------------------- §7.4

local function same_shape(a, b)
  local sa, sb = a.shape, b.shape
  if #sa ~= #sb then return false end
  for i = 1, #sa do if sa[i] ~= sb[i] then return false end end
  return true
end

-- _find_matching_runtime_output_by_shape_and_dtype
local function match_by_shape(a, rout)
  local n, by_shape = len(rout), {}
  for i = 1, n do
    local r = rout[i]
    if is_tensor(r) and same_shape(r, a) then by_shape[#by_shape + 1] = i end
  end
  if #by_shape == 1 then return rout[by_shape[1]] end
  if #by_shape > 1 then
    local by_dtype = {}
    for _, i in ipairs(by_shape) do
      if rout[i].dtype == a.dtype then by_dtype[#by_dtype + 1] = i end
    end
    if #by_dtype == 1 then return rout[by_dtype[1]] end
  end
  return rout[n]
end

local function all_tensors(v)
  for i = 1, len(v) do if not is_tensor(v[i]) then return false end end
  return true
end

-- Python's seq[neg] for neg < 0 (nil when out of range).
local function from_end(seq, neg)
  local i = len(seq) + neg + 1
  if i < 1 then return nil end
  return seq[i]
end

--- map_runtime_aot_intermediate_outputs (spec §7.4).
-- @param aot sequence of {debug_handle = {h, ...}, output = v}
-- @param runtime sequence of {debug_handle = {h, ...}, output = v, num_outputs = n}
-- @return the mapping: sequence of {aot = {debug_handle, output},
--   runtime = {debug_handle, output}} (debug handles as tuples), in
--   component order then output index; an entry with the same AOT handle
--   and output as an earlier one replaces it in place, as a dict key would
-- @raise "Expected only one runtime debug handle, but found N: [...]",
--   "runtime intermediate output should be a sequence when aot
--   intermediate output is a sequence", "The last element of runtime
--   argument list must be a tensor or a list of tensors when aot
--   intermediate output is a sequence"
function M.map_runtime_aot_intermediate_outputs(aot, runtime)
  local nodes = {}
  for _, a in ipairs(aot) do
    nodes[#nodes + 1] = { aot = true, debug_handle = a.debug_handle, output = a.output, n = 1,
                          set = set_of(a.debug_handle) }
  end
  for _, r in ipairs(runtime) do
    nodes[#nodes + 1] = { aot = false, debug_handle = r.debug_handle, output = r.output,
                          n = r.num_outputs or 1, set = set_of(r.debug_handle) }
  end
  -- edges between AOT and runtime nodes sharing a handle; each node's
  -- neighbours in ascending order, as the reference's pairwise loop adds
  -- them (found through a handle index rather than by trying every pair)
  local by_handle = { [true] = {}, [false] = {} }
  for id, nd in ipairs(nodes) do
    for h in pairs(nd.set) do
      local l = by_handle[nd.aot][h]
      if not l then l = {}; by_handle[nd.aot][h] = l end
      l[#l + 1] = id
    end
  end
  local edges = {}
  for id, nd in ipairs(nodes) do
    local seen, list = {}, {}
    for h in pairs(nd.set) do
      for _, other in ipairs(by_handle[not nd.aot][h] or {}) do
        if not seen[other] then seen[other] = true; list[#list + 1] = other end
      end
    end
    table.sort(list)
    edges[id] = list
  end
  -- connected components: depth-first, pre-order, as the recursive DFS
  local visited, components = {}, {}
  for s = 1, #nodes do
    if not visited[s] then
      local comp, stack = {}, { { s, 0 } }
      visited[s] = true
      comp[1] = s
      while #stack > 0 do
        local top = stack[#stack]
        top[2] = top[2] + 1
        local nb = edges[top[1]][top[2]]
        if nb == nil then
          stack[#stack] = nil
        elseif not visited[nb] then
          visited[nb] = true
          comp[#comp + 1] = nb
          stack[#stack + 1] = { nb, 0 }
        end
      end
      components[#components + 1] = comp
    end
  end

  local mapping, index = {}, {}
  local function emit(ah, a, rh, r)
    local key = hkey(ah)
    local slot = index[key]
    local entry = { aot = { debug_handle = tuple(ah), output = a },
                    runtime = { debug_handle = tuple(rh), output = r } }
    if slot then
      for _, pos in ipairs(slot) do
        local old = mapping[pos].aot.output
        if rawequal(old, a) or (type(a) == "number" and old == a) then
          mapping[pos] = entry
          return
        end
      end
    else
      slot = {}
      index[key] = slot
    end
    mapping[#mapping + 1] = entry
    slot[#slot + 1] = #mapping
  end

  for _, comp in ipairs(components) do
    local aot_list, rt_list = {}, {}
    for _, id in ipairs(comp) do
      if nodes[id].aot then aot_list[#aot_list + 1] = nodes[id] else rt_list[#rt_list + 1] = nodes[id] end
    end
    if #aot_list > 0 and #rt_list > 0 then
      if #rt_list ~= 1 then
        local parts = {}
        for i, r in ipairs(rt_list) do
          parts[i] = string.format("(%s, %s, %d)", pyrepr.repr(tuple(r.debug_handle)),
                                   pyrepr.repr(r.output), r.n)
        end
        error(string.format("Expected only one runtime debug handle, but found %d: [%s]",
                            #rt_list, table.concat(parts, ", ")), 0)
      end
      local rt = rt_list[1]
      local rh, rout, n = rt.debug_handle, rt.output, rt.n
      -- dict(aot_list): first element of each key; later keys win
      local aot_map, combined = {}, {}
      for _, a in ipairs(aot_list) do
        aot_map[hkey(a.debug_handle)] = { a.output }
        combined[#combined + 1] = a.debug_handle[1]
      end
      local rset = set_of(rh)
      local subset = true
      for _, h in ipairs(combined) do if not rset[h] then subset = false end end
      for i = 0, n - 1 do
        local neg = -(i + 1)
        local k = subset and from_end(rh, neg) or nil
        local hit = k ~= nil and aot_map[string.format("%d", k)] or nil
        if hit then
          local a = hit[1]
          local mapped
          if is_sequence(a) then
            if not is_sequence(rout) then
              error("runtime intermediate output should be a sequence when aot intermediate "
                    .. "output is a sequence", 0)
            end
            local last = from_end(rout, neg)
            if is_sequence(last) and all_tensors(last) then
              mapped = last
            elseif is_tensor(last) then
              mapped = rout
            else
              error("The last element of runtime argument list must be a tensor or a list of "
                    .. "tensors when aot intermediate output is a sequence", 0)
            end
            a, mapped = tuple(a), tuple(mapped)
          elseif not is_sequence(rout) then
            mapped = rout
          else
            mapped = from_end(rout, neg)
            if n == 1 and len(rout) > 1 and is_tensor(a) then mapped = match_by_shape(a, rout) end
          end
          emit(rh, a, rh, mapped)
        end
      end
    end
  end
  return mapping
end

--- find_op_names(target, op_names): the names of every entry whose
-- handles are a subset of `target`'s, in op_names' order.
-- @param target sequence of handles
-- @param op_names sequence of {debug_handle = {...}, names = {...} or "name"}
-- @treturn {string, ...}
function M.find_op_names(target, op_names)
  local tset, out = set_of(target), {}
  for _, e in ipairs(op_names) do
    local inside = true
    for i = 1, len(e.debug_handle) do
      if not tset[e.debug_handle[i]] then inside = false; break end
    end
    if inside then
      local names = type(e.names) == "string" and { e.names } or e.names
      for _, nm in ipairs(names) do out[#out + 1] = nm end
    end
  end
  return out
end

-- ---------------------------------------------------------------- §7.5

local function validate_mapping(m)
  local expected = "Expected a sequence of {aot = {debug_handle = {int, ...}, output = v}, "
                   .. "runtime = {debug_handle = {int, ...}, output = v}}"
  if type(m) ~= "table" or getmetatable(m) ~= nil then
    error(string.format("preprocessing() must return a table, got %s. %s", kind(m), expected), 0)
  end
  local function handle_ok(h)
    if type(h) ~= "table" then return false end
    for i = 1, len(h) do if math.type(h[i]) ~= "integer" then return false end end
    return true
  end
  for i, e in ipairs(m) do
    local a = type(e) == "table" and e.aot or nil
    if type(a) ~= "table" then
      error(string.format("Invalid key format in preprocessed mapping: entry %d: %s. %s", i,
                          pyrepr.repr(a), expected), 0)
    end
    if not handle_ok(a.debug_handle) then
      error(string.format("Invalid AOT debug handle in key: %s. Expected a sequence of integers",
                          pyrepr.repr(a.debug_handle)), 0)
    end
    local r = e.runtime
    if type(r) ~= "table" then
      error(string.format("Invalid value format in preprocessed mapping: entry %d: %s. %s", i,
                          pyrepr.repr(r), expected), 0)
    end
    if not handle_ok(r.debug_handle) then
      error(string.format("Invalid runtime debug handle in value: %s. Expected a sequence of "
                          .. "integers", pyrepr.repr(r.debug_handle)), 0)
    end
  end
end

local function element_compare(cmp, a, b)
  local g = cmp.element_compare(a, b)
  if type(g) ~= "number" then
    error("element_compare must return a number, got " .. kind(g), 0)
  end
  return g
end

-- _compare_intermediate_outputs
local function compare_outputs(cmp, a, b)
  local sa, sb = is_sequence(a), is_sequence(b)
  if sa and sb then
    if len(a) ~= len(b) then
      error(string.format("Sequences 'a' (%s) and 'b' (%s) must have the same length for "
                          .. "comparison. len(a): %d len(b): %d.", pyrepr.repr(a), pyrepr.repr(b),
                          len(a), len(b)), 0)
    end
    local out = {}
    for i = 1, len(a) do out[i] = element_compare(cmp, a[i], b[i]) end
    return out
  elseif not sa and not sb then
    return { element_compare(cmp, a, b) }
  end
  error(string.format("Both inputs 'a' (%s) and 'b' (%s) must be sequences or both must be "
                      .. "non-sequences.", pyrepr.repr(a), pyrepr.repr(b)), 0)
end

local GAP_COLUMNS = { "aot_debug_handle", "aot_ops", "aot_intermediate_output", "runtime_ops",
                      "runtime_debug_handle", "runtime_intermediate_output", "gap" }

--- comparator.compare (spec §7.5): preprocessing (when the comparator has
-- one), validation of its result, then one row per mapping entry whose
-- outputs are both non-nil and whose AOT output is not a sequence of more
-- than one value.
-- @return Frame with columns aot_debug_handle, aot_ops,
--   aot_intermediate_output, runtime_ops, runtime_debug_handle,
--   runtime_intermediate_output, gap (a list of numbers); a frame with no
--   columns when there are no rows
function M.compare(cmp, mapping, aot_op_names, runtime_op_names)
  local processed = mapping
  if cmp.preprocessing then processed = cmp.preprocessing(mapping) end
  validate_mapping(processed)
  local rows = {}
  for _, e in ipairs(processed) do
    local a, r = e.aot.output, e.runtime.output
    if a ~= nil and r ~= nil and not (is_sequence(a) and len(a) > 1) then
      rows[#rows + 1] = {
        aot_debug_handle = tuple(e.aot.debug_handle),
        aot_ops = M.find_op_names(e.aot.debug_handle, aot_op_names),
        aot_intermediate_output = a,
        runtime_ops = M.find_op_names(e.runtime.debug_handle, runtime_op_names),
        runtime_debug_handle = tuple(e.runtime.debug_handle),
        runtime_intermediate_output = r,
        gap = compare_outputs(cmp, a, r),
      }
    end
  end
  if #rows == 0 then return Frame.new({}, {}) end
  return Frame.new(GAP_COLUMNS, rows)
end

--- The stacktraces cell of a row: each name of aot_ops -> the first
-- trace found for it in the AOT stack traces, in handle order (nil when
-- none names it).
local function stacktraces_for(aot_ops, stack_traces)
  local d = new_dict()
  for _, op in ipairs(aot_ops) do
    local found = nil
    for _, st in ipairs(stack_traces) do
      if st.has == nil then
        st.has = {}
        for _, nm in ipairs(st.names or {}) do st.has[nm] = true end
        for nm in pairs(st.traces or {}) do st.has[nm] = true end
      end
      if st.has[op] then found = st.traces and st.traces[op]; break end
    end
    dict_set(d, op, found)
  end
  return d
end

--- The numeric gap of two sides already gathered (spec §7.1 steps 5-8):
-- map (§7.4), compare (§7.5), and add the stacktraces column when there
-- are rows.
-- @param aot {outputs = AOT outputs, op_names = op names, stack_traces = stack traces}
-- @param runtime {outputs = runtime outputs (merged), op_names = op names}
-- @param distance "MSE" | "L1" | "SNR" | a comparator table
-- @return Frame (see insp:calculate_numeric_gap)
function M.numeric_gap(aot, runtime, distance, insp)
  local cmp = resolve_comparator(distance, insp)
  local mapping = M.map_runtime_aot_intermediate_outputs(aot.outputs, runtime.outputs)
  local f = M.compare(cmp, mapping, aot.op_names or {}, runtime.op_names or {})
  if #f > 0 then
    local cols = {}
    for i, c in ipairs(f.columns) do cols[i] = c end
    cols[#cols + 1] = "stacktraces"
    local rows = {}
    for i, row in f:rows() do
      row.stacktraces = stacktraces_for(row.aot_ops, aot.stack_traces or {})
      rows[i] = row
    end
    f = Frame.new(cols, rows)
  end
  return f
end

-- ---------------------------------------------------------------- §7.2

--- The runtime side of calculate_numeric_gap (spec §7.2): events linked
-- to an ETRecord (non-empty op_types), OPERATOR_CALL and DELEGATE_CALLs
-- covered by their backend's delegated events left out, the largest
-- instruction id kept per handle tuple, then merged (§7.3).
-- @param insp Inspector
-- @param[opt] opts {block = index or name}: only that block (default all,
--   as the reference)
-- @return outputs (sequence of {debug_handle, output = debug_data,
--   num_outputs}), op_names (sequence of {debug_handle, names = {event
--   name}}, keyed by the handles before merging)
function M.runtime_intermediate_outputs(insp, opts)
  opts = check_opts(opts, { block = "integer|string" }, "runtime_intermediate_outputs")
  local blocks = select_blocks(insp, opts.block, "calculate_numeric_gap")
  local NOBACKEND = {}
  local inner = {}
  for _, b in ipairs(blocks) do
    for _, ev in ipairs(b.block.events) do
      if ev.is_delegated_op and #ev.op_types > 0 and ev.debug_handles ~= nil then
        local data = ev.debug_data
        if data and len(data) > 0 then
          local key = ev.delegate_backend_name
          if key == nil then key = NOBACKEND end
          inner[key] = inner[key] or {}
          for _, h in ipairs(handles(ev.debug_handles)) do inner[key][h] = true end
        end
      end
    end
  end
  local entries, by_key, names = {}, {}, {}
  for _, b in ipairs(blocks) do
    for _, ev in ipairs(b.block.events) do
      if ev.name ~= "OPERATOR_CALL" and #ev.op_types > 0 and ev.debug_handles ~= nil then
        local h = handles(ev.debug_handles)
        local skip = false
        if ev.name == "DELEGATE_CALL" then
          local key = ev.delegate_backend_name
          local set = inner[key == nil and NOBACKEND or key]
          if set and overlaps(set, h) then skip = true end
        end
        if not skip then
          local k = hkey(h)
          local cur = by_key[k]
          local iid = ev.instruction_id
          -- the reference starts from instruction id -1 and replaces on a
          -- strictly larger one
          if iid > (cur and cur.instruction_id or -1) then
            local rec = { debug_handle = tuple(h), instruction_id = iid, output = ev.debug_data or {},
                          num_outputs = ev.num_outputs }
            if cur == nil then
              entries[#entries + 1] = rec
              names[#names + 1] = { debug_handle = tuple(h), names = { ev.name } }
              by_key[k] = { pos = #entries, npos = #names, instruction_id = iid }
            else
              entries[cur.pos] = rec
              names[cur.npos].names = { ev.name }
              cur.instruction_id = iid
            end
          end
        end
      end
    end
  end
  local merged = M.merge_runtime_overlapping_debug_handles(entries)
  local outputs = {}
  for i, m in ipairs(merged) do
    outputs[i] = { debug_handle = m.debug_handle, output = m.output, num_outputs = m.num_outputs }
  end
  return outputs, names
end

local MISSING_AOT = "Missing etrecord or missing representative inputs within etrecord, both "
                    .. "of which are required for calculating numerical gap"

--- The AOT side taken from another Inspector: its runtime intermediate
-- outputs (§7.2, merged), each runtime entry (handles h, values data,
-- num_outputs n) giving AOT outputs (h[-1-i],) = data[-1-i] for i < n (a
-- delegate call logs its inputs first and outputs last); op names and
-- stack traces from its ETRecord's reference graph (nodes with a debug
-- handle, getitem nodes left out), else its event names.
-- @return {outputs, op_names, stack_traces}
function M.aot_from_inspector(ref, opts)
  opts = check_opts(opts, { block = "integer|string" }, "aot_from_inspector")
  if ref.etrecord == nil then
    error("calculate_numeric_gap: the reference Inspector is not linked to an ETRecord: "
          .. "its events have no debug handles", 3)
  end
  local rt, rt_names = M.runtime_intermediate_outputs(ref, { block = opts.block })
  local outputs, pos = {}, {}
  for _, e in ipairs(rt) do
    local h, data, n = e.debug_handle, e.output, e.num_outputs or 1
    for i = 0, n - 1 do
      local k = from_end(h, -(i + 1))
      if k == nil then break end
      local v
      if is_sequence(data) then v = from_end(data, -(i + 1)) elseif i == 0 then v = data end
      if v ~= nil then
        local key = string.format("%d", k)
        if pos[key] then
          outputs[pos[key]].output = v
        else
          outputs[#outputs + 1] = { debug_handle = tuple({ k }), output = v }
          pos[key] = #outputs
        end
      end
    end
  end
  local op_names, stack_traces = {}, {}
  local g = ref:get_exported_program()
  if g ~= nil and type(g) ~= "string" then
    local nidx = {}
    for _, node in ipairs(g.nodes) do
      local dh = node.debug_handle
      if dh ~= nil and not node.name:find("getitem", 1, true) then
        local h = handles(dh)
        local key = hkey(h)
        local i = nidx[key]
        if not i then
          op_names[#op_names + 1] = { debug_handle = tuple(h), names = {} }
          stack_traces[#stack_traces + 1] = { debug_handle = tuple(h), names = {}, traces = {} }
          i = #op_names
          nidx[key] = i
        end
        table.insert(op_names[i].names, node.name)
        table.insert(stack_traces[i].names, node.name)
        stack_traces[i].traces[node.name] = node.stack_trace
      end
    end
  else
    op_names = rt_names
  end
  return { outputs = outputs, op_names = op_names, stack_traces = stack_traces }
end

-- ---------------------------------------------------------------- AOT directories

local FORMAT = "etinspect-aot-outputs"

--- Read a .npy file as a Tensor (memory-mapped; npy.h).
-- @tparam string path
-- @return Tensor
-- @raise "PATH: not a .npy file ...", "PATH: No such file or directory", ...
function M.read_npy(path)
  if type(path) ~= "string" then
    error("read_npy: bad argument #1 (path string expected, got " .. type(path) .. ")", 2)
  end
  return core.npy_load(path)
end

-- The .npy file of Tensor `t` written to `path` (write_npy, below).
local function npy_file(path, t)
  local descr = core.npy_descr(t)
  local data
  if descr then
    data = t:bytes()
    local little = string.pack("=I2", 1) == "\1\0"
    if not little and descr:sub(1, 1) == "<" then descr = ">" .. descr:sub(2) end
  else
    local vals = {}
    for i = 1, t.numel do vals[i] = t[i] + 0.0 end
    local shape = t.shape
    data = etinspect.Tensor.new { dtype = "float32", shape = shape, values = vals }:bytes()
    descr = string.pack("=I2", 1) == "\1\0" and "<f4" or ">f4"
  end
  local dims = {}
  for i, d in ipairs(t.shape) do dims[i] = string.format("%d", d) end
  local shape = "(" .. table.concat(dims, ", ") .. (#dims == 1 and ",)" or ")")
  local head = string.format("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
  local hl = #head + 1
  hl = hl + (64 - (10 + hl) % 64) % 64
  head = head .. string.rep(" ", hl - #head - 1) .. "\n"
  core.write_file(path, "\x93NUMPY\1\0" .. string.pack("<I2", hl) .. head .. data)
end

-- An error's message without the positions inside the library it went
-- through ("[etinspect] etinspect.numeric:995: "): the error is the
-- caller's, its position (if any) is added where it is raised again.
local function without_position(err)
  local msg = tostring(err)
  repeat
    local n
    msg, n = msg:gsub("^%[etinspect%] etinspect[%w_%.]*:%d+: ", "", 1)
  until n == 0
  return msg
end

-- write_npy's work: true, or false and the message without a position.
local function try_write_npy(path, t)
  if type(path) ~= "string" then
    return false, "write_npy: bad argument #1 (path string expected, got " .. kind(path) .. ")"
  end
  if not is_tensor(t) then return false, "write_npy: argument 2 must be a Tensor, got " .. kind(t) end
  local ok, err = pcall(npy_file, path, t)
  if ok then return true end
  return false, without_position(err)
end

--- Write a Tensor as a NumPy .npy file (format 1.0, C order, the host's
-- byte order - little-endian on every supported host), through a
-- temporary file renamed into place.  bfloat16, float8 and quantized
-- tensors, which NumPy cannot hold, are written as float32.
-- @tparam string path
-- @param t Tensor (readable)
-- @raise the tensor's read errors ("...: no debug buffer"), write errors
--   ("PATH: cannot create a file beside it: REASON"), at the caller's line
function M.write_npy(path, t)
  local ok, err = try_write_npy(path, t)
  if not ok then error(err, 2) end -- at the caller's line
end

local function json_str(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local map = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }
    return map[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function json_num(v)
  if math.type(v) == "integer" then return string.format("%d", v) end
  if v ~= v or v == math.huge or v == -math.huge then
    error("save_intermediate_outputs: a non-finite scalar output cannot be written to JSON", 0)
  end
  return core.repr(v)
end

local function safe_relative(name)
  if name == "" or name:sub(1, 1) == "/" or name:find("\0", 1, true) then return false end
  for part in name:gmatch("[^/]+") do
    if part == ".." then return false end
  end
  return true
end

-- An output of index.json as a Lua value.
local function load_value(v, dir, where)
  if v == nil then return nil end -- null (or no "output"): None
  if type(v) == "string" then
    if not safe_relative(v) then
      error(string.format("%s: file name '%s' must be relative and stay inside the directory",
                          where, v), 0)
    end
    local ok, t = pcall(core.npy_load, dir .. "/" .. v)
    if not ok then error(where .. ": " .. tostring(t), 0) end
    return t
  end
  if type(v) == "number" or type(v) == "boolean" then return v end
  local mt = type(v) == "table" and getmetatable(v)
  if type(v) == "table" and not (mt and mt.__pydict) then -- a JSON array
    local out, holes = {}, false
    local n = #v
    for i = 1, n do
      if v[i] ~= nil then
        out[i] = load_value(v[i], dir, string.format("%s[%d]", where, i - 1))
      else
        holes = true
      end
    end
    if holes then out.n = n end -- None inside: the length in field n
    return out
  end
  error(where .. ": expected a .npy file name, a number, a boolean, null or a list of these", 0)
end

--- Read an AOT intermediate outputs directory (docs/numerical-debugging.md:
-- index.json and .npy files, as scripts/export_aot_outputs.py writes it).
-- @tparam string dir
-- @return {outputs = AOT outputs, op_names = op names, stack_traces = stack
--   traces, reference_graph = string or nil, method = string or nil}
-- @raise "DIR/index.json: ..." for a missing or malformed index (naming
--   the entry: "outputs[3].debug_handle: expected an integer or a
--   non-empty list of integers"), a .npy file that cannot be read, a
--   duplicate debug handle
function M.load_aot_outputs(dir)
  if type(dir) ~= "string" then error("load_aot_outputs: a directory path is required", 2) end
  local ipath = dir .. "/index.json"
  -- read without blocking, a regular file only (an index.json that is a
  -- FIFO is refused rather than waited for)
  local text, oerr = core.read_file(ipath)
  if not text then error(oerr, 0) end
  local doc, jerr = core.json_decode(text)
  local function fail(msg) error(ipath .. ": " .. msg, 0) end
  if doc == nil then fail("invalid JSON at " .. tostring(jerr)) end
  if type(doc) ~= "table" or doc.format ~= FORMAT then
    fail('not an AOT outputs index ("format" must be "' .. FORMAT .. '")')
  end
  if math.type(doc.version) ~= "integer" or doc.version < 1 then
    fail('"version" must be a positive integer')
  end
  if doc.version > 1 then
    fail(string.format("version %d is not supported (this etinspect reads version 1)", doc.version))
  end
  local function is_object(v)
    local mt = type(v) == "table" and getmetatable(v)
    return mt and mt.__pydict == true or false
  end
  local function is_array(v) return type(v) == "table" and not is_object(v) end
  if not is_array(doc.outputs) then
    fail('"outputs" must be a list')
  end
  local outputs, op_names, stack_traces, seen = {}, {}, {}, {}
  for i = 1, #doc.outputs do
    local e = doc.outputs[i]
    local where = string.format("outputs[%d]", i - 1)
    if not is_object(e) then fail(where .. ": expected an object") end
    local dh = e.debug_handle
    local h
    if math.type(dh) == "integer" then
      h = { dh }
    elseif is_array(dh) and #dh > 0 then
      h = {}
      for k = 1, #dh do
        if math.type(dh[k]) ~= "integer" then h = nil; break end
        h[k] = dh[k]
      end
    end
    if h == nil then fail(where .. ".debug_handle: expected an integer or a non-empty list of integers") end
    local key = hkey(h)
    if seen[key] then
      fail(string.format("%s: debug handle %s already given by outputs[%d]", where,
                         pyrepr.repr(tuple(h)), seen[key]))
    end
    seen[key] = i - 1
    local ok, v = pcall(load_value, e.output, dir, where .. ".output")
    if not ok then fail(tostring(v)) end
    outputs[#outputs + 1] = { debug_handle = tuple(h), output = v }
    local names = {}
    if e.op_names ~= nil then
      if not is_array(e.op_names) then
        fail(where .. ".op_names: expected a list of strings")
      end
      for k = 1, #e.op_names do
        if type(e.op_names[k]) ~= "string" then fail(where .. ".op_names: expected a list of strings") end
        names[k] = e.op_names[k]
      end
      op_names[#op_names + 1] = { debug_handle = tuple(h), names = names }
    end
    if e.stack_traces ~= nil then
      if not is_object(e.stack_traces) then
        fail(where .. ".stack_traces: expected an object of op name -> stack trace or null")
      end
      local st = { debug_handle = tuple(h), names = {}, traces = {} }
      for _, nm in ipairs(names) do st.names[#st.names + 1] = nm end
      local extra = {}
      for nm, tr in pairs(e.stack_traces) do
        if tr ~= nil and type(tr) ~= "string" then fail(where .. ".stack_traces['" .. nm .. "']: expected a string or null") end
        st.traces[nm] = tr
        extra[#extra + 1] = nm
      end
      table.sort(extra)
      local has = {}
      for _, nm in ipairs(st.names) do has[nm] = true end
      for _, nm in ipairs(extra) do if not has[nm] then st.names[#st.names + 1] = nm end end
      stack_traces[#stack_traces + 1] = st
    end
  end
  local rg = doc.reference_graph
  return { outputs = outputs, op_names = op_names, stack_traces = stack_traces,
           reference_graph = type(rg) == "string" and rg or nil,
           method = type(doc.method) == "string" and doc.method or nil }
end

--- insp:save_intermediate_outputs(dir [, opts]): write this Inspector's
-- runtime intermediate outputs as an AOT outputs directory (the AOT side
-- an Inspector gives as a reference, aot_from_inspector), so that another
-- dump can be compared with it later without this one.  Tensors become
-- h_<handle>.npy (h_<handle>_<i>.npy inside lists), scalars stay in
-- index.json.  The directory is created when missing.
-- @param[opt] opts {block = index or name}
-- @return the number of outputs written
function M.save_intermediate_outputs(insp, dir, opts)
  if type(dir) ~= "string" then
    error("Inspector:save_intermediate_outputs: bad argument #1 (directory path expected, got "
          .. type(dir) .. ")", 2)
  end
  opts = check_opts(opts, { block = "integer|string" }, "Inspector:save_intermediate_outputs", 2)
  local aot = M.aot_from_inspector(insp, opts)
  core.mkdir(dir)
  local names_of, traces_of = {}, {}
  for _, e in ipairs(aot.op_names) do names_of[hkey(e.debug_handle)] = e.names end
  for _, e in ipairs(aot.stack_traces) do traces_of[hkey(e.debug_handle)] = e end
  local function value_json(v, stem)
    if v == nil then return "null" end
    if is_tensor(v) then
      local file = stem .. ".npy"
      local ok, err = try_write_npy(dir .. "/" .. file, v)
      if not ok then error(err, 0) end
      return json_str(file)
    end
    if type(v) == "boolean" then return v and "true" or "false" end
    if type(v) == "number" then return json_num(v) end
    if is_sequence(v) then
      local parts = {}
      for i = 1, len(v) do parts[i] = value_json(v[i], stem .. "_" .. (i - 1)) end
      return "[" .. table.concat(parts, ", ") .. "]"
    end
    error("save_intermediate_outputs: cannot write a " .. kind(v), 0)
  end
  local lines = {}
  for _, e in ipairs(aot.outputs) do
    local key = hkey(e.debug_handle)
    local stem = "h_" .. key:gsub(",", "_")
    local parts = { '"debug_handle": [' .. key:gsub(",", ", ") .. "]",
                    '"output": ' .. value_json(e.output, stem) }
    local names = names_of[key]
    if names then
      local q = {}
      for i, nm in ipairs(names) do q[i] = json_str(nm) end
      parts[#parts + 1] = '"op_names": [' .. table.concat(q, ", ") .. "]"
      local st = traces_of[key]
      if st then
        local s = {}
        for _, nm in ipairs(st.names) do
          local tr = st.traces[nm]
          s[#s + 1] = json_str(nm) .. ": " .. (tr and json_str(tr) or "null")
        end
        parts[#parts + 1] = '"stack_traces": {' .. table.concat(s, ", ") .. "}"
      end
    end
    lines[#lines + 1] = "    {" .. table.concat(parts, ", ") .. "}"
  end
  local src = insp.etdump_path and json_str(insp.etdump_path) or "null"
  local text = '{\n  "format": "' .. FORMAT .. '",\n  "version": 1,\n'
               .. '  "reference_graph": "runtime",\n  "source": ' .. src .. ',\n'
               .. '  "outputs": [\n' .. table.concat(lines, ",\n") .. "\n  ]\n}\n"
  core.write_file(dir .. "/index.json", text)
  return #aot.outputs
end

-- ---------------------------------------------------------------- the entry point

--- insp:calculate_numeric_gap(reference, distance [, opts]) -> Frame, or
-- in the Python Inspector's order insp:calculate_numeric_gap(distance,
-- reference [, opts]) (spec §7.1): compare this Inspector's intermediate
-- outputs (its debug events, linked to debug handles by an ETRecord;
-- §7.2) with a reference's, mapped by debug handle (§7.3, §7.4).  The
-- Python Inspector computes the AOT side itself by running the ETRecord's
-- graph in PyTorch; etinspect takes it from `reference`, so the Python
-- call insp:calculate_numeric_gap("MSE") raises, saying so.
-- @param reference an Inspector (the same model run another way: its
--   runtime outputs play the AOT side, see aot_from_inspector) or the
--   path of an AOT outputs directory (load_aot_outputs)
-- @param distance "MSE", "L1" or "SNR" (stripped, any case) or a
--   comparator table {element_compare = function(a, b) -> number,
--   preprocessing = function(mapping) -> mapping (optional)}; a custom
--   table gets field `inspector` (this Inspector) when it has none
-- @param[opt] opts {block = index or name (this Inspector's blocks to use;
--   default all), reference_block = index or name (the reference
--   Inspector's)}
-- @return Frame: aot_debug_handle, aot_ops, aot_intermediate_output,
--   runtime_ops, runtime_debug_handle, runtime_intermediate_output, gap (a
--   list: one number per output compared), stacktraces (op name -> stack
--   trace or nil); a frame without columns when nothing maps
-- @raise "Unsupported distance metric 'x'", "Missing etrecord or missing
--   representative inputs ..." (the reference has no outputs), an
--   Inspector without an ETRecord, the mapping's and comparator's errors
local function is_distance(v)
  if type(v) == "string" then return M.comparators[v:match("^%s*(.-)%s*$"):upper()] ~= nil end
  return type(v) == "table" and type(v.element_compare) == "function"
end

function M.calculate_numeric_gap(insp, reference, distance, opts)
  if is_distance(reference) and not is_distance(distance) then
    if distance == nil or type(distance) == "boolean" then
      error("Inspector:calculate_numeric_gap: no reference for the AOT side: the Python Inspector "
            .. "runs the ETRecord's graph in PyTorch to get it, etinspect takes it from another "
            .. "Inspector (the same model run another way) or an AOT outputs directory: "
            .. "insp:calculate_numeric_gap(" .. pyrepr.repr(reference) .. ", reference [, opts]) "
            .. "(docs/numerical-debugging.md)", 2)
    end
    reference, distance = distance, reference -- the Python order: distance first
  end
  opts = check_opts(opts, { block = "integer|string", reference_block = "integer|string" },
                    "Inspector:calculate_numeric_gap", 3)
  resolve_comparator(distance, insp)
  local aot
  if type(reference) == "string" then
    if opts.reference_block ~= nil then
      error("calculate_numeric_gap: reference_block goes with a reference Inspector", 2)
    end
    aot = M.load_aot_outputs(reference)
    if #aot.outputs == 0 then error(reference .. ": " .. MISSING_AOT .. " (no outputs)", 0) end
  elseif type(reference) == "userdata" and (getmetatable(reference) or {}).__name == "Inspector" then
    aot = M.aot_from_inspector(reference, { block = opts.reference_block })
    if #aot.outputs == 0 then
      error(MISSING_AOT .. " (the reference Inspector has no intermediate outputs linked to "
            .. "debug handles: was its dump recorded with debug events?)", 0)
    end
  else
    error("calculate_numeric_gap: reference must be an Inspector or the path of an AOT outputs "
          .. "directory, got " .. kind(reference), 2)
  end
  if insp.etrecord == nil then
    error("calculate_numeric_gap: this Inspector is not linked to an ETRecord (open it with "
          .. "etrecord = PATH): its events have no debug handles", 2)
  end
  local outputs, names = M.runtime_intermediate_outputs(insp, { block = opts.block })
  return M.numeric_gap(aot, { outputs = outputs, op_names = names }, distance, insp)
end

--- Install the functions in the module and the methods on the Inspector.
function M.install()
  etinspect.compare_results = M.compare_results
  etinspect.print_compare_results = M.print_compare_results
  etinspect.comparators = M.comparators
  etinspect.load_aot_outputs = M.load_aot_outputs
  etinspect.read_npy = M.read_npy
  etinspect.write_npy = M.write_npy
  core.extend("Inspector", {
    compare_results = M.inspector_compare_results,
    calculate_numeric_gap = M.calculate_numeric_gap,
    save_intermediate_outputs = M.save_intermediate_outputs,
  })
end

return M
