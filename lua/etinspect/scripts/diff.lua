--- etinspect.scripts.diff: run-to-run (A/B) comparison of two ETDumps,
-- event by event (etinspect.diff; docs/diff.md).
local common = require("etinspect.scripts.common")
local etinspect = require("etinspect")

local S = {
  description = "Compare two ETDumps (A/B): time change per event, ratio CI, Mann-Whitney significance",
  args = common.args {
    { "A", help = "the baseline ETDump" },
    { "B", help = "the ETDump compared to it" },
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
  for _, k in ipairs({ "tsv_path", "model_explorer_path", "etrecord" }) do
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

--- Run the script: open A and B with the same options (time scales,
-- ETRecord), diff them with units in the column names, print the rows
-- (the first --top N of them when N > 0) in --format, and write every row
-- to --tsv_path when given (through a temporary file; never over A or B);
-- with --model_explorer_path, write B's Model Explorer files with the
-- ratio file B/A (Inspector:write_model_explorer with A as the baseline).
-- @tparam table o the parsed arguments (A, B, alpha, confidence, top,
--   tsv_path, model_explorer_path and the common ones)
-- @raise usage errors (exit 2) for an alpha or confidence outside (0, 1),
--   --model_explorer_path without --etrecord or naming the --tsv_path
--   file or its directory; input errors (exit 1) for unreadable dumps
function S.run(o)
  if S.programs(o) then return end
  if not (o.alpha > 0 and o.alpha < 1) then
    common.usage_error("diff: --alpha must be between 0 and 1, got " .. tostring(o.alpha))
  end
  if not (o.confidence > 0 and o.confidence < 1) then
    common.usage_error("diff: --confidence must be between 0 and 1, got " .. tostring(o.confidence))
  end
  local mx = o.model_explorer_path
  if mx and not o.etrecord then
    common.usage_error("diff: --model_explorer_path needs --etrecord (the graph is the ETRecord's)")
  end
  if mx and o.tsv_path then
    local d = mx:gsub("/+$", "")
    for _, name in ipairs({ "", "/graph.json", "/node_data_latency.json", "/node_data_share.json",
                            "/node_data_delegated.json", "/node_data_ratio.json" }) do
      if o.tsv_path == d .. name or o.tsv_path == mx .. name then
        common.usage_error("diff: --tsv_path and --model_explorer_path: '" .. o.tsv_path ..
                           "' is the Model Explorer directory or one of its files")
      end
    end
  end
  local input_error = common.input_error
  local a <close> = common.open(o, o.A)
  local b <close> = common.open(o, o.B)
  local ok, f = pcall(etinspect.diff, a, b, { alpha = o.alpha, confidence = o.confidence, include_units = true })
  if not ok then input_error(tostring(f)) end
  if o.tsv_path then
    -- as frame:to_tsv(path), refusing to overwrite A or B
    local wok, werr = pcall(etinspect.Frame.emit, f:render("tsv"), o.tsv_path, { o.A, o.B })
    if not wok then input_error("--tsv_path: " .. tostring(werr):gsub("^[^:]*:%d+: ", "")) end
  end
  if mx then
    local wok, werr = pcall(b.write_model_explorer, b, mx, { baseline = a })
    if not wok then input_error("--model_explorer_path: " .. tostring(werr):gsub("^[^:]*:%d+: ", "")) end
  end
  local shown = f
  if o.top > 0 then shown = shown:head(o.top) end
  if FORMATS[o.format] == "compact" then
    shown = shown:select(S.display_columns(a.target_time_scale))
  end
  common.show(shown, o)
end

return S
