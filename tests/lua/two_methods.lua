--- two_methods.lua - the ETRecord of tests/fixtures/two_methods.json, a
-- model with two methods (per-block method linking, docs/etrecord.md):
--
--   forward (prefill)                       decode
--   iid 0  embedding        handle 1        iid 0  embedding   handle 11
--   iid 1  XNNPACK delegate [2, 3]:         iid 1  mm          handle 12
--          id 0 -> mm [2], "add #1" ->      iid 2  add         handle 13
--          add [3]                          iid 3  argmax      handle 14
--   iid 2  _softmax         handle 4
--
-- forward's nodes sit in module L__self___encoder (softmax in head),
-- decode's in L__self___decoder (argmax in head).  The dump's blocks:
-- Default (both load_method runs), Execute (two forward runs), Execute
-- (two decode runs), Execute::forward and Execute::decode (two runs each,
-- with Method::execute::<method> events, the names of pytorch/executorch
-- PR 8033).
--
--   local tm = require "two_methods"
--   tm.write(path [, opts])   writes the record, returns path
--     opts.methods   the methods, in map order (default {"forward", "decode"});
--                    "decode_copy" is decode again, "verify" is decode plus
--                    a kernel at iid 4 (handle 15), "other" has kernels at
--                    iids 7 and 8 only; "NAME=M" is method M named NAME
--   tm.expected[method]       what linking gives a method's block: per event
--                             name, {debug_handles, op_types, module}
local w = require "etrwriter"
local M = {}

local EDGE = "executorch.exir.dialects.edge.ops.aten."
local MODEL = "L__self__,,__main__.LM"
M.ENC = MODEL .. ";L__self___encoder,L['self'].encoder,__main__.Encoder"
M.DEC = MODEL .. ";L__self___decoder,L['self'].decoder,__main__.Decoder"
M.HEAD = MODEL .. ";L__self___head,L['self'].head,__main__.Head"

local function node(name, op, handle, module, line)
  return { name = name, target = EDGE .. op, inputs = { "x" }, outputs = { name },
           meta = { debug_handle = handle, nn_module_stack = module,
                    stack_trace = string.format('File "lm.py", line %d, in forward\n    y = %s(y)', line, name) } }
end

local PROGRAMS = {
  forward = { node("embedding", "embedding.default", 1, M.ENC, 10), node("mm", "mm.default", 2, M.ENC, 11),
              node("add", "add.Tensor", 3, M.ENC, 12), node("_softmax", "_softmax.default", 4, M.HEAD, 13) },
  decode = { node("embedding", "embedding.default", 11, M.DEC, 20), node("mm", "mm.default", 12, M.DEC, 21),
             node("add", "add.Tensor", 13, M.DEC, 22), node("argmax", "argmax.default", 14, M.HEAD, 23) },
  other = { node("relu", "relu.default", 21, M.HEAD, 30), node("sub", "sub.Tensor", 22, M.HEAD, 31) },
}
PROGRAMS.decode_copy = PROGRAMS.decode
PROGRAMS.other2 = PROGRAMS.other
PROGRAMS.verify = { table.unpack(PROGRAMS.decode) }
PROGRAMS.verify[5] = node("neg", "neg.default", 15, M.HEAD, 24)

local HANDLES = {
  forward = w.obj { "0", 1, "1", { 2, 3 }, "2", 4 },
  decode = w.obj { "0", 11, "1", 12, "2", 13, "3", 14 },
  verify = w.obj { "0", 11, "1", 12, "2", 13, "3", 14, "4", 15 },
  other = w.obj { "7", 21, "8", 22 },
}
HANDLES.decode_copy = HANDLES.decode

--- Write the record at `path` (see the module's comment).
function M.write(path, opts)
  opts = opts or {}
  local methods = opts.methods or { "forward", "decode" }
  local entries = { { "ETRECORD_V0", "" } }
  local dh, dm, no = {}, {}, {}
  for _, spec in ipairs(methods) do
    local name, m = spec:match("^([^=]+)=(.+)$")
    if not name then name, m = spec, spec end
    entries[#entries + 1] = { "edge_dialect_exported_program/" .. name,
                              w.program { inputs = { "x" }, outputs = { "y" }, nodes = PROGRAMS[m] } }
    dh[#dh + 1], dh[#dh + 2] = name, HANDLES[m]
    local counts = {}
    for i = 1, #HANDLES[m].__ordered, 2 do
      counts[#counts + 1] = HANDLES[m].__ordered[i]
      counts[#counts + 1] = (m == "forward" and HANDLES[m].__ordered[i] == "1") and 2 or 1
    end
    no[#no + 1], no[#no + 2] = name, w.obj(counts)
    if m == "forward" then
      dm[#dm + 1], dm[#dm + 2] = name, w.obj { "1", w.obj { "name", "XnnpackBackend", "delegate_map",
                                                         w.obj { "0", { 2 }, "add #1", { 3 } } } }
    end
  end
  entries[#entries + 1] = { "debug_handle_map", w.json(w.obj(dh)) }
  entries[#entries + 1] = { "delegate_map", w.json(w.obj(dm)) }
  entries[#entries + 1] = { "instruction_id_to_num_outs_map", w.json(w.obj(no)) }
  return w.zip(path, entries)
end

local ROOT = "{'L__self__': ('', '__main__.LM'), "
local ENC = ROOT .. "'L__self___encoder': (\"L['self'].encoder\", '__main__.Encoder')}"
local DEC = ROOT .. "'L__self___decoder': (\"L['self'].decoder\", '__main__.Decoder')}"
local HEAD = ROOT .. "'L__self___head': (\"L['self'].head\", '__main__.Head')}"

--- Per method, per event name of its blocks: the debug handles, op types
-- and module hierarchy (pyrepr of each) linking must give.
M.expected = {
  forward = {
    ["native_call_embedding.out"] = { "1", "['aten.embedding.default']", "{'embedding_': " .. ENC .. "}" },
    ["0"] = { "[2]", "['aten.mm.default']", "{'mm_': " .. ENC .. "}" },
    ["add #1"] = { "[3]", "['aten.add.Tensor']", "{'add_': " .. ENC .. "}" },
    DELEGATE_CALL = { "[2, 3]", "['aten.mm.default', 'aten.add.Tensor']",
                      "{'mm_': " .. ENC .. ", 'add_': " .. ENC .. "}" },
    ["native_call_softmax.out"] = { "4", "['aten._softmax.default']", "{'_softmax_': " .. HEAD .. "}" },
  },
  decode = {
    ["native_call_embedding.out"] = { "11", "['aten.embedding.default']", "{'embedding_': " .. DEC .. "}" },
    ["native_call_mm.out"] = { "12", "['aten.mm.default']", "{'mm_': " .. DEC .. "}" },
    ["native_call_add.out"] = { "13", "['aten.add.Tensor']", "{'add_': " .. DEC .. "}" },
    ["native_call_argmax.out"] = { "14", "['aten.argmax.default']", "{'argmax_': " .. HEAD .. "}" },
  },
}

return M
