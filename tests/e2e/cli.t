#!/bin/sh
# cli.t - the command line: inspector_cli-compatible options, usage errors
# and exit codes (0 ok, 1 bad input, 2 usage), outputs.
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
[ -f "$S" ] || skip_all "build/fixtures/sample.etdp missing (run make)"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -q -- "$1" "$T/err"; }

# usage_cases: the usage cases of a table read from stdin, one TAP line
# each.  A case is a block of "key: value" lines; blocks are separated by
# blank lines; lines starting with # are comments.  Keys:
#   case:    what the case is (the start of its TAP line's description)
#   args:    the arguments, as shell words ($S, the sample dump, and $T,
#            the scratch directory, are expanded); none when empty
#   exit:    the exit status wanted (0 ok, 1 bad input, 2 usage)
#   stderr:  a string stderr must contain (fixed, not a pattern); optional
#   stdout:  an extended regular expression a line of stdout must match;
#            optional
# The program runs with its stdin from /dev/null.
usage_case() {
    eval "set -- $args"
    run "$@" </dev/null
    want="exit $want_exit"
    [ -z "$want_err" ] || want="$want, stderr has \"$want_err\""
    [ -z "$want_out" ] || want="$want, stdout matches /$want_out/"
    why=
    got=$(cat "$T/status")
    [ "$got" = "$want_exit" ] || why="exit status $got"
    if [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$T/err"; then
        why="$why${why:+; }stderr lacks the string"
    fi
    if [ -n "$want_out" ] && ! grep -qE -- "$want_out" "$T/out"; then
        why="$why${why:+; }no line of stdout matches"
    fi
    if [ -z "$why" ]; then
        pass "$case: $want"
    else
        fail "$case: $want" "$why; its stderr:"
        head -n 5 "$T/err" | sed 's/^/#   /' >&2
    fi
}

usage_cases() {
    case= args= want_exit= want_err= want_out=
    while IFS= read -r line || [ -n "$line" ]; do
        value=${line#*:}
        value=${value#"${value%%[! ]*}"}
        case $line in
        '#'*) ;;
        '')
            [ -z "$case" ] || usage_case
            case= args= want_exit= want_err= want_out=
            ;;
        case:*) case=$value ;;
        args:*) args=$value ;;
        exit:*) want_exit=$value ;;
        stderr:*) want_err=$value ;;
        stdout:*) want_out=$value ;;
        *) fail "the usage table: a line without a known key: $line" ;;
        esac
    done
    [ -z "$case" ] || usage_case
}

usage_cases <<'CASES'
case:   --help shows the usage line
args:   --help
exit:   0
stdout: ^usage: etinspect

case:   -h
args:   -h
exit:   0

case:   --version prints 'etinspect X.Y.Z'
args:   --version
exit:   0
stdout: ^etinspect [0-9]+\.[0-9]+\.[0-9]+$

case:   no arguments: says --etdump_path is required
args:
exit:   2
stderr: the following arguments are required: --etdump_path

case:   unknown option: named
args:   --etdump_path "$S" --bogus
exit:   2
stderr: unrecognized arguments: --bogus

case:   option without its value: named
args:   --etdump_path
exit:   2
stderr: argument --etdump_path: expected one argument

case:   bad time scale: lists the choices
args:   --etdump_path "$S" --target_time_scale hours
exit:   2
stderr: choose from 'ns', 'us', 'ms', 's', 'cycles'

case:   cycles mixed with ns: the reference's message
args:   --etdump_path "$S" --target_time_scale cycles
exit:   2
stderr: For TimeScale in cycles both the source and target time scale have to be in cycles.

case:   --etrecord_path of a missing file: names it
args:   --etdump_path "$S" --etrecord_path "$T/none.bin"
exit:   1
stderr: none.bin: No such file or directory

case:   --etrecord_method without --etrecord_path
args:   --etdump_path "$S" --etrecord_method forward
exit:   2

case:   --compare_results without reference outputs: says where they come from
args:   --etdump_path "$S" --compare_results --quiet
exit:   0
stderr: no event block has both run outputs and reference outputs

case:   --bundled_test_case without --bundled_program_path
args:   --etdump_path "$S" --bundled_test_case 1
exit:   2

case:   a flag given a value
args:   --etdump_path "$S" --quiet=yes
exit:   2

case:   ambiguous prefix (--e: --etdump_path, --etrecord_path): says so
args:   --e "$S"
exit:   2
stderr: ambiguous option: --e
CASES

run --etdump "$S" --quiet
ok "unambiguous prefix --etdump works" status_is 0
ok "--quiet prints nothing" test ! -s "$T/out"
run --etdump_path="$S" --target_time_scale=us --quiet --tsv_path="$T/us.tsv"
ok "--opt=value form works" status_is 0
ok "--target_time_scale=us puts (us) in the header" grep -q "p50 (us)" "$T/us.tsv"

