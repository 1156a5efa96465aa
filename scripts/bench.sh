#!/bin/sh
# make bench: the rows of issue 15's table (docs/performance.md), each as
# a ratio to the physical floor measured in the same run - tests/tools/floor
# maps large.etdp (MAP_POPULATE) and copies it once - with the command's
# peak RSS; medians of BENCH_RUNS (default 7, at least 5) pairs, floor and
# command in turn.  Then the scaling over the corpus dumps, the legacy
# profiler dump and a 20,000-node ETRecord.
# Needs ETINSPECT, BENCHRUN, FLOOR and ET_SHARED (set by the Makefile).
set -eu
corpus="$ET_SHARED/corpus/etdump"
runs="${BENCH_RUNS:-7}"
[ "$runs" -ge 5 ] || runs=5
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$corpus" ]; then
    echo "bench: $corpus not found; nothing to measure"
    exit 0
fi
echo "etinspect $("$ETINSPECT" --version | cut -d' ' -f2) on $(uname -m), $(nproc) cores," \
    "ETINSPECT_THREADS=${ETINSPECT_THREADS:-default}; $runs pairs each"

L="$corpus/large.etdp"
if [ -f "$L" ]; then
    echo "large.etdp ($(wc -c < "$L") bytes), ratio to the floor (map + copy the file once):"
    row() { # label, then the command
        printf '  %-44s ' "$1"
        shift
        "$BENCHRUN" "$runs" --vs "$FLOOR" "$L" "$@"
    }
    row "load + aggregate + TSV" "$ETINSPECT" --etdump_path "$L" --quiet --tsv_path "$out/l.tsv"
    row "--json" "$ETINSPECT" --etdump_path "$L" --quiet --json "$out/l.json"
    row "--trace_path" "$ETINSPECT" --etdump_path "$L" --quiet --trace_path "$out/l.trace.json"
    row "--sqlite_path (new database)" sh -c \
        "rm -f '$out/l.db' && exec '$ETINSPECT' --etdump_path '$L' --quiet --sqlite_path '$out/l.db'"
    row "--html_path" "$ETINSPECT" --etdump_path "$L" --quiet --html_path "$out/l.html"
    row "Lua: build + iterate every raw event" "$ETINSPECT" "$src/scripts/bench/iterate.lua" "$L"
    row "Lua: the same through insp:run_columns" "$ETINSPECT" "$src/scripts/bench/columns.lua" "$L"
    printf '  outputs: TSV %d, JSON %d, trace %d, SQLite %d bytes\n' "$(wc -c < "$out/l.tsv")" \
        "$(wc -c < "$out/l.json")" "$(wc -c < "$out/l.trace.json")" "$(wc -c < "$out/l.db")"
    echo "  reference Inspector: not runnable here (no PyTorch/ExecuTorch); documented: 57.7 s" \
        "on large.etdp (docs/performance.md)"
    rm -f "$out"/l.*
fi

# scaling: load + aggregate + TSV per event, for each corpus size
echo "scaling (load + aggregate + TSV):"
for name in small medium large; do
    f="$corpus/$name.etdp"
    [ -f "$f" ] || continue
    printf '  %-8s %9d bytes  ' "$name" "$(wc -c < "$f")"
    "$BENCHRUN" "$runs" "$ETINSPECT" --etdump_path "$f" --quiet --tsv_path "$out/$name.tsv"
done

# Legacy profiler dump: 500 iterations of a block at the runtime's default
# maximum counts (1024 events, 32 allocators, 1024 allocations; 33 MB),
# written by the tests' writer (tests/lua/profwriter.lua).
if "$ETINSPECT" -e "package.path = '$src/tests/lua/?.lua;' .. package.path
    local one = require('legacy_cases').bytes('full')
    local f = assert(io.open('$out/legacy.bin', 'wb'))
    for _ = 1, 500 do f:write(one) end
    f:close()"; then
    printf '%-8s %9d bytes  legacy, load only     ' legacy "$(wc -c < "$out/legacy.bin")"
    "$BENCHRUN" 5 "$ETINSPECT" --profile_results_path "$out/legacy.bin" --quiet
    printf '%-8s %9d bytes  legacy, print tables  ' legacy "$(wc -c < "$out/legacy.bin")"
    "$BENCHRUN" 5 sh -c "'$ETINSPECT' --profile_results_path '$out/legacy.bin' > '$out/legacy.txt'"
fi

# ETRecord: load and link an ETRecord whose edge program has 20,000 nodes
# (10,000 debug handles, 9,950 operator instructions and one delegate call
# of 50), with a matching ETDump of 3 runs; written by bench/gen_etrecord.lua,
# flatc and tests/tools/mkzip.  Skipped, with the reason, when a tool is
# missing or etinspect fails on it.
nodes=20000
mkzip="$(dirname "$BENCHRUN")/mkzip"
flatc="${FLATC:-flatc}"
big="$out/big"
gen_big() {   # sets $why when a step fails
    tail1() { t=$(tail -n 1 "$big.log"); echo "${t:-no message}"; }
    mkdir -p "$big" || { why="mkdir $big"; return 1; }
    "$ETINSPECT" "$src/scripts/bench/gen_etrecord.lua" "$big" "$nodes" > "$big.log" 2>&1 ||
        { why="gen_etrecord.lua failed: $(tail1)"; return 1; }
    "$flatc" --binary --size-prefixed -o "$big" "$src/schema/etdump.fbs" "$big/etdump.json" \
        > "$big.log" 2>&1 || { why="$flatc failed: $(tail1)"; return 1; }
    "$mkzip" "$big/etrecord.bin" ETRECORD_V0=@ \
        "edge_dialect_exported_program/forward=$big/edge.json" \
        "debug_handle_map=$big/debug_handle_map.json" \
        "delegate_map=$big/delegate_map.json" \
        "instruction_id_to_num_outs_map=$big/num_outs.json" \
        'export_graph_id=@0' > "$big.log" 2>&1 || { why="mkzip failed: $(tail1)"; return 1; }
}
why=
if [ ! -x "$mkzip" ]; then
    echo "etrecord skipped: $mkzip not built (make build/tools/mkzip)"
elif ! command -v "$flatc" > /dev/null 2>&1; then
    echo "etrecord skipped: flatc not found ($flatc; set FLATC)"
elif ! gen_big; then
    echo "etrecord skipped: could not write the input: $why"
else
    rc=0
    "$ETINSPECT" --etdump_path "$big/etdump.etdp" --etrecord_path "$big/etrecord.bin" --quiet \
        > "$big.log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "etrecord skipped: etinspect --etrecord_path exits $rc: $(head -n 1 "$big.log")"
    else
        printf '%-8s %9d nodes  %-20s' etrecord "$nodes" 'load + link'
        "$BENCHRUN" 5 "$ETINSPECT" --etdump_path "$big/etdump.etdp" \
            --etrecord_path "$big/etrecord.bin" --quiet
    fi
fi
