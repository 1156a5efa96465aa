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
-- args=, metavar=, required=}: NAME starting with "-" is an option ("-t --top"
-- gives aliases), else a positional argument; type is "string" (default),
-- "integer", "number" or "boolean" (an option without value: true when given,
-- else false); default is used when the argument is absent (a positional with
-- a default may be left out); choices lists the accepted strings; args is
-- argparse's count ("?", "*", "+", "2", ...; a list then); required = true
-- makes an option mandatory.  `run` receives the parsed values under the
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
M.names = { "top_ops", "framework_tax", "delegation", "modules", "diff", "etrecord" }

local function raise(field, msg, usage_text)
  error(setmetatable({ [field] = msg, usage_text = usage_text },
                     { __tostring = function(e) return e[field] end }), 0)
end

--- Raise a usage error: the host prints `usage_text` when given, then
-- "etinspect: " .. msg (no traceback), and exits 2.
-- @tparam string msg
-- @tparam[opt] string usage_text the usage lines
function M.usage_error(msg, usage_text) raise("usage", msg, usage_text) end

--- Raise an input error: the host prints `msg` (no traceback) and exits 1.
-- @tparam string msg
function M.input_error(msg) raise("input", msg) end

--- Is `name` a bundled script?
function M.is_bundled(name)
  for _, n in ipairs(M.names) do
    if n == name then return true end
  end
  return false
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
  for _, n in ipairs(M.names) do
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
-- @treturn string "stdin", "bundled", "data" (inputs for the command line,
--   directories of ETDumps too, and any other file whose name does not end
--   in .lua: a text one among them is the command line's input error)
--   or "script" (a Lua file: its name ends in .lua)
-- @raise usage error (exit 2) for a name that is neither; input error
--   (exit 1) for a missing or unreadable file
function M.resolve(target, input_kind)
  if target == "-" then return "stdin" end
  if M.is_bundled(target) then return "bundled" end
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
  M.usage_error(string.format("'%s' is neither a bundled script nor a file%s (etinspect --list-scripts)",
    target, near and ". Did you mean " .. near .. "?" or ""))
end

local SPEC_KEYS = { help = "string", type = "string", default = "string|number|boolean",
                    choices = "table", args = "string|number", metavar = "string", required = "boolean" }
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
local function load(target, how)
  if how == "bundled" then
    return require("etinspect.scripts." .. target), nil, "etinspect " .. target
  end
  local chunk, err = loadfile(how ~= "stdin" and target or nil)
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
function M.main(mode, target, how, ...)
  if mode == "list" then
    for _, n in ipairs(M.names) do
      io.write(string.format("%-16s %s\n", n, require("etinspect.scripts." .. n).description))
    end
    return
  end
  local argv = table.pack(...)
  argv.n = nil
  local S, chunk, prog = load(target, how)
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
    S = chunk(...)
    if not declared(S) then return end
  end
  local args = M.parse(S, argv, prog)
  if args then return S.run(args) end
end

return M
