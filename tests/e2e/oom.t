#!/bin/sh
# oom.t - out of memory (issue 25, item 8): every allocation failure ends
# in "out of memory" and exit status 1 - never a signal, an abort or a Lua
# PANIC - with the outputs untouched (an existing output keeps its
# content, a new one is absent, or either is whole) and no temporary file
# left beside them.
#
# Two ways to run out of memory:
#  - build/tools/failalloc.so (tests/tools/failalloc.c), preloaded, fails
#    the N-th allocation of the process (ET_FAILALLOC=N): "after" mode,
#    every allocation from the N-th on fails (out of memory for good);
#    "once" mode, only the N-th (the recovery after one failure);
#  - `ulimit -v` limits from the smallest at which the program starts to
#    the peak of the run (found by bisection on this machine).
#
# Scenarios: the command line with an ETRecord (TSV over an existing file,
# JSON), a legacy dump, -e code printing a to_dataframe, an ETRecord given
# alone (the bundled etrecord script), the REPL fed two lines on stdin;
# medium.etdp and large.etdp from the shared corpus.  Each sweep tries
# every N up to OOM_FIRST, then samples up to the run's allocation count;
# ET_OOM_FULL=1 (CI, .ci/run) tries every N of the command line's run
# and 1,500 of each other small run instead (about 20,000 runs).
# OOM_ONLY="cli_record repl" runs only those scenarios' sweeps (while
# debugging one).
#
# Not under the sanitizers: ASan owns malloc (a preloaded allocator cannot
# stand in front of it) and reserves terabytes of address space (no
# `ulimit -v`); make test runs this file.
. "$(dirname "$0")/lib.sh"

