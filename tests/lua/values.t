#!/usr/bin/env etinspect
-- values.t - debug values and tensors (docs/debug-data.md): every value of
-- the corpus's debug.etdp + debug.bin (../shared/corpus/README.md) for all
-- three runs, against the reference summaries (ref/debug.lenient.json,
-- sha256 of the bytes included); the tests/fixtures/tensors.* dump (every
-- decodable scalar type, per-run values, no debug buffer); malformed
-- tensors (tests/fixtures/tensors_bad.json, a 4-byte buffer); Tensor.new.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local Tensor = etinspect.Tensor

local warnings = {}
etinspect.on_warning(function(msg) warnings[#warnings + 1] = msg end)

local fixtures = t.build .. "/fixtures"
local FIX_BIN = t.src .. "/tests/fixtures/tensors.bin"

-- helpers --------------------------------------------------------------------

--- SHA-256 of a string, as lowercase hex (FIPS 180-4).
local function sha256(msg)
  local K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 }
  local M32 = 0xffffffff
  local function rotr(x, n) return ((x >> n) | (x << (32 - n))) & M32 end
  local H = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 }
  local len = #msg
  msg = msg .. "\128" .. string.rep("\0", (55 - len) % 64) .. string.pack(">I8", len * 8)
  local w = {}
  for chunk = 1, #msg, 64 do
    for i = 0, 15 do w[i] = string.unpack(">I4", msg, chunk + 4 * i) end
    for i = 16, 63 do
      local s0 = rotr(w[i - 15], 7) ~ rotr(w[i - 15], 18) ~ (w[i - 15] >> 3)
      local s1 = rotr(w[i - 2], 17) ~ rotr(w[i - 2], 19) ~ (w[i - 2] >> 10)
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) & M32
    end
    local a, b, c, d, e, f, g, h = table.unpack(H)
    for i = 0, 63 do
      local S1 = rotr(e, 6) ~ rotr(e, 11) ~ rotr(e, 25)
      local ch = (e & f) ~ (~e & g)
      local t1 = (h + S1 + ch + K[i + 1] + w[i]) & M32
      local S0 = rotr(a, 2) ~ rotr(a, 13) ~ rotr(a, 22)
      local maj = (a & b) ~ (a & c) ~ (b & c)
      h, g, f, e, d, c, b, a = g, f, e, (d + t1) & M32, c, b, a, (t1 + S0 + maj) & M32
    end
    local v = { a, b, c, d, e, f, g, h }
    for i = 1, 8 do H[i] = (H[i] + v[i]) & M32 end
  end
  return string.format(string.rep("%08x", 8), table.unpack(H))
