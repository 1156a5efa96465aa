#!/bin/sh
# trace.t - etinspect --trace_path: Chrome Trace Event JSON (docs/trace.md).
# Every trace written here passes tests/tools/trace_check (fields per
# phase, nesting, monotone counters); corpus traces are compared byte for
# byte with tests/trace/NAME.json (TRACE_GOLDEN_UPDATE=1 rewrites those
# instead).  Corpus cases are skipped, saying so, when the shared corpus is
# absent; fixture cases always run.
. "$(dirname "$0")/lib.sh"

CHECK="$ET_BUILD/tools/trace_check"
[ -x "$CHECK" ] || skip_all "$CHECK missing (run make)"
[ -f "$ET_BUILD/fixtures/sample.etdp" ] || skip_all "build/fixtures missing (run make fixtures)"
ETD="$CORPUS/etdump"
have_corpus() { [ -f "$ETD/small.etdp" ]; }

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -q -- "$1" "$T/err"; }
has() { grep -q -- "$1" "$2"; }
count() { grep -c -- "$1" "$2"; }

# export NAME [etinspect options...]: writes $T/NAME.json, checks it
export_ok() {
    name=$1
    shift
    run --quiet --trace_path "$T/$name.json" "$@"
    ok "$name: exit 0" status_is 0
    ok "$name: trace_check" "$CHECK" -q "$T/$name.json"
}

# golden NAME: compare $T/NAME.json with tests/trace/NAME.json
golden() {
    if [ -n "$TRACE_GOLDEN_UPDATE" ]; then
        cp "$T/$1.json" "$ET_SRC/tests/trace/$1.json"
        diag "rewrote tests/trace/$1.json"
    fi
    ok "$1: the golden trace" cmp "$T/$1.json" "$ET_SRC/tests/trace/$1.json"
}

