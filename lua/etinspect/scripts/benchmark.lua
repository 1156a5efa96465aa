--- etinspect.scripts.benchmark: benchmark records of one or more ETDumps
-- for the tools that chart them (docs/ci.md): github-action-benchmark's
-- `customSmallerIsBetter` list, or PyTorch benchmark-database v3 records
-- shaped as ExecuTorch's own benchmark jobs write them.  The numbers are
-- the Inspector's (the same p50 as the TSV); several dumps have each
-- event's runs pooled, as a side of `etinspect diff` does.
local etinspect = require("etinspect")
local scripts = require("etinspect.scripts")
local D = require("etinspect.diff")
local Frame = etinspect.Frame

local SCALES = { "ns", "us", "ms", "s", "cycles" }
local METRICS = { "p50", "avg", "p10", "p90", "min", "max" }

local S = {
  description = "Benchmark records of ETDumps: github-action-benchmark JSON or PyTorch benchmark v3",
  epilog = "Each DUMPS argument is an ETDump, a directory of ETDumps or a quoted glob pattern; " ..
           "the runs of several dumps are pooled per event. One entry per method " ..
           "(Method::execute) and per operator event (kernels, delegated events).",
  args = {
    { "dumps", args = "+", metavar = "DUMPS", help = "the ETDumps (files, directories, quoted patterns)" },
    { "--format", choices = { "github", "pytorch-v3" }, required = true,
      help = "github: customSmallerIsBetter entries; pytorch-v3: benchmark database records" },
    { "--model", metavar = "M",
      help = "the model's name (default: the dumps' common file name without its extension, else 'model')" },
    { "--backend", metavar = "B", help = "the backend (model.backend in v3 records; default none)" },
    { "--device", metavar = "D", help = "the device (runners[1].name in v3 records; default none)" },
    { "--metric", choices = METRICS, default = "p50", help = "the statistic of each event's runs" },
    { "-o --output", metavar = "PATH", help = "write to PATH (through a temporary file) instead of standard output" },
    { "--source_time_scale", choices = SCALES, default = "ns", help = "unit of the raw timestamps" },
    { "--target_time_scale", choices = SCALES, default = "ms", help = "unit of the values" },
  },
}

--- Is `name` a method's execute event (Method::execute, or upstream's
-- Method::execute::<method>)?
-- @tparam string name
-- @treturn boolean
function S.is_method_event(name)
  return name == "Method::execute" or name:sub(1, 17) == "Method::execute::"
end

--- Is the event an operator: a kernel (native_call_*) or a delegated
-- event?
-- @tparam table e an entry of etinspect.diff's pool
-- @treturn boolean
function S.is_operator_event(e)
  return e.delegated == true or e.event:sub(1, 12) == "native_call_"
end

--- The statistic `metric` of a pooled entry: the PerfData's own value for
-- one dump (p50, avg, p10, p90, min, max as the TSV has them); for
-- several, the same statistic of the pooled samples (NumPy's linear
-- percentile, the pairwise mean, min, max).
-- @tparam table e an entry of etinspect.diff's pool
-- @tparam string metric one of p50, avg, p10, p90, min, max
-- @treturn number the value
-- @treturn number the spread: the population standard deviation
function S.value(e, metric)
  local pd = e.perf_data
  if pd then return pd[metric], pd.stddev end
  local core = etinspect._core
  local raw, v = e.raw, nil
  if metric == "p50" then v = e.p50
  elseif metric == "avg" then v = e.avg
  elseif metric == "p10" then v = core.agg(raw, "quantile", 0.1)
  elseif metric == "p90" then v = core.agg(raw, "quantile", 0.9)
  else
    v = raw[1]
    for i = 2, #raw do
      local x = raw[i]
      if (metric == "min" and x < v) or (metric == "max" and x > v) then v = x end
    end
  end
  local n = #raw
  local sd = n >= 2 and core.agg(raw, "std") * math.sqrt((n - 1) / n) or 0.0
  return v, sd