SHIM="$ET_BUILD/tools/failalloc.so"
F="$ET_BUILD/fixtures"
case $ETINSPECT in
*/asan/*) skip_all "the allocation-failure shim and ulimit -v need the plain build (ASan owns malloc and reserves terabytes of address space); make test runs oom.t" ;;
esac
[ -f "$SHIM" ] && [ -f "$F/sample.etdp" ] && [ -f "$F/sample.etrecord" ] ||
    skip_all "run make test first (build/tools/failalloc.so, the fixtures)"

OOM_FIRST=${OOM_FIRST:-120}   # every N up to this one
OOM_SAMPLES=${OOM_SAMPLES:-90} # then this many, evenly spread
EVERY=                         # samples for "every N" (ET_OOM_FULL)
if [ -n "${ET_OOM_FULL:-}" ]; then
    OOM_SAMPLES=1500
    EVERY=1000000000
fi

W="$T/w"         # the outputs' directory of the run under test
PREV="previous output, kept"

# ------------------------------------------------------------- scenarios
# Each is a function running etinspect (through `x`) with its outputs in
# $W; OUTS names the outputs; an output in PRE_EXISTING exists before the
# run, with content $PREV.  x runs etinspect with the shim's environment
# (PRELOAD, NTH, MODE, REPORT; empty: unset) set by env, so that only
# etinspect's allocations count.
PRELOAD= NTH= MODE= REPORT=
x() {
    timeout 120 env LD_PRELOAD="$PRELOAD" ET_FAILALLOC="$NTH" ET_FAILALLOC_MODE="$MODE" \
        ET_FAILALLOC_REPORT="$REPORT" "$ETINSPECT" "$@"
}

cli_record() {
    x "$F/sample.etdp" --etrecord_path "$F/sample.etrecord" --tsv_path "$W/o.tsv" --json "$W/o.json" \
        </dev/null
}
cli_legacy() { x "$ET_SRC/tests/legacy/main.bin" --tsv_path "$W/o.tsv" </dev/null; }
lua_frame() {
    x -e "local i = etinspect.Inspector{etdump_path = '$F/sample.etdp', etrecord = '$F/sample.etrecord'}
          print(i:to_dataframe())" </dev/null
}
record_alone() { x "$F/sample.etrecord" </dev/null; }
# three dumps to a Parquet dataset: each dump's files written beside the
# next dump's build (et_parquet_give)
cli_parquet() { x --etdump_path "$T/pqdir" --parquet_path "$W/ds" -q </dev/null; }
repl() { x -i <"$T/repl.in"; }
corpus_medium() { x "$CORPUS/etdump/medium.etdp" --tsv_path "$W/o.tsv" </dev/null; }
corpus_large() { x "$CORPUS/etdump/large.etdp" --tsv_path "$W/o.tsv" </dev/null; }

cat >"$T/repl.in" <<EOF
insp = etinspect.Inspector{etdump_path = "$F/sample.etdp"}
print(#insp.event_blocks, insp:to_dataframe())
EOF

# outputs and pre-existing outputs per scenario
outs_of() {
    case $1 in
    cli_record) echo "o.tsv o.json" ;;
    cli_parquet) echo "ds" ;;
    cli_legacy | corpus_*) echo "o.tsv" ;;
    *) echo "" ;;
    esac
}
pre_of() {
    case $1 in
    cli_record | corpus_*) echo "o.tsv" ;;
    *) echo "" ;;
    esac
}

# Fresh $W with the pre-existing outputs.
fresh() {
    rm -rf "$W"
    mkdir "$W"
    for o in $(pre_of "$1"); do printf '%s\n' "$PREV" >"$W/$o"; done
}

# The reference run of scenario $1 (nothing fails) into $T/ref.$1: its
# stdout, its outputs; the count of allocations into $T/ref.$1/count.
reference() {
    fresh "$1"
    PRELOAD=$SHIM NTH= MODE= REPORT=$T/count
    "$1" >"$T/stdout" 2>"$T/stderr"
    rc=$?
    rm -rf "$T/ref.$1"
    mv "$W" "$T/ref.$1"
    mv "$T/stdout" "$T/ref.$1/.stdout"
    mv "$T/count" "$T/ref.$1/.count" 2>/dev/null
    return $rc
}

# A Parquet dataset $1 against the reference run's $2 after a run that
# ended with status $3: each file there is the reference's file of that
# name, whole (`dumps` but for its time of export: its size); exit 0: all
# of them.  Prints what is wrong.
dataset_judge() {
    [ -d "$1" ] || { [ "$3" = 1 ] || echo "exit 0 but no dataset"; return; }
    (cd "$1" && find . -type f) | sort >"$T/ds.got"
    (cd "$2" && find . -type f) | sort >"$T/ds.want"
    if [ "$3" = 0 ] && ! cmp -s "$T/ds.got" "$T/ds.want"; then
        echo "exit 0 but the dataset's files differ from the reference run's"
        return
    fi
    while read -r f; do
        if [ ! -f "$2/$f" ]; then
            echo "dataset: $f is not among the reference run's files (a temporary left?)"
        elif case $f in ./dumps/*) true ;; *) false ;; esac; then
            [ "$(wc -c <"$1/$f")" = "$(wc -c <"$2/$f")" ] || echo "dataset: $f written in part"
        elif ! cmp -s "$1/$f" "$2/$f"; then
            echo "dataset: $f written in part"
        fi
    done <"$T/ds.got"
}

# Judge the run of scenario $1 that ended with status $2 (what it did is
# in $W, $T/stdout, $T/stderr); prints what is wrong, nothing when clean.
judge() {
    s=$1 rc=$2
    case $rc in
    0 | 1) ;;
    *)
        echo "exit status $rc: $(head -c 300 "$T/stderr" | tr '\n' ' ')"
        return
        ;;
    esac
    # Lua's own words for a memory error, not turned into ours; a panic;
    # a traceback, but for a script's error that says it (-e code, as any
    # error of a script, gets its traceback)
    if grep -q "PANIC\|not enough memory" "$T/stderr" ||
        { grep -q "traceback" "$T/stderr" && ! grep -q "out of memory" "$T/stderr"; }; then
        echo "stderr: $(head -c 300 "$T/stderr" | tr '\n' ' ')"
        return
    fi
    if [ "$rc" = 1 ] && ! grep -q "out of memory\|Cannot allocate memory\|cannot write" "$T/stderr"; then
        echo "exit 1 without naming the cause: $(head -c 300 "$T/stderr" | tr '\n' ' ')"
        return
    fi
    # the REPL goes on after a statement's error ("error: out of memory"),
    # and ends with exit 0, as after any error
    if [ "$rc" = 0 ] && ! cmp -s "$T/stdout" "$T/ref.$s/.stdout" &&
        ! { [ "$s" = repl ] && grep -q "^error: out of memory" "$T/stderr"; }; then
        echo "exit 0 but the standard output differs from the reference run's"
        return
    fi
    for o in $(outs_of "$s"); do
        if [ -d "$T/ref.$s/$o" ]; then
            dataset_judge "$W/$o" "$T/ref.$s/$o" "$rc"
            continue
        fi
        if cmp -s "$W/$o" "$T/ref.$s/$o"; then
            continue
        fi
        if [ "$rc" = 0 ]; then
            echo "exit 0 but $o differs from the reference run's"
        elif [ -e "$W/$o" ]; then
            case " $(pre_of "$s") " in
            *" $o "*) [ "$(cat "$W/$o")" = "$PREV" ] ||
                echo "$o: neither its previous content nor the whole new one" ;;
            *) echo "$o: written in part (neither absent nor whole)" ;;
            esac
        else
            case " $(pre_of "$s") " in
            *" $o "*) echo "$o: the existing output was removed" ;;
            esac
        fi
    done
    # nothing else in the outputs' directory (a temporary file left)
    for f in "$W"/* "$W"/.[!.]*; do
        [ -e "$f" ] || continue
        case " $(outs_of "$s") " in
        *" ${f##*/} "*) ;;
        *) echo "left behind: ${f##*/}" ;;
        esac
    done
}

