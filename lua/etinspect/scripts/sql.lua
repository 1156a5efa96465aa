--- etinspect.scripts.sql: an SQL query over ETDumps in memory, without an
-- export (docs/sql.md): the tables and columns of the SQLite export
-- (docs/sqlite-schema.md) as read-only virtual tables over the dumps
-- read, several dumps as one dataset (etinspect.open_many).
local etinspect = require("etinspect")
local scripts = require("etinspect.scripts")
local common = require("etinspect.scripts.common")

local SCALES = { "ns", "us", "ms", "s", "cycles" }

local S = {
  description = "Run an SQL query over ETDumps in memory (the SQLite export's tables, no export)",
  epilog = "Tables: dumps, blocks, events, sample_data, samples, allocations (docs/sqlite-schema.md). " ..
           "Each DUMPS argument is an ETDump, a directory of ETDumps or a quoted glob pattern; " ..
           "all of them are one dataset, each dump under its name (the dump column). " ..
           "Only queries run. Exit status: 0 done, 1 input error, 2 usage (a bad query).",
  args = {
    { "query", metavar = "QUERY", help = "one SQL query (SELECT, WITH ..., VALUES)" },
    { "dumps", args = "+", metavar = "DUMPS", help = "the ETDumps (files, directories, quoted patterns)" },
    { "--format", choices = common.FORMATS, default = "box", help = "output format" },
    { "--etrecord", metavar = "ETRECORD", aliases = "--etrecord_path",
      help = "link the events to this ETRecord (events.op_types)" },
    { "--source_time_scale", choices = SCALES, default = "ns", help = "unit of the raw timestamps" },
    { "--target_time_scale", choices = SCALES, default = "ms", help = "unit of the durations" },
  },
}

--- Run the script: the query's result, rendered in o.format, to standard
-- output.
-- @tparam table o the parsed arguments
-- @raise input error (exit 1) for an unreadable or malformed dump; usage
--   error (exit 2) for a query SQLite refuses ("sql: SQL: no such table:
--   x"), a statement that is not a query
function S.run(o)
  local src, tgt = o.source_time_scale, o.target_time_scale
  if (src == "cycles") ~= (tgt == "cycles") then
    scripts.usage_error("For TimeScale in cycles both the source and target time scale have to be in cycles.")
  end
  scripts.check_kind(o.etrecord, "etrecord", "--etrecord")
  local ok, paths = pcall(etinspect._core.expand_dumps, o.dumps)
  if not ok then scripts.input_error(tostring(paths)) end
  local set
  ok, set = pcall(etinspect.open_many, paths, { source_time_scale = src, target_time_scale = tgt,
                                                etrecord = o.etrecord })
  if not ok then
    local msg = tostring(set):gsub("^etinspect%.open_many: ", "")
    if msg:find("are the same file", 1, true) then scripts.usage_error("sql: " .. msg) end
    scripts.input_error(msg)
  end
  local dumps <close> = set
  local frame
  ok, frame = pcall(dumps.sql, dumps, o.query)
  if not ok then
    local msg = tostring(frame)
    if msg:find("SQL: ", 1, true) then
      scripts.usage_error(msg:gsub("^.-SQL: ", "SQL: "), nil)
    end
    scripts.input_error(msg)
  end
  common.show(frame, o)
end

return S
