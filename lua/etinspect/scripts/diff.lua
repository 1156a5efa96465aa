--- etinspect.scripts.diff: run-to-run (A/B) comparison of two ETDumps, or
-- of two sets of them, event by event (etinspect.diff; docs/diff.md), and
-- the CI gate on it (--fail_above; docs/ci.md).
local common = require("etinspect.scripts.common")
local etinspect = require("etinspect")

local S = {
  description = "Compare two ETDumps (A/B): time change per event, ratio CI, Mann-Whitney significance",
  epilog = "A and B (or --base and --test, each with one or more paths) may each be an ETDump, a " ..
           "directory of ETDumps or a quoted glob pattern; the runs of a side's dumps are pooled. " ..
           "Exit status: 0 pass, 1 input error, 2 usage, 3 regression (--fail_above).",
  args = common.args {
    { "A", args = "?", help = "the baseline: an ETDump, a directory of them or a quoted glob pattern" },
    { "B", args = "?", help = "the dumps compared to it (as A)" },
    { "--base", args = "+", metavar = "PATH", help = "the baseline's dumps (files, directories, patterns), instead of A" },
    { "--test", args = "+", metavar = "PATH", help = "the dumps compared to them, instead of B" },
    { "--fail_above", type = "number", metavar = "PCT",
      help = "exit 3 when a matched event is significantly slower with its ratio interval above 1 + PCT/100" },
    { "--alpha", type = "number", default = 0.05, metavar = "X",
      help = "false discovery rate: significant when the Benjamini-Hochberg q-value < X" },
    { "--confidence", type = "number", default = 0.95, metavar = "C",
      help = "confidence of the ratio's interval" },
    { "--top", type = "integer", default = 0, metavar = "N",
      help = "show the N events whose median time changed most; 0 shows all" },
    { "--tsv_path", metavar = "OUT", help = "also write every row, with every column, as TSV to OUT" },
    { "--model_explorer_path", metavar = "DIR",
      help = "with --etrecord: write Model Explorer files into DIR, with B/A per node (docs/model-explorer.md)" },
  },
}

local FORMATS = { box = "compact", plain = "compact", markdown = "compact",
                  tsv = "full", csv = "full", json = "full" }

--- The exit status of a diff whose gate found a regression.
S.EXIT_REGRESSION = 3

--- The columns shown in the box, plain and markdown formats (tsv, csv and
-- json show every column of etinspect.diff, in its order): those of
-- etinspect.diff's display_columns.
-- @tparam string unit the target time scale
-- @treturn {string,...}
function S.display_columns(unit)
  return require("etinspect.diff").display_columns(unit)
end

