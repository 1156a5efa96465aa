--- etinspect.scripts.common: what the bundled report scripts share: the
-- arguments of every script over a dump (declared as etinspect.scripts
-- describes), opening the Inspector they describe, printing a frame.
local etinspect = require("etinspect")
local scripts = require("etinspect.scripts")
local M = {}

M.usage_error = scripts.usage_error
M.input_error = scripts.input_error

--- The output formats (Frame:render styles).
M.FORMATS = { "box", "plain", "markdown", "tsv", "csv", "json" }
local SCALES = { "ns", "us", "ms", "s", "cycles" }

--- The arguments every script over one dump takes after its own:
-- --format, --source_time_scale, --target_time_scale, --etrecord (also
-- spelt --etrecord_path, the main command's name for it; args.etrecord),
-- --delegate_time_scale_converter, --delegate_metadata_parser, --plugin.
M.ARGS = {
  { "--format", choices = M.FORMATS, default = "box", help = "output format" },
  { "--source_time_scale", choices = SCALES, default = "ns", help = "unit of the raw timestamps" },
  { "--target_time_scale", choices = SCALES, default = "ms", help = "unit of the durations shown" },
  { "--etrecord", metavar = "ETRECORD", aliases = "--etrecord_path",
    help = "link the events to this ETRecord (op types, modules)" },
  { "--delegate_time_scale_converter", metavar = "CONV",
    help = "delegate clock: NAME (converters, plugins) or FILE.lua" },
  { "--delegate_metadata_parser", metavar = "PARSER",
    help = "delegate metadata: NAME (parsers, plugins) or FILE.lua" },
  { "--plugin", metavar = "FILE", help = "a Lua file run first (registers parsers, converters)" },
}

--- A script's own argument declarations followed by M.ARGS.
-- @tparam {table,...} own
-- @treturn {table,...}
function M.args(own)
  local out = {}
  for _, a in ipairs(own) do out[#out + 1] = a end
  for _, a in ipairs(M.ARGS) do out[#out + 1] = a end
  return out
end

--- Open the Inspector the parsed arguments describe: `etdump` (or the
-- path given), the time scales, the ETRecord when given.  An unreadable or
-- malformed input is an input error (exit 1, no traceback).
-- --delegate_metadata_parser is a usage error (exit 2) unless the script
-- shows parsed metadata (`shows_metadata`): nothing typed is silently
-- ignored, and none of the bundled scripts shows it (the main command's
-- --json, --html_path and --trace_path do).
-- @tparam table opts parsed arguments
-- @tparam[opt] string path the dump (default opts.etdump)
-- @tparam[opt] boolean shows_metadata the script shows the events' parsed
--   delegate metadata (ev.delegate_debug_metadatas)
-- @treturn Inspector
function M.open(opts, path, shows_metadata)
  if opts.delegate_metadata_parser and not shows_metadata then
    M.usage_error("--delegate_metadata_parser: this report shows no delegate metadata, so a parser " ..
      "would change nothing; the main command's --json, --html_path and --trace_path show it " ..
      "(etinspect --etdump_path DUMP --delegate_metadata_parser " .. opts.delegate_metadata_parser ..
      " --json OUT.json)")
  end
  -- the mistakes the main command calls usage errors (exit 2) are usage
  -- errors here too, in the same words: a time scale in cycles on one
  -- side only (the core's message), a file of another kind
  local src, tgt = opts.source_time_scale, opts.target_time_scale
  if (src == "cycles") ~= (tgt == "cycles") and src and tgt then
    M.usage_error("For TimeScale in cycles both the source and target time scale have to be in cycles.")
  end
  scripts.check_kind(path or opts.etdump, "etdump", path and "'" .. path .. "'" or "etdump")
  scripts.check_kind(opts.etrecord, "etrecord", "--etrecord")
  -- the hooks, as the main command takes them (scripts.find_converter, find_parser)
  local conv, parser
  if opts.plugin or opts.delegate_time_scale_converter or opts.delegate_metadata_parser then
    scripts.load_plugins({ opts.plugin })
  end
  if opts.delegate_time_scale_converter then
    conv = scripts.find_converter(opts.delegate_time_scale_converter, tgt or "ms")
  end
  if opts.delegate_metadata_parser then parser = scripts.find_parser(opts.delegate_metadata_parser) end
  local ok, insp = pcall(etinspect.Inspector, {
    etdump_path = path or opts.etdump,
    source_time_scale = opts.source_time_scale,
    target_time_scale = opts.target_time_scale,
    etrecord = opts.etrecord,
    delegate_time_scale_converter = conv,
    delegate_metadata_parser = parser,
  })
  if not ok then M.input_error(tostring(insp)) end
  return insp
end

--- Print a frame in opts.format (box, plain, markdown, tsv, csv, json).
function M.show(frame, opts)
  io.write(frame:render(opts.format or "box"))
end

return M
