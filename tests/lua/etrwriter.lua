--- etrwriter.lua - write ETRecords for the tests: serialized exported
-- programs in the 2023 and the current JSON layouts (spec §5.3 and its
-- addendum), the JSON maps, and the ZIP archive (tests/tools/mkzip).
--
--   local w = require "etrwriter"
--   local json = w.program{layout = "current" | "2023", inputs = {"x"},
--                          outputs = {"y"}, nodes = {NODE, ...}}
--     NODE = {name = "mul" (current layout only), target = "...",
--             inputs = {"x", "y"}, outputs = {"mul"} (a string list; an
--             output given as {list = {"a", "b"}} is an as_tensors list),
--             meta = {debug_handle = 2, stack_trace = "...",
--                     nn_module_stack = "...", source_fn_stack = "..."}}
--   w.json(value)          JSON text of a Lua value (w.obj{...} keeps key order)
--   w.zip(path, entries, deflate)   entries = {{name, text}, ...} in order;
--                                   deflate: every entry deflated (else stored)
local M = {}

local build = os.getenv("ET_BUILD") or ((os.getenv("ET_SRC") or ".") .. "/build")
M.mkzip = build .. "/tools/mkzip"

--- An object whose keys are written in the order given: w.obj{"k1", v1, "k2", v2}.
function M.obj(kv)
  return { __ordered = kv }
end

local function esc(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local map = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }
    return map[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

M.null = setmetatable({}, { __name = "null" })

--- JSON text of a Lua value: strings, numbers (integers stay integers),
-- booleans, M.null, sequences, M.obj ordered objects, other tables as
-- objects with sorted keys.
function M.json(v)
  local t = type(v)
  if v == M.null then return "null" end
  if t == "string" then return esc(v) end
  if t == "number" then
    return math.type(v) == "integer" and string.format("%d", v) or string.format("%.17g", v)
  end
  if t == "boolean" then return tostring(v) end
  if t == "table" then
    if v.__ordered then
      local parts = {}
      for i = 1, #v.__ordered, 2 do
        parts[#parts + 1] = esc(v.__ordered[i]) .. ": " .. M.json(v.__ordered[i + 1])
      end
      return "{" .. table.concat(parts, ", ") .. "}"
    end
    if #v > 0 or next(v) == nil and getmetatable(v) == nil then
      local parts = {}
      for i = 1, #v do parts[i] = M.json(v[i]) end
      return "[" .. table.concat(parts, ", ") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local parts = {}
    for i, k in ipairs(keys) do parts[i] = esc(tostring(k)) .. ": " .. M.json(v[k]) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  error("cannot encode " .. t)
end

--- An empty JSON object.
M.empty = M.obj {}

local ARG_KINDS = { "as_none", "as_tensor", "as_tensors", "as_int", "as_ints", "as_float",
                    "as_floats", "as_string", "as_sym_int", "as_sym_ints", "as_scalar_type",
                    "as_memory_format", "as_layout", "as_device", "as_bool", "as_bools",
                    "as_sym_bool", "as_sym_bools", "as_graph", "as_optional_tensors" }

-- A union: one key (current) or every variant key, all null but one (2023).
local function union(layout, kind, value)
  if layout ~= "2023" then return M.obj { kind, value } end
  local kv = {}
  for _, k in ipairs(ARG_KINDS) do
    kv[#kv + 1] = k
    kv[#kv + 1] = k == kind and value or M.null
  end
  return M.obj(kv)
end

local function tensor_arg(layout, name)
  return union(layout, "as_tensor", M.obj { "name", name })
end

local function output_arg(layout, o)
  if type(o) == "table" then
    local l = {}
    for i, n in ipairs(o.list) do l[i] = M.obj { "name", n } end
    return union(layout, "as_tensors", l)
  end
  return tensor_arg(layout, o)
end

--- The JSON of a serialized exported program.
function M.program(p)
  local layout = p.layout or "current"
  local nodes = {}
  for i, n in ipairs(p.nodes) do
    local ins = {}
    for k, name in ipairs(n.inputs or {}) do
      ins[k] = M.obj { "name", "arg" .. k, "arg", tensor_arg(layout, name) }
    end
    local outs = {}
    for k, o in ipairs(n.outputs or {}) do outs[k] = output_arg(layout, o) end
    local meta = {}
    for _, key in ipairs { "stack_trace", "nn_module_stack", "source_fn_stack", "debug_handle",
                           "from_node" } do
      local v = n.meta and n.meta[key]
      if v ~= nil then
        meta[#meta + 1] = key
        meta[#meta + 1] = tostring(v)
      end
    end
    local kv = {}
    if layout ~= "2023" then kv = { "name", n.name } end
    for _, x in ipairs { "target", n.target, "inputs", ins, "outputs", outs, "metadata", M.obj(meta) } do
      kv[#kv + 1] = x
    end
    nodes[i] = M.obj(kv)
  end
  local gin, gout = {}, {}
  for i, name in ipairs(p.inputs or {}) do gin[i] = tensor_arg(layout, name) end
  for i, name in ipairs(p.outputs or {}) do gout[i] = tensor_arg(layout, name) end
  local graph = M.obj { "inputs", gin, "outputs", gout, "nodes", nodes,
                        "tensor_values", M.empty, "sym_int_values", M.empty,
                        "sym_bool_values", M.empty, "is_single_tensor_return", #gout == 1 }
  local version = layout == "2023" and 1 or M.obj { "major", 5, "minor", 4 }
  return M.json(M.obj { "graph_module", M.obj { "graph", graph, "signature",
                                                M.obj { "input_specs", {}, "output_specs", {} },
                                                "module_call_graph", {} },
                        "opset_version", M.obj { "aten", 10 }, "range_constraints", M.empty,
                        "schema_version", version, "dialect", "EDGE", "verifiers", {} })
end

local function shell_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

--- Write a ZIP archive at `path` of `entries` ({{name, text}, ...}, in
-- order), stored or (deflate true) deflated, through mkzip.
function M.zip(path, entries, deflate)
  local tmp = os.tmpname()
  local args = { shell_quote(M.mkzip), deflate and "-d" or "-s", shell_quote(path) }
  local files = {}
  for i, e in ipairs(entries) do
    local f = tmp .. "." .. i
    local h = assert(io.open(f, "wb"))
    h:write(e[2])
    h:close()
    files[#files + 1] = f
    args[#args + 1] = shell_quote(e[1] .. "=" .. f)
  end
  local ok = os.execute(table.concat(args, " "))
  for _, f in ipairs(files) do os.remove(f) end
  os.remove(tmp)
  assert(ok, "mkzip failed for " .. path)
  return path
end

return M
