--- etinspect.frame: Frame, the stand-in for the pandas DataFrame that the
-- reference Inspector returns, with the verbs pandas users reach for, in
-- Lua idiom (docs/lua-api.md, "Frame").
--
-- A Frame is a table of named, typed columns held in C (src/lua/l_table.c,
-- src/core/table/): numbers (float64, int64), booleans, text in a shared
-- string pool, list views of the model's arrays, and any other Lua value in
-- an object column.  Rows, cells and columns become Lua values only when
-- asked for:
--   frame.columns         sequence of column names (in order)
--   #frame                number of rows
--   frame[i]              row i: a table keyed by column name
--   frame.col, frame["col"]  the column as a Series over its C column (a
--                         sequence too: #col = #frame, a missing cell is nil)
-- Cells are Lua values. As in pandas, a missing statistic in a column of
-- numbers is NaN (test with `x ~= x`); other missing cells are nil.
-- Frames are never modified in place: every method returns a new Frame
-- (sharing the columns it keeps).  frame[i] is a new row table at each
-- access; frame.col is made once per frame and column (then cached).
--
-- Numbers follow pandas 1.5 (without bottleneck): sums are NumPy's pairwise
-- sums, std and var use ddof = 1, median averages the two middle values,
-- quantiles and describe's percentiles are NumPy's linear interpolation.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local pyrepr = require("etinspect.pyrepr")
local options = require("etinspect.options")
local core = require("etinspect")._core

local Frame = {}
local methods = {}
Frame.methods = methods

local mt -- the Frame metatable (below)
local PANDAS_NAMES -- pandas' names of etinspect's verbs (below)

local function missing(v) return v == nil or v ~= v end

-- ---------------------------------------------------------------- columns

-- A column's values: a sequence whose length (#) is the number of rows even
-- when cells are nil; col.n gives it too (as the aggregators' argument did).
local colsize = setmetatable({}, { __mode = "k" })
local colname = setmetatable({}, { __mode = "k" }) -- the frame's name of a column, for errors
local column_methods = {}
local COLUMN = {
  __name = "column",
  __len = function(t) return colsize[t] or rawlen(t) end,
  __index = function(t, k)
    if k == "n" then return colsize[t] end
    return column_methods[k]
  end,
  __methods = column_methods,
}

-- The name of a column (a Series' or a column sequence's), or nil.
local function name_of(v)
  if core.is_series(v) then return v.name end
  return colname[v]
end

--- A column sequence of `n` values (`values` is taken, not copied);
-- `name` (optional) is the column's name, which its errors give.
local function make_column(values, n, name)
  colsize[values] = n
  colname[values] = name
  return setmetatable(values, COLUMN)
end
Frame.column_of = make_column

local function check(self, where)
  if getmetatable(self) ~= mt then
    error((where or "Frame") .. ": expected a Frame (use frame:method())", 3)
  end
end

local function columns_list(self)
  return table.concat(self._columns, ", ")
end

-- name -> position of the frame's columns (made once per frame)
local function positions(self)
  local pos = rawget(self, "_pos")
  if not pos then
    pos = {}
    for j, c in ipairs(self._columns) do
      if pos[c] == nil then pos[c] = j end
    end
    rawset(self, "_pos", pos)
  end
  return pos
end

--- Raise "<where>: no column 'x' (columns: a, b)" unless `name` is one.
local function need_column(self, where, name, level)
  if name ~= nil and positions(self)[name] then return name end
  error(string.format("%s: no column '%s' (columns: %s)", where, tostring(name), columns_list(self)),
    (level or 2) + 1)
end

local function has_column(self, name)
  return name ~= nil and positions(self)[name] ~= nil
end

-- The frame over Table `t` (src/lua/l_table.c) with column names `columns`.
local function wrap(columns, t)
  return setmetatable({ _columns = columns, _t = t, _cc = {} }, mt)
end
Frame.wrap = wrap

-- A frame of row tables keyed by column name (converted to columns).
local function new(columns, rows)
  return wrap(columns, core.tab_from_rows(columns, rows))
end

-- Every row as a table (the slow paths that call Lua per row).
local function rows_of(self)
  return self._t:rows(self._columns)
end

-- The column positions of names (known to be columns).
local function js_of(self, names)
  local pos, js = positions(self), {}
  for i, c in ipairs(names) do js[i] = pos[c] end
  return js
end

-- pandas names that etinspect spells otherwise, for the error of frame.x
PANDAS_NAMES = {
  groupby = "df:group_by(...)",
  sort_values = "df:sort(...)",
  shape = "#df, #df.columns",
  eval = "df:query(expr) for a filter, df:mutate{name = series expression} for a column",
  iloc = "df[i] (rows count from 1) or df:head(n)",
  loc = "df:filter(mask or fn) and df:select{...}",
  nlargest = "df:sort(col, true):head(n)",
  nsmallest = "df:sort(col):head(n)",
  to_markdown = 'df:render("markdown")',
  copy = "the frame itself (frames are never changed in place)",
  size = "#df * #df.columns",
  apply = "df:mutate{name = fn} (per row)",
}

mt = {
  __name = "Frame",
  __methods = methods, -- for completion and help
  __len = function(self) return self._t:nrows() end,
  __index = function(self, k)
    if math.type(k) == "integer" then
      local t = rawget(self, "_t")
      if k >= 1 and k <= t:nrows() then return t:row(k, self._columns) end
      return nil
    end
    if k == "columns" then return self._columns end
    local m = methods[k]
    if m then return m end
    if type(k) == "string" then
      if has_column(self, k) then return self:column(k) end
      local hint = PANDAS_NAMES[k]
      error(string.format("Frame has no column or method '%s'%s (columns: %s)", k,
        hint and ("; pandas' " .. k .. " is " .. hint .. " in etinspect") or "", columns_list(self)), 2)
    end
    return nil
  end,
  __newindex = function(_, k)
    error(string.format("Frames are not changed in place (setting '%s'): use frame:mutate{...}",
      tostring(k)), 2)
  end,
  __tostring = function(self) return (self:render("box", {}):gsub("\n$", "")) end,
}
Frame.metatable = mt

--- Make a Frame.
-- @tparam {string,...} columns column names, in order
-- @tparam[opt] {table,...} rows rows keyed by column name (converted to C
--   columns; the tables are not kept)
-- @treturn Frame
function Frame.new(columns, rows)
  if type(columns) ~= "table" then error("Frame.new: columns must be a sequence of names", 2) end
  local cols = {}
  for i, c in ipairs(columns) do cols[i] = c end
  return new(cols, rows or {})
end

--- Make a Frame from column sequences (pandas' DataFrame from a dict of
-- lists):
--   Frame.from_columns{ name = {"a", "b"}, n = {1, 2} }        columns sorted by name
--   Frame.from_columns({ name = {...}, n = {...} }, {"n", "name"})   in this order
--   Frame.from_columns{ {"name", {"a", "b"}}, {"n", {1, 2}} }    ordered pairs
-- Every column has the same number of values (#values, or values.n for a
-- sequence with nil holes, as frame.col gives); the values are copied
-- into C columns.
-- @treturn Frame
-- @raise columns of different lengths (naming both), a name that is not a
--   string, an order naming a column not given (or leaving one out)
function Frame.from_columns(spec, order)
  if type(spec) ~= "table" then
    error("Frame.from_columns: bad argument #1 (table of column sequences expected, got " .. type(spec) .. ")", 2)
  end
  if order ~= nil and type(order) ~= "table" then
    error("Frame.from_columns: bad argument #2 (sequence of column names expected, got " .. type(order) .. ")", 2)
  end
  local names, values = {}, {}
  if spec[1] ~= nil then
    if order ~= nil then error("Frame.from_columns: an order is given by the pairs themselves", 2) end
    for i, e in ipairs(spec) do
      if type(e) ~= "table" or type(e[1]) ~= "string" or (type(e[2]) ~= "table" and not core.is_series(e[2])) then
        error(string.format('Frame.from_columns: entry %d must be {"name", {values...}}', i), 2)
      end
      names[i], values[i] = e[1], e[2]
    end
    for k in pairs(spec) do
      if math.type(k) ~= "integer" then
        error("Frame.from_columns: mix of the pair form and named columns ('" .. tostring(k) .. "')", 2)
      end
    end
  else
    for k, v in pairs(spec) do
      if type(k) ~= "string" then error("Frame.from_columns: column names must be strings", 2) end
      if type(v) ~= "table" and not core.is_series(v) then
        error(string.format("Frame.from_columns: column '%s' must be a sequence, got %s", k, type(v)), 2)
      end
    end
    if order then
      local seen = {}
      for i, c in ipairs(order) do
        if spec[c] == nil then
          error(string.format("Frame.from_columns: order[%d] '%s' is no column given", i, tostring(c)), 2)
        end
        if seen[c] then error("Frame.from_columns: column '" .. c .. "' ordered twice", 2) end
        seen[c] = true
        names[i] = c
      end
      for k in pairs(spec) do
        if not seen[k] then error("Frame.from_columns: column '" .. k .. "' left out of the order", 2) end
      end
    else
      for k in pairs(spec) do names[#names + 1] = k end
      table.sort(names)
    end
    for i, c in ipairs(names) do values[i] = spec[c] end
  end
  local seen = {}
  for _, c in ipairs(names) do
    if seen[c] then error("Frame.from_columns: column '" .. c .. "' given twice", 2) end
    seen[c] = true
  end
  local n
  for i, v in ipairs(values) do
    local len = ((core.is_series(v) or getmetatable(v) == COLUMN) and #v)
      or (math.type(rawget(v, "n")) == "integer" and v.n) or #v
    if n == nil then
      n = len
    elseif len ~= n then
      error(string.format("Frame.from_columns: column '%s' has %d values, column '%s' has %d",
        names[i], len, names[1], n), 2)
    end
  end
  return wrap(names, core.tab_from_columns(values, n or 0))
end

--- The rows of several frames one after the other (pandas' concat of
-- frames, ignore_index = true): Frame.concat{df1, df2, ...}.  Columns: every
-- frame's, in order of first appearance; a frame without one of them has
-- NaN there (as pandas).  In C when every frame has the same columns and
-- each column one kind in all of them.
-- @tparam {Frame,...} frames at least one
-- @treturn Frame
-- @raise "Frame.concat: item 2 is not a Frame (got table)", no frame
function Frame.concat(frames)
  if type(frames) ~= "table" or getmetatable(frames) == mt then
    error("Frame.concat: bad argument #1 (a sequence of frames expected, got "
      .. (getmetatable(frames) == mt and "a Frame" or type(frames)) .. ")", 2)
  end
  if #frames == 0 then error("Frame.concat: no frame to concatenate", 2) end
  local names, seen = {}, {}
  for i, f in ipairs(frames) do
    if getmetatable(f) ~= mt then
      error(string.format("Frame.concat: item %d is not a Frame (got %s)", i, type(f)), 2)
    end
    for _, c in ipairs(f._columns) do
      if not seen[c] then seen[c] = true; names[#names + 1] = c end
    end
  end
  local all = true
  for _, f in ipairs(frames) do
    for _, c in ipairs(names) do
      if not has_column(f, c) then all = false end
    end
  end
  if all then
    local ts = {}
    for i, f in ipairs(frames) do ts[i] = f._t:pick(js_of(f, names)) end
    local t = core.tab_concat(ts)
    if t then return wrap(names, t) end
  end
  local rows = {}
  for _, f in ipairs(frames) do
    for _, r in ipairs(rows_of(f)) do
      for _, c in ipairs(names) do
        if not has_column(f, c) then r[c] = 0 / 0 end
      end
      rows[#rows + 1] = r
    end
  end
  return new(names, rows)
end

--- Is `v` a Frame?
function Frame.is_frame(v) return getmetatable(v) == mt end

-- ---------------------------------------------------------------- basics

--- Iterate rows: `for i, row in frame:rows() do ... end`.
function methods.rows(self)
  check(self, "Frame:rows")
  local t, cols, n, i = self._t, self._columns, self._t:nrows(), 0
  return function()
    i = i + 1
    if i <= n then return i, t:row(i, cols) end
  end
end

--- Values of one column, in row order, as a Series (src/lua/l_series.c):
-- a C vector with pandas' element-wise arithmetic, comparisons and masks,
-- and a sequence whose # is #frame (s[i], ipairs; a missing cell is nil,
-- or NaN among numbers).  Also `frame.name` and `frame["name"]`.
-- @tparam string name
-- @treturn Series
-- @raise "Frame:column: no column 'x' (columns: ...)"
function methods.column(self, name)
  check(self, "Frame:column")
  need_column(self, "Frame:column", name)
  local cached = self._cc[name]
  if cached then return cached end
  local out = self._t:series(positions(self)[name], name) -- over the C column: no copy
  self._cc[name] = out
  return out
end

--- Rows for which `fn(row, i)` is true, or where a mask is true (pandas'
-- boolean indexing: a Series of #frame booleans, as df.p50:gt(0.1) gives,
-- or a sequence of #frame booleans).
-- @tparam function|Series|{boolean,...} fn
-- @treturn Frame
-- @raise a mask of another length or with missing values, naming them
function methods.filter(self, fn)
  check(self, "Frame:filter")
  if core.is_series(fn) or (type(fn) == "table" and getmetatable(fn) == nil) then
    local n = self._t:nrows()
    if not core.is_series(fn) then
      if #fn ~= n then error(string.format("Frame:filter: the mask has %d values for %d rows", #fn, n), 2) end
      fn = core.series(fn, n)
    end
    return wrap(self._columns, self._t:mask(fn, "Frame:filter"))
  end
  if type(fn) ~= "function" then
    error("Frame:filter: bad argument #1 (function(row, i), a mask or a sequence of booleans expected, got "
      .. type(fn) .. ")", 2)
  end
  local t, cols, flags = self._t, self._columns, {}
  for i = 1, t:nrows() do
    flags[i] = fn(t:row(i, cols), i) and true or false
  end
  return wrap(self._columns, t:mask(flags))
end

-- The column names of a varargs-or-sequence argument list.
local function names_arg(where, first, ...)
  local cols
  if type(first) == "table" then
    if select("#", ...) > 0 then
      error(string.format("%s: columns as a sequence, or as arguments, not both (argument #2 is %s)",
        where, type((...))), 3)
    end
    cols = first
  else
    cols = { first, ... }
  end
  for i, c in ipairs(cols) do
    if type(c) ~= "string" then
      error(string.format("%s: column %d must be a name, got %s", where, i, type(c)), 3)
    end
  end
  return cols
end

local function project(self, cols)
  return wrap(cols, self._t:pick(js_of(self, cols)))
end

--- Keep some columns, in the given order: frame:select{"a", "b"} or
-- frame:select("a", "b").
-- @treturn Frame
-- @raise "Frame:select: no column 'x' (columns: ...)"
function methods.select(self, cols, ...)
  check(self, "Frame:select")
  cols = names_arg("Frame:select", cols, ...)
  for _, c in ipairs(cols) do need_column(self, "Frame:select", c) end
  local copy = {}
  for i, c in ipairs(cols) do copy[i] = c end
  return project(self, copy)
end

--- Leave some columns out: frame:drop{"raw"} or frame:drop("raw", "debug_data").
-- @treturn Frame
function methods.drop(self, cols, ...)
  check(self, "Frame:drop")
  cols = names_arg("Frame:drop", cols, ...)
  local gone = {}
  for _, c in ipairs(cols) do gone[need_column(self, "Frame:drop", c)] = true end
  local keep = {}
  for _, c in ipairs(self._columns) do
    if not gone[c] then keep[#keep + 1] = c end
  end
  return project(self, keep)
end

local function count_arg(where, n, default)
  if n == nil then return default end
  if math.type(n) ~= "integer" then
    error(where .. ": bad argument #1 (integer expected, got " .. (type(n) == "number" and "float" or type(n)) .. ")", 3)
  end
  return n
end

--- The first n rows (default 5); a negative n: all but the last -n.
function methods.head(self, n)
  check(self, "Frame:head")
  n = count_arg("Frame:head", n, 5)
  local total = self._t:nrows()
  local last = n >= 0 and math.min(n, total) or math.max(total + n, 0)
  return wrap(self._columns, self._t:slice(1, last))
end

--- The last n rows (default 5); a negative n: all but the first -n.
function methods.tail(self, n)
  check(self, "Frame:tail")
  n = count_arg("Frame:tail", n, 5)
  local total = self._t:nrows()
  local first = n >= 0 and math.max(total - n, 0) + 1 or math.min(-n, total) + 1
  return wrap(self._columns, self._t:slice(first, total - first + 1))
end

-- ---------------------------------------------------------------- ordering

-- Order of two present values: booleans as 0/1, numbers before text,
-- text by bytes (other values by their Python str()).  -1, 0 or 1.
local function compare(a, b)
  if type(a) == "boolean" then a = a and 1 or 0 end
  if type(b) == "boolean" then b = b and 1 or 0 end
  local na, nb = type(a) == "number", type(b) == "number"
  if na and nb then return a < b and -1 or (a > b and 1 or 0) end
  if na then return -1 end
  if nb then return 1 end
  if type(a) ~= "string" then a = pyrepr.str(a) end
  if type(b) ~= "string" then b = pyrepr.str(b) end
  return a < b and -1 or (a > b and 1 or 0)
end
Frame.compare = compare

-- Sort `idx` (row indices) stably by `keys` ({name, desc}); missing values
-- last (or first when na_first).
local function sort_indices(rows, idx, keys, na_first)
  table.sort(idx, function(i, j)
    local ri, rj = rows[i], rows[j]
    for _, k in ipairs(keys) do
      local a, b = ri[k[1]], rj[k[1]]
      local ma, mb = missing(a), missing(b)
      if ma or mb then
        if not (ma and mb) then
          if na_first then return ma end
          return mb
        end
      else
        local c = compare(a, b)
        if c ~= 0 then
          if k[2] then return c > 0 end
          return c < 0
        end
      end
    end
    return i < j
  end)
  return idx
end

--- Sort rows (stable; missing values last, as pandas' na_position="last").
--   frame:sort("avg (ms)")                 ascending
--   frame:sort("avg (ms)", true)           descending
--   frame:sort("event_block_name", "avg (ms)")          several columns
--   frame:sort{"event_block_name", {"avg (ms)", desc = true}}   per column
--   frame:sort({"a", "b"}, {ascending = {true, false}, na_position = "first"})
-- Numbers compare numerically, booleans as 0/1 (before numbers of equal
-- value), numbers before text, text byte-wise.
-- @treturn Frame
-- @raise "Frame:sort: no column 'x' (columns: ...)", unknown options
function methods.sort(self, by, ...)
  check(self, "Frame:sort")
  local nargs = select("#", ...)
  local second = ...
  local keys, opts = {}, nil
  if type(by) == "string" then
    if type(second) == "string" then
      for _, c in ipairs(names_arg("Frame:sort", by, ...)) do keys[#keys + 1] = { c, false } end
    elseif type(second) == "boolean" or second == nil then
      if nargs > 1 then error("Frame:sort: too many arguments", 2) end
      keys[1] = { by, second == true }
    else
      if nargs > 1 then error("Frame:sort: too many arguments", 2) end
      keys[1] = { by, false }
      opts = second
    end
  elseif type(by) == "table" then
    for i, k in ipairs(by) do
      if type(k) == "string" then
        keys[i] = { k, false }
      elseif type(k) == "table" and type(k[1]) == "string" then
        for key in pairs(k) do
          if key ~= 1 and key ~= "desc" then
            error(string.format("Frame:sort: column %d: unknown field '%s' (accepted: [1] = name, desc)", i, tostring(key)), 2)
          end
        end
        keys[i] = { k[1], k.desc == true }
      else
        error(string.format("Frame:sort: column %d must be a name or {name, desc = true}, got %s", i, type(k)), 2)
      end
    end
    if nargs > 1 then error("Frame:sort: too many arguments", 2) end
    if type(second) == "boolean" then
      for _, k in ipairs(keys) do k[2] = second end
    else
      opts = second
    end
  else
    error("Frame:sort: bad argument #1 (column name or sequence of columns expected, got " .. type(by) .. ")", 2)
  end
  core.check_options("Frame:sort", opts, { ascending = "boolean|table", na_position = "string" }, 2)
  opts = opts or {}
  if opts.ascending ~= nil then
    local asc = opts.ascending
    for i, k in ipairs(keys) do
      local a = asc
      if type(asc) == "table" then
        a = asc[i]
        if type(a) ~= "boolean" then
          error(string.format("Frame:sort: ascending[%d] must be a boolean (one per column)", i), 2)
        end
      end
      k[2] = not a
    end
  end
  if opts.na_position ~= nil and opts.na_position ~= "last" and opts.na_position ~= "first" then
    error("Frame:sort: na_position must be 'last' or 'first', got '" .. opts.na_position .. "'", 2)
  end
  if #keys == 0 then error("Frame:sort: no column given", 2) end
  for _, k in ipairs(keys) do need_column(self, "Frame:sort", k[1]) end
  local na_first = opts.na_position == "first"
  local js, descs, pos = {}, {}, positions(self)
  for i, k in ipairs(keys) do js[i], descs[i] = pos[k[1]], k[2] end
  local sorted = self._t:sort(js, descs, na_first)
  if sorted then return wrap(self._columns, sorted) end
  -- a key column of Lua objects or mixed kinds: Frame.compare, in Lua
  local rows = rows_of(self)
  local idx = {}
  for i = 1, #rows do idx[i] = i end
  sort_indices(rows, idx, keys, na_first)
  return wrap(self._columns, self._t:take(idx))
end

-- ---------------------------------------------------------------- aggregation

-- The numbers of a column for a numeric aggregator: booleans as 0/1,
-- missing values skipped; text raises, naming the column.
local function numbers(v, col, what)
  local out, ints = {}, true
  for i = 1, #v do
    local x = v[i]
    if not missing(x) then
      if type(x) == "boolean" then
        x = x and 1 or 0
      elseif type(x) ~= "number" then
        error(string.format("%s: %s holds %s values (%s), not numbers", what,
          col ~= nil and ("column '" .. tostring(col) .. "'") or "the column", type(x), pyrepr.repr(x)), 0)
      end
      if math.type(x) ~= "integer" then ints = false end
      out[#out + 1] = x
    end
  end
  return out, ints
end

-- A numeric aggregator computed by _core.agg's `kernel`.
local function stat(name, kernel)
  return function(v, col)
    return core.agg(numbers(v, col, name), kernel)
  end
end

-- The smallest (sign -1) or largest (1) present value; NaN when none.
-- Numbers and booleans compare together, text with text; other mixes raise.
local function extreme(v, col, name, sign)
  local m
  for i = 1, #v do
    local x = v[i]
    if not missing(x) then
      if m ~= nil then
        local a, b = type(m) == "boolean" and "number" or type(m), type(x) == "boolean" and "number" or type(x)
        if a ~= b then
          error(string.format("%s: %s mixes %s and %s values", name,
            col ~= nil and ("column '" .. tostring(col) .. "'") or "the column", type(m), type(x)), 0)
        end
      end
      if m == nil or compare(x, m) * sign > 0 then m = x end
    end
  end
  if m == nil then return 0 / 0 end
  return m
end

local aggregators = {
  count = function(v)
    local n = 0
    for i = 1, #v do if not missing(v[i]) then n = n + 1 end end
    return n
  end,
  sum = function(v, col)
    local xs, ints = numbers(v, col, "sum")
    if ints then
      local s = 0
      for _, x in ipairs(xs) do s = s + x end
      return s
    end
    return core.agg(xs, "gsum")
  end,
  mean = stat("mean", "gmean"),
  median = stat("median", "median"),
  std = stat("std", "gstd"),
  var = stat("var", "gvar"),
  quantile = function(v, col) return core.agg(numbers(v, col, "quantile"), "gquantile", 0.5) end,
  min = function(v, col) return extreme(v, col, "min", -1) end,
  max = function(v, col) return extreme(v, col, "max", 1) end,
  -- first/last of a group without a value: nil, pandas' None of an object
  -- column (GroupBy:agg makes it NaN for a column of numbers, as pandas)
  first = function(v)
    for i = 1, #v do if not missing(v[i]) then return v[i] end end
    return nil
  end,
  last = function(v)
    for i = #v, 1, -1 do if not missing(v[i]) then return v[i] end end
    return nil
  end,
}
Frame.aggregators = aggregators

-- A column's statistics, as pandas' Series methods compute them (NumPy's
-- pairwise sums, numpy.percentile) -- a GroupBy's aggregators use pandas'
-- group kernels instead (Kahan sums, Welford variances).
local function series(kernel)
  return function(v, ...)
    local xs = numbers(v, name_of(v), kernel)
    return core.agg(xs, kernel, ...)
  end
end
--- col:sum(), col:mean(), col:median(), col:std(), col:var() (ddof 1),
-- col:quantile([q = 0.5]), col:min(), col:max(), col:count(),
-- col:unique(): a column's statistics as pandas' Series methods give them.
column_methods.sum = function(v)
  local xs, ints = numbers(v, name_of(v), "sum")
  if ints then
    local s = 0
    for _, x in ipairs(xs) do s = s + x end
    return s
  end
  return core.agg(xs, "sum")
end
column_methods.mean = series("mean")
column_methods.median = series("median")
column_methods.std = series("std")
column_methods.var = series("var")
column_methods.quantile = function(v, q)
  if q ~= nil and (type(q) ~= "number" or not (q >= 0 and q <= 1)) then
    error("quantile: bad argument #1 (a number between 0 and 1 expected, got " .. tostring(q) .. ")", 0)
  end
  return core.agg(numbers(v, name_of(v), "quantile"), "quantile", q or 0.5)
end
column_methods.min = function(v) return aggregators.min(v, name_of(v)) end
column_methods.max = function(v) return aggregators.max(v, name_of(v)) end
column_methods.count = function(v) return aggregators.count(v) end
column_methods.unique = function(v)
  local seen, out, n = {}, {}, 0
  for i = 1, #v do
    local x = v[i]
    local k = x == nil and "\0nil" or (x ~= x and "\0nan") or (type(x) == "number" and string.format("n%.17g", x)) or x
    if not seen[k] then seen[k] = true; n = n + 1; out[n] = x end
  end
  return make_column(out, n)
end

local NUMERIC_AGG = { sum = true, mean = true, median = true, std = true, var = true, quantile = true }
local AGG_NAMES = "count, sum, mean, median, std, var, min, max, first, last, quantile, quantile(q)"

--- An aggregator for quantile q (0 <= q <= 1), NumPy's linear method:
-- `agg{p90 = {"avg (ms)", etinspect.Frame.quantile(0.9)}}`; the string
-- "quantile(0.9)" is the same.
-- @tparam number q
function Frame.quantile(q)
  if type(q) ~= "number" or not (q >= 0 and q <= 1) then
    error("Frame.quantile: q must be a number between 0 and 1, got " .. tostring(q), 2)
  end
  local name = "quantile(" .. pyrepr.repr(q + 0.0):gsub("%.0$", "") .. ")"
  return setmetatable({ name = name, numeric = true, q = q }, {
    __name = "aggregator",
    __call = function(_, v, col) return core.agg(numbers(v, col, name), "gquantile", q) end,
    __tostring = function() return name end,
  })
end

-- An aggregator spec -> function(values, col), its name, numeric?
local function resolve_agg(spec, where)
  if type(spec) == "function" then return spec, "<function>", false end
  if type(spec) == "table" and getmetatable(spec) and getmetatable(spec).__name == "aggregator" then
    return spec, spec.name, spec.numeric
  end
  if type(spec) == "string" then
    local f = aggregators[spec]
    if f then return f, spec, NUMERIC_AGG[spec] or false end
    local q = spec:match("^quantile%(%s*([%d.eE+-]+)%s*%)$")
    if q and tonumber(q) then
      local a = Frame.quantile(tonumber(q))
      return a, spec, true
    end
  end
  error(string.format("%s: unknown aggregator %s (%s, or a function(values, column))", where,
    type(spec) == "string" and ("'" .. spec .. "'") or ("of type " .. type(spec)), AGG_NAMES), 3)
end

-- Key of a group: one string for the values of the key columns (vals.n of
-- them: a nil key is one of them, as in the C path and pandas).
local function group_key(vals)
  local parts = {}
  for i = 1, vals.n or #vals do
    local v = vals[i]
    local t = type(v)
    if missing(v) then parts[i] = "\0na"
    elseif t == "number" then parts[i] = "n" .. string.format("%.17g", v)
    elseif t == "boolean" then parts[i] = v and "\0t" or "\0f"
    elseif t == "string" then parts[i] = "s" .. v
    else parts[i] = "o" .. pyrepr.repr(v) end
  end
  return table.concat(parts, "\0|")
end

local GroupBy = {}
local gmethods = {}
GroupBy.__index = gmethods

-- Raise "<where>: expected a GroupBy (use g:method())" unless g is one.
local function gcheck(g, where)
  if getmetatable(g) ~= GroupBy then
    error(where .. ": expected a GroupBy (use g:method())", 3)
  end
end
GroupBy.__name = "GroupBy"
GroupBy.__methods = gmethods

-- Group the rows of `self` by the columns `cols`: a GroupBy.  In C when
-- every key column has a C order (numbers, booleans, text), else in Lua
-- with group_key and Frame.compare.  nil_apart: nil and NaN keys apart.
local function make_groups(self, cols, dropna, sort, nil_apart)
  local gi = self._t:group(js_of(self, cols), dropna, sort, nil_apart)
  if gi then
    return setmetatable({ _frame = self, _by = cols, _gi = gi, _n = gi:count() }, GroupBy)
  end
  local order, groups = {}, {}
  for i, r in ipairs(rows_of(self)) do
    local vals, skip = { n = #cols }, false
    for k, c in ipairs(cols) do
      vals[k] = r[c]
      if missing(r[c]) and dropna then skip = true end
    end
    if not skip then
      local gk = group_key(vals)
      if nil_apart and vals[1] == nil then gk = "\0nil" end
      local g = groups[gk]
      if not g then
        g = { keys = vals, rows = {} }
        groups[gk] = g
        order[#order + 1] = g
      end
      g.rows[#g.rows + 1] = i
    end
  end
  if sort then
    local pos = {}
    for i, g in ipairs(order) do pos[g] = i end
    table.sort(order, function(a, b)
      for i = 1, #cols do
        local x, y = a.keys[i], b.keys[i]
        local mx, my = missing(x), missing(y)
        if mx ~= my then return my end
        if not mx then
          local c = compare(x, y)
          if c ~= 0 then return c < 0 end
        end
      end
      return pos[a] < pos[b]
    end)
  end
  return setmetatable({ _frame = self, _by = cols, _lg = order, _n = #order }, GroupBy)
end

--- Group rows by the values of one or more columns (pandas' groupby):
--   frame:group_by("is_delegated_op")
--   frame:group_by("event_block_name", "is_delegated_op")
--   frame:group_by{"event_block_name", "is_delegated_op"}
--   frame:group_by({"a"}, {sort = false, dropna = false})
-- Groups come sorted by their keys (sort = false: in first-seen order);
-- rows with a missing key are left out (dropna = false: they form groups,
-- sorted last).  Returns a GroupBy: :agg(spec), :size(), :count(),
-- :sum(), :mean(), :median(), :std(), :var(), :min(), :max(), :first(),
-- :last(), :quantile(q), :groups(); tostring shows the groups and sizes.
-- @raise "Frame:group_by: no column 'x' (columns: ...)"
function methods.group_by(self, ...)
  check(self, "Frame:group_by")
  local args = table.pack(...)
  local opts
  local last = args[args.n]
  if args.n >= 2 and type(last) == "table" and last[1] == nil then
    opts = last
    args.n = args.n - 1
  end
  local cols
  if type(args[1]) == "table" then
    if args.n > 1 then error("Frame:group_by: columns as a sequence, or as arguments, not both", 2) end
    cols = names_arg("Frame:group_by", args[1])
  else
    cols = names_arg("Frame:group_by", table.unpack(args, 1, args.n))
  end
  core.check_options("Frame:group_by", opts, { sort = "boolean", dropna = "boolean" }, #cols + 1)
  opts = opts or {}
  if #cols == 0 then error("Frame:group_by: no column given", 2) end
  for _, c in ipairs(cols) do need_column(self, "Frame:group_by", c) end
  return make_groups(self, cols, opts.dropna ~= false, opts.sort ~= false, false)
end

-- The rows (1-based) of group k.
local function group_rows(g, k)
  if g._gi then return g._gi:rows(k) end
  return g._lg[k].rows
end

-- A Table of the key columns, one row per group.
local function group_keys(g)
  local f = g._frame
  if g._gi then return g._gi:keys(f._t, js_of(f, g._by)) end
  local firsts = {}
  for k, grp in ipairs(g._lg) do firsts[k] = grp.rows[1] end
  return f._t:take(firsts):pick(js_of(f, g._by))
end

-- The values of column `col` in group k, as a column sequence.
local function group_values(g, k, col)
  local all = g._frame:column(col)
  local rows = group_rows(g, k)
  local vals = {}
  for j, r in ipairs(rows) do vals[j] = all[r] end
  return make_column(vals, #rows, col)
end

-- Is every present value of `col` a number (or boolean)?  (pandas'
-- numeric_only for whole-frame aggregations.)
local function numeric_column(self, col)
  local j = positions(self)[col]
  local kind = self._t:kind(j)
  if kind == "f64" or kind == "i64" or kind == "bool" then
    local _, any = self._t:numeric(j)
    return any
  end
  if kind ~= "obj" then return false end
  local any = false
  local v = self:column(col)
  for i = 1, #v do
    local x = v[i]
    if not missing(x) then
      if type(x) ~= "number" and type(x) ~= "boolean" then return false end
      any = true
    end
  end
  return any
end

-- The output columns of an agg spec: a sequence of {out, col, fn}.
local function agg_plan(g, spec)
  local f = g._frame
  local where = "GroupBy:agg"
  local by = {}
  for _, c in ipairs(g._by) do by[c] = true end
  local plan = {}
  local function add(out, col, aspec)
    need_column(f, where, col, 3)
    local fn, name, numeric = resolve_agg(aspec, where)
    plan[#plan + 1] = { out, col, fn, numeric, name }
  end
  if type(spec) == "string" or type(spec) == "function"
     or (type(spec) == "table" and getmetatable(spec) and getmetatable(spec).__name == "aggregator") then
    -- every other column (numeric aggregators: the numeric ones)
    local fn, name, numeric = resolve_agg(spec, where)
    for _, c in ipairs(f._columns) do
      if not by[c] and (not numeric or numeric_column(f, c)) then plan[#plan + 1] = { c, c, fn, numeric, name } end
    end
    return plan
  end
  if type(spec) ~= "table" then
    error(where .. ": bad argument #1 (an aggregation table, an aggregator name or a function expected, got "
      .. type(spec) .. ")", 3)
  end
  if spec[1] ~= nil then -- { {"out", "col", agg}, ... }
    for i, s in ipairs(spec) do
      if type(s) ~= "table" or type(s[1]) ~= "string" or type(s[2]) ~= "string" then
        error(string.format('%s: entry %d must be {"output", "column", aggregator}', where, i), 3)
      end
      add(s[1], s[2], s[3])
    end
    for k in pairs(spec) do
      if math.type(k) ~= "integer" then
        error(where .. ": mix of the sequence form and named entries ('" .. tostring(k) .. "')", 3)
      end
    end
    return plan
  end
  -- dict form {col = "sum" | {"sum", "max"}} and named form {out = {"col", "sum"}}
  local pos = {}
  for i, c in ipairs(f._columns) do pos[c] = i end
  local entries = {}
  for key, v in pairs(spec) do
    if type(key) ~= "string" then error(where .. ": keys must be column or output names", 3) end
    local e = { key = key }
    local plain = type(v) == "table" and getmetatable(v) == nil
    if plain and (v.column ~= nil or v.aggfunc ~= nil) then
      -- pd.NamedAgg(column=, aggfunc=)
      e.named = { v.column, v.aggfunc }
    elseif plain and #v == 2 and type(v[1]) == "string" then
      local v1col, keycol = pos[v[1]] ~= nil, pos[key] ~= nil
      local v1agg = aggregators[v[1]] ~= nil or v[1]:match("^quantile%(") ~= nil
      if keycol and v1col and v1agg then
        error(string.format("%s: {%s = {%q, %s}} is ambiguous ('%s' is a column and an aggregator): "
          .. "write {%s = {column = ..., aggfunc = ...}} or {%s = {...}} with aggregators only", where, key,
          v[1], pyrepr.repr(v[2]), v[1], key, key), 3)
      elseif v1col or not keycol then
        e.named = { v[1], v[2] } -- {out = {"column", agg}}; a key that is no column cannot be the dict form
      else
        e.dict = v
      end
    else
      e.dict = v
    end
    local col = e.named and e.named[1] or key
    e.pos = pos[col] or math.huge
    entries[#entries + 1] = e
  end
  table.sort(entries, function(a, b)
    if a.pos ~= b.pos then return a.pos < b.pos end
    return a.key < b.key
  end)
  for _, e in ipairs(entries) do
    if e.named then
      if type(e.named[1]) ~= "string" then
        error(string.format("%s: %s: the column must be a name", where, e.key), 3)
      end
      add(e.key, e.named[1], e.named[2])
    elseif type(e.dict) == "table" and getmetatable(e.dict) == nil then
      for _, a in ipairs(e.dict) do
        local _, name = resolve_agg(a, where)
        add(e.key .. "_" .. name, e.key, a)
      end
    else
      add(e.key, e.key, e.dict)
    end
  end
  return plan
end

-- The C aggregator of an aggregator function (and its q), or nil for a
-- Lua function.
local c_names = {}
for name, f in pairs(aggregators) do c_names[f] = name end
local NUMBER_KINDS = { f64 = true, i64 = true }
local function c_aggregator(fn)
  if c_names[fn] then return c_names[fn], 0.5 end
  if type(fn) == "table" and rawget(fn, "q") then return "quantile", fn.q end
  return nil
end

--- Aggregate each group: one row per group, the key columns first.
--   g:agg{ {"events", "event_name", "count"}, {"total", "avg (ms)", "sum"} }  (in this order)
--   g:agg{ ["avg (ms)"] = "sum" }                 dict form: output named as the column
--   g:agg{ ["avg (ms)"] = {"sum", "max"} }        outputs "avg (ms)_sum", "avg (ms)_max"
--   g:agg{ total = {"avg (ms)", "sum"} }          named form (pandas' named aggregation)
--   g:agg{ total = {column = "avg (ms)", aggfunc = "sum"} }
--   g:agg("mean")                                 every other (numeric) column
-- Outputs of the table forms follow the frame's column order (ties by
-- name).  Aggregators: count, sum, mean, median, std, var, min, max, first,
-- last (first/last present value), quantile (0.5), "quantile(q)" or
-- Frame.quantile(q), or a function(values, column) -> value.
-- @treturn Frame
-- @raise an unknown column or aggregator, named; a numeric aggregator over
--   text ("mean: column 'event_name' holds string values ('...'), not numbers")
function gmethods.agg(g, spec)
  gcheck(g, "GroupBy:agg")
  local plan = agg_plan(g, spec)
  local cols = {}
  for i, c in ipairs(g._by) do cols[i] = c end
  local seen = {}
  for _, c in ipairs(cols) do seen[c] = true end
  for _, p in ipairs(plan) do
    if seen[p[1]] then
      error("GroupBy:agg: output column '" .. p[1] .. "' given twice (or a key column)", 2)
    end
    seen[p[1]] = true
    cols[#cols + 1] = p[1]
  end
  local f = g._frame
  local keys = group_keys(g)
  local parts = {}
  for j = 1, #g._by do parts[#parts + 1] = keys; parts[#parts + 1] = j end
  for _, p in ipairs(plan) do
    local out
    local what, q = c_aggregator(p[3])
    if what and g._gi then
      local res, row = g._gi:agg(f._t, positions(f)[p[2]], what, q)
      if res then
        out = res
      elseif res == false then
        local x = f._t:cell(row, positions(f)[p[2]])
        error(string.format("GroupBy:agg: %s: column '%s' holds %s values (%s), not numbers", p[5],
          tostring(p[2]), type(x), pyrepr.repr(x)), 2)
      end
    end
    if not out then -- a Lua aggregator, or a column C cannot aggregate
      -- first/last of a group without a value in a column of numbers: NaN (pandas)
      local nan_for_none = (p[3] == aggregators.first or p[3] == aggregators.last)
        and NUMBER_KINDS[f._t:kind(positions(f)[p[2]])]
      local vals = {}
      for k = 1, g._n do
        local ok, v = pcall(p[3], group_values(g, k, p[2]), p[2])
        if not ok then error("GroupBy:agg: " .. tostring(v), 2) end
        if v == nil and nan_for_none then v = 0 / 0 end
        vals[k] = v
      end
      out = core.tab_from_columns({ vals }, g._n)
    end
    parts[#parts + 1] = out
    parts[#parts + 1] = 1
  end
  return wrap(cols, core.tab_compose(parts))
end
gmethods.aggregate = gmethods.agg

for _, name in ipairs { "count", "sum", "mean", "median", "std", "var", "min", "max", "first", "last" } do
  gmethods[name] = function(g)
    gcheck(g, "GroupBy:" .. name)
    return gmethods.agg(g, name)
  end
end

--- g:quantile([q]) -> Frame: every numeric column's q-quantile (default 0.5).
function gmethods.quantile(g, q)
  gcheck(g, "GroupBy:quantile")
  if q ~= nil and (type(q) ~= "number" or not (q >= 0 and q <= 1)) then
    error("GroupBy:quantile: bad argument #1 (a number between 0 and 1 expected, got " .. tostring(q) .. ")", 2)
  end
  return gmethods.agg(g, Frame.quantile(q or 0.5))
end

--- g:size() -> Frame: the key columns and "size", the rows of each group.
function gmethods.size(g)
  gcheck(g, "GroupBy:size")
  local cols = {}
  for i, c in ipairs(g._by) do cols[i] = c end
  cols[#cols + 1] = "size"
  local keys = group_keys(g)
  local parts = {}
  for j = 1, #g._by do parts[#parts + 1] = keys; parts[#parts + 1] = j end
  local sizes
  if g._gi then
    sizes = g._gi:sizes()
  else
    local n = {}
    for k, grp in ipairs(g._lg) do n[k] = #grp.rows end
    sizes = core.tab_from_columns({ n }, g._n)
  end
  parts[#parts + 1] = sizes
  parts[#parts + 1] = 1
  return wrap(cols, core.tab_compose(parts))
end

--- g:groups() -> sequence of {keys = {values of the key columns}, rows = Frame}.
function gmethods.groups(g)
  gcheck(g, "GroupBy:groups")
  local f = g._frame
  local keys = group_keys(g)
  local out = {}
  for k = 1, g._n do
    local kv = {}
    for j = 1, #g._by do kv[j] = keys:cell(k, j) end
    out[k] = { keys = kv, rows = wrap(f._columns, f._t:take(group_rows(g, k))) }
  end
  return out
end

GroupBy.__len = function(g) return g._n end
GroupBy.__tostring = function(g)
  return "GroupBy(" .. table.concat(g._by, ", ") .. "): " .. g._n .. " groups\n"
    .. gmethods.size(g):render("box", {})
end
Frame.GroupBy = GroupBy

-- ---------------------------------------------------------------- other verbs

--- The distinct values of a column, in first-seen order (a missing value
-- once: nil and NaN apart), as a sequence (# counts a nil).
-- @tparam string col
function methods.unique(self, col)
  check(self, "Frame:unique")
  need_column(self, "Frame:unique", col)
  local g = make_groups(self, { col }, false, false, true)
  local keys = group_keys(g)
  return make_column(keys:column(1), g._n)
end

--- How often each value (or combination of values) occurs:
--   frame:value_counts("event_name")
--   frame:value_counts({"event_block_name", "is_delegated_op"}, {normalize = true})
-- A Frame of the key columns and "count" ("proportion" with normalize),
-- most frequent first (ties in first-seen order; sort = false: first-seen
-- order; ascending = true: least frequent first); missing values are not
-- counted unless dropna = false.
-- @treturn Frame
function methods.value_counts(self, cols, opts)
  check(self, "Frame:value_counts")
  if type(cols) == "string" then cols = { cols } end
  cols = names_arg("Frame:value_counts", cols)
  core.check_options("Frame:value_counts", opts,
    { normalize = "boolean", sort = "boolean", ascending = "boolean", dropna = "boolean" }, 2)
  opts = opts or {}
  local g = methods.group_by(self, cols, { sort = false, dropna = opts.dropna ~= false })
  local out = opts.normalize and "proportion" or "count"
  local f = gmethods.size(g)
  local total = 0
  for _, k in ipairs(f:column("size")) do total = total + k end
  local rows = {}
  for i, r in ipairs(rows_of(f)) do
    local nr = {}
    for _, c in ipairs(cols) do nr[c] = r[c] end
    nr[out] = opts.normalize and r.size / total or r.size
    rows[i] = nr
  end
  local oc = {}
  for i, c in ipairs(cols) do oc[i] = c end
  oc[#oc + 1] = out
  local res = new(oc, rows)
  if opts.sort ~= false then
    res = wrap(oc, res._t:sort({ #oc }, { opts.ascending ~= true }, false))
  end
  return res
end

local function percent_label(q)
  local p = q * 100
  if p == math.floor(p) then return string.format("%d%%", math.tointeger(p) or p) end
  return (string.format("%.6f", p):gsub("0+$", ""):gsub("%.$", "")) .. "%"
end

--- Summary statistics of the numeric columns (pandas' describe): a Frame
-- with column "stat" (count, mean, std, min, 25%, 50%, 75%, max) and one
-- column per numeric column (every present value a number; booleans and
-- text are left out).  opts.percentiles: other quantiles (0..1); as in
-- pandas, 50% is always among them and they come sorted (a duplicate raises).
-- @treturn Frame
-- @raise "Frame:describe: no numeric column (columns: ...)"
function methods.describe(self, opts)
  check(self, "Frame:describe")
  core.check_options("Frame:describe", opts, { percentiles = "table" }, 1)
  opts = opts or {}
  local ps = { 0.25, 0.5, 0.75 }
  if opts.percentiles then -- as pandas: the median is always given, the rest sorted, no duplicates
    ps = {}
    local seen, has_median = {}, false
    for i, q in ipairs(opts.percentiles) do
      if type(q) ~= "number" or not (q >= 0 and q <= 1) then
        error(string.format("Frame:describe: percentiles[%d] must be between 0 and 1", i), 2)
      end
      if seen[q] then error(string.format("Frame:describe: percentiles[%d] (%s) given twice", i, pyrepr.repr(q)), 2) end
      seen[q] = true
      if q == 0.5 then has_median = true end
      ps[i] = q
    end
    if not has_median then ps[#ps + 1] = 0.5 end
    table.sort(ps)
  end
  -- a frame without rows describes its number columns (and those of no
  -- kind yet, as Frame.new makes them) with count 0 and NaN, as pandas
  local cols, t, pos = {}, self._t, positions(self)
  local empty = t:nrows() == 0
  for _, c in ipairs(self._columns) do
    local kind = t:kind(pos[c])
    if kind == "f64" or kind == "i64" then
      local _, _, nonnil = t:numeric(pos[c])
      if nonnil or empty then cols[#cols + 1] = c end
    elseif kind == "obj" then -- numbers of both kinds, or other values
      local any, ok = false, true
      local v = self:column(c)
      for i = 1, #v do
        local x = v[i]
        if x ~= nil then
          if type(x) ~= "number" then ok = false; break end
          any = true
        end
      end
      if ok and (any or empty) then cols[#cols + 1] = c end
    end
  end
  if #cols == 0 then
    error("Frame:describe: no numeric column (columns: " .. columns_list(self) .. ")", 2)
  end
  local stats = { "count", "mean", "std", "min" }
  for _, q in ipairs(ps) do stats[#stats + 1] = percent_label(q) end
  stats[#stats + 1] = "max"
  local rows = {}
  for i, s in ipairs(stats) do rows[i] = { stat = s } end
  for _, c in ipairs(cols) do
    if t:kind(pos[c]) ~= "obj" then
      for i, v in ipairs(t:describe(pos[c], ps)) do rows[i][c] = v end
      goto next_column
    end
    local xs = {}
    local v = self:column(c)
    for i = 1, #v do
      if not missing(v[i]) then xs[#xs + 1] = v[i] end
    end
    local sorted = {}
    for i, x in ipairs(xs) do sorted[i] = x + 0.0 end
    table.sort(sorted)
    local vals = { #xs + 0.0, core.agg(xs, "mean"), core.agg(xs, "std"),
                   #xs > 0 and sorted[1] or 0 / 0 }
    for _, q in ipairs(ps) do vals[#vals + 1] = core.agg(xs, "quantile", q) end
    vals[#vals + 1] = #xs > 0 and sorted[#sorted] or 0 / 0
    for i, x in ipairs(vals) do rows[i][c] = x end
    ::next_column::
  end
  local oc = { "stat" }
  for _, c in ipairs(cols) do oc[#oc + 1] = c end
  return new(oc, rows)
end

--- Rename columns: frame:rename{["avg (ms)"] = "avg"} or
-- frame:rename(function(name) return new_name end).
-- @treturn Frame
-- @raise an unknown column, a name given to two columns
function methods.rename(self, map)
  check(self, "Frame:rename")
  local fn
  if type(map) == "function" then
    fn = map
  elseif type(map) == "table" then
    for old, nw in pairs(map) do
      need_column(self, "Frame:rename", old)
      if type(nw) ~= "string" then
        error(string.format("Frame:rename: the new name of '%s' must be a string, got %s", old, type(nw)), 2)
      end
    end
    fn = function(c) return map[c] or c end
  else
    error("Frame:rename: bad argument #1 (table {old = new} or function expected, got " .. type(map) .. ")", 2)
  end
  local cols, to, seen = {}, {}, {}
  for i, c in ipairs(self._columns) do
    local n = fn(c)
    if type(n) ~= "string" then error("Frame:rename: the function must return a name for '" .. c .. "'", 2) end
    if seen[n] then error("Frame:rename: two columns would be named '" .. n .. "'", 2) end
    seen[n] = true
    cols[i], to[c] = n, n
  end
  return wrap(cols, self._t)
end

--- New or replaced columns (pandas' assign):
--   frame:mutate{ share = function(row, i) return row["avg (ms)"] / total end, unit = "ms" }
--   frame:mutate{ {"a", fn_a}, {"b", fn_b} }      in this order (b may read a)
-- A function is called per row as fn(row, i) (row holds the columns made
-- before it); a column sequence (frame.col, or any plain table: it must
-- hold #frame values, as pandas' assign takes a list) gives the values;
-- anything else (a string, number, boolean, a table with a metatable) is
-- the same in every row.  New columns come after the others (named ones
-- sorted by name); a replaced column keeps its place.
-- @treturn Frame
-- @raise "Frame:mutate: column 'x' has 3 values for 403 rows"
function methods.mutate(self, spec)
  check(self, "Frame:mutate")
  if type(spec) ~= "table" then
    error("Frame:mutate: bad argument #1 (table of new columns expected, got " .. type(spec) .. ")", 2)
  end
  local plan = {}
  if spec[1] ~= nil then
    for i, e in ipairs(spec) do
      if type(e) ~= "table" or type(e[1]) ~= "string" then
        error(string.format('Frame:mutate: entry %d must be {"name", value}', i), 2)
      end
      plan[#plan + 1] = { e[1], e[2] }
    end
  else
    local names = {}
    for k in pairs(spec) do
      if type(k) ~= "string" then error("Frame:mutate: column names must be strings", 2) end
      names[#names + 1] = k
    end
    table.sort(names)
    for _, k in ipairs(names) do plan[#plan + 1] = { k, spec[k] } end
  end
  local n = self._t:nrows()
  local cols = {}
  for i, c in ipairs(self._columns) do cols[i] = c end
  local made, rows = {}, nil -- the new columns' values; row tables, once a function needs them
  for _, p in ipairs(plan) do
    local name, v = p[1], p[2]
    local known = false
    for _, c in ipairs(cols) do if c == name then known = true; break end end
    if not known then cols[#cols + 1] = name end
    local vals = {}
    if type(v) == "function" then
      if not rows then
        rows = rows_of(self)
        for c, mv in pairs(made) do
          for i, r in ipairs(rows) do r[c] = mv[i] end
        end
      end
      for i, r in ipairs(rows) do
        local x = v(r, i)
        r[name] = x
        vals[i] = x
      end
    else
      if core.is_series(v) or (type(v) == "table" and (getmetatable(v) == COLUMN or getmetatable(v) == nil)) then
        -- a sequence of values (as pandas' assign takes a list): one per row
        if #v ~= n then
          error(string.format("Frame:mutate: column '%s' has %d values for %d rows", name, #v, n), 2)
        end
        if core.is_series(v) then
          vals = v -- its C column joins the frame as it is
        else
          for i = 1, n do vals[i] = v[i] end
        end
      else
        for i = 1, n do vals[i] = v end
      end
      if rows then
        for i, r in ipairs(rows) do r[name] = vals[i] end
      end
    end
    made[name] = vals
  end
  local pos, parts, newvals, newj = positions(self), {}, {}, {}
  for _, c in ipairs(cols) do
    if made[c] then
      newvals[#newvals + 1] = made[c]
      newj[c] = #newvals
    end
  end
  local nt = core.tab_from_columns(newvals, n)
  for _, c in ipairs(cols) do
    if newj[c] then
      parts[#parts + 1] = nt
      parts[#parts + 1] = newj[c]
    else
      parts[#parts + 1] = self._t
      parts[#parts + 1] = pos[c]
    end
  end
  return wrap(cols, core.tab_compose(parts, n))
end
methods.assign = methods.mutate

-- Key of a row for join: the values of `on`, missing values equal.
local function join_key(r, on)
  local vals = { n = #on }
  for i, c in ipairs(on) do vals[i] = r[c] end
  return group_key(vals)
end

--- Join two frames on columns (pandas' merge):
--   a:join(b, "event_name")                        inner join
--   a:join(b, {"event_block_name", "event_name"}, {how = "left", suffixes = {"_a", "_b"}})
-- how: "inner" (rows with a key in both, grouped by key: keys in a's
-- first-seen order, a's rows in order, each with b's matches in order),
-- "left" (every row of a, in order; NaN where b has no match), "right"
-- (every row of b, in order), "outer" (keys in first-seen order: a's,
-- then b's others; each key's rows as in "inner", or alone with NaN).
-- Missing keys match each other, as in pandas.  Columns: a's, then b's
-- other columns; a non-key name in both gets the suffixes (default
-- {"_x", "_y"}).
-- @treturn Frame
-- @raise a key column missing from either frame, unknown options
function methods.join(self, other, on, opts)
  check(self, "Frame:join")
  if not Frame.is_frame(other) then
    error("Frame:join: bad argument #1 (Frame expected, got " .. type(other) .. ")", 2)
  end
  if type(on) == "string" then on = { on } end
  if type(on) ~= "table" or #on == 0 then
    error("Frame:join: bad argument #2 (key column name or sequence of names expected)", 2)
  end
  on = names_arg("Frame:join", on)
  core.check_options("Frame:join", opts, { how = "string", suffixes = "table" }, 3)
  opts = opts or {}
  local how = opts.how or "inner"
  if how ~= "inner" and how ~= "left" and how ~= "right" and how ~= "outer" then
    error("Frame:join: how must be 'inner', 'left', 'right' or 'outer', got '" .. how .. "'", 2)
  end
  local sx, sy = "_x", "_y"
  if opts.suffixes then
    sx, sy = opts.suffixes[1], opts.suffixes[2]
    if type(sx) ~= "string" or type(sy) ~= "string" then
      error("Frame:join: suffixes must be two strings, e.g. {\"_x\", \"_y\"}", 2)
    end
  end
  for _, c in ipairs(on) do
    need_column(self, "Frame:join (left frame)", c)
    need_column(other, "Frame:join (right frame)", c)
  end
  local is_key = {}
  for _, c in ipairs(on) do is_key[c] = true end
  local lnames, rnames = {}, {}
  for _, c in ipairs(self._columns) do lnames[c] = true end
  for _, c in ipairs(other._columns) do rnames[c] = true end
  local cols, lmap, rmap = {}, {}, {}
  for _, c in ipairs(self._columns) do
    local out = c
    if not is_key[c] and rnames[c] then out = c .. sx end
    lmap[#lmap + 1] = { c, out }
    cols[#cols + 1] = out
  end
  for _, c in ipairs(other._columns) do
    if not is_key[c] then
      local out = lnames[c] and c .. sy or c
      rmap[#rmap + 1] = { c, out }
      cols[#cols + 1] = out
    end
  end
  local L, R, K = self._t:join(js_of(self, on), other._t, js_of(other, on),
    ({ inner = 0, left = 1, right = 2, outer = 3 })[how])
  if L then -- in C: every key pair of one kind (numbers of both kinds for inner and left)
    local lpos, rpos, kpos, parts = positions(self), positions(other), {}, {}
    for i, c in ipairs(on) do kpos[c] = i end
    for _, m in ipairs(lmap) do
      if K and is_key[m[1]] then
        parts[#parts + 1] = K
        parts[#parts + 1] = kpos[m[1]]
      else
        parts[#parts + 1] = L
        parts[#parts + 1] = lpos[m[1]]
      end
    end
    for _, m in ipairs(rmap) do
      parts[#parts + 1] = R
      parts[#parts + 1] = rpos[m[1]]
    end
    return wrap(cols, core.tab_compose(parts, L:nrows()))
  end
  -- keys of Lua objects or of mixed kinds: in Lua over rows
  local NaN = 0 / 0
  local function row_of(l, r)
    local nr = {}
    for _, m in ipairs(lmap) do
      if l then nr[m[2]] = l[m[1]] else nr[m[2]] = is_key[m[1]] and r[m[1]] or NaN end
    end
    for _, m in ipairs(rmap) do
      if r then nr[m[2]] = r[m[1]] else nr[m[2]] = NaN end
    end
    for _, c in ipairs(on) do
      if nr[c] == nil and not l and r then nr[c] = r[c] end
    end
    return nr
  end
  local lrows, rrows = rows_of(self), rows_of(other)
  local function index(frows)
    local idx, order = {}, {}
    for _, r in ipairs(frows) do
      local k = join_key(r, on)
      if not idx[k] then idx[k] = {}; order[#order + 1] = k end
      table.insert(idx[k], r)
    end
    return idx, order
  end
  local lidx, lorder = index(lrows)
  local ridx, rorder = index(rrows)
  local rows = {}
  if how == "inner" then -- grouped by key, keys in the left's first-seen order (as pandas)
    for _, k in ipairs(lorder) do
      local ms = ridx[k]
      if ms then
        for _, l in ipairs(lidx[k]) do
          for _, r in ipairs(ms) do rows[#rows + 1] = row_of(l, r) end
        end
      end
    end
  elseif how == "left" then
    for _, l in ipairs(lrows) do
      local ms = ridx[join_key(l, on)]
      if ms then
        for _, r in ipairs(ms) do rows[#rows + 1] = row_of(l, r) end
      else
        rows[#rows + 1] = row_of(l, nil)
      end
    end
  elseif how == "right" then
    for _, r in ipairs(rrows) do
      local ms = lidx[join_key(r, on)]
      if ms then
        for _, l in ipairs(ms) do rows[#rows + 1] = row_of(l, r) end
      else
        rows[#rows + 1] = row_of(nil, r)
      end
    end
  else -- outer: keys in first-seen order, a's then b's others (pandas 1.5's sort=False)
    local keys, seen = {}, {}
    for _, k in ipairs(lorder) do keys[#keys + 1] = k; seen[k] = true end
    for _, k in ipairs(rorder) do
      if not seen[k] then keys[#keys + 1] = k; seen[k] = true end
    end
    for _, k in ipairs(keys) do
      local ls, rs = lidx[k], ridx[k]
      if ls and rs then
        for _, l in ipairs(ls) do
          for _, r in ipairs(rs) do rows[#rows + 1] = row_of(l, r) end
        end
      elseif ls then
        for _, l in ipairs(ls) do rows[#rows + 1] = row_of(l, nil) end
      else
        for _, r in ipairs(rs) do rows[#rows + 1] = row_of(nil, r) end
      end
    end
  end
  return new(cols, rows)
end
methods.merge = methods.join

-- ---------------------------------------------------------------- rendering

-- The start of pyrepr.cell(v) for a plain sequence v, long enough to be cut
-- to `maxw` characters as the whole text would be (at most 4 bytes a
-- character): a 500-element list in a cell shown 50 characters wide formats
-- a few elements, not 500.  nil when v is anything else (or short).
local function sequence_prefix(v, maxw)
  if type(v) ~= "table" or getmetatable(v) ~= nil then return nil end
  local n = #v
  if n < 8 then return nil end
  for k in pairs(v) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return nil end
  end
  local budget, used, parts = 4 * maxw + 8, 1, {}
  for i = 1, n do
    local x = v[i]
    if type(x) == "table" then return nil end -- nested: formatted whole
    parts[i] = pyrepr.repr(x)
    used = used + #parts[i] + 2
    if used > budget then return "[" .. table.concat(parts, ", ") end
  end
  return nil
end

-- A cell as the C writers take it, cut to `maxw` characters (0: no limit).
local function shown_cell(v, maxw)
  v = (maxw and maxw > 0 and sequence_prefix(v, maxw)) or pyrepr.cell(v)
  if maxw and maxw > 0 and type(v) == "string" then
    local n = utf8.len(v) or #v
    if n > maxw then
      local keep = math.max(maxw - 3, 0)
      if utf8.len(v) then
        v = v:sub(1, (utf8.offset(v, keep + 1) or (#v + 1)) - 1) .. "..."
      else
        v = v:sub(1, keep) .. "..."
      end
      if maxw < 3 then v = v:sub(1, maxw) end
    end
  end
  return v
end

-- A cell's text; `pandas` (the "plain" style, pandas' own layout) shows a
-- float as pandas does - a whole number keeps its ".0", NaN is "NaN" -
-- where "markdown" (pandas' to_markdown: tabulate) keeps format "g".
local function display_text(v, pandas)
  if v == nil then return "" end
  if type(v) == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    if pandas and v ~= v then return "NaN" end
    local g = core.g(v)
    if pandas and not g:find("[.eninf]") then g = g .. ".0" end
    return g
  end
  if type(v) == "boolean" then return v and "True" or "False" end
  return core.shown(pyrepr.str(v)) -- control characters escaped (base/shown.h)
end

local ELLIPSIS = {} -- marks the "..." row and column of a truncated view

-- "plain" and "markdown": aligned text, numbers right-aligned.
-- view: {cols = names (ELLIPSIS for the "..." column), rows = row tables
-- (ELLIPSIS for the "..." row), maxw = max_colwidth}
local function render_simple(view, style)
  local cols, vrows = view.cols, view.rows
  local numeric, width, cells = {}, {}, {}
  local heads = {}
  for j, c in ipairs(cols) do
    heads[j] = c == ELLIPSIS and "..." or c
    numeric[j] = c ~= ELLIPSIS and #vrows > 0
    width[j] = utf8.len(heads[j]) or #heads[j]
    if c ~= ELLIPSIS then
      local any = false
      for _, r in ipairs(vrows) do
        if r ~= ELLIPSIS then
          local v = r[c]
          if v ~= nil then any = true end
          if v ~= nil and type(v) ~= "number" then numeric[j] = false end
        end
      end
      if not any then numeric[j] = numeric[j] and #vrows > 0 end
    end
  end
  for i, r in ipairs(vrows) do
    cells[i] = {}
    for j, c in ipairs(cols) do
      local s
      if r == ELLIPSIS or c == ELLIPSIS then
        s = "..."
      else
        s = display_text(shown_cell(r[c], view.maxw), style == "plain")
      end
      cells[i][j] = s
      local w = utf8.len(s) or #s
      if w > width[j] then width[j] = w end
    end
  end
  local function pad(s, j)
    local n = width[j] - (utf8.len(s) or #s)
    if numeric[j] then return string.rep(" ", n) .. s end
    return s .. string.rep(" ", n)
  end
  local lines = {}
  local sep = style == "markdown" and " | " or "  "
  local l, rr = style == "markdown" and "| " or "", style == "markdown" and " |" or ""
  local head = {}
  for j = 1, #cols do head[j] = pad(heads[j], j) end
  lines[#lines + 1] = l .. table.concat(head, sep) .. rr
  if style == "markdown" then
    -- one cell per column, as wide as its padded cells; ':' marks right alignment
    local rule = {}
    for j = 1, #cols do
      rule[j] = numeric[j] and string.rep("-", width[j] + 1) .. ":" or string.rep("-", width[j] + 2)
    end
    lines[#lines + 1] = "|" .. table.concat(rule, "|") .. "|"
  end
  for i = 1, #cells do
    local row = {}
    for j = 1, #cols do row[j] = pad(cells[i][j], j) end
    lines[#lines + 1] = l .. table.concat(row, sep) .. rr
  end
  return table.concat(lines, "\n") .. "\n", width
end

-- "box": the C grid writer (tabulate's fancy_grid), over a view.
local function render_box(view)
  local names, rows, labels, ell = {}, {}, {}, nil
  for j, c in ipairs(view.cols) do names[j] = c == ELLIPSIS and "..." or c end
  for i, r in ipairs(view.rows) do
    local out = {}
    if r == ELLIPSIS then
      ell = i
      labels[i] = 0
    else
      for j, c in ipairs(view.cols) do
        out[j] = c == ELLIPSIS and "..." or shown_cell(r[c], view.maxw)
      end
      labels[i] = view.labels[i]
    end
    rows[i] = out
  end
  return core.render("grid", names, rows, { labels = labels, ellipsis = ell })
end

local function widest_line(text)
  local w = 0
  for line in text:gmatch("[^\n]*") do
    local n = utf8.len(line) or #line
    if n > w then w = n end
  end
  return w
end

-- The text of a display: rows and columns cut to the limits (options.limits).
local function display(self, style, lim)
  local n = self._t:nrows()
  local t, names = self._t, self._columns
  local vrows, labels = {}, {}
  local truncated = false
  if lim.max_rows > 0 and n > lim.max_rows then
    local k = lim.max_rows
    if lim.min_rows > 0 then k = math.min(lim.min_rows, lim.max_rows) end
    local half = k // 2
    for i = 1, half do vrows[#vrows + 1] = t:row(i, names); labels[#labels + 1] = i - 1 end
    vrows[#vrows + 1] = ELLIPSIS
    labels[#labels + 1] = 0
    for i = n - half + 1, n do vrows[#vrows + 1] = t:row(i, names); labels[#labels + 1] = i - 1 end
    truncated = true
  else
    vrows = rows_of(self)
    for i = 1, n do labels[i] = i - 1 end
  end
  local function render_cols(cols)
    local view = { cols = cols, rows = vrows, labels = labels, maxw = lim.max_colwidth }
    if style == "box" then return render_box(view) end
    return render_simple(view, style)
  end
  local all = self._columns
  local text = render_cols(all)
  local shown = #all
  -- the columns shown, by index in `all`; an "..." column stands where
  -- columns are left out
  local function cols_of(keep)
    local cols, gap = {}, false
    for k = 1, #all do
      if keep[k] then
        cols[#cols + 1] = all[k]
        gap = false
      elseif not gap then
        cols[#cols + 1] = ELLIPSIS
        gap = true
      end
    end
    return cols
  end
  if lim.width > 0 and #all > 1 and widest_line(text) > lim.width then
    -- Which columns go first: those of lists and dicts (raw, start_time,
    -- debug_data), then the other columns that are neither the leading
    -- label columns (strings; an index such as block_index among them goes
    -- here too) nor numbers; then, when there are labels,
    -- the numbers from the right (the statistics nearest the names stay);
    -- what is left is cut as pandas cuts (the middle).
    local kind, label = {}, {}
    local leading, nlabels = true, 0
    for k, c in ipairs(all) do
      local has_table, all_num, all_str, any = false, true, true, false
      for _, r in ipairs(vrows) do
        if r ~= ELLIPSIS then
          local v = r[c]
          if v ~= nil then
            any = true
            local tv = type(v)
            if tv == "table" or tv == "userdata" then has_table = true end
            if tv ~= "number" then all_num = false end
            if tv ~= "string" then all_str = false end
          end
        end
      end
      if has_table then kind[k] = 0
      elseif any and all_num and leading and type(c) == "string" and c:find("_index$") then
        kind[k], label[k] = 1, true -- block_index among the names: cut before
                                    -- the statistics, without ending the names
      elseif any and all_num then kind[k] = 2
      elseif any and all_str and leading then kind[k], label[k] = 2, true; nlabels = nlabels + 1
      else kind[k] = 1 end
      leading = leading and label[k] == true
    end
    if nlabels > 0 then -- the numbers go before the labels
      for k = 1, #all do if kind[k] == 2 and not label[k] then kind[k] = 1.5 end end
    end
    local keep, nkeep = {}, #all
    for k = 1, #all do keep[k] = true end
    local fits = false
    for _, tier in ipairs({ 0, 1, 1.5 }) do
      for k = #all, 1, -1 do
        if not fits and kind[k] == tier and nkeep > 1 then
          keep[k], nkeep = false, nkeep - 1
          text = render_cols(cols_of(keep))
          fits = widest_line(text) <= lim.width
        end
      end
    end
    shown = nkeep
    if not fits and nkeep > 1 then
      local base = {} -- the columns left, cut in their middle as pandas cuts
      for k = 1, #all do if keep[k] then base[#base + 1] = k end end
      local bcols = {}
      for i, k in ipairs(base) do bcols[i] = all[k] end
      local full, pwidths = render_cols(bcols)
      -- each column's width in the full rendering (the top line's segments)
      local seg = {}
      local first = full:match("^[^\n]*")
      if style == "box" then
        for part in (first:gsub("^\u{2552}", ""):gsub("\u{2555}$", "") .. "\u{2564}"):gmatch("(.-)\u{2564}") do
          seg[#seg + 1] = (utf8.len(part) or #part) + 1 -- the segment and its joint
        end
        -- seg[1] is the index column
      end
      if style == "plain" and pwidths then
        seg[1] = 0
        for j = 1, #base do seg[j + 1] = pwidths[j] + 2 end -- the column and its separator
      end
      local function colw(j) return seg[j + 1] or 0 end
      local fixed = style == "box" and (1 + (seg[1] or 0) + 6) or 3 -- borders, index, "..."
      local function total(L, R)
        local w = fixed
        for _, j in ipairs(L) do w = w + colw(j) end
        for _, j in ipairs(R) do w = w + colw(j) end
        return w
      end
      local L, R = {}, {}
      if #seg == #base + 1 then
        local i, j, left_turn = 1, #base, true
        while i <= j do
          local took = false
          for _, side in ipairs(left_turn and { "L", "R" } or { "R", "L" }) do
            if side == "L" then
              L[#L + 1] = i
              if total(L, R) <= lim.width then i = i + 1; took = true; break end
              L[#L] = nil
            else
              table.insert(R, 1, j)
              if total(L, R) <= lim.width then j = j - 1; took = true; break end
              table.remove(R, 1)
            end
          end
          if not took then break end
          left_turn = not left_turn
        end
        if #L + #R == 0 then L[1] = 1 end
      else
        local nk = #base - 1
        local left = (nk + 1) // 2
        for k = 1, left do L[#L + 1] = k end
        for k = #base - (nk - left) + 1, #base do R[#R + 1] = k end
      end
      -- render, then drop middle columns while still too wide
      while true do
        local chosen = {}
        for _, k in ipairs(L) do chosen[base[k]] = true end
        for _, k in ipairs(R) do chosen[base[k]] = true end
        text = render_cols(cols_of(chosen))
        shown = #L + #R
        if widest_line(text) <= lim.width or shown <= 1 then break end
        if #L >= #R then L[#L] = nil else table.remove(R, 1) end
      end
    end
  end
  if truncated or shown < #all then
    text = text .. string.format("\n[%d rows x %d columns]\n", n, #all)
  end
  return text
end

local function csv_field(v)
  if v == nil or (type(v) == "number" and v ~= v) then return "" end
  local s
  if type(v) == "number" then
    s = math.type(v) == "integer" and string.format("%d", v) or core.repr(v)
  elseif type(v) == "boolean" then
    s = v and "True" or "False"
  else
    s = pyrepr.str(v)
  end
  if s:find('[,"\n\r]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

local json_escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

-- A JSON string literal of s, escaped as the command line's --json
-- escapes (src/core/base/strbuf.c et_sb_add_json_str): '"', '\\', \n,
-- \r, \t and the other control bytes (\u00XX); a byte that does not
-- begin valid UTF-8 becomes \ufffd, so the text is always valid JSON.
local function json_string(s)
  s = s:gsub('[\0-\31"\\]', function(c)
    return json_escapes[c] or string.format("\\u%04x", c:byte())
  end)
  if utf8.len(s) then return '"' .. s .. '"' end
  local parts, i = {}, 1
  while true do
    local n, bad = utf8.len(s, i)
    if n then break end
    parts[#parts + 1] = s:sub(i, bad - 1)
    parts[#parts + 1] = "\\ufffd"
    i = bad + 1
  end
  parts[#parts + 1] = s:sub(i)
  return '"' .. table.concat(parts) .. '"'
end
local function json(v)
  local t = type(v)
  if v == nil then return "null" end
  if t == "boolean" then return v and "true" or "false" end
  if t == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    return core.repr(v)
  end
  if t == "string" then return json_string(v) end
  if t == "table" then
    if Frame.is_frame(v) then return json(rows_of(v)) end
    local vmt = getmetatable(v)
    if vmt and vmt.__order then -- an ordered dict (Python's dict): its order, None kept
      local parts = {}
      for i, k in ipairs(vmt.__order) do parts[i] = json(tostring(k)) .. ": " .. json(v[k]) end
      return "{" .. table.concat(parts, ", ") .. "}"
    end
    local n = #v
    local seq = true
    for k in pairs(v) do
      if math.type(k) ~= "integer" or k < 1 or k > n then seq = false; break end
    end
    local parts = {}
    if seq then
      for i = 1, n do parts[i] = json(v[i]) end
      return "[" .. table.concat(parts, ", ") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    for i, k in ipairs(keys) do parts[i] = json(k) .. ": " .. json(v[k] == nil and v[tonumber(k)] or v[k]) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return json(tostring(v))
end
Frame.json = json

-- pandas' to_csv: a header line, then one line per row; `index`: the
-- row labels (0-based) first, under an empty header.
local function csv_text(self, index)
  local h = {}
  for j, c in ipairs(self._columns) do h[j] = csv_field(c) end
  -- no column: "" with the index, an empty header without (as pandas)
  local lines = { #h == 0 and (index and '""' or "") or ((index and "," or "") .. table.concat(h, ",")) }
  for i, r in ipairs(rows_of(self)) do
    local f = {}
    if index then f[1] = tostring(i - 1) end
    for _, c in ipairs(self._columns) do f[#f + 1] = csv_field(r[c]) end
    lines[#lines + 1] = table.concat(f, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end

-- pandas' to_csv(sep="\t") (the C writer); `index`: the row labels
-- (0-based) first, under an empty header.
local function tsv_text(self, index)
  local rows = {}
  for i, r in ipairs(rows_of(self)) do
    local out = {}
    for j, c in ipairs(self._columns) do out[j] = pyrepr.cell(r[c]) end
    rows[i] = out
  end
  return core.render("tsv", self._columns, rows, not index and { index = false } or nil)
end

local STYLES = "box, plain, markdown, tsv, csv, json"
local LIMIT_OPTS = { max_rows = "integer", min_rows = "integer", max_colwidth = "integer", width = "integer" }

--- Render the frame as text.
--   frame:render(style)          everything (pandas' to_string)
--   frame:render(style, {})      cut to the display options (as tostring and print)
--   frame:render(style, {max_rows = 20, max_colwidth = 30, width = 120})
-- @tparam string style "box" (the reference's print_data_tabular: tabulate
--   fancy_grid), "plain", "markdown", "tsv" (pandas to_csv, sep "\t"),
--   "csv" (pandas to_csv) or "json" (a list of row objects); the document
--   styles (markdown, as pandas' to_markdown, tsv, csv, json) are never cut
-- @tparam[opt] table limits max_rows, min_rows, max_colwidth, width
--   (integers, 0: no limit), overriding the display options
-- @treturn string
function methods.render(self, style, limits)
  check(self, "Frame:render")
  style = style or "box"
  core.check_options("Frame:render", limits, LIMIT_OPTS, 2)
  if style == "box" or style == "plain" or style == "markdown" then
    if limits == nil or style == "markdown" then
      if style == "box" then
        local rows = {}
        for i, r in ipairs(rows_of(self)) do
          local out = {}
          for j, c in ipairs(self._columns) do out[j] = pyrepr.cell(r[c]) end
          rows[i] = out
        end
        return core.render("grid", self._columns, rows)
      end
      return (render_simple({ cols = self._columns, rows = rows_of(self) }, style))
    end
    for k, v in pairs(limits) do
      if v < 0 then error("Frame:render: " .. k .. " must be >= 0 (0: no limit)", 2) end
    end
    return display(self, style, options.limits(limits))
  end
  if style == "tsv" then return tsv_text(self, true) end
  if style == "csv" then return csv_text(self, true) end
  if style == "json" then
    local parts = {}
    for i, r in ipairs(rows_of(self)) do
      local fields = {}
      for j, c in ipairs(self._columns) do fields[j] = json(c) .. ": " .. json(r[c]) end
      parts[i] = "{" .. table.concat(fields, ", ") .. "}"
    end
    return "[" .. table.concat(parts, ",\n ") .. "]\n"
  end
  error("Frame:render: unknown style '" .. tostring(style) .. "' (" .. STYLES .. ")", 2)
end

--- Everything, never cut (pandas' to_string): frame:render(style or "box").
function methods.to_string(self, style)
  check(self, "Frame:to_string")
  if style ~= nil and type(style) ~= "string" then
    error("Frame:to_string: bad argument #1 (style name expected, got " .. type(style) .. ")", 2)
  end
  return methods.render(self, style or "box")
end

--- Write text to a path (through a temporary file, renamed into place; a
-- FIFO, terminal or /dev/null is written directly; a symbolic link keeps
-- naming the replaced file) or to an open file; with no destination,
-- return the text.
-- @tparam string text
-- @param dest a path, an open file, or nil
-- @tparam[opt] {string,...} inputs paths that must not be overwritten
-- @tparam[opt] string where the method, for the error of a wrong dest
-- @return the text when dest is nil
-- @raise "PATH: refusing to overwrite an input file with output", the
--   file's I/O errors, "<where>: bad argument #1 (a path or an open file
--   expected, got number)"
local function emit(text, dest, inputs, where)
  if dest == nil then return text end
  if rawequal(dest, io.stdout) then -- as the library's other prints (the REPL pages it)
    core.write_to(dest, where or "Frame:print", text)
    return nil
  end
  if io.type(dest) == "file" or (type(dest) == "table" and type(dest.write) == "function") then
    assert(dest:write(text))
    return nil
  end
  if type(dest) ~= "string" then
    error((where or "Frame.emit") .. ": bad argument #1 (a path or an open file expected, got "
          .. (io.type(dest) == "closed file" and "closed file" or type(dest)) .. ")", 3)
  end
  -- a temporary file beside dest, then rename (src/core/files/outfile.h)
  local ok, err = pcall(core.write_file, dest, text, inputs)
  if not ok then error(err, 3) end
end
Frame.emit = emit

local PRINT_OPTS = { style = "string", file = "file", max_rows = "integer", min_rows = "integer",
                     max_colwidth = "integer", width = "integer" }

--- Print the frame: frame:print{style="box"|"plain"|"markdown"|"tsv"|"csv"|"json",
-- file=io.stdout, max_rows=, min_rows=, max_colwidth=, width=}.  The
-- terminal styles (box, plain) are cut to the display options (overridden
-- by the limits given; 0: no limit); markdown, tsv, csv and json are
-- written whole.
function methods.print(self, opts)
  check(self, "Frame:print")
  core.check_options("Frame:print", opts, PRINT_OPTS, 1)
  opts = opts or {}
  local f = opts.file or io.stdout
  local style = opts.style or "box"
  if style == "tsv" or style == "csv" or style == "json" or style == "markdown" then
    f:write(self:render(style))
  else
    f:write(self:render(style, { max_rows = opts.max_rows, min_rows = opts.min_rows,
                                 max_colwidth = opts.max_colwidth, width = opts.width }))
  end
end

--- frame:to_tsv([path_or_file [, {index = true}]]) -> nil, or the text
-- when no destination; index = false leaves out the row labels (pandas'
-- to_csv(sep="\t", index=False)).
-- @raise an unknown option key, index not a boolean, a wrong destination
function methods.to_tsv(self, dest, opts)
  check(self, "Frame:to_tsv")
  core.check_options("Frame:to_tsv", opts, { index = "boolean" }, 2)
  return emit(tsv_text(self, not (opts and opts.index == false)), dest, nil, "Frame:to_tsv")
end
--- frame:to_csv([path_or_file [, {index = true}]]) -> nil, or the text
-- when no destination; index = false leaves out the row labels (pandas'
-- to_csv(index=False)).
function methods.to_csv(self, dest, opts)
  check(self, "Frame:to_csv")
  core.check_options("Frame:to_csv", opts, { index = "boolean" }, 2)
  return emit(csv_text(self, not (opts and opts.index == false)), dest, nil, "Frame:to_csv")
end
--- frame:to_json([path_or_file]) -> nil, or the text when no destination.
function methods.to_json(self, dest) check(self, "Frame:to_json"); return emit(self:render("json"), dest, nil, "Frame:to_json") end

--- The rows where a pandas query expression holds (lua/etinspect/query.lua):
--   df:query("`p50 (ms)` > 0.1 and event_name != 'OPERATOR_CALL'")
--   df:query("is_delegated_op and event_name in @names", {names = {"a", "b"}})
-- Evaluated with Series operations (no Lua call per row).
-- @tparam string expr
-- @tparam[opt] table vars values of @name
-- @treturn Frame
-- @raise syntax errors naming the position and token, an unknown column
function methods.query(self, expr, vars)
  check(self, "Frame:query")
  return require("etinspect.query").query(self, expr, vars)
end

-- ---------------------------------------------------------------- contracts

-- The error of a call from the user's code: an error raised inside this
-- library at a position in it ("[etinspect] etinspect.frame:737: ...") is
-- given the position of the user's call instead; other errors (a callback's
-- own, with its position; a table) pass unchanged.
local function rethrow(e)
  if e == "not enough memory" then error(e, 0) end -- a memory error, as Lua gave it
  if type(e) == "string" then
    local rest = e:match("^%[etinspect%] [%w_.]+:%d+: (.*)$")
    if rest then error(rest, 3) end
    if not e:find("^[^\n]-:%d+: ") then error(e, 3) end -- no position: the user's call's
  end
  error(e, 0)
end

-- `f` as a public function `where` that takes at most `max` arguments
-- after self (nil: any number) and whose errors point at the caller.
local function public(where, max, f)
  return function(self, ...)
    local n = select("#", ...)
    if max and n > max then
      error(string.format("%s: too many arguments (%d given, at most %d accepted)", where, n, max), 2)
    end
    local r = table.pack(pcall(f, self, ...))
    if not r[1] then rethrow(r[2]) end
    return table.unpack(r, 2, r.n)
  end
end

-- Arguments each method takes after self (nil: varargs, checked by the method).
local ARITY = {
  rows = 0, column = 1, filter = 1, select = false, drop = false, head = 1, tail = 1, sort = false,
  group_by = false, unique = 1, value_counts = 2, describe = 1, rename = 1, mutate = 1, assign = 1,
  join = 3, merge = 3, query = 2,
  render = 2, to_string = 1, print = 1, to_tsv = 2, to_csv = 2, to_json = 1,
}
for name, max in pairs(ARITY) do
  assert(methods[name], name)
  methods[name] = public("Frame:" .. name, max or nil, methods[name])
end
for name, f in pairs(gmethods) do
  gmethods[name] = public("GroupBy:" .. name, (name == "agg" or name == "aggregate" or name == "quantile") and 1 or 0, f)
end
for name, f in pairs(column_methods) do
  column_methods[name] = public("column:" .. name, name == "quantile" and 1 or 0, f)
end
core.series_extend(column_methods) -- a Series has them too
do
  local new_frame, quantile = Frame.new, Frame.quantile
  Frame.new = public("Frame.new", 1, new_frame) -- (columns, rows)
  Frame.from_columns = public("Frame.from_columns", 1, Frame.from_columns) -- (spec, order)
  Frame.concat = public("Frame.concat", 0, Frame.concat) -- (frames)
  Frame.quantile = function(...)
    if select("#", ...) > 1 then error("Frame.quantile: too many arguments (at most 1 accepted)", 2) end
    return quantile(...)
  end
end

return Frame
