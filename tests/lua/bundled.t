#!/usr/bin/env etinspect
-- bundled.t - BundledPrograms (.bpte) as reference outputs (bundled.h,
-- l_bundled.c, docs/bundled-program.md): insp.bundled_program lists every
-- suite, case and value; blk.reference_output is the expected outputs of
-- the test case the block's bundled_input_index names (-1: none); errors
-- for malformed programs name the file, field path and byte.
--
-- Fixtures: tests/bundled/*.bpte (built by flatc from the JSON beside them),
-- build/fixtures/sample.etdp; the real runs in the shared corpus
-- (real_bundled_debug*.etdp + .bin, repo_bundled_program.bpte), skipped
-- when it is absent.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
etinspect.on_warning(function() end) -- warnings are checked through insp.warnings

local BDIR = t.src .. "/tests/bundled/"
local SAMPLE = t.build .. "/fixtures/sample.etdp"
local is_tensor = etinspect.Tensor and etinspect.Tensor.is_tensor or function() return false end

local function open(opts) return etinspect.Inspector(opts) end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local tmpdir = os.getenv("TMPDIR") or "/tmp"
local tmpfiles = {}
local function write_tmp(name, bytes)
  local path = string.format("%s/etinspect-bundled-%d-%s", tmpdir, math.random(1, 1 << 30), name)
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
  tmpfiles[#tmpfiles + 1] = path
  return path
end

-- the elements of a Tensor as a flat list
local function elems(x)
  if not is_tensor(x) then return nil end
  local out = {}
  for i = 1, #x do out[i] = x[i] end
  return out
end

local function same_list(a, b)
  if type(a) ~= "table" or type(b) ~= "table" or #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

local function show(l)
  if type(l) ~= "table" then return tostring(l) end
  local out = {}
  for i, x in ipairs(l) do out[i] = tostring(x) end
  return "{" .. table.concat(out, ", ") .. "}"
end

-- a Tensor with this dtype, shape and elements
local function tensor_is(x, dtype, shape, values, desc)
  local pass = is_tensor(x) and x.dtype == dtype and same_list(x.shape, shape) and
      same_list(elems(x), values)
  if not t.ok(pass, desc) then
    t.diag(is_tensor(x) and (x.dtype .. " " .. show(x.shape) .. " " .. show(elems(x))) or
      ("not a Tensor: " .. tostring(x)))
  end
  return pass
end

local function has_warning(insp, pattern)
  for _, w in ipairs(insp.warnings) do if w:find(pattern) then return true end end
  return false
end

local function count_warnings(insp, pattern)
  local n = 0
  for _, w in ipairs(insp.warnings) do if w:find(pattern) then n = n + 1 end end
  return n
end

-- the program outputs of run r (1-based) of a block
local function run_output(blk, r)
  local ok, v = pcall(function() return blk:run_output_of_run(r) end)
  if ok then return v end
  return r == 1 and blk.run_output or nil
end

-- kinds.bpte with the sample dump: every kind of value ---------------------
do
  local insp = open { etdump_path = SAMPLE, bundled_program_path = BDIR .. "kinds.bpte" }
  local bp = insp.bundled_program
  t.ok(type(bp) == "table", "insp.bundled_program is a table")
  t.is(bp.path, BDIR .. "kinds.bpte", "bundled_program.path")
  t.is(bp.version, 2, "bundled_program.version")
  t.is(bp.size_prefixed, false, "bundled_program.size_prefixed")
  t.is(bp.program_size, 8, "bundled_program.program_size (the embedded program's bytes)")
  t.is(bp.reference_method, "forward", "reference_method: 'forward' (suite 2 of 2)")
  local suites = bp.method_test_suites
  t.is(#suites, 2, "two method test suites")
  t.is(suites[1].method_name, "encode", "suite 1: encode")
  t.is(suites[2].method_name, "forward", "suite 2: forward")
  t.is(#suites[1].test_cases, 1, "encode: one test case")
  t.ok(same_list(suites[1].test_cases[1].inputs, { 1 }) and
    same_list(suites[1].test_cases[1].expected_outputs, { 2 }), "encode case: Int 1 -> Int 2")
  local cases = suites[2].test_cases
  t.is(#cases, 3, "forward: three test cases")
  local inp = cases[1].inputs
  t.is(#inp, 2, "case 1: two inputs")
  tensor_is(inp[1], "float32", { 2, 3 }, { 0, 1, 2, 3, 4, 5 }, "input 1: float32[2,3] 0..5")
  t.ok(math.type(inp[2]) == "integer" and inp[2] == -7, "input 2: the integer -7")
  local out = cases[1].expected_outputs
  t.is(#out, 14, "case 1: 14 expected outputs")
  tensor_is(out[1], "float32", { 2, 3 }, { 0.5, 1.5, 2.5, 3.5, 4.5, 5.5 },
    "float32[2,3] stored with dim_order [1,0] reads in logical order")
  t.ok(is_tensor(out[1]) and same_list(out[1].strides, { 1, 2 }) and not out[1].is_contiguous,
    "... strides {1, 2}, not contiguous")
  tensor_is(out[2], "float64", {}, { math.pi }, "float64 scalar: pi")
  tensor_is(out[3], "float32", { 0, 4 }, {}, "float32[0,4]: empty")
  tensor_is(out[4], "bool", { 3 }, { true, false, true }, "bool[3]")
  tensor_is(out[5], "int64", { 2 }, { -5, 1 << 40 }, "int64[2]")
  tensor_is(out[6], "int8", { 3 }, { -128, -1, 127 }, "int8[3]")
  tensor_is(out[7], "float16", { 2 }, { 1.0, -2.0 }, "float16[2]")
  tensor_is(out[8], "uint8", { 2 }, { 250, 7 }, "uint8[2] (scalar_type absent: BYTE)")
  t.ok(out[9] == math.maxinteger and math.type(out[9]) == "integer", "Int 2^63-1")
  t.ok(out[10] == 0 and math.type(out[10]) == "integer", "Int with the field absent: 0")
  t.ok(out[11] == false and out[12] == true, "Bool false (absent), Bool true")
  t.ok(out[13] == -0.5 and math.type(out[13]) == "float", "Double -0.5")
  t.ok(out[14] == 0.0 and math.type(out[14]) == "float", "Double absent: 0.0")
  t.ok(#cases[2].inputs == 0 and #cases[2].expected_outputs == 0, "case 2: nothing")
  t.ok(same_list(cases[3].expected_outputs, { 42 }), "case 3: {42}")
  t.ok(out[1].readable and tostring(out[1]):find("dtype=float32", 1, true) ~= nil, "tostring of a bundled tensor")
  -- the sample's runs carry no bundled_input_index: no reference output
  local none = true
  for _, b in ipairs(insp.event_blocks) do
    none = none and b.bundled_input_index == -1 and b.reference_output == nil
  end
  t.ok(none, "sample.etdp (index -1 everywhere): no block has a reference output")
  t.ok(has_warning(insp, "no run of the ETDump carries a bundled_input_index"),
    "... and a warning says why")
  -- the views die with their Inspector
  local keep = out[1]
  insp:close()
  t.raises(function() return keep[1] end, "closed", "a bundled tensor after insp:close() raises")
end

-- without a BundledProgram ----------------------------------------------------
do
  local insp = open { etdump_path = SAMPLE }
  t.is(insp.bundled_program, nil, "no bundled_program_path: insp.bundled_program is nil")
  t.is(insp.event_blocks[1].reference_output, nil, "... and reference_output is nil")
  insp:close()
end

-- suite choice -----------------------------------------------------------------
do
  local insp = open { etdump_path = SAMPLE, bundled_program_path = BDIR .. "no_forward.bpte" }
  t.is(insp.bundled_program.reference_method, nil, "two suites, neither 'forward': no reference method")
  t.ok(has_warning(insp, "has 2 method test suites and none is for method 'forward'"),
    "... warned: " .. tostring(insp.warnings[#insp.warnings]))
  insp:close()
  insp = open { etdump_path = SAMPLE, bundled_program_path = BDIR .. "only_encode.bpte" }
  t.is(insp.bundled_program.reference_method, "encode", "a single suite is used whatever its method")
  insp:close()
  insp = open { etdump_path = SAMPLE, bundled_program_path = BDIR .. "empty.bpte" }
  t.ok(#insp.bundled_program.method_test_suites == 0 and has_warning(insp, "has no method test suites"),
    "no suites: an empty list and a warning")
  insp:close()
end

-- errors ----------------------------------------------------------------------
do
  local kinds = read(BDIR .. "kinds.bpte")
  local function open_err(path)
    local ok, err = pcall(open, { etdump_path = SAMPLE, bundled_program_path = path })
    return not ok and tostring(err) or "(opened)"
  end
  local p = write_tmp("cut.bpte", kinds:sub(1, 600))
  local e = open_err(p)
  t.ok(e:find(p, 1, true) and e:find("byte %d+:"), "a truncated .bpte: an error naming the file and a byte: " .. e)
  p = write_tmp("cut3.bpte", kinds:sub(1, 1213))
  e = open_err(p)
  t.ok(e:find(p .. ": byte 1213: truncated BundledProgram", 1, true), "cut by 3 bytes: " .. e)
  p = write_tmp("four.bpte", kinds:sub(1, 4))
  e = open_err(p)
  t.ok(e:find(p .. ": file is only 4 bytes, too short for a BundledProgram", 1, true), "a 4-byte file: " .. e)
  p = write_tmp("ident.bpte", kinds:sub(1, 4) .. "BP07" .. kinds:sub(9))
  e = open_err(p)
  t.ok(e:find("found \"BP07\"", 1, true) and e:find("older schema", 1, true), "identifier BP07: " .. e)
  e = open_err(SAMPLE)
  t.ok(e:find(SAMPLE .. ": not a BundledProgram", 1, true) and e:find("this is an ETDump", 1, true),
    "an ETDump given as the bundled program: " .. e)
  e = open_err(BDIR .. "m_short_data.bpte")
  t.ok(e:find(BDIR .. "m_short_data.bpte: method_test_suites[0].test_cases[0].expected_outputs[1].val: byte ", 1, true)
    and e:find("Tensor INT[2, 2] needs 16 bytes of data, 'data' has 8", 1, true), "a malformed tensor: " .. e)
  e = open_err(BDIR .. "no-such.bpte")
  t.ok(e:find("no-such.bpte: No such file", 1, true), "a missing file: " .. e)
  t.raises(function()
    return open { profile_results_data = string.rep("\0", 8), bundled_program_path = BDIR .. "kinds.bpte" }
  end, "legacy profiler dump", "a legacy profiler dump with a BundledProgram: refused")

  -- the command line's --bundled_program_path
  local bin = os.getenv("ETINSPECT")
  if bin then
    local function cli(args)
      local errf = write_tmp("stderr.txt", "")
      local h = io.popen(string.format("%q %s -q 2>%q; echo \"rc=$?\"", bin, args, errf))
      local o = h:read("a")
      h:close()
      return o:match("rc=(%d+)"), read(errf)
    end
    local cut = write_tmp("cli-cut.bpte", kinds:sub(1, 600))
    local rc, err = cli(string.format("--etdump_path %q --bundled_program_path %q", SAMPLE, cut))
    t.ok(rc == "1" and err:find("etinspect: error: " .. cut .. ": method_test_suites[0]: byte ", 1, true),
      "CLI, a truncated .bpte: exit 1, the error names the file, field and byte")
    rc, err = cli(string.format("--etdump_path %q --bundled_program_path %q", SAMPLE, BDIR .. "kinds.bpte"))
    t.ok(rc == "0" and err:find("no run of the ETDump carries a bundled_input_index", 1, true),
      "CLI, a sound .bpte: exit 0 and the warning")
  else
    t.diag("ETINSPECT not set: the command line is not tested")
  end
end

-- the fixtures are what flatc makes of their JSON -----------------------------------
do
  local h = io.popen("command -v flatc 2>/dev/null")
  local flatc = h:read("l")
  h:close()
  if flatc and flatc ~= "" then
    local dir = write_tmp("flatc", "")
    os.remove(dir)
    local names = {}
    local ls = io.popen(string.format("ls %q", BDIR))
    for line in ls:lines() do
      local n = line:match("^(.+)%.json$")
      if n then names[#names + 1] = n end
    end
    ls:close()
    local ok_all, bad = #names >= 15, {}
    for _, n in ipairs(names) do
      local cmd = string.format("mkdir -p %q && %q --binary -o %q %q %q 2>&1", dir, flatc, dir,
        t.src .. "/schema/bundled_program.fbs", BDIR .. n .. ".json")
      local p = io.popen(cmd)
      local msg = p:read("a")
      p:close()
      local gf = io.open(dir .. "/" .. n .. ".bpte", "rb")
      local got = gf and gf:read("a")
      if gf then gf:close() end
      os.remove(dir .. "/" .. n .. ".bpte")
      if got ~= read(BDIR .. n .. ".bpte") then
        ok_all = false
        bad[#bad + 1] = n .. (msg ~= "" and (": " .. msg) or "")
      end
    end
    os.remove(dir)
    t.ok(ok_all, string.format("flatc rebuilds each of the %d .bpte fixtures from its JSON byte for byte", #names))
    if #bad > 0 then t.diag(table.concat(bad, "\n")) end
  else
    t.diag("flatc not found: the fixtures' JSON is not checked against them")
  end
end

-- the real runs ------------------------------------------------------------------
local C = t.corpus
local f = io.open(C .. "/repo_bundled_program.bpte", "rb")
if not f then
  t.diag("no shared corpus at " .. C .. ": the real bundled runs are not tested")
  for _, p in ipairs(tmpfiles) do os.remove(p) end
  t.done()
  return
end
f:close()
local BPTE = C .. "/repo_bundled_program.bpte"

local function real(name, bpte)
  return open { etdump_path = C .. "/" .. name .. ".etdp", debug_buffer_path = C .. "/" .. name .. ".bin",
    bundled_program_path = bpte }
end

-- the repository's program: ten test cases of forward, expected INT[2,2] = 2s
do
  local insp = real("real_bundled_debug", BPTE)
  local bp = insp.bundled_program
  t.ok(bp.version == 2 and bp.program_size == 1696 and bp.reference_method == "forward" and
    #bp.method_test_suites == 1, "repo_bundled_program.bpte: version 2, a 1696-byte program, suite 'forward'")
  local cases = bp.method_test_suites[1].test_cases
  t.is(#cases, 10, "ten test cases")
  local all = true
  for k, c in ipairs(cases) do
    all = all and #c.inputs == 2 and #c.expected_outputs == 1 and
        is_tensor(c.inputs[1]) and same_list(elems(c.inputs[1]), { 0, 0, 0, 0 }) and
        is_tensor(c.inputs[2]) and same_list(elems(c.inputs[2]), { 0, 0, 0, 0 }) and
        is_tensor(c.expected_outputs[1]) and c.expected_outputs[1].dtype == "int32" and
        same_list(c.expected_outputs[1].shape, { 2, 2 }) and
        same_list(elems(c.expected_outputs[1]), { 2, 2, 2, 2 })
    if not all then t.diag("case " .. k .. " differs"); break end
  end
  t.ok(all, "every case: inputs two int32[2,2] zeros, expected output int32[2,2] = {2, 2, 2, 2}")

  -- unpatched writer: every run's index is -1, so no reference output
  local blocks = insp.event_blocks
  t.is(#blocks, 2, "real_bundled_debug: Default + one Execute block")
  local exe = blocks[2]
  t.is(exe.num_runs, 20, "20 Execute runs in one block")
  t.is(exe.bundled_input_index, -1, "bundled_input_index -1 (never written)")
  local outs_ok = true
  for r = 1, exe.num_runs do
    local o = run_output(exe, r)
    outs_ok = outs_ok and o ~= nil and #o == 1 and
        tensor_is ~= nil and is_tensor(o[1]) and o[1].dtype == "int32" and same_list(o[1].shape, { 2, 2 }) and
        same_list(elems(o[1]), { 2, 2, 2, 2 })
    if not outs_ok then t.diag("run " .. r .. ": " .. show(o and elems(o[1]))); break end
  end
  t.ok(outs_ok, "each of the 20 runs' output: int32[2,2] = {2, 2, 2, 2}")
  t.ok(blocks[1].reference_output == nil and exe.reference_output == nil,
    "index -1: no reference output (the reference would give every block the last case's)")
  t.ok(has_warning(insp, "no run of the ETDump carries a bundled_input_index"), "warned once about it")
  insp:close()
end

-- patched writer: block k (index k) gets test case k
do
  local insp = real("real_bundled_debug_bii_patched", BPTE)
  local blocks = insp.event_blocks
  t.is(#blocks, 11, "patched: Default + 10 Execute blocks")
  local cases = insp.bundled_program.method_test_suites[1].test_cases
  local good, runs = 0, 0
  for i = 2, #blocks do
    local b = blocks[i]
    local k = b.bundled_input_index
    local ref = b.reference_output
    runs = runs + b.num_runs
    local want = cases[k + 1].expected_outputs
    local pass = type(ref) == "table" and #ref == 1 and same_list(elems(ref[1]), elems(want[1])) and
        same_list(ref[1].shape, { 2, 2 }) and ref[1].dtype == "int32"
    -- and it matches what the runs produced
    for r = 1, b.num_runs do
      local o = run_output(b, r)
      pass = pass and o and same_list(elems(o[1]), elems(ref[1]))
    end
    if pass then good = good + 1 else t.diag("block " .. i .. " (index " .. k .. ")") end
  end
  t.is(runs, 20, "20 runs over the 10 Execute blocks")
  t.is(good, 10, "each Execute block's reference output is its test case's expected output, and its runs' output equals it")
  t.is(blocks[1].reference_output, nil, "Default (index -1): none")
  t.ok(not has_warning(insp, "bundled_input_index"), "no warnings about indices")
  insp:close()

  -- the same runs with a program whose ten cases differ: the index picks the case
  insp = real("real_bundled_debug_bii_patched", BDIR .. "distinct.bpte")
  good = 0
  for i = 2, #insp.event_blocks do
    local b = insp.event_blocks[i]
    local k = b.bundled_input_index
    local ref = b.reference_output
    if ref and #ref == 4 and same_list(elems(ref[1]), { 10 * k, 10 * k + 1, 10 * k + 2, 10 * k + 3 }) and
        ref[2] == 100 + k and ref[3] == k + 0.25 and ref[4] == (k % 2 == 0) then
      good = good + 1
    else
      t.diag("block " .. i .. " index " .. k .. ": " .. show(ref))
    end
  end
  t.is(good, 10, "distinct.bpte: block with index k gets case k exactly (int32[2,2] 10k.., Int 100+k, Double k+0.25, Bool)")
  insp:close()

  -- a program with two cases: indices 2..9 name none
  insp = real("real_bundled_debug_bii_patched", BDIR .. "only_encode.bpte")
  local got = {}
  for i = 2, #insp.event_blocks do
    local ref = insp.event_blocks[i].reference_output
    got[#got + 1] = ref and tostring(ref[1]) or "nil"
  end
  t.is(table.concat(got, " "), "7 8 nil nil nil nil nil nil nil nil",
    "only_encode.bpte (2 cases): indices 0 and 1 get {7} and {8}, the others none")
  t.is(count_warnings(insp, "names no test case of method 'encode'"), 8, "eight warnings, one per block")
  t.ok(has_warning(insp, "bundled_input_index 9 names no test case of method 'encode' in BundledProgram .*only_encode.bpte %(it has 2%)"),
    "the warning names the index, the method, the file and the count")
  insp:close()
end

for _, p in ipairs(tmpfiles) do os.remove(p) end
t.done()
