#!/bin/sh
# injection.t - no data file is ever run as code: a script is a file whose
# name ends in .lua, a bundled script's name, -e code or "-"; a text file
# among the inputs (first or not, named with a '/' or not, on the command
# line or to the REPL's .open) is an input error naming it, and nothing of
# it runs.
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
[ -f "$S" ] || skip_all "sample fixture not built"
mkdir -p "$T/runs"
# a text "dump" that sorts first and would write a marker when run
printf 'io.open("%s/ran", "w"):write("ran"); print("RAN")\n' "$T" >"$T/runs/a.etdp"
cp "$S" "$T/runs/b.etdp"
why="a text file, not an ETDump, ETRecord, BundledProgram, legacy profiler dump or debug buffer (etinspect runs a file as a Lua script only when its name ends in .lua)"

check() { # check DESC EXPECTED_FILE_NAMED ARGS...: exit 1, the message names the file, nothing ran
    desc=$1 name=$2
    shift 2
    rm -f "$T/ran" "$T/all.tsv"
    (cd "$T" && "$ETINSPECT" "$@") >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && [ ! -e "$T/ran" ] && [ ! -e "$T/all.tsv" ] && ! grep -q RAN "$T/out" &&
        grep -qF "etinspect: error: $name: $why" "$T/out"; then
        pass "$desc"
    else
        fail "$desc" "exit $rc" "$(cat "$T/out")" "$([ -e "$T/ran" ] && echo 'the file ran')"
    fi
}
check "runs/*.etdp with a text file first: an input error naming it, not run" runs/a.etdp runs/a.etdp runs/b.etdp --tsv_path all.tsv
check "a text file after a dump: an input error naming it" runs/a.etdp runs/b.etdp runs/a.etdp --tsv_path all.tsv
check "after an option too" runs/a.etdp --quiet runs/a.etdp runs/b.etdp
check "./NAME without .lua is not a script" ./runs/a.etdp ./runs/a.etdp
cp "$T/runs/a.etdp" "$T/report"
check "a bare word naming a text file is not a script" report report
check "after Lua options" ./report -e 'x = 1' ./report
# .open in the REPL
rm -f "$T/ran"
(cd "$T" && printf '.open runs/a.etdp\nprint("next")\n' | "$ETINSPECT" -i) >"$T/out" 2>&1
if [ ! -e "$T/ran" ] && grep -qF ".open: runs/a.etdp: $why" "$T/out" && grep -q "^next" "$T/out"; then
    pass "the REPL's .open: a text file is refused, naming it"
else
    fail "the REPL's .open: a text file is refused, naming it" "$(cat "$T/out")"
fi
# an empty file is not text: the reader says what is wrong
: >"$T/empty.etdp"
out=$("$ETINSPECT" "$T/empty.etdp" 2>&1)
case "$out" in
*"empty.etdp: empty file"*) pass "an empty file is read as a dump (the reader says it is empty)" ;;
*) fail "an empty file is read as a dump (the reader says it is empty)" "$out" ;;
esac
# what is a script: .lua, -e, -, a bundled name
cp "$T/runs/a.etdp" "$T/a.lua"
rm -f "$T/ran"
(cd "$T" && "$ETINSPECT" a.lua) >"$T/out" 2>&1 && [ -e "$T/ran" ] &&
    pass "a file whose name ends in .lua is a script" || fail "a file whose name ends in .lua is a script" "$(cat "$T/out")"
rm -f "$T/ran"
"$ETINSPECT" - <"$T/runs/a.etdp" >"$T/out" 2>&1 && [ -e "$T/ran" ] &&
    pass "'-' reads a script from standard input" || fail "'-' reads a script from standard input" "$(cat "$T/out")"
out=$("$ETINSPECT" -e 'print("e ran")' 2>&1)
[ "$out" = "e ran" ] && pass "-e code runs" || fail "-e code runs" "$out"
out=$("$ETINSPECT" top_ops "$S" --format tsv --top 1 2>&1)
case "$out" in
*convolution*) pass "a bundled script by name runs" ;;
*) fail "a bundled script by name runs" "$out" ;;
esac
done_testing
