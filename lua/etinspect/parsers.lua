--- etinspect.parsers: built-in delegate-metadata parsers, chosen by name
-- (`etinspect.Inspector{..., delegate_metadata_parser = "coreml"}`) or
-- called directly.
--
-- A parser is function(raw_list, event) -> table (spec §3.9): raw_list holds
-- the event's delegate debug metadata, one byte string per run ("" where a
-- run logged none); event is the Event (its name carries the information
-- for some backends).  A table of fields becomes one column per key with
-- print_data_tabular{include_delegate_debug_data=true}.  A parser raises
-- on malformed input; the Inspector then warns and keeps the raw metadata.
local _ENV = require("etinspect")._core.std -- the standard library as it was at load
local core = require("etinspect")._core
local pyrepr = require("etinspect.pyrepr")

local M = {}

--- Is `v` a JSON object as _core.json_decode gives it (an ordered dict,
-- whose metatable has __pydict) rather than an array or a scalar?
local function is_object(v)
  local mt = type(v) == "table" and getmetatable(v)
  return mt and mt.__pydict == true or false
end
M.is_object = is_object

local function first_nonempty(list)
  for _, m in ipairs(list) do
    if m ~= "" then return m end
  end
  return nil
end

--- "json": the first run's metadata decoded as JSON.  An object gives its
-- fields, in the text's order (an ordered dict: its columns come in that
-- order with include_delegate_debug_data); arrays inside are sequences
-- ("tile": [4, 4] renders [4, 4]); any other JSON value is returned as
-- {value = v}.  All runs empty: {}.  Errors on invalid JSON (message with
-- line and column).
function M.json(list)
  local m = first_nonempty(list)
  if not m then return {} end
  local v, err = core.json_decode(m)
  if v == nil and err then error("invalid JSON metadata: " .. err, 2) end
  if is_object(v) then return v end
  return { value = v }
end

local COREML_KEYS = {
  { "operatorName", "coreml_operator" },
  { "estimatedCost", "coreml_estimated_cost" },
  { "preferredComputeUnit", "coreml_preferred_device" },
  { "supportedComputeUnits", "coreml_supported_devices" },
}

