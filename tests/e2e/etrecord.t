#!/bin/sh
# etrecord.t - etinspect --etdump_path D --etrecord_path R: the table shows
# op types and delegate backends, the TSV too, --json holds the linkage;
# malformed records give exit 1 with a message naming the file and entry;
# a dump of two methods gets each block linked to its own method.
# The records are written by tests/lua/etr_cases.lua (as etrecord.t does)
# and tests/lua/two_methods.lua.
. "$(dirname "$0")/lib.sh"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -q -- "$1" "$T/err"; }

# two methods (docs/etrecord.md, "Which method a block is linked to")
LM="$ET_BUILD/fixtures/two_methods.etdp"
ET_BUILD="$ET_BUILD" "$ETINSPECT" -e "package.path = '$ET_SRC/tests/lua/?.lua;' .. package.path
  require('two_methods').write('$T/lm.bin')" || skip_all "could not write the two-method record"
run --etdump_path "$LM" --etrecord_path "$T/lm.bin" --json "$T/lm.json" --tsv_path "$T/lm.tsv"
ok "two methods: exit 0" status_is 0
ok "two methods: no warning" test ! -s "$T/err"
"$ETINSPECT" -e "
  local j = assert(require('etinspect')._core.json_decode(io.open('$T/lm.json'):read('a')))
  for _, b in ipairs(j.event_blocks) do print(b.name, b.etrecord_method, b.events[1].debug_handles) end" \
    >"$T/facts" 2>"$T/err"
printf 'Default\tforward\t1\nExecute\tforward\t1\nExecute\tdecode\t11\nExecute::forward\tforward\t1\nExecute::decode\tdecode\t11\n' >"$T/want"
ok "--json: each block's method (inferred, or named Execute::<method>) and its handles" cmp "$T/facts" "$T/want"
ok "TSV: a decode block's argmax" \
    grep -q "$(printf '^[0-9]*\tExecute\tnative_call_argmax.out\t.*\t\[.aten.argmax.default.\]\tFalse\t')" "$T/lm.tsv"
ok "TSV: a forward block's delegate call" \
    grep -q "$(printf '^[0-9]*\tExecute::forward\tDELEGATE_CALL\t.*\t\[.aten.mm.default., .aten.add.Tensor.\]\tFalse\tXnnpackBackend\t')" "$T/lm.tsv"
