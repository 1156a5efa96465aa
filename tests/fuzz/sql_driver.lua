-- sql_driver.lua - SQL over dumps in memory (issue 28 item 7; the virtual
-- tables of src/core/output/sqlvtab.c) against its contract: an input is a
-- choice byte, then a query.  An even choice byte takes the rest as the
-- query's text (any bytes); an odd one builds "SELECT COLUMN FROM TABLE"
-- of the next two bytes and the rest's bytes read as tokens of D.TOKENS (the tables, their columns, SQL's keywords,
-- statements that would write, ATTACH, recursive CTEs, hostile literals).
-- The query runs over two dumps (sample.etdp and memory_round.etdp, the
-- built fixtures) within a small work budget.  It must give a result - as
-- many columns as names, each with n cells - or raise a clean error: a
-- string starting "SQL: " or "sql_query: " or "out of memory", leaking no
-- Lua chunk position.  The Inspectors must then work as before, and no
-- file may appear in the working directory (ATTACH is refused).  Used by
-- tests/fuzz/fuzz_sql.c (the libFuzzer target) and tests/lua/sql_fuzz.t
-- (a fixed slice).
--
--   local D = require "sql_driver"   (package.path: tests/fuzz)
--   D.open(fixtures) -> inspectors, names (once; the fixtures' directory)
--   D.run(bytes, insps, names [, sql_query]) -> nil, or a string saying
--     what broke the contract (a finding); then "rows" or "error".
--     sql_query (for the driver's own test): stands in for
--     etinspect._core.sql_query
local etinspect = require "etinspect"

local M = {}

-- the work budget of one query (SQLite instructions): small enough that a
-- runaway recursive CTE ends in a fraction of a second.  (One function call
-- is one instruction: printf('%.*c', 10^8) grows its string by reallocation,
-- quadratic under ASan, so the tokens ask for short ones.)
M.MAX_STEPS = 2000000

M.TOKENS = {
  "SELECT", "*", "FROM", "WHERE", "GROUP BY", "ORDER BY", "LIMIT", "OFFSET", "JOIN", "USING", "ON",
  "LEFT JOIN", "UNION ALL", "WITH RECURSIVE", "AS", "count(*)", "sum(", "avg(", "min(", "max(",
  "quantile(", "group_concat(", "length(", "hex(", "zeroblob(1000000000)", "randomblob(100000000)",
  "printf('%.*c', 1000, 'x')", "(", ")", ",", ";", "=", "<", ">", "<>", "AND", "OR", "NOT",
  "IS NULL", "IN", "BETWEEN", "CASE", "WHEN", "THEN", "ELSE", "END", "CAST(", "AS INTEGER)",
  "dumps", "blocks", "events", "sample_data", "samples", "allocations", "top_operators",
  "sqlite_master", "pragma_table_info('events')", "dump", "block_index", "event_index", "name",
  "node_type", "p50", "duration", "start_time", "run", "run_data_index", "first_sample", "id",
  "allocation_size", "op_types", "debug_handles", "delegate_debug_identifier", "rowid",
  "0", "1", "-1", "9223372036854775807", "1e308", "'a'", "'\0'", "x'00ff'", "NULL",
  "INSERT INTO events VALUES (1)", "DELETE FROM events", "DROP TABLE events",
  "CREATE TABLE t(x)", "ATTACH 'fuzz_sql_attached.db' AS a", "PRAGMA writable_schema = 1",
  "VALUES (1)", "c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c",
  "load_extension('x')", "readfile('/etc/passwd')", "\"", "'", "--", "/*",
}

--- The two Inspectors the queries run over, and their names.
function M.open(fixtures)
  local insps, names = {}, {}
  for _, f in ipairs { "sample.etdp", "memory_round.etdp" } do
    insps[#insps + 1] = etinspect.Inspector { etdump_path = fixtures .. "/" .. f }
    names[#names + 1] = f
  end
  return insps, names
end

local TABLES = { "dumps", "blocks", "events", "sample_data", "samples", "allocations" }
local COLUMNS = { "*", "count(*)", "dump", "block_index", "event_index", "name", "p50", "duration",
                  "run", "id", "allocation_size", "start_time" }

-- the query of an input: its text (an even choice byte), or "SELECT COLUMN
-- FROM TABLE" (the next two bytes) and tokens (the rest's bytes)
local function query_of(data)
  local c = data:byte(1) or 0
  local rest = data:sub(2)
  if c % 2 == 0 then return rest end
  local col = COLUMNS[(rest:byte(1) or 0) % #COLUMNS + 1]
  local tab = TABLES[(rest:byte(2) or 0) % #TABLES + 1]
  local parts = { "SELECT", col, "FROM", tab }
  for i = 3, #rest do parts[#parts + 1] = M.TOKENS[rest:byte(i) % #M.TOKENS + 1] end
  return table.concat(parts, " ")
end

-- what the Inspectors show (a closed one says so)
local function state(insps)
  local s = {}
  for i, insp in ipairs(insps) do
    local ok, v = pcall(function() return #insp.event_blocks .. ":" .. #insp:to_dataframe() end)
    s[i] = ok and v or "closed"
  end
  return table.concat(s, ",")
end

function M.run(data, insps, names, sql_query)
  local before = state(insps)
  local q = query_of(data)
  local ok, cols, values, n = pcall(sql_query or etinspect._core.sql_query, insps, names, q, M.MAX_STEPS)
  local got
  if ok then
    if type(cols) ~= "table" or type(values) ~= "table" or math.type(n) ~= "integer" or n < 0 then
      return "a result that is not (names, columns, n)"
    end
    if #cols ~= #values then return ("%d names for %d columns"):format(#cols, #values) end
    for j = 1, #values do
      if type(cols[j]) ~= "string" then return "a column name that is not a string" end
      if values[j].n ~= n then return ("column %d holds %s cells of %d"):format(j, tostring(values[j].n), n) end
    end
    got = "rows"
  else
    local msg = cols
    if type(msg) ~= "string" then return "an error that is not a string: " .. type(msg) end
    msg = msg:gsub("^%[etinspect%] ", "")
    if not (msg:find("^SQL: ") or msg:find("^sql_query: ") or msg == "out of memory"
            or msg:find("^not enough memory")) then
      return "an unclean error: " .. msg
    end
    -- Lua's stack overflow (SQLite's own "parser stack overflow" is clean)
    if msg:gsub("parser stack overflow", ""):find("stack overflow", 1, true) then
      return "a stack overflow: " .. msg
    end
    -- a chunk position ("etinspect.sql:12: "), outside what SQLite quotes
    local bare = msg:gsub('"[^"]*"', ""):gsub("'[^']*'", "")
    if bare:find("[%w_%]]:%d+: ") then return "a Lua position leaked: " .. msg end
    got = "error"
  end
  local f = io.open("fuzz_sql_attached.db", "rb")
  if f then f:close(); os.remove("fuzz_sql_attached.db"); return "ATTACH made a file" end
  if state(insps) ~= before then return "the Inspectors changed under a query" end
  return nil, got
end

return M
