--- etinspect.many: several dumps as one dataset (docs/fleet.md).
--
--   etinspect.open_many(paths [, options]) -> Dumps
--     paths    a path, a directory (its ETDumps, by content) or a glob
--              pattern ("runs/*.etdp"), or a sequence of them: expanded
--              as --etdump_path is (sorted; an empty match is an error
--              naming the pattern; src/core/files/dumpset.h)
--     options  checked by the contract: the Inspector's options for every
--              dump (etrecord, etrecord_json_budget, etrecord_method,
--              source_time_scale, target_time_scale, reference_graph_name,
--              enable_module_hierarchy, delegate_metadata_parser,
--              delegate_time_scale_converter, bundled_program_path,
--              bundled_test_case), and debug_buffer_paths: a path or
--              pattern, or a sequence of them, one debug buffer per dump
--              in the order of the dumps
--   An ETRecord given by path is read once for all dumps.  The dumps'
--   mapped pages are given back after open and after to_dataframe (many
--   dumps: they are read again, from the page cache, when needed).
--
--   Dumps (a dataset; `local d <close> = ...` closes every Inspector):
--     #d                       number of dumps
--     d.names                  each dump's name: the shortest tail of its
--                              path no other dump's ends with
--     d.paths                  each dump's path, after expansion
--     d.inspectors             each dump's Inspector
--     d:inspector(k or name)   one Inspector (k is 1-based)
--     d:to_dataframe{include_units=true, include_delegate_debug_data=false}
--                              -> Frame: "dump", then Inspector:to_dataframe's
--                              columns; a column one dump lacks is NaN there
--     d:print_data_tabular{file=io.stdout, include_units=true, ...}
--     d:save_data_to_tsv(path_or_file [, opts])
--                              the rows of print_data_tabular with "dump"
--                              first: what `etinspect --etdump_path ...`
--                              prints and writes for several dumps
--     d:to_sqlite(path)        every dump into one database, in one export
--     d:sql(query)             SQL over every dump in memory -> Frame (docs/sql.md)
--                              (sqlexport.h), each under its name (or a
--                              longer tail of its path when another file's
--                              dump has that name)
--     d:to_parquet(dir)        every dump into the Parquet dataset at `dir`:
--                              DIR/TABLE/part-ID.parquet (parquet.h,
--                              docs/fleet.md), each under its name
--     d:close()                close every Inspector (and the ETRecord read
--                              for them)
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local etinspect = require("etinspect")
local core = etinspect._core
local Frame = require("etinspect.frame")
local report = require("etinspect.report")

local M = {}

local OPTIONS = {
  etrecord = "string|ETRecord",
  etrecord_json_budget = "integer",
  etrecord_method = "string",
  source_time_scale = "string",
  target_time_scale = "string",
  reference_graph_name = "string",
  enable_module_hierarchy = "boolean",
  delegate_metadata_parser = "callable|string",
  delegate_time_scale_converter = "callable",
  bundled_program_path = "string",
  bundled_test_case = "integer",
  debug_buffer_paths = "string|table",
}

local Dumps = {}
local methods = {}

--- A sequence of strings from a string or a sequence (`what` names it in
-- messages).
local function strings(v, what, level)
  if type(v) == "string" then return { v } end
  local out = {}
  for i, s in ipairs(v) do
    if type(s) ~= "string" then
      error(string.format("etinspect.open_many: %s[%d] must be a string, got %s", what, i,
                          type(s)), level)
    end
    out[i] = s
  end
  return out
end

local function check(self)
  if getmetatable(self) ~= Dumps then error("expected Dumps (use dumps:method())", 3) end
  if self._closed then error("Dumps used after close()", 3) end
end

--- Close every Inspector, then the ETRecord opened for them.
function methods.close(self)
  if getmetatable(self) ~= Dumps then error("expected Dumps (use dumps:method())", 2) end
  if self._closed then return end
  self._closed = true
  for _, insp in ipairs(self.inspectors) do insp:close() end
  if self._etrecord then self._etrecord:close() end
end

