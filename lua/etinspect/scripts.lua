--- etinspect.scripts: report scripts as programs.
--
-- A report script (bundled, or a file) declares itself by returning a table:
--
--   return {
--     description = "one line: what it reports",
--     epilog = "optional text after the arguments in --help",
--     args = {                                   -- parsed with lua-argparse
--       { "etdump", help = "the ETDump to read" },                    -- positional
--       { "--top", type = "integer", default = 20, help = "rows shown" },
--       { "--format", choices = { "box", "tsv" }, default = "box" },
--       { "--verbose", type = "boolean", help = "say more" },         -- a flag
--     },
--     run = function(args) ... args.etdump, args.top, args.verbose ... end,
--   }
--
-- Each entry of `args` is {NAME [, HELP], help=, type=, default=, choices=,
-- args=, metavar=, required=, aliases=}: NAME starting with "-" is an option ("-t --top"
-- gives aliases), else a positional argument; type is "string" (default),
-- "integer", "number" or "boolean" (an option without value: true when given,
-- else false); default is used when the argument is absent (a positional with
-- a default may be left out); choices lists the accepted strings; args is
-- argparse's count ("?", "*", "+", "2", ...; a list then); required = true
-- makes an option mandatory; aliases = "--other --names" are accepted
-- spellings of an option that --help does not show.  `run` receives the parsed values under the
-- name without dashes ("--tsv_path" -> args.tsv_path).  A script that
-- declares no `args` receives its arguments unparsed, as a sequence.
--
-- `etinspect NAME ARGS...` runs a bundled script, `etinspect SCRIPT.lua
-- ARGS...` a file, `etinspect --help NAME|SCRIPT.lua` shows exactly the
-- declared arguments, `etinspect --list-scripts` lists the bundled ones.
-- Parsing needs Debian's lua-argparse (module "argparse" on the standard
-- Lua path); nothing else here does.
local M = {}

--- The bundled scripts, by name (module etinspect.scripts.NAME).
M.names = { "top_ops", "framework_tax", "delegation", "modules", "diff", "benchmark", "etrecord", "sql" }

local function raise(field, msg, usage_text)
  error(setmetatable({ [field] = msg, usage_text = usage_text },
                     { __tostring = function(e) return e[field] end }), 0)
end

--- The name of the script running now (a bundled or user script's name,
-- or the path of a file), or nil outside one: usage errors carry it.
M.current = nil

