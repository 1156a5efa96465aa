#!/usr/bin/env etinspect
-- many.t - etinspect.open_many (lua/etinspect/many.lua): several dumps as
-- one dataset - patterns expanded, names, one Frame with a dump column
-- equal to each Inspector's frame, the TSV the command line writes, one
-- SQLite export keeping dumps of one file name apart, an ETRecord read
-- once, and the contract's errors.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local sample = t.build .. "/fixtures/sample.etdp"
local stats10 = t.build .. "/fixtures/stats10.etdp"
local record = t.build .. "/fixtures/sample.etrecord"
local bin = os.getenv("ETINSPECT") or (t.build .. "/etinspect")
if not (t.exists(sample) and t.exists(stats10) and t.exists(record)) then
  t.skip_all("build/fixtures not built (run make fixtures)")
end

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "/runs/a' '" .. dir .. "/runs/b' '" .. dir .. "/runs/c'"))
local function copy(from, to)
  local f = assert(io.open(to, "wb"))
  f:write(t.read(from))
  f:close()
end
copy(sample, dir .. "/runs/a/model.etdp")
copy(stats10, dir .. "/runs/b/model.etdp")
copy(sample, dir .. "/runs/c/model.etdp")
etinspect.on_warning(function() end)

local d <close> = etinspect.open_many(dir .. "/runs/*/model.etdp", { etrecord = record })
t.is(#d, 3, "a pattern: three dumps")
t.is(table.concat(d.names, " "), "a/model.etdp b/model.etdp c/model.etdp",
     "names: the shortest distinct tail of each path, in sorted order")
t.is(d.paths[2], dir .. "/runs/b/model.etdp", "paths: as expanded")
t.is(d:inspector(2), d.inspectors[2], "inspector(k)")
t.is(d:inspector("c/model.etdp"), d.inspectors[3], "inspector(name)")
t.raises(function() d:inspector("model.etdp") end,
         "no dump named 'model.etdp' %(dumps: a/model.etdp, b/model.etdp, c/model.etdp%)",
         "inspector(an unknown name): an error listing the names")
t.ok(d.inspectors[1].etrecord ~= nil and d.inspectors[1].etrecord == d.inspectors[3].etrecord,
     "an ETRecord path is read once, for every dump")

-- one Frame: each dump's own rows, "dump" first
local f = d:to_dataframe()
t.is(f.columns[1], "dump", "to_dataframe: the dump column first")
local n, same = 0, true
for k, insp in ipairs(d.inspectors) do
  local own = insp:to_dataframe()
  for i, r in own:rows() do
    local row = f[n + i]
    if row.dump ~= d.names[k] or row.event_name ~= r.event_name or row["avg (ms)"] ~= r["avg (ms)"] then
      same = false
    end
  end
  n = n + #own
end
t.is(#f, n, "... as many rows as the dumps' frames together")
t.ok(same, "... each row is its dump's, in order, with its name")
t.is(#d:to_dataframe{ include_units = false }.columns, #f.columns,
     "to_dataframe{include_units = false}")
t.ok(d:to_dataframe{ include_units = false }.columns[3] == "event_name" and d:to_dataframe{ include_units = false }.columns[4] == "block_index", "... its columns")

-- the rows of print_data_tabular: what the command line prints and writes
local tsv = dir .. "/lua.tsv"
d:save_data_to_tsv(tsv)
local cli = dir .. "/cli.tsv"
assert(os.execute(string.format("'%s' --etdump_path '%s/runs/*/model.etdp' --etrecord_path '%s' -q --tsv_path '%s'",
                                bin, dir, record, cli)))
t.is(t.read(tsv), t.read(cli), "save_data_to_tsv: the command line's TSV, byte for byte")
local out = setmetatable({ parts = {} }, { __index = { write = function(self, s) self.parts[#self.parts + 1] = s end } })
d:print_data_tabular{ file = out }
local grid = table.concat(out.parts)
t.ok(grid:find("│ b/model.etdp │ Execute", 1, true) ~= nil, "print_data_tabular: the grid with the dump column")

-- SQLite: three dumps of one file name in one export
if os.execute("command -v sqlite3 >/dev/null 2>&1") then
  local db = dir .. "/fleet.db"
  t.is(d:to_sqlite(db), nil, "to_sqlite(path): returns nothing")
  local p = assert(io.popen("sqlite3 -init /dev/null -batch -noheader '" .. db ..
                            "' 'SELECT dump, num_samples FROM dumps ORDER BY dump' 2>&1"))
  t.is(p:read("a"), "a/model.etdp|26\nb/model.etdp|10\nc/model.etdp|26\n",
       "... three dumps under their names")
  p:close()
  t.raises(function() d:to_sqlite(d.paths[1]) end, "refusing to overwrite an input file",
           "to_sqlite onto a dump: an error")
  t.raises(function() d:to_sqlite(db, { dump = "x" }) end,
           "Dumps:to_sqlite: unknown option 'dump'", "to_sqlite takes no name: each dump has its own")
else
  t.skip("the sqlite3 command-line tool is absent")
end

-- the contract and the inputs
t.raises(function() etinspect.open_many(dir .. "/runs/*/model.etdp", { target = "us" }) end,
         "etinspect.open_many: unknown option 'target'", "an unknown option: an error naming it")
t.raises(function() etinspect.open_many(dir .. "/runs/*/model.etdp", { etrecord_method = 1 }) end,
         "option 'etrecord_method' must be a string, got number", "a wrong type: an error")
t.raises(function() etinspect.open_many(42) end, "bad argument #1 %(a path or a sequence",
         "paths that are not a path: an error")
t.raises(function() etinspect.open_many({ dir .. "/runs/a/model.etdp", 7 }) end,
         "paths%[2%] must be a string, got number", "a sequence with a number: an error naming it")
t.raises(function() etinspect.open_many(dir .. "/runs/*/none.etdp") end,
         "runs/%*/none%.etdp: no file matches this pattern", "an empty match: an error naming the pattern")
t.raises(function() etinspect.open_many({ dir .. "/runs/a/model.etdp", dir .. "/runs/./a/model.etdp" }) end,
         "are the same file", "the same file twice: an error")
t.raises(function()
  etinspect.open_many(dir .. "/runs/*/model.etdp", { debug_buffer_paths = { sample } })
end, "1 debug buffers for 3 dumps", "a debug buffer count that is not the dumps': an error")
t.raises(function()
  etinspect.open_many({ dir .. "/runs/a/model.etdp" }, { debug_buffer_paths = { dir .. "/runs" } })
end, "runs: ", "a directory as a debug buffer: itself, refused by the reader (not its ETDumps)")
local bad = dir .. "/runs/bad.etdp"
local fb = assert(io.open(bad, "wb"))
fb:write("\16\0\0\0ED00 this is not a flatbuffer at all")
fb:close()
t.raises(function() etinspect.open_many({ dir .. "/runs/a/model.etdp", bad }) end, "bad%.etdp",
         "a malformed dump among them: its reader's error, naming it")

local two = etinspect.open_many({ dir .. "/runs/b/model.etdp", dir .. "/runs/a/model.etdp" })
t.is(table.concat(two.names, " "), "b/model.etdp a/model.etdp", "a sequence: the dumps in its order")
two:close()
t.raises(function() two:to_dataframe() end, "Dumps used after close%(%)", "used after close: an error")
t.raises(function() d:to_dataframe{ units = true } end, "Dumps:to_dataframe: unknown option 'units'",
         "to_dataframe: options checked by the contract")

os.execute("rm -rf '" .. dir .. "'")
t.done()