--- Two ExecuTorch programs (.pte, "ET12" at byte 4) given as A and B:
-- print what changed from A to B (Program:diff; docs/programs.md "Two
-- programs") and return true; false when A or B is not a program.
-- @tparam table o the parsed arguments
-- @raise usage error (exit 2) for a program beside a dump, or options
--   that only apply to dumps; input error (exit 1) for a malformed program
function S.programs(o)
  if o.A == nil or o.B == nil then return false end -- sets (--base/--test) are dumps
  local function is_program(path)
    local f = io.open(path, "rb")
    if not f then return false end
    local head = f:read(8)
    f:close()
    return head ~= nil and #head == 8 and head:sub(5, 8) == "ET12"
  end
  local pa, pb = is_program(o.A), is_program(o.B)
  if not (pa or pb) then return false end
  if not (pa and pb) then
    common.usage_error("diff: " .. (pa and o.A or o.B) .. " is an ExecuTorch program and "
      .. (pa and o.B or o.A) .. " is not: diff compares two dumps or two programs")
  end
  for _, k in ipairs({ "tsv_path", "model_explorer_path", "etrecord", "fail_above" }) do
    if o[k] then common.usage_error("diff: --" .. k .. " does not apply to two programs") end
  end
  local ok, a = pcall(etinspect.parse_program, o.A)
  if not ok then common.input_error(tostring(a)) end
  local ok2, b = pcall(etinspect.parse_program, o.B)
  if not ok2 then a:close(); common.input_error(tostring(b)) end
  io.write(a:diff(b))
  a:close()
  b:close()
  return true
end

--- The paths of one side: the positional argument, or the option's list.
-- @tparam table o parsed arguments
-- @tparam string pos "A" or "B"
-- @tparam string opt "base" or "test"
-- @treturn {string,...} the paths as given (before expansion)
-- @raise usage errors (exit 2): both given, or neither
local function side_args(o, pos, opt)
  local list = o[opt]
  if o[pos] ~= nil and #list > 0 then
    common.usage_error(string.format("diff: give %s or --%s, not both (etinspect --help diff)", pos, opt))
  end
  if o[pos] ~= nil then return { o[pos] } end
  if #list == 0 then
    common.usage_error(string.format("diff: missing argument '%s' (etinspect --help diff)", pos))
  end
  return list
end

--- Open one side: its paths expanded as --etdump_path expands them
-- (files, directories of ETDumps, glob patterns; src/core/files/dumpset.h);
-- one dump gives its Inspector, several a Dumps (etinspect.open_many).
-- @tparam table o parsed arguments (time scales, etrecord)
-- @tparam {string,...} args the side's paths
-- @treturn Inspector|Dumps the side, to close
-- @treturn {string,...} the expanded paths
-- @raise input errors (exit 1) for a pattern matching nothing, a
--   directory without ETDumps, an unreadable dump; a usage error (exit 2)
--   for the same file twice on one side
local function open_side(o, args)
  local ok, paths = pcall(etinspect._core.expand_dumps, args)
  if not ok then common.input_error(tostring(paths)) end
  if #paths == 1 then return common.open(o, paths[1]), paths end
  local set
  ok, set = pcall(etinspect.open_many, paths, {
    source_time_scale = o.source_time_scale, target_time_scale = o.target_time_scale,
    etrecord = o.etrecord })
  if not ok then
    local msg = tostring(set):gsub("^etinspect%.open_many: ", "")
    if msg:find("are the same file", 1, true) then common.usage_error("diff: " .. msg) end
    common.input_error(msg)
  end
  return set, paths
end

--- Run the script: open A and B (each one dump or a set of them, with
-- the same options: time scales, ETRecord), diff them with units in the
-- column names, print the rows (the first --top N of them when N > 0) in
-- --format, and write every row to --tsv_path when given (through a
-- temporary file; never over an input); with --model_explorer_path,
-- write B's Model Explorer files with the ratio file B/A
-- (Inspector:write_model_explorer with A as the baseline).  With
-- --fail_above, end with the gate's summary on standard error
-- (etinspect.diff's gate_summary) and return 3 when it found a
-- regression.
-- @tparam table o the parsed arguments (A, B, base, test, fail_above,
--   alpha, confidence, top, tsv_path, model_explorer_path and the common
--   ones)
-- @treturn integer|nil 3 (S.EXIT_REGRESSION) when the gate failed
-- @raise usage errors (exit 2) for an alpha or confidence outside (0, 1),
--   a negative --fail_above, a side given twice or not at all,
--   --model_explorer_path without --etrecord, with several dumps on a
--   side, or naming the --tsv_path file or its directory; input errors
--   (exit 1) for unreadable dumps or patterns matching nothing
function S.run(o)
  if S.programs(o) then return end
  if not (o.alpha > 0 and o.alpha < 1) then
    common.usage_error("--alpha must be between 0 and 1, got " .. tostring(o.alpha))
  end
  if not (o.confidence > 0 and o.confidence < 1) then
    common.usage_error("--confidence must be between 0 and 1, got " .. tostring(o.confidence))
  end
  if o.fail_above ~= nil and not (o.fail_above >= 0 and o.fail_above < math.huge) then
    common.usage_error("diff: --fail_above must be a percentage >= 0, got " .. tostring(o.fail_above))
  end
  local args_a, args_b = side_args(o, "A", "base"), side_args(o, "B", "test")
  local mx = o.model_explorer_path
  if mx and not o.etrecord then
    common.usage_error("--model_explorer_path needs --etrecord (the graph is the ETRecord's)")
  end
  if mx and o.tsv_path then
    local d = mx:gsub("/+$", "")
    for _, name in ipairs({ "", "/graph.json", "/node_data_latency.json", "/node_data_share.json",
                            "/node_data_delegated.json", "/node_data_ratio.json" }) do
      if o.tsv_path == d .. name or o.tsv_path == mx .. name then
        common.usage_error("--tsv_path and --model_explorer_path: '" .. o.tsv_path ..
                           "' is the Model Explorer directory or one of its files")
      end
    end
  end
  local input_error = common.input_error
  local a <close>, paths_a = open_side(o, args_a)
  local b <close>, paths_b = open_side(o, args_b)
  if mx and (#paths_a > 1 or #paths_b > 1) then
    common.usage_error("diff: --model_explorer_path needs one dump on each side")
  end
  local ok, f, gate = pcall(etinspect.diff, a, b, { alpha = o.alpha, confidence = o.confidence,
                                                     include_units = true, fail_above = o.fail_above })
  if not ok then input_error(tostring(f)) end
  if o.tsv_path then
    -- as frame:to_tsv(path), refusing to overwrite an input
    local inputs = {}
    for _, p in ipairs(paths_a) do inputs[#inputs + 1] = p end
    for _, p in ipairs(paths_b) do inputs[#inputs + 1] = p end
    local wok, werr = pcall(etinspect.Frame.emit, f:render("tsv"), o.tsv_path, inputs)
    if not wok then input_error("--tsv_path: " .. tostring(werr):gsub("^[^:]*:%d+: ", "")) end
  end
  if mx then
    local wok, werr = pcall(b.write_model_explorer, b, mx, { baseline = a })
    if not wok then input_error("--model_explorer_path: " .. tostring(werr):gsub("^[^:]*:%d+: ", "")) end
  end
  local shown = f
  if o.top > 0 then shown = shown:head(o.top) end
  if FORMATS[o.format] == "compact" then
    local unit = #paths_a == 1 and a.target_time_scale or a.inspectors[1].target_time_scale
    shown = shown:select(S.display_columns(unit))
  end
  common.show(shown, o)
  if gate then
    io.stdout:flush()
    io.stderr:write("etinspect: ", require("etinspect.diff").gate_summary(gate))
    if gate.verdict == "regression" then return S.EXIT_REGRESSION end
  end
end

return S