--- Raise a usage error: the host prints `usage_text` when given, then
-- "etinspect: " .. msg (no traceback), and exits 2.  Inside a script, as
-- argparse's errors do, the message starts with the script's name and
-- ends with where its arguments are explained: "top_ops: MSG (etinspect
-- --help top_ops)" (neither is added twice).
-- @tparam string msg
-- @tparam[opt] string usage_text the usage lines
function M.usage_error(msg, usage_text)
  msg = tostring(msg)
  local name = M.current
  if name then
    if msg:sub(1, #name + 2) ~= name .. ": " then msg = name .. ": " .. msg end
    if not msg:find("(etinspect --help ", 1, true) then
      msg = msg .. " (etinspect --help " .. name .. ")"
    end
  end
  raise("usage", msg, usage_text)
end

--- Raise an input error: the host prints `msg` (no traceback) and exits 1.
-- @tparam string msg
function M.input_error(msg) raise("input", msg) end

--- The host's sniffer (set by M.resolve): path [, expected kind] -> kind
-- [, why]; nil outside the etinspect program (etinspect.so in lua5.4).
M.input_kind = nil

--- Refuse a file of another kind than `expected` where `option` goes (an
-- ETRecord given as the ETDump), as the command line does: a usage error
-- saying what the file is and which option takes it.  Nothing when the
-- host's sniffer is absent or the file is not one it knows.
-- @tparam string path
-- @tparam string expected a kind's name ("etdump", "etrecord", ...)
-- @tparam string what the argument's name, for the message ("etdump")
function M.check_kind(path, expected, what)
  if type(path) ~= "string" or not M.input_kind then return end
  local kind, why = M.input_kind(path, expected)
  if why and kind ~= "missing" then
    M.usage_error("argument " .. what .. ": " .. why)
  end
end

--- Is `name` a bundled script?
function M.is_bundled(name)
  for _, n in ipairs(M.names) do
    if n == name then return true end
  end
  return false
end

--- The directories of user scripts, searched in this order: each
-- directory of the environment variable ETINSPECT_PATH (separated by ':',
-- as PATH), then $XDG_CONFIG_HOME/etinspect/scripts ($XDG_CONFIG_HOME
-- unset, empty or relative: ~/.config, as the XDG base directory
-- specification says).  A user script is NAME.lua in one of them.
-- @treturn {string,...}
function M.user_dirs()
  local dirs = {}
  for d in (os.getenv("ETINSPECT_PATH") or ""):gmatch("[^:]+") do dirs[#dirs + 1] = d end
  local config = os.getenv("XDG_CONFIG_HOME")
  if not config or config:sub(1, 1) ~= "/" then
    local home = os.getenv("HOME")
    config = home and home ~= "" and home .. "/.config" or nil
  end
  if config then dirs[#dirs + 1] = config .. "/etinspect/scripts" end
  return dirs
end

--- Is `name` a name a user script may have (letters, digits, '_' and
-- '-'; not starting with '-')?
local function script_name(name)
  return type(name) == "string" and name:find("^[%w_][%w_%-]*$") ~= nil
end

--- Every user script, in the order of M.user_dirs then by name: a
-- sequence of {name =, path =, hidden_by = PATH of the earlier user
-- script of that name, or "bundled"}.
-- @treturn {table,...}
function M.user_scripts()
  local out, seen = {}, {}
  local expand = require("etinspect")._core.expand_dumps
  for _, dir in ipairs(M.user_dirs()) do
    local ok, paths = pcall(expand, { dir .. "/*.lua" })
    for _, path in ipairs(ok and paths or {}) do
      local name = path:match("([^/]+)%.lua$")
      if script_name(name) then
        local e = { name = name, path = path }
        if M.is_bundled(name) then e.hidden_by = "bundled" else e.hidden_by = seen[name] end
        seen[name] = seen[name] or path
        out[#out + 1] = e
      end
    end
  end
  return out
end

--- The path of the user script `name` (the first of M.user_dirs holding
-- NAME.lua), or nil.
-- @tparam string name
-- @treturn string|nil
function M.find_user(name)
  if not script_name(name) then return nil end
  for _, dir in ipairs(M.user_dirs()) do
    local path = dir .. "/" .. name .. ".lua"
    local f = io.open(path, "r")
    if f then
      local ok = f:read(0)
      f:close()
      if ok then return path end
    end
  end
  return nil
end

-- A user script's one-line description, read from its text without
-- running it: the string of its `description = "..."`, else its first
-- comment line, else "".
local function describe_file(path)
  local f = io.open(path, "r")
  if not f then return "" end
  local text = f:read(65536) or ""
  f:close()
  local d = text:match('description%s*=%s*"([^"\n]*)"') or text:match("description%s*=%s*'([^'\n]*)'")
            or text:match("^%-%-+%s*([^\n]*)")
  return d or ""
end

-- Levenshtein distance, for "did you mean".
local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

--- The bundled script whose name is nearest to `name` (a typo away: at
-- most a third of its letters differ, or `name` starts it), or nil.
-- @tparam string name
-- @treturn string|nil
function M.suggest(name)
  local best, best_d
  local names = {}
  for _, n in ipairs(M.names) do names[#names + 1] = n end
  for _, e in ipairs(M.user_scripts()) do names[#names + 1] = e.name end
  for _, n in ipairs(names) do
    local d = distance(name, n)
    if #name >= 2 and n:sub(1, #name) == name then d = 0 end
    if d <= math.max(1, #n // 3) and (not best_d or d < best_d) then best, best_d = n, d end
  end
  return best
end

--- What the command line's first argument `target` is.
-- @tparam string target
-- @tparam function input_kind the host's sniffer: path -> kind [, message]
--   (kind "etdump", "profile_results", "etrecord", "bundled_program",
--   "program", "text", "unknown", "missing" or "directory")
-- @treturn string "stdin", "bundled", "user" (a user script: M.find_user),
--   "data" (inputs for the command line,
--   directories of ETDumps too, and any other file whose name does not end
--   in .lua: a text one among them is the command line's input error)
--   or "script" (a Lua file: its name ends in .lua)
-- @raise usage error (exit 2) for a name that is neither; input error
--   (exit 1) for a missing or unreadable file
function M.resolve(target, input_kind)
  M.input_kind = input_kind
  if target == "-" then return "stdin" end
  if M.is_bundled(target) then return "bundled" end
  if M.find_user(target) then return "user" end
  local kind, why = input_kind(target)
  if kind == "etdump" or kind == "profile_results" or kind == "etrecord" or
     kind == "bundled_program" or kind == "program" or kind == "unknown" or kind == "directory" then
    return "data" -- a directory: its ETDumps (the command line's FILE...)
  end
  if target:find("%.lua$") then -- only a name ending in .lua is run as a script
    if kind == "missing" then M.input_error(target .. ": " .. tostring(why)) end
    return "script"
  end
  -- a text file is never run as code: the command line refuses it as an
  -- input, naming it (src/host/inputs.c)
  if kind == "text" then return "data" end
  if kind == "missing" and target:find("/", 1, true) then M.input_error(target .. ": " .. tostring(why)) end
  local near = M.suggest(target)
  M.usage_error(string.format("'%s' is neither a bundled or user script nor a file%s (etinspect --list-scripts)",
    target, near and ". Did you mean " .. near .. "?" or ""))
end

-- ---- plugins: delegate metadata parsers and time-scale converters ----

--- The directory of plugin files loaded when a hook is named
-- ($XDG_CONFIG_HOME/etinspect/plugins, XDG_CONFIG_HOME defaulting to
-- ~/.config as for user scripts), or nil without a home.
-- @treturn string|nil
function M.plugin_dir()
  local config = os.getenv("XDG_CONFIG_HOME")
  if not config or config:sub(1, 1) ~= "/" then
    local home = os.getenv("HOME")
    config = home and home ~= "" and home .. "/.config" or nil
  end
  return config and config .. "/etinspect/plugins" or nil
end

local loaded_plugins = {}

-- Run the plugin file `path` once (text only); its errors are input
-- errors naming it.
local function run_plugin(path)
  if loaded_plugins[path] then return end
  loaded_plugins[path] = true
  local chunk, err = loadfile(path, "t")
  if not chunk then M.input_error("plugin " .. tostring(err)) end
  local ok, perr = pcall(chunk)
  if not ok then M.input_error("plugin " .. path .. ": " .. tostring(perr)) end
end

--- Load the plugins: each file of `files` (--plugin FILE, in order), then
-- every *.lua of M.plugin_dir() by name.  Each runs once per run, with the
-- global `etinspect`; a plugin registers hooks by name:
-- `etinspect.parsers.npu = function(raw_list, event) ... end`,
-- `etinspect.converters.npu = function(event_name, ticks) ... end`.
-- @tparam[opt] {string,...} files
-- @raise input error (exit 1) naming a plugin that cannot be read or fails
function M.load_plugins(files)
  for _, f in ipairs(files or {}) do run_plugin(f) end
  local dir = M.plugin_dir()
  if dir then
    local ok, paths = pcall(require("etinspect")._core.expand_dumps, { dir .. "/*.lua" })
    for _, p in ipairs(ok and paths or {}) do run_plugin(p) end
  end
end

-- The function a hook SPEC names: a file ending in .lua whose chunk
-- returns it, or a name of `registry` (after the plugins).
local function hook(spec, registry, what, option)
  if spec:find("%.lua$") then
    local chunk, err = loadfile(spec, "t")
    if not chunk then M.input_error(option .. " " .. tostring(err)) end
    local ok, fn = pcall(chunk)
    if not ok then M.input_error(option .. " " .. spec .. ": " .. tostring(fn)) end
    local mt = getmetatable(fn)
    if type(fn) ~= "function" and not (type(mt) == "table" and mt.__call) then
      M.usage_error(string.format("%s %s: the file returns a %s, expected the %s (a function)",
        option, spec, type(fn), what))
    end
    return fn
  end
  local fn = rawget(registry, spec)
  if type(fn) ~= "function" then
    local names = {}
    for k, v in pairs(registry) do
      if type(v) == "function" and type(k) == "string" then names[#names + 1] = k end
    end
    table.sort(names)
    M.usage_error(string.format("%s: unknown %s '%s' (known: %s; a plugin adds one, or give a " ..
      "FILE.lua that returns it)", option, what, spec, table.concat(names, ", ")))
  end
  return fn
end

-- The converters' factories of etinspect.converters as loaded: named on
-- the command line, the ones that need only the target unit are made for
-- it; the others say how to make one.
local converters = require("etinspect").converters
local FACTORIES = { coreml = converters and converters.coreml, qnn = converters and converters.qnn,
                    scale = converters and converters.scale, cycles = converters and converters.cycles }

--- The delegate time-scale converter SPEC names (--delegate_time_scale_converter):
-- FILE.lua returning a function(event_name, ticks) -> time in the target
-- unit; or a name of etinspect.converters: one a plugin registered, or the
-- built-in `coreml` and `qnn` made for `target` (`scale` and `cycles` need
-- their arguments: a plugin makes them, `etinspect.converters.npu =
-- etinspect.converters.cycles(1e9, "ms")`).
-- @tparam string spec
-- @tparam string target the target time scale
-- @treturn function
-- @raise usage error (exit 2) for an unknown name; input error (exit 1)
--   for a file that cannot be read or fails
function M.find_converter(spec, target)
  local option = "--delegate_time_scale_converter"
  local reg = require("etinspect").converters
  local f = rawget(reg, spec)
  if f ~= nil and f == FACTORIES[spec] then
    if spec == "coreml" then return f(target) end
    if spec == "qnn" then return f({ target = target }) end
    M.usage_error(string.format("%s %s: converters.%s makes a converter from its arguments; " ..
      "make one in a plugin (etinspect.converters.npu = etinspect.converters.%s(...)) and name it",
      option, spec, spec, spec))
  end
  return hook(spec, reg, "delegate time-scale converter", option)
end

--- The delegate metadata parser SPEC names (--delegate_metadata_parser):
-- FILE.lua returning a function(raw_list, event) -> table, or a name of
-- etinspect.parsers (built in, or registered by a plugin).
-- @tparam string spec
-- @treturn function
function M.find_parser(spec)
  return hook(spec, require("etinspect").parsers, "delegate metadata parser",
              "--delegate_metadata_parser")
end

-- ---- parsed metadata as JSON (the command line's --json) ----

local JSON_ESC = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

--- A parser's result as JSON text, strictly: tables whose keys are 1..n
-- become arrays (an empty table: []), tables whose keys are all strings
-- objects (an ordered dict - a metatable with __pydict and __order, as
-- core.json_decode gives - in its order, else the keys sorted); strings
-- must be UTF-8 text; integers and finite floats (Python repr) are
-- numbers; booleans as they are.  Used by the command line's
-- --delegate_metadata_parser (src/host/cli_metadata.c).
-- @param v the parser's result
-- @treturn string JSON text on one line
-- @raise "cannot be represented in JSON: PATH is a TYPE" (PATH as `[1]["k"]`;
--   a function, userdata, NaN or infinity, a string that is not UTF-8,
--   mixed or other keys, a table met twice on its path, nesting deeper than 100)
function M.metadata_json(v)
  local out, on_path = {}, {}
  local function bad(path, what)
    error("cannot be represented in JSON: " .. (path == "" and "the value" or path) .. " is " .. what, 0)
  end
  local function enc(x, path, depth)
    local t = type(x)
    if t == "boolean" then out[#out + 1] = x and "true" or "false"
    elseif t == "number" then
      if math.type(x) == "integer" then out[#out + 1] = string.format("%d", x)
      elseif x ~= x or x == math.huge or x == -math.huge then bad(path, "not a finite number (" .. tostring(x) .. ")")
      else out[#out + 1] = require("etinspect")._core.repr(x) end
    elseif t == "string" then
      if not utf8.len(x) then bad(path, "a string that is not UTF-8 text") end
      out[#out + 1] = '"' .. x:gsub('[\0-\31"\\]', function(c)
        return JSON_ESC[c] or string.format("\\u%04x", c:byte())
      end) .. '"'
    elseif t == "table" then
      if on_path[x] then bad(path, "a table that contains itself") end
      if depth >= 100 then bad(path, "nested more than 100 deep") end
      on_path[x] = true
      local mt = getmetatable(x)
      local order = type(mt) == "table" and mt.__pydict and mt.__order
      local n, keys, seq = #x, {}, not order
      if not order then
        for k in pairs(x) do
          if math.type(k) ~= "integer" or k < 1 or k > n then seq = false end
          if type(k) ~= "string" and not (math.type(k) == "integer" and k >= 1 and k <= n) then
            bad(path .. "[" .. tostring(k) .. "]", "under a key that is a " .. type(k) .. " (keys are strings or 1..n)")
          end
          keys[#keys + 1] = k
        end
      end
      if seq then
        out[#out + 1] = "["
        for i = 1, n do
          if i > 1 then out[#out + 1] = ", " end
          enc(x[i], path .. "[" .. i .. "]", depth + 1)
        end
        out[#out + 1] = "]"
      else
        if order then keys = order else
          for _, k in ipairs(keys) do
            if type(k) ~= "string" then bad(path .. "[" .. tostring(k) .. "]", "an array item beside string keys") end
          end
          table.sort(keys)
        end
        out[#out + 1] = "{"
        for i, k in ipairs(keys) do
          if i > 1 then out[#out + 1] = ", " end
          enc(tostring(k), path, depth + 1)
          out[#out + 1] = ": "
          enc(x[k], path .. string.format("[%q]", tostring(k)), depth + 1)
        end
        out[#out + 1] = "}"
      end
      on_path[x] = nil
    elseif x == nil then out[#out + 1] = "null"
    else bad(path, "a " .. t) end
  end
  enc(v, "", 0)
  return table.concat(out)
end

local SPEC_KEYS = { help = "string", type = "string", default = "string|number|boolean",
                    choices = "table", args = "string|number", metavar = "string", required = "boolean",
                    aliases = "string" }
local TYPES = { string = true, integer = true, number = true, boolean = true }

local function converter(name, ty)
  if ty == "integer" then
    return function(s)
      local n = math.tointeger(tonumber(s))
      if not n then return nil, string.format("%s: expected an integer, got '%s'", name, s) end
      return n
    end
  elseif ty == "number" then
    return function(s)
      local n = tonumber(s)
      if not n then return nil, string.format("%s: expected a number, got '%s'", name, s) end
      return n
    end
  end
end

-- argparse's target of an argument: an option's first long alias, else
-- its first, "-" as "_"; a positional's name.
local function target_of(name)
  local t = name:match("%-%-([%w_%-]+)") or name:match("^%-([%w_%-]+)") or name
  return (t:gsub("%-", "_"))
end

-- Add declaration entry `e` (args[i] of script `prog`) to `parser`.
local function add_argument(parser, e, i, prog, flags, lists)
  local where = string.format("%s: args[%d]", prog, i)
  if type(e) ~= "table" then
    error(where .. ": expected a table {NAME, help = ...}, got " .. type(e), 0)
  end
  local named = {}
  for k, v in pairs(e) do
    if k ~= 1 and k ~= 2 then named[k] = v end
  end
  require("etinspect")._core.check_options(where, named, SPEC_KEYS)
  local name, help = e[1], e.help or e[2]
  if type(name) ~= "string" or not name:find("^%-?%-?[%a_][%w_%-]*") then
    error(where .. ": [1] must be the argument's name (\"etdump\", \"--top\"), got " .. tostring(name), 0)
  end
  if help ~= nil and type(help) ~= "string" then error(where .. ": help must be a string", 0) end
  local ty = e.type
  if ty == nil then
    ty = math.type(e.default) == "integer" and "integer" or type(e.default) == "number" and "number"
         or type(e.default) == "boolean" and "boolean" or "string"
  end
  if not TYPES[ty] then
    error(string.format("%s: unknown type '%s' (string, integer, number, boolean)", where, tostring(ty)), 0)
  end
  local el
  if name:sub(1, 1) == "-" then
    if ty == "boolean" then
      el = parser:flag(name, help)
      flags[#flags + 1] = target_of(name)
    else
      el = parser:option(name, help)
    end
    if e.required then el:count(1) end
  else
    if ty == "boolean" then error(where .. ": a positional argument cannot be a boolean flag", 0) end
    el = parser:argument(name, help) -- with a default, it may be left out
  end
  if e.aliases then -- other spellings, accepted but not shown in --help
    if name:sub(1, 1) ~= "-" or not e.aliases:find("^%-[%-%w_ ]*$") then
      error(where .. ": aliases are other names of an option (\"--etrecord_path\"), got " .. e.aliases, 0)
    end
    el:hidden_name(e.aliases)
  end
  if e.default ~= nil and ty ~= "boolean" then el:default(tostring(e.default)) end
  if e.choices then
    for _, c in ipairs(e.choices) do
      if type(c) ~= "string" then error(where .. ": choices must be strings", 0) end
    end
    el:choices(e.choices)
  end
  if e.args then
    el:args(tostring(e.args))
    if e.args ~= "?" and e.default == nil then lists[#lists + 1] = target_of(name) end
  end
  -- as Python's argparse shows them: "--top TOP", "etdump" (choices: "{a,b}")
  if e.metavar or not e.choices then
    el:argname(e.metavar or (name:sub(1, 1) == "-" and target_of(name):upper() or name))
  end
  local conv = converter(name:match("%S+$"), ty)
  if conv then el:convert(conv) end
end

local function load_argparse()
  local ok, argparse = pcall(require, "argparse")
  if not ok then
    error("report scripts parse their arguments with lua-argparse, which is not installed " ..
          "(Debian: apt-get install lua-argparse)", 0)
  end
  return argparse
end

--- The argparse parser of a declaration.
-- @tparam table S the declaration ({description=, epilog=, args=, run=})
-- @tparam string prog the program name shown in usage ("etinspect top_ops")
-- @treturn table the parser, the targets of its flags and of its lists
function M.parser(S, prog)
  local argparse = load_argparse()
  local p = argparse(prog, S.description, S.epilog):add_help(false)
  local flags, lists = {}, {}
  for i, e in ipairs(S.args or {}) do add_argument(p, e, i, prog, flags, lists) end
  p:flag("-h --help", "Show this help message and exit."):target("help")
  return p, flags, lists
end

--- The --help text of a declaration.
-- @tparam table S
-- @tparam string prog
-- @treturn string
function M.help(S, prog)
  if type(S.args) ~= "table" then
    local text = (S.description and S.description .. "\n\n" or "") ..
                 "usage: " .. prog .. " [ARGS...]\n\n" ..
                 "It declares no arguments: it receives them as they are."
    return text .. "\n"
  end
  return M.parser(S, prog):get_help() .. "\n"
end

--- Parse `argv` as declaration `S` declares; prints the help and returns
-- nil when -h/--help is among them.
-- @tparam table S
-- @tparam {string,...} argv
-- @tparam string prog
-- @treturn table|nil the parsed arguments, by target name
-- @raise usage error naming the problem, after the usage line
function M.parse(S, argv, prog)
  if type(S.args) ~= "table" then
    local out = {}
    for i, a in ipairs(argv) do out[i] = a end
    return out
  end
  local p, flags, lists = M.parser(S, prog)
  for _, a in ipairs(argv) do
    if a == "--" then break end
    if a == "-h" or a == "--help" then
      io.write(p:get_help(), "\n")
      return nil
    end
  end
  local ok, args = p:pparse(argv)
  if not ok then
    local name = prog:gsub("^etinspect ", "")
    M.current = M.current or name
    M.usage_error(string.format("%s: %s (etinspect --help %s)", name, args, name))
  end
  args.help = nil
  for _, f in ipairs(flags) do args[f] = args[f] or false end
  for _, l in ipairs(lists) do args[l] = args[l] or {} end
  return args
end

-- Load what `target` names: a bundled script, a file or standard input
-- ("-").  Returns the declaration (or nil for a plain script), the chunk
-- of a file and the program name.
local function load(target, how, source)
  if how == "bundled" then
    return require("etinspect.scripts." .. target), nil, "etinspect " .. target
  end
  local chunk, err
  if source then -- standard input, read by the host
    chunk, err = _G.load(source, "=stdin", "t")
  elseif how == "user" then
    chunk, err = loadfile(M.find_user(target), "t")
  else
    chunk, err = loadfile(how ~= "stdin" and target or nil)
  end
  if not chunk then M.input_error(err) end
  return nil, chunk, "etinspect " .. target
end

local function declared(r)
  return type(r) == "table" and type(r.run) == "function"
end

--- The host's entry point.
-- @tparam string mode "list", "help" or "run"
-- @tparam string target the script (bundled name, path or "-")
-- @tparam string how what M.resolve said target is
-- @param ... the script's arguments (strings)
-- @return in mode "run", what a declared script's `run` returns (the host
--   takes an integer in 0..125 as the exit status: diff's gate returns 3)
function M.main(mode, target, how, ...)
  if mode == "list" then
    for _, n in ipairs(M.names) do
      io.write(string.format("%-16s %s\n", n, require("etinspect.scripts." .. n).description))
    end
    -- then, after a blank line and a heading, the user scripts with their
    -- paths (bash completion takes the names before the blank line only:
    -- it asks a script for its --help, which runs a file)
    local users = M.user_scripts()
    if #users > 0 then
      io.write("\nuser scripts (ETINSPECT_PATH, then $XDG_CONFIG_HOME/etinspect/scripts):\n")
    end
    for _, e in ipairs(users) do
      local note = e.hidden_by == "bundled" and
                     "  [not run by this name: the bundled script comes first; run it as etinspect " .. e.path .. "]"
                   or e.hidden_by and "  [not run by this name: " .. e.hidden_by .. " comes first]" or ""
      io.write(string.format("%-16s %s (%s)%s\n", e.name, describe_file(e.path), e.path, note))
    end
    return
  end
  local source
  if mode == "run" and how == "stdin" then source = ... end
  local argv = table.pack(select(source and 2 or 1, ...))
  argv.n = nil
  if how == "bundled" and mode == "run" then
    local shadowed = M.find_user(target)
    if shadowed then
      io.stderr:write("etinspect: warning: the bundled script ", target, " runs, not ", shadowed,
                      " (a user script does not replace a bundled one; run it as etinspect ",
                      shadowed, ")\n")
    end
  end
  M.current = how ~= "stdin" and target or nil
  local S, chunk, prog = load(target, how, source)
  if mode == "help" then
    -- a file is run (without arguments) for its declaration
    if chunk then
      local ok, r = pcall(chunk)
      S = ok and r or nil
    end
    if not declared(S) then
      io.write(target, ": a plain script (it declares no arguments; a script declares them by ",
               "returning {description = ..., args = {...}, run = function(args) ... end})\n")
      return
    end
    io.write(M.help(S, prog))
    return
  end
  if chunk then
    S = chunk(table.unpack(argv))
    if not declared(S) then return end
  end
  local args = M.parse(S, argv, prog)
  if args then return S.run(args) end
end

return M
