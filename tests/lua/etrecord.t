#!/usr/bin/env etinspect
-- etrecord.t - ETRecords linked to ETDumps (spec §3.10, §5, §6.5, §6.6):
-- the corpus's 2023 record, and records written here (etr_cases.lua) for
-- small.etdp in every layout, stored and deflated, with two methods, and
-- for the delegate_ids fixture; every attached field is checked against
-- what the spec's rules give.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local w = require "etrwriter"
local cases = require "etr_cases"
local pr = require "etinspect.pyrepr"
etinspect.on_warning(function() end) -- warnings are checked through insp.warnings

local small = t.corpus .. "/small.etdp"
local example = t.corpus .. "/repo_example_etrecord_v0_2023.bin"
local have_corpus = io.open(small) ~= nil
local tmp = os.tmpname()
os.remove(tmp)
os.execute("mkdir -p '" .. tmp .. "'")

local function events_of(insp)
  local out = {}
  for _, b in ipairs(insp.event_blocks) do
    for _, ev in ipairs(b.events) do out[#out + 1] = ev end
  end
  return out
end

local function find(insp, name)
  for _, ev in ipairs(events_of(insp)) do
    if ev.name == name then return ev end
  end
end

-- the 2023 example record (acceptance) --------------------------------------
if io.open(example) then
  local rec = etinspect.parse_etrecord(example)
  t.is(#rec.entries, 7, "2023 example: 7 entries")
  t.is(rec.entries[4].kind, "edge_program_single", "2023 example: the single-program edge layout")
  t.is(rec.entries[5].companion, "state_dict", "2023 example: its state dict is listed")
  t.is(pr.repr(rec.methods), "['forward']", "2023 example: method forward (from its edge program)")
  t.is(pr.repr(rec.graphs), "['edge_dialect_graph_module', 'aten_dialect_output/forward']",
       "2023 example: the graphs it has")
  t.is(next(rec.debug_handle_map), nil, "2023 example: empty debug_handle_map")
  t.is(rec.instruction_id_to_num_outs_map, nil, "2023 example: no num-outs map")
  local g = rec:get_exported_program()
  t.is(tostring(g), "Graph 'edge_dialect_graph_module' (1 nodes)", "2023 example: edge program")
  t.is(g.schema_version, "1.0", "2023 example: schema version 1")
  local muls = g:nodes_by_debug_handle(2)
  t.is(#muls, 1, "2023 example: one node with debug handle 2")
  local mul = muls[1]
  t.is(mul.op, "aten.mul.Tensor", "2023 example: it is the mul node")
  t.is(mul.name, "aten_mul_tensor", "2023 example: named after its output, as torch.fx names edge ops")
  t.is(mul.debug_handle, 2, "2023 example: debug handle 2")
  t.ok(mul.stack_trace:match("return input %* other%s*$"), "2023 example: stack trace ends in 'return input * other'")
  t.is(pr.repr(mul.inputs), "['arg0_1', 'arg1_1']", "2023 example: inputs")
  t.is(pr.repr(mul.outputs), "['aten_mul_tensor']", "2023 example: outputs")
  t.is(mul.module_hierarchy, nil, "2023 example: a top-level op has no nn_module_stack")
  t.is(g:node("aten_mul_tensor").debug_handle, 2, "2023 example: lookup by name")
  t.is(g:node("mul"), nil, "2023 example: no node named mul in the edge program")
  local aten = rec:get_exported_program("aten_dialect_output/forward")
  t.is(tostring(aten), "Graph 'aten_dialect_output/forward' (1 nodes)", "2023 example: aten_dialect_output/forward by name")
  t.is(aten.nodes[1].op, "mul.Tensor", "2023 example: the ATen op is mul.Tensor")
  t.is(rec:get_exported_program("no_such_graph"), nil, "unknown graph: nil, as graph_map.get")
  if have_corpus then
    local insp = etinspect.Inspector { etdump_path = small, etrecord = rec }
    t.is(insp.warnings[#insp.warnings],
         "ETRecord '" .. example .. "': debug_handle_map has no method 'forward' (its methods: none); "
         .. "the events of block 'Execute' are not linked",
         "2023 example with small.etdp: a warning, not the reference's KeyError")
    t.is(find(insp, "DELEGATE_CALL").debug_handles, nil, "2023 example: nothing linked")
    t.raises(function() rec:close() end, "linked to an open Inspector", "a linked record cannot be closed")
    insp:close()
  else
    t.skip("the 2023 example with small.etdp: " .. small .. " absent")
  end
  rec:close()
  t.raises(function() return g.nodes end, "Graph used after its ETRecord was closed", "graph after close")
  t.raises(function() return rec.methods end, "ETRecord used after it was closed", "record after close")
else
  t.skip(example .. " absent")
end

if not have_corpus then
  t.skip("the small.etdp records: " .. small .. " absent")
  t.done()
  return
end

-- small.etdp, current layout ------------------------------------------------
local FC1 = "{'L__self__': ('', '__main__.Model'), 'L__self___fc1': (\"L['self'].fc1\", 'torch.nn.modules.linear.Linear')}"
local BLOCK = "{'L__self__': ('', '__main__.Model'), 'L__self___block': (\"L['self'].block\", '__main__.Block')}"
local HEAD = "{'L__self__': ('', '__main__.Model'), 'L__self___head': (\"L['self'].head\", '__main__.Head')}"
local function tr(line, code) return pr.repr(cases.trace(line, code)) end
local FC1_TRACE = tr(10, "y = self.fc1(x)")
local BLOCK_TRACE = tr(20, "y = self.block(y)")

-- name -> {debug_handles, num_outputs, backend, op_types, stack_traces, module_hierarchy}
local expect = {
  ["native_call_permute_copy.out"] = { "1", 1, nil, "['aten.permute_copy.default']",
    "{'permute_copy_': " .. FC1_TRACE .. "}", "{'permute_copy_': " .. FC1 .. "}" },
  ["native_call_addmm.out"] = { "2", 1, nil, "['aten.addmm.default', 'aten.t_copy.default']",
    "{'addmm_': " .. FC1_TRACE .. ", 't_copy_': None}", "{'addmm_': " .. FC1 .. ", 't_copy_': None}" },
  ["0"] = { "[3]", 2, "XnnpackBackend", "['aten.convolution.default']",
    "{'convolution_': " .. BLOCK_TRACE .. "}", "{'convolution_': " .. BLOCK .. "}" },
  ["1"] = { "[4]", 2, "XnnpackBackend", "['aten.relu.default']",
    "{'relu_': " .. BLOCK_TRACE .. "}", "{'relu_': " .. BLOCK .. "}" },
  ["2"] = { "[5]", 2, "XnnpackBackend", "['aten.add.Tensor']",
    "{'add_': " .. tr(21, "y = y + x") .. "}", "{'add_': " .. BLOCK .. "}" },
  ["fused_conv_relu #1"] = { "[3, 4]", 2, "XnnpackBackend", "['aten.convolution.default', 'aten.relu.default']",
    "{'convolution_': " .. BLOCK_TRACE .. ", 'relu_': " .. BLOCK_TRACE .. "}",
    "{'convolution_': " .. BLOCK .. ", 'relu_': " .. BLOCK .. "}" },
  ["add #1"] = { "[6]", 2, "XnnpackBackend", "['aten.mul.Tensor']",
    "{'mul_': " .. tr(22, "y = y * x") .. "}", "{'mul_': " .. BLOCK .. "}" },
  ["DELEGATE_CALL"] = { "[3, 4, 5, 6, 7]", 2, "XnnpackBackend",
    "['aten.convolution.default', 'aten.relu.default', 'aten.add.Tensor', 'aten.mul.Tensor', 'aten.sub.Tensor']",
    "{'convolution_': " .. BLOCK_TRACE .. ", 'relu_': " .. BLOCK_TRACE .. ", 'add_': " .. tr(21, "y = y + x")
      .. ", 'mul_': " .. tr(22, "y = y * x") .. ", 'sub_': " .. tr(23, "y = y - x") .. "}",
    "{'convolution_': " .. BLOCK .. ", 'relu_': " .. BLOCK .. ", 'add_': " .. BLOCK .. ", 'mul_': " .. BLOCK
      .. ", 'sub_': " .. BLOCK .. "}" },
  ["native_call_add.out"] = { "8", 1, nil, "['aten.add.Tensor']",
    "{'add_1_': " .. tr(30, "y = self.head(y) + x") .. "}", "{'add_1_': " .. HEAD .. "}" },
  ["native_call_relu.out"] = { "9", 1, nil, "['aten.relu.default']",
    "{'relu_1_': " .. tr(31, "y = y.relu()") .. "}", "{'relu_1_': " .. HEAD .. "}" },
  ["native_call__softmax.out"] = { "10", 1, nil, "['aten._softmax.default']",
    "{'_softmax_': " .. tr(32, "return y.softmax(-1).view(-1)") .. "}", "{'_softmax_': None}" },
  ["native_call_view_copy.out"] = { "11", 1, nil, "['aten.view_copy.default']",
    "{'view_copy_': " .. tr(32, "return y.softmax(-1).view(-1)") .. "}", "{'view_copy_': None}" },
  -- instruction id 0 is in the map: handles and num_outputs, but framework
  -- events are never associated with nodes (spec §5.6 step 3)
  ["Method::execute"] = { "1", 1, nil, "[]", "{}", "{}" },
}
-- OPERATOR_CALL events carry what their native_call_* sibling does
local sibling = { [0] = "native_call_permute_copy.out", "native_call_addmm.out", nil, "native_call_add.out",
                  "native_call_relu.out", "native_call__softmax.out", "native_call_view_copy.out" }

local function check_linkage(insp, label, over)
  local n, bad = 0, {}
  for _, ev in ipairs(events_of(insp)) do
    local want = expect[ev.name == "OPERATOR_CALL" and sibling[ev.instruction_id] or ev.name]
    if over and over[ev.name] then want = over[ev.name] end
    local got = { pr.repr(ev.debug_handles), ev.num_outputs, ev.delegate_backend_name, pr.repr(ev.op_types),
                  pr.repr(ev.stack_traces), pr.repr(ev.module_hierarchy) }
    for k = 1, 6 do
      if got[k] ~= want[k] then
        bad[#bad + 1] = string.format("%s field %d: got %s, want %s", ev.name, k, tostring(got[k]), tostring(want[k]))
      end
    end
    n = n + 1
  end
  t.ok(n == 19 and #bad == 0, label .. ": every attached field of the 19 events")
  for _, b in ipairs(bad) do t.diag(b) end
end

local rec_path = cases.small(tmp .. "/current.bin")
local insp = etinspect.Inspector { etdump_path = small, etrecord = rec_path }
check_linkage(insp, "current layout, stored")
t.is(#insp.warnings, 0, "current layout: no warning")
t.is(tostring(insp.etrecord), "ETRecord '" .. rec_path .. "' (9 entries, methods: forward)", "insp.etrecord")
t.is(insp.etrecord.export_graph_id, 140234, "export_graph_id")
t.is(pr.repr(insp.etrecord.instruction_id_to_num_outs_map.forward[2]), "2", "num-outs map, integer keys")
t.is(pr.repr(insp.etrecord.delegate_map.forward[2].delegate_map["fused_conv_relu #1"]), "[3, 4]",
     "delegate map as Lua tables")
t.is(pr.repr(insp.etrecord.debug_handle_map.forward[2]), "[3, 4, 5, 6, 7]", "debug handle map as Lua tables")
local dc = find(insp, "DELEGATE_CALL")
t.is(pr.repr(dc:asdict().op_types),
     "\"['aten.convolution.default', 'aten.relu.default' ... 'aten.sub.Tensor'] (5 total)\"",
     "asdict: op_types with 5 entries abbreviated (spec §6.1)")
t.is(math.type(find(insp, "native_call_addmm.out").debug_handles), "integer", "a kernel's debug_handles is an int")
for _, k in ipairs { "native_call_addmm.out" } do
  local keys = {}
  for key, v in pairs(find(insp, k).stack_traces) do keys[#keys + 1] = key .. "=" .. tostring(v ~= nil) end
  t.is(table.concat(keys, " "), "addmm_=true t_copy_=false", "pairs() walks stack_traces in order, None included")
end

-- find_total_for_module (spec §6.5): avg of each event once, OPERATOR_CALL skipped
local function avg(name) return find(insp, name).perf_data.avg end
t.is(insp:find_total_for_module("L__self___fc1"),
     0.0 + avg("native_call_permute_copy.out") + avg("native_call_addmm.out"),
     "find_total_for_module('L__self___fc1'): permute_copy and addmm")
t.is(insp:find_total_for_module("L__self___fc1"), 0.0160751, "find_total_for_module('L__self___fc1') in ms")
t.is(insp:find_total_for_module("L__self___block"),
     0.0 + avg("0") + avg("1") + avg("2") + avg("fused_conv_relu #1") + avg("add #1") + avg("DELEGATE_CALL"),
     "find_total_for_module('L__self___block'): the delegated events and the call")
t.is(insp:find_total_for_module("head"), 0.0 + avg("native_call_add.out") + avg("native_call_relu.out"),
     "find_total_for_module: substring of the key")
t.is(insp:find_total_for_module("L__self___nothing"), 0.0, "find_total_for_module: no module, 0.0")

-- Graph and Node
local g = insp:get_exported_program()
t.is(tostring(g), "Graph 'edge_dialect_graph_module' (13 nodes)", "memory.alloc is not a node")
t.is(#g, 13, "#graph")
local two = g:nodes_by_debug_handle(2)
t.is(#two == 2 and two[1].name .. "," .. two[2].name, "addmm,t_copy", "nodes_by_debug_handle(2), graph order")
t.is(#g:nodes_by_debug_handle(99), 0, "nodes_by_debug_handle: none")
local node = g:node("addmm")
t.is(tostring(node), "Node 'addmm' (aten.addmm.default, debug handle 2)", "tostring(node)")
t.is(node.target, "executorch.exir.dialects.edge.ops.aten.addmm.default", "node.target")
t.is(pr.repr(node.module_hierarchy), FC1, "node.module_hierarchy")
t.is(node.source_fn_stack, "fc1,torch.nn.modules.linear.Linear", "node.source_fn_stack (raw)")
t.is(pr.repr(node.inputs), "['p_fc1_bias', 'x', 'permute_copy']", "node.inputs")
t.is(g:node("executorch_call_delegate").op, "executorch_call_delegate", "delegate call op (spec §5.9)")
t.is(g:node("executorch_call_delegate").debug_handle, nil, "no handle: nil")
local out = {}
g:print({ write = function(_, s) out[#out + 1] = s end })
t.is(out[2], "addmm = aten.addmm.default(p_fc1_bias, x, permute_copy)  # handle 2\n"
     .. "    module: L['self'].fc1 (torch.nn.modules.linear.Linear)\n    at: y = self.fc1(x)\n", "g:print, one node")
t.is(#out, 13, "g:print: one entry per node")
t.is(insp:get_exported_program("aten_dialect_output/forward"), nil, "a graph the record lacks: nil")
insp:close()

-- the TSV shows op_types and the backend (spec §6.4) -------------------------
insp = etinspect.Inspector { etdump_path = small, etrecord = rec_path }
insp:save_data_to_tsv(tmp .. "/small.tsv")
local tsv = assert(io.open(tmp .. "/small.tsv")):read("a")
t.ok(tsv:find("\tDELEGATE_CALL\t[^\n]*\t%['aten.convolution.default', 'aten.relu.default' ... 'aten.sub.Tensor'%] %(5 total%)\tFalse\tXnnpackBackend\t"),
     "TSV: DELEGATE_CALL row with abbreviated op_types and its backend")
t.ok(tsv:find("\tadd #1\t[^\n]*\t%['aten.mul.Tensor'%]\tTrue\tXnnpackBackend\t"), "TSV: a delegated event's row")
insp:close()

-- the same record deflated, in the single-program layout, and the 2023 layout
check_linkage(etinspect.Inspector { etdump_path = small,
                                    etrecord = cases.small(tmp .. "/deflated.bin", { deflate = true }) },
              "current layout, deflated")
check_linkage(etinspect.Inspector { etdump_path = small,
                                    etrecord = cases.small(tmp .. "/single.bin", { layout = "single" }) },
              "single-program layout (edge_dialect_exported_program)")
local old = {}
for name, v in pairs(expect) do
  old[name] = { v[1], 1, v[3], v[4], v[5], v[6] } -- no num-outs map: num_outputs 1
end
old.OPERATOR_CALL = nil
local insp23 = etinspect.Inspector { etdump_path = small,
                                     etrecord = cases.small(tmp .. "/l2023.bin", { layout = "2023", deflate = true }) }
check_linkage(insp23, "2023 layout (no names, no num-outs map), deflated", old)
t.is(#insp23.warnings, 0, "2023 layout: linking without the num-outs map needs no warning")

-- enable_module_hierarchy (spec §5.7): addmm sits in module subgraph (fc1,
-- Linear), t_copy (no source_fn_stack) stays in the flat graph and now
-- comes first among the nodes of handle 2
local mh = etinspect.Inspector { etdump_path = small, etrecord = rec_path, enable_module_hierarchy = true }
local mod = find(mh, "native_call_addmm.out")
t.is(pr.repr(mod.op_types), "['aten.t_copy.default', 'aten.addmm.default']",
     "enable_module_hierarchy: flat nodes before module subgraphs")
t.is(pr.repr(mod.stack_traces), "{'t_copy_': None, 'addmm_': " .. FC1_TRACE .. "}",
     "enable_module_hierarchy: stack_traces order follows")
t.is(pr.repr(find(mh, "DELEGATE_CALL").op_types),
     "['aten.convolution.default', 'aten.relu.default', 'aten.add.Tensor', 'aten.mul.Tensor', 'aten.sub.Tensor']",
     "enable_module_hierarchy: one node per handle keeps its order")

-- reference_graph_name: a graph_map program
local with_aten = cases.small(tmp .. "/aten.bin", { extra = {
  { "aten_dialect_output/forward", w.program { nodes = {
    { name = "linear", target = "torch.ops.aten.linear.default", inputs = { "x" }, outputs = { "linear" },
      meta = { debug_handle = 2, stack_trace = cases.trace(10, "y = self.fc1(x)") } } } } },
  { "aten_dialect_output/forward_state_dict", "" } } })
local ref = etinspect.Inspector { etdump_path = small, etrecord = with_aten,
                                  reference_graph_name = "aten_dialect_output/forward" }
t.is(pr.repr(find(ref, "native_call_addmm.out").op_types), "['linear.default']",
     "reference_graph_name: nodes of aten_dialect_output/forward (torch.ops.aten op names)")
t.is(pr.repr(find(ref, "native_call_permute_copy.out").op_types), "[]", "reference graph without handle 1")
t.raises(function()
  etinspect.Inspector { etdump_path = small, etrecord = with_aten, reference_graph_name = "edge_after_transform/forward" }
end, "has no reference graph 'edge_after_transform/forward' %(graphs: edge_dialect_graph_module, aten_dialect_output/forward%)",
  "an unknown reference graph is an error naming the graphs")

-- two methods ---------------------------------------------------------------
local function two_methods(path, methods)
  local entries = { { "ETRECORD_V0", "" } }
  local dh, no = {}, {}
  for _, m in ipairs(methods) do
    local nodes = cases.nodes()
    if m == "encode" then -- encode: every handle + 100, ops renamed
      for _, n in ipairs(nodes) do
        if n.meta and n.meta.debug_handle then n.meta.debug_handle = n.meta.debug_handle + 100 end
      end
    end
    entries[#entries + 1] = { "edge_dialect_exported_program/" .. m,
                              w.program { inputs = { "x" }, outputs = { "view_copy" }, nodes = nodes } }
    dh[#dh + 1] = m
    dh[#dh + 1] = m == "encode" and w.obj { "0", 101, "1", 102, "2", { 103, 104 } } or cases.debug_handle_map.__ordered[2]
    no[#no + 1] = m
    no[#no + 1] = w.obj { "1", 3 }
  end
  entries[#entries + 1] = { "debug_handle_map", w.json(w.obj(dh)) }
  entries[#entries + 1] = { "delegate_map", "{}" }
  entries[#entries + 1] = { "instruction_id_to_num_outs_map", w.json(w.obj(no)) }
  return w.zip(path, entries, true)
end
local both = two_methods(tmp .. "/both.bin", { "forward", "encode" })
local fwd = etinspect.Inspector { etdump_path = small, etrecord = both }
t.is(pr.repr(fwd.etrecord.methods), "['forward', 'encode']", "two methods")
t.is(pr.repr(find(fwd, "native_call_addmm.out").debug_handles), "2", "default method: forward")
t.is(fwd.event_blocks[1].etrecord_method, "forward", "block.etrecord_method")
local enc = etinspect.Inspector { etdump_path = small, etrecord = both, etrecord_method = "encode" }
t.is(pr.repr(find(enc, "native_call_addmm.out").debug_handles), "102", "etrecord_method = 'encode': its handles")
t.is(pr.repr(find(enc, "native_call_addmm.out").op_types), "['aten.addmm.default', 'aten.t_copy.default']",
     "etrecord_method = 'encode': its edge program")
t.is(find(enc, "native_call_addmm.out").num_outputs, 3, "etrecord_method = 'encode': its num-outs map")
t.is(pr.repr(find(enc, "0").debug_handles), "[103, 104]",
     "a delegated event without a delegate_map entry takes the call's handles")
t.is(enc.warnings[1], "block 'Execute': no delegate mapping found for the delegate call at instruction id 2 "
     .. "(ETRecord delegate_map['encode']); its 5 delegated event(s) take the delegate call's debug handles",
     "one warning for the five delegated events, not one per event")
t.is(#enc.warnings, 1, "one warning in all")
t.is(enc:get_exported_program():node("addmm").debug_handle, 102, "get_exported_program: the linked method's program")
t.is(enc:get_exported_program(nil, "forward"):node("addmm").debug_handle, 2, "get_exported_program(nil, 'forward')")
t.raises(function() etinspect.Inspector { etdump_path = small, etrecord = both, etrecord_method = "decode" } end,
         "has no method 'decode' %(methods of its debug_handle_map: forward, encode%)", "an unknown method is an error")
local only = etinspect.Inspector { etdump_path = small, etrecord = two_methods(tmp .. "/enc.bin", { "encode" }) }
t.is(pr.repr(find(only, "native_call_addmm.out").debug_handles), "102", "a record with one method: that one")

-- per-block methods (tests/lua/two_methods.lua, tests/fixtures/two_methods.json)
local tm = require "two_methods"
local lm_dump = t.build .. "/fixtures/two_methods.etdp"
local OWN = { "forward", "forward", "decode", "forward", "decode" } -- per block
local function methods_of(insp)
  local out = {}
  for i, b in ipairs(insp.event_blocks) do out[i] = b.etrecord_method end
  return table.concat(out, " ")
end
--- Every event of `insp` against the expected linkage of its block's own
-- method, and against an Inspector forced to that method; returns the
-- number of events checked by value and the first mismatch.
local function check_own(insp, rec)
  local forced, n, bad = {}, 0, nil
  for bi, b in ipairs(insp.event_blocks) do
    local m = OWN[bi]
    forced[m] = forced[m] or etinspect.Inspector { etdump_path = lm_dump, etrecord = rec, etrecord_method = m }
    local fb = forced[m].event_blocks[bi]
    for ei, ev in ipairs(b.events) do
      local got = { pr.repr(ev.debug_handles), pr.repr(ev.op_types), pr.repr(ev.module_hierarchy) }
      local fe = fb.events[ei]
      local want = { pr.repr(fe.debug_handles), pr.repr(fe.op_types), pr.repr(fe.module_hierarchy) }
      local exp = tm.expected[m][ev.name]
      if exp then
        n = n + 1
        want = exp
      end
      for k = 1, 3 do
        if not bad and got[k] ~= want[k] then
          bad = ("block %d (%s) event %s: %s, want %s"):format(bi, b.name, ev.name, got[k], want[k])
        end
      end
    end
  end
  return n, bad
end

local lm_rec = tm.write(tmp .. "/lm.bin")
local lm = etinspect.Inspector { etdump_path = lm_dump, etrecord = lm_rec }
t.is(#lm.event_blocks, 5, "two methods: Default, Execute x 2, Execute::forward, Execute::decode")
t.is(methods_of(lm), "forward forward decode forward decode",
     "each block linked to its own method: inferred for 'Execute', named for 'Execute::<method>'")
t.is(#lm.warnings, 0, "... without a warning")
local n, bad = check_own(lm, lm_rec)
t.is(bad, nil, "every event: debug handles, op types and module hierarchy of its own method")
t.is(n, 18, "... 18 of them checked against values worked out by hand")
local rev_rec = tm.write(tmp .. "/lm_rev.bin", { methods = { "decode", "forward" } })
local rev = etinspect.Inspector { etdump_path = lm_dump, etrecord = rev_rec }
t.is(methods_of(rev) .. " " .. #rev.warnings, "forward forward decode forward decode 0",
     "the methods' order in the record does not matter")
t.is(select(2, check_own(rev, rev_rec)), nil, "... nor what each event gets")
local dec_blk = lm.event_blocks[3]
t.is(pr.repr(dec_blk.events[#dec_blk.events].debug_handles), "11",
     "Method::execute of a decode block: decode's handle of instruction 0 (no graph nodes)")
t.is(pr.repr(lm.event_blocks[4].events[8].op_types), "[]", "Method::execute::forward: a framework event, no op types")
local forced = etinspect.Inspector { etdump_path = lm_dump, etrecord = lm_rec, etrecord_method = "decode" }
t.is(methods_of(forced), "decode decode decode decode decode",
     "etrecord_method overrides the block names and the inference")

-- tightness: decode's block is covered by decode and by verify (decode and
-- one more kernel); the method the block shows all of wins
local tight = etinspect.Inspector { etdump_path = lm_dump,
  etrecord = tm.write(tmp .. "/tight.bin", { methods = { "forward", "verify", "decode" } }) }
t.is(methods_of(tight) .. " " .. #tight.warnings, "forward forward decode forward decode 0",
     "two methods cover a block: the one whose map has no instruction the block lacks")
local sup = etinspect.Inspector { etdump_path = lm_dump,
  etrecord = tm.write(tmp .. "/sup.bin", { methods = { "forward", "verify" } }) }
t.is(methods_of(sup) .. " " .. #sup.warnings, "forward forward verify forward verify 1",
     "the only method that covers a block, even with instructions it lacks")
t.is(sup.warnings[1], "block 'Execute::decode' names method 'decode', which ETRecord '" .. tmp .. "/sup.bin' does not "
     .. "have (methods of its debug_handle_map: forward, verify); the block's method is inferred from its events",
     "Execute::<method> the record lacks: a warning")

-- ties: decode and a copy of it fit decode's blocks equally well
local tie_path = tmp .. "/tie.bin"
local tie = etinspect.Inspector { etdump_path = lm_dump,
  etrecord = tm.write(tie_path, { methods = { "forward", "decode_copy", "decode" } }) }
t.is(methods_of(tie), "forward forward decode_copy forward decode",
     "a tie: the first in map order ('Execute::decode' is named)")
t.is(#tie.warnings .. " " .. tie.warnings[1], "1 block 'Execute' (event block 3 of 5): its 8 instruction events fit methods "
     .. "'decode_copy', 'decode' of ETRecord '" .. tie_path .. "' equally well; linked to "
     .. "'decode_copy' (name the block 'Execute::<method>', or choose the method with etrecord_method)",
     "a tie: one warning naming the block, the tied methods and the choice")
local tief = etinspect.Inspector { etdump_path = lm_dump,
  etrecord = tm.write(tmp .. "/tief.bin", { methods = { "decode_copy", "forward=decode" } }) }
t.is(tief.event_blocks[3].etrecord_method, "forward", "a tie with 'forward' goes to 'forward'")
t.ok(tief.warnings[3] and tief.warnings[3]:find("(event block 3 of 5): its 8 instruction events fit methods "
     .. "'decode_copy', 'forward' of ETRecord '" .. tmp .. "/tief.bin' equally well; linked to 'forward'", 1, true),
     "... with a warning too")

-- no method covers a block
local other_path = tmp .. "/other.bin"
local other = etinspect.Inspector { etdump_path = lm_dump,
  etrecord = tm.write(other_path, { methods = { "other", "decode" } }) }
t.is(methods_of(other), "forward decode decode decode decode",
     "no method covers forward's blocks: the one covering most")
t.is(other.warnings[2], "block 'Execute' (event block 2 of 5): no method of ETRecord '" .. other_path .. "' covers "
     .. "its 7 instruction events (their instruction ids in debug_handle_map, delegate identifiers in "
     .. "delegate_map): 'decode' covers 4 of them, and is linked", "... with a warning saying how many it covers")
local uncovered = etinspect.Inspector { etdump_path = lm_dump,
  etrecord = tm.write(tmp .. "/uncovered.bin", { methods = { "other", "other2=other" } }) }
t.ok(uncovered.warnings[2] and uncovered.warnings[2]:find("covers its 7 instruction events %(.*%): none covers any; linked to 'forward'$"),
     "no method covers any event: the default, with a warning")

-- 20 blocks naming methods the record lacks: 16 warnings, then a count
local flatc = os.getenv("FLATC") or "flatc"
local runs = {}
for i = 1, 20 do
  runs[i] = ('{"name": "Execute::m%d", "events": [{"profile_event": {"name": "native_call_embedding.out", '
    .. '"instruction_id": 0, "start_time": %d, "end_time": %d}}]}'):format(i, i * 100, i * 100 + 50)
end
local many_json = tmp .. "/many_blocks.json"
local mf = assert(io.open(many_json, "w"))
mf:write('{"run_data": [' .. table.concat(runs, ", ") .. "]}\n")
mf:close()
if os.execute(("'%s' --binary --size-prefixed -o '%s' '%s/schema/etdump.fbs' '%s' 2>/dev/null"):format(
    flatc, tmp, t.src, many_json)) then
  local many = etinspect.Inspector { etdump_path = tmp .. "/many_blocks.etdp", etrecord = lm_rec }
  t.is(#many.warnings, 17, "20 blocks with a warning each: 16 warnings and a count")
  t.is(many.warnings[17], "... and 4 more warnings about the methods of blocks", "... the count")
  t.is(many.event_blocks[20].etrecord_method, "forward",
       "an instruction both methods have: the method with fewer instructions the block lacks")
else
  for _ = 1, 3 do t.skip("flatc not found ($FLATC or flatc): the warnings cap") end
end

-- 40 blocks, each with a per-block linking warning: 16 of each kind, then
-- a count (a dump of 10,000 blocks would otherwise give 10,000 lines)
local blocks40 = {}
for i = 1, 40 do
  blocks40[i] = ('{"name": "B%d", "events": [{"profile_event": {"name": "native_call_embedding.out", '
    .. '"instruction_id": 0, "start_time": %d, "end_time": %d}}]}'):format(i, i * 100, i * 100 + 50)
end
local b40_json = tmp .. "/blocks40.json"
local bf = assert(io.open(b40_json, "w"))
bf:write('{"run_data": [' .. table.concat(blocks40, ", ") .. "]}\n")
bf:close()
if os.execute(("'%s' --binary --size-prefixed -o '%s' '%s/schema/etdump.fbs' '%s' 2>/dev/null"):format(
    flatc, tmp, t.src, b40_json)) then
  local b40 = tmp .. "/blocks40.etdp"
  -- forward in debug_handle_map, no edge program: handles only, per block
  local noedge_path = w.zip(tmp .. "/noedge.bin", { { "ETRECORD_V0", "" },
    { "debug_handle_map", w.json(w.obj { "forward", w.obj { "0", { 1 } } }) } })
  local ne = etinspect.Inspector { etdump_path = b40, etrecord = noedge_path }
  t.is(#ne.warnings, 17, "40 blocks whose method has no edge program: 16 warnings and a count")
  t.is(ne.warnings[16], "ETRecord '" .. noedge_path .. "' has no edge program for method 'forward': the events of "
    .. "block 'B16' get debug handles but no op types, stack traces or module hierarchy", "... the 16th, of block B16")
  t.is(ne.warnings[17], "... and 24 more blocks with debug handles only (no edge program for their method)",
    "... the count")
  t.is(ne.event_blocks[40].events[1].debug_handles[1], 1, "... and every block is linked still (block 40)")
  -- forward's edge program, its handles under another name: not linked, per block
  local nodh_path = w.zip(tmp .. "/nodh.bin", { { "ETRECORD_V0", "" },
    { "edge_dialect_exported_program/forward", w.program { inputs = { "x" }, outputs = { "y" }, nodes = {} } },
    { "debug_handle_map", w.json(w.obj { "other", w.obj { "0", { 1 } } }) } })
  local nd = etinspect.Inspector { etdump_path = b40, etrecord = nodh_path, etrecord_method = "forward" }
  t.is(#nd.warnings, 17, "40 blocks whose method debug_handle_map lacks: 16 warnings and a count")
  t.is(nd.warnings[1], "ETRecord '" .. nodh_path .. "': debug_handle_map has no method 'forward' (its methods: other); "
    .. "the events of block 'B1' are not linked", "... the first, of block B1")
  t.is(nd.warnings[17], "... and 24 more blocks not linked (debug_handle_map has no method for them)", "... the count")
else
  for _ = 1, 7 do t.skip("flatc not found ($FLATC or flatc): the per-kind warnings cap") end
end

-- delegate identifiers (the delegate_ids fixture) ----------------------------
local ids_dump = t.build .. "/fixtures/delegate_ids.etdp"
local ids_rec = w.zip(tmp .. "/ids.bin", {
  { "ETRECORD_V0", "" },
  { "edge_dialect_exported_program", w.program { nodes = {
    { name = "a", target = "executorch.exir.dialects.edge.ops.aten.add.Tensor", outputs = { "a" }, meta = { debug_handle = 1 } },
    { name = "b", target = "executorch.exir.dialects.edge.ops.aten.mul.Tensor", outputs = { "b" }, meta = { debug_handle = 2 } },
    { name = "c", target = "executorch.exir.dialects.edge.ops.aten.sub.Tensor", outputs = { "c" }, meta = { debug_handle = 3 } },
    { name = "d", target = "executorch.exir.dialects.edge.ops.aten.convolution.default", outputs = { "d" }, meta = { debug_handle = 4 } },
  } } },
  { "debug_handle_map", w.json(w.obj { "forward", w.obj { "0", { 1, 2, 3, 4 }, "1", { 1, 2 } } }) },
  { "delegate_map", w.json(w.obj { "forward", w.obj { "0", w.obj { "delegate_map",
      w.obj { "12", { 3 }, "1", { 1 }, "2", { 2 }, "conv", { 4 } } } } }) } })
local di = etinspect.Inspector { etdump_path = ids_dump, etrecord = ids_rec }
local evs = di.event_blocks[1].events
t.is(pr.repr(evs[1].debug_handles), "[1]", "identifier 1: key '1'")
t.is(pr.repr(evs[2].debug_handles), "[3]",
     "identifier 12: the exact key '12' wins (the reference's substring loop ends on '2': [2])")
t.is(pr.repr(evs[2].op_types), "['aten.sub.Tensor']", "identifier 12: op types of handle 3")
t.is(pr.repr(evs[3].debug_handles), "[4]", "identifier 'conv_2': no exact key, the substring 'conv' matches")
t.is(evs[4].debug_handles, nil, "identifier 'nope': no mapping, no handles")
t.is(pr.repr(evs[4].op_types), "[]", "identifier 'nope': no op types")
t.is(evs[1].delegate_backend_name, "", "an entry without \"name\": backend ''")
t.is(evs[6].name .. " " .. pr.repr(evs[6].debug_handles), "DELEGATE_CALL [1, 2, 3, 4]", "the delegate call")
t.is(pr.repr(evs[7].debug_handles), "[1, 2]", "instruction 1 has no delegate_map entry: the call's handles")
t.is(evs[10].debug_handles, nil, "an instruction the map lacks: unlinked, silently (as the reference)")
t.is(di.warnings[1], "block 'Execute': the delegate call at instruction id 0 has no delegate_map entry for "
     .. "delegate debug identifier(s) 'nope', 'nope either'; 2 event(s) have no debug handles",
     "one warning names the unmapped identifiers")
t.is(di.warnings[2], "block 'Execute': no delegate mapping found for the delegate call at instruction id 1 "
     .. "(ETRecord delegate_map['forward']); its 2 delegated event(s) take the delegate call's debug handles",
     "one warning for the call without an entry")
t.is(#di.warnings, 2, "two warnings in all")

-- a hostile record: 1,100 copies of handle 1, which 1,000 nodes carry ------
do
  local nodes, handles = {}, {}
  for i = 1, 1000 do
    nodes[i] = { name = "n" .. i, target = "executorch.exir.dialects.edge.ops.aten.add.Tensor",
                 outputs = { "n" .. i }, meta = { debug_handle = 1 } }
  end
  for i = 1, 1100 do handles[i] = 1 end
  local big = w.zip(tmp .. "/big.bin", { { "ETRECORD_V0", "" },
    { "edge_dialect_exported_program/forward", w.program { nodes = nodes } },
    { "debug_handle_map", w.json(w.obj { "forward", w.obj { "0", handles } }) } })
  local capped = etinspect.Inspector { etdump_path = small, etrecord = big }
  local ev = find(capped, "native_call_permute_copy.out")
  t.is(#ev.op_types, 1 << 20, "a hostile record: op_types capped at 2^20 per event (not 1,100,000)")
  t.is(#ev.debug_handles, 1100, "a hostile record: the handles are all kept")
  local keys = 0
  for _ in pairs(ev.stack_traces) do keys = keys + 1 end
  t.is(keys, 1000, "a hostile record: one stack_traces entry per distinct node")
  t.is(capped.warnings[1], "block 'Execute', event 'native_call_permute_copy.out' (instruction id 0): its debug "
       .. "handles name more graph nodes than the cap (1048576 per event, 16777216 in all); the list is cut short",
       "a hostile record: one warning")
  t.is(#capped.warnings, 1, "a hostile record: only one warning")
  capped:close()
end

-- errors --------------------------------------------------------------------
local function raises_for(label, entries, pattern, deflate)
  local p = w.zip(tmp .. "/bad.bin", entries, deflate)
  t.raises(function() etinspect.Inspector { etdump_path = small, etrecord = p } end, pattern, label)
end
local f = assert(io.open(tmp .. "/notzip.bin", "wb")); f:write("not a zip archive at all"); f:close()
t.raises(function() etinspect.Inspector { etdump_path = small, etrecord = tmp .. "/notzip.bin" } end,
         "notzip.bin: invalid ETRecord file: not a ZIP archive", "not a zip")
raises_for("no marker", { { "debug_handle_map", "{}" } }, "ETRecord identifier missing")
raises_for("a map of the wrong shape", { { "ETRECORD_V0", "" }, { "debug_handle_map", '{"forward": {"0": "x"}}' } },
           "debug_handle_map%[\"forward\"%]%[\"0\"%]: expected an integer or a list of integers, found a string")
raises_for("a map that is not JSON", { { "ETRECORD_V0", "" }, { "delegate_map", '{"forward":\n {"0": [}' } },
           "entry 'delegate_map': invalid JSON at line 2, column %d+", true)
raises_for("an edge program that is not JSON",
           { { "ETRECORD_V0", "" }, { "edge_dialect_exported_program/forward", '{"graph_module": \n\n  x}' },
             { "debug_handle_map", '{"forward": {"0": 1}}' } },
           "entry 'edge_dialect_exported_program/forward': invalid JSON at line 3, column 3")
raises_for("an edge program of the wrong shape",
           { { "ETRECORD_V0", "" }, { "edge_dialect_exported_program/forward", '{"graph_module": {}}' },
             { "debug_handle_map", '{"forward": {"0": 1}}' } },
           "not a serialized exported program: expected an array at graph_module.graph.nodes")
raises_for("deeply nested JSON", { { "ETRECORD_V0", "" }, { "debug_handle_map", string.rep("[", 5000) } },
           "entry 'debug_handle_map': invalid JSON at line 1, column %d+: maximum parsing depth reached")
t.raises(function() etinspect.Inspector { etdump_path = small, etrecord = 42 } end,
         "Unsupported ETRecord type", "etrecord = 42")
t.raises(function() etinspect.Inspector { profile_results_data = "", etrecord = rec_path } end,
         "An ETRecord can only be linked to an ETDump", "an ETRecord with a legacy dump")
t.raises(function() etinspect.Inspector { etdump_path = tmp .. "/missing.etdp", etrecord = tmp .. "/none.bin" } end,
         "none.bin: No such file or directory", "the record is opened first (spec §1.3 step 3)")
local none = etinspect.Inspector { etdump_path = small }
local ep, msg = none:get_exported_program()
t.is(ep, nil, "get_exported_program without an ETRecord: nil")
t.ok(msg:find("Exported program is only available when a valid etrecord_path was provided", 1, true),
     "get_exported_program without an ETRecord: the reference's warning")
t.is(none.etrecord, nil, "insp.etrecord without one: nil")

os.execute("rm -rf '" .. tmp .. "'")
t.done()
