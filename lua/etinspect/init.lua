--- etinspect.init: completes the `etinspect` module with its Lua library.
-- Loaded by luaopen_etinspect; adds Frame, parsers, converters and the
-- Lua-implemented methods of the Inspector, EventBlock and Event types.
local M = require("etinspect")
M.Frame = require("etinspect.frame")
M.parsers = require("etinspect.parsers")
M.converters = require("etinspect.converters")
M.pyrepr = require("etinspect.pyrepr")
require("etinspect.report").install()
return M
