--- etinspect.repl: the Lua half of the REPL (src/host/repl.c is the other):
-- its meta commands, how results are shown, and completion.
--
-- The host calls, each under lua_pcall:
--   repl.setup(host)            host = {input_kind=, assign_inputs=, list_dir=,
--                               write_stdout=}
--   repl.meta(line)             a line starting with "." -> "quit" or nil
--   repl.render(...)            the statement's results as text (etinspect.display)
--   repl.complete(line, cursor) -> candidates, start, append
--   repl.terminal(cols)         the terminal's width (display.width follows it)
--   repl.help_text(...)         ?x: the text of help(x) (etinspect.help)
--   repl.state                  {mode=, pager=, auto_width=}
--
-- setup also sets the global help (help(x): x's fields and methods from
-- docs/lua-api.md) and hands host.write_stdout to _core.set_stdout_writer.
--
-- Completion reads fields without running user code: raw table fields,
-- the chain of metatable __index tables, the fields and methods of
-- etinspect's own userdata (named by _core.members, read as the dispatch
-- reads them) and the columns and methods of Frames; it never calls
-- another __index function, and never makes a call: after one
-- (df:group_by("x"):) only the type of its result is known, from the
-- reference (see "what a call gives" below).
local display = require("etinspect.display")
local Frame = require("etinspect.frame")

local getmt, rawget, next, pcall, type = debug.getmetatable, rawget, next, pcall, type
local core = require("etinspect")._core
local members, peek = core.members, core.peek
local G = _ENV -- the globals, as they were when the REPL started

local R = {}
R.state = { mode = "plain", pager = true, auto_width = true }
local state = R.state
local host = {}

--- Meta commands, for .help and completion.
R.COMMANDS = {
  { ".open", "FILE...", "open inputs as `insp` (ETDump or legacy dump, with an ETRecord, BundledProgram\n" ..
                        "or debug buffer beside it; kinds told by content); several ETDumps as one\n" ..
                        "dataset `dumps` (etinspect.open_many); an ETRecord alone as `rec`" },
  { ".mode", "[STYLE]", "how frames print: " .. table.concat(display.STYLES, ", ") .. " (default plain)" },
  { ".set", "[NAME [VALUE]]", "display options: max_rows, min_rows, max_colwidth, width (a number, none, or auto)" },
  { ".sql", "QUERY", "an SQL query over `dumps` (else `insp`) in memory, shown as a Frame:\n" ..
                     "the SQLite export's tables (docs/sql.md), e.g. .sql SELECT count(*) FROM samples" },
  { ".pager", "[on|off]", "long output through $PAGER (default less), as psql does" },
  { ".help", "", "this text" },
  { ".quit", "", "leave (also .exit, Ctrl-D)" },
}
local OPTION_NAMES = { "max_rows", "min_rows", "max_colwidth", "width" }

--- help(x): the fields and methods of x, one line each, from
-- docs/lua-api.md (etinspect.help); help() says what it knows.
-- @treturn a display.text value (the REPL shows it as it is, paged when long)
function R.help(...)
  local width = display.get_option("display.width") or 80
  if select("#", ...) == 0 then
    return display.text("help(x) or ?x: the fields and methods of x, one line each, from docs/lua-api.md\n" ..
      "(man etinspect-lua): an Inspector, EventBlock, Event, PerfData, Dumps, ETRecord, Graph,\n" ..
      "Node, Frame, GroupBy, Series, Tensor, or the module etinspect.  .help: the meta commands.\n")
  end
  return display.text(require("etinspect.help").text((...), width))
end

--- ?x: the text of help(x) (help() without a value).
function R.help_text(...)
  return R.render(R.help(...))
end

--- Install the host's functions (C): input_kind(path), assign_inputs(files),
-- list_dir(path), write_stdout(text); and the global help (unless one is set).
function R.setup(h)
  host = h
  -- what calls print in C (insp:print_data_tabular(), frame:print()) is
  -- paged and stopped by Ctrl-C as values are
  if type(h.write_stdout) == "function" then core.set_stdout_writer(h.write_stdout) end
  if rawget(G, "help") == nil then rawset(G, "help", R.help) end
  return R
end

--- Render the results of a statement in the current mode.
function R.render(...)
  return display.render(state.mode, ...)
end

---------------------------------------------------------------------------
-- meta commands

