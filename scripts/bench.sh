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
