#!/usr/bin/env etinspect
-- sqlite.t - insp:to_sqlite(path [, {dump = NAME}]) (src/core/output/sqlexport.h):
-- dumps named by the option or after the file, added to one database,
-- replaced when exported again; errors name the path.  The database is
-- read back with the sqlite3 tool.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local sample = t.build .. "/fixtures/sample.etdp"
local record = t.build .. "/fixtures/sample.etrecord"
local stats10 = t.build .. "/fixtures/stats10.etdp"
if not (t.exists(sample) and t.exists(record) and t.exists(stats10)) then
  t.skip_all("build/fixtures not built (run make fixtures)")
end
if not os.execute("command -v sqlite3 >/dev/null 2>&1") then
  t.skip_all("the sqlite3 command-line tool is absent")
end

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))
local db = dir .. "/lua.db"

-- The rows of `sql` on database `path`, one string per row ("a|b|c").
local function query(path, sql)
  local p = assert(io.popen("sqlite3 -init /dev/null -batch -noheader '" .. path .. "' \"" ..
                            sql .. "\" 2>&1"))
  local rows = {}
  for line in p:lines() do rows[#rows + 1] = line end
  p:close()
  return table.concat(rows, "\n")
end

etinspect.on_warning(function() end)
local insp <close> = etinspect.Inspector{etdump_path = sample, etrecord = record}
local plain <close> = etinspect.Inspector{etdump_path = stats10}

t.is(insp:to_sqlite(db), nil, "to_sqlite(path): returns nothing")
t.is(query(db, "SELECT dump, num_samples FROM dumps"), "sample.etdp|26",
     "the dump is named after the ETDump's file")
insp:to_sqlite(db, {dump = "linked"})
plain:to_sqlite(db, {dump = "other"})
t.is(query(db, "SELECT dump, count(*) FROM samples GROUP BY dump ORDER BY dump"),
     "linked|26\nother|10\nsample.etdp|26", "{dump = NAME}: three dumps in one database")

-- the linkage of the Lua objects is the database's
local ev
for _, b in ipairs(insp.event_blocks) do
  for _, e in ipairs(b.events) do
    if e.name == "DELEGATE_CALL" then ev = e end
  end
end
t.is(query(db, "SELECT op_types, debug_handles, delegate_backend_name FROM events " ..
               "WHERE dump = 'linked' AND name = 'DELEGATE_CALL'"),
     '["' .. table.concat(ev.op_types, '", "') .. '"]|[' .. table.concat(ev.debug_handles, ", ") ..
     "]|" .. ev.delegate_backend_name, "op_types, debug_handles, backend: as the Event has them")
local pd = ev.perf_data
t.is(query(db, "SELECT group_concat(printf('%!.17g', duration), ' ') FROM " ..
               "(SELECT duration FROM samples s JOIN events e USING (dump, block_index, event_index) " ..
               "WHERE s.dump = 'linked' AND e.name = 'DELEGATE_CALL' ORDER BY s.run)"),
     string.format("%.17g %.17g %.17g", pd.raw[1], pd.raw[2], pd.raw[3]),
     "samples: the durations of perf_data.raw, in run order")

-- another file under a taken name: refused, unless replace = true
t.raises(function() plain:to_sqlite(db, {dump = "linked"}) end,
         "lua%.db: the database has a dump named 'linked' from another file %(.*sample%.etdp%)",
         "{dump = another file's name}: an error naming the dump and its file")
t.is(query(db, "SELECT dump, count(*) FROM samples GROUP BY dump ORDER BY dump"),
     "linked|26\nother|10\nsample.etdp|26", "... the database is untouched")
plain:to_sqlite(db, {dump = "linked", replace = true})
t.is(query(db, "SELECT dump, count(*) FROM samples GROUP BY dump ORDER BY dump"),
     "linked|10\nother|10\nsample.etdp|26", "{dump = NAME, replace = true}: its rows replaced")
t.is(query(db, "SELECT count(*) FROM events WHERE dump = 'linked' AND op_types IS NOT NULL"), "0",
     "... none of the old dump's events are left")

-- errors
local notes = dir .. "/notes.txt"
local f = assert(io.open(notes, "w"))
f:write("not a database\n")
f:close()
t.raises(function() plain:to_sqlite(notes) end, "notes%.txt: not an etinspect database",
         "a file that is not a database: an error naming it")
t.is(t.read(notes), "not a database\n", "... the file is untouched")
t.raises(function() plain:to_sqlite(db, {dump = ""}) end, "the dump name is empty",
         "an empty dump name: an error")
t.raises(function() plain:to_sqlite(db, {dump = {}}) end,
         "Inspector:to_sqlite: option 'dump' must be a string, got table",
         "a dump name that is not a string: an error (the options contract)")
t.raises(function() plain:to_sqlite(db, {name = "x"}) end,
         "Inspector:to_sqlite: unknown option 'name' %(accepted: dump, replace%)",
         "an unknown option: an error naming it")
t.raises(function() plain:to_sqlite(db, {replace = true}) end,
         "option 'replace' needs option 'dump'", "replace without a name: an error")
t.raises(function() plain:to_sqlite(stats10) end, "is an input",
         "the ETDump as the database: an error")

-- a database with a trigger etinspect did not create: refused, untouched
-- (issue 25; tests/e2e/sqlite_faults.t has the other faults)
query(db, "CREATE TRIGGER mine AFTER INSERT ON dumps BEGIN SELECT 1; END")
local before = t.read(db)
t.raises(function() plain:to_sqlite(db, {dump = "more"}) end,
         "lua%.db: the database has a trigger 'mine' that etinspect did not create; " ..
         "refusing to write into it",
         "a trigger etinspect did not create: an error naming the database and the trigger")
t.ok(t.read(db) == before, "... the database is byte for byte as it was")
t.raises(function() etinspect.open_many{stats10, sample}:to_sqlite(db) end,
         "trigger 'mine' that etinspect did not create", "... and so is Dumps:to_sqlite")

os.execute("rm -rf '" .. dir .. "'")
t.done()