run --etdump_path "$S"
ok "printing the table exits 0" status_is 0
ok "the table is box-drawn" grep -q "^╒════╤" "$T/out"
ok "the table leaves OPERATOR_CALL rows out" test "$(grep -c OPERATOR_CALL "$T/out")" -eq 0
ok "the table has the 8 other events of the sample" test "$(grep -c '^│ *[0-9]' "$T/out")" -eq 8
ok "a clean dump gives no warning" test ! -s "$T/err"

run --etdump_path "$S" --quiet --tsv_path "$T/s.tsv" --json "$T/s.json"
ok "TSV and JSON together exit 0" status_is 0
ok "TSV header as pandas writes it (empty index field)" \
    grep -q "^	event_block_name	event_name	p10 (ms)	p50 (ms)	p90 (ms)	avg (ms)	min (ms)	max (ms)	op_types	is_delegated_op	delegate_backend_name	start_time$" "$T/s.tsv"
ok "TSV: the delegated int id 0 row" \
    grep -q "^3	Execute	0	.*	\[\]	True		\[222200, 479000, 725800\]$" "$T/s.tsv"
ok "JSON: delegate metadata as lowercase hex" \
    grep -q '"raw_delegate_debug_metadatas_hex": \["7b226f70223a22636f6e763264222c22616c676f223a22646972656374227d"' "$T/s.json"
ok "JSON: OPERATOR_CALL events are kept" grep -q '"name": "OPERATOR_CALL"' "$T/s.json"
ok "JSON: the three runs merged into Execute" grep -q '"runs": \[1, 2, 3\]' "$T/s.json"
if [ -x "$ET_BUILD/tools/cmp_ref_json" ]; then
    ok "JSON is well-formed (parsed by jansson)" "$ET_BUILD/tools/cmp_ref_json" "$T/s.json" "$T/s.json"
else
    skip "JSON well-formed: $ET_BUILD/tools/cmp_ref_json not built"
fi

# an existing output is replaced whole, and no temporary file is left
printf 'old contents\n' >"$T/keep.tsv"
run --etdump_path "$S" --quiet --tsv_path "$T/keep.tsv"
ok "an existing output file is replaced" grep -q "event_block_name" "$T/keep.tsv"
ok "no temporary file is left beside it" test -z "$(ls "$T" | grep 'keep.tsv.')"

# an output that is not a regular file is written in place, never replaced
mkfifo "$T/pipe"
cat "$T/pipe" >"$T/from_pipe" &
reader=$!
run --etdump_path "$S" --quiet --tsv_path "$T/pipe"
wait "$reader"
ok "a FIFO as output: exit 0" status_is 0
ok "a FIFO as output: the TSV comes through it" grep -q "event_block_name" "$T/from_pipe"
ok "a FIFO as output: it is still a FIFO" test -p "$T/pipe"
run --etdump_path "$S" --quiet --tsv_path /dev/null
ok "/dev/null as output: exit 0, and it stays a device" sh -c "status_ok=\$(cat '$T/status'); test \$status_ok -eq 0 && test -c /dev/null"
printf 'old\n' >"$T/target.tsv"
ln -s target.tsv "$T/link.tsv"
run --etdump_path "$S" --quiet --tsv_path "$T/link.tsv"
ok "a symbolic link as output: it stays a link" test -L "$T/link.tsv"
ok "a symbolic link as output: the file it names is replaced" grep -q "event_block_name" "$T/target.tsv"

# --help shows the whole program
run --help
for w in "SCRIPT.lua" "-e CODE" "-l MODULE" "-i " "--list-scripts" "the REPL" "examples:" "FILE\.\.\."; do
    ok "--help mentions $w" grep -q -- "$w" "$T/out"
done

# inputs named without options, told apart by content
run --etdump_path "$S"
cp "$T/out" "$T/by_option.txt"
run "$S"
ok "etinspect DUMP: exit 0" status_is 0
ok "etinspect DUMP: the table of --etdump_path DUMP" cmp -s "$T/out" "$T/by_option.txt"
cp "$S" "$T/dump.bin"
run "$T/dump.bin" --quiet --tsv_path "$T/pos.tsv"
run --etdump_path "$S" --quiet --tsv_path "$T/opt.tsv"
ok "etinspect DUMP [options]: an ETDump by its content, whatever its name" cmp -s "$T/pos.tsv" "$T/opt.tsv"
L="$ET_SRC/tests/legacy/main.bin"
if [ -f "$L" ]; then
    run --profile_results_path "$L"
    cp "$T/out" "$T/legacy_opt.txt"
    run "$L"
    ok "etinspect LEGACY: the legacy parser's tables, as --profile_results_path" cmp -s "$T/out" "$T/legacy_opt.txt"
