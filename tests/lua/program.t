#!/usr/bin/env etinspect
-- program.t - etinspect.parse_program (l_program.c, docs/programs.md):
-- Program, Method, Instruction and Operator on the real programs of
-- tests/pte, against flatc's JSON of each over ExecuTorch's schema (never
-- etinspect's own output): methods, instruction kinds and operators in
-- order, operator call counts, delegate backends and blob bytes, planned
-- memory.  Then the lifetime rule (dependents after close, the Program
-- kept alive by its dependents), read-only fields and strict arguments,
-- and prog:summary() being the text the command line prints.
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local json_decode = etinspect._core.json_decode
local PTE = t.src .. "/tests/pte/"

local _, flatc_status = t.run("command -v flatc")
if flatc_status ~= 0 then t.skip_all("flatc absent (flatbuffers-compiler)") end

local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p '" .. tmp .. "'"))

-- flatc's JSON of tests/pte/NAME.pte
local function flatc(name)
  local out, status = t.run(string.format("flatc --json --strict-json --raw-binary -o '%s' '%sschema/program.fbs' -- '%s%s.pte'",
    tmp, PTE, PTE, name))
  assert(status == 0, out)
  return json_decode(t.read(tmp .. "/" .. name .. ".json"))
end

for _, name in ipairs { "add", "keyword_spotting", "module_linear_no_constant_segment", "stories260k_hybrid_llama_qnn" } do
  local want = flatc(name)
  local prog = etinspect.parse_program(PTE .. name .. ".pte")
  local plans = want.execution_plan
  t.is(#prog.methods, #plans, name .. ": as many methods as execution plans")
  local bad = {}
  local segs = want.segments or {}
  for i, plan in ipairs(plans) do
    local m = prog.methods[i]
    if m.name ~= plan.name then bad[#bad + 1] = "name " .. i end
    if prog:method(plan.name) ~= m then bad[#bad + 1] = "method() " .. plan.name end
    local kinds, calls = {}, {}
    for _, c in ipairs(plan.chains or {}) do
      for _, ins in ipairs(c.instructions or {}) do
        kinds[#kinds + 1] = ins.instr_args_type
        if ins.instr_args_type == "KernelCall" then
          local k = (ins.instr_args.op_index or 0) + 1
          calls[k] = (calls[k] or 0) + 1
        end
      end
    end
    if #m ~= #kinds or #m.instructions ~= #kinds then bad[#bad + 1] = plan.name .. " #instructions" end
    for k, kind in ipairs(kinds) do
      local ins = m.instructions[k]
      if ins.kind ~= kind or ins.id ~= k - 1 then bad[#bad + 1] = plan.name .. " instruction " .. k end
    end
    for k, op in ipairs(plan.operators or {}) do
      local o = m.operators[k]
      local full = op.name .. ((op.overload or "") ~= "" and "." .. op.overload or "")
      if o.full_name ~= full or o.name ~= op.name or o.calls ~= (calls[k] or 0) then
        bad[#bad + 1] = plan.name .. " operator " .. full
      end
    end
    for k, d in ipairs(plan.delegates or {}) do
      local got = m.delegates[k]
      local ref = d.processed or {}
      local size = ref.location == "SEGMENT" and (segs[(ref.index or 0) + 1].size or 0)
                   or #(want.backend_delegate_data[(ref.index or 0) + 1].data or {})
      if got.backend ~= d.id or got.bytes ~= size then bad[#bad + 1] = plan.name .. " delegate " .. k end
    end
    local sizes, total = plan.non_const_buffer_sizes or {}, 0
    for k, s in ipairs(sizes) do
      total = total + s
      if m.planned_memory.buffers[k] ~= s then bad[#bad + 1] = plan.name .. " buffer " .. k end
    end
    if m.planned_memory.bytes ~= total then bad[#bad + 1] = plan.name .. " planned bytes" end
  end
  t.ok(#bad == 0, name .. ": methods, instructions, operators, delegates, planned memory as flatc says")
  if #bad > 0 then t.diag(table.concat(bad, ", ")) end
  prog:close()
end

-- the delegated LLM: instruction 0 of kv_forward calls QnnBackend
local q = etinspect.parse_program(PTE .. "stories260k_hybrid_llama_qnn.pte")
local kv = q:method("kv_forward")
t.is(kv.instructions[1].backend, "QnnBackend", "a DelegateCall's backend")
t.is(kv.instructions[1].operator, nil, "a DelegateCall has no operator")
t.is(kv.delegates[1].location, "segment", "the blob lives in a segment")
t.is(q:method("no_such_method"), nil, "method(unknown name) is nil")
t.is(tostring(kv), "Method 'kv_forward' (1 instruction)", "tostring(Method)")
q:close()

-- lifetimes
local p = etinspect.parse_program(PTE .. "add.pte")
local m = p.methods[1]
local ins, op = m.instructions[1], m.operators[1]
t.is(tostring(ins), "Instruction 0: KernelCall aten::add.out", "tostring(Instruction)")
t.is(tostring(op), "Operator aten::add.out (1 call)", "tostring(Operator)")
t.is(p.methods[1], m, "the same Method userdata on every read")
p:close()
t.raises(function() return m.name end, "Method used after its program was closed", "a Method after close")
t.raises(function() return ins.kind end, "Instruction used after its program was closed", "an Instruction after close")
t.raises(function() return op.calls end, "Operator used after its program was closed", "an Operator after close")
t.raises(function() return p.methods end, "Program used after it was closed", "the Program after close")
t.is(tostring(p), "Program (closed)", "tostring of a closed Program")

-- a dependent keeps its Program alive
local keep = etinspect.parse_program(PTE .. "add.pte").methods[1].operators[1]
collectgarbage(); collectgarbage()
t.is(keep.full_name, "aten::add.out", "an Operator keeps its Program alive through collections")

-- contracts
local p2 = etinspect.parse_program(PTE .. "add.pte")
t.raises(function() p2.version = 3 end, "read%-only", "fields are read-only")
t.raises(function() return p2.no_such_field end, "has no field or method 'no_such_field'", "an unknown field is an error")
t.raises(function() return etinspect.parse_program(42) end, "path string expected", "a path must be a string")
t.raises(function() return etinspect.parse_program(PTE .. "add.pte", {}) end, "takes one argument", "extra arguments are refused")
t.raises(function() return etinspect.parse_program(PTE .. "README.md") end,
  'README.md: not an ExecuTorch program: expected file identifier "ET12" at byte 4', "a text file is refused by name")
t.raises(function() return p2.methods[1].instructions[1].id.x end, "index", "ids are integers")

-- the summary is the command line's
local out = t.run(string.format("%s '%sadd.pte'", os.getenv("ETINSPECT") or "etinspect", PTE))
t.is(p2:summary(), out, "prog:summary() is what `etinspect PROGRAM.pte` prints")
p2:close()

os.execute("rm -rf '" .. tmp .. "'")
t.done()
