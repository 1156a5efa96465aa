#!/bin/sh
# make bench: the rows of issue 15's table (docs/performance.md), each as
# a ratio to the physical floor measured in the same run - tests/tools/floor
# maps large.etdp (MAP_POPULATE) and copies it once - with the command's
# peak RSS; medians of BENCH_RUNS (default 7, at least 5) pairs, floor and
# command in turn.  Then the scaling over the corpus dumps; the scaling
# curve over synthetic dumps (tests/tools/gen_etdump: 10k to 1M events,
# a wide and a narrow dump; BENCH_CURVE=long adds 3M, 10M and 30M events,
# written to a 1.8 GB file in TMPDIR, and a 10M-event narrow dump: a few
# minutes more); the legacy profiler dump and a 20,000-node ETRecord.
# With BENCH_REFERENCE (a command reading the ETDump $1 and writing its
# TSV to $2), the reference Inspector's time over etinspect's on
# large.etdp, BENCH_REFERENCE_RUNS (default 5) pairs.
# Then the Frame's rows (scripts/bench/frame.sh) and the Parquet rows
# (scripts/bench/parquet.sh).
# Needs ETINSPECT, BENCHRUN, FLOOR, GEN_ETDUMP, PEAKRSS and ET_SHARED (set
# by the Makefile).
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
    row() { # label, the output written (removed before each run, untimed; "" for none), then the command
        printf '  %-44s ' "$1"
        fresh=$2
        shift 2
        last=$("$BENCHRUN" "$runs" ${fresh:+--fresh "$fresh"} --vs "$FLOOR" "$L" "$@") || exit 1
        echo "$last"
    }
    row "load + aggregate + TSV" "$out/l.tsv" "$ETINSPECT" --etdump_path "$L" --quiet --tsv_path "$out/l.tsv"
    tsv_median=$(echo "$last" | sed -n 's/^median \([0-9.]*\) s .*/\1/p')
    row "--json" "$out/l.json" "$ETINSPECT" --etdump_path "$L" --quiet --json "$out/l.json"
    row "--trace_path" "$out/l.trace.json" "$ETINSPECT" --etdump_path "$L" --quiet --trace_path "$out/l.trace.json"
    # the Perfetto trace against the JSON trace of the same dump, each run
    # writing a new file (the last one's removed first, in both): goals
    # (issue 27) at most a third of the JSON's bytes, a time ratio <= 1
    printf 'rm -f "%s"\nexec "%s" --etdump_path "%s" --quiet --trace_path "%s"\n' \
        "$out/l.trace.json" "$ETINSPECT" "$L" "$out/l.trace.json" >"$out/json.sh"
    printf 'rm -f "%s"\nexec "%s" --etdump_path "%s" --quiet --trace_path "%s"\n' \
        "$out/l.pftrace" "$ETINSPECT" "$L" "$out/l.pftrace" >"$out/pf.sh"
    printf '  %-44s ' "Perfetto trace / JSON trace (time)"
    line=$("$BENCHRUN" "$runs" --vs sh "$out/json.sh" sh "$out/pf.sh") || exit 1
    echo "$line" | sed 's/floor/JSON/'
    pfb=$(wc -c < "$out/l.pftrace")
    jsb=$(wc -c < "$out/l.trace.json")
    printf '  %-44s %s\n' "Perfetto trace / JSON trace (bytes)" \
        "$pfb / $jsb = $(echo "$pfb $jsb" | awk '{printf "%.3f", $1 / $2}') (goal <= 0.333)"
    row "--sqlite_path (new database)" "$out/l.db" "$ETINSPECT" --etdump_path "$L" --quiet --sqlite_path "$out/l.db"
    row "--html_path" "$out/l.html" "$ETINSPECT" --etdump_path "$L" --quiet --html_path "$out/l.html"
    row "Lua: build + iterate every raw event" "" "$ETINSPECT" "$src/scripts/bench/iterate.lua" "$L"
    row "Lua: the same through insp:run_columns" "" "$ETINSPECT" "$src/scripts/bench/columns.lua" "$L"
    row "Lua: open, then the blocks' first view" "" "$ETINSPECT" "$src/scripts/bench/blocks.lua" "$L"
    # for comparison: the trace replacing the last run's (ext4 frees its
    # 142 MB of blocks inside the rename that replaces it)
    printf '  %-44s ' "--trace_path (replacing the last output)"
    "$BENCHRUN" "$runs" --vs "$FLOOR" "$L" "$ETINSPECT" --etdump_path "$L" --quiet \
        --trace_path "$out/l.trace.json"
    printf '  outputs: TSV %d, JSON %d, trace %d, SQLite %d bytes\n' "$(wc -c < "$out/l.tsv")" \
        "$(wc -c < "$out/l.json")" "$(wc -c < "$out/l.trace.json")" "$(wc -c < "$out/l.db")"
    if [ -n "${BENCH_REFERENCE:-}" ]; then
        # the reference Inspector in the same run: BENCH_REFERENCE is a
        # command (run by sh) that reads the ETDump $1 and writes its TSV
        # to $2, e.g. 'python3 run_ref.py "$1" "$2"' (docs/performance.md);
        # etinspect's TSV run right after each reference run is the pair
        # (it runs slower then: the caches hold the 1.5 GB Python process's
        # data), and etinspect's own TSV row above is the other yardstick;
        # both TSVs are compared
        rruns=${BENCH_REFERENCE_RUNS:-5}
        printf '  %-44s ' "reference Inspector / etinspect (TSV)"
        printf 'set -- "%s" "%s"\n%s\n' "$L" "$out/ref.tsv" "$BENCH_REFERENCE" >"$out/ref.sh"
        line=$("$BENCHRUN" "$rruns" --fresh "$out/l.tsv" --vs sh "$out/ref.sh" \
            "$ETINSPECT" --etdump_path "$L" --quiet --tsv_path "$out/l.tsv" 2>&1) || line="failed: $line"
        et=$(echo "$line" | sed -n 's/^median \([0-9.]*\) s  floor.*/\1/p')
        ref=$(echo "$line" | sed -n 's/.*floor \([0-9.]*\) s .*/\1/p')
        if [ -n "$et" ] && [ -n "$ref" ]; then
            same=differ
            cmp -s "$out/ref.tsv" "$out/l.tsv" && same=identical
            echo "$ref s / $et s = $(echo "$ref $et" | awk '{printf "%.0f", $1 / $2}')x" \
                "(medians of $rruns pairs; TSVs $same)"
            printf '  %-44s %s\n' "reference / etinspect's TSV row above" \
                "$ref s / $tsv_median s = $(echo "$ref $tsv_median" | awk '{printf "%.0f", $1 / $2}')x"
        else
            echo "$line"
        fi
    else
        echo "  reference Inspector: set BENCH_REFERENCE to measure it in the same run" \
            "(docs/performance.md)"
    fi
    rm -f "$out"/l.* "$out"/ref.*
    # issue 25: appending to a large database costs what the dump costs
    sh "$src/scripts/bench/sqlite_append.sh" "$ETINSPECT" "$BENCHRUN" "$corpus" "$out" "$runs"
    # issue 28: the export of many dumps holds one at a time
    sh "$src/scripts/bench/sqlite_many.sh" "$ETINSPECT" "$PEAKRSS" "$corpus" "$out"
