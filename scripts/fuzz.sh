#!/bin/sh
# fuzz.sh - run one libFuzzer target on a seeded corpus.
#
# Usage: sh scripts/fuzz.sh BINARY SECONDS        (make fuzz FUZZ_SECONDS=N)
#
# The working corpus is BINARY.corpus/ beside the binary (under build/, kept
# between runs so that coverage accumulates).  It is seeded each time with
# tests/malformed/*.etdp, build/fixtures/*.etdp and the shared corpus files
# under 100 KiB ($ET_SHARED or $SHARED, default ../shared; skipped when
# absent); fuzz_legacy with tests/legacy/*.bin instead; fuzz_etrecord
# with tests/etrecord/ (*.zip, *.seed) and the shared corpus's ETRecords
# (*etrecord*) instead; fuzz_graph with tests/graph/*.json; fuzz_npy with
# tests/npy/*.npy; fuzz_bundled with tests/bundled/*.bpte and the shared
# corpus's *.bpte.  Crash, leak,
# timeout and out-of-memory inputs are written to BINARY.artifacts/.
# Prints the number of executions at the end; exits 1 when the run left a
# new artifact or the fuzzer failed, 2 on usage errors.
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh scripts/fuzz.sh BINARY [SECONDS]" >&2
    exit 2
fi
case $1 in
    /*) bin=$1 ;;
    *) bin=$(pwd)/$1 ;;
esac
secs=${2:-600}
[ -x "$bin" ] || { echo "fuzz.sh: $bin: not an executable (make $1)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
shared=${ET_SHARED:-${SHARED:-$root/../shared}}
name=$(basename "$bin")
work=$bin.corpus
art=$bin.artifacts
log=$bin.log
mkdir -p "$work" "$art" || exit 2

# seed: copy_seeds PREFIX FILE...: copy existing files into the corpus
copy_seeds() {
    prefix=$1
    shift
    for f in "$@"; do
        [ -f "$f" ] && cp -f "$f" "$work/seed-$prefix-$(basename "$f")"
    done
    return 0
}
case $name in
fuzz_legacy)
    # legacy profiler dumps (tests/legacy/, see tests/legacy/README.md)
    copy_seeds legacy tests/legacy/*.bin
    ;;
fuzz_etrecord)
    # ETRecords and wrapped JSON entries (tests/etrecord/README.md)
    copy_seeds etrecord tests/etrecord/*.zip tests/etrecord/*.seed
    ;;
fuzz_graph)
    # exported-program JSON (tests/graph/README.md)
    copy_seeds graph tests/graph/*.json
    ;;
fuzz_npy)
    # NumPy .npy arrays (tests/npy/README.md)
    copy_seeds npy tests/npy/*.npy
    ;;
fuzz_bundled)
    # BundledPrograms, sound and malformed (tests/bundled/README.md)
    copy_seeds bundled tests/bundled/*.bpte
    ;;
*)
    copy_seeds malformed tests/malformed/*.etdp
    copy_seeds fixture build/fixtures/*.etdp
    ;;
esac
if [ "$name" = fuzz_legacy ] || [ "$name" = fuzz_graph ] || [ "$name" = fuzz_npy ]; then
    : # no such inputs in the shared corpus
elif [ -d "$shared/corpus/etdump" ]; then
    # -size -100k: under 100 KiB (find counts in 1 KiB units)
    pattern='*.etdp'
    [ "$name" = fuzz_etrecord ] && pattern='*etrecord*'
    [ "$name" = fuzz_bundled ] && pattern='*.bpte'
    find "$shared/corpus/etdump" -type f -name "$pattern" -size -100k >"$work.seedlist"
    while IFS= read -r f; do copy_seeds shared "$f"; done <"$work.seedlist"
    rm -f "$work.seedlist"
else
    echo "fuzz.sh: $shared/corpus not found; seeding without the shared corpus" >&2
fi
echo "fuzz.sh: $name for $secs s, corpus $work ($(ls "$work" | wc -l) inputs)"

stamp=$bin.stamp
: >"$stamp"
# the fuzzer's status goes through a file: the pipeline's status is tee's
{
    "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$art/" "$work" 2>&1
    echo $? >"$bin.rc"
} | tee "$log"
rc=$(cat "$bin.rc")
rm -f "$bin.rc"

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
[ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
new=$(find "$art" -type f -newer "$stamp" | sort)
rm -f "$stamp"
echo "fuzz.sh: $name: ${execs:-unknown} executions in $secs s (log: $log)"
if [ -n "$new" ]; then
    echo "fuzz.sh: $name: FAILED: new artifacts:" >&2
    echo "$new" | sed 's/^/  /' >&2
    exit 1
fi
if [ "$rc" -ne 0 ]; then
    echo "fuzz.sh: $name: FAILED: the fuzzer exited with status $rc" >&2
    exit 1
fi
exit 0
