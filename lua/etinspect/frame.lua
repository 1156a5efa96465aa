--- etinspect.frame: Frame, the stand-in for the pandas DataFrame that the
-- reference Inspector returns.
--
-- A Frame is a sequence of rows over named columns:
--   frame.columns         sequence of column names (in order)
--   #frame                number of rows
--   frame[i]              row i: a table keyed by column name
-- Cells are Lua values. As in pandas, a missing statistic in a column of
-- numbers is NaN (test with `x ~= x`); other missing cells are nil.
-- Frames are never modified in place: every method returns a new Frame
-- sharing the row tables.
local pyrepr = require("etinspect.pyrepr")
local core = require("etinspect")._core

local Frame = {}
local methods = {}
Frame.methods = methods

local mt = {
  __name = "Frame",
  __len = function(self) return #self._rows end,
  __index = function(self, k)
    if math.type(k) == "integer" then return self._rows[k] end
    if k == "columns" then return self._columns end
    return methods[k]
  end,
  __tostring = function(self) return self:render("box") end,
}

--- Make a Frame.
-- @tparam {string,...} columns column names, in order
-- @tparam[opt] {table,...} rows rows keyed by column name (not copied)
-- @treturn Frame
function Frame.new(columns, rows)
  assert(type(columns) == "table", "Frame.new: columns must be a sequence of names")
  local cols = {}
  for i, c in ipairs(columns) do cols[i] = c end
  return setmetatable({ _columns = cols, _rows = rows or {} }, mt)
end

--- Is `v` a Frame?
function Frame.is_frame(v) return getmetatable(v) == mt end

local function check(self)
  if getmetatable(self) ~= mt then error("expected a Frame (use frame:method())", 3) end
end

--- Iterate rows: `for i, row in frame:rows() do ... end`.
function methods.rows(self)
  check(self)
  return ipairs(self._rows)
end

