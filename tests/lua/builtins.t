#!/usr/bin/env etinspect
-- builtins.t - the built-in delegate-metadata parsers and time-scale
-- converters, on tests/fixtures/delegates.json (events shaped as Core ML,
-- XNNPACK, QNN, Neutron and VGF write them; two runs) and
-- tests/fixtures/vulkan.json (Vulkan dispatches in each of its layouts).
package.path = (os.getenv("ET_SRC") or ".") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local etinspect = require "etinspect"
local parsers, converters = etinspect.parsers, etinspect.converters
local path = t.build .. "/fixtures/delegates.etdp"
if not t.exists(path) then t.skip_all(path .. " not built (run make)") end

local warnings = {}
etinspect.on_warning(function(m) warnings[#warnings + 1] = m end)

local function events(opts)
  opts.etdump_path = path
  local insp = etinspect.Inspector(opts)
  local by = {}
  for _, ev in ipairs(insp.event_blocks[1].events) do by[ev.name] = ev end
  return by, insp
end

-- parsers chosen by name
local ev = events { delegate_metadata_parser = "coreml" }
local md = ev["0"].delegate_debug_metadatas
t.is(md.coreml_operator, "conv", "coreml: operatorName")
t.is(md.coreml_estimated_cost, 0.25, "coreml: estimatedCost")
t.is(md.coreml_preferred_device, "ANE", "coreml: preferredComputeUnit")
t.is(table.concat(md.coreml_supported_devices, ","), "CPU,ANE", "coreml: supportedComputeUnits")
t.is(md.other, nil, "coreml: other keys left out")
t.is(next(parsers.coreml({ "not json" })), nil, "coreml: not JSON gives {}")

ev = events { delegate_metadata_parser = "json" }
t.is(ev["0"].delegate_debug_metadatas.other, 1, "json: every field")
t.raises(function() parsers.json({ "{bad" }) end, "invalid JSON metadata: line 1 column 4", "json: invalid JSON names line and column")
t.is(parsers.json({ "", "[1,2]" }).value[2], 2, "json: a non-object value, first non-empty run")

ev = events { delegate_metadata_parser = "xnnpack" }
md = ev["Convolution #1"].delegate_debug_metadatas
t.ok(md.xnnpack_op == "Convolution" and md.xnnpack_index == 1, "xnnpack: operator and index from the name")

ev = events { delegate_metadata_parser = "qnn" }
md = ev["conv_node (us)"].delegate_debug_metadatas
t.ok(md.qnn_node == "conv_node" and md.qnn_unit == "us", "qnn: node and unit from the name suffix")
md = ev["conv_node"].delegate_debug_metadatas
t.is(md.qnn_unit, "cycles", "qnn: no suffix means cycles")

ev = events { delegate_metadata_parser = "neutron" }
t.is(ev["5"].delegate_debug_metadatas.neutron_function_code, 7, "neutron: the function-code byte")

ev = events { delegate_metadata_parser = "vgf" }
md = ev["6"].delegate_debug_metadatas
t.is(#md, 2, "vgf: one record per run")
t.is(md[1].segments[1].debug_database.raw_data, "hello", "vgf: base64 blob decoded")
t.is(md[1].segments[1].statistics_info.raw_data, "", "vgf: unavailable blob gets empty raw_data")
-- raw_data is bytes, as the reference renders it (spec §6.7; the Python
-- output below is str() of what the reference's parser returns)
local vgf_json = '{"schema": "executorch.vgf.neural_statistics", "schema_version": 1, "segments": '
  .. '[{"debug_database": {"available": true, "encoding": "base64", "data": "AP8n"}, '
  .. '"statistics_info": {"available": false, "raw_data": "kept"}, "statistics_memory": {"available": false}}]}'
local vrec = parsers.vgf({ vgf_json })
t.is(vrec[1].segments[1].debug_database.raw_data, "\0\255'", "vgf: raw_data is the decoded bytes, a Lua string")
t.is(etinspect.pyrepr.repr(vrec),
  [=[[{'schema': 'executorch.vgf.neural_statistics', 'schema_version': 1, 'segments': [{'debug_database': ]=]
  .. [=[{'available': True, 'encoding': 'base64', 'data': 'AP8n', 'raw_data': b"\x00\xff'"}, 'statistics_info': ]=]
  .. [=[{'available': False, 'raw_data': 'kept'}, 'statistics_memory': {'available': False, 'raw_data': b''}}]}]]=],
  "vgf: raw_data renders as Python bytes (b'...'), a raw_data of the JSON as str, as the reference")
local shared_mt = { __index = { x = 1 } }
local ta, tb = setmetatable({ k = "a" }, shared_mt), setmetatable({ k = "b" }, shared_mt)
etinspect.pyrepr.mark_bytes(ta, "k")
t.ok(etinspect.pyrepr.repr(ta) == "{'k': b'a'}" and etinspect.pyrepr.repr(tb) == "{'k': 'b'}"
  and getmetatable(tb) == shared_mt and shared_mt.__pybytes_keys == nil and ta.x == 1,
  "pyrepr.mark_bytes: the marked table only; a shared metatable stays as it was")
t.raises(function() parsers.vgf({ '{"schema":"executorch.vgf.neural_statistics","schema_version":2}' }) end,
  "Unsupported VGF neural statistics metadata schema version: 2", "vgf: schema version checked")
t.raises(function() parsers.vgf({ "executorch.vgf.neural_statistics {" }) end,
  "Malformed VGF neural statistics delegate metadata", "vgf: malformed VGF metadata")
t.raises(function() parsers.base64_decode("aGVsbG8") end, "Malformed base64", "base64: strict length")
t.is(parsers.base64_decode("aGk="), "hi", "base64: padding")

-- vulkan, on tests/fixtures/vulkan.json: dispatch events in the three
-- layouts ExecuTorch's Vulkan delegate has written, and its ETVK_ phases
local vkpath = t.build .. "/fixtures/vulkan.etdp"
local vk = {}
local vkinsp = etinspect.Inspector { etdump_path = vkpath, delegate_metadata_parser = "vulkan" }
for _, e in ipairs(vkinsp.event_blocks[1].events) do vk[#vk + 1] = e end
t.is(#vk, 11, "vulkan: 11 events in the fixture")
t.is(vk[1].delegate_debug_metadatas.vulkan_phase, "COPY_INPUTS", "vulkan: ETVK_COPY_INPUTS is a phase")
t.is(vk[9].delegate_debug_metadatas.vulkan_phase, "EXECUTE", "vulkan: ETVK_EXECUTE is a phase")
md = vk[3].delegate_debug_metadatas
t.is(md.vulkan_kernel, "binary_add_texture3d_float", "vulkan JSON: kernel_name")
t.is(md.vulkan_dispatch_id, 5, "vulkan JSON: dispatch_id")
t.is(md.vulkan_operator, "aten.add.Tensor", "vulkan JSON: operator name")
t.is(md.vulkan_operator_id, 1, "vulkan JSON: operator_id")
t.is(md.vulkan_delegate_node_id, 3, "vulkan JSON: delegate_node_id")
t.is(#md.vulkan_args, 2, "vulkan JSON: two operator arguments")
t.is(table.concat(md.vulkan_args[1].sizes, ","), "1,4", "vulkan JSON: first argument's sizes")
t.is(md.vulkan_args[1].storage, "TEXTURE_3D", "vulkan JSON: first argument's storage")
md = vk[4].delegate_debug_metadatas
t.ok(md.vulkan_kernel == "Blit_Float_to_Half" and md.vulkan_dispatch_id == 6 and md.vulkan_operator == nil,
  "vulkan: a blit's bare kernel name inside the braces")
md = vk[5].delegate_debug_metadatas
t.is(md.vulkan_kernel, "clamp_texture3d_float", "vulkan: a name that is not JSON (inf) still gives the kernel")
t.ok(md.vulkan_dispatch_id == 7 and md.vulkan_operator_id == 2 and md.vulkan_delegate_node_id == 4
  and md.vulkan_operator == "aten.clamp.default" and md.vulkan_args == nil,
  "vulkan: ... and dispatch, operator id, node id and operator, without the arguments")
md = vk[6].delegate_debug_metadatas
t.ok(md.vulkan_kernel == "conv2d_dw_output_tile_3x3_texture3d_half" and md.vulkan_dispatch_id == 14
  and md.vulkan_global_workgroup_size == nil, "vulkan 2024: <kernel>_<dispatch id>, no metadata")
md = vk[7].delegate_debug_metadatas
t.ok(md.vulkan_kernel == "q_8w_linear_texture3d_float" and md.vulkan_dispatch_id == 15, "vulkan 2025: kernel and dispatch id")
t.is(table.concat(md.vulkan_global_workgroup_size, ","), "4,1,1", "vulkan 2025: global workgroup size from the metadata")
t.is(table.concat(md.vulkan_local_workgroup_size, ","), "64,1,1", "vulkan 2025: local workgroup size from the metadata")
t.is(next(vk[10].delegate_debug_metadatas or {}), nil, "vulkan: DELEGATE_CALL is not a dispatch")
t.raises(function() parsers.vulkan({}, { name = "{conv, 3}" }) end,
  'malformed Vulkan dispatch event name %(expected {..., "dispatch_id": N}%)', "vulkan: malformed braces")
t.raises(function() parsers.vulkan({ "12345" }, { name = "conv_3" }) end,
  "Vulkan dispatch metadata: expected 24 bytes %(6 x uint32%), got 5", "vulkan: metadata of the wrong size")
t.is(next(parsers.vulkan({}, { name = "Method::execute" })), nil, "vulkan: other names give {}")
local vkdf = vkinsp:to_dataframe { include_delegate_debug_data = true }
local vkcols = "," .. table.concat(vkdf.columns, ",") .. ","
t.ok(vkcols:find(",vulkan_kernel,", 1, true) and vkcols:find(",vulkan_phase,", 1, true), "vulkan: fields become columns")

-- the metadata columns in the table
local _, insp = events { delegate_metadata_parser = "coreml" }
local df = insp:to_dataframe { include_delegate_debug_data = true }
local cols = table.concat(df.columns, ",")
t.ok(cols:find("coreml_operator", 1, true) ~= nil, "parsed fields become columns")

-- converters
ev = events { delegate_time_scale_converter = converters.qnn { cycles_hz = 1e9 } }
t.near(ev["conv_node (us)"].perf_data.raw[1], 0.15, 1e-12, "qnn converter: 150 us = 0.15 ms")
t.near(ev["conv_node"].perf_data.raw[1], 0.003, 1e-12, "qnn converter: 3000 cycles at 1 GHz = 0.003 ms")
t.is(ev["conv_node (bytes)"].perf_data.raw[1], 4096, "qnn converter: bytes left as they are")
ev = events { delegate_time_scale_converter = converters.cycles(2e9, "us") }
t.near(ev["0"].perf_data.raw[1], 1.0, 1e-12, "cycles converter: 2000 cycles at 2 GHz = 1 us")
ev = events { delegate_time_scale_converter = converters.coreml() }
t.near(ev["0"].perf_data.raw[1], 0.002, 1e-12, "coreml converter: ns to ms")
t.near(converters.scale("us", "ms")("x", 1500), 1.5, 1e-12, "scale converter")
t.raises(function() converters.scale("us", "hours") end, "unknown time unit 'hours'", "unknown unit")
t.raises(function() converters.cycles(0) end, "positive number of Hz", "zero frequency refused")
t.is(#warnings, 0, "no warnings from the built-ins")
t.done()
