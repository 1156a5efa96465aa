--- graphgen.lua - write a synthetic ETRecord of an N-node exported program
-- for the HTML report's graph view (tests/e2e/html_graph.t).
--
--   NODES=N OUT=PATH etinspect -e 'dofile(ET_SRC .. "/tests/lua/graphgen.lua")'
--
-- Method forward, edge program of N operator nodes n1 .. nN (the first is
-- named with HTML and JSON specials: "n1</script>&'\"<!--"), each reading
-- the previous one's output ("x" for the first) and, every fifth, also the
-- output of the node four before (a skip connection): N - 1 + (N // 5 - 1)
-- edges for N >= 5; ops cycle through seven aten ops; node i has debug
-- handle i, instruction i - 1 maps to it (gen_etdump's instruction ids),
-- and its module is block i // 50.
package.path = os.getenv("ET_SRC") .. "/tests/lua/?.lua;" .. package.path
local w = require "etrwriter"
local n, out = math.tointeger(tonumber(os.getenv("NODES"))), os.getenv("OUT")
assert(n and n >= 1 and out, "NODES and OUT are required")
local ops = { "aten.convolution.default", "aten.relu.default", "aten.add.Tensor", "aten.mul.Tensor",
              "aten.addmm.default", "aten.cat.default", "aten.permute_copy.default" }
local nodes, dh = {}, {}
for i = 1, n do
  local inputs = { i == 1 and "x" or ("n" .. (i - 1)) }
  if i > 5 and i % 5 == 0 then inputs[2] = "n" .. (i - 4) end
  local b = "L__self___b" .. (i // 50)
  nodes[i] = { name = i == 1 and "n1</script>&'\"<!--" or ("n" .. i),
               target = "executorch.exir.dialects.edge.ops." .. ops[(i - 1) % #ops + 1],
               inputs = inputs, outputs = { "n" .. i },
               meta = { debug_handle = i, nn_module_stack = w.json(w.obj { b,
                 { "L['self'].b" .. (i // 50), "torch.nn.modules.container.Sequential" } }) } }
  dh[#dh + 1] = tostring(i - 1); dh[#dh + 1] = i
end
w.zip(out, { { "ETRECORD_V0", "" },
  { "edge_dialect_exported_program/forward", w.program { inputs = { "x" }, outputs = { "n" .. n }, nodes = nodes } },
  { "debug_handle_map", w.json(w.obj { "forward", w.obj(dh) }) },
  { "delegate_map", "{}" } }, true)
