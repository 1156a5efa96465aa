#!/usr/bin/env etinspect
-- builtins.t - the built-in delegate-metadata parsers and time-scale
-- converters, on tests/fixtures/delegates.json (events shaped as Core ML,
-- XNNPACK, QNN, Neutron and VGF write them; two runs).
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
t.raises(function() parsers.vgf({ '{"schema":"executorch.vgf.neural_statistics","schema_version":2}' }) end,
  "Unsupported VGF neural statistics metadata schema version: 2", "vgf: schema version checked")
t.raises(function() parsers.vgf({ "executorch.vgf.neural_statistics {" }) end,
  "Malformed VGF neural statistics delegate metadata", "vgf: malformed VGF metadata")
t.raises(function() parsers.base64_decode("aGVsbG8") end, "Malformed base64", "base64: strict length")
t.is(parsers.base64_decode("aGk="), "hi", "base64: padding")

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
