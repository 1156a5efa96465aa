--- etinspect.scripts.diff: run-to-run (A/B) comparison of two ETDumps,
-- event by event (etinspect.diff; docs/diff.md).
local common = require("etinspect.scripts.common")
local etinspect = require("etinspect")

local S = {
  description = "Compare two ETDumps (A/B): time change per event, ratio CI, Mann-Whitney significance",
  usage = "diff A.etdp B.etdp [--alpha X] [--confidence C] [--top N] [--tsv_path OUT] [--format F]",
  args = {
    { "A", "the baseline ETDump" },
    { "B", "the ETDump compared to it" },
    { "--alpha X", "false discovery rate: significant when the Benjamini-Hochberg q-value < X (default 0.05)" },
    { "--confidence C", "confidence of the ratio's interval (default 0.95)" },
    { "--top N", "show the N events whose median time changed most (default 0: all)" },
    { "--tsv_path OUT", "also write every row, with every column, as TSV to OUT" },
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

--- Run the script: open A and B with the same options (time scales,
-- ETRecord), diff them with units in the column names, print the rows
-- (the first --top N of them when N > 0) in --format, and write every row
-- to --tsv_path when given (through a temporary file; never over A or B).
-- @tparam {string,...} args the command-line arguments
-- @raise usage errors (exit 2) for bad arguments or an alpha outside
--   (0, 1); input errors (exit 1) for unreadable dumps
function S.run(args)
  local o = common.parse("diff", args, { alpha = 0.05, confidence = 0.95, top = 0, format = "box", tsv_path = "",
    source_time_scale = "ns", target_time_scale = "ms", etrecord = "" }, { "etdump_a", "etdump_b" })
  if not (o.alpha > 0 and o.alpha < 1) then
    common.usage_error("diff: --alpha must be between 0 and 1, got " .. tostring(o.alpha))
  end
  if not (o.confidence > 0 and o.confidence < 1) then
    common.usage_error("diff: --confidence must be between 0 and 1, got " .. tostring(o.confidence))
  end
  if not FORMATS[o.format] then
    common.usage_error("diff: --format must be box, plain, markdown, tsv, csv or json, got '" .. o.format .. "'")
  end
  --- Raise an input error: the host prints msg and exits with status 1.
  local function input_error(msg)
    error(setmetatable({ input = msg }, { __tostring = function(e) return e.input end }), 0)
  end
  --- Open one dump with the command line's options.
  local function open(path)
    local opts = {}
    for k, v in pairs(o) do opts[k] = v end
    opts.etdump = path
    return common.open(opts)
  end
  local a <close> = open(o.etdump_a)
  local b <close> = open(o.etdump_b)
  local ok, f = pcall(etinspect.diff, a, b, { alpha = o.alpha, confidence = o.confidence, include_units = true })
  if not ok then input_error(tostring(f)) end
  if o.tsv_path ~= "" then
    -- as frame:to_tsv(path), refusing to overwrite A or B
    local wok, werr = pcall(etinspect.Frame.emit, f:render("tsv"), o.tsv_path, { o.etdump_a, o.etdump_b })
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
