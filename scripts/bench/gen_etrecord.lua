-- gen_etrecord.lua OUTDIR N - benchmark input: the parts of an ETRecord
-- whose edge program has N nodes, and a matching ETDump in flatc JSON form.
--
--   build/etinspect scripts/bench/gen_etrecord.lua OUTDIR N
--
-- Writes into OUTDIR (which must exist):
--   edge.json             edge_dialect_exported_program/forward (current layout)
--   debug_handle_map.json {"forward": {iid: handle, ..., delegate iid: [handles]}}
--   delegate_map.json     {"forward": {delegate iid: {"name": ..., "delegate_map": {...}}}}
--   num_outs.json         instruction_id_to_num_outs_map
--   etdump.json           3 "Execute" runs of the same instructions
-- then prints one line with the counts.  scripts/bench.sh turns etdump.json
-- into etdump.etdp with flatc and packs the rest with tests/tools/mkzip.
--
-- Shape: nodes K = 0..N-1 in a chain (each reads the previous one and x);
-- consecutive pairs share a debug handle, as decomposed ops do, so the
-- handles are 1..H with H = ceil(N/2).  The last D = min(50, H-1) handles
-- are lowered to one delegate: instructions 0..M-1 (M = H-D) run handle
-- iid+1 each, instruction M is the delegate call covering handles M+1..H,
-- with delegate debug ids 0..D-1 (id i -> handle M+1+i).
local outdir, n = arg[1], tonumber(arg[2])
if not outdir or not n or n < 4 or n % 1 ~= 0 then
  io.stderr:write("usage: gen_etrecord.lua OUTDIR N   (N >= 4 nodes)\n")
  os.exit(2)
end
n = math.tointeger(n)

local fmt, concat = string.format, table.concat

