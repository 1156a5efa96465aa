#!/bin/sh
# compare.t - --compare_results: run outputs against a BundledProgram's
# expected outputs (spec §1.7, §7.6), on the corpus's real bundled runs.
# The runner cycled test sets 0..9 over its 20 runs; every output is
# i32[2,2] = [2,2,2,2], as every test set expects.
. "$(dirname "$0")/lib.sh"
C="$ET_SHARED/corpus/etdump"
[ -f "$C/real_bundled_debug.etdp" ] || skip_all "$C absent (the shared corpus)"
BP="$C/repo_bundled_program.bpte"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -q -- "$1" "$T/err"; }

run --etdump_path "$C/real_bundled_debug_bii_patched.etdp" \
    --debug_buffer_path "$C/real_bundled_debug_bii_patched.bin" --bundled_program_path "$BP" \
    --compare_results --quiet
ok "patched dump: exit 0" status_is 0
ok "patched dump: one row per Execute block (10), each block its own test set" \
    test "$(grep -c '│ Execute │ *[0-9]* │ *[0-9] │ *1 │ \[2, 2\] *│ *inf │ *0 │ *1 │ *0 │' "$T/out")" -eq 10
ok "patched dump: test sets 0..9 all appear" \
    test "$(grep -o '│ Execute │ *[0-9]* │ *[0-9]' "$T/out" | awk '{print $NF}' | sort -u | tr -d '\n')" = 0123456789

run --etdump_path "$C/real_bundled_debug.etdp" --debug_buffer_path "$C/real_bundled_debug.bin" \
    --bundled_program_path "$BP" --compare_results --quiet
ok "unpatched dump (no bundled_input_index): exit 0" status_is 0
ok "unpatched dump: no reference output, and the warning says how to choose one" \
    err_has "choose a test case with bundled_test_case / --bundled_test_case"

run --etdump_path "$C/real_bundled_debug.etdp" --debug_buffer_path "$C/real_bundled_debug.bin" \
    --bundled_program_path "$BP" --bundled_test_case 3 --compare_results --quiet
ok "--bundled_test_case 3: exit 0" status_is 0
ok "--bundled_test_case 3: the 20-run block compares with zero error" \
    grep -q '│ Execute │ *2 │ *-1 │ *1 │ \[2, 2\] *│ *inf │ *0 │ *1 │ *0 │' "$T/out"
ok "--bundled_test_case 3: the Default block (no outputs) gets none" test "$(grep -c 'Default' "$T/out")" -eq 0

# every one of the 20 runs against the test set it ran (r mod 10)
"$ETINSPECT" -e "
  local E = require('etinspect')
  local insp = E.Inspector{etdump_path = '$C/real_bundled_debug.etdp',
                           debug_buffer_path = '$C/real_bundled_debug.bin',
                           bundled_program_path = '$BP'}
  local cases = insp.bundled_program.method_test_suites[1].test_cases
  local blk = insp.event_blocks[2]
  local bad = 0
  for r = 1, blk.num_runs do
    local res = E.compare_results(cases[(r - 1) % 10 + 1].expected_outputs, blk:run_output_of_run(r))
    if not (res.mse[1] == 0 and res.snr[1] == math.huge and res.cosine_similarity[1] == 1) then bad = bad + 1 end
  end
  print(blk.num_runs, #cases, bad)" >"$T/runs" 2>"$T/err"
ok "each of the 20 runs against its test set: zero error" test "$(cat "$T/runs")" = "$(printf '20\t10\t0')"
done_testing