--- The Inspector of dump `k` (1-based) or of the dump named `k`.
function methods.inspector(self, k)
  check(self)
  if math.type(k) ~= "integer" and type(k) ~= "string" then
    error("Dumps:inspector: bad argument #1 (dump index or name expected, got " .. type(k) .. ")", 2)
  end
  if math.type(k) == "integer" then
    local insp = self.inspectors[k]
    if not insp then error(string.format("inspector: no dump %d (1 to %d)", k, #self.inspectors), 2) end
    return insp
  end
  for i, name in ipairs(self.names) do
    if name == k then return self.inspectors[i] end
  end
  error(string.format("inspector: no dump named '%s' (dumps: %s)", tostring(k),
                      table.concat(self.names, ", ")), 2)
end

--- The frames of every dump as one Table in C (l_table.c tab_concat),
-- "dump" first, when they have the same columns in the same order: the
-- columns are concatenated (list views stay views of each model's
-- samples); nil when the columns differ.
local function concat_columns(self, frames)
  local base = frames[1].columns
  for _, f in ipairs(frames) do
    local cs = f.columns
    if #cs ~= #base then return nil end
    for j, c in ipairs(cs) do
      if c ~= base[j] then return nil end
    end
  end
  local ts = {}
  for i, f in ipairs(frames) do
    local n, names = #f, {}
    for k = 1, n do names[k] = self.names[i] end
    local pick = { core.tab_from_columns({ names }, n), 1 }
    for j = 1, #base do
      pick[#pick + 1] = f._t
      pick[#pick + 1] = j
    end
    ts[i] = core.tab_compose(pick, n)
  end
  local cols = { "dump" }
  for j, c in ipairs(base) do cols[j + 1] = c end
  return Frame.wrap(cols, core.tab_concat(ts, true))
end

--- The frames `frame_of(insp)` of every dump as one, "dump" first.
local function concat(self, frame_of)
  local frames = {}
  for i, insp in ipairs(self.inspectors) do
    frames[i] = frame_of(insp)
    core.drop_pages(insp) -- the frame refers to the model, not to the dump
    -- nor to its samples (raw, start_time): built again when a cell, an
    -- Event or an export reads them (docs/lua-api.md, "Samples given back")
    core.drop_samples(insp)
  end
  local whole = #frames > 0 and concat_columns(self, frames)
  if whole then return whole end
  local cols, seen, rows, base = { "dump" }, { dump = true }, {}, nil
  for i, f in ipairs(frames) do
    base = base or f.columns
    for _, c in ipairs(f.columns) do
      if not seen[c] then seen[c] = true; cols[#cols + 1] = c end
    end
    local name = self.names[i]
    for _, r in f:rows() do
      r.dump = name
      rows[#rows + 1] = r
    end
  end
  -- a column some dump lacks: NaN there, as pd.concat fills it
  local first = {}
  for _, c in ipairs(base or {}) do first[c] = true end
  for _, c in ipairs(cols) do
    if c ~= "dump" and not first[c] then
      for _, r in ipairs(rows) do
        if r[c] == nil then r[c] = 0 / 0 end
      end
    end
  end
  return Frame.new(cols, rows)
end

local FRAME_OPTIONS = { include_units = "boolean", include_delegate_debug_data = "boolean" }

--- Every dump's Inspector:to_dataframe, "dump" first.
function methods.to_dataframe(self, opts)
  check(self)
  core.check_options("Dumps:to_dataframe", opts, FRAME_OPTIONS, 1)
  return concat(self, function(insp) return insp:to_dataframe(opts) end)
end

--- The rows of print_data_tabular of every dump, "dump" first.
local function display(self, opts)
  return concat(self, function(insp) return report.display_frame(insp, opts) end)
end

function methods.print_data_tabular(self, opts)
  check(self)
  core.check_options("Dumps:print_data_tabular", opts,
                     { file = "file", include_units = "boolean",
                       include_delegate_debug_data = "boolean" }, 1)
  opts = opts or {}
  local out = opts.file or io.stdout
  -- checked: a failed write is an error naming the file and the reason
  core.write_to(out, "Dumps:print_data_tabular", display(self, opts):render("box"))
end

function methods.save_data_to_tsv(self, dest, opts)
  check(self)
  if dest == nil then error("Dumps:save_data_to_tsv: a path or an open file is required", 2) end
  core.check_options("Dumps:save_data_to_tsv", opts, FRAME_OPTIONS, 2)
  return Frame.emit(display(self, opts):render("tsv"), dest, self.paths, "Dumps:save_data_to_tsv")
end

--- Every dump into the SQLite database at `path`, in one export.
function methods.to_sqlite(self, path, opts)
  check(self)
  if type(path) ~= "string" then
    error("Dumps:to_sqlite: bad argument #1 (a path expected, got " .. type(path) .. ")", 2)
  end
  core.check_options("Dumps:to_sqlite", opts, {}, 2)
  local ok, err = pcall(core.sqlite_export, path, self.inspectors, self.names)
  if not ok then error(err, 2) end
end

--- Every dump into the Parquet dataset at directory `dir`: one file per
--- table and dump (parquet.h, docs/fleet.md), each dump under its name.
function methods.to_parquet(self, dir, opts)
  check(self)
  if type(dir) ~= "string" then
    error("Dumps:to_parquet: bad argument #1 (a directory expected, got " .. type(dir) .. ")", 2)
  end
  core.check_options("Dumps:to_parquet", opts, {}, 2)
  local ok, err = pcall(core.parquet_export, dir, self.inspectors, self.names)
  if not ok then error(err, 2) end
end

--- Dumps:sql(query) -> Frame: `query` over every dump at once, each under
-- its name (docs/sql.md; etinspect.sql).
function methods.sql(self, query, ...)
  check(self)
  return require("etinspect.sql").query("Dumps:sql", self.inspectors, self.names, query, 2,
                                        1 + select("#", ...))
end

Dumps.__index = methods
Dumps.__len = function(self) return #self.inspectors end
Dumps.__close = function(self) self:close() end
Dumps.__name = "Dumps"
Dumps.__tostring = function(self)
  return string.format("Dumps (%d): %s", #self.inspectors, table.concat(self.names, ", "))
end

--- etinspect.open_many(paths [, options]) -> Dumps (see the top of this file).
function M.open_many(paths, opts)
  if type(paths) ~= "string" and type(paths) ~= "table" then
    error("etinspect.open_many: bad argument #1 (a path or a sequence of paths expected, got "
          .. type(paths) .. ")", 2)
  end
  core.check_options("etinspect.open_many", opts, OPTIONS, 2)
  opts = opts or {}
  local list = strings(paths, "paths", 3)
  if #list == 0 then error("etinspect.open_many: no paths given", 2) end
  local ok, expanded = pcall(core.expand_dumps, list)
  if not ok then error(expanded, 2) end
  local buffers
  if opts.debug_buffer_paths ~= nil then
    ok, buffers = pcall(core.expand_dumps, strings(opts.debug_buffer_paths, "debug_buffer_paths", 3),
                        true)
    if not ok then error(buffers, 2) end
    if #buffers ~= #expanded then
      error(string.format("etinspect.open_many: %d debug buffers for %d dumps (give one per dump, "
                          .. "in the order of the dumps)", #buffers, #expanded), 2)
    end
  end
  local names
  ok, names = pcall(core.dump_names, expanded)
  if not ok then error("etinspect.open_many: " .. names, 2) end

  local self = setmetatable({ names = names, paths = expanded, inspectors = {} }, Dumps)
  local base = {}
  for k, v in pairs(opts) do
    if k ~= "debug_buffer_paths" then base[k] = v end
  end
  if type(base.etrecord) == "string" then
    ok, self._etrecord = pcall(etinspect.parse_etrecord, base.etrecord,
                               { etrecord_json_budget = base.etrecord_json_budget })
    if not ok then error(self._etrecord, 2) end
    base.etrecord = self._etrecord
    base.etrecord_json_budget = nil
  end
  for i, path in ipairs(expanded) do
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    o.etdump_path = path
    o.debug_buffer_path = buffers and buffers[i]
    local insp
    ok, insp = pcall(etinspect.Inspector, o)
    if not ok then
      self:close()
      error(insp, 2)
    end
    self.inspectors[i] = insp
    core.drop_pages(insp) -- read again, from the page cache, when needed
  end
  return self
end

M.Dumps = Dumps
return M
