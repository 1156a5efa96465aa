--- etinspect.sql: SQL over dumps in memory, without an export
-- (docs/sql.md; the virtual tables: src/core/output/sqlvtab.h).
--
--   insp:sql(query)    -> Frame   the query over one Inspector
--   dumps:sql(query)   -> Frame   over every dump of open_many (many.lua)
--
-- The tables and columns are those of the SQLite export
-- (docs/sqlite-schema.md): dumps, blocks, events, sample_data, samples,
-- allocations; read-only.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local etinspect = require("etinspect")
local core = etinspect._core
local Frame = require("etinspect.frame")

local M = {}

--- The result of `query` over `inspectors` (dump k named names[k]) as a
-- Frame whose columns are the result's, in its order (NULL is a missing
-- value).
-- @tparam string fn the caller's name, for errors ("Inspector:sql")
-- @tparam {Inspector,...} inspectors
-- @tparam {string,...} names
-- @tparam string query one SQL query (SELECT, WITH, VALUES)
-- @treturn Frame
-- @tparam integer level the error level of the caller's caller
-- @tparam[opt] integer nargs the arguments the caller got (more than 1:
--   "FN: too many arguments (it takes 1, got N)")
-- @raise "FN: bad argument #1 (an SQL query expected, got T)"; the
--   query's errors ("SQL: no such table: x", "SQL: not authorized" for a
--   statement that would write, "SQL: only one statement at a time",
--   "SQL: interrupted"), with level `level`
function M.query(fn, inspectors, names, query, level, nargs)
  if nargs and nargs > 1 then
    error(string.format("%s: too many arguments (it takes 1, got %d)", fn, nargs), level + 1)
  end
  if type(query) ~= "string" then
    error(fn .. ": bad argument #1 (an SQL query expected, got " .. type(query) .. ")", level + 1)
  end
  local ok, cols, values, n = pcall(core.sql_query, inspectors, names, query)
  if not ok then
    error((tostring(cols):gsub("^%[etinspect%] ", "")), level + 1)
  end
  local pairs_ = {}
  for j, name in ipairs(cols) do pairs_[j] = { name, values[j] } end
  if #pairs_ == 0 then return Frame.from_columns({}) end
  assert(#values == 0 or values[1].n == n)
  return Frame.from_columns(pairs_)
end

--- Inspector:sql(query) -> Frame: `query` over this dump alone, named
-- after its ETDump's file name (as the export names it).
-- @tparam Inspector self
-- @tparam string query
-- @treturn Frame
-- @raise as M.query
function M.inspector_sql(self, query, ...)
  local path = self.etdump_path
  local name = path and tostring(path):match("([^/]*)$") or "<etdump_data>"
  return M.query("Inspector:sql", { self }, { name }, query, 2, 1 + select("#", ...))
end

--- Add sql to the Inspector's methods (called by etinspect.init).
function M.install()
  core.extend("Inspector", { sql = M.inspector_sql })
end

return M