end

--- The default model name: the file name, without extension, that every
-- dump has ("model" for pixel/model.etdp and tablet/model.etdp); else
-- "model".
-- @tparam {string,...} paths
-- @treturn string
function S.default_model(paths)
  local stem
  for _, p in ipairs(paths) do
    local s = p:match("([^/]+)$"):gsub("%.[^.]*$", "")
    if stem and s ~= stem then return "model" end
    stem = s
  end
  return stem ~= "" and stem or "model"
end

--- An event's label: its name, and for an operator, in parentheses, its
-- instruction id, delegate debug identifier and occurrence when it repeats.
-- @tparam table e an entry of the pool
-- @treturn string "native_call_convolution.out (instruction 0)"
function S.label(e)
  local parts = {}
  if not S.is_method_event(e.event) then parts[1] = "instruction " .. tostring(e.instruction_id) end
  if e.ddi ~= nil then parts[#parts + 1] = "delegate " .. tostring(e.ddi) end
  if e.occurrence > 1 then parts[#parts + 1] = "occurrence " .. e.occurrence end
  if #parts == 0 then return e.event end
  return e.event .. " (" .. table.concat(parts, ", ") .. ")"
end

--- An ordered JSON object (Frame.json keeps the order of __order).
local function obj(keys, t)
  return setmetatable(t, { __order = keys })
end

--- The method an event ran in, for a v3 record's metric.extra_info.method:
-- "forward" for upstream's Method::execute::forward or a block
-- Execute::forward, else the block's name ("Execute").
-- @tparam table e an entry of the pool
-- @treturn string
function S.method_of(e)
  return e.event:match("^Method::execute::(.+)$") or e.block:match("^Execute::(.+)$") or e.block
end

--- The entries and records of a pool: the method events first, then the
-- operator events, each in block then event order.
-- @tparam {table,...} pool etinspect.diff's pool of the dumps
-- @treturn {table,...} the entries kept
function S.events(pool)
  local out = {}
  for _, e in ipairs(pool) do
    if S.is_method_event(e.event) then out[#out + 1] = e end
  end
  for _, e in ipairs(pool) do
    if not S.is_method_event(e.event) and S.is_operator_event(e) then out[#out + 1] = e end
  end
  return out
end

--- github-action-benchmark's customSmallerIsBetter entries: one object
-- {name, unit, value, range, extra} per event, name "MODEL/BLOCK/LABEL",
-- range "± STDDEV" (6 significant digits), extra the runs, dumps, metric,
-- backend and device, one per line.
-- @tparam {table,...} events S.events
-- @tparam table o parsed arguments (model, backend, device, metric, unit)
-- @tparam integer ndumps
-- @treturn {table,...}
function S.github(events, o, ndumps)
  local out = {}
  for _, e in ipairs(events) do
    local v, sd = S.value(e, o.metric)
    local extra = { string.format("metric: %s", o.metric), string.format("runs: %d", e.runs),
                    string.format("dumps: %d", ndumps) }
    if o.backend ~= "" then extra[#extra + 1] = "backend: " .. o.backend end
    if o.device ~= "" then extra[#extra + 1] = "device: " .. o.device end
    out[#out + 1] = obj({ "name", "unit", "value", "range", "extra" }, {
      name = o.model .. "/" .. e.block .. "/" .. S.label(e), unit = o.unit, value = v,
      range = string.format("± %.6g", sd), extra = table.concat(extra, "\n") })
  end
  return out
end

--- PyTorch benchmark-database v3 records, as ExecuTorch's benchmark jobs
-- write them: one per event, {benchmark = {name = "ExecuTorch", mode =
-- "inference", extra_info}, model = {name, type = "OSS model", backend},
-- metric = {name, benchmark_values = {value}, target_value = 0,
-- extra_info = {method = S.method_of(e)}}, runners = {{name = DEVICE, type,
-- avail_mem_in_gb, total_mem_in_gb}}}; a method's metric is
-- "p50_inference_latency(ms)" (ExecuTorch's "avg_inference_latency(ms)"
-- with --metric avg), an operator's "LABEL p50_latency(ms)".
-- @tparam {table,...} events S.events
-- @tparam table o parsed arguments
-- @treturn {table,...}
function S.pytorch_v3(events, o)
  local out = {}
  local config = Frame.json(obj({ "model", "config", "device" },
                                { model = o.model, config = o.backend, device = o.device }))
  for _, e in ipairs(events) do
    local v = S.value(e, o.metric)
    local metric
    if S.is_method_event(e.event) then
      metric = string.format("%s_inference_latency(%s)", o.metric, o.unit)
      if e.occurrence > 1 then metric = metric .. " (occurrence " .. e.occurrence .. ")" end
    else
      metric = string.format("%s %s_latency(%s)", S.label(e), o.metric, o.unit)
    end
    out[#out + 1] = obj({ "benchmark", "model", "metric", "runners" }, {
      benchmark = obj({ "name", "mode", "extra_info" }, {
        name = "ExecuTorch", mode = "inference",
        extra_info = obj({ "app_type", "benchmark_config", "job_conclusion" }, {
          app_type = "etinspect", benchmark_config = config, job_conclusion = "SUCCESS" }) }),
      model = obj({ "name", "type", "backend" }, { name = o.model, type = "OSS model", backend = o.backend }),
      metric = obj({ "name", "benchmark_values", "target_value", "extra_info" }, {
        name = metric, benchmark_values = { v }, target_value = 0,
        extra_info = obj({ "method" }, { method = S.method_of(e) }) }),
      runners = { obj({ "name", "type", "avail_mem_in_gb", "total_mem_in_gb" }, {
        name = o.device, type = "", avail_mem_in_gb = "", total_mem_in_gb = "" }) },
    })
  end
  return out
end

--- A JSON list, one element a line.
local function json_list(items)
  if #items == 0 then return "[]\n" end
  local parts = {}
  for i, it in ipairs(items) do parts[i] = "  " .. Frame.json(it) end
  return "[\n" .. table.concat(parts, ",\n") .. "\n]\n"
end

--- Run the script: open the dumps (expanded as --etdump_path expands
-- them), pool each event's runs over them, and write the entries in
-- --format to --output (through a temporary file renamed into place,
-- never over a dump) or to standard output.
-- @tparam table o parsed arguments (dumps, format, model, backend, device,
--   metric, output, source_time_scale, target_time_scale)
-- @raise input errors (exit 1): a pattern matching nothing, an unreadable
--   dump, dumps of different time scales, an output that cannot be
--   written; usage errors (exit 2): the same dump twice
function S.run(o)
  local ok, paths = pcall(etinspect._core.expand_dumps, o.dumps)
  if not ok then scripts.input_error(tostring(paths)) end
  local set
  ok, set = pcall(etinspect.open_many, paths, { source_time_scale = o.source_time_scale,
                                                target_time_scale = o.target_time_scale })
  if not ok then
    local msg = tostring(set):gsub("^etinspect%.open_many: ", "")
    if msg:find("are the same file", 1, true) then scripts.usage_error("benchmark: " .. msg) end
    scripts.input_error(msg)
  end
  local dumps <close> = set
  local pool
  ok, pool = pcall(D.pool, dumps)
  if not ok then scripts.input_error(tostring(pool)) end
  o.model = o.model or S.default_model(paths)
  o.backend, o.device = o.backend or "", o.device or ""
  o.unit = dumps.inspectors[1].target_time_scale
  local events = S.events(pool)
  local items = o.format == "github" and S.github(events, o, #paths) or S.pytorch_v3(events, o)
  local text = json_list(items)
  if o.output then
    local wok, werr = pcall(Frame.emit, text, o.output, paths)
    if not wok then scripts.input_error("--output: " .. tostring(werr):gsub("^[^:]*:%d+: ", "")) end
  else
    io.write(text)
  end
end

return S
