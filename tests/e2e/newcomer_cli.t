#!/bin/sh
# newcomer_cli.t - the command line as a newcomer meets it (issue 26): no
# option typed is silently ignored, an ambiguous option names its
# candidates, a file given to the wrong option says what it is and where
# it goes, a dump can come from standard input, the same mistake gives the
# same exit status through the main command and the bundled scripts, and
# `make demo` builds what the README then uses.  Each point is checked
# through the exit status and the messages.
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
R="$ET_BUILD/fixtures/sample.etrecord"
[ -f "$S" ] && [ -f "$R" ] || skip_all "build/fixtures missing (run make fixtures)"

# check DESC STATUS STDERR_STRING [STDOUT_STRING] -- ARGS...: run etinspect
# (stdin from $T/in when it exists, else /dev/null); the exit status must be
# STATUS, stderr must hold STDERR_STRING (fixed; "" for none wanted: then
# stderr must be empty), stdout STDOUT_STRING when given.
check() {
    desc=$1 want=$2 werr=$3
    shift 3
    wout=
    if [ "$1" != "--" ]; then wout=$1; shift; fi
    shift
    in=/dev/null
    [ -f "$T/in" ] && in="$T/in"
    "$ETINSPECT" "$@" <"$in" >"$T/out" 2>"$T/err"
    got=$?
    why=
    [ "$got" = "$want" ] || why="exit status $got"
    if [ -z "$werr" ]; then
        [ ! -s "$T/err" ] || why="$why${why:+; }stderr not empty"
    elif ! grep -qF -- "$werr" "$T/err"; then
        why="$why${why:+; }stderr lacks \"$werr\""
    fi
    if [ -n "$wout" ] && ! grep -qF -- "$wout" "$T/out"; then
        why="$why${why:+; }stdout lacks \"$wout\""
    fi
    if [ -z "$why" ]; then
        pass "$desc"
    else
        fail "$desc" "$why; stderr:"
        head -n 5 "$T/err" | sed 's/^/#   /' >&2
    fi
}

# ---- nothing typed is silently ignored ----
check "--cycles_hz without a cycles source time scale: usage error naming it" 2 \
    "argument --cycles_hz: only with --source_time_scale cycles" \
    -- --etdump_path "$S" --cycles_hz 1e9 --trace_path "$T/t.json" -q
[ ! -e "$T/t.json" ] && pass "... and no trace written" || fail "... and no trace written"
check "--cycles_hz with cycles on both sides: accepted" 0 "" \
    -- --etdump_path "$S" --source_time_scale cycles --target_time_scale cycles \
    --cycles_hz 1e9 --trace_path "$T/t.json" -q
check "--memory on a dump without allocation events: a warning, no empty table" 0 \
    "warning: --memory: the dump holds no allocation events" -- --etdump_path "$S" -q --memory
[ ! -s "$T/out" ] && pass "... nothing on stdout" || fail "... nothing on stdout"
check "--memory on a dump with allocation events: the table, no warning" 0 "" "allocations" \
    -- --etdump_path "$ET_BUILD/fixtures/memory_round.etdp" -q --memory
check "a --trace_window that selects nothing warns" 0 \
    "warning: --trace_window 1e12:2e12: no slice overlaps the window" \
    -- --etdump_path "$S" --trace_path "$T/w.json" --trace_window 1e12:2e12 -q
check "... in the Perfetto format too" 0 "warning: --trace_window 1e12:2e12" \
    -- --etdump_path "$S" --trace_path "$T/w.pftrace" --trace_window 1e12:2e12 -q
check "a --trace_window that selects slices: no warning" 0 "" \
    -- --etdump_path "$S" --trace_path "$T/w.json" --trace_window 0:1e9 -q
printf 'buffer' >"$T/buf.bin"
check "a debug buffer the dump never uses warns" 0 \
    "warning: --debug_buffer_path $T/buf.bin: the dump logged no debug events" \
    -- --etdump_path "$S" --debug_buffer_path "$T/buf.bin" -q
if [ -f "$ET_BUILD/fixtures/tensors.etdp" ] && [ -f "$ET_SRC/tests/fixtures/tensors.bin" ]; then
    "$ETINSPECT" "$S" "$ET_BUILD/fixtures/tensors.etdp" --debug_buffer_path "$T/buf.bin" \
        --debug_buffer_path "$ET_SRC/tests/fixtures/tensors.bin" -q 2>"$T/err"
    st=$?
    [ $st -eq 0 ] && [ "$(grep -c "debug_buffer_path" "$T/err")" = 1 ] &&
        grep -q "warning: --debug_buffer_path $T/buf.bin: the dump logged no debug events" "$T/err" &&
        pass "several dumps: the buffer of the dump without debug events warns, the other not" ||
        fail "several dumps: the buffer of the dump without debug events warns" "exit $st" "$(cat "$T/err")"
else
    skip "tensors fixtures absent"
fi
if [ -f "$CORPUS/etdump/debug.etdp" ] && [ -f "$CORPUS/etdump/debug.bin" ]; then
    "$ETINSPECT" --etdump_path "$CORPUS/etdump/debug.etdp" \
        --debug_buffer_path "$CORPUS/etdump/debug.bin" -q 2>"$T/err"
    st=$?
    [ $st -eq 0 ] && ! grep -q "debug_buffer_path" "$T/err" &&
        pass "a debug buffer the dump uses: no warning about it" ||
        fail "a debug buffer the dump uses: no warning about it" "exit $st"
else
    skip "corpus debug.etdp absent"
fi