# --- corpus: golden traces ---------------------------------------------
if have_corpus; then
    export_ok small --etdump_path "$ETD/small.etdp"
    golden small
    export_ok multiblock --etdump_path "$ETD/multiblock.etdp"
    golden multiblock
    export_ok cycles --etdump_path "$ETD/cycles.etdp" --source_time_scale cycles \
        --target_time_scale cycles --cycles_hz 1e9
    golden cycles
    export_ok real_bundled_debug --etdump_path "$ETD/real_bundled_debug.etdp"
    golden real_bundled_debug

    # microseconds: the extremes of native_call_permute_copy.out in the
    # reference's small.tsv are 0.000824 and 0.001007 ms
    ok "us: the shortest native_call_permute_copy.out lasts 0.824 us" \
        grep -q '"name":"native_call_permute_copy.out",.*"dur":0.824,' "$T/small.json"
    ok "us: the longest lasts 1.007 us" \
        grep -q '"name":"native_call_permute_copy.out",.*"dur":1.007,' "$T/small.json"
    ok "us: ts 0 is the first Method::execute (tick 1000000), the first kernel starts at 0.266" \
        grep -q '"name":"native_call_permute_copy.out","cat":"operator","ph":"X","ts":0.266,"dur":0.911,"pid":1,"tid":1005,"args":{"run":0,"instruction_id":0}}' "$T/small.json"
    ok "tracks: framework, operators, delegate, in that order" \
        test "$(grep -o '"name":"thread_sort_index","ph":"M","pid":1,"tid":[0-9]*' "$T/small.json" | tr '\n' ' ')" = \
        '"name":"thread_sort_index","ph":"M","pid":1,"tid":1001 "name":"thread_sort_index","ph":"M","pid":1,"tid":1005 "name":"thread_sort_index","ph":"M","pid":1,"tid":1009 '
    ok "multiblock: one process per block (3: Default, the true and the false branch)" \
        test "$(count '"process_name"' "$T/multiblock.json")" -eq 3
    ok "cycles: the 32-bit wrap inside run 2 is unwrapped (Method::execute lasts 16.031 us at 1 GHz)" \
        grep -q '"name":"Method::execute","cat":"framework","ph":"X","ts":41.823,"dur":16.031,' "$T/cycles.json"
    ok "cycles: runs after the wrap come after it" \
        grep -q '"name":"Method::execute","cat":"framework","ph":"X","ts":62.851,' "$T/cycles.json"
    ok "cycles: dsp_kernel (start outside its DELEGATE_CALL) gets a synthetic start in it" \
        grep -q '"name":"dsp_kernel","cat":"delegate","ph":"X","ts":9.384,"dur":0.512,"pid":1,"tid":1013,"args":{"run":0,"synthetic_start":true,' "$T/cycles.json"

    # errors
    run --etdump_path "$ETD/cycles.etdp" --source_time_scale cycles --target_time_scale cycles \
        --trace_path "$T/c.json"
    ok "cycles without --cycles_hz: exit 2" status_is 2
    ok "cycles without --cycles_hz: says what to give" \
        err_has "etinspect: error: the source time scale is cycles: give the clock frequency (cycles_hz / --cycles_hz) to place events in time"
    ok "cycles without --cycles_hz: no file" test ! -e "$T/c.json"
    run --etdump_path "$ETD/small.etdp" --trace_path "$T/r.json" --trace_runs 3-x
    ok "--trace_runs 3-x: exit 2" status_is 2
    ok "--trace_runs 3-x: the expected form" \
        err_has "etinspect: error: runs: expected a list like 0-3,7, found '3-x'"
    run --etdump_path "$ETD/small.etdp" --trace_path "$T/r.json" --trace_runs 5-12
    ok "--trace_runs beyond the dump: exit 2" status_is 2
    ok "--trace_runs beyond the dump: the dump's runs" \
        err_has "runs: run 12 is not in the dump (its runs are 0-9)"
    cp "$ETD/small.etdp" "$T/copy.etdp"
    run --etdump_path "$T/copy.etdp" --trace_path "$T/copy.etdp"
    ok "the trace cannot overwrite the ETDump: exit 2" status_is 2
    ok "... and the ETDump is intact" cmp "$T/copy.etdp" "$ETD/small.etdp"

    # runs, runs apart, window
    export_ok runs --etdump_path "$ETD/multiblock.etdp" --trace_runs 0-3,7
    ok "--trace_runs 0-3,7: exactly those RunData" \
        test "$(grep -o '"run":[0-9]*' "$T/runs.json" | sort -u | tr '\n' ' ')" = '"run":0 "run":1 "run":2 "run":3 "run":7 '
    ok "--trace_runs 0-3,7: blocks without a selected run (the false branch) have no process" \
        test "$(count '"process_name"' "$T/runs.json")" -eq 2
    ok "--trace_runs: times do not depend on the selection" \
        sh -c "grep '\"run\":7,' '$T/runs.json' | sed 's/,\$//' >'$T/a'; grep '\"run\":7,' '$T/multiblock.json' | sed 's/,\$//' >'$T/b'; cmp '$T/a' '$T/b'"
    export_ok apart --etdump_path "$ETD/small.etdp" --trace_runs_apart
    ok "--trace_runs_apart: one process per run (10)" test "$(count '"process_name"' "$T/apart.json")" -eq 10
    ok "--trace_runs_apart: named after block and run, pid = RunData index + 1" \
        has '{"name":"process_name","ph":"M","pid":8,"args":{"name":"Execute (run 7)"}}' "$T/apart.json"
    ok "--trace_runs_apart: the same slices" \
        test "$(count '"ph":"X"' "$T/apart.json")" -eq 190
    export_ok window --etdump_path "$ETD/small.etdp" --trace_window 18:21
    ok "--trace_window 18:21: the 8 slices overlapping [18, 21) us" \
        test "$(count '"ph":"X"' "$T/window.json")" -eq 8
    ok "--trace_window: the delegate call and its first delegated events are in" \
        sh -c "grep -q '\"name\":\"DELEGATE_CALL\".*\"ts\":18.117,' '$T/window.json' && grep -q '\"name\":\"2\".*\"ts\":20.177,' '$T/window.json'"
    ok "--trace_window: otherData records it" has '"window_us":\[18,21\]' "$T/window.json"

    # allocations
    export_ok alloc --etdump_path "$ETD/alloc.etdp"
    ok "alloc: one counter sample per allocation time (7)" \
        test "$(count '"ph":"C"' "$T/alloc.json")" -eq 7
    ok "alloc: the Default block's allocations, cumulative per allocator (> 4 GiB kept)" \
        has '{"name":"allocated bytes","ph":"C","ts":0,"pid":1,"args":{"method_allocator":4248,"planned_memory_0":5001048576,"temp_allocator":0}}' "$T/alloc.json"
    ok "alloc: the allocation after add.out is at add's OPERATOR_CALL end" \
        has '{"name":"allocated bytes","ph":"C","ts":12.645,"pid":2,"args":{"temp_allocator":320,"scratch":65536}}' "$T/alloc.json"
    ok "alloc: per process, the sums go on across runs" \
        has '"ts":45.635,"pid":2,"args":{"temp_allocator":1728,"scratch":196608}}' "$T/alloc.json"
else
    skip "$ETD/small.etdp absent (the shared corpus): golden traces, units, errors, options and allocations on the corpus not tested"
