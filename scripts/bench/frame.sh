#!/bin/sh
# The Frame rows of make bench (issue 24, "Speed and memory"), run by
# scripts/bench.sh or alone (make bench-frame).  Each row prints the
# measured ratio, the target and PASS or FAIL:
#  - on large.etdp's raw profile events (insp:raw_frame(), profile events),
#    the verbs side by side with pandas on the same rows (written by
#    etinspect to TSV and read by pandas, untimed): each verb's median CPU
#    time over BENCH_FRAME_REPS (default 5) runs in its process
#    (scripts/bench/frame_verbs.lua, scripts/bench/frame_pandas.py), over
#    pandas' time; the two results' digests must agree.  Skipped, saying
#    so, when python3 cannot import pandas (python3-pandas:
#    scripts/install-deps.sh);
#  - building the raw-event frame (open + insp:raw_frame(), the whole
#    process: start-up, Lua state, open, blocks, columns, exit) over the
#    floor of reading the dump (tests/tools/floor, also a whole process:
#    map with every page read, copy once), wall time, the median of the
#    ratios of BENCH_RUNS pairs (at least 15 here);
#  - BENCH_MANY_COPIES (default 200) copies of medium.etdp in a directory,
#    open_many -> to_dataframe -> group_by -> sort as one process
#    (scripts/bench/many.lua) over the command line's TSV of the same
#    directory: wall time (median of the pairs' ratios) and peak RSS.
# Needs ETINSPECT, BENCHRUN, FLOOR, PEAKRSS and ET_SHARED (set by the
# Makefile); BENCH_PYTHON names the Python to use (default: python3 on
# PATH, else Debian's /usr/bin/python3 when only that one has pandas).
set -eu
corpus="$ET_SHARED/corpus/etdump"
runs="${BENCH_RUNS:-7}"
[ "$runs" -ge 5 ] || runs=5
reps="${BENCH_FRAME_REPS:-5}"
copies="${BENCH_MANY_COPIES:-200}"
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ ! -d "$corpus" ]; then
    echo "bench (Frame): $corpus not found; nothing to measure"
    exit 0
fi

# verdict RATIO TARGET: "PASS" when RATIO <= TARGET
verdict() { echo "$1 $2" | awk '{ print ($1 <= $2) ? "PASS" : "FAIL" }'; }
# row LABEL RATIO TARGET DETAIL
row() {
    printf '  %-44s %6.2fx  target <= %sx  %s  (%s)\n' "$1" "$2" "$3" "$(verdict "$2" "$3")" "$4"
}

py=${BENCH_PYTHON:-python3}
if ! "$py" -c 'import pandas' 2>/dev/null && [ -z "${BENCH_PYTHON:-}" ] &&
    /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
    py=/usr/bin/python3
fi

L="$corpus/large.etdp"
if [ -f "$L" ]; then
    echo "Frame: large.etdp's raw profile events, each verb's CPU time over pandas' (medians of $reps):"
    "$ETINSPECT" "$src/scripts/bench/frame_verbs.lua" "$L" "$out" "$reps" > "$out/et.txt"
    if ! "$py" -c 'import pandas' 2>/dev/null; then
        echo "  pandas rows skipped: $py cannot import pandas (python3-pandas; scripts/install-deps.sh)"
    else
        "$py" "$src/scripts/bench/frame_pandas.py" "$out" "$reps" > "$out/pd.txt"
        pdv=$("$py" -c 'import pandas; print(pandas.__version__)')
        for spec in "groupby|group_by + agg (count, mean, median)|0.5" \
                    "sort|sort + head|0.5" \
                    "join|left join with a 12-row frame|1" \
                    "query|query filter|1"; do
            verb=${spec%%|*} rest=${spec#*|}
            label=${rest%%|*} target=${rest#*|}
            et=$(awk -v v="$verb" '$1 == v { print }' "$out/et.txt")
            pd=$(awk -v v="$verb" '$1 == v { print }' "$out/pd.txt")
            case $et in
            *pending*) printf '  %-44s pending: frame:query is not built yet (pandas %s s)\n' \
                "$label" "$(echo "$pd" | cut -f2 -d' ')"; continue ;;
            esac
            ets=$(echo "$et" | awk '{ print $2 }') pds=$(echo "$pd" | awk '{ print $2 }')
            if [ -z "$ets" ] || [ -z "$pds" ]; then
                printf '  %-44s not measured: etinspect "%s", pandas "%s"\n' "$label" "$et" "$pd"
                continue
            fi
            same="results agree"
            [ "$(echo "$et" | awk '{ print $3 }')" = "$(echo "$pd" | awk '{ print $3 }')" ] ||
                same="RESULTS DIFFER: $(echo "$et" | awk '{ print $3 }') vs $(echo "$pd" | awk '{ print $3 }')"
            ratio=$(echo "$ets $pds" | awk '{ printf "%.4f", ($2 > 0) ? $1 / $2 : 999 }')
            line=$(row "$label" "$ratio" "$target" "$ets s / pandas $pdv $pds s; $same")
            case $same in RESULTS*) line=$(echo "$line" | sed 's/ PASS / FAIL /') ;; esac
            echo "$line"
        done
    fi
    # at least 15 pairs: on a loaded machine 7 pairs of this short row
    # spread by a third of the ratio (docs/performance.md)
    rf_runs=$runs
    [ "$rf_runs" -ge 15 ] || rf_runs=15
    last=$("$BENCHRUN" "$rf_runs" --vs "$FLOOR" "$L" "$ETINSPECT" "$src/scripts/bench/rawframe.lua" "$L")
    ratio=$(echo "$last" | sed -n 's/.* ratio \([0-9.]*\)x .*/\1/p')
    row "raw-event frame built (open + raw_frame)" "${ratio:-999}" 2 "vs the floor: $last"
fi

M="$corpus/medium.etdp"
if [ -f "$M" ]; then
    mkdir "$out/many"
    i=0
    while [ "$i" -lt "$copies" ]; do
        cp "$M" "$out/many/m$i.etdp"
        i=$((i + 1))
    done
    printf 'rm -f "%s"\nexec "%s" --etdump_path "%s" --quiet --tsv_path "%s"\n' "$out/many.tsv" \
        "$ETINSPECT" "$out/many" "$out/many.tsv" > "$out/cli.sh"
    echo "Frame: $copies copies of medium.etdp, open_many -> to_dataframe -> group_by -> sort" \
        "(one process) over the command line's TSV of the directory:"
    last=$("$BENCHRUN" "$runs" --vs sh "$out/cli.sh" "$ETINSPECT" "$src/scripts/bench/many.lua" "$out/many")
    ratio=$(echo "$last" | sed -n 's/.* ratio \([0-9.]*\)x .*/\1/p')
    row "wall time" "${ratio:-999}" 1.5 "$last"
    rss=$(echo "$last" | sed -n 's/.*peak_rss \([0-9.]*\) MiB.*/\1/p')
    cli_kb=$("$PEAKRSS" sh "$out/cli.sh" 2>&1 >/dev/null | sed -n 's/^peak_rss_kb \([0-9]*\)$/\1/p')
    if [ -n "$rss" ] && [ -n "$cli_kb" ]; then
        ratio=$(echo "$rss $cli_kb" | awk '{ printf "%.4f", $1 * 1024 / $2 }')
        row "peak RSS" "$ratio" 2 \
            "$rss MiB / the command line's $(echo "$cli_kb" | awk '{ printf "%.1f", $1 / 1024 }') MiB"
    else
        echo "  peak RSS not measured (etinspect \"$rss\" MiB, the command line \"$cli_kb\" KiB)"
    fi
fi
