-- delegate_data.lua - helper of tests/e2e/delegate_data.t (not a test):
--   etinspect tests/lua/delegate_data.lua DUMP PARSER (tsv|print|frame)
-- writes what print_data_tabular (print) or save_data_to_tsv (tsv) give
-- with include_delegate_debug_data=true, or the Lua display frame's TSV
-- (frame), for the delegate-metadata parser PARSER: raw (none), mixed, num
-- or flag -- the same functions as gen_frame_cases.py's, in Lua.
local etinspect = require("etinspect")
local dump, parser, what = ...

local P = {}
function P.mixed(list)
  local first = list[1] or ""
  if #first == 0 then return {} end
  if first:sub(1, 1) == "{" then
    return etinspect.pyrepr.dict { { "size", #first }, { "runs", #list }, { "share", #first / 3 },
                                   { "json", true }, { "head", first:sub(1, 4) } }
  end
  local out = {}
  for i, x in ipairs(list) do out[i] = #x end
  return out
end
function P.num(list)
  local first = list[1] or ""
  if #first == 0 then return {} end
  return etinspect.pyrepr.dict { { "size", #first }, { "ratio", #first / 4 } }
end
function P.flag(list)
  local first = list[1] or ""
  if #first == 0 then return {} end
  return { is_json = first:sub(1, 1) == "{" }
end

etinspect.on_warning(function() end) -- debug.etdp's differing runs, no debug buffer
local insp = etinspect.Inspector { etdump_path = dump, delegate_metadata_parser = P[parser] }
local opts = { include_delegate_debug_data = true }
if what == "tsv" then
  insp:save_data_to_tsv(io.stdout, opts)
elseif what == "print" then
  insp:print_data_tabular(io.stdout, opts)
else
  io.write(require("etinspect.report").display_frame(insp, opts):render("tsv"))
end
