--- etinspect.scripts.diff: run-to-run (A/B) comparison of two ETDumps,
-- event by event (etinspect.diff; docs/diff.md).
local common = require("etinspect.scripts.common")
local etinspect = require("etinspect")

local S = {
  description = "Compare two ETDumps (A/B): time change per event, Mann-Whitney significance",
  args = common.args {
    { "A", help = "the baseline ETDump" },
    { "B", help = "the ETDump compared to it" },
    { "--alpha", type = "number", default = 0.01, metavar = "X",
      help = "significance level of the Mann-Whitney U test" },
    { "--top", type = "integer", default = 0, metavar = "N",
      help = "show the N events whose mean time changed most; 0 shows all" },
    { "--tsv_path", metavar = "OUT", help = "also write every row, with every column, as TSV to OUT" },
  },
}

local FORMATS = { box = "compact", plain = "compact", markdown = "compact",
                  tsv = "full", csv = "full", json = "full" }

--- The columns shown in the box, plain and markdown formats (tsv, csv and
-- json show every column of etinspect.diff, in its order); p_value comes
-- last, so that no line of the plain format ends in padding.
-- @tparam string unit the target time scale
-- @treturn {string,...}
function S.display_columns(unit)
  local u = " (" .. unit .. ")"
  return { "block", "event", "instruction_id", "status", "p50_a" .. u, "p50_b" .. u,
           "delta" .. u, "ratio", "avg_delta" .. u, "significant", "p_value" }
end

--- Run the script: open A and B with the same options (time scales,
-- ETRecord), diff them with units in the column names, print the rows
-- (the first --top N of them when N > 0) in --format, and write every row
-- to --tsv_path when given (through a temporary file; never over A or B).
-- @tparam {string,...} args the command-line arguments
-- @raise usage errors (exit 2) for bad arguments or an alpha outside
--   (0, 1); input errors (exit 1) for unreadable dumps
function S.run(o)
  if not (o.alpha > 0 and o.alpha < 1) then
    common.usage_error("diff: --alpha must be between 0 and 1, got " .. tostring(o.alpha))
  end
  local input_error = common.input_error
  local a <close> = common.open(o, o.A)
  local b <close> = common.open(o, o.B)
  local ok, f = pcall(etinspect.diff, a, b, { alpha = o.alpha, include_units = true })
  if not ok then input_error(tostring(f)) end
  if o.tsv_path then
    -- as frame:to_tsv(path), refusing to overwrite A or B
    local wok, werr = pcall(etinspect.Frame.emit, f:render("tsv"), o.tsv_path, { o.A, o.B })
    if not wok then input_error("--tsv_path: " .. tostring(werr):gsub("^[^:]*:%d+: ", "")) end
  end
  local shown = f
  if o.top > 0 then shown = shown:head(o.top) end
  if FORMATS[o.format] == "compact" then
    shown = shown:select(S.display_columns(a.target_time_scale))
  end
  common.show(shown, o)
end

return S
