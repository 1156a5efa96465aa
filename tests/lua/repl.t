#!/usr/bin/env etinspect
-- repl.t - the REPL's Lua half (etinspect.repl, etinspect.display):
-- completion, display of values and frames, meta commands.  The terminal
-- side (libedit, Ctrl-C, the pager) is tests/e2e/repl.t.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local sample = t.build .. "/fixtures/sample.etdp"
if not t.exists(sample) then t.skip_all(sample .. " not built (run make)") end

local display = require "etinspect.display"
local R = require "etinspect.repl"
-- the host's functions, as repl.c gives them: here a directory listing of
-- a fixed tree, and input roles by extension
R.setup {
  list_dir = function(path)
    local tree = { ["."] = { shelf = true, ["sample.etdp"] = false, [".hidden"] = false },
                   ["../"] = { shared = true, shelf = true, b = true } }
    return tree[path]
  end,
  input_kind = function() return "etdump" end,
  assign_inputs = function(files)
    local roles = {}
    for _, f in ipairs(files) do
      if f:find("%.etrecord$") then roles.etrecord = f else roles.etdump_path = f end
    end
    return roles
  end,
}

local function complete(line, cursor)
  local c, start, append = R.complete(line, cursor or #line)
  return table.concat(c, " "), start, append
end

-- completion of Lua
insp = etinspect.Inspector { etdump_path = sample }
df = insp:to_dataframe()
t.is(complete("insp.event_blocks[1].events[1].perf_d"), "insp.event_blocks[1].events[1].perf_data",
  "an index expression: a field of an Event reached through [1]")
t.is(select(2, complete("x = insp.event_blocks[1].events[1].perf_d")), 5, "the expression starts after 'x = '")
t.is(complete("insp.event_blocks[2].events[1].perf_data.p5"), "insp.event_blocks[2].events[1].perf_data.p50",
  "a field of a field (PerfData)")
t.is(complete("df:so"), "df:sort", "a Frame's method after ':'")
t.is(complete("df:he"), "df:head", "a Frame's method: head")
t.is(complete("df.event_n"), "df.event_name", "a Frame's column after '.'")
t.is(complete("df[1].event_n"), "df[1].event_name", "a Frame's row, then a field of it")
t.is(complete("insp:to_d"), "insp:to_dataframe", "an Inspector's method after ':'")
t.is(complete("insp.to_d"), "", "after '.', methods are not offered")
t.is(complete("insp:event_b"), "", "after ':', fields are not offered")
t.is(complete("insp:write_h"), "insp:write_html", "a method of the Lua library (etinspect.html) after ':'")
t.is(complete("insp:save_i"), "insp:save_intermediate_outputs", "... of etinspect.numeric")
t.is(complete("insp.event_blocks[1]:to_d"), "insp.event_blocks[1]:to_dataframe", "... an EventBlock's (etinspect.report)")
t.is(complete("insp.event_blocks[1].events[1]:as"), "insp.event_blocks[1].events[1]:asdict", "... an Event's")
do
  local all = " " .. table.concat(R.complete("insp:", #"insp:"), " ") .. " "
  local n = 0
  for _, m in ipairs{"to_dataframe", "write_html", "compare_results", "write_trace", "close"} do
    if all:find(" insp:" .. m .. " ", 1, true) then n = n + 1 end
  end
  t.is(n, 5, "'insp:' lists the C methods and the Lua library's")
end
t.is(complete("insp.event_b"), "insp.event_blocks", "an Inspector's field after '.'")
t.is(complete("etinspect.Insp"), "etinspect.Inspector", "a module's field")
t.is(complete("etinsp"), "etinspect", "a global")
t.is(complete("retu"), "return", "a keyword")
t.is(complete("string.for"), "string.format", "a standard library field")
t.is(complete("('x'):rep"), "", "no completion after a parenthesised expression")
do -- completing a field may make an Inspector's event blocks: their warnings wait
  local seen = {}
  etinspect.on_warning(function(m) seen[#seen + 1] = m end)
  rep = etinspect.Inspector { etdump_path = t.build .. "/fixtures/repeat.etdp" }
  t.is(complete("rep.event_blocks[1].events[1].perf_d"), "rep.event_blocks[1].events[1].perf_data",
    "completion through an Inspector whose blocks were not made yet")
  t.is(#seen, 0, "... no warning given while the line is typed")
  t.is(#rep.event_blocks, 1, "the line run")
  t.ok(#seen == 1 and seen[1]:find("only the last occurrence", 1, true), "... gives the blocks' warning then")
  etinspect.on_warning(nil)
  rep = nil
end
do
  local c = R.complete("etinspect.Frame.", #"etinspect.Frame.")
  local has_new = false
  for _, x in ipairs(c) do has_new = has_new or x == "etinspect.Frame.new" end
  t.ok(has_new and #c > 2, "all fields after a trailing '.'")
end
local k = "key"
tbl = { key = { deep = { x = 1 } }, [3] = { third = true } }
t.is(complete("tbl[3].th"), "tbl[3].third", "an integer key")
t.is(complete("tbl['key'].de"), "tbl['key'].deep", "a string key")
kname = "key"
t.is(complete("tbl[kname].de"), "tbl[kname].deep", "a global variable as key")
t.is(complete("s .. tbl.ke"), "tbl.key", "after an operator")
t.is(complete("s..tbl.ke"), "tbl.key", "after a concatenation")
-- __index chains, and no user code run
local calls = 0
base = { inherited = 1 }
derived = setmetatable({ own = 2 }, { __index = base })
trap = setmetatable({}, { __index = function() calls = calls + 1; return { x = 1 } end })
t.is(complete("derived.inh"), "derived.inherited", "a field through an __index table")
t.is(complete("trap.anything."), "", "an __index function is not called")
t.is(calls, 0, "... not once")
guarded = setmetatable({}, { __metatable = "locked", __index = { hidden_field = 1 } })
t.is(complete("guarded.hid"), "guarded.hidden_field", "a __metatable field does not hide the __index table")
t.is(complete("_G._ENV"), "", "names starting with _ only when asked for")
t.is(complete("_VERS"), "_VERSION", "... as here")
-- option keys inside Inspector{...}
t.is(complete("etinspect.Inspector{etdump_p"), "etdump_path", "an Inspector option key")
t.is(complete("etinspect.Inspector({etdump_path = 'x', etrec"), "etrecord etrecord_json_budget etrecord_method", "the keys after a comma")
t.is(complete("etinspect.Inspector{etdump_path = etinsp"), "etinspect", "a value: Lua again")
for _, key in ipairs(R.INSPECTOR_OPTIONS) do
  local ok, err = pcall(etinspect.Inspector, { [key] = {} })
  t.ok(not ok and not tostring(err):find("unknown option"), "Inspector takes the completed key " .. key)
end
-- file names
local cands, start, append = R.complete(".open ../sh", 11)
t.is(table.concat(cands, " ") .. "|" .. start, "../shared/ ../shelf/|7", ".open: file names, directories with '/'")
cands, start, append = R.complete(".open sa", 8)
t.is(table.concat(cands, " ") .. "|" .. append, "sample.etdp| ", ".open: a file, then a space")
t.is(complete(".open ."), ".hidden", ".open: hidden files only when asked for")
t.is(complete('.open "../b'), "../b/", ".open: after a quote")
t.is(complete('x = "../sh'), "../shared/ ../shelf/", "inside a string literal: file names")
t.is(complete("x = 1 -- ../sh"), "", "not in a comment")
-- meta commands
cands, start, append = R.complete(".mo", 3)
t.is(table.concat(cands, " ") .. "|" .. start .. "|" .. append, ".mode|1| ", "a meta command, then a space")
t.is(complete("."), ".exit .help .mode .open .pager .quit .set .sql", "every meta command")
t.is(complete(".mode m"), "markdown", ".mode: the styles")
t.is(complete(".set max_c"), "max_colwidth", ".set: the option names")
t.is(complete(".pager o"), "off on", ".pager: on and off")

-- display
local function show(...) return display.render("plain", ...) end
t.is(show(1, "a\tb", nil, true), '1\t"a\\tb"\tnil\ttrue\n', "scalars: tab-separated, strings quoted")
t.is(show({ 1, 2, 3, a = 1, ["b c"] = 2 }), '{1, 2, 3, a = 1, ["b c"] = 2}\n', "a table on one line")
t.is(show("\xff\1"), '"\\xFF\\001"\n', "bytes that are not UTF-8, control bytes")
t.is(show(print), "function: builtin\n", "a C function")
local cyc = {}
cyc.me = cyc
t.is(show(cyc), "{me = <cycle>}\n", "a cycle")
t.is(show({ { { { { 1 } } } } }), "{{{{{...}}}}}\n", "nesting deeper than 4 levels")
display.set_option("display.max_rows", 4)
local long = {}
for i = 1, 403 do long[i] = i end
t.is(show(long), "{1, 2, ..., 402, 403}\n\n[403 items]\n", "a long sequence: head and tail, the count")
t.is(show({ data = long }), "{data = {1, 2, ..., 402, 403}}\n", "nested: head and tail, no footer")
display.set_option("display.max_rows", nil)
t.is(#show(long) > 1000, true, "max_rows nil: everything")
display.reset_option("display.max_rows")
t.is(display.get_option("display.max_rows"), 60, "reset_option: the default, 60")
display.set_option("display.width", 20)
t.is(show({ "aaaa", "bbbb", "cccc", "dddd", "eeee" }), '{\n  "aaaa", "bbbb",\n  "cccc", "dddd",\n  "eeee",\n}\n',
  "a sequence too wide fills the lines")
t.is(show({ alpha = 1, beta = { 1, 2 }, gamma = "g" }), '{\n  alpha = 1,\n  beta = {1, 2},\n  gamma = "g",\n}\n',
  "a record too wide: one field per line")
display.reset_option("display.width")
t.raises(function() display.set_option("display.max_row", 3) end, "unknown option 'display.max_row'",
  "an unknown option is named")
local ev = insp.event_blocks[2].events[1]
local text = show(ev)
t.ok(text:find("^Event 'native_call_convolution.out' %(instruction 0, 3 runs, p50 0.1236 ms%) {\n") and
     text:find("\n  instruction_id = 0,\n") and text:find("\n  start_time = {100300, 350300, 600300},\n") and
     text:find("\n  perf_data = PerfData%(n=3, p50=0.1236, avg=0.123467 ms%),\n"),
  "a userdata: its tostring, then its fields, indented")
t.is(show(insp.event_blocks),
  "{\n  EventBlock 'Default' (1 run, 2 events),\n  EventBlock 'Execute' (3 runs, 8 events),\n}\n",
  "nested userdata: their tostring")
-- frames, in the mode
t.is(show(df:select { "event_name" }:head(2)), "event_name          \nMethod::init        \nProgram::load_method\n",
  "a small frame: whole")
local medium = (os.getenv("ET_SHARED") or "../shared") .. "/corpus/etdump/medium.etdp"
if t.exists(medium) then
  local m = etinspect.Inspector { etdump_path = medium }
  display.set_option("display.width", 100)
  local out = show(m:to_dataframe())
  local lines, widest = 0, 0
  for line in out:gmatch("[^\n]*\n") do
    lines = lines + 1
    widest = math.max(widest, utf8.len(line) - 1)
  end
  t.ok(lines <= 100 and widest <= 100 and out:find("\n%[403 rows x %d+ columns%]\n$"),
    string.format("medium: %d lines of at most %d characters, the footer", lines, widest))
  display.set_option("display.max_rows", 20)
  out = display.render("box", m:to_dataframe())
  lines = select(2, out:gsub("\n", ""))
  t.ok(lines < 60 and out:find("\n%[403 rows x %d+ columns%]\n$"), "max_rows 20 in box mode: " .. lines .. " lines")
  display.reset_option("display.max_rows")
  display.reset_option("display.width")
else
  t.skip("medium.etdp not in the corpus")
end

-- meta commands
local function meta(line)
  local out = {}
  local write = io.write
  io.write = function(...) for _, s in ipairs { ... } do out[#out + 1] = tostring(s) end end -- luacheck: ignore
  local ok, err = pcall(R.meta, line)
  io.write = write
  return ok and table.concat(out) or "error: " .. tostring(err)
end
t.is(meta(".mode"), "mode: plain (box, plain, markdown, tsv, csv, json)\n", ".mode alone shows the mode")
t.is(meta(".mode csv"), "", ".mode csv")
t.is(R.state.mode, "csv", "... is the mode")
t.is(R.render(df:select { "event_name" }:head(1)), ",event_name\n0,Method::init\n", "frames then print as CSV")
t.is(meta(".mode yaml"), "error: .mode: unknown style 'yaml' (box, plain, markdown, tsv, csv, json)",
  ".mode: an unknown style, with the styles")
meta(".mode plain")
t.is(meta(".set max_rows 20"), "", ".set max_rows 20")
t.is(display.get_option("display.max_rows"), 20, "... sets display.max_rows")
t.is(meta(".set max_rows"), "max_rows      20\n", ".set NAME shows it")
t.is(meta(".set max_rows none"), "", ".set max_rows none")
t.is(display.get_option("display.max_rows"), nil, "... no limit")
t.is(meta(".set max_rows 0"), "error: .set: max_rows: expected a positive integer or none, got '0'",
  ".set: a bad value")
t.is(meta(".set colour 3"), "error: .set: unknown option 'colour' (max_rows, min_rows, max_colwidth, width, pager)",
  ".set: an unknown option")
meta(".set max_rows 60")
R.terminal(120)
t.is(display.get_option("display.width"), 120, "the terminal's width is display.width")
t.is(meta(".set width 70"), "", ".set width 70")
R.terminal(130)
t.is(display.get_option("display.width"), 70, "... then the terminal's width no longer changes it")
meta(".set width auto")
R.terminal(90)
t.is(display.get_option("display.width"), 90, ".set width auto: it follows the terminal again")
display.set_option("display.width", 77)
R.terminal(95)
t.is(display.get_option("display.width"), 77, "a width set from Lua is kept")
t.is(meta(".pager off") .. tostring(R.state.pager), "false", ".pager off")
t.is(meta(".pager"), "pager: off\n", ".pager shows it")
t.is(meta(".pager maybe"), "error: .pager: expected on or off, got 'maybe'", ".pager: a bad value")
t.is(meta(".bogus"), "error: unknown command '.bogus' (try .help)", "an unknown command")
t.is(meta(".open"), "error: .open: expected a file name (an ETDump or legacy dump, an ETRecord, ...)",
  ".open without a file")
t.is(meta('.open "' .. sample), 'error: .open: unterminated " quote', ".open: an unterminated quote")
t.is(meta(".open '" .. sample .. "'"), "insp = Inspector '" .. sample .. "' (2 event blocks, 10 events, ns -> ms)\n",
  ".open: a quoted path; binds insp")
t.is(table.concat(R.words("~/x 'a b' c\\ d \"e\\\"f\" ~user"), "|"),
  (os.getenv("HOME") or "~") .. "/x|a b|c d|e\"f|~user", "arguments: quotes, backslashes, ~/")
t.done()