fi

# scaling: load + aggregate + TSV per event, for each corpus size
echo "scaling (load + aggregate + TSV):"
for name in small medium large; do
    f="$corpus/$name.etdp"
    [ -f "$f" ] || continue
    printf '  %-8s %9d bytes  ' "$name" "$(wc -c < "$f")"
    "$BENCHRUN" "$runs" "$ETINSPECT" --etdump_path "$f" --quiet --tsv_path "$out/$name.tsv"
done

# The scaling curve: synthetic dumps of one shape (tests/tools/gen_etdump:
# every run repeats the previous one, one block), load + aggregate + TSV,
# each against the floor of its own file, with time and peak RSS per event.
curve() { # label, events per run, runs[, pairs]
    if ! "$GEN_ETDUMP" "$out/g.etdp" "$2" "$3" 2>"$out/g.err"; then
        printf '  %-34s not generated: %s\n' "$1" "$(head -n 1 "$out/g.err")"
        return
    fi
    printf '  %-34s %9d bytes  ' "$1" "$(wc -c < "$out/g.etdp")"
    "$BENCHRUN" "${4:-$runs}" --per $(($2 * $3)) --vs "$FLOOR" "$out/g.etdp" \
        "$ETINSPECT" --etdump_path "$out/g.etdp" --quiet --tsv_path "$out/g.tsv"
    rm -f "$out/g.etdp" "$out/g.tsv"
}
echo "scaling curve (synthetic dumps; load + aggregate + TSV, ratio to the floor of the same file):"
curve "10,000 events (2,000 x 5 runs)" 2000 5
curve "100,000 events (2,000 x 50 runs)" 2000 50
curve "1,000,000 events (2,000 x 500 runs)" 2000 500
if [ "${BENCH_CURVE:-}" = long ]; then
    curve "3,000,000 events (2,000 x 1,500 runs)" 2000 1500
    curve "10,000,000 events (2,000 x 5,000 runs)" 2000 5000 5
    curve "30,000,000 events (2,000 x 15,000 runs)" 2000 15000 3