-- Split a command line's arguments as a shell does: blanks separate, '...'
-- and "..." quote, a backslash escapes (outside '...'), a leading ~/ is
-- $HOME/.
local function words(s)
  local out, cur, i, q = {}, nil, 1, nil
  while i <= #s do
    local c = s:sub(i, i)
    if q then
      if c == q then q = nil
      elseif c == "\\" and q == '"' and i < #s then i = i + 1; cur = cur .. s:sub(i, i)
      else cur = cur .. c end
    elseif c == "'" or c == '"' then q = c; cur = cur or ""
    elseif c == "\\" and i < #s then i = i + 1; cur = (cur or "") .. s:sub(i, i)
    elseif c:match("%s") then
      if cur then out[#out + 1] = cur; cur = nil end
    else
      if not cur and c == "~" and (s:sub(i + 1, i + 1) == "/" or i == #s or s:sub(i + 1, i + 1):match("%s")) then
        c = os.getenv("HOME") or "~"
      end
      cur = (cur or "") .. c
    end
    i = i + 1
  end
  if q then error("unterminated " .. q .. " quote", 0) end
  if cur then out[#out + 1] = cur end
  return out
end
R.words = words

local function fail(cmd, msg)
  error(cmd .. ": " .. tostring(msg):gsub("^%[string [^%]]*%]:%d+: ", ""), 0)
end

local function open(args)
  local files = words(args)
  if #files == 0 then fail(".open", "expected a file name (an ETDump or legacy dump, an ETRecord, ...)") end
  local ok, roles = pcall(host.assign_inputs, files)
  if not ok then fail(".open", roles) end
  local etinspect = require("etinspect")
  if roles.etdump_paths then -- several dumps: one dataset, as the command line reads them
    if roles.profile_results_path then
      fail(".open", "a legacy profiler dump cannot join several ETDumps (" .. roles.profile_results_path .. ")")
    end
    local opts = { etrecord = roles.etrecord, bundled_program_path = roles.bundled_program_path }
    if #roles.debug_buffer_paths > 0 then opts.debug_buffer_paths = roles.debug_buffer_paths end
    local ok2, dumps = pcall(etinspect.open_many, roles.etdump_paths, opts)
    if not ok2 then fail(".open", dumps) end
    G.dumps = dumps
    io.write("dumps = ", tostring(dumps), "\n")
    return
  end
  if roles.etrecord and not roles.etdump_path and not roles.profile_results_path then
    if roles.bundled_program_path or roles.debug_buffer_path then
      fail(".open", "a BundledProgram or debug buffer needs an ETDump beside it")
    end
    local ok2, rec = pcall(etinspect.parse_etrecord, roles.etrecord)
    if not ok2 then fail(".open", rec) end
    G.rec = rec
    io.write("rec = ", tostring(rec), "\n")
    return
  end
  local ok2, insp = pcall(etinspect.Inspector, roles)
  if not ok2 then fail(".open", insp) end
  G.insp = insp
  io.write("insp = ", tostring(insp), "\n")
end

local function set_mode(args)
  local style = words(args)[1]
  if not style then
    io.write("mode: ", state.mode, " (", table.concat(display.STYLES, ", "), ")\n")
    return
  end
  local ok, err = pcall(function() return Frame.new({ "x" }, {}):render(style) end)
  if not ok then fail(".mode", tostring(err):gsub("^[^:]*:%d+: ", ""):gsub("^[%w.]*:?render: ", "")) end
  state.mode = style
end

local function show_option(name)
  local v = display.get_option("display." .. name)
  local note = ""
  if name == "width" and state.auto_width then note = " (auto: the terminal's)" end
  io.write(string.format("%-13s %s%s\n", name, v == nil and "none" or tostring(v), note))
end

local function set(args)
  local w = words(args)
  local name, value = w[1] and w[1]:gsub("^display%.", ""), w[2]
  if not name then
    for _, n in ipairs(OPTION_NAMES) do show_option(n) end
    io.write(string.format("%-13s %s\n", "pager", state.pager and "on" or "off"))
    return
  end
  if name == "pager" then return R.meta(".pager " .. (value or "")) end
  local known = false
  for _, n in ipairs(OPTION_NAMES) do known = known or n == name end
  if not known then
    fail(".set", string.format("unknown option '%s' (%s, pager)", name, table.concat(OPTION_NAMES, ", ")))
  end
  if not value then return show_option(name) end
  if #w > 2 then fail(".set", "expected one value, got " .. (#w - 1)) end
  local v
  if value == "auto" and name == "width" then
    state.auto_width, state.last_width = true, nil
    return
  elseif value == "none" or value == "nil" then
    v = nil
  else
    v = math.tointeger(tonumber(value))
    if not v or v < 1 then
      fail(".set", string.format("%s: expected a positive integer or none%s, got '%s'", name,
        name == "width" and " or auto" or "", value))
    end
  end
  local ok, err = pcall(display.set_option, "display." .. name, v)
  if not ok then fail(".set", err) end
  if name == "width" then state.auto_width = false end
end

local function pager(args)
  local v = words(args)[1]
  if v == nil then
    io.write("pager: ", state.pager and "on" or "off", "\n")
  elseif v == "on" or v == "off" then
    state.pager = v == "on"
  else
    fail(".pager", "expected on or off, got '" .. v .. "'")
  end
end

local function help()
  io.write("Lua 5.4 with the etinspect module as `etinspect`. Meta commands:\n")
  for _, c in ipairs(R.COMMANDS) do
    local head = string.format("  %-22s ", c[1] .. (c[2] ~= "" and " " .. c[2] or ""))
    -- continuation lines start under the first line's text
    io.write(head, (c[3]:gsub("\n", "\n" .. string.rep(" ", #head))), "\n")
  end
  io.write("An expression prints its value (frames in the .mode, long ones cut as pandas does);\n" ..
           "a statement may span lines. Tab completes names, fields (.), methods (:), file\n" ..
           "names and meta commands; Ctrl-C stops what runs or prints. help(x) or ?x lists\n" ..
           "x's fields and methods (docs/lua-api.md).\n")
end

--- .sql QUERY: the query over the global `dumps` (a Dumps) when set, else
-- `insp` (an Inspector), written as a Frame in the display mode.
-- @tparam string query
-- @raise ".sql: QUERY expected", ".sql: no dumps open (.open FILE... first)",
--   the query's errors ("SQL: no such table: x"; "SQL: interrupted" after Ctrl-C)
function R.sql(query)
  if query == "" then error(".sql: an SQL query expected (.sql SELECT ...)", 0) end
  local target = rawget(G, "dumps")
  if type(target) ~= "table" or type(target.sql) ~= "function" then target = rawget(G, "insp") end
  if target == nil then error(".sql: no dumps open (.open FILE... first)", 0) end
  local ok, frame = pcall(function() return target:sql(query) end)
  if not ok then error(".sql: " .. tostring(frame):gsub("^[^\n]-:%d+: ", ""), 0) end
  io.write(R.render(frame))
end

--- Run a meta command line (".open x", ".mode", ...).
-- @treturn string|nil "quit" to leave
-- @raise a message (no position) for a bad command or argument
function R.meta(line)
  local cmd, args = line:match("^%s*(%.%S*)%s*(.-)%s*$")
  if cmd == ".sql" then return R.sql(args) end -- the query as typed (quotes are SQL's)
  local ok, err = pcall(words, args)
  if not ok then error(cmd .. ": " .. err, 0) end
  if cmd == ".quit" or cmd == ".exit" then return "quit" end
  if cmd == ".help" then return help() end
  if cmd == ".open" then return open(args) end
  if cmd == ".mode" then return set_mode(args) end
  if cmd == ".set" then return set(args) end
  if cmd == ".pager" then return pager(args) end
  error(string.format("unknown command '%s' (try .help)", tostring(cmd)), 0)
end

--- The terminal is `cols` wide: display.width follows it unless the user
-- set the width (.set width N, or etinspect.set_option).
function R.terminal(cols)
  if not state.auto_width or not cols or cols < 1 then return end
  local cur = display.get_option("display.width")
  if state.last_width and cur ~= state.last_width and cur ~= nil then
    state.auto_width = false -- set from Lua meanwhile
    return
  end
  if cur ~= cols then display.set_option("display.width", cols) end
  state.last_width = cols
end

---------------------------------------------------------------------------
-- completion

local KEYWORDS = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function",
                   "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
                   "true", "until", "while" }

--- The options of etinspect.Inspector{...}, completed inside its braces.
R.INSPECTOR_OPTIONS = { "etdump_path", "etdump_data", "etrecord", "etrecord_json_budget", "etrecord_method",
  "source_time_scale", "target_time_scale", "debug_buffer_path", "delegate_metadata_parser",
  "delegate_time_scale_converter", "enable_module_hierarchy", "reference_graph_name",
  "profile_results_path", "profile_results_data", "time_scale", "bundled_program_path",
  "bundled_test_case", "program_path" }

local function is_ident(k)
  return type(k) == "string" and k:find("^[%a_][%w_]*$") ~= nil
end

local function is_frame(v, mt)
  return type(v) == "table" and type(mt) == "table" and rawget(mt, "__name") == "Frame"
end

---------------------------------------------------------------------------
-- what a call gives, without making it
--
-- Tab never runs a call, not even one of etinspect's own methods (a
-- method may read a whole dump, write a file or call a user's function):
-- the value after a call is only its type, a "phantom" {[PHANTOM] = name},
-- inferred from the type of the receiver.  The return types come from the
-- "returns" column of docs/lua-api.md (etinspect.help: insp:to_dataframe
-- gives a Frame, dumps:inspector an Inspector, etinspect.open_many Dumps),
-- and for the Frame, GroupBy and Series, whose tables have no such
-- column, from the lists below (the reference says every Frame method
-- returns a new frame).
local PHANTOM = {}
local FRAME_GIVES = { group_by = "GroupBy", column = "Series" }
for _, m in ipairs({ "filter", "query", "select", "drop", "sort", "head", "tail", "value_counts",
                     "describe", "rename", "mutate", "assign", "join", "merge" }) do
  FRAME_GIVES[m] = "Frame"
end
local GROUPBY_GIVES = {}
for _, m in ipairs({ "agg", "size", "count", "sum", "mean", "median", "std", "var", "min", "max",
                     "first", "last", "quantile" }) do
  GROUPBY_GIVES[m] = "Frame"
end
local SERIES_GIVES = {}
for _, m in ipairs({ "eq", "ne", "lt", "le", "gt", "ge", "isin", "isna", "isnull", "notna",
                     "notnull", "between", "abs", "fillna" }) do
  SERIES_GIVES[m] = "Series"
end
R.CALL_TYPES = { Frame = FRAME_GIVES, GroupBy = GROUPBY_GIVES, Series = SERIES_GIVES }

local function is_phantom(v)
  return type(v) == "table" and rawget(v, PHANTOM) ~= nil
end

local function type_name(v)
  if is_phantom(v) then return rawget(v, PHANTOM) end
  return require("etinspect.help").type_of(v)
end

-- The phantom of what v:name(...) or v.name(...) gives, or nil.
local function call_of(v, name)
  local t = type_name(v)
  if not t then return nil end
  local r = R.CALL_TYPES[t] and R.CALL_TYPES[t][name] or require("etinspect.help").returns(t, name)
  return r and { [PHANTOM] = r } or nil
end

-- The names after `sep` in a phantom value.
local function phantom_names(t, sep)
  local out = {}
  if t == "Frame" then
    if sep == ":" then
      for k in next, Frame.methods do out[k] = true end
    else
      out.columns = true
    end
    return out
  end
  if t == "GroupBy" then
    if sep == ":" then
      for k in next, Frame.GroupBy.__methods do out[k] = true end
    end
    return out
  end
  local getters, methods = members(t) -- the binding's types, by name
  if getters then
    for _, k in ipairs(sep == ":" and methods or getters) do out[k] = true end
    return out
  end
  return require("etinspect.help").names(t, sep)
end

local function sorted(set, partial, prefix)
  local out = {}
  for k in pairs(set) do
    if k:sub(1, #partial) == partial and (k:sub(1, 1) ~= "_" or partial:sub(1, 1) == "_") then
      out[#out + 1] = prefix .. k
    end
  end
  table.sort(out)
  return out
end

-- v[k] without running user code (nil when it cannot be known).
local function field(v, k)
  for _ = 1, 16 do -- the __index chain, bounded
    if type(v) == "table" then
      local r = rawget(v, k)
      if r ~= nil then return r end
    end
    if type(v) == "userdata" and members(v) then -- etinspect's own type
      local ok, r = pcall(peek, v, k) -- a field read of it, left uncached
      return ok and r or nil
    end
    local mt = getmt(v)
    if type(mt) ~= "table" then return nil end
    if is_frame(v, mt) then
      local cols = rawget(v, "_columns")
      if math.type(k) == "integer" and rawget(v, "_t") then -- a row, made from the columns
        local ok, row = pcall(function() return v[k] end)
        return ok and row or nil
      end
      if k == "columns" then return cols end
      for _, c in ipairs(type(cols) == "table" and cols or {}) do
        if c == k then return { [PHANTOM] = "Series" } end -- a column: its type, not made
      end
      return nil
    end
    local idx = rawget(mt, "__index")
    if type(idx) ~= "table" then return nil end
    v = idx
  end
end

-- The names after `sep` ("." or ":") in base value `v`.
local function names_of(v, sep)
  local out = {}
  local function add(k, val)
    if is_ident(k) and (sep ~= ":" or type(val) == "function") then out[k] = true end
  end
  local function add_all(t, only_fns)
    if type(t) ~= "table" then return end
    for k, val in next, t do
      if not only_fns or type(val) == "function" then add(k, val) end
    end
  end
  if is_phantom(v) then return phantom_names(rawget(v, PHANTOM), sep) end
  if type(v) == "userdata" and core.is_series(v) then -- etinspect's Series: its methods
    return sep == ":" and require("etinspect.help").names("Series", ":") or out
  end
  for _ = 1, 16 do
    if type(v) == "table" then add_all(v) end
    if type(v) == "userdata" then
      local getters, methods = members(v)
      if getters then -- etinspect's own type
        local names = sep == ":" and methods or getters
        for i = 1, #names do
          if is_ident(names[i]) then out[names[i]] = true end
        end
        break
      end
    end
    local mt = getmt(v)
    if type(mt) ~= "table" then break end
    if is_frame(v, mt) then
      if sep == ":" then
        add_all(rawget(mt, "__methods") or Frame.methods)
      else
        out.columns = true
        local cols = rawget(v, "_columns")
        for _, c in ipairs(type(cols) == "table" and cols or {}) do
          if is_ident(c) then out[c] = true end
        end
      end
      break
    end
    local idx = rawget(mt, "__index")
    if type(idx) ~= "table" then break end
    v = idx
  end
  return out
end

-- The expression that ends `before`: names, dots, colons, [...] index
-- parts and the arguments of calls ((...) or {...} after a name), scanning
-- back; nil when the text ends otherwise.
local CLOSER = { [")"] = true, ["]"] = true, ["}"] = true }
local OPENER = { ["("] = true, ["["] = true, ["{"] = true }
local function trailing_expr(before)
  local i = #before
  while i >= 1 do
    local c = before:sub(i, i)
    if c:match("[%w_.:]") then
      i = i - 1
    elseif CLOSER[c] then
      local depth = 0
      while i >= 1 do
        local d = before:sub(i, i)
        if CLOSER[d] then depth = depth + 1 elseif OPENER[d] then depth = depth - 1 end
        if depth == 0 then break end
        i = i - 1
      end
      if i < 1 then return nil end
      local opener = before:sub(i, i)
      i = i - 1
      -- a call's ( or { follows a name; anything else is not an index expression
      if opener ~= "[" and not (i >= 1 and before:sub(i, i):match("[%w_]")) then return nil end
    else
      break
    end
  end
  local start = i + 1
  local e = before:sub(start)
  local last = 0
  for p in e:gmatch("()%.%.") do last = p + 2 end -- after a concatenation
  if last > 0 then start, e = start + last - 1, e:sub(last) end
  return e, start
end

-- The end of the bracketed part of `e` that opens at `pos` (its closing
-- bracket), or nil.
local function close_of(e, pos)
  local depth = 0
  for i = pos, #e do
    local d = e:sub(i, i)
    if OPENER[d] then depth = depth + 1 elseif CLOSER[d] then depth = depth - 1 end
    if depth == 0 then return i end
  end
  return nil
end

-- Parse an index expression: root, {part...}, the separator of the part
-- being completed and its partial name; nil when it is not one.  A part
-- is a key (a string, integer, boolean or {global = name}) or a call
-- {call = name} (obj:name(...), obj.name{...}).
local function parse_expr(e)
  local root, pos = e:match("^([%a_][%w_]*)()")
  if not root then return nil end
  local parts = {}
  while pos <= #e do
    local c = e:sub(pos, pos)
    if c == "." or c == ":" then
      local name, np = e:match("^([%a_][%w_]*)()", pos + 1)
      if not name then
        if pos + 1 > #e then return root, parts, c, "" end
        return nil
      end
      if np > #e then return root, parts, c, name end
      local nc = e:sub(np, np)
      if nc == "(" or nc == "{" then -- a call: its arguments are skipped, never run
        local close = close_of(e, np)
        if not close then return nil end
        parts[#parts + 1] = { call = name }
        pos = close + 1
      elseif c == ":" then
        return nil
      else
        parts[#parts + 1] = name
        pos = np
      end
    elseif c == "[" then
      local inner, np = e:match("^%[(.-)%]()", pos)
      if not inner then return nil end
      inner = inner:match("^%s*(.-)%s*$")
      local key
      if inner:match("^%-?%d+$") then key = math.tointeger(tonumber(inner))
      elseif inner:match('^"[^"\\]*"$') or inner:match("^'[^'\\]*'$") then key = inner:sub(2, -2)
      elseif inner == "true" then key = true
      elseif inner == "false" then key = false
      elseif inner:match("^[%a_][%w_]*$") then key = { global = inner }
      else return nil end
      parts[#parts + 1] = key
      pos = np
    else
      return nil
    end
  end
  if #parts > 0 then return root, parts, nil, nil end -- ends in [...] or a call
  return nil, nil, nil, root -- a bare partial name: the globals
end

-- The value (or phantom) of root and its parts, or nil.
local function value_of(root, parts)
  local v = field(G, root)
  for _, k in ipairs(parts) do
    if v == nil then return nil end
    if type(k) == "table" and k.call then
      v = call_of(v, k.call)
    elseif is_phantom(v) then
      if type(k) ~= "string" then return nil end
      v = call_of(v, k) -- a field of a phantom: its documented type
    else
      if type(k) == "table" then k = field(G, k.global) end
      if k == nil then return nil end
      v = field(v, k)
    end
  end
  return v
end

local function complete_lua(before)
  local e, start = trailing_expr(before)
  if not e or e == "" or e:match("^[%d.]") then return {}, #before + 1 end
  local root, parts, sep, partial = parse_expr(e)
  if not root then
    if not partial then return {}, start end
    local set = names_of(G, ".")
    for _, k in ipairs(KEYWORDS) do set[k] = true end
    return sorted(set, partial, ""), start
  end
  local v = value_of(root, parts)
  if v == nil or not sep then return {}, start end
  return sorted(names_of(v, sep), partial, e:sub(1, #e - #partial)), start
end

-- Where a string literal open at the end of `before` starts (the position
-- after its quote), or nil.
local function open_string(before)
  local q, i, from = nil, 1, nil
  while i <= #before do
    local c = before:sub(i, i)
    if q then
      if c == "\\" then i = i + 1 elseif c == q then q = nil end
    elseif c == '"' or c == "'" then
      q, from = c, i + 1
    elseif c == "-" and before:sub(i + 1, i + 1) == "-" then
      return nil -- a comment
    end
    i = i + 1
  end
  return q and from or nil
end

-- File names completing `word` (as typed: ~/ stands for $HOME/).
local function complete_path(word)
  local dir, base = word:match("^(.*/)([^/]*)$")
  if not dir then dir, base = "", word end
  local real = dir == "" and "." or dir:gsub("^~/", (os.getenv("HOME") or "~") .. "/")
  local ok, entries = pcall(host.list_dir, real)
  local out = {}
  if not ok or type(entries) ~= "table" then return out end
  for name, is_dir in pairs(entries) do
    if name ~= "." and name ~= ".." and name:sub(1, #base) == base and
       (name:sub(1, 1) ~= "." or base:sub(1, 1) == ".") then
      out[#out + 1] = dir .. name .. (is_dir and "/" or "")
    end
  end
  table.sort(out)
  return out
end

local function prefixed(list, partial, prefix)
  local out = {}
  for _, k in ipairs(list) do
    if k:sub(1, #partial) == partial then out[#out + 1] = (prefix or "") .. k end
  end
  return out
end

--- Completions of the text before `cursor` in `line`.
-- @treturn {string,...} candidates, each replacing line:sub(start, cursor)
-- @treturn integer start
-- @treturn string the character to append after a sole candidate ("" or " ")
function R.complete(line, cursor)
  local before = line:sub(1, cursor)
  local lead = before:match("^%s*()%.")
  if lead then
    local cmd = before:match("^%s*(%.%a*)$")
    if cmd then
      local names = {}
      for _, c in ipairs(R.COMMANDS) do names[#names + 1] = c[1] end
      names[#names + 1] = ".exit"
      table.sort(names)
      return prefixed(names, cmd), lead, " "
    end
    local name, rest = before:match("^%s*(%.%a+)%s+(.*)$")
    if not rest then return {}, cursor + 1, "" end
    local argpos = #before - #rest + 1
    if name == ".open" then
      -- the last word as .open splits it (words: quotes, backslashes)
      local wstart, q = argpos, nil
      local i = argpos
      while i <= #before do
        local c = before:sub(i, i)
        if q then
          if c == q then q = nil elseif c == "\\" and q == '"' then i = i + 1 end
        elseif c == '"' or c == "'" then q = c
        elseif c == "\\" then i = i + 1
        elseif c:match("%s") then wstart = i + 1 end
        i = i + 1
      end
      local typed = before:sub(wstart)
      local quote = typed:match("^[\"']")
      local word
      if quote then
        wstart, typed = wstart + 1, typed:sub(2)
        word = quote == '"' and typed:gsub("\\(.)", "%1") or typed
      else
        word = typed:gsub("\\(.)", "%1")
      end
      local cands = complete_path(word)
      -- each as it must be typed: inside "..." a " or \ escaped; bare, a
      -- blank, quote or backslash escaped (so that the line .open reads
      -- names that file)
      for k, c in ipairs(cands) do
        if quote == '"' then cands[k] = c:gsub('[\\"]', "\\%0")
        elseif not quote then cands[k] = c:gsub("[%s\\\"']", "\\%0") end
      end
      if quote == "'" then -- a ' cannot be escaped inside '...'
        local keep = {}
        for _, c in ipairs(cands) do if not c:find("'", 1, true) then keep[#keep + 1] = c end end
        cands = keep
      end
      local append = (#cands == 1 and not cands[1]:find("/$")) and (quote or "") .. " " or ""
      return cands, wstart, append
    end
    local arg = rest:match("(%S*)$")
    local choices = name == ".mode" and display.STYLES or name == ".pager" and { "off", "on" }
                    or name == ".set" and not rest:find("%s") and OPTION_NAMES or {}
    return prefixed(choices, arg), #before - #arg + 1, " "
  end
  local from = open_string(before)
  -- a key inside x["...: the columns of a Frame, the string keys of a table
  local bpos, quote, kpartial = before:match(".*()%[%s*([\"'])([^\"'\\]*)$")
  if from and bpos then
    core.hold_warnings(true)
    local ok, keys = pcall(function()
      local e = trailing_expr(before:sub(1, bpos - 1))
      local root, parts = parse_expr((e or "") .. ".")
      local v = root and value_of(root, parts)
      if is_phantom(v) or v == nil then return nil end
      local mt = getmt(v)
      if is_frame(v, mt) then return rawget(v, "_columns") end
      if type(v) ~= "table" then return nil end
      local out = {}
      for k in next, v do if type(k) == "string" then out[#out + 1] = k end end
      return out
    end)
    core.hold_warnings(false)
    if ok and type(keys) == "table" then
      local out = {}
      for _, k in ipairs(keys) do
        if type(k) == "string" and k:sub(1, #kpartial) == kpartial and not k:find("[" .. quote .. "\\\n]") then
          out[#out + 1] = k .. quote .. "]"
        end
      end
      table.sort(out)
      return out, #before - #kpartial + 1, ""
    end
  end
  if from then return complete_path(before:sub(from)), from, "" end
  -- a key inside Inspector{...}
  local key = before:match("Inspector%s*%(?%s*{[^{}]-([%a_]*)$")
  if key then
    local pre = before:sub(1, #before - #key)
    if pre:match("[{,]%s*$") then return prefixed(R.INSPECTOR_OPTIONS, key), #before - #key + 1, "" end
  end
  -- reading a field may make an Inspector's event blocks: their warnings
  -- wait for the next line run instead of printing over the line typed
  local core = require("etinspect")._core
  core.hold_warnings(true)
  local ok, cands, start = pcall(complete_lua, before)
  core.hold_warnings(false)
  if not ok then error(cands, 0) end
  return cands, start, ""
end

return R
