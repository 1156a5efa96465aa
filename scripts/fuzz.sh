#!/bin/sh
# fuzz.sh - run libFuzzer targets on seeded corpora.
#
# Usage:
#   sh scripts/fuzz.sh BINARY [SECONDS]              one target (default 600 s)
#   sh scripts/fuzz.sh --summary SECONDS BINARY...   each target in turn, then a
#                                                    table: executions, coverage
#   sh scripts/fuzz.sh --slice SECONDS BINARY        a short run for make check:
#                                                    one summary line, the log kept
# (make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS=...], make fuzz-check [FUZZ_SLICE=N])
#
# Per target NAME (the binary's file name), in tests/fuzz/:
#   NAME.seeds    where its seeds come from, one source a line ('#' comments):
#                 a glob relative to the checkout ("tests/legacy/*.bin"), or
#                 "shared:GLOB" relative to the shared corpus ($ET_SHARED or
#                 $SHARED, default ../shared; skipped, saying so, when absent).
#                 Seeds larger than FUZZ_MAX_SEED bytes (default 1048576) are
#                 trimmed to that size, not skipped.
#   NAME.dict     a libFuzzer dictionary (-dict=), when present
#   NAME.options  libFuzzer flags, one "flag=value" a line, e.g.
#                 rss_limit_mb=512 (the memory the product's budgets promise
#                 for the target's inputs), max_len=..., timeout=...,
#                 close_fd_mask=3.  Defaults: rss_limit_mb=1024, timeout=10.
#
# The working corpus is BINARY.corpus/ beside the binary (under build/, kept
# between runs so that coverage accumulates), seeded each time.  Crash,
# leak, timeout and out-of-memory inputs go to BINARY.artifacts/, the log
# to BINARY.log.  Prints "fuzz.sh: NAME: E executions in S s, coverage C
# edges, F features, corpus N inputs".  Exits 1 when a run left a new
# artifact or the fuzzer failed, 2 on usage errors.
set -u

usage() {
    echo "usage: sh scripts/fuzz.sh BINARY [SECONDS] | --summary SECONDS BINARY... | --slice SECONDS BINARY" >&2
    exit 2
}
mode=one
case ${1:-} in
--summary | --slice)
    mode=${1#--}
    [ $# -ge 3 ] || usage
    secs=$2
    shift 2
    ;;
"") usage ;;
*)
    [ $# -le 2 ] || usage
    secs=${2:-600}
    set -- "$1"
    ;;
esac
case $secs in '' | *[!0-9]*) usage ;; esac

here=$(pwd)
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
shared=${ET_SHARED:-${SHARED:-$root/../shared}}
max_seed=${FUZZ_MAX_SEED:-1048576}

# seed NAME WORK: copy (and trim) the seeds NAME.seeds names into WORK
seed() {
    list=tests/fuzz/$1.seeds
    [ -f "$list" ] || return 0
    n=0
    while IFS= read -r src || [ -n "$src" ]; do
        case $src in '' | '#'*) continue ;; esac
        case $src in
        shared:*)
            if [ ! -d "$shared/corpus" ]; then
                [ "$mode" = slice ] || echo "fuzz.sh: $shared/corpus not found: skipping seeds $src" >&2
                continue
            fi
            pattern=$shared/corpus/${src#shared:}
            tag=shared
            ;;
        *)
            pattern=$root/$src
            tag=repo
            ;;
        esac
        for f in $pattern; do
            [ -f "$f" ] || continue
            n=$((n + 1))
            dest=$2/seed-$tag-$(basename "$f")
            # trimmed, not skipped: the head of a large file still
            # exercises the reader (and its size-class code paths)
            head -c "$max_seed" "$f" >"$dest.tmp" && mv -f "$dest.tmp" "$dest"
        done
    done <"$list"
}

# flags NAME: the libFuzzer flags of NAME.options (defaults first: later wins)
flags() {
    printf '%s\n' -rss_limit_mb=1024 -timeout=10
    [ -f "tests/fuzz/$1.dict" ] && printf '%s\n' "-dict=$root/tests/fuzz/$1.dict"
    [ -f "tests/fuzz/$1.options" ] || return 0
    sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' -e 's/^/-/' \
        "tests/fuzz/$1.options"
}

# run BINARY: fuzz it for $secs seconds; sets $summary; returns 0 or 1
run() {
    case $1 in
    /*) bin=$1 ;;
    *) bin=$here/$1 ;;
    esac
    if [ ! -x "$bin" ]; then
        echo "fuzz.sh: $bin: not an executable (make $1)" >&2
        return 2
    fi
    name=$(basename "$bin")
    work=$bin.corpus
    art=$bin.artifacts
    log=$bin.log
    mkdir -p "$work" "$art" || return 2
    seed "$name" "$work"
    [ "$mode" = slice ] ||
        echo "fuzz.sh: $name for $secs s, corpus $work ($(ls "$work" | wc -l) inputs)"
    stamp=$bin.stamp
    : >"$stamp"
    # the fuzzer's status goes through a file: the pipeline's status is tee's
    # shellcheck disable=SC2046
    {
        "$bin" -max_total_time="$secs" -print_final_stats=1 $(flags "$name") \
            -artifact_prefix="$art/" "$work" 2>&1
        echo $? >"$bin.rc"
    } | if [ "$mode" = slice ]; then cat >"$log"; else tee "$log"; fi
    rc=$(cat "$bin.rc")
    rm -f "$bin.rc"

    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    [ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    summary="$name: ${execs:-?} executions in $secs s, coverage ${cov:-?} edges, ${ft:-?} features, corpus ${corp:-?} inputs"
    echo "fuzz.sh: $summary"
    new=$(find "$art" -type f -newer "$stamp" | sort)
    rm -f "$stamp"
    if [ -n "$new" ]; then
        echo "fuzz.sh: $name: FAILED: new artifacts (log: $log):" >&2
        echo "$new" | sed 's/^/  /' >&2
        [ "$mode" = slice ] && grep -E -A 30 '^==[0-9]+==ERROR|deadly signal|^SUMMARY' "$log" | head -n 40 >&2
        return 1
    fi
    if [ "$rc" -ne 0 ]; then
        echo "fuzz.sh: $name: FAILED: the fuzzer exited with status $rc (log: $log)" >&2
        [ "$mode" = slice ] && tail -n 30 "$log" >&2
        return 1
    fi
    return 0
}

status=0
table=
for b in "$@"; do
    run "$b"
    r=$?
    [ $r -eq 2 ] && exit 2
    [ $r -ne 0 ] && status=1
    table="$table
  $summary$([ $r -ne 0 ] && echo '   FAILED')"
done
if [ "$mode" = summary ]; then
    echo
    echo "fuzz.sh: $# targets, $secs s each:$table"
fi
exit $status
