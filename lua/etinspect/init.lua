--- etinspect.init: completes the `etinspect` module with its Lua library.
-- Loaded by luaopen_etinspect; adds Frame, parsers, converters, diff and the
-- Lua-implemented methods of the Inspector, EventBlock and Event types
-- (the tabular views of etinspect.report, write_html of etinspect.html).
local M = require("etinspect")
M.Frame = require("etinspect.frame")
require("etinspect.options").install(M)
M.parsers = require("etinspect.parsers")
M.converters = require("etinspect.converters")
M.pyrepr = require("etinspect.pyrepr")
M.diff = require("etinspect.diff").diff
M.open_many = require("etinspect.many").open_many
M.scripts = require("etinspect.scripts") -- usage_error, input_error, parse (docs/lua-api.md)
require("etinspect.report").install()
require("etinspect.html").install()
require("etinspect.numeric").install()
require("etinspect.sql").install()
-- not M: package.loaded["etinspect.init"] would hold the module a second
-- time, and a traceback would name its functions by whichever of the two
-- keys Lua's table walk meets first ('etinspect.init.Inspector')
return true