# ---- an ambiguous option names its candidates ----
check "--trace is ambiguous: the candidates named" 2 \
    "ambiguous option: --trace could match --trace_path, --trace_runs, --trace_window, --trace_runs_apart, --trace_format" \
    -- --etdump_path "$S" --trace x -q
check "--etrecord is --etrecord_path, as in the reference (its only option starting so)" 0 "" \
    -- --etdump_path "$S" --etrecord "$R" -q
check "--etrecord=PATH too" 0 "" -- --etdump_path "$S" --etrecord="$R" -q
check "--e is ambiguous between two reference options: both named" 2 \
    "ambiguous option: --e could match --etdump_path, --etrecord_path, --etrecord_method, --etrecord_json_budget" \
    -- --e "$S"
check "a bundled script takes --etrecord_path, the main command's spelling" 0 "" "convolution" \
    -- top_ops "$S" --etrecord_path "$R" --format tsv --top 1
check "... and --etrecord" 0 "" "convolution" -- top_ops "$S" --etrecord "$R" --format tsv --top 1

# ---- a wrong kind of file says what it is and where it goes ----
check "--etdump_path given an ETRecord: what it is, the option that takes it" 2 \
    "argument --etdump_path: $R is an ETRecord (a ZIP archive), not an ETDump: give it with --etrecord_path" \
    -- --etdump_path "$R"
check "--etrecord_path given an ETDump: the same" 2 \
    "argument --etrecord_path: $S is an ETDump, not an ETRecord (a ZIP archive): give it with --etdump_path" \
    -- --etdump_path "$S" --etrecord_path "$S"
check "--profile_results_path given an ETDump: the same" 2 \
    "argument --profile_results_path: $S is an ETDump, not a legacy profiler dump: give it with --etdump_path" \
    -- --profile_results_path "$S"
if grep -q 'ED00\|\\x' "$T/err" && ! grep -q "is an ETDump" "$T/err"; then
    fail "... no raw bytes in the message"
else
    LC_ALL=C grep -q '[^ -~]' "$T/err" && fail "... no raw bytes in the message" ||
        pass "... no raw bytes in the message"
fi
check "a bundled script given an ETRecord as its dump: the same words, exit 2" 2 \
    "top_ops: argument etdump: $R is an ETRecord (a ZIP archive), not an ETDump: give it with --etrecord_path" \
    -- top_ops "$R"

# ---- standard input ----
"$ETINSPECT" --etdump_path "$S" --tsv_path "$T/file.tsv" -q
cp "$S" "$T/in"
check "etinspect - reads a dump from standard input" 0 "" "Method::execute" -- -
check "--etdump_path - too, with outputs" 0 "" -- --etdump_path - --tsv_path "$T/stdin.tsv" -q
cmp -s "$T/file.tsv" "$T/stdin.tsv" && pass "... the TSV is the file's" ||
    fail "... the TSV is the file's"
check "- beside an ETRecord" 0 "" "convolution" -- - "$R"
check "- with other dumps: usage error" 2 "is one dump alone" -- - "$S" -q
cp "$R" "$T/in"
check "an ETRecord on standard input: what it is and where it goes" 2 \
    "standard input is an ETRecord (a ZIP archive), not an ETDump: give it with --etrecord_path" -- -
head -c 100 /dev/zero >"$T/in"
check "bytes that are no ETDump on standard input: the reader's error, named" 1 \
    "error: standard input: not an ETDump" -- --etdump_path -
printf 'print("script", ...)\n' >"$T/in"
check "Lua text on standard input is a script, told apart by content" 0 "" "script	a	b" -- - a b
: >"$T/in"
check "an empty standard input is an empty script" 0 "" -- -
rm -f "$T/in"

# ---- the same mistake, the same exit status ----
# (usage errors 2, input errors 1), through the main command and every
# bundled script over a dump
check "main: cycles on one side only: 2" 2 "For TimeScale in cycles" \
    -- --etdump_path "$S" --source_time_scale cycles -q
for s in top_ops framework_tax delegation; do
    check "$s: cycles on one side only: 2, the same words" 2 \
        "$s: For TimeScale in cycles both the source and target time scale have to be in cycles. (etinspect --help $s)" \
        -- $s "$S" --source_time_scale cycles
    check "$s: a missing dump: 1" 1 "nosuch.etdp" -- $s "$T/nosuch.etdp"
    check "$s: an ETRecord as the dump: 2" 2 "is an ETRecord" -- $s "$R"
done
check "modules: cycles on one side only: 2" 2 "modules: For TimeScale in cycles" \
    -- modules "$S" --etrecord "$R" --target_time_scale cycles
check "diff: cycles on one side only: 2" 2 "diff: For TimeScale in cycles" \
    -- diff "$S" "$S" --source_time_scale cycles
check "main: a missing dump: 1" 1 "nosuch.etdp" -- --etdump_path "$T/nosuch.etdp"

# ---- make demo builds what the README uses ----
if command -v make >/dev/null 2>&1 && [ -f "$ET_SRC/Makefile" ]; then
    make -s -n -C "$ET_SRC" demo B="$T/b" >"$T/demo" 2>&1
    grep -q -- "-o $T/b/etinspect.so" "$T/demo" && pass "make demo builds build/etinspect.so" ||
        fail "make demo builds build/etinspect.so"
    grep -q 'require("etinspect")' "$ET_SRC/README.md" && grep -q "make demo" "$ET_SRC/README.md" &&
        pass "... which the README's quick start loads after make demo" ||
        fail "... which the README's quick start loads after make demo"
else
    skip "no make or no Makefile"
    skip "no make or no Makefile"
fi

done_testing