--- Values of one column, in row order (a sequence with field n = #frame,
-- since missing cells are nil).
-- @tparam string name
function methods.column(self, name)
  check(self)
  local out = { n = #self._rows }
  for i, r in ipairs(self._rows) do out[i] = r[name] end
  return out
end

--- Rows for which `fn(row, i)` is true.
-- @tparam function fn
-- @treturn Frame
function methods.filter(self, fn)
  check(self)
  local out = {}
  for i, r in ipairs(self._rows) do
    if fn(r, i) then out[#out + 1] = r end
  end
  return Frame.new(self._columns, out)
end

--- Keep some columns, in the given order: frame:select{"a", "b"} or
-- frame:select("a", "b").  Errors on an unknown column.
-- @treturn Frame
function methods.select(self, cols, ...)
  check(self)
  if type(cols) ~= "table" then cols = { cols, ... } end
  local known = {}
  for _, c in ipairs(self._columns) do known[c] = true end
  local rows = {}
  for _, c in ipairs(cols) do
    if not known[c] then error("select: no column '" .. tostring(c) .. "'", 2) end
  end
  for i, r in ipairs(self._rows) do
    local nr = {}
    for _, c in ipairs(cols) do nr[c] = r[c] end
    rows[i] = nr
  end
  return Frame.new(cols, rows)
end

local function missing(v) return v == nil or v ~= v end

--- Sort by a column (stable; missing values last), ascending unless `desc`.
-- Numbers compare numerically, everything else by its text.
-- @tparam string col
-- @tparam[opt] boolean desc
-- @treturn Frame
function methods.sort(self, col, desc)
  check(self)
  local idx = {}
  for i = 1, #self._rows do idx[i] = i end
  local rows = self._rows
  local function key(v) return type(v) == "number" and v or tostring(v) end
  table.sort(idx, function(a, b)
    local va, vb = rows[a][col], rows[b][col]
    local ma, mb = missing(va), missing(vb)
    if ma or mb then
      if ma and mb then return a < b end
      return mb
    end
    local ka, kb = key(va), key(vb)
    if type(ka) ~= type(kb) then ka, kb = tostring(ka), tostring(kb) end
    if ka == kb then return a < b end
    if desc then return ka > kb end
    return ka < kb
  end)
  local out = {}
  for i, j in ipairs(idx) do out[i] = rows[j] end
  return Frame.new(self._columns, out)
end

--- The first n rows (default 5).
function methods.head(self, n)
  check(self)
  n = n or 5
  local out = {}
  for i = 1, math.min(n, #self._rows) do out[i] = self._rows[i] end
  return Frame.new(self._columns, out)
end

local aggregators = {
  count = function(v) local n = 0; for i = 1, v.n do if not missing(v[i]) then n = n + 1 end end; return n end,
  sum = function(v) local s = 0; for i = 1, v.n do if not missing(v[i]) then s = s + v[i] end end; return s end,
  mean = function(v)
    local s, n = 0, 0
    for i = 1, v.n do if not missing(v[i]) then s, n = s + v[i], n + 1 end end
    return n > 0 and s / n or 0 / 0
  end,
  min = function(v) local m; for i = 1, v.n do if not missing(v[i]) and (m == nil or v[i] < m) then m = v[i] end end; return m end,
  max = function(v) local m; for i = 1, v.n do if not missing(v[i]) and (m == nil or v[i] > m) then m = v[i] end end; return m end,
  first = function(v) return v[1] end,
  last = function(v) return v[v.n] end,
}
Frame.aggregators = aggregators

--- Group rows by the value of a column.  Returns a Groups object whose
-- :agg(spec) makes one row per group (groups in first-seen order):
--   groups:agg{ {"total", "avg (ms)", "sum"}, {"n", "event_name", "count"} }
--   groups:agg{ total = {"avg (ms)", "sum"} }      (map form: columns sorted)
-- An aggregator is "count", "sum", "mean", "min", "max", "first", "last" or
-- a function(values) -> value (values has field n).
-- @tparam string col
function methods.group_by(self, col)
  check(self)
  local order, groups = {}, {}
  for _, r in ipairs(self._rows) do
    local k = r[col]
    local gk = k == nil and "\0nil" or k
    if not groups[gk] then
      groups[gk] = { key = k, rows = {} }
      order[#order + 1] = gk
    end
    local g = groups[gk].rows
    g[#g + 1] = r
  end
  local G = {}
  function G.agg(_, spec)
    local specs = {}
    if spec[1] ~= nil then
      for _, s in ipairs(spec) do specs[#specs + 1] = s end
    else
      local names = {}
      for name in pairs(spec) do names[#names + 1] = name end
      table.sort(names)
      for _, name in ipairs(names) do
        specs[#specs + 1] = { name, spec[name][1], spec[name][2] }
      end
    end
    local cols, rows = { col }, {}
    for _, s in ipairs(specs) do cols[#cols + 1] = s[1] end
    for i, gk in ipairs(order) do
      local g = groups[gk]
      local row = { [col] = g.key }
      for _, s in ipairs(specs) do
        local f = type(s[3]) == "function" and s[3] or aggregators[s[3]]
        if not f then error("agg: unknown aggregator '" .. tostring(s[3]) .. "'", 2) end
        local vals = { n = #g.rows }
        for j, r in ipairs(g.rows) do vals[j] = r[s[2]] end
        row[s[1]] = f(vals)
      end
      rows[i] = row
    end
    return Frame.new(cols, rows)
  end
  function G.groups() return order, groups end
  return G
end

--- Cells of the frame as the C writers take them (rows of positional cells).
local function positional(self)
  local rows = {}
  for i, r in ipairs(self._rows) do
    local out = {}
    for j, c in ipairs(self._columns) do out[j] = pyrepr.cell(r[c]) end
    rows[i] = out
  end
  return rows
end

local function display_text(v)
  if v == nil then return "" end
  if type(v) == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    return core.g(v)
  end
  if type(v) == "boolean" then return v and "True" or "False" end
  return (pyrepr.str(v):gsub("[%c]", function(c)
    return c == "\n" and "\\n" or c == "\t" and "\\t" or string.format("\\x%02x", c:byte())
  end))
end

-- "plain" and "markdown": aligned text, numbers right-aligned.
local function render_simple(self, style)
  local cols = self._columns
  local numeric, width, cells = {}, {}, {}
  for j, c in ipairs(cols) do
    numeric[j] = #self._rows > 0
    width[j] = #c
    for _, r in ipairs(self._rows) do
      local v = r[c]
      if v ~= nil and type(v) ~= "number" then numeric[j] = false end
    end
  end
  for i, r in ipairs(self._rows) do
    cells[i] = {}
    for j, c in ipairs(cols) do
      local s = display_text(r[c])
      cells[i][j] = s
      if utf8.len(s) and utf8.len(s) > width[j] then width[j] = utf8.len(s) end
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
  for j, c in ipairs(cols) do head[j] = pad(c, j) end
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
  return table.concat(lines, "\n") .. "\n"
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
local function json(v)
  local t = type(v)
  if v == nil then return "null" end
  if t == "boolean" then return v and "true" or "false" end
  if t == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    return core.repr(v)
  end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      return json_escapes[c] or string.format("\\u%04x", c:byte())
    end) .. '"'
  end
  if t == "table" then
    if Frame.is_frame(v) then return json(v._rows) end
    local mt = getmetatable(v)
    if mt and mt.__order then -- an ordered dict (Python's dict): its order, None kept
      local parts = {}
      for i, k in ipairs(mt.__order) do parts[i] = json(tostring(k)) .. ": " .. json(v[k]) end
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

--- Render the frame as text.
-- @tparam string style "box" (the reference's print_data_tabular: tabulate
--   fancy_grid), "plain", "markdown", "tsv" (pandas to_csv, sep "\t"),
--   "csv" (pandas to_csv) or "json" (a list of row objects)
-- @treturn string
function methods.render(self, style)
  check(self)
  style = style or "box"
  if style == "box" then return core.render("grid", self._columns, positional(self)) end
  if style == "tsv" then return core.render("tsv", self._columns, positional(self)) end
  if style == "plain" or style == "markdown" then return render_simple(self, style) end
  if style == "csv" then
    local lines = { "," .. table.concat((function()
      local h = {}
      for j, c in ipairs(self._columns) do h[j] = csv_field(c) end
      return h
    end)(), ",") }
    for i, r in ipairs(self._rows) do
      local f = { tostring(i - 1) }
      for j, c in ipairs(self._columns) do f[j + 1] = csv_field(r[c]) end
      lines[#lines + 1] = table.concat(f, ",")
    end
    return table.concat(lines, "\n") .. "\n"
  end
  if style == "json" then
    local parts = {}
    for i, r in ipairs(self._rows) do
      local fields = {}
      for j, c in ipairs(self._columns) do fields[j] = json(c) .. ": " .. json(r[c]) end
      parts[i] = "{" .. table.concat(fields, ", ") .. "}"
    end
    return "[" .. table.concat(parts, ",\n ") .. "]\n"
  end
  error("render: unknown style '" .. tostring(style) .. "' (box, plain, markdown, tsv, csv, json)", 2)
end

--- Write text to a path (through a temporary file, renamed into place; a
-- FIFO, terminal or /dev/null is written directly; a symbolic link keeps
-- naming the replaced file) or to an open file; with no destination,
-- return the text.
-- @tparam string text
-- @param dest a path, an open file, or nil
-- @tparam[opt] {string,...} inputs paths that must not be overwritten
-- @return the text when dest is nil
-- @raise "PATH: refusing to overwrite an input file with output", the
--   file's I/O errors
local function emit(text, dest, inputs)
  if dest == nil then return text end
  if io.type(dest) == "file" then
    assert(dest:write(text))
    return nil
  end
  -- a temporary file beside dest, then rename (src/core/outfile.h)
  local ok, err = pcall(core.write_file, dest, text, inputs)
  if not ok then error(err, 3) end
end
Frame.emit = emit

--- Print the frame: frame:print{style="box"|"plain"|"markdown"|"tsv"|"csv"|"json",
-- file=io.stdout}.
function methods.print(self, opts)
  check(self)
  opts = opts or {}
  local f = opts.file or io.stdout
  f:write(self:render(opts.style or "box"))
end

--- frame:to_tsv([path_or_file]) -> nil, or the text when no destination.
function methods.to_tsv(self, dest) check(self); return emit(self:render("tsv"), dest) end
--- frame:to_csv([path_or_file]) -> nil, or the text when no destination.
function methods.to_csv(self, dest) check(self); return emit(self:render("csv"), dest) end
--- frame:to_json([path_or_file]) -> nil, or the text when no destination.
function methods.to_json(self, dest) check(self); return emit(self:render("json"), dest) end

return Frame