end
t.is(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 helper")

local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end
local function join(v) local p = {} for i = 1, #v do p[i] = tostring(v[i]) end return table.concat(p, ",") end

--- The element bytes in storage (memory) order, as the reference hashes
-- them: the view permuted so that its strides decrease, read contiguously.
local function storage_bytes(x)
  local nd = #x.shape
  local order = {}
  for d = 1, nd do order[d] = d end
  table.sort(order, function(a, b) return x.strides[a] > x.strides[b] end)
  local cs, acc = {}, 1
  for d = nd, 1, -1 do cs[d] = acc; acc = acc * x.shape[d] end
  local shape, strides = {}, {}
  for k, d in ipairs(order) do shape[k] = x.shape[d]; strides[k] = cs[d] end
  return Tensor.new { dtype = x.dtype, bytes = x:bytes(), shape = shape, strides = strides }:bytes()
end

--- Check a tensor's dtype, shape, strides and every element (exact, with
-- Lua types: integers for integer dtypes, floats for floating ones).
local function check_tensor(x, dtype, shape, strides, values, label)
  if not t.ok(Tensor.is_tensor(x), label .. ": a Tensor") then return end
  t.is(x.dtype, dtype, label .. ": dtype")
  t.is(join(x.shape), join(shape), label .. ": shape")
  t.is(join(x.strides), join(strides), label .. ": strides")
  t.is(x.numel, #values, label .. ": numel")
  local bad
  for i = 1, #values do
    local got, want = x[i], values[i]
    if got ~= want or math.type(got) ~= math.type(want) then
      bad = string.format("element %d: got %s (%s), want %s (%s)", i, tostring(got),
        math.type(got) or type(got), tostring(want), math.type(want) or type(want))
      break
    end
  end
  if not t.ok(bad == nil and x[#values + 1] == nil, label .. ": every element") then t.diag(bad) end
end

local function floats(list) local o = {} for i, v in ipairs(list) do o[i] = f32(v) end return o end
local function seq(n, fn) local o = {} for i = 0, n - 1 do o[i + 1] = fn(i) end return o end

-- Tensor.new ------------------------------------------------------------------

local a = Tensor.new { dtype = "float32", shape = { 2, 3 }, values = { 0.5, 0.75, 1.0, 1.25, 1.5, 1.75 } }
check_tensor(a, "float32", { 2, 3 }, { 3, 1 }, { 0.5, 0.75, 1.0, 1.25, 1.5, 1.75 }, "Tensor.new f32[2,3]")
t.is(tostring(a), "tensor([[0.5, 0.75, 1.0], [1.25, 1.5, 1.75]], dtype=float32)", "__tostring")
t.is(a:at(2, 1), 1.25, "at(2, 1)")
t.raises(function() return a:at(3, 1) end, "index 3 of dimension 1 is out of range 1..2", "at() out of range")
t.raises(function() return a:at(1) end, "at%(%) needs 2 indices", "at() with too few indices")
t.is(#a, 6, "#t is numel")
t.is(a.scalar_type, "FLOAT", "scalar_type")
t.is(a:sum(), 6.75, "sum")
t.is(a:mean(), 1.125, "mean")
t.is(a:min(), 0.5, "min")
t.is(a:max(), 1.75, "max")
t.near(a:std(), math.sqrt(0.18229166666666666), 1e-15, "population std")
t.is(#a:bytes(), 24, "bytes: 24")
t.is(a:bytes(), string.pack("<ffffff", 0.5, 0.75, 1.0, 1.25, 1.5, 1.75), "bytes: the float32s")
local nested = Tensor.new { dtype = "int64", values = { { 1, 2 }, { 3, 4 }, { 5, 6 } } }
check_tensor(nested, "int64", { 3, 2 }, { 2, 1 }, { 1, 2, 3, 4, 5, 6 }, "Tensor.new nested int64")
t.is(nested:sum(), 21, "int64 sum is an integer")
t.is(math.type(nested:sum()), "integer", "... of integer type")
t.is(tostring(Tensor.new { dtype = "float32", values = 2.5 }), "tensor(2.5, dtype=float32)", "0-dim")
t.is(Tensor.new { dtype = "float32", values = 2.5 }:tolist(), 2.5, "0-dim tolist is the scalar")
t.is(tostring(Tensor.new { dtype = "int32", values = seq(10, function(i) return i end) }),
  "tensor([0, 1, 2, ..., 7, 8, 9], dtype=int32)", "elided repr")
t.is(tostring(Tensor.new { dtype = "bool", values = { true, false } }), "tensor([True, False], dtype=bool)",
  "bool repr")
t.is(tostring(Tensor.new { dtype = "float16", values = { 0.1, 65504 } }), "tensor([0.1, 65500.0], dtype=float16)",
  "float16 repr: shortest text that reads back")
t.is(Tensor.new { dtype = "bfloat16", values = { 3.14159 } }[1], 3.140625, "bfloat16 rounds")
t.is(Tensor.new { dtype = "FLOAT8E4M3FN", values = { 1000 } }:nan_count(), 1, "float8 e4m3fn overflow is NaN")
t.is(Tensor.new { dtype = "uint8", values = { 255 } }[1], 255, "uint8")
t.raises(function() Tensor.new { dtype = "int8", values = { 128 } } end, "does not fit int8", "int8 128")
t.raises(function() Tensor.new { dtype = "int32", values = { 1.5 } } end, "does not fit int32", "int32 1.5")
t.raises(function() Tensor.new { dtype = "complex64", values = { 1 } } end, "unknown dtype 'complex64'",
  "unknown dtype")
t.raises(function() Tensor.new { dtype = "QUINT4X2", values = { 1 } } end, "cannot be read or written",
  "sub-byte dtype")
t.raises(function() Tensor.new { dtype = "float32", shape = { 2, 2 }, values = { 1, 2, 3 } } end,
  "3 values for a shape of 4 elements", "values / shape mismatch")
t.raises(function() Tensor.new { dtype = "float32", values = { { 1, 2 }, { 3 } } } end,
  "do not match the shape", "ragged nesting")
local view = Tensor.new { dtype = "float32", bytes = string.pack("<ffffff", 10, 11, 12, 13, 14, 15),
  shape = { 3, 2 }, strides = { 1, 3 } }
check_tensor(view, "float32", { 3, 2 }, { 1, 3 }, { 10.0, 13.0, 11.0, 14.0, 12.0, 15.0 }, "bytes view, strided")
t.is(join(view:tolist()[3]), "12.0,15.0", "tolist follows the strides")
t.is(view:bytes(), string.pack("<ffffff", 10, 13, 11, 14, 12, 15), "bytes in logical order")
t.is(view.is_contiguous, false, "is_contiguous")
t.raises(function() Tensor.new { dtype = "float32", bytes = "12345678", shape = { 3 } } end,
  "runs past the end of the bytes", "bytes view past the end")
t.raises(function() a[1] = 2 end, "read%-only", "tensors are read-only")
local nanv = Tensor.new { dtype = "float64", values = { 1, 0 / 0, 1 / 0, -1 / 0 } }
t.is(nanv:nan_count(), 1, "nan_count")
t.is(nanv:inf_count(), 2, "inf_count")
t.ok(nanv:max() ~= nanv:max(), "max propagates NaN")
local st = a:stats()
t.ok(st.count == 6 and st.min == 0.5 and st.max == 1.75 and st.sum == 6.75 and st.nan_count == 0, "stats()")
local empty = Tensor.new { dtype = "float32", shape = { 0, 4 }, values = {} }
t.ok(empty.numel == 0 and empty:min() == nil and empty:sum() == 0 and empty:mean() ~= empty:mean(),
  "empty: min nil, sum 0, mean NaN")
t.is(tostring(empty), "tensor([], shape=[0, 4], dtype=float32)", "empty repr")

-- tests/fixtures/tensors: every decodable type, two runs ---------------------------

if not t.exists(fixtures .. "/tensors.etdp") then
  t.skip("build/fixtures/tensors.etdp missing (run make)")
else
  warnings = {}
  local fx = etinspect.Inspector { etdump_path = fixtures .. "/tensors.etdp", debug_buffer_path = FIX_BIN }
  t.is(#fx.warnings, 1, "runs with different debug data: one warning (reading warnings makes the blocks)")
  t.is(#warnings, 1, "... given to on_warning")
  t.ok((warnings[1] or ""):find("different debug data", 1, true), "... saying so")
  local blk = fx.event_blocks[1]
  local ev = {}
  for _, e in ipairs(blk.events) do ev[e.name] = e end
  local mul = ev["native_call_mul.out"]
  t.is(mul.num_debug_runs, 2, "num_debug_runs")
  check_tensor(mul.debug_data[1], "float32", { 2, 3 }, { 3, 1 }, { 0.5, 0.75, 1.0, 1.25, 1.5, 1.75 },
    "fixture run 1 f32[2,3]")
  check_tensor(mul:debug_data_of_run(2)[1], "float32", { 2, 3 }, { 3, 1 }, { 10.0, 11.0, 12.0, 13.0, 14.0, 15.0 },
    "fixture run 2 f32[2,3]")
  t.raises(function() return mul:debug_data_of_run(3) end, "run 3 is out of range 1..2", "run out of range")
  check_tensor(ev["native_call_permute_copy.out"].debug_data[1], "float32", { 3, 2 }, { 1, 3 },
    { 10.0, 13.0, 11.0, 14.0, 12.0, 15.0 }, "fixture transposed")
  local list = ev["native_call_split_copy.Tensor_out"].debug_data[1]
  t.is(#list, 2, "TensorList: a sequence of 2")
  check_tensor(list[1], "float16", { 4 }, { 1 }, { 1.0, -2.0, 0.5, 65504.0 }, "fixture float16")
  check_tensor(list[2], "bfloat16", { 2 }, { 1 }, { 1.0, -3.140625 }, "fixture bfloat16")
  check_tensor(ev["native_call_arange.start_out"].debug_data[1], "int64", { 2 }, { 1 }, { -5, 1000000000000 },
    "fixture unaligned int64")
  local sc = ev["native_call_sym_size.int"]
  local d1, d2 = sc.debug_data, sc:debug_data_of_run(2)
  t.ok(d1[1] == 42 and math.type(d1[1]) == "integer" and d1[2] == 2.5 and d1[3] == true and d1[4] == nil,
    "scalars: Int, Double, Bool, Null (nil)")
  t.ok(d2[1] == 43 and d2[2] == 5.0 and d2[3] == true, "scalars of run 2")
  local misc = ev["native_call_misc.out"].debug_data
  check_tensor(misc[1], "bool", { 3 }, { 1 }, { true, false, true }, "fixture bool")
  check_tensor(misc[2], "FLOAT8E4M3FN", { 2 }, { 1 }, { 1.0, -2.0 }, "fixture float8 e4m3fn")
  t.is(misc[2].scalar_type, "FLOAT8E4M3FN", "... its scalar_type")
  check_tensor(misc[3], "QINT8", { 2 }, { 1 }, { -3, 4 }, "fixture qint8 as its integers")
  t.is(misc[4].dtype, "QUINT4X2", "sub-byte type: named")
  t.is(misc[4].readable, false, "... not readable")
  t.raises(function() return misc[4][1] end, "events%[6%] 'native_call_misc.out' %(instruction 5%), debug_data%[4%].*scalar type QUINT4X2 cannot be read",
    "... reading raises naming the event")
  t.is(misc[5][1], 18446744073709551615.0, "uint64 above 2^63 reads as a float")
  t.is(tostring(misc[5]), "tensor([18446744073709551615], dtype=uint64)", "... and prints exactly")
  local e = ev["native_call_slice_copy.Tensor_out"].debug_data[1]
  check_tensor(e, "float32", { 0, 4 }, { 4, 1 }, {}, "fixture empty f32[0,4]")
  t.is(e:bytes(), "", "empty bytes")
  check_tensor(blk.run_output[1], "float32", { 2, 3 }, { 3, 1 }, { 0.5, 0.75, 1.0, 1.25, 1.5, 1.75 }, "run_output")
  check_tensor(blk:run_output_of_run(2)[1], "float32", { 2, 3 }, { 3, 1 }, { 10.0, 11.0, 12.0, 13.0, 14.0, 15.0 },
    "run_output_of_run(2)")
  t.raises(function() return blk:run_output_of_run(0) end, "run 0 is out of range", "run_output_of_run(0)")
  -- views outlive nothing: closing the inspector
  local keep = mul.debug_data[1]
  fx:close()
  t.raises(function() return keep[1] end, "Tensor used after its inspector was closed", "closed inspector")
  t.raises(function() return keep.shape end, "Tensor used after its inspector was closed", "... any field")
  t.is(tostring(keep), "Tensor (inspector closed)", "... tostring still works")

  -- no debug buffer: shape and dtype, reading raises
  warnings = {}
  local nb = etinspect.Inspector { etdump_path = fixtures .. "/tensors.etdp" }
  local x = nb.event_blocks[1].events[1].debug_data[1]
  t.is(join(x.shape), "2,3", "no debug buffer: shape known")
  t.is(x.dtype, "float32", "... dtype known")
  t.is(x.readable, false, "... not readable")
  t.raises(function() return x[1] end,
    "^event_blocks%[1%] 'Execute', run 1, events%[1%] 'native_call_mul.out' %(instruction 0%), debug_data%[1%] %(run_data%[0%], Value at byte %d+%): no debug buffer",
    "... reading raises 'no debug buffer' naming the event")
  t.raises(function() return x:sum() end, "no debug buffer", "... statistics too")
  t.raises(function() return x:tolist() end, "no debug buffer", "... tolist too")
  t.is(tostring(x), "tensor(<no debug buffer>, shape=[2, 3], dtype=float32)", "... tostring")
  t.is(nb.event_blocks[1].events[4].debug_data[1].numel, 2, "... numel known")
  t.is(nb.event_blocks[1].events[5].debug_data[1], 42, "... scalars need no buffer")

  -- a 4-byte debug buffer: every tensor with bytes runs past it
  local tiny = os.tmpname()
  local f = assert(io.open(tiny, "wb")); f:write("\0\0\0\0"); f:close()
  local tb = etinspect.Inspector { etdump_path = fixtures .. "/tensors.etdp", debug_buffer_path = tiny }
  local y = tb.event_blocks[1].events[1].debug_data[1]
  t.is(y.readable, false, "4-byte buffer: not readable")
  t.ok((y.error or ""):find("offset 0 %+ 24 bytes runs past the end of the debug buffer %(4 bytes%)"),
    "... t.error says why")
  t.raises(function() return y[1] end, "events%[1%] 'native_call_mul.out'.*offset 0 %+ 24 bytes runs past the end of the debug buffer %(4 bytes%)",
    "... reading raises naming the event")
  t.is(tostring(y), "tensor(<invalid>, shape=[2, 3], dtype=float32)", "... tostring")
  t.is(tb.event_blocks[1].events[7].debug_data[1].numel, 0, "... the empty tensor is fine")
  local df = tb:to_dataframe()
  t.ok(#df == #tb.event_blocks[1].events, "to_dataframe still builds (out-of-bounds tensors are values)")
  tb:close()
  os.remove(tiny)
end

-- malformed tensors -----------------------------------------------------------------

if t.exists(fixtures .. "/tensors_bad.etdp") then
  local bad = etinspect.Inspector { etdump_path = fixtures .. "/tensors_bad.etdp", debug_buffer_path = FIX_BIN }
  local evs = {}
  for _, e in ipairs(bad.event_blocks[1].events) do evs[e.name] = e end
  local function read_err(x) local ok, err = pcall(function() return x[1] end); return not ok and tostring(err) or "" end
  local past = evs.past_end.debug_data[1]
  t.ok(read_err(past):find("^event_blocks%[1%] 'Execute', run 1, events%[1%] 'past_end' %(instruction 0%), debug_data%[1%] %(run_data%[0%], Value at byte %d+%): offset 100 %+ 64 bytes runs past the end of the debug buffer %(112 bytes%)$"),
    "offset past the end: " .. read_err(past))
  t.ok(read_err(evs.overflow.debug_data[1]):find("'overflow'.*the number of elements overflows 64 bits"),
    "numel overflow")
  t.ok(read_err(evs.overflow.debug_data[2]):find("'overflow'.*2305843009213693952 elements of 8 bytes overflow 64 bits"),
    "size x dtype overflow")
  local unk = evs.unknown_type.debug_data[1]
  t.is(unk.dtype, "scalar_type_99", "unknown scalar type: dtype")
  t.is(unk.scalar_type, 99, "... scalar_type is the code")
  t.ok(read_err(unk):find("'unknown_type'.*unknown scalar type 99 cannot be read"), "... reading raises")
  local lay = evs.bad_layout.debug_data
  t.ok(read_err(lay[1]):find("3 strides for 1 dimensions"), "strides of the wrong length")
  t.ok(read_err(lay[2]):find("negative size %-2 in dimension 0"), "negative size")
  t.ok(read_err(lay[3]):find("offset %-8 for a tensor of 2 elements"), "negative offset")
  local nt = evs.no_tensor_table.debug_data[1]
  t.ok(Tensor.is_tensor(nt) and nt.readable == false and #nt.shape == 0,
    "Tensor value without a tensor table: an invalid Tensor")
  t.ok(read_err(nt):find("'no_tensor_table'.*a Value of type Tensor without its tensor table"), "... reading raises")
  warnings = {}
  t.is(evs.no_int_table.debug_data[1], nil, "Int value without its table reads as nil")
  t.ok(#warnings == 1 and warnings[1]:find("'no_int_table'.*a Value of type Int without its int_value table; it reads as nil"),
    "... with a warning naming the event")
  t.is(evs.fine.debug_data[1][2], 0.75, "a good tensor of the same dump reads")
  t.is(#bad:to_dataframe(), #bad.event_blocks[1].events, "to_dataframe of the malformed dump builds")
else
  t.skip("build/fixtures/tensors_bad.etdp missing (run make)")
end

-- the corpus: debug.etdp + debug.bin, every value of instructions 0-17 ------------------

if not t.exists(t.corpus .. "/debug.etdp") then t.done() return end

warnings = {}
local dbg = etinspect.Inspector { etdump_path = t.corpus .. "/debug.etdp", debug_buffer_path = t.corpus .. "/debug.bin" }
t.is(#dbg, 2, "debug.etdp: two event blocks")
t.is(#warnings, 1, "debug.etdp: one warning (runs differ), when the blocks are made")
local blk = dbg.event_blocks[2]
t.is(blk.num_runs, 3, "three runs merged")

-- the kernel events (native_call_*) by instruction, the delegate events by id
local kernel, delegate, call, tail = {}, {}, nil, nil
for _, e in ipairs(blk.events) do
  if e.name:match("^native_call_") then kernel[e.instruction_id] = e
  elseif e.is_delegated_op and e.num_debug_runs > 0 then delegate[tostring(e.delegate_debug_identifier)] = e
  elseif e.name == "DELEGATE_CALL" then call = e
  elseif e.name == "" then tail = e end
end

local E = math.exp(1)
for r = 0, 2 do
  local R = "run " .. (r + 1) .. " "
  local function dd(e) return e:debug_data_of_run(r + 1) end
  check_tensor(dd(kernel[0])[1], "float32", { 2, 3 }, { 3, 1 }, floats(seq(6, function(i) return 0.5 + r + 0.25 * i end)),
    R .. "instr 0 f32[2,3]")
  check_tensor(dd(kernel[1])[1], "int64", { 4 }, { 1 }, seq(4, function(i) return (r - 2) + 1000000000000 * i end),
    R .. "instr 1 i64[4]")
  check_tensor(dd(kernel[2])[1], "int32", { 2, 2, 2 }, { 4, 2, 1 }, seq(8, function(i) return -4 + (1 + r) * i end),
    R .. "instr 2 i32[2,2,2]")
  local u8 = dd(kernel[3])[1]
  check_tensor(u8, "uint8", { 5 }, { 1 }, { 250, 251, 252, 253, 254 }, R .. "instr 3 u8[5]")
  t.is(u8.scalar_type, "BYTE", R .. "instr 3: BYTE (scalar_type absent)")
  check_tensor(dd(kernel[4])[1], "int8", { 3 }, { 1 }, { -128, -28, 72 }, R .. "instr 4 i8[3]")
  check_tensor(dd(kernel[5])[1], "int16", { 2 }, { 1 }, { -300, 400 }, R .. "instr 5 i16[2]")
  check_tensor(dd(kernel[6])[1], "uint16", { 2 }, { 1 }, { 65530, 65533 }, R .. "instr 6 u16[2]")
  check_tensor(dd(kernel[7])[1], "float64", { 3 }, { 1 }, seq(3, function(i) return math.pi + (-1.5 - r) * i end),
    R .. "instr 7 f64[3]")
  check_tensor(dd(kernel[8])[1], "bool", { 2, 3 }, { 3, 1 }, { true, false, false, true, false, false },
    R .. "instr 8 bool[2,3]")
  local s9 = dd(kernel[9])[1]
  check_tensor(s9, "float32", {}, {}, { 42.0 + r }, R .. "instr 9 f32 scalar")
  t.is(s9:tolist(), 42.0 + r, R .. "instr 9 tolist is the scalar")
  check_tensor(dd(kernel[10])[1], "float32", { 0, 4 }, { 4, 1 }, {}, R .. "instr 10 empty f32[0,4]")
  local tr = dd(kernel[11])[1]
  local base = 10.0 * (r + 1)
  check_tensor(tr, "float32", { 3, 2 }, { 1, 3 },
    { base, base + 3, base + 1, base + 4, base + 2, base + 5 }, R .. "instr 11 transposed f32[3,2] strides [1,3]")
  t.is(tr:at(3, 2), base + 5, R .. "instr 11 at(3, 2)")
  t.is(storage_bytes(tr), string.pack("<ffffff", base, base + 1, base + 2, base + 3, base + 4, base + 5),
    R .. "instr 11 storage order")
  local tl = dd(kernel[12])[1]
  t.is(#tl, 2, R .. "instr 12 TensorList of 2")
  check_tensor(tl[1], "float32", { 2 }, { 1 }, { -1.0 - r, -0.5 - r }, R .. "instr 12 [1] f32[2]")
  check_tensor(tl[2], "int64", { 1, 3 }, { 3, 1 }, { 7, 14, 21 }, R .. "instr 12 [2] i64[1,3]")
  local v13 = dd(kernel[13])
  t.ok(#v13 == 1 and v13[1] == 123456789012 + r and math.type(v13[1]) == "integer", R .. "instr 13 Int")
  t.is(dd(kernel[14])[1], E * (r + 1), R .. "instr 14 Double e*(r+1)")
  t.is(dd(kernel[15])[1], true, R .. "instr 15 Bool true")
  t.is(dd(kernel[17])[1], false, R .. "instr 17 Bool false (bool_val absent)")
  -- instruction 16: the delegate
  local f14 = floats(seq(4, function(i) return 0.1 * (i + 1 + r) end))
  check_tensor(dd(delegate["10"])[1], "float32", { 2, 3 }, { 3, 1 },
    floats(seq(6, function(i) return 0.5 + r + 0.25 * i end)), R .. "delegate id 10 f32[2,3]")
  check_tensor(dd(delegate.quantize_per_tensor)[1], "int8", { 3 }, { 1 }, { -128, -28, 72 },
    R .. "delegate quantize_per_tensor i8[3]")
  local sp = dd(delegate.split_pair)[1]
  t.is(#sp, 2, R .. "delegate split_pair TensorList of 2")
  check_tensor(sp[1], "float32", { 2 }, { 1 }, { -1.0 - r, -0.5 - r }, R .. "split_pair [1] f32[2]")
  check_tensor(sp[2], "float32", { 1, 4 }, { 4, 1 }, f14, R .. "split_pair [2] f32[1,4]")
  t.is(dd(delegate["11"])[1], 17 + r, R .. "delegate id 11 Int 17+r")
  t.is(dd(delegate["12"])[1], r % 2 == 0, R .. "delegate id 12 Bool (r even)")
  t.is(dd(delegate.scale)[1], 0.0078125 * (r + 1), R .. "delegate scale Double")
  local args = dd(call)
  t.is(#args, 3, R .. "DELEGATE_CALL logs its 3 args")
  check_tensor(args[1], "float32", { 2, 3 }, { 3, 1 }, floats(seq(6, function(i) return 0.5 + r + 0.25 * i end)),
    R .. "DELEGATE_CALL arg 1")
  t.is(args[2], -7, R .. "DELEGATE_CALL arg 2 Int -7")
  check_tensor(args[3], "float32", { 1, 4 }, { 4, 1 }, f14, R .. "DELEGATE_CALL arg 3 f32[1,4]")
  -- program outputs: f32[1,4] and the TensorList (output=true); the Int has no flag
  local ro = blk:run_output_of_run(r + 1)
  t.is(#ro, 2, R .. "run_output: the two flagged outputs")
  check_tensor(ro[1], "float32", { 1, 4 }, { 4, 1 }, f14, R .. "run_output[1] f32[1,4]")
  check_tensor(ro[2][1], "float32", { 2 }, { 1 }, { -1.0 - r, -0.5 - r }, R .. "run_output[2][1]")
  check_tensor(ro[2][2], "int64", { 1, 3 }, { 3, 1 }, { 7, 14, 21 }, R .. "run_output[2][2]")
  t.is(dd(tail)[1], 123456789012 + r, R .. "the unflagged Int output is the last event's debug data")
end
t.is(blk.run_output[1][4], f32(0.4), "run_output is the first run's")
t.is(kernel[0].debug_data[1][1], 0.5, "debug_data is the first run's")

-- against the reference summaries (first run): dtype, shape, values, sha256, sum/min/max
local ref = etinspect._core.json_decode(t.read(t.ref .. "/debug.lenient.json"))
local rblk = ref.event_blocks[2]
local checked, mismatches = 0, {}
local function cmp(x, s, where)
  if s.kind == "tensor_list" then
    if type(x) ~= "table" or #x ~= #s.items then mismatches[#mismatches + 1] = where .. ": list"; return end
    for k, item in ipairs(s.items) do cmp(x[k], item, where .. "[" .. k .. "]") end
    return
  end
  checked = checked + 1
  if s.kind ~= "tensor" then
    -- the reference summary prints floats with 12 significant digits
    local same = x == s.value or (math.type(x) == "float" and math.abs(x - s.value) <= 1e-12 * math.abs(s.value))
    if not same then mismatches[#mismatches + 1] = where .. ": " .. tostring(x) .. " ~= " .. tostring(s.value) end
    return
  end
  local sb = storage_bytes(x)
  local storage = Tensor.new { dtype = x.dtype, bytes = sb, shape = { x.numel } }
  local ok = x.dtype == s.dtype and join(x.shape) == join(s.shape) and x.numel == s.numel and sha256(sb) == s.sha256
  for k, v in ipairs(s.values) do
    local got = storage[k]
    if type(got) == "boolean" then got = got and 1 or 0; v = (v == true or v == 1) and 1 or 0 end
    if got ~= v then ok = false end
  end
  if s.numel > 0 and (x:sum() ~= s.sum or x:min() ~= s.min or x:max() ~= s.max) then
    if x.dtype ~= "bool" then ok = false end
  end
  if not ok then mismatches[#mismatches + 1] = where end
end
for k, re in ipairs(rblk.events) do
  local e = blk.events[k]
  for i, s in ipairs(re.debug_data) do cmp(e.debug_data[i], s, e.name .. "#" .. i) end
end
for i, s in ipairs(rblk.run_output) do cmp(blk.run_output[i], s, "run_output#" .. i) end
local leaves = 0
local function count(s) if s.kind == "tensor_list" then for _, i in ipairs(s.items) do count(i) end else leaves = leaves + 1 end end
for _, re in ipairs(rblk.events) do for _, s in ipairs(re.debug_data) do count(s) end end
for _, s in ipairs(rblk.run_output) do count(s) end
t.ok(#mismatches == 0 and checked == leaves and checked >= 50,
  string.format("%d of %d values match the reference summaries (sha256 of the bytes included)", checked, leaves))
if #mismatches > 0 then t.diag(table.concat(mismatches, "\n")) end

-- no debug buffer on the corpus: shapes, no values
local nobuf = etinspect.Inspector { etdump_path = t.corpus .. "/debug.etdp" }
local x0 = nobuf.event_blocks[2].events[1].debug_data[1]
t.is(join(x0.shape), "2,3", "corpus without debug.bin: shapes known")
t.raises(function() return x0:max() end, "no debug buffer", "... values raise")

t.done()