# Note a failure for the diagnostics ($T/bad): the first of each kind
# (its text with the numbers taken out), up to 10 kinds.
note() {
    kind=$(printf '%s' "$2" | tr -d '0-9' | cut -c1-120)
    grep -qxF -- "$kind" "$T/kinds" 2>/dev/null && return
    echo "$kind" >>"$T/kinds"
    [ "$(wc -l <"$T/kinds")" -le 10 ] && echo "$1: $2" >>"$T/bad"
}

# The N of a sweep over `total` allocations: every one up to OOM_FIRST,
# then OOM_SAMPLES spread evenly (from an offset, so that scenarios
# sample different phases); ${3:-} overrides the number of samples.
ns_of() {
    total=$1 off=$2 samples=${3:-$OOM_SAMPLES} tail=${4:-0}
    if [ "$total" -le "$OOM_FIRST" ]; then
        seq 1 "$total"
        return
    fi
    seq 1 "$OOM_FIRST"
    rest=$((total - OOM_FIRST))
    stride=$(((rest + samples - 1) / samples))
    [ "$stride" -ge 1 ] || stride=1
    last=$((total - tail))
    [ "$last" -gt "$OOM_FIRST" ] || last=$OOM_FIRST
    seq $((OOM_FIRST + 1 + off % stride)) "$stride" "$last"
    seq $((last + 1)) "$total"
}

