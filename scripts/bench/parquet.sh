#!/bin/sh
# The Parquet rows of make bench (issue 28, "Speed and memory"), run by
# scripts/bench.sh or alone (make bench-parquet).  Each row prints the
# measured ratio, the target and PASS or FAIL:
#  - --parquet_path for large.etdp (the whole process: read, model, five
#    files written, synced and renamed) over the floor of reading the dump
#    (tests/tools/floor: map with every page read, copy once), wall time,
#    the median of BENCH_RUNS pairs;
#  - BENCH_MANY_COPIES (default 200) copies of medium.etdp in a directory,
#    --parquet_path over the command line's TSV of the same directory:
#    wall time (median of the pairs' ratios), and the peak RSS of that
#    export over the peak RSS of one copy's export (the largest of
#    BENCH_RUNS runs each): memory follows one dump, not their number.
# Every run writes a new dataset: the runs go through sh, which removes
# the last one's directory first (a millisecond, timed on both sides of the
# fleet pair).  Needs ETINSPECT, BENCHRUN, FLOOR and ET_SHARED (set by the
# Makefile).
set -eu
corpus="$ET_SHARED/corpus/etdump"
runs="${BENCH_RUNS:-7}"
[ "$runs" -ge 5 ] || runs=5
copies="${BENCH_MANY_COPIES:-200}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ ! -d "$corpus" ]; then
    echo "bench (Parquet): $corpus not found; nothing to measure"
    exit 0
fi

# verdict RATIO TARGET: "PASS" when RATIO <= TARGET
verdict() { echo "$1 $2" | awk '{ print ($1 <= $2) ? "PASS" : "FAIL" }'; }
# row LABEL RATIO TARGET DETAIL
row() {
    printf '  %-44s %6.2fx  target <= %sx  %s  (%s)\n' "$1" "$2" "$3" "$(verdict "$2" "$3")" "$4"
}
ratio_of() { echo "$1" | sed -n 's/.* ratio \([0-9.]*\)x .*/\1/p'; }
rss_of() { echo "$1" | sed -n 's/.*peak_rss \([0-9.]*\) MiB.*/\1/p'; }
# export.sh DUMPS DIR: remove DIR, then --parquet_path DIR
export_script() {
    printf 'rm -rf "%s"\nexec "%s" --etdump_path "%s" --quiet --parquet_path "%s"\n' "$3" \
        "$ETINSPECT" "$2" "$3" >"$1"
}

L="$corpus/large.etdp"
if [ -f "$L" ]; then
    echo "Parquet: large.etdp ($(wc -c <"$L") bytes), over the floor (map + copy the file once):"
    export_script "$out/large.sh" "$L" "$out/large.pq"
    last=$("$BENCHRUN" "$runs" --vs "$FLOOR" "$L" sh "$out/large.sh")
    row "--parquet_path" "$(ratio_of "$last")" 3 "$last; $(du -sk "$out/large.pq" | cut -f 1) KiB"
    rm -rf "$out/large.pq"
fi

M="$corpus/medium.etdp"
if [ -f "$M" ]; then
    mkdir "$out/many"
    i=0
    while [ "$i" -lt "$copies" ]; do
        cp "$M" "$out/many/m$i.etdp"
        i=$((i + 1))
    done
    # the copies on disk before anything is timed: their writeback (1.3 GB)
    # would otherwise land in whichever run syncs first - the Parquet
    # export's batch commits more often than the TSV's one
    sync
    printf 'rm -f "%s"\nexec "%s" --etdump_path "%s" --quiet --tsv_path "%s"\n' "$out/many.tsv" \
        "$ETINSPECT" "$out/many" "$out/many.tsv" >"$out/cli.sh"
    export_script "$out/many.sh" "$out/many" "$out/many.pq"
    export_script "$out/one.sh" "$M" "$out/one.pq"
    echo "Parquet: $copies copies of medium.etdp, --parquet_path over the command line's TSV of the directory:"
    last=$("$BENCHRUN" "$runs" --vs sh "$out/cli.sh" sh "$out/many.sh")
    row "wall time" "$(ratio_of "$last")" 1.5 "$last"
    one=$("$BENCHRUN" "$runs" sh "$out/one.sh")
    rss=$(rss_of "$last") rss1=$(rss_of "$one")
    if [ -n "$rss" ] && [ -n "$rss1" ]; then
        row "peak RSS over one copy's export" "$(echo "$rss $rss1" | awk '{ printf "%.4f", $1 / $2 }')" 1.5 \
            "$rss MiB / $rss1 MiB"
    else
        echo "  peak RSS not measured (\"$rss\" MiB, one copy \"$rss1\" MiB)"
    fi
fi
