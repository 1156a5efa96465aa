#!/bin/sh
# legacy.t - etinspect --profile_results_path: legacy profiler dumps
# (prof_result_t blocks, spec §9) printed byte for byte as ExecuTorch's
# parse_profiler_results.py prints them (tests/legacy/), TSV and JSON
# outputs, usage and input errors.
. "$(dirname "$0")/lib.sh"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -q -- "$1" "$T/err"; }

# write the test dumps (tests/lua/legacy_cases.lua)
"$ETINSPECT" -e "package.path = '$ET_SRC/tests/lua/?.lua;' .. package.path
  local c, pw = require 'legacy_cases', require 'profwriter'
  for _, n in ipairs { 'main', 'two_exec', 'full' } do pw.write('$T/' .. n .. '.bin', c.bytes(n)) end
  pw.write('$T/bad.bin', c.bytes('main'):sub(1, 100))
  pw.write('$T/cut.bin', c.bytes('main'):sub(1, -25))
  pw.write('$T/empty.bin', '')" ||
    skip_all "could not write the test dumps"

ok "tests/legacy/main.bin (the fuzz seed and docs sample) is the dump the writer makes" \
    cmp "$T/main.bin" "$ET_SRC/tests/legacy/main.bin"
ok "tests/legacy/two_exec.bin likewise" cmp "$T/two_exec.bin" "$ET_SRC/tests/legacy/two_exec.bin"

for case in main.ns main.us main.cycles two_exec.ns full.ns; do
    name=${case%.*}
    ts=${case#*.}
    run --profile_results_path "$T/$name.bin" --time_scale "$ts"
    ok "$name, $ts: exit 0" status_is 0
    ok "$name, $ts: the reference parser's tables, byte for byte" \
        cmp "$T/out" "$ET_SRC/tests/legacy/$case.txt"
done

run --profile_results_path "$T/main.bin"
ok "the default time scale is ns" cmp "$T/out" "$ET_SRC/tests/legacy/main.ns.txt"

run --profile_results_path "$T/main.bin" --quiet --tsv_path "$T/main.tsv" --json "$T/main.json"
ok "--quiet --tsv_path --json: exit 0" status_is 0
ok "--quiet prints nothing" test ! -s "$T/out"
ok "TSV: the Inspector table's header" \
    grep -q "^	event_block_name	event_name	p10 (ms)	p50 (ms)	p90 (ms)	avg (ms)	min (ms)	max (ms)	op_types	is_delegated_op	delegate_backend_name	start_time" "$T/main.tsv"
ok "TSV: one row per event, ticks of each iteration" \
    grep -q "^2	execute	native_call_add.out	1.00002	1.0001	1.1877	1.0782333333333334	1.0	1.2346	\[\]	False		\[2100000, 10100000, 20100000\]$" "$T/main.tsv"
ok "JSON: the legacy format" grep -q '"format": "etinspect-profile-results-json"' "$T/main.json"
ok "JSON: durations per iteration" \
    grep -q '"name": "native_call_add.out", "chain_idx": 0, "instruction_idx": 1, "ts": \[2.1, 10.1, 20.1\], "duration": \[1.2346, 1.0, 1.0001\]' "$T/main.json"
ok "JSON: framework tax" \
    grep -q '"framework_tax": {"exec_time": \[3.0, 3.5, 3.0\], "kernel_and_delegate_time": \[2.3349, 2.3007, 2.5010999999999997\], "framework_tax": \[22.17, 34.27, 16.63\]}' "$T/main.json"
ok "JSON: memory per allocator" \
    grep -q '"memory": \[{"allocator_name": "method_allocator", "allocator_id": 0, "total_allocations_done": 384}, {"allocator_name": "planned_memory", "allocator_id": 1, "total_allocations_done": 4096}\]' "$T/main.json"
run --profile_results_path "$T/main.bin" --time_scale cycles --quiet --json "$T/cycles.json"
ok "JSON, cycles: integers" grep -q '"duration": \[1234567, 1000000, 1000050\]' "$T/cycles.json"

run --profile_results_path "$T/bad.bin"
ok "truncated dump: exit 1" status_is 1
ok "truncated dump: names the file, block, offset" \
    err_has "bad.bin: block 0 at offset 0: truncated: its entries in use (1 profiling, 2 allocator, 3 memory) end at offset 224, the file at 100"
run --profile_results_path "$T/cut.bin"
ok "cut after the last entry in use: exit 0" status_is 0
ok "cut after the last entry in use: the reference parser's tables, as for the whole dump" \
    cmp "$T/out" "$ET_SRC/tests/legacy/main.ns.txt"
ok "cut after the last entry in use: a warning" \
    err_has "cut.bin: block 3 'execute' at offset 1472 is cut short: its 8 profiling, 2 allocator and 4 memory slots end at offset 2096, the file at 2072; its entries in use end at offset 2072 and are read, as the legacy parser reads them"
run --profile_results_path "$T/empty.bin" --tsv_path "$T/empty.tsv"
ok "empty file: exit 0" status_is 0
ok "empty file: nothing printed, as the legacy parser" test ! -s "$T/out"
ok "empty file: 'no profiling blocks' on stderr" \
    test "$(cat "$T/err")" = "etinspect: warning: $T/empty.bin: empty file: no profiling blocks"
ok "empty file: the TSV has the header only" test "$(wc -l <"$T/empty.tsv")" -eq 1
run --profile_results_path "$T/none.bin"
ok "missing file: exit 1" status_is 1
run --profile_results_path "$T/main.bin" --time_scale s
ok "--time_scale s: exit 2" status_is 2
ok "--time_scale s: the choices" err_has "choose from 'ns', 'us', 'ms', 'cycles'"
run --profile_results_path "$T/main.bin" --etdump_path x.etdp
ok "with --etdump_path: exit 2" status_is 2
ok "with --etdump_path: says so" err_has "argument --etdump_path: not allowed with --profile_results_path"
run --profile_results_path "$T/main.bin" --target_time_scale us
ok "with --target_time_scale: exit 2" status_is 2
run --etdump_path x.etdp --time_scale us
ok "--time_scale with an ETDump: exit 2" status_is 2
cp "$T/main.bin" "$T/main.orig"
run --profile_results_path "$T/main.bin" --json "$T/main.bin"
ok "refuses to overwrite its input (exit 2)" status_is 2
ok "... and the input is intact" cmp "$T/main.bin" "$T/main.orig"
done_testing