run --etdump_path "$LM" --etrecord_path "$T/lm.bin" --etrecord_method decode --quiet --json "$T/lmd.json"
"$ETINSPECT" -e "
  local j = assert(require('etinspect')._core.json_decode(io.open('$T/lmd.json'):read('a')))
  local m = {}
  for _, b in ipairs(j.event_blocks) do m[#m + 1] = b.etrecord_method end
  print(table.concat(m, ' '))" >"$T/facts" 2>/dev/null
ok "--etrecord_method decode: every block" test "$(cat "$T/facts")" = "decode decode decode decode decode"

SMALL="$ET_SHARED/corpus/etdump/small.etdp"
if [ ! -f "$SMALL" ]; then
    skip "$SMALL absent (the shared corpus): the rest"
    done_testing
fi

ET_BUILD="$ET_BUILD" "$ETINSPECT" -e "package.path = '$ET_SRC/tests/lua/?.lua;' .. package.path
  local c, w = require 'etr_cases', require 'etrwriter'
  c.small('$T/rec.bin')
  w.zip('$T/nomarker.bin', { { 'debug_handle_map', '{}' } })
  w.zip('$T/badjson.bin', { { 'ETRECORD_V0', '' }, { 'debug_handle_map', '{\"forward\":\n  {\"0\": 1,}}' } })" ||
    skip_all "could not write the test records"

run --etdump_path "$SMALL" --etrecord_path "$T/rec.bin"
ok "linked: exit 0" status_is 0
ok "linked: no warning" test ! -s "$T/err"
ok "the table shows a kernel's op types" grep -q "native_call_addmm.out.*\['aten.addmm.default', 'aten.t_copy.default'\]" "$T/out"
ok "the table shows the delegate call's op types abbreviated (5 total) and its backend" \
    grep -q "DELEGATE_CALL.*\['aten.convolution.default', 'aten.relu.default' ... 'aten.sub.Tensor'\] (5 total).*XnnpackBackend" "$T/out"
ok "the table shows a delegated event's backend" grep -q "fused_conv_relu #1.*True *│ XnnpackBackend" "$T/out"

run --etdump_path "$SMALL" --etrecord_path "$T/rec.bin" --quiet --tsv_path "$T/s.tsv" --json "$T/s.json"
ok "TSV and JSON: exit 0" status_is 0
ok "TSV: op types and backend of the delegated event 'add #1'" \
    grep -q "$(printf '\tadd #1\t.*\t\[.aten.mul.Tensor.\]\tTrue\tXnnpackBackend\t')" "$T/s.tsv"

"$ETINSPECT" -e "
  local j = assert(require('etinspect')._core.json_decode(io.open('$T/s.json'):read('a')))
  local ev
  for _, e in ipairs(j.event_blocks[1].events) do if e.name == 'native_call_addmm.out' then ev = e end end
  local out = io.open('$T/facts', 'w')
  out:write(j.inputs.etrecord == '$T/rec.bin' and 'input\n' or '')
  out:write(j.etrecord.reference_graph_name, ' ', j.etrecord.export_graph_id, ' ', #j.etrecord.entries, '\n')
  out:write(j.event_blocks[1].etrecord_method, '\n')
  out:write(ev.debug_handles, ' ', ev.num_outputs, ' ', table.concat(ev.op_types, ','), '\n')
  out:write(ev.stack_traces.addmm_, '\n')
  out:write(tostring(ev.stack_traces.t_copy_), ' ', tostring(ev.module_hierarchy.t_copy_), '\n')
  out:write(table.concat(ev.module_hierarchy.addmm_.L__self___fc1, '|'), '\n')
  out.close(out)" 2>"$T/err"
cat >"$T/want" <<'EOF'
input
edge_dialect_graph_module 140234 9
forward
2 1 aten.addmm.default,aten.t_copy.default
File "model.py", line 10, in forward
    y = self.fc1(x)
nil nil
L['self'].fc1|torch.nn.modules.linear.Linear
EOF
ok "JSON: the record, the block's method and an event's linkage (None as null)" cmp "$T/facts" "$T/want"

run --etdump_path "$SMALL" --etrecord_path "$T/rec.bin" --etrecord_method encode
ok "an unknown method: exit 2" status_is 2
ok "an unknown method: the record's methods are listed" \
    err_has "has no method 'encode' (methods of its debug_handle_map: forward)"

printf 'PK\003\004 not really' >"$T/notzip.bin"
run --etdump_path "$SMALL" --etrecord_path "$T/notzip.bin"
ok "not a ZIP archive: exit 1" status_is 1
ok "not a ZIP archive: named as the reference names it" err_has "notzip.bin: invalid ETRecord file"
run --etdump_path "$SMALL" --etrecord_path "$T/nomarker.bin"
ok "no marker: exit 1" status_is 1
ok "no marker: the reference's meaning" err_has "nomarker.bin: ETRecord identifier missing"
run --etdump_path "$SMALL" --etrecord_path "$T/badjson.bin"
ok "a JSON syntax error: exit 1" status_is 1
ok "a JSON syntax error: entry, line and column" \
    err_has "badjson.bin: entry 'debug_handle_map': invalid JSON at line 2, column 11"
run --etdump_path "$SMALL" --etrecord_path "$T/rec.bin" --tsv_path "$T/rec.bin"
ok "an output over the record: refused" status_is 2
ok "the record is left intact" "$ETINSPECT" --etdump_path "$SMALL" --etrecord_path "$T/rec.bin" -q

done_testing