--- "coreml": Core ML's JSON metadata (ExecuTorch's Core ML delegate):
-- operatorName, estimatedCost, preferredComputeUnit and supportedComputeUnits
-- of the first run, as coreml_operator, coreml_estimated_cost,
-- coreml_preferred_device and coreml_supported_devices.  Metadata that is
-- not JSON gives {} (as ExecuTorch's own Core ML example does).
function M.coreml(list)
  local m = list[1]
  if not m or m == "" then return {} end
  local v = core.json_decode(m)
  if type(v) ~= "table" then return {} end
  local out = {}
  for _, k in ipairs(COREML_KEYS) do
    if v[k[1]] ~= nil then out[k[2]] = v[k[1]] end
  end
  return out
end

--- "xnnpack": XNNPACK names its events "<operator> #<k>" (the k-th node of
-- that operator in the delegate); gives {xnnpack_op = operator,
-- xnnpack_index = k}, or {} for other names.
function M.xnnpack(_, event)
  local name = event and event.name or ""
  local op, k = name:match("^(.-) #(%d+)$")
  if not op then return {} end
  return { xnnpack_op = op, xnnpack_index = math.tointeger(tonumber(k)) }
end

--- "qnn": Qualcomm QNN logs duration-only events (start 0) whose unit is a
-- suffix of the name: " (us)", " (bytes)", " (count)", none for cycles.
-- Gives {qnn_node = name without the suffix, qnn_unit = "us" | "bytes" |
-- "count" | "cycles", qnn_value = the logged value of the first run (end
-- time - start time)}.
function M.qnn(_, event)
  local name = event and event.name or ""
  local node, unit = name:match("^(.*) %((%a+)%)$")
  if not node then node, unit = name, "cycles" end
  local out = { qnn_node = node, qnn_unit = unit }
  local st = event and event.start_time
  local pd = event and event.perf_data
  if pd and st and st[1] == 0 and unit ~= "us" then
    out.qnn_value = pd.raw[1]
  end
  return out
end

--- "neutron": NXP's Neutron delegate writes one byte, the kernel's function
-- code; gives {neutron_function_code = n} from the first run, or {} when
-- the metadata is not exactly one byte.
function M.neutron(list)
  local m = first_nonempty(list)
  if not m or #m ~= 1 then return {} end
  return { neutron_function_code = m:byte(1) }
end

-- Vulkan's dispatch names: fields of the 2026 JSON form read by pattern
-- when the name is not valid JSON (a double argument printed as inf/nan,
-- or a blit/prepack dispatch whose "kernel name" is bare text).
local function vulkan_fields_by_pattern(name)
  local inner, id = name:match('^{(.*), "dispatch_id": (%d+)}$')
  if not inner then
    error("malformed Vulkan dispatch event name (expected {..., \"dispatch_id\": N}): " .. name, 0)
  end
  local out = { vulkan_dispatch_id = math.tointeger(tonumber(id)) }
  local kernel = inner:match('"kernel_name": "([^"]*)"')
  if kernel then
    out.vulkan_kernel = kernel
    out.vulkan_operator_id = math.tointeger(tonumber(inner:match('"operator_id": (%d+)')))
    out.vulkan_operator = inner:match('^"operator": {"name": "([^"]*)"')
    out.vulkan_delegate_node_id = math.tointeger(tonumber(inner:match('^"operator": {"name": "[^"]*", "delegate_node_id": (%d+)')))
  elseif not inner:find('"', 1, true) then
    out.vulkan_kernel = inner
  else
    error("malformed Vulkan dispatch event name (no kernel_name): " .. name, 0)
  end
  return out
end

--- "vulkan": ExecuTorch's Vulkan delegate puts what it knows about a GPU
-- dispatch in the event name (timestamps are the GPU's, in ns).  Three
-- layouts, by ExecuTorch version:
--   2026 and later: a JSON object {"operator": {"name", "delegate_node_id",
--     "args"}, "kernel_name", "operator_id", "dispatch_id"} ("operator" absent
--     for blits and prepacking, whose kernel name is then bare text);
--   2025: "<kernel_name>_<dispatch_id>" with 24 bytes of metadata, six
--     little-endian uint32: global then local workgroup size (x, y, z);
--   2024: "<kernel_name>_<dispatch_id>" with no metadata.
-- The phases it times on the CPU are named ETVK_<PHASE> (COPY_INPUTS, RESIZE,
-- COMPUTE_GRAPH_EXECUTE, COPY_OUTPUTS, EXECUTE).
-- Gives {vulkan_kernel, vulkan_dispatch_id, vulkan_operator,
-- vulkan_operator_id, vulkan_delegate_node_id, vulkan_args (sequence of
-- argument tables), vulkan_global_workgroup_size, vulkan_local_workgroup_size
-- ({x, y, z})} (the fields that are present), {vulkan_phase = PHASE} for the
-- phases, {} for other names.  Raises on a "{" name that is not a dispatch
-- and on metadata that is neither empty nor 24 bytes.
function M.vulkan(list, event)
  local name = event and event.name or ""
  local phase = name:match("^ETVK_([%u_]+)$")
  if phase then return { vulkan_phase = phase } end
  local out
  if name:sub(1, 1) == "{" then
    local v = core.json_decode(name)
    if is_object(v) and math.type(v.dispatch_id) == "integer" then
      local op = type(v.operator) == "table" and v.operator or {}
      out = {
        vulkan_kernel = v.kernel_name,
        vulkan_dispatch_id = v.dispatch_id,
        vulkan_operator_id = v.operator_id,
        vulkan_operator = op.name,
        vulkan_delegate_node_id = op.delegate_node_id,
        vulkan_args = op.args,
      }
    else
      out = vulkan_fields_by_pattern(name)
    end
  else
    local kernel, id = name:match("^(.+)_(%d+)$")
    if not kernel then return {} end
    out = { vulkan_kernel = kernel, vulkan_dispatch_id = math.tointeger(tonumber(id)) }
  end
  local m = first_nonempty(list or {})
  if m then
    if #m ~= 24 then
      error(("Vulkan dispatch metadata: expected 24 bytes (6 x uint32), got %d"):format(#m), 0)
    end
    local gx, gy, gz, lx, ly, lz = string.unpack("<I4I4I4I4I4I4", m)
    out.vulkan_global_workgroup_size = { gx, gy, gz }
    out.vulkan_local_workgroup_size = { lx, ly, lz }
  end
  return out
end

local B64 = {}
do
  local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for i = 1, #alphabet do B64[alphabet:sub(i, i)] = i - 1 end
end

--- Strict base64 decoding (RFC 4648 alphabet, '=' padding); errors on
-- anything else.
function M.base64_decode(s)
  if #s % 4 ~= 0 then error("Malformed base64 data in VGF neural statistics blob", 2) end
  local out, n = {}, 0
  for i = 1, #s, 4 do
    local q = s:sub(i, i + 3)
    local a, b, c, d = B64[q:sub(1, 1)], B64[q:sub(2, 2)], q:sub(3, 3), q:sub(4, 4)
    local cv, dv = B64[c], B64[d]
    local last = i + 3 == #s
    if not a or not b or (not cv and not (last and c == "=" and d == "="))
        or (not dv and not (last and d == "=")) then
      error("Malformed base64 data in VGF neural statistics blob", 2)
    end
    local v = a * 262144 + b * 4096 + (cv or 0) * 64 + (dv or 0)
    n = n + 1
    out[n] = string.char(v >> 16 & 255)
    if cv then n = n + 1; out[n] = string.char(v >> 8 & 255) end
    if dv then n = n + 1; out[n] = string.char(v & 255) end
  end
  return table.concat(out)
end

local VGF_SCHEMA = "executorch.vgf.neural_statistics"

--- Strict reading of one VGF neural statistics record (spec §6.7): schema
-- and schema_version (1) checked; for each segment, the blobs
-- debug_database, statistics_info and statistics_memory get raw_data
-- (base64-decoded when "available", "" otherwise).
function M.vgf_record(v)
  if type(v) ~= "table" or v.schema ~= VGF_SCHEMA then
    error("Not VGF neural statistics metadata: " .. tostring(type(v) == "table" and v.schema or v), 2)
  end
  if v.schema_version ~= 1 then
    error("Unsupported VGF neural statistics metadata schema version: " .. tostring(v.schema_version), 2)
  end
  for _, seg in ipairs(v.segments or {}) do
    if type(seg) == "table" then
      for _, key in ipairs { "debug_database", "statistics_info", "statistics_memory" } do
        local blob = seg[key]
        if type(blob) == "table" then
          if not blob.available then
            if blob.raw_data == nil then -- b"" (a raw_data of the JSON stays a str)
              blob.raw_data = ""
              pyrepr.mark_bytes(blob, "raw_data")
            end
          else
            if blob.encoding ~= "base64" then
              error("Unsupported VGF neural statistics blob encoding: " .. tostring(blob.encoding), 2)
            end
            blob.raw_data = M.base64_decode(blob.data or "")
            pyrepr.mark_bytes(blob, "raw_data")
          end
        end
      end
    end
  end
  return v
end

--- "vgf": VGF neural statistics (Arm VGF backend) in the metadata of each
-- run: the records found, as a sequence (spec §6.7).  Metadata that is not
-- JSON is skipped unless it mentions the VGF schema (then an error);
-- JSON of another schema is skipped.
function M.vgf(list)
  local out = {}
  for _, m in ipairs(list) do
    if m ~= "" then
      local v = core.json_decode(m)
      if v == nil then
        if m:find(VGF_SCHEMA, 1, true) then error("Malformed VGF neural statistics delegate metadata", 2) end
      elseif type(v) == "table" and v.schema == VGF_SCHEMA then
        out[#out + 1] = M.vgf_record(v)
      end
    end
  end
  return out
end

return M
