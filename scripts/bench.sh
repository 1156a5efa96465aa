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
