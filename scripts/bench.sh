#!/bin/sh
# make bench: time etinspect's main job (load + aggregate + TSV, no table
# printing) on the large corpus dumps, and report wall time and peak RSS.
# Needs ETINSPECT, BENCHRUN and ET_SHARED (set by the Makefile).
set -eu
corpus="$ET_SHARED/corpus/etdump"
runs="${BENCH_RUNS:-15}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ ! -d "$corpus" ]; then
    echo "bench: $corpus not found; nothing to measure"
    exit 0
fi
echo "etinspect $("$ETINSPECT" --version | cut -d' ' -f2) on $(uname -m), $(nproc) cores; $runs runs each"
for name in medium large; do
    f="$corpus/$name.etdp"
    [ -f "$f" ] || continue
    size=$(wc -c < "$f")
    printf '%-8s %9d bytes  load+aggregate+TSV  ' "$name" "$size"
    "$BENCHRUN" "$runs" "$ETINSPECT" --etdump_path "$f" --quiet --tsv_path "$out/$name.tsv"
    printf '%-8s %9d bytes  + JSON export        ' "$name" "$size"
    "$BENCHRUN" 3 "$ETINSPECT" --etdump_path "$f" --quiet --json "$out/$name.json"
    printf '%-8s %9d bytes  + trace export       ' "$name" "$size"
    "$BENCHRUN" 3 "$ETINSPECT" --etdump_path "$f" --quiet --trace_path "$out/$name.trace.json"
    printf '%-8s %9d bytes  + SQLite export      ' "$name" "$size"
    "$BENCHRUN" 3 sh -c "rm -f '$out/$name.db' && '$ETINSPECT' --etdump_path '$f' --quiet --sqlite_path '$out/$name.db'"
    printf '%-8s   outputs: trace %d bytes, SQLite %d bytes\n' "$name" \
        "$(wc -c < "$out/$name.trace.json")" "$(wc -c < "$out/$name.db")"
    rm -f "$out/$name.json" "$out/$name.trace.json" "$out/$name.db"
done

# From Lua: building the Inspector, then iterating every raw event and
# summing durations per name (CPU time of each part, best of 5).
if [ -f "$corpus/large.etdp" ]; then
    best_build=9; best_iter=9
    for i in 1 2 3 4 5; do
        line=$("$ETINSPECT" "$(dirname "$0")/bench/iterate.lua" "$corpus/large.etdp")
        b=$(echo "$line" | sed -n 's/^build \([0-9.]*\) s.*/\1/p')
        it=$(echo "$line" | sed -n 's/.*iterate \([0-9.]*\) s.*/\1/p')
        best_build=$(awk -v a="$b" -v b="$best_build" 'BEGIN { print (a < b) ? a : b }')
        best_iter=$(awk -v a="$it" -v b="$best_iter" 'BEGIN { print (a < b) ? a : b }')
    done
    printf 'large    from Lua: Inspector built in %s s (CPU), every raw event iterated in %s s (CPU), best of 5\n' \
        "$best_build" "$best_iter"
fi

# Legacy profiler dump: 500 iterations of a block at the runtime's default
# maximum counts (1024 events, 32 allocators, 1024 allocations; 33 MB),
# written by the tests' writer (tests/lua/profwriter.lua).
src=$(cd "$(dirname "$0")/.." && pwd)
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