fi
curve "wide: 450,000 events (50,000 x 9 runs)" 50000 9
curve "narrow: 1,000,000 events (4 x 250,000 runs)" 4 250000
if [ "${BENCH_CURVE:-}" = long ]; then
    curve "narrow: 10,000,000 events (4 x 2,500,000 runs)" 4 2500000 5
else
    echo "  (BENCH_CURVE=long: 3M, 10M and 30M events, and a narrow 10M)"
fi

# Memory per event block (issue 25): 100,000 one-event runs that differ
# only by instruction id, so every run is a block of its own (gen_etdump
# --distinct, about 9 MB); a block should cost what its events cost: the
# goal is a peak RSS of at most 64 MiB, printed next to the measured one
# with PASS or FAIL.
if "$GEN_ETDUMP" --distinct "$out/blocks.etdp" 1 100000 2>"$out/g.err"; then
    printf '  %-34s %9d bytes  ' "100,000 one-event blocks" "$(wc -c < "$out/blocks.etdp")"
    line=$("$BENCHRUN" 5 "$ETINSPECT" --etdump_path "$out/blocks.etdp" --quiet \
        --tsv_path "$out/blocks.tsv")
    peak=$(printf '%s\n' "$line" | sed -n 's/.*peak_rss \([0-9.]*\) MiB.*/\1/p')
    verdict=$(awk -v p="${peak:-}" 'BEGIN { print (p != "" && p + 0 <= 64) ? "PASS" : "FAIL" }')
    echo "$line  (goal: peak_rss <= 64 MiB: $verdict)"
    rm -f "$out/blocks.etdp" "$out/blocks.tsv"
else
    printf '  %-34s not generated: %s\n' "100,000 one-event blocks" "$(head -n 1 "$out/g.err")"
fi

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

# The Frame (issue 24): the verbs side by side with pandas, the raw-event
# frame against the floor, the fleet pipeline against the command line's
# TSV (scripts/bench/frame.sh; make bench-frame runs these rows alone).
sh "$src/scripts/bench/frame.sh"

# Parquet (issue 28): --parquet_path against the floor, and a fleet of
# copies against the command line's TSV (scripts/bench/parquet.sh; make
# bench-parquet runs these rows alone).
sh "$src/scripts/bench/parquet.sh"

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