local OPS = {
  {short = "add", target = "add.Tensor", kernel = "add.out", args = {"self", "other"}},
  {short = "mul", target = "mul.Tensor", kernel = "mul.out", args = {"self", "other"}},
  {short = "convolution", target = "convolution.default", kernel = "convolution.out",
   args = {"input", "weight"}},
  {short = "relu", target = "relu.default", kernel = "relu.out", args = {"self"}},
  {short = "linear", target = "linear.default", kernel = "linear.out", args = {"input", "weight"}},
}
local function op_of(k) return OPS[k % #OPS + 1] end
local function handle_of(k) return k // 2 + 1 end
local function node_name(k) return op_of(k).short .. "_" .. k end

local H = handle_of(n - 1)
local D = math.min(50, H - 1)
local M = H - D            -- regular instructions 0..M-1; delegate call is iid M
local DELEGATE_IID = M

-- Buffered writer: collects pieces and flushes them in large chunks.
local function writer(name)
  local path = outdir .. "/" .. name
  local f = assert(io.open(path, "wb"))
  local buf, nbuf = {}, 0
  local w = {}
  function w.put(s)
    nbuf = nbuf + 1
    buf[nbuf] = s
    if nbuf >= 4096 then
      f:write(concat(buf, "", 1, nbuf))
      nbuf = 0
    end
  end
  function w.close()
    f:write(concat(buf, "", 1, nbuf))
    assert(f:close())
  end
  return w
end

-- 1. edge.json -------------------------------------------------------------
do
  local w = writer("edge.json")
  w.put('{"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], ')
  w.put(fmt('"outputs": [{"as_tensor": {"name": "%s"}}], "nodes": [\n', node_name(n - 1)))
  for k = 0, n - 1 do
    local op, name = op_of(k), node_name(k)
    local prev = k == 0 and "x" or node_name(k - 1)
    local ins = {}
    for i, a in ipairs(op.args) do
      ins[i] = fmt('{"name": "%s", "arg": {"as_tensor": {"name": "%s"}}}', a, i == 1 and prev or "x")
    end
    local layer = k // 4
    w.put(fmt(
      '%s{"name": "%s", "target": "executorch.exir.dialects.edge.ops.aten.%s", "inputs": [%s], ' ..
      '"outputs": [{"as_tensor": {"name": "%s"}}], "metadata": {"debug_handle": "%d", ' ..
      '"stack_trace": "File \\"model.py\\", line %d, in forward\\n    y = self.layer%d(y)", ' ..
      '"nn_module_stack": "L__self__,,torch.nn.modules.container.Sequential;' ..
      'L__self___layer%d,L[\'self\'].layer%d,torch.nn.modules.linear.Linear", ' ..
      '"source_fn_stack": "layer%d,torch.nn.modules.linear.Linear"}}\n',
      k == 0 and "" or ",", name, op.target, concat(ins, ", "), name, handle_of(k),
      k, k, layer, layer, layer))
  end
  w.put('], "tensor_values": {}, "sym_int_values": {}, "sym_bool_values": {}, ' ..
    '"is_single_tensor_return": true, "custom_obj_values": {}}, ' ..
    '"signature": {"input_specs": [], "output_specs": []}, "module_call_graph": []}, ' ..
    '"opset_version": {"aten": 10}, "range_constraints": {}, ' ..
    '"schema_version": {"major": 5, "minor": 4}, "dialect": "EDGE", "verifiers": []}\n')
  w.close()
end

-- 2-4. the maps --------------------------------------------------------------
do
  local dh, no = writer("debug_handle_map.json"), writer("num_outs.json")
  dh.put('{"forward": {')
  no.put('{"forward": {')
  for iid = 0, M - 1 do
    local sep = iid == 0 and "" or ", "
    dh.put(fmt('%s"%d": %d', sep, iid, iid + 1))
    no.put(fmt('%s"%d": 1', sep, iid))
  end
  local hs = {}
  for i = 1, D do hs[i] = tostring(M + i) end
  dh.put(fmt(', "%d": [%s]}}\n', DELEGATE_IID, concat(hs, ", ")))
  no.put(fmt(', "%d": 1}}\n', DELEGATE_IID))
  dh.close()
  no.close()

  local dm = writer("delegate_map.json")
  dm.put(fmt('{"forward": {"%d": {"name": "XnnpackBackend", "delegate_map": {', DELEGATE_IID))
  for i = 0, D - 1 do
    dm.put(fmt('%s"%d": [%d]', i == 0 and "" or ", ", i, M + 1 + i))
  end
  dm.put('}}}}\n')
  dm.close()
end

-- 5. etdump.json -------------------------------------------------------------
-- chain_index 0 is the schema default, so the operator events leave it out
-- (flatc would drop it anyway).
local RUNS = 3
do
  local w = writer("etdump.json")
  local first = true
  local function event(name, iid, chain, s, e, dbg)
    local parts = {}
    if name then parts[#parts + 1] = fmt('"name": "%s"', name) end
    if chain ~= 0 then parts[#parts + 1] = fmt('"chain_index": %d', chain) end
    parts[#parts + 1] = fmt('"instruction_id": %d', iid)
    if dbg then
      parts[#parts + 1] = fmt('"delegate_debug_id_int": %d, "delegate_debug_metadata": []', dbg)
    end
    parts[#parts + 1] = fmt('"start_time": %d, "end_time": %d', s, e)
    w.put(fmt('%s  {"profile_event": {%s}}', first and "" or ",\n", concat(parts, ", ")))
    first = false
  end

  w.put('{"run_data": [\n')
  for r = 0, RUNS - 1 do
    w.put(fmt('%s{"name": "Execute", "events": [\n', r == 0 and "" or ",\n"))
    first = true
    local function dur(x) return 1000 + (x * 7919 + r * 104729) % 997 end
    local t0 = (r + 1) * 1000000000
    local t = t0 + 50
    for iid = 0, M - 1 do
      local op = op_of(2 * iid)
      local s = t
      local ks = s + 20
      local ke = ks + dur(iid)
      local e = ke + 30
      event("native_call_" .. op.kernel, iid, 0, ks, ke)
      event("OPERATOR_CALL", iid, 0, s, e)
      t = e + 10
    end
    local ds = t
    t = t + 20
    for i = 0, D - 1 do
      local s = t
      local e = s + dur(M + i) // 4
      event(nil, DELEGATE_IID, 0, s, e, i)
      t = e + 5
    end
    local de = t + 20
    event("DELEGATE_CALL", DELEGATE_IID, 0, ds, de)
    event("Method::execute", 0, -1, t0, de + 50)
    w.put('\n]}')
  end
  w.put('\n]}\n')
  w.close()
end

print(fmt("%d nodes, %d debug handles, %d instructions (+1 delegate call of %d), %d runs",
  n, H, M, D, RUNS))
