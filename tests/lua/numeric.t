#!/usr/bin/env etinspect
-- numeric.t - numerical debugging (spec §1.7, §7; lua/etinspect/numeric.lua):
-- compare_results, the built-in comparators, the merging (§7.3) and
-- mapping (§7.4) of debug handles with every unit-test fact the spec
-- lists, the comparator framework (§7.5) with the reference's
-- calculate_numeric_gap tests redone on plain values, custom Lua
-- comparators, calculate_numeric_gap between two Inspectors (the corpus's
-- debug.etdp with an ETRecord written here) and against AOT output
-- directories, .npy files, and the BundledProgram comparison of the
-- corpus's real_bundled_debug dumps.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local N = require "etinspect.numeric"
local pr = require "etinspect.pyrepr"
local w = require "etrwriter"

local T = etinspect.Tensor.new
local function f32(v) return T { dtype = "float32", values = v } end
local function f64(v) return T { dtype = "float64", values = v } end
local inf, nan = math.huge, 0 / 0
local function is_nan(x) return x ~= x end
local warnings = {}
etinspect.on_warning(function(m) warnings[#warnings + 1] = m end)

local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p '" .. tmp .. "'"))

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- handles of a mapping / record list, as text
local function keys(list, field)
  local out = {}
  for i, e in ipairs(list) do out[i] = pr.repr(N.tuple(e[field or "debug_handle"])) end
  return table.concat(out, " ")
end

-- ===================================================== compare_results (§1.7)
do
  local ref = { f32 { 1, 2, 3, 4 }, 5, f32 { 0, 0 } }
  local run = { f32 { 1, 2, 3, 5 }, 5, f32 { 0.5, 0 }, f32 { 9 } }
  local r = etinspect.compare_results(ref, run)
  local order = {}
  for k in pairs(r) do order[#order + 1] = k end
  t.is(table.concat(order, " "), "snr mse cosine_similarity", "compare_results: metrics in the reference's order")
  t.is(r.mse.n, 3, "compare_results: the shorter list wins (zip)")
  t.is(r.mse[1], 0.25, "mse = 0.25")
  t.is(r.snr[1], 14.77, "snr = round(10*log10(30), 2)")
  t.is(r.cosine_similarity[1], 0.99, "cosine = round(34/sqrt(30*39), 2)")
  t.is(r.mse[2], nil, "not tensors: None (nil), position kept")
  t.is(r.mse[3], 0.12, "round(0.125, 2) = 0.12 as Python rounds")
  t.is(r.snr[3], -inf, "snr of a zero signal: -inf")
  local only = etinspect.compare_results(ref, run, { "mse" })
  t.ok(only.mse and only.snr == nil and only.cosine_similarity == nil, "metrics = {'mse'}")
  local sub = etinspect.compare_results(ref, run, "snr,cosine_similarity")
  t.ok(sub.snr and sub.cosine_similarity and not sub.mse, "metrics as a string: Python's `in`")
  local same = etinspect.compare_results({ f32 { 1, -2 } }, { f32 { 1, -2 } })
  t.ok(same.snr[1] == inf and same.mse[1] == 0 and same.cosine_similarity[1] == 1,
       "identical outputs: snr inf, mse 0, cosine 1")
  t.raises(function() etinspect.compare_results({ f32 { 1, 2 } }, { T { dtype = "float32", values = { { 1, 2 } } } }) end,
           "Input tensors must have the same shape", "cosine of [2] and [1, 2]: the reference's error")
  t.raises(function() etinspect.compare_results({ f32 { 1, 2 } }, { f32 { 1, 2, 3 } }, { "mse" }) end,
           "The size of tensor a %(2%) must match the size of tensor b %(3%) at non%-singleton dimension 0",
           "mse of [2] and [3]: PyTorch's broadcasting error")
  local u8 = etinspect.compare_results({ T { dtype = "uint8", values = { 250, 3 } } },
                                      { T { dtype = "uint8", values = { 251, 3 } } }, { "mse" })
  t.is(u8.mse[1], 0.5, "uint8 outputs cast to float32 (no wrap-around)")
  t.raises(function() etinspect.compare_results(nil, {}) end, "sequences of values", "compare_results(nil, ...)")

  local path = tmp .. "/printed.txt"
  local fh = assert(io.open(path, "w"))
  etinspect.compare_results({ f32 { 1, 2, 3, 4 }, 1 }, { f32 { 1, 2, 3, 5 }, 1 }, { "mse", "snr" },
                            { print = true, file = fh })
  fh:close()
  t.is(t.read(path), "snr\n--------------------\n0    14.77000\n1        None\n\n\n"
       .. "mse\n--------------------\n0     0.25000\n1        None\n\n\n",
       "print: the reference's listing (None printed where the reference raises)")
  local box = N.results_frame(etinspect.compare_results({ f32 { 1, 2 } }, { f32 { 1, 2 } })):render("plain")
  t.is(box, "output_index  snr  mse  cosine_similarity\n           0  inf  0.0                1.0\n",
       "results_frame: one row per output")
end

-- ===================================================== comparators (§7.5)
do
  local C = etinspect.comparators
  local L1, MSE, SNR = C.L1.element_compare, C.MSE.element_compare, C.SNR.element_compare
  local m = { { 4, 9 }, { 6, 4 } }
  t.is(L1(f32(m), f32(m)), 0.0, "L1 identical -> 0.0")
  t.is(L1(1, 2), 1.0, "L1(1, 2) = 1.0")
  t.is(L1(f64 { 3, 2, -1, nan }, f64 { nan, 0, -3, 1 }), 8.0, "L1([3,2,-1,NaN], [NaN,0,-3,1]) = 8.0")
  t.is(L1(f64(m), f64 { { 1, 2 }, { 3, 5 } }), 14.0, "L1([[4,9],[6,4]], [[1,2],[3,5]]) = 14.0")
  t.is(MSE(10, 2), 64.0, "MSE(10, 2) = 64.0")
  t.is(MSE(f64 { 3, 1, -3, nan }, f64 { nan, 0, -3, 2 }), 14 / 4, "MSE([3,1,-3,NaN], [NaN,0,-3,2]) = 14/4")
  t.is(MSE(f64(m), f64 { { 1, 2 }, { 3, 10 } }), 103 / 4, "MSE([[4,9],[6,4]], [[1,2],[3,10]]) = 103/4")
  t.is(SNR(f32 { 1, 2, 3 }, f32 { 1, 2, 3 }), inf, "SNR identical -> +inf")
  t.is(SNR(1, 2), 0.0, "SNR(1, 2) = 0.0")
  t.is(SNR(f64 { nan, 1 }, f64 { 0, 1 }), inf, "SNR([NaN,1], [0,1]) = +inf")
  t.near(SNR(f64(m), f64 { { 1, 2 }, { 3, 5 } }), 10 * math.log(37.25 / 17, 10), 1e-12,
         "SNR([[4,9],[6,4]], [[1,2],[3,5]]) = 10*log10(37.25/17)")
  for _, name in ipairs { "MSE", "L1", "SNR" } do
    t.raises(function() C[name].element_compare(f32 { 1, 2, 3 }, f32 { 1, 2, 3, 4 }) end,
             "^Error computing " .. name .. " difference between tensors: The size of tensor a %(3%) must "
             .. "match the size of tensor b %(4%) at non%-singleton dimension 0$",
             name .. ": shape [3] vs [4] -> the reference's error")
  end
  t.is(L1(true, 0), 1.0, "a boolean is 0/1")
  t.is(L1(f32 { 1, 2 }, 1), 1.0, "a tensor against a scalar broadcasts")
  t.raises(function() L1({ f32 { 1 } }, { f32 { 1 } }) end, "a sequence is neither a tensor nor a number",
           "a sequence is refused (the reference asserts)")
  t.raises(function() MSE("x", 1) end, "Cannot convert value of type string to a tensor",
           "a string: Cannot convert value of type ...")
  t.raises(function() MSE(nil, 1) end, "Cannot convert value of type nil to a tensor", "nil (None)")
end

-- ===================================================== merging (§7.3)
do
  local function rec(h, iid, out) return { debug_handle = h, instruction_id = iid, output = out, num_outputs = 1 } end
  local big = f32 { 1 }
  local m = N.merge_runtime_overlapping_debug_handles {
    rec({ 1, 2, 3 }, 1, "val1"), rec({ 2, 3, 4, 5 }, 2, "val2"), rec({ 6, 7, 8 }, 3, "val3"),
    rec({ 10, 11 }, 4, "val4"), rec({ 11, 12 }, 5, big) }
  t.is(keys(m), "(1, 2, 3, 4, 5) (6, 7, 8) (10, 11, 12)", "merge basic: keys")
  t.ok(m[1].output == "val2" and m[1].instruction_id == 2 and m[2].output == "val3",
       "merge basic: the higher instruction id's value")
  t.ok(rawequal(m[3].output, big), "merge basic: the very object is kept")
  m = N.merge_runtime_overlapping_debug_handles {
    rec({ 1, 10 }, 1, "t1"), rec({ 2, 5 }, 2, "t2"), rec({ 1, 7, 9 }, 3, "t3"), rec({ 11, 13 }, 4, "t4"),
    rec({ 11, 15 }, 5, "t5") }
  t.is(keys(m), "(2, 5) (10, 1, 7, 9) (13, 11, 15)", "merge non-continuous: order of the handles")
  t.is(m[1].output .. m[2].output .. m[3].output, "t2t3t5", "merge non-continuous: values")
  m = N.merge_runtime_overlapping_debug_handles { rec({ 9 }, 1, "v1"), rec({ 9, 9, 9 }, 2, "v2"), rec({ 9, 9 }, 3, "v3") }
  t.is(keys(m), "(9,)", "merge edge case: (9,) (9,9,9) (9,9) -> (9,)")
  t.is(m[1].output, "v3", "merge edge case: the value of (9, 9)")
  m = N.merge_runtime_overlapping_debug_handles { rec({ 1 }, 7, "A"), rec({ 2 }, 6, "B"), rec({ 1, 2 }, 5, "N") }
  t.is(keys(m) .. " " .. m[1].output, "(1, 2) B", "merge quirk: the last overlapping entry supplies the value")
  t.is(pr.repr(N.tuple(N.combine_debug_handles({ 1, 1, 2 }, { 2, 3, 3 }))), "(1, 1, 2, 3)", "combine((1,1,2), (2,3,3))")
  t.is(#N.merge_runtime_overlapping_debug_handles {}, 0, "merge of nothing")
end

-- ===================================================== mapping (§7.4)
do
  local function A(h, o) return { debug_handle = h, output = o } end
  local function R(h, o, n) return { debug_handle = h, output = o, num_outputs = n or 1 } end
  local function show(mp)
    local out = {}
    for i, e in ipairs(mp) do
      out[i] = pr.repr(e.aot.debug_handle) .. ":" .. pr.repr(e.aot.output) .. "->"
               .. pr.repr(e.runtime.debug_handle) .. ":" .. pr.repr(e.runtime.output)
    end
    return table.concat(out, " ")
  end
  local map = N.map_runtime_aot_intermediate_outputs
  t.is(#map({}, {}), 0, "map: empty inputs")
  t.is(show(map({ A({ 0 }, 100), A({ 1 }, 200), A({ 2 }, 300) },
                { R({ 0 }, 150), R({ 1 }, 250), R({ 2 }, 350) })),
       "(0,):100->(0,):150 (1,):200->(1,):250 (2,):300->(2,):350", "map: single-element tuples")
  t.is(#map({ A({ 0 }, 100), A({ 4 }, 300) }, { R({ 2, 3 }, 200), R({ 8, 9 }, 300) }), 0, "map: no overlaps")
  t.is(show(map({ A({ 2 }, 100), A({ 9 }, 300) }, { R({ 2, 3 }, 200), R({ 8, 9 }, 300) })),
       "(8, 9):300->(8, 9):300", "map: partial match")
  t.is(show(map({ A({ 0 }, 100), A({ 1 }, 200), A({ 2 }, 300), A({ 3 }, 400) },
                { R({ 2, 3, 1 }, 250), R({ 8, 9 }, 300) })),
       "(2, 3, 1):200->(2, 3, 1):250", "map: several AOT handles to one runtime handle")
  -- delegated: runtime data holds the call's arguments, outputs last
  local a = { f32 { 1, 2, 3 }, f32 { 4, 5 }, f32 { 10, 10, 13 }, f32 { 10, 11, 12 }, f32 { 13, 14, 15, 16, 21 }, f32 { 2 } }
  local r = { f32 { 1, 2, 3 }, f32 { 4, 5 }, f32 { 10, 10, 13 }, f32 { 10, 11, 12 }, f32 { 13, 14, 15, 16, 21 }, f32 { 2 } }
  local mp = map({ A({ 1 }, a[1]), A({ 2 }, a[2]), A({ 3 }, a[3]), A({ 4 }, a[4]), A({ 5 }, a[5]), A({ 6 }, a[6]) },
                 { R({ 1, 2 }, { r[1], r[2] }, 2), R({ 3, 4 }, { r[3], r[4] }, 2), R({ 5, 6 }, { r[5], r[6] }, 2) })
  t.is(#mp, 6, "map delegated: six entries")
  local good = true
  local want = { { 2, 2 }, { 1, 1 }, { 4, 4 }, { 3, 3 }, { 6, 6 }, { 5, 5 } }
  for i, e in ipairs(mp) do
    good = good and rawequal(e.aot.output, a[want[i][1]]) and rawequal(e.runtime.output, r[want[i][2]])
  end
  t.ok(good, "map delegated: outputs taken from the end, i = 0 the last handle")
  t.is(pr.repr(mp[1].aot.debug_handle) .. pr.repr(mp[1].runtime.debug_handle), "(1, 2)(1, 2)",
       "map delegated: the AOT key is the runtime tuple")
  t.raises(function() map({ A({ 1, 2 }, 1) }, { R({ 1 }, 2), R({ 2 }, 3) }) end,
           "^Expected only one runtime debug handle, but found 2: %[%(%(1,%), 2, 1%), %(%(2,%), 3, 1%)%]",
           "map: two runtime handles in one component")
  -- a sequence AOT output
  local s1, s2 = f32 { 1 }, f32 { 2 }
  t.raises(function() map({ A({ 1 }, { s1, s2 }) }, { R({ 1 }, s1) }) end,
           "runtime intermediate output should be a sequence when aot intermediate output is a sequence",
           "map: AOT sequence, runtime not")
  t.raises(function() map({ A({ 1 }, { s1, s2 }) }, { R({ 1 }, { s1, 7 }) }) end,
           "The last element of runtime argument list must be a tensor or a list of tensors",
           "map: AOT sequence, runtime's last element neither a tensor nor a list of tensors")
  mp = map({ A({ 1 }, { s1, s2 }) }, { R({ 1 }, { { s1, s2 } }) })
  t.ok(rawequal(mp[1].runtime.output[2], s2) and getmetatable(mp[1].runtime.output).__pytuple,
       "map: AOT sequence, runtime's last element a list of tensors -> that list, as a tuple")
  mp = map({ A({ 1 }, { s1 }) }, { R({ 1 }, { s2, s1 }) })
  t.is(N.len(mp[1].runtime.output), 2, "map: AOT sequence, runtime's last element a tensor -> the whole runtime list")
  -- multi-output ops (native_layer_norm): n == 1, several runtime values
  local out, mean, rstd = f32 { { 1, 2, 3 }, { 4, 5, 6 } }, f32 { { 2 }, { 5 } }, f32 { { 1 }, { 1 } }
  local aot_out = f32 { { 1, 2, 3 }, { 4, 5, 6 } }
  mp = map({ A({ 4 }, aot_out) }, { R({ 4 }, { out, mean, rstd }) })
  t.ok(rawequal(mp[1].runtime.output, out), "map multi-output: the one runtime value of the AOT shape")
  local mean64 = T { dtype = "float64", values = { { 2 }, { 5 } } }
  mp = map({ A({ 4 }, f32 { { 2 }, { 5 } }) }, { R({ 4 }, { out, mean64, rstd }) })
  t.ok(rawequal(mp[1].runtime.output, rstd), "map multi-output: two of the shape, one of the dtype")
  mp = map({ A({ 4 }, f64 { { 2 }, { 5 } }) }, { R({ 4 }, { out, rstd, mean }) })
  t.ok(rawequal(mp[1].runtime.output, mean), "map multi-output: no single match -> the last value")
  mp = map({ A({ 4 }, f32 { 9, 9, 9, 9 }) }, { R({ 4 }, { out, mean }) })
  t.ok(rawequal(mp[1].runtime.output, mean), "map multi-output: no shape match -> the last value")
  mp = map({ A({ 1 }, 5) }, { R({ 1 }, {}) })
  t.ok(#mp == 1 and mp[1].runtime.output == nil, "map: no runtime values -> nil (the reference raises IndexError)")
  mp = map({ A({ 1 }, 5) }, { R({ 1 }, { 6 }, 3) })
  t.is(#mp, 1, "map: num_outputs beyond the handles: the missing ones skipped (IndexError in the reference)")
end

-- ===================================================== find_op_names (§7.5)
do
  local function O(h, names) return { debug_handle = h, names = names } end
  local f = N.find_op_names
  t.is(#f({}, { O({ 1, 2 }, { "op1" }), O({ 3, 4 }, { "op2" }) }), 0, "find_op_names: empty handle")
  t.is(#f({ 1, 2 }, { O({ 3, 4 }, { "op1" }), O({ 5, 6 }, { "op2" }) }), 0, "find_op_names: no match")
  t.is(table.concat(f({ 1, 2, 3 }, { O({ 1, 2 }, { "op1" }), O({ 2, 3 }, { "op2" }), O({ 4, 5, 6 }, { "op3" }) }), " "),
       "op1 op2", "find_op_names: subsets")
  t.is(table.concat(f({ 1, 2, 3 }, { O({ 1, 2 }, { "op1", "op2", "op3" }), O({ 4, 5 }, { "op4" }) }), " "),
       "op1 op2 op3", "find_op_names: several ops of one handle")
  t.is(table.concat(f({ 1, 2, 3, 4, 5 }, { O({ 1, 2 }, { "op1" }), O({ 3 }, { "op2", "op3" }), O({ 4 }, { "op4" }),
                                         O({ 5 }, { "op5", "op6", "op7" }) }), " "),
       "op1 op2 op3 op4 op5 op6 op7", "find_op_names: mixed")
end

-- ===================================================== the comparator framework (§7.5)
do
  local function A(h, o) return { debug_handle = h, output = o } end
  local function R(h, o, n) return { debug_handle = h, output = o, num_outputs = n or 1 } end
  local function O(h, names) return { debug_handle = h, names = names } end
  local function sides(r0, r1)
    local aot = { outputs = { A({ 0 }, f32 { 1, 2, 3 }), A({ 1 }, f32 { 4, 5, 6 }) },
                  op_names = { O({ 0 }, { "op_0" }), O({ 1 }, { "op_1" }) },
                  stack_traces = { { debug_handle = { 0 }, names = { "op_0" }, traces = { op_0 = "File 'test.py', line 10\n    x * y" } },
                                   { debug_handle = { 1 }, names = { "op_1" }, traces = { op_1 = "File 'test.py', line 15\n    x + y" } } } }
    local rt = { outputs = { R({ 0 }, { f32(r0) }), R({ 1 }, { f32(r1) }) },
                 op_names = { O({ 0 }, { "op_0" }), O({ 1 }, { "op_1" }) } }
    return aot, rt
  end
  local aot, rt = sides({ 2, 1, 4 }, { 3, 6, 5 })
  local df = N.numeric_gap(aot, rt, "L1")
  t.is(#df, 2, "numeric gap L1: two rows")
  t.is(table.concat(df.columns, " "), "aot_debug_handle aot_ops aot_intermediate_output runtime_ops "
       .. "runtime_debug_handle runtime_intermediate_output gap stacktraces", "numeric gap: the reference's columns")
  t.ok(df[1].gap[1] == 3.0 and df[2].gap[1] == 3.0 and #df[1].gap == 1, "numeric gap L1: gap [3.0] on each row")
  t.is(pr.repr(df[1].aot_debug_handle) .. pr.repr(df[1].aot_ops) .. pr.repr(df[2].runtime_ops), "(0,)['op_0']['op_1']",
       "numeric gap: handles and op names")
  t.is(pr.repr(df[2].stacktraces), "{'op_1': \"File 'test.py', line 15\\n    x + y\"}", "numeric gap: stacktraces")
  t.is(tostring(df[1].runtime_intermediate_output), "tensor([2.0, 1.0, 4.0], dtype=float32)",
       "numeric gap: the runtime output is the element the mapping chose")
  aot.stack_traces = {}
  t.is(pr.repr(N.numeric_gap(aot, rt, " mse\t")[1].stacktraces), "{'op_0': None}",
       "numeric gap: no stack traces -> None; the distance stripped and upper-cased")

  -- a custom comparator: max |a - b|
  aot, rt = sides({ 2, 1, 5 }, { 3, 6, 5 })
  local maxabs = { element_compare = function(x, y)
    local m = 0
    for i = 1, #x do m = math.max(m, math.abs(x[i] - y[i])) end
    return m
  end }
  df = N.numeric_gap(aot, rt, maxabs, "INSPECTOR")
  t.ok(df[1].gap[1] == 2.0 and df[2].gap[1] == 1.0, "custom Lua comparator: max |a - b| = 2.0, 1.0")
  t.is(maxabs.inspector, "INSPECTOR", "custom comparator: its inspector is set when it has none")
  -- a custom comparator with preprocessing: runtime tensors scaled by 2
  local calls = 0
  local function scale(mapping)
    calls = calls + 1
    local out = {}
    for i, e in ipairs(mapping) do
      local r = e.runtime.output
      if etinspect.Tensor.is_tensor(r) then
        local v = {}
        for k = 1, r.numel do v[k] = r[k] * 2 end
        r = f32(v)
      end
      out[i] = { aot = e.aot, runtime = { debug_handle = e.runtime.debug_handle, output = r } }
    end
    return out
  end
  aot, rt = sides({ 1, 1, 1 }, { 2, 2, 2 })
  df = N.numeric_gap(aot, rt, { preprocessing = scale, element_compare = etinspect.comparators.MSE.element_compare })
  t.is(calls, 1, "preprocessing called once")
  t.near(df[1].gap[1], 2 / 3, 1e-12, "MSE after preprocessing: 2/3")
  t.near(df[2].gap[1], 5 / 3, 1e-12, "MSE after preprocessing: 5/3")
  df = N.numeric_gap(aot, rt, { preprocessing = scale, element_compare = etinspect.comparators.SNR.element_compare })
  t.near(df[1].gap[1], 10 * math.log(7, 10), 1e-12, "SNR after preprocessing: 10*log10(7)")
  t.near(df[2].gap[1], 10 * math.log(77 / 5, 10), 1e-12, "SNR after preprocessing: 10*log10(77/5)")
  -- invalid preprocessing results
  local function bad(ret) return { preprocessing = function() return ret end, element_compare = function() return 0 end } end
  t.raises(function() N.numeric_gap(aot, rt, bad("invalid")) end, "^preprocessing%(%) must return a table, got str",
           "preprocessing returning a string")
  t.raises(function() N.numeric_gap(aot, rt, bad({ { runtime = { debug_handle = { 0 }, output = 1 } } })) end,
           "^Invalid key format in preprocessed mapping: entry 1: None", "an entry without aot")
  t.raises(function() N.numeric_gap(aot, rt, bad({ { aot = { debug_handle = { "not_int" }, output = 1 },
                                                     runtime = { debug_handle = { 0 }, output = 1 } } })) end,
           "^Invalid AOT debug handle in key: %['not_int'%]", "an AOT handle that is not integers")
  t.raises(function() N.numeric_gap(aot, rt, bad({ { aot = { debug_handle = { 0 }, output = 1 }, runtime = "invalid_value" } })) end,
           "^Invalid value format in preprocessed mapping: entry 1: 'invalid_value'", "a runtime side that is not a table")
  t.raises(function() N.numeric_gap(aot, rt, bad({ { aot = { debug_handle = { 0 }, output = 1 },
                                                     runtime = { debug_handle = { "not_int" }, output = 1 } } })) end,
           "^Invalid runtime debug handle in value: %['not_int'%]", "a runtime handle that is not integers")
  t.raises(function() N.numeric_gap(aot, rt, { element_compare = function() return "x" end }) end,
           "element_compare must return a number, got str", "element_compare returning a string")
  t.raises(function() N.numeric_gap(aot, rt, "MSEE") end, "^Unsupported distance metric 'MSEE'$", "an unknown metric")
  t.raises(function() N.numeric_gap(aot, rt, 3) end, "distance must be", "a distance of the wrong type")
  -- sequences
  local cmp = { element_compare = function() return 1 end }
  df = N.compare(cmp, { { aot = { debug_handle = { 1 }, output = { f32 { 1 } } }, runtime = { debug_handle = { 1 }, output = { f32 { 1 } } } } }, {}, {})
  t.is(pr.repr(df[1].gap), "[1]", "a one-element AOT sequence is compared element-wise")
  df = N.compare(cmp, { { aot = { debug_handle = { 1 }, output = { 1, 2 } }, runtime = { debug_handle = { 1 }, output = { 1, 2 } } } }, {}, {})
  t.is(#df.columns, 0, "an AOT sequence of two values is skipped; no rows -> no columns")
  t.raises(function() N.compare(cmp, { { aot = { debug_handle = { 1 }, output = { 1 } }, runtime = { debug_handle = { 1 }, output = { 1, 2 } } } }, {}, {}) end,
           "^Sequences 'a' %(%[1%]%) and 'b' %(%[1, 2%]%) must have the same length for comparison. len%(a%): 1 len%(b%): 2.$",
           "sequences of different lengths")
  t.raises(function() N.compare(cmp, { { aot = { debug_handle = { 1 }, output = { 1 } }, runtime = { debug_handle = { 1 }, output = 1 } } }, {}, {}) end,
           "^Both inputs 'a' %(%[1%]%) and 'b' %(1%) must be sequences or both must be non%-sequences.$",
           "a sequence against a non-sequence")
  df = N.compare(cmp, { { aot = { debug_handle = { 1 }, output = nil }, runtime = { debug_handle = { 1 }, output = 1 } } }, {}, {})
  t.is(#df, 0, "a None output is skipped")
end

-- ===================================================== Inspectors: debug.etdp
local debug_etdp, debug_bin = t.corpus .. "/debug.etdp", t.corpus .. "/debug.bin"
local debug_record = require("numeric_cases").debug_record

if not (t.exists(debug_etdp) and t.exists(debug_bin)) then
  t.skip("corpus debug.etdp/debug.bin absent (" .. t.corpus .. "): calculate_numeric_gap between Inspectors")
else
  local rec = debug_record(tmp .. "/debug.etrecord")
  local function open(o)
    o = o or {}
    o.etdump_path = o.etdump_path or debug_etdp
    if o.debug_buffer_path == nil then o.debug_buffer_path = debug_bin end
    if o.debug_buffer_path == false then o.debug_buffer_path = nil end
    if o.etrecord == nil then o.etrecord = rec end
    if o.etrecord == false then o.etrecord = nil end
    return etinspect.Inspector(o)
  end
  local a, b = open(), open()
  local outs, names = N.runtime_intermediate_outputs(a)
  t.is(#outs, 23, "runtime side: 23 handle tuples (OPERATOR_CALL, Method::execute and the covered DELEGATE_CALL left out)")
  t.is(keys(outs, "debug_handle"):match("^%S+"), "(1,)", "runtime side: the first is mul's")
  local covered = true
  for _, o in ipairs(outs) do if N.len(o.debug_handle) > 1 then covered = false end end
  t.ok(covered, "runtime side: the DELEGATE_CALL (handles 17..22) is covered by its delegated events")
  t.is(names[1].names[1], "native_call_mul.out", "runtime op names: event names")
  t.is(names[17].names[1], "10", "runtime op names: a delegated event's name")

  local df = a:calculate_numeric_gap(b, "L1")
  t.is(#df, 21, "debug.etdp against itself: 21 rows (the two tensor lists are skipped)")
  local zero = true
  for _, r in df:rows() do
    for _, g in ipairs(r.gap) do if g ~= 0 then zero = false end end
  end
  t.ok(zero, "debug.etdp against itself: every L1 gap is 0")
  local mse = a:calculate_numeric_gap(b, "MSE")
  local nans, others = 0, true
  for _, r in mse:rows() do
    if is_nan(r.gap[1]) then nans = nans + 1 elseif r.gap[1] ~= 0 then others = false end
  end
  t.ok(nans == 1 and others, "MSE against itself: 0, and NaN for the empty slice_copy output")
  local row1 = df[1]
  t.is(pr.repr(row1.aot_debug_handle) .. pr.repr(row1.aot_ops) .. pr.repr(row1.runtime_ops),
       "(1,)['mul']['native_call_mul.out']", "row 1: handle, AOT op (graph node), runtime op (event)")
  t.is(pr.repr(df[2].stacktraces), "{'arange': None}", "row 2: a node without a stack trace")
  t.is(df[1].stacktraces.mul, 'File "model.py", line 1, in forward\n    y = mul(y)', "row 1: the node's stack trace")
  local snr = a:calculate_numeric_gap(a, "snr", { block = "Execute" })
  t.is(snr[1].gap[1], inf, "SNR against itself: inf")
  -- a custom comparator over Inspectors
  local seen = 0
  local cmp = { element_compare = function(x, y) seen = seen + 1; return etinspect.comparators.L1.element_compare(x, y) end }
  a:calculate_numeric_gap(b, cmp)
  t.is(seen, 21, "a custom comparator is called once per row")
  t.ok(rawequal(cmp.inspector, a), "... and gets the Inspector")

  -- save the runtime side as an AOT directory, compare with it, perturb it
  local dir = tmp .. "/aot"
  t.is(a:save_intermediate_outputs(dir), 23, "save_intermediate_outputs: 23 outputs written")
  local idx = t.read(dir .. "/index.json")
  t.ok(idx:find('"format": "etinspect-aot-outputs"', 1, true) and idx:find('"debug_handle": [14], "output": 123456789012', 1, true),
       "index.json: format, a scalar output inline")
  t.ok(idx:find('"debug_handle": [13], "output": ["h_13_0.npy", "h_13_1.npy"], "op_names": ["split_copy"]', 1, true),
       "index.json: a tensor list as a list of files, getitem nodes left out of op_names")
  local fromdir = a:calculate_numeric_gap(dir, "L1")
  t.is(#fromdir, 21, "against the saved directory: 21 rows")
  local z = true
  for i, r in fromdir:rows() do
    if r.gap[1] ~= 0 or pr.repr(r.aot_ops) ~= pr.repr(df[i].aot_ops) then z = false end
  end
  t.ok(z, "against the saved directory: zero gaps, the same op names")
  t.is(pr.repr(fromdir[1].stacktraces), pr.repr(df[1].stacktraces), "against the saved directory: the same stack traces")
  local mul = etinspect.read_npy(dir .. "/h_1.npy")
  t.is(tostring(mul), "tensor([[0.5, 0.75, 1.0], [1.25, 1.5, 1.75]], dtype=float32)", "h_1.npy holds mul's output")
  -- AOT = runtime + 1 everywhere for mul; 2 * runtime for permute_copy (handle 12)
  local v1, v12 = {}, {}
  for i = 1, mul.numel do v1[i] = mul[i] + 1 end
  etinspect.write_npy(dir .. "/h_1.npy", T { dtype = "float32", shape = mul.shape, values = v1 })
  local perm = etinspect.read_npy(dir .. "/h_12.npy")
  local sumsq = 0
  for i = 1, perm.numel do v12[i] = 2 * perm[i]; sumsq = sumsq + perm[i] ^ 2 end
  etinspect.write_npy(dir .. "/h_12.npy", T { dtype = "float32", shape = perm.shape, values = v12 })
  local g = a:calculate_numeric_gap(dir, "MSE")
  t.is(g[1].gap[1], 1.0, "perturbed mul (+1): MSE 1.0")
  t.is(a:calculate_numeric_gap(dir, "L1")[1].gap[1], 6.0, "perturbed mul (+1): L1 6.0 (2x3 elements)")
  t.near(g[12].gap[1], sumsq / 6, 1e-12, "permute_copy doubled: MSE = mean(x^2) (strided runtime tensor)")
  t.near(a:calculate_numeric_gap(dir, "SNR")[12].gap[1], 10 * math.log(4, 10), 1e-12,
         "permute_copy doubled: SNR = 10*log10(4)")
  local py = a:calculate_numeric_gap("MSE", dir)
  t.is(#py, #g, "calculate_numeric_gap in the Python order (distance first): the same rows")
  t.is(py[12].gap[1], g[12].gap[1], "... and the same gaps")
  t.is(a:calculate_numeric_gap(" snr ", b)[1].gap[1], a:calculate_numeric_gap(b, "SNR")[1].gap[1],
       "the Python order with an Inspector as the reference")
  t.raises(function() a:calculate_numeric_gap("MSE") end,
           'no reference for the AOT side: the Python Inspector runs the ETRecord\'s graph in PyTorch',
           "the Python call without a reference says why it cannot work and what to pass")
  t.raises(function() a:calculate_numeric_gap("MSE", false, "edge_dialect_exported_program") end,
           "insp:calculate_numeric_gap%(\'MSE\', reference", "... also with Python's positional flags")

  -- errors
  local plain = open { etrecord = false }
  t.raises(function() plain:calculate_numeric_gap(b, "MSE") end, "this Inspector is not linked to an ETRecord",
           "no ETRecord on the runtime side")
  t.raises(function() a:calculate_numeric_gap(plain, "MSE") end, "the reference Inspector is not linked to an ETRecord",
           "no ETRecord on the reference side")
  local nobuf = open { debug_buffer_path = false }
  t.raises(function() nobuf:calculate_numeric_gap(b, "MSE") end, "no debug buffer",
           "no debug buffer: the tensors cannot be read")
  t.raises(function() a:calculate_numeric_gap(b, "MSE", { bogus = 1 }) end, "unknown option 'bogus'", "an unknown option")
  t.raises(function() a:calculate_numeric_gap(b, "MSE", { block = "Nope" }) end, "no event block 'Nope'", "an unknown block")
  t.raises(function() a:calculate_numeric_gap(42, "MSE") end, "reference must be an Inspector or the path",
           "a reference of the wrong type")
  t.raises(function() a:calculate_numeric_gap(b, "L2") end, "Unsupported distance metric 'L2'", "L2 is not supported")
  local default_block = open { etdump_path = debug_etdp }
  t.raises(function() a:calculate_numeric_gap(default_block, "MSE", { reference_block = "Default" }) end,
           "^.-Missing etrecord or missing representative inputs within etrecord",
           "a reference with no intermediate outputs: the reference's message")
end

-- ===================================================== AOT directories
do
  local d = tmp .. "/hand"
  os.execute("mkdir -p '" .. d .. "'")
  etinspect.write_npy(d .. "/a.npy", f32 { 1, 2, 3 })
  etinspect.write_npy(d .. "/b.npy", T { dtype = "int64", values = { { 1, 2 }, { 3, 4 } } })
  write(d .. "/index.json", [[{"format": "etinspect-aot-outputs", "version": 1, "reference_graph": "exported_program",
    "method": "forward", "outputs": [
      {"debug_handle": 3, "output": "a.npy", "op_names": ["add", "add_1"],
       "stack_traces": {"add": "File \"m.py\", line 3", "add_1": null}},
      {"debug_handle": [4, 5], "output": ["a.npy", 2.5, null, true]},
      {"debug_handle": [6], "output": null},
      {"debug_handle": [7], "output": 17}
    ]}]])
  local aot = etinspect.load_aot_outputs(d)
  t.is(aot.reference_graph .. " " .. aot.method, "exported_program forward", "load_aot_outputs: reference_graph, method")
  t.is(keys(aot.outputs), "(3,) (4, 5) (6,) (7,)", "load_aot_outputs: debug handles, in file order")
  t.is(tostring(aot.outputs[1].output), "tensor([1.0, 2.0, 3.0], dtype=float32)", "load_aot_outputs: a .npy file")
  local l = aot.outputs[2].output
  t.ok(l.n == 4 and etinspect.Tensor.is_tensor(l[1]) and l[2] == 2.5 and l[3] == nil and l[4] == true,
       "load_aot_outputs: a list of a tensor, a float, None and a bool")
  t.ok(aot.outputs[3].output == nil and aot.outputs[4].output == 17, "load_aot_outputs: null and an integer")
  t.is(pr.repr(aot.op_names[1].names), "['add', 'add_1']", "load_aot_outputs: op names")
  t.is(#aot.op_names, 1, "load_aot_outputs: entries without op_names give none")
  t.is(pr.repr(aot.stack_traces[1].names), "['add', 'add_1']", "load_aot_outputs: stack traces, None kept")

  local function index(body)
    write(d .. "/index.json", body)
    return function() return etinspect.load_aot_outputs(d) end
  end
  local ipath = d .. "/index.json: "
  local function bad(body, pattern, what)
    t.raises(index(body), pattern, "load_aot_outputs refuses " .. what)
  end
  local H = '{"format": "etinspect-aot-outputs", "version": 1, "outputs": '
  t.raises(function() etinspect.load_aot_outputs(tmp .. "/none") end, "/none/index.json: No such file or directory",
           "load_aot_outputs: no index.json")
  bad("{", "index.json: invalid JSON at line 1", "invalid JSON")
  bad('{"format": "x", "version": 1, "outputs": []}', 'not an AOT outputs index %("format" must be "etinspect%-aot%-outputs"%)', "another format")
  bad('{"format": "etinspect-aot-outputs", "version": 2, "outputs": []}', "version 2 is not supported %(this etinspect reads version 1%)", "version 2")
  bad('{"format": "etinspect-aot-outputs", "version": "1", "outputs": []}', '"version" must be a positive integer', "a string version")
  bad(H .. '{}}', '"outputs" must be a list', "outputs as an object")
  bad(H .. '[3]}', "outputs%[0%]: expected an object", "an output that is not an object")
  bad(H .. '[{"debug_handle": [], "output": 1}]}', "outputs%[0%]%.debug_handle: expected an integer or a non%-empty list of integers", "an empty handle")
  bad(H .. '[{"debug_handle": ["1"], "output": 1}]}', "outputs%[0%]%.debug_handle", "a string handle")
  bad(H .. '[{"debug_handle": 1, "output": 1}, {"debug_handle": [1], "output": 2}]}',
      "outputs%[1%]: debug handle %(1,%) already given by outputs%[0%]", "a duplicate handle")
  bad(H .. '[{"debug_handle": 1, "output": "../a.npy"}]}', "outputs%[0%]%.output: file name '%.%./a%.npy' must be relative and stay inside the directory", "a path leaving the directory")
  bad(H .. '[{"debug_handle": 1, "output": "/etc/passwd"}]}', "must be relative", "an absolute path")
  bad(H .. '[{"debug_handle": 1, "output": "missing.npy"}]}', "outputs%[0%]%.output: .*missing%.npy: No such file or directory", "a missing file")
  write(d .. "/bad.npy", "\x93NUMPY\1\0\4\0{}  ")
  bad(H .. '[{"debug_handle": 1, "output": ["a.npy", "bad.npy"]}]}', "outputs%[0%]%.output%[1%]: .*bad%.npy: header: key 'descr' missing", "a malformed .npy inside a list")
  bad(H .. '[{"debug_handle": 1, "output": {"x": 1}}]}', "expected a %.npy file name, a number, a boolean, null or a list", "an object as output")
  bad(H .. '[{"debug_handle": 1, "output": 1, "op_names": "add"}]}', "outputs%[0%]%.op_names: expected a list of strings", "op_names as a string")
  bad(H .. '[{"debug_handle": 1, "output": 1, "stack_traces": {"add": 3}}]}', "stack_traces%['add'%]: expected a string or null", "a numeric stack trace")
  index(H .. '[]}')
  if t.exists(debug_etdp) then
    local insp = etinspect.Inspector { etdump_path = debug_etdp, debug_buffer_path = debug_bin,
                                       etrecord = tmp .. "/debug.etrecord" }
    t.raises(function() insp:calculate_numeric_gap(d, "MSE") end,
             "/hand: Missing etrecord or missing representative inputs within etrecord, both of which are "
             .. "required for calculating numerical gap %(no outputs%)$", "an empty AOT directory")
    -- a hand-written directory: mul's handle with 2x its output, one op name
    write(d .. "/index.json", H .. '[{"debug_handle": [1], "output": "m.npy", "op_names": ["mul"]}]}')
    etinspect.write_npy(d .. "/m.npy", f32 { { 1, 1.5, 2 }, { 2.5, 3, 3.5 } })
    local g = insp:calculate_numeric_gap(d, "L1")
    t.is(#g, 1, "a hand-written AOT directory: one row")
    t.is(g[1].gap[1], 0.5 + 0.75 + 1 + 1.25 + 1.5 + 1.75, "... L1 = sum |2x - x|")
    t.is(pr.repr(g[1].stacktraces), "{'mul': None}", "... no stack traces given: None")
  else
    t.skip("corpus debug.etdp absent: AOT directory against an Inspector")
  end
end

-- ===================================================== .npy files from Lua
do
  local cases = {
    { "float32", { { 0.5, -1 }, { 2, 3 } } }, { "float64", { 1e300, -0.0 } }, { "int64", { -9007199254740993, 7 } },
    { "bool", { true, false, true } }, { "float16", { 1, 0.5, 65504 } }, { "uint8", { 0, 255 } }, { "int8", { -128, 127 } },
    { "int16", { -300 } }, { "uint16", { 65535 } }, { "int32", { { { -1 } } } },
  }
  for _, c in ipairs(cases) do
    local x = T { dtype = c[1], values = c[2] }
    local p = tmp .. "/x_" .. c[1] .. ".npy"
    etinspect.write_npy(p, x)
    local y = etinspect.read_npy(p)
    t.ok(y.dtype == x.dtype and pr.repr(y.shape) == pr.repr(x.shape) and y:bytes() == x:bytes(),
         "write_npy/read_npy round trip: " .. c[1])
  end
  local bf = T { dtype = "bfloat16", values = { 1.5, -2 } }
  etinspect.write_npy(tmp .. "/bf.npy", bf)
  local y = etinspect.read_npy(tmp .. "/bf.npy")
  t.ok(y.dtype == "float32" and y[1] == 1.5 and y[2] == -2, "bfloat16 is written as float32")
  local s = T { dtype = "float32", values = 2.5 }
  etinspect.write_npy(tmp .. "/s.npy", s)
  t.is(t.read(tmp .. "/s.npy"):sub(11, 65), "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", "a 0-dim tensor: shape ()")
  t.is(#t.read(tmp .. "/s.npy"), 128 + 4, "the data starts at byte 128 (a multiple of 64)")
  -- hand-made: big-endian, fortran order
  local core = etinspect._core
  local head = "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 2), }"
  local bytes = "\x93NUMPY\1\0" .. string.pack("<I2", #head + 1) .. head .. "\n" .. string.pack(">i4>i4>i4>i4", 1, 3, 2, 4)
  local be = core.npy_parse(bytes, "be.npy")
  t.is(tostring(be), "tensor([[1, 2], [3, 4]], dtype=int32)", "npy_parse: big-endian, fortran order")
  t.raises(function() core.npy_parse("nope", "n.npy") end, "^n%.npy: not a %.npy file", "npy_parse: not a .npy")
  t.raises(function() etinspect.read_npy(tmp .. "/none.npy") end, "none%.npy: No such file or directory", "read_npy: a missing file")
  t.raises(function() etinspect.write_npy(tmp .. "/z.npy", { 1 }) end, "argument 2 must be a Tensor", "write_npy of a table")
end

-- ===================================================== BundledProgram: run vs reference outputs
do
  local bpte = t.corpus .. "/repo_bundled_program.bpte"
  local patched = t.corpus .. "/real_bundled_debug_bii_patched"
  local plain = t.corpus .. "/real_bundled_debug"
  if not (t.exists(bpte) and t.exists(patched .. ".etdp") and t.exists(plain .. ".etdp")) then
    t.skip("corpus real_bundled_debug* / repo_bundled_program.bpte absent: the bundled comparison")
  else
    local insp = etinspect.Inspector { etdump_path = patched .. ".etdp", debug_buffer_path = patched .. ".bin",
                                       bundled_program_path = bpte }
    local have = false
    for _, blk in ipairs(insp.event_blocks) do if blk.reference_output ~= nil then have = true end end
    if not have then
      t.skip("blk.reference_output is unavailable (the BundledProgram reader gives none): the bundled comparison")
    else
      local f = insp:compare_results()
      t.is(#f, 10, "real_bundled_debug (bundled_input_index set) + .bpte: ten blocks with reference outputs")
      t.is(table.concat(f.columns, " "),
           "block block_index bundled_input_index output_index shape snr mse cosine_similarity max_abs_diff",
           "insp:compare_results: columns (no note column when nothing is missing)")
      local zero = true
      for i, r in f:rows() do
        if not (r.snr == inf and r.mse == 0 and r.cosine_similarity == 1 and r.max_abs_diff == 0
                and r.bundled_input_index == i - 1 and r.block_index == i + 1 and r.shape == "[2, 2]") then
          zero = false
        end
      end
      t.ok(zero, "comparison against the bundled expected outputs: zero error (snr inf, mse 0, cosine 1, max |diff| 0)")
      local blk = insp.event_blocks[2]
      local r = etinspect.compare_results(blk.reference_output, blk.run_output)
      t.ok(r.mse[1] == 0 and r.snr[1] == inf and r.cosine_similarity[1] == 1,
           "etinspect.compare_results(blk.reference_output, blk.run_output): zero error")
      local one = insp:compare_results { block = 3, metrics = { "mse" } }
      t.is(#one .. " " .. table.concat(one.columns, " "),
           "1 block block_index bundled_input_index output_index shape mse max_abs_diff", "opts.block, opts.metrics")
      t.raises(function() insp:compare_results { metrics = { "msee" } } end,
               "compare_results: unknown metric 'msee' %(snr, mse, cosine_similarity%)", "an unknown metric")
      t.raises(function() insp:compare_results { bogus = true } end, "compare_results: unknown option 'bogus'",
               "an unknown option")
      local unpatched = etinspect.Inspector { etdump_path = plain .. ".etdp", debug_buffer_path = plain .. ".bin",
                                              bundled_program_path = bpte }
      t.is(#unpatched:compare_results(), 0,
           "real_bundled_debug as written (no bundled_input_index): no reference outputs, no rows")
    end
    -- notes: outputs that cannot be compared
    local fake = setmetatable({}, { __index = {
      event_blocks = { { name = "Execute", bundled_input_index = 0,
                         run_output = { f32 { 1, 2 }, 3, f32 { 1, 2, 3 } },
                         reference_output = { f32 { 1, 3 }, 3, f32 { { 1, 2, 3 } }, f32 { 1 } } } } } })
    local f = N.inspector_compare_results(fake)
    t.is(#f, 4, "unequal numbers of outputs: a row for the extra one")
    t.is(f.columns[#f.columns], "note", "a note column when a row has one")
    t.ok(f[1].note == nil and f[1].mse == 0.5 and f[1].max_abs_diff == 1, "row 1: compared")
    t.ok(f[2].note == "not tensors: int and int" and is_nan(f[2].snr) and f[2].max_abs_diff == 0,
         "row 2: two ints: NaN metrics, max_abs_diff 0, a note")
    t.is(f[3].note, "shapes differ: [1, 3] and [3]", "row 3: shapes differ (cosine); mse broadcasts")
    t.is(f[3].mse, 0.0, "row 3: mse broadcast [1, 3] against [3]")
    t.is(f[4].note, "no run output", "row 4: no run output")
  end
end

os.execute("rm -rf '" .. tmp .. "'")
t.done()
