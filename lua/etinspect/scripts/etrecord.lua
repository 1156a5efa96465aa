--- etinspect.scripts.etrecord: what an ETRecord holds, without a dump
-- (`etinspect model.etrecord` prints this): its methods with the sizes of
-- their maps and edge programs, its graphs, and every entry of the archive.
local etinspect = require("etinspect")
local common = require("etinspect.scripts.common")
local Frame = etinspect.Frame

local S = {
  description = "Summarise an ETRecord: methods, graphs and the entries of the archive",
  args = {
    { "etrecord", help = "the ETRecord to read" },
    { "--format", choices = common.FORMATS, default = "plain", help = "output format of the tables" },
    { "--etrecord_json_budget", type = "integer", metavar = "N",
      help = "JSON values per ETRecord entry (default 8000000)" },
  },
}

local function count(t)
  local n = 0
  for _ in pairs(t or {}) do n = n + 1 end
  return n
end

--- One row per method: method, instructions (entries of its
-- debug_handle_map), delegate calls (of its delegate_map), outputs (of its
-- instruction_id_to_num_outs_map), edge program nodes (nil without one).
-- @tparam ETRecord rec
-- @treturn Frame
function S.methods(rec)
  local rows = {}
  for i, m in ipairs(rec.methods) do
    local g = rec:get_exported_program(nil, m)
    rows[i] = { method = m,
                instructions = count((rec.debug_handle_map or {})[m]),
                ["delegate calls"] = count((rec.delegate_map or {})[m]),
                ["num_outs entries"] = count((rec.instruction_id_to_num_outs_map or {})[m]),
                ["edge program nodes"] = g and #g or nil }
  end
  return Frame.new({ "method", "instructions", "delegate calls", "num_outs entries",
                     "edge program nodes" }, rows)
end

--- One row per entry of the archive: name, kind, method, size,
-- compressed size, compression.
-- @tparam ETRecord rec
-- @treturn Frame
function S.entries(rec)
  local rows = {}
  for i, e in ipairs(rec.entries) do
    rows[i] = { name = e.name, kind = e.kind, method = e.method, size = e.size,
                compressed = e.compressed_size, compression = e.compression }
  end
  return Frame.new({ "name", "kind", "method", "size", "compressed", "compression" }, rows)
end

--- Print the summary of `o.etrecord` in `o.format`.
function S.run(o)
  local ok, rec = pcall(etinspect.parse_etrecord, o.etrecord,
                        { etrecord_json_budget = o.etrecord_json_budget })
  if not ok then common.input_error(tostring(rec)) end
  -- the methods' table reads every edge program: a malformed one is an
  -- input error naming the file, the entry and what was expected, before
  -- anything is printed (its message without the positions it went through)
  local mok, methods = pcall(S.methods, rec)
  if not mok then
    rec:close()
    common.input_error((tostring(methods):gsub("^%[etinspect%] [%w_%.]+:%d+: ", "")))
  end
  io.write(tostring(rec), "\n")
  io.write("export_graph_id: ", tostring(rec.export_graph_id), "\n")
  io.write("graphs: ", table.concat(rec.graphs, ", "), "\n\n")
  common.show(methods, o)
  io.write("\n")
  common.show(S.entries(rec), o)
  rec:close()
end

return S