# sweep SCENARIO MODE [SAMPLES [TAIL]]: the scenario with the N-th
# allocation failing, for each N of ns_of (and every one of the last TAIL:
# building the model and writing the outputs come last, after the Lua
# state is made); one test line.
sweep() {
    s=$1 mode=$2
    case " ${OOM_ONLY:-$s} " in *" $s "*) ;; *) return ;; esac
    if ! reference "$s" 2>/dev/null || [ ! -s "$T/ref.$s/.count" ]; then
        fail "$s: the reference run (nothing failing) succeeds" "$(head -c 500 "$T/stderr")"
        return
    fi
    total=$(cat "$T/ref.$s/.count")
    runs=0 bad=0 oom=0
    : >"$T/bad"
    : >"$T/kinds"
    for n in $(ns_of "$total" ${#s} "${3:-}" "${4:-0}"); do
        fresh "$s"
        PRELOAD=$SHIM NTH=$n MODE=$mode REPORT=
        "$s" >"$T/stdout" 2>"$T/stderr"
        rc=$?
        runs=$((runs + 1))
        [ "$rc" = 1 ] && oom=$((oom + 1))
        why=$(judge "$s" "$rc")
        if [ -n "$why" ]; then
            bad=$((bad + 1))
            note "N=$n" "$why"
        fi
    done
    if [ "$bad" -eq 0 ]; then
        pass "$s, $mode: allocation N failing for $runs values of N up to $total: exit 0 with the reference's output, or 1 with 'out of memory' ($oom), outputs kept or whole, no temporary left"
    elif eval "[ -n \"\${TODO_$s:-}\" ]"; then
        TAP_N=$((TAP_N + 1))
        eval "printf 'not ok %d - %s # TODO %s\\n' \"\$TAP_N\" \"\$s, \$mode: \$bad of \$runs runs not clean\" \"\$TODO_$s\""
        sed 's/^/# /' "$T/bad" >&2
    else
        fail "$s, $mode: $bad of $runs runs with an allocation failing were not clean" \
            "$(cat "$T/bad")"
    fi
}


# The shim itself: it counts (each sweep below also says how many of its
# runs ended in "out of memory": the shim makes them fail).
PRELOAD=$SHIM NTH= MODE= REPORT=$T/count
x --version >/dev/null 2>&1
ok "the shim counts allocations (ET_FAILALLOC_REPORT)" test -s "$T/count"

sweep cli_record after "$EVERY" 150
sweep cli_record once
sweep cli_legacy after "" 150
sweep lua_frame after
sweep lua_frame once "" 120
sweep record_alone after
mkdir -p "$T/pqdir"
cp "$F/sample.etdp" "$T/pqdir/a.etdp"
cp "$F/stats10.etdp" "$T/pqdir/b.etdp"
cp "$F/diff_a.etdp" "$T/pqdir/c.etdp"
sweep cli_parquet after "" 150
sweep cli_parquet once "" 120
sweep repl after

# ------------------------------------------------------------- the corpus
if [ ! -f "$CORPUS/etdump/medium.etdp" ] || [ ! -f "$CORPUS/etdump/large.etdp" ]; then
    skip "$CORPUS/etdump not found (the shared corpus is not beside the checkout): medium.etdp and large.etdp not swept"
else
    sweep corpus_medium after 40 150
    sweep corpus_large after 20
fi
if [ -f "$CORPUS/etdump/medium.etdp" ] && [ -f "$CORPUS/etdump/large.etdp" ] &&
    case " ${OOM_ONLY:-ulimit} " in *" ulimit "*) true ;; *) false ;; esac; then

    # ulimit -v: the smallest limit at which etinspect starts (loads its
    # libraries), the smallest at which the run succeeds (bisection), and
    # limits between them
    PRELOAD= NTH= MODE= REPORT=
    starts() { (ulimit -v "$1" && "$ETINSPECT" --version) >/dev/null 2>&1; }
    succeeds() { (ulimit -v "$1" && "$2") >/dev/null 2>&1; }
    # bisect PREDICATE ARG LO HI: the smallest limit in (LO, HI] that passes
    bisect() {
        lo=$3 hi=$4
        while [ $((hi - lo)) -gt 256 ]; do
            mid=$(((lo + hi) / 2))
            if "$1" "$mid" "$2"; then hi=$mid; else lo=$mid; fi
        done
        echo "$hi"
    }
    FLOOR=$(bisect starts "" 1024 4194304)
    for s in corpus_medium corpus_large; do
        [ -d "$T/ref.$s" ] || reference "$s" 2>/dev/null
        fresh "$s"
        PEAK=$(bisect succeeds "$s" "$FLOOR" 4194304)
        diag "$s: etinspect starts from ulimit -v $FLOOR KiB, the run succeeds from $PEAK KiB"
        runs=0 bad=0 oom=0
        : >"$T/bad"
    : >"$T/kinds"
        # 16 limits from the start to the peak, and the last MiB below the
        # peak in 64 KiB steps (the cleanup paths that crashed failed there)
        step=$(((PEAK - FLOOR) / 16 + 1))
        near=$((PEAK - 1024))
        [ "$near" -gt "$FLOOR" ] || near=$FLOOR
        for lim in $(seq "$FLOOR" "$step" "$near") $(seq "$near" 64 $((PEAK + 64))); do
            fresh "$s"
            (ulimit -v "$lim" && "$s") >"$T/stdout" 2>"$T/stderr"
            rc=$?
            runs=$((runs + 1))
            [ "$rc" = 1 ] && oom=$((oom + 1))
            why=$(judge "$s" "$rc")
            if [ -n "$why" ]; then
                bad=$((bad + 1))
                note "ulimit -v $lim" "$why"
            fi
        done
        if [ "$bad" -eq 0 ]; then
            pass "$s under ulimit -v, $runs limits from $FLOOR to $((PEAK + 64)) KiB: exit 0 or 1 with 'out of memory' ($oom), outputs kept or whole"
        else
            fail "$s under ulimit -v: $bad of $runs limits gave a run that was not clean" "$(cat "$T/bad")"
        fi
    done
fi

done_testing
