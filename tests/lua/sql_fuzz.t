#!/usr/bin/env etinspect
-- sql_fuzz.t - a fixed slice of the SQL fuzz target (tests/fuzz/
-- sql_driver.lua; the libFuzzer target is build/fuzz/fuzz_sql): hostile
-- queries and 1,500 queries of random tokens over two fixture dumps, each
-- within the driver's small work budget; each must give a well-formed
-- result or a clean "SQL: ..." error, leave the Inspectors as they were and
-- make no file.  Then the contract check itself must see a broken contract
-- (a test that cannot fail is a defect).
local src = os.getenv("ET_SRC") or "."
package.path = src .. "/tests/lua/?.lua;" .. src .. "/tests/fuzz/?.lua;" .. package.path
local t = require "tap"
local D = require "sql_driver"
local fx = t.build .. "/fixtures"
if not t.exists(fx .. "/memory_round.etdp") then t.skip_all(fx .. " not built (run make)") end
local insps, names = D.open(fx)

local hostile = {
  "SELECT count(*) FROM samples",
  "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c",
  "SELECT zeroblob(1000000000)", -- (no printf('%.*c', N): ASan's realloc makes it quadratic)
  "ATTACH 'fuzz_sql_attached.db' AS a", "DELETE FROM events", "PRAGMA writable_schema = 1",
  "SELECT 1; SELECT 2", "", ";", "SELECT * FROM sqlite_master", "SELECT load_extension('x')",
  "SELECT a.*, b.* FROM samples a, samples b", "SELECT \0", "\255\254",
  "SELECT " .. string.rep("(", 2000) .. "1" .. string.rep(")", 2000), -- SQLite's parser stack
  "SELECT 1 " .. string.rep("||", 100) .. " 2",
}
local bad, rows, errors = nil, 0, 0
for _, q in ipairs(hostile) do
  local why, got = D.run("\0" .. q, insps, names)
  if why then bad = bad or ("%q: %s"):format(q, why) end
  if got == "rows" then rows = rows + 1 elseif got == "error" then errors = errors + 1 end
end
local seed = 12345
local function int(n) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n end
for _ = 1, 1500 do
  local len = 1 + int(12)
  local b = {}
  for i = 1, len do b[i] = string.char(int(256)) end
  local why, got = D.run("\1" .. table.concat(b), insps, names)
  if why then bad = bad or why; break end
  if got == "rows" then rows = rows + 1 else errors = errors + 1 end
end
if not t.ok(bad == nil, #hostile .. " hostile and 1,500 random queries: a result or a clean error") then
  t.diag(bad)
end
t.ok(rows > 30 and errors > 100, ("both outcomes reached (%d results, %d clean errors)"):format(rows, errors))

-- the contract check sees what it must
local function swap(f) return (D.run("\0SELECT 1", insps, names, f)) end
t.ok(swap(function() error("oops", 0) end) ~= nil, "an error not starting SQL: is a finding")
t.ok(swap(function() error("SQL: etinspect.sql:12: boom", 0) end) ~= nil, "a Lua position is a finding")
t.ok(swap(function() error("SQL: stack overflow", 0) end) ~= nil, "Lua's stack overflow is a finding")
t.is(swap(function() error("SQL: parser stack overflow", 0) end), nil, "SQLite's parser stack overflow is not")
t.ok(swap(function() return { "a" }, {}, 0 end) ~= nil, "names without columns are a finding")
t.ok(swap(function() return { "a" }, { { n = 2 } }, 1 end) ~= nil, "a column of the wrong length is a finding")
t.ok(swap(function() insps[1]:close(); return {}, {}, 0 end) ~= nil, "an Inspector closed under a query is a finding")
for _, insp in ipairs(insps) do insp:close() end
t.done()
