--- etr_cases.lua - the ETRecords the tests write for corpus ETDumps, and
-- what linking them must give (worked out from spec §3.10, §5.6, §5.7).
--
-- small.etdp's Execute block (instruction id: events):
--   0: native_call_permute_copy.out, OPERATOR_CALL
--   1: native_call_addmm.out, OPERATOR_CALL
--   2: delegated 0, 1, 2, "fused_conv_relu #1", "add #1"; DELEGATE_CALL
--   3..6: add, relu, _softmax, view_copy (native_call_* and OPERATOR_CALL)
--   Method::execute has instruction id 0.
local w = require "etrwriter"
local M = {}

local EDGE = "executorch.exir.dialects.edge.ops.aten."
M.MODEL = "L__self__,,__main__.Model"
M.FC1 = M.MODEL .. ";L__self___fc1,L['self'].fc1,torch.nn.modules.linear.Linear"
M.BLOCK = M.MODEL .. ";L__self___block,L['self'].block,__main__.Block"
M.HEAD = M.MODEL .. ";L__self___head,L['self'].head,__main__.Head"

function M.trace(line, code)
  return string.format('File "model.py", line %d, in forward\n    %s', line, code)
end

-- the edge program of "forward" (current layout unless told)
function M.nodes()
  return {
    { name = "permute_copy", target = EDGE .. "permute_copy.default", inputs = { "p_fc1_weight" },
      outputs = { "permute_copy" },
      meta = { debug_handle = 1, stack_trace = M.trace(10, "y = self.fc1(x)"), nn_module_stack = M.FC1,
               source_fn_stack = "fc1,torch.nn.modules.linear.Linear" } },
    { name = "alloc", target = "memory.alloc", outputs = { "alloc" } },
    { name = "addmm", target = EDGE .. "addmm.default", inputs = { "p_fc1_bias", "x", "permute_copy" },
      outputs = { "addmm" },
      meta = { debug_handle = 2, stack_trace = M.trace(10, "y = self.fc1(x)"), nn_module_stack = M.FC1,
               source_fn_stack = "fc1,torch.nn.modules.linear.Linear" } },
    -- shares handle 2, no stack trace, no module stack: None in both dicts
    { name = "t_copy", target = EDGE .. "t_copy.default", inputs = { "addmm" }, outputs = { "t_copy" },
      meta = { debug_handle = 2 } },
    { name = "convolution", target = EDGE .. "convolution.default", inputs = { "t_copy" },
      outputs = { "convolution" },
      meta = { debug_handle = 3, stack_trace = M.trace(20, "y = self.block(y)"), nn_module_stack = M.BLOCK,
               source_fn_stack = "conv,torch.nn.modules.conv.Conv2d" } },
    { name = "relu", target = EDGE .. "relu.default", inputs = { "convolution" }, outputs = { "relu" },
      meta = { debug_handle = 4, stack_trace = M.trace(20, "y = self.block(y)"), nn_module_stack = M.BLOCK,
               source_fn_stack = "relu,torch.nn.modules.activation.ReLU" } },
    { name = "add", target = EDGE .. "add.Tensor", inputs = { "relu", "x" }, outputs = { "add" },
      meta = { debug_handle = 5, stack_trace = M.trace(21, "y = y + x"), nn_module_stack = M.BLOCK,
               source_fn_stack = "add,<built-in function add>" } },
    { name = "mul", target = EDGE .. "mul.Tensor", inputs = { "add", "x" }, outputs = { "mul" },
      meta = { debug_handle = 6, stack_trace = M.trace(22, "y = y * x"), nn_module_stack = M.BLOCK } },
    { name = "sub", target = EDGE .. "sub.Tensor", inputs = { "mul", "x" }, outputs = { "sub" },
      meta = { debug_handle = 7, stack_trace = M.trace(23, "y = y - x"), nn_module_stack = M.BLOCK } },
    { name = "executorch_call_delegate", target = "torch.ops.higher_order.executorch_call_delegate",
      inputs = { "t_copy" }, outputs = { "executorch_call_delegate" } },
    { name = "add_1", target = EDGE .. "add.Tensor", inputs = { "executorch_call_delegate", "x" },
      outputs = { "add_1" },
      meta = { debug_handle = 8, stack_trace = M.trace(30, "y = self.head(y) + x"), nn_module_stack = M.HEAD } },
    { name = "relu_1", target = EDGE .. "relu.default", inputs = { "add_1" }, outputs = { "relu_1" },
      meta = { debug_handle = 9, stack_trace = M.trace(31, "y = y.relu()"), nn_module_stack = M.HEAD } },
    { name = "_softmax", target = EDGE .. "_softmax.default", inputs = { "relu_1" }, outputs = { "_softmax" },
      meta = { debug_handle = 10, stack_trace = M.trace(32, "return y.softmax(-1).view(-1)") } },
    { name = "view_copy", target = EDGE .. "view_copy.default", inputs = { "_softmax" },
      outputs = { "view_copy" },
      meta = { debug_handle = 11, stack_trace = M.trace(32, "return y.softmax(-1).view(-1)") } },
  }
end

M.debug_handle_map = w.obj { "forward", w.obj { "0", 1, "1", 2, "2", { 3, 4, 5, 6, 7 }, "3", 8,
                                                 "4", 9, "5", 10, "6", 11 } }
M.delegate_map = w.obj { "forward", w.obj { "2", w.obj { "name", "XnnpackBackend", "delegate_map",
  w.obj { "0", { 3 }, "1", { 4 }, "2", { 5 }, "add", { 5 }, "fused_conv_relu #1", { 3, 4 },
          "add #1", { 6 } } } } }
M.num_outs = w.obj { "forward", w.obj { "0", 1, "1", 1, "2", 2, "3", 1, "4", 1, "5", 1, "6", 1 } }

--- Write the record for small.etdp at `path`.
-- opts.layout "current" (edge_dialect_exported_program/forward, the maps,
--   export_graph_id, companions) or "single" (before 2026-02: one
--   edge_dialect_exported_program) or "2023" (the 2023 JSON layout: nodes
--   without names, no num-outs map, no export_graph_id, _state_dict only);
-- opts.deflate: deflated entries; opts.extra: more entries appended.
function M.small(path, opts)
  opts = opts or {}
  local layout = opts.layout or "current"
  local program = w.program { layout = layout == "2023" and "2023" or "current", inputs = { "x" },
                              outputs = { "view_copy" }, nodes = M.nodes() }
  local entries = { { "ETRECORD_V0", "" } }
  local base = layout == "current" and "edge_dialect_exported_program/forward"
               or "edge_dialect_exported_program"
  entries[#entries + 1] = { base, program }
  entries[#entries + 1] = { base .. "_state_dict", "not decoded" }
  if layout ~= "2023" then
    entries[#entries + 1] = { base .. "_constants", "" }
    entries[#entries + 1] = { base .. "_example_inputs", "" }
  end
  entries[#entries + 1] = { "debug_handle_map", w.json(M.debug_handle_map) }
  entries[#entries + 1] = { "delegate_map", w.json(M.delegate_map) }
  if layout ~= "2023" then
    entries[#entries + 1] = { "instruction_id_to_num_outs_map", w.json(M.num_outs) }
    entries[#entries + 1] = { "export_graph_id", "140234" }
  end
  for _, e in ipairs(opts.extra or {}) do entries[#entries + 1] = e end
  return w.zip(path, entries, opts.deflate)
end

return M
