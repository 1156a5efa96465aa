#!/bin/sh
# malformed.t - the CLI on hostile input.
#  - every tests/malformed/NAME.etdp: exit 1, nothing on stdout, and stderr
#    names the file and holds the text of NAME.expect;
#  - a missing file, a directory and an empty file: exit 1, clear messages;
#  - --tsv_path naming the input (same path, another spelling, a symlink)
#    is refused with exit 2 and the input is left byte-identical;
#  - an output that cannot be written (no such directory; a write failing
#    with EFBIG under `ulimit -f 0`) exits 1 and leaves no temporary file;
#  - tests/tools/mkmalformed still regenerates the same corpus.
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || skip_all "cannot cd to ET_SRC=$ET_SRC"
S="$ET_BUILD/fixtures/sample.etdp"

# run_cli ARGS...: run etinspect; status in $rc, output in $T/out, $T/err
run_cli() {
    "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"
    rc=$?
}

# ---------------------------------------------------------- the corpus
count=0
for f in tests/malformed/*.etdp; do
    [ -f "$f" ] || continue
    count=$((count + 1))
    exp="${f%.etdp}.expect"
    if [ ! -f "$exp" ]; then
        fail "$f: has $exp beside it"
        continue
    fi
    want=$(cat "$exp")
    run_cli --etdump_path "$f" -q
    why=
    [ "$rc" -eq 1 ] || why="$why exit $rc (want 1);"
    [ -s "$T/out" ] && why="$why stdout not empty;"
    grep -qF -- "etinspect: error: $f: " "$T/err" || why="$why stderr does not name the file;"
    grep -qF -- "$want" "$T/err" || why="$why stderr lacks the expected text;"
    if [ -z "$why" ]; then
        pass "$f: exit 1, \"$want\""
    else
        fail "$f: exit 1, \"$want\"" "$why" "stderr: $(head -c 600 "$T/err")"
    fi
done
if [ "$count" -ge 12 ]; then
    pass "the malformed corpus has $count files"
else
    fail "the malformed corpus has at least 12 files (found $count)"
fi

# --------------------------------------------------- file-level errors
# check_error DESC FILE TEXT: etinspect on FILE exits 1, stdout empty,
# stderr "etinspect: error: FILE: ...TEXT"
check_error() {
    run_cli --etdump_path "$2" -q
    if [ "$rc" -eq 1 ] && [ ! -s "$T/out" ] &&
        grep -qF -- "etinspect: error: $2: " "$T/err" && grep -qF -- "$3" "$T/err"; then
        pass "$1: exit 1, \"$3\""
    else
        fail "$1: exit 1, \"$3\"" "exit $rc; stderr: $(head -c 400 "$T/err")"
    fi
}
check_error "missing file" "$T/no-such.etdp" "No such file or directory"
mkdir "$T/adir.etdp"
check_error "a directory" "$T/adir.etdp" "is a directory"
: >"$T/empty.etdp"
check_error "an empty file" "$T/empty.etdp" "empty file, expected an ETDump"

# --------------------------------------------- outputs and the inputs
if [ ! -f "$S" ]; then
    skip "$S missing (run make): output checks"
else
    cp "$S" "$T/in.etdp"
    cp "$S" "$T/in.copy"
    ln -s in.etdp "$T/link.etdp"
    for dest in "$T/in.etdp" "$T/./in.etdp" "$T/link.etdp"; do
        run_cli --etdump_path "$T/in.etdp" -q --tsv_path "$dest"
        if [ "$rc" -eq 2 ] && grep -qF "refusing to overwrite an input file" "$T/err" &&
            cmp -s "$T/in.etdp" "$T/in.copy"; then
            pass "--tsv_path \$T/${dest#"$T"/} (the input): exit 2, input unchanged"
        else
            fail "--tsv_path \$T/${dest#"$T"/} (the input): exit 2, input unchanged" \
                "exit $rc; stderr: $(head -c 300 "$T/err")"
        fi
    done
    if [ -z "$(ls "$T" | grep '^in\.etdp\.')" ]; then
        pass "no temporary file left beside the input"
    else
        fail "no temporary file left beside the input" "$(ls "$T")"
    fi

    run_cli --etdump_path "$S" -q --tsv_path "$T/nodir/out.tsv"
    if [ "$rc" -eq 1 ] && grep -qF "$T/nodir/out.tsv: cannot create a file beside it" "$T/err" &&
        [ ! -e "$T/nodir" ]; then
        pass "--tsv_path in a missing directory: exit 1, named, nothing created"
    else
        fail "--tsv_path in a missing directory: exit 1, named, nothing created" \
            "exit $rc; stderr: $(head -c 300 "$T/err")"
    fi

    # A write that fails half-way: file size limit 0 with SIGXFSZ ignored,
    # so writes fail with EFBIG.  stderr goes through a pipe (the limit
    # applies to regular files only) and the status through a file written
    # outside the limited subshell.
    mkdir "$T/w"
    if (ulimit -f 0) 2>/dev/null; then
        {
            (
                trap '' XFSZ
                ulimit -f 0
                exec "$ETINSPECT" --etdump_path "$S" -q --tsv_path "$T/w/out.tsv" 2>&1 >/dev/null
            )
            echo $? >"$T/w.rc"
        } | cat >"$T/w.err"
        rc=$(cat "$T/w.rc")
        if [ "$rc" -eq 1 ] && grep -qF "$T/w/out.tsv: write failed" "$T/w.err" &&
            [ -z "$(ls -A "$T/w")" ]; then
            pass "a failing write (EFBIG): exit 1, no output and no temporary file left"
        else
            fail "a failing write (EFBIG): exit 1, no output and no temporary file left" \
                "exit $rc; stderr: $(head -c 300 "$T/w.err")" "left: $(ls -A "$T/w")"
        fi
    else
        skip "this shell cannot set ulimit -f"
    fi
fi

# ------------------------------------------- the generator still agrees
MK="$ET_BUILD/tools/mkmalformed"
if [ ! -x "$MK" ] || [ ! -f "$S" ]; then
    skip "$MK or $S not built: regeneration not checked"
else
    mkdir "$T/regen"
    if "$MK" "$T/regen" "$S" 2>"$T/mk.err"; then
        pass "mkmalformed regenerates the corpus; every file fails as its .expect says"
    else
        fail "mkmalformed regenerates the corpus; every file fails as its .expect says" \
            "$(head -c 600 "$T/mk.err")"
    fi
    (cd tests/malformed && ls -p | grep -v /) >"$T/have" # programs/: program_malformed.t
    (cd "$T/regen" && ls) >"$T/made"
    if cmp -s "$T/have" "$T/made"; then
        pass "tests/malformed holds exactly the files mkmalformed makes"
    else
        fail "tests/malformed holds exactly the files mkmalformed makes" \
            "$(diff "$T/have" "$T/made" | head -n 8)"
    fi
    stale=
    for f in "$T"/regen/*; do
        cmp -s "$f" "tests/malformed/${f##*/}" || stale="$stale ${f##*/}"
    done
    [ -z "$stale" ] || diag "note: regenerated files differ from the committed ones:$stale" \
        "(sample.etdp changed?  regenerate: $MK tests/malformed $S)"
fi

done_testing