else
    skip "etinspect LEGACY: $L absent"
fi
# several ETDumps by name: one dataset, as --etdump_path repeated
cp "$S" "$T/a.etdp"
cp "$S" "$T/b.etdp"
run --etdump_path "$T/a.etdp" --etdump_path "$T/b.etdp" --quiet --tsv_path "$T/many_opt.tsv"
run "$T/a.etdp" "$T/b.etdp" --quiet --tsv_path "$T/many_pos.tsv"
ok "etinspect A B: exit 0" status_is 0
ok "etinspect A B: the TSV of --etdump_path A --etdump_path B" cmp -s "$T/many_pos.tsv" "$T/many_opt.tsv"
ok "etinspect A B: a leading dump column, A's rows then B's" \
    sh -c "head -n 1 '$T/many_pos.tsv' | grep -q '^	dump	event_block_name	' &&
           test \"\$(cut -f2 '$T/many_pos.tsv' | uniq | tr '\n' ' ')\" = 'dump a.etdp b.etdp '"
run "$T/a.etdp" "$T/b.etdp"
ok "etinspect A B: the table too" grep -q "│ dump   │ event_block_name" "$T/out"
run "$T/a.etdp" --etdump_path "$T/b.etdp" --quiet --tsv_path "$T/many_mix.tsv"
ok "an ETDump by name and one by option: one dataset, the option's first" \
    test "$(cut -f2 "$T/many_mix.tsv" | uniq | tr '\n' ' ')" = "dump b.etdp a.etdp "
mkdir "$T/runs"
cp "$S" "$T/runs/x.etdp"
cp "$S" "$T/runs/y.etdp"
echo notes >"$T/runs/notes.txt"
run "$T/runs" --quiet --tsv_path "$T/dir_pos.tsv"
run --etdump_path "$T/runs" --quiet --tsv_path "$T/dir_opt.tsv"
ok "etinspect DIR: its ETDumps, as --etdump_path DIR" cmp -s "$T/dir_pos.tsv" "$T/dir_opt.tsv"
ok "etinspect DIR: both dumps" test "$(cut -f2 "$T/dir_pos.tsv" | uniq | tr '\n' ' ')" = "dump x.etdp y.etdp "
head -c 64 /dev/zero >"$T/zeros.bin"
usage_cases <<'CASES'
case:   one ETDump twice: says so
args:   "$S" "$S"
exit:   2
stderr: are the same file

case:   two ETDumps, one debug buffer: they pair one per dump
args:   "$T/a.etdp" "$T/b.etdp" "$T/zeros.bin"
exit:   2
stderr: 1 debug buffers for 2 dumps (give one per dump, in the order of the dumps)

case:   a missing input: named
args:   "$T/missing.etdp"
exit:   1
stderr: missing.etdp: No such file or directory

case:   a missing second input
args:   "$S" "$T/missing.bin"
exit:   1
CASES
D="$ET_SHARED/corpus/etdump/debug.etdp"
if [ -f "$D" ]; then
    run --etdump_path "$D" --debug_buffer_path "$ET_SHARED/corpus/etdump/debug.bin" --quiet --json "$T/opt.json"
    run "$ET_SHARED/corpus/etdump/debug.bin" "$D" --quiet --json "$T/pos.json"
    ok "etinspect DEBUG_BUFFER DUMP: the buffer beside the dump, in any order" cmp -s "$T/pos.json" "$T/opt.json"
    cp "$D" "$T/d1.etdp"
    cp "$D" "$T/d2.etdp"
    cp "$ET_SHARED/corpus/etdump/debug.bin" "$T/b1.bin"
    cp "$ET_SHARED/corpus/etdump/debug.bin" "$T/b2.bin"
    run --etdump_path "$T/d1.etdp" --etdump_path "$T/d2.etdp" --debug_buffer_path "$T/b1.bin" \
        --debug_buffer_path "$T/b2.bin" --quiet --json "$T/many_opt.json"
    run "$T/d1.etdp" "$T/b1.bin" "$T/d2.etdp" "$T/b2.bin" --quiet --json "$T/many_pos.json"
    ok "etinspect D1 B1 D2 B2: exit 0" status_is 0
    ok "etinspect D1 B1 D2 B2: the debug buffers paired with the dumps in order, as by option" \
        cmp -s "$T/many_pos.json" "$T/many_opt.json"
    run "$ET_SHARED/corpus/etdump/debug.bin"
    ok "a binary file alone: exit 1" status_is 1
    ok "a binary file alone: the ETDump reader says what is wrong" err_has "debug.bin: not an ETDump"
else
    skip "debug buffers given by name: $D absent"
fi
done_testing