fi

# --- fixtures (always) --------------------------------------------------
FIX="$ET_BUILD/fixtures"
export_ok delegates --etdump_path "$FIX/delegates.etdp"
ok "synthetic starts: the three duration-only events of each run" \
    test "$(count '"synthetic_start":true' "$T/delegates.json")" -eq 6
ok "synthetic starts: laid out from the DELEGATE_CALL's start, one after another" \
    sh -c "grep -q '\"name\":\"conv_node (us)\",\"cat\":\"delegate\",\"ph\":\"X\",\"ts\":0.05,\"dur\":0.15,' '$T/delegates.json' &&
           grep -q '\"name\":\"conv_node\",\"cat\":\"delegate\",\"ph\":\"X\",\"ts\":0.2,\"dur\":3,' '$T/delegates.json'"
ok "synthetic starts: cut at the DELEGATE_CALL's end, the logged duration kept" \
    has '"name":"conv_node (bytes)","cat":"delegate","ph":"X","ts":3.2,"dur":0.3,"pid":1,"tid":1013,"args":{"run":0,"synthetic_start":true,"logged_dur_us":4.096,' "$T/delegates.json"
ok "synthetic starts: their own track" \
    has '{"name":"thread_name","ph":"M","pid":1,"tid":1013,"args":{"name":"delegate (synthetic starts)"}}' "$T/delegates.json"

export_ok alloc_small --etdump_path "$FIX/alloc_small.etdp"
ok "alloc_small: counters per block, an allocator id the run does not have as its own series" \
    sh -c "grep -q '{\"name\":\"allocated bytes\",\"ph\":\"C\",\"ts\":0,\"pid\":1,\"args\":{\"method_allocator\":4096,\"temp\":0}}' '$T/alloc_small.json' &&
           grep -q '\"ts\":0.29,\"pid\":2,\"args\":{\"scratch\":768,\"allocator 7\":8}}' '$T/alloc_small.json'"

export_ok etrecord --etdump_path "$FIX/sample.etdp" --etrecord_path "$FIX/sample.etrecord"
ok "ETRecord: op types in args" \
    has '"name":"native_call_convolution.out",.*"op_types":\["aten.convolution.default"\]' "$T/etrecord.json"
ok "ETRecord: the module of the first node" \
    has '"name":"native_call_addmm.out",.*"module":"L\[.self.\].fc"' "$T/etrecord.json"
ok "ETRecord: debug handles of a delegate call" \
    has '"name":"DELEGATE_CALL",.*"debug_handles":\[' "$T/etrecord.json"
ok "ETRecord: the delegate backend names the track" \
    has '"args":{"name":"delegate: XnnpackBackend"}' "$T/etrecord.json"

# the Lua method
"$ETINSPECT" -e "
  local et = require('etinspect')
  local i = et.Inspector{etdump_path = '$FIX/sample.etdp'}
  i:write_trace('$T/lua.json', {runs = {1, 3}, window = {0, 1e6}})
  local ok, err = pcall(i.write_trace, i, '$T/lua2.json', {runs = '1-'})
  io.open('$T/lua.err', 'w'):write(tostring(err), '\n'):close()
  local c = et.Inspector{etdump_path = '$FIX/sample.etdp', source_time_scale = 'cycles', target_time_scale = 'cycles'}
  c:write_trace('$T/luac.json', {cycles_hz = 1e9})" >"$T/out" 2>"$T/err"
ok "Lua: write_trace runs" test -s "$T/lua.json"
ok "Lua: trace_check" "$CHECK" -q "$T/lua.json" "$T/luac.json"
ok "Lua: runs as a sequence of RunData indices" \
    test "$(grep -o '"run":[0-9]*' "$T/lua.json" | sort -u | tr '\n' ' ')" = '"run":1 "run":3 '
ok "Lua: a malformed selection is an error" has "runs: expected a list like 0-3,7, found '1-'" "$T/lua.err"

# parsed delegate metadata in args: the Inspector's parser, through Lua
"$ETINSPECT" -e "
  local i = require('etinspect').Inspector{etdump_path = '$ET_BUILD/fixtures/delegates.etdp',
                                           delegate_metadata_parser = 'json'}
  i:write_trace('$T/md.json')" >"$T/md.out" 2>"$T/md.err"
ok "Lua: a delegated event carries its parsed metadata" \
    grep -q '"delegate_metadata":{"operatorName": "conv", "estimatedCost": 0.25' "$T/md.json"
ok "Lua: a parser failure keeps the trace and names the event" \
    grep -q "delegate metadata parser (json) failed on event '5'" "$T/md.err"

done_testing
