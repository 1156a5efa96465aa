--- numeric_cases.lua - the ETRecord numeric.t writes for the corpus's
-- debug.etdp (tests/lua/etrwriter.lua).
local w = require "etrwriter"
local M = {}

local EDGE = "executorch.exir.dialects.edge.ops.aten."
-- debug.etdp's Execute block: kernels at instruction ids 0..15 and 17 get
-- handles 1..16 and 23; instruction 16 is a delegate call whose delegated
-- events ("10", quantize_per_tensor, split_pair, "11", "12", scale) get
-- handles 17..22.
function M.debug_record(path)
  local names = { "mul", "arange", "_to_copy", "_to_copy_1", "_to_copy_2", "_to_copy_3", "_to_copy_4",
                  "_to_copy_5", "gt", "sum_1", "slice_copy", "permute_copy", "split_copy", "sym_size",
                  "scalar_tensor", "eq", "d_linear", "d_quantize", "d_split", "d_int", "d_bool", "d_scale",
                  "logical_not" }
  local nodes, prev = {}, "x"
  for h, nm in ipairs(names) do
    local meta = { debug_handle = h }
    if h % 2 == 1 then meta.stack_trace = string.format('File "model.py", line %d, in forward\n    y = %s(y)', h, nm) end
    nodes[#nodes + 1] = { name = nm, target = EDGE .. nm .. ".default", inputs = { prev }, outputs = { nm }, meta = meta }
    prev = nm
  end
  nodes[#nodes + 1] = { name = "getitem", target = "_operator.getitem", inputs = { "split_copy" }, outputs = { "getitem" },
                        meta = { debug_handle = 13 } }
  local dhm, nom = {}, {}
  for iid = 0, 17 do
    dhm[#dhm + 1] = tostring(iid)
    dhm[#dhm + 1] = iid == 16 and { 17, 18, 19, 20, 21, 22 } or (iid == 17 and 23 or iid + 1)
    nom[#nom + 1] = tostring(iid)
    nom[#nom + 1] = iid == 16 and 3 or 1
  end
  local dmap = w.obj { "forward", w.obj { "16", w.obj { "name", "TestBackend", "delegate_map",
    w.obj { "10", { 17 }, "quantize_per_tensor", { 18 }, "split_pair", { 19 }, "11", { 20 }, "12", { 21 }, "scale", { 22 } } } } }
  return w.zip(path, {
    { "ETRECORD_V0", "" },
    { "edge_dialect_exported_program/forward", w.program { inputs = { "x" }, outputs = { prev }, nodes = nodes } },
    { "debug_handle_map", w.json(w.obj { "forward", w.obj(dhm) }) },
    { "delegate_map", w.json(dmap) },
    { "instruction_id_to_num_outs_map", w.json(w.obj { "forward", w.obj(nom) }) },
    { "export_graph_id", "0" } })
end


return M
