#!/bin/sh
# outputs.t - what the outputs do to what the user had (issue 25): paths
# that name a descriptor or a stream are written in place; replaced files
# keep their owner and mode, files with other hard links are refused; two
# outputs naming one file, a repeated output option and an empty path are
# usage errors before anything is written; every write to standard output
# and to a file handed to a printing method is checked; write errors name
# the path and the reason, at the user's line or at none.
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
REC="$ET_BUILD/fixtures/sample.etrecord"
MKZIP="$ET_BUILD/tools/mkzip"
[ -f "$S" ] && [ -f "$REC" ] || skip_all "build/fixtures missing (run make fixtures)"
cd "$T" || exit 1
cp "$S" d1.etdp && cp "$S" d2.etdp

# the mode bits of a file, as octal (e.g. 600)
mode() { stat -c %a "$1"; }
inode() { stat -c %i "$1"; }

# ---- 1. paths that name a descriptor or a stream: written in place ----

for p in /dev/stdout /proc/self/fd/1 /dev/fd/1 link; do
    rm -f link log.txt
    ln -s /dev/stdout link
    printf 'earlier line\n' >log.txt
    chmod 600 log.txt
    ino=$(inode log.txt)
    "$ETINSPECT" "$S" -q --tsv_path "$p" >>log.txt 2>err
    st=$?
    if [ $st -eq 0 ] && [ "$(head -n 1 log.txt)" = "earlier line" ] &&
        sed -n 2p log.txt | grep -q 'event_block_name' &&
        [ "$(mode log.txt)" = 600 ] && [ "$(inode log.txt)" = "$ino" ]; then
        pass "--tsv_path $p >> log.txt: appended after the earlier line; same file, mode 600"
    else
        fail "--tsv_path $p >> log.txt: appended after the earlier line; same file, mode 600" \
            "exit $st, mode $(mode log.txt), inode $ino -> $(inode log.txt), first lines:" \
            "$(head -n 2 log.txt | cut -c 1-60)" "$(cat err)"
    fi
done

# every writer goes through the one mechanism: --json, --html_path,
# --trace_path and the Lua library's emit
for opt in --json --html_path --trace_path; do
    printf 'earlier line\n' >log.txt
    "$ETINSPECT" "$S" -q "$opt" /dev/stdout >>log.txt 2>err
    st=$?
    if [ $st -eq 0 ] && [ "$(head -n 1 log.txt)" = "earlier line" ] && [ "$(wc -l <log.txt)" -gt 1 ]; then
        pass "$opt /dev/stdout >> log.txt: appended"
    else
        fail "$opt /dev/stdout >> log.txt: appended" "exit $st; $(cat err)"
    fi
done
printf 'earlier line\n' >log.txt
"$ETINSPECT" -e "etinspect.Inspector{etdump_path = '$S'}:save_data_to_tsv('/dev/stdout')" >>log.txt 2>err
if [ $? -eq 0 ] && [ "$(head -n 1 log.txt)" = "earlier line" ] && grep -q event_block_name log.txt; then
    pass "Lua save_data_to_tsv('/dev/stdout') >> log.txt: appended"
else
    fail "Lua save_data_to_tsv('/dev/stdout') >> log.txt: appended" "$(cat err)"
fi

# a pipe and a FIFO stay what they are
n=$("$ETINSPECT" "$S" -q --tsv_path /dev/stdout | wc -l)
[ "$n" -gt 2 ] && pass "--tsv_path /dev/stdout into a pipe: $n lines" ||
    fail "--tsv_path /dev/stdout into a pipe" "$n lines"
if mkfifo fifo 2>/dev/null; then
    cat fifo >from-fifo &
    reader=$!
    "$ETINSPECT" "$S" -q --tsv_path fifo 2>err
    st=$?
    wait $reader
    [ $st -eq 0 ] && [ -p fifo ] && grep -q event_block_name from-fifo &&
        pass "a FIFO: written in place, still a FIFO" ||
        fail "a FIFO: written in place, still a FIFO" "exit $st; $(cat err)"
else
    skip "mkfifo unavailable"
fi
"$ETINSPECT" "$S" -q --tsv_path /dev/stdin </dev/null >out 2>err
[ $? -eq 1 ] && grep -q "descriptor 0 is not open for writing" err &&
    pass "/dev/stdin open for reading only: refused, naming the descriptor" ||
    fail "/dev/stdin open for reading only: refused" "$(cat err)"

# ---- 2. replaced outputs keep their mode and owner; hard links ----

printf 'private\n' >private.tsv
chmod 600 private.tsv
"$ETINSPECT" "$S" -q --tsv_path private.tsv 2>err
[ $? -eq 0 ] && [ "$(mode private.tsv)" = 600 ] && grep -q event_block_name private.tsv &&
    pass "a 0600 report replaced: still 0600" ||
    fail "a 0600 report replaced: still 0600" "mode $(mode private.tsv); $(cat err)"
"$ETINSPECT" "$S" -q --json private.tsv --html_path private.html 2>err
[ "$(mode private.tsv)" = 600 ] && pass "... and by --json" || fail "... and by --json" "mode $(mode private.tsv)"
if [ "$(id -u)" = 0 ]; then
    chown 65534:65534 private.tsv
    "$ETINSPECT" "$S" -q --tsv_path private.tsv 2>err
    [ "$(stat -c %u:%g private.tsv)" = 65534:65534 ] &&
        pass "another user's file replaced (as root): still theirs" ||
        fail "another user's file replaced (as root): still theirs" "$(stat -c %u:%g private.tsv)"
else
    skip "not root: cannot give a file another owner"
fi
rm -f fresh.tsv
(umask 077 && "$ETINSPECT" "$S" -q --tsv_path fresh.tsv)
[ "$(mode fresh.tsv)" = 600 ] && pass "a new file: 0666 & ~umask (077: 600)" ||
    fail "a new file: 0666 & ~umask" "mode $(mode fresh.tsv)"

printf 'shared\n' >linked.tsv
ln linked.tsv other-name.tsv
"$ETINSPECT" "$S" --tsv_path linked.tsv >out 2>err
st=$?
if [ $st -eq 1 ] && grep -q "linked.tsv: the file has 2 hard links" err && [ ! -s out ] &&
    [ "$(cat linked.tsv)" = shared ] && [ "$(cat other-name.tsv)" = shared ] &&
    [ "$(inode linked.tsv)" = "$(inode other-name.tsv)" ]; then
    pass "a file with another hard link: refused before the table, both names unchanged"
else
    fail "a file with another hard link: refused before the table, both names unchanged" \
        "exit $st; $(cat err)"
fi

# ---- 3. one path, two outputs; a repeated output; an empty path ----

"$ETINSPECT" "$S" -q --sqlite_path fleet.db 2>err
cp fleet.db fleet.before
"$ETINSPECT" "$S" --sqlite_path fleet.db --tsv_path fleet.db >out 2>err
st=$?
[ $st -eq 2 ] && grep -q "arguments --tsv_path and --sqlite_path: both name the file 'fleet.db'" err &&
    cmp -s fleet.db fleet.before && [ ! -s out ] &&
    pass "--sqlite_path fleet.db --tsv_path fleet.db: usage error, the database untouched" ||
    fail "--sqlite_path fleet.db --tsv_path fleet.db: usage error, the database untouched" \
        "exit $st; $(cat err)"

usage_case() { # description, grep string, arguments...
    desc=$1 want=$2
    shift 2
    rm -f X Y a b
    "$ETINSPECT" "$@" >out 2>err
    st=$?
    if [ $st -eq 2 ] && grep -qF -- "$want" err && [ ! -s out ] && [ ! -e X ] && [ ! -e a ] &&
        [ ! -e b ]; then
        pass "$desc: exit 2, nothing written"
    else
        fail "$desc: exit 2, nothing written" "exit $st; $(cat err)"
    fi
}
usage_case "--tsv_path X --json X" "arguments --tsv_path and --json: both name the file 'X'" \
    "$S" --tsv_path X --json X
ln -s X to-x
usage_case "--tsv_path X --json LINK-TO-X (not there yet)" "both name the file" \
    "$S" --tsv_path to-x --json X
usage_case "--tsv_path X --json ./X" "both name the file" "$S" --tsv_path X --json ./X
usage_case "--tsv_path X --trace_path X" "both name the file" "$S" --tsv_path X --trace_path X
usage_case "--json X --html_path X" "both name the file" "$S" --json X --html_path X
usage_case "several dumps: --tsv_path X --json X" "both name the file" d1.etdp d2.etdp --tsv_path X --json X
usage_case "--tsv_path a --tsv_path b" "argument --tsv_path: given twice ('a' and 'b')" \
    "$S" --tsv_path a --tsv_path b
usage_case "--json a --json=b" "argument --json: given twice" "$S" --json a --json=b
usage_case "--json ''" "argument --json: the path is empty" "$S" --json ''
usage_case "--tsv_path=''" "argument --tsv_path: the path is empty" "$S" --tsv_path=
usage_case "--etdump_path ''" "argument --etdump_path: the path is empty" --etdump_path ''
usage_case "--etrecord_path ''" "argument --etrecord_path: the path is empty" "$S" --etrecord_path ''
cp "$S" in.etdp
usage_case "an output naming the input" "refusing to overwrite an input file" in.etdp --tsv_path in.etdp
"$ETINSPECT" "$S" -q --tsv_path /dev/null --json /dev/null 2>err
[ $? -eq 0 ] && pass "two outputs to /dev/null (streams, written one after the other): allowed" ||
    fail "two outputs to /dev/null: allowed" "$(cat err)"

# ---- 5. every write is checked ----

if [ -w /dev/full ]; then
    full_case() { # description, arguments...
        desc=$1
        shift
        "$ETINSPECT" "$@" >/dev/full 2>err
        st=$?
        if [ $st -eq 1 ] && [ "$(grep -c . err)" -eq 1 ] &&
            grep -q "^etinspect: error: standard output: write failed: No space left on device" err; then
            pass "$desc > /dev/full: exit 1, one error naming standard output and the reason"
        else
            fail "$desc > /dev/full: exit 1, one error naming standard output and the reason" \
                "exit $st; $(cat err)"
        fi
    }
    full_case "--help" --help
    full_case "--version" --version
    full_case "--list-scripts" --list-scripts
    full_case "--help top_ops" --help top_ops
    full_case "the table" "$S"
    full_case "the tables of several dumps" d1.etdp d2.etdp
    full_case "the memory table" "$ET_BUILD/fixtures/memory_round.etdp" -q --memory
    full_case "the legacy tables" --profile_results_path "$ET_SRC/tests/legacy/main.bin"
    full_case "a bundled script" top_ops "$S"
    full_case "the ETRecord summary" "$REC"
    full_case "-e print" -e 'print("hello")'
    full_case "-e io.write, a large one" -e 'io.write(string.rep("x", 100000))'
    full_case "-e io.write then os.exit(0)" -e 'io.write("x") os.exit(0)'
    "$ETINSPECT" -e "etinspect.Inspector{etdump_path = '$S'}:print_data_tabular()" >/dev/full 2>err
    [ $? -eq 1 ] && grep -q "(command line):1: standard output: write failed: No space left on device" err &&
        pass "print_data_tabular() > /dev/full: exit 1, at the user's line, naming standard output" ||
        fail "print_data_tabular() > /dev/full: exit 1, naming standard output" "$(cat err)"
    "$ETINSPECT" -e "etinspect.Inspector{etdump_path = '$S'}:print_data_tabular(io.open('/dev/full', 'w'))" 2>err
    st=$?
    [ $st -eq 1 ] && grep -q "Inspector:print_data_tabular: write failed: No space left on device" err &&
        ! grep -q "etinspect.report:" err &&
        pass "print_data_tabular(a full file): exit 1, the reason, no internal position" ||
        fail "print_data_tabular(a full file): exit 1, the reason" "exit $st; $(cat err)"
    "$ETINSPECT" -e "etinspect.open_many{'d1.etdp', 'd2.etdp'}:print_data_tabular{file = io.open('/dev/full', 'w')}" 2>err
    [ $? -eq 1 ] && grep -q "write failed: No space left on device" err &&
        pass "Dumps:print_data_tabular{file = a full file}: exit 1" ||
        fail "Dumps:print_data_tabular{file = a full file}: exit 1" "$(cat err)"
    "$ETINSPECT" -e 'local f = io.open("kept.txt", "w") f:write("kept") io.write("x") os.exit(0)' \
        >/dev/full 2>err
    [ $? -eq 1 ] && [ "$(cat kept.txt)" = kept ] &&
        pass "stdout failed after os.exit(0): exit 1, the script's own open file still flushed" ||
        fail "stdout failed after os.exit(0): the script's own open file still flushed" "$(cat err)"
    "$ETINSPECT" -e 'os.exit(0)' >/dev/full 2>err
    [ $? -eq 0 ] && [ ! -s err ] && pass "nothing written to a full stdout: exit 0" ||
        fail "nothing written to a full stdout: exit 0" "$(cat err)"
else
    skip "no /dev/full"
fi
"$ETINSPECT" --help >&- 2>err
[ $? -eq 1 ] && grep -q "standard output: write failed: Bad file descriptor" err &&
    pass "--help with stdout closed: exit 1, named" ||
    fail "--help with stdout closed: exit 1, named" "$(cat err)"
"$ETINSPECT" -e '' >&- 2>err
[ $? -eq 0 ] && pass "nothing written, stdout closed: exit 0" ||
    fail "nothing written, stdout closed: exit 0" "$(cat err)"

# ---- 16. clear errors ----

M="$CORPUS/etdump/medium.etdp"
if [ -f "$M" ]; then
    # the page's text fits in 512 KB, its data does not (SIGXFSZ is
    # ignored by etinspect: the write fails with "File too large")
    (ulimit -f 1000 && "$ETINSPECT" "$M" -q --html_path capped.html) 2>err
    st=$?
    [ $st -eq 1 ] && grep -q "error: capped.html: write failed: File too large" err &&
        [ ! -e capped.html ] &&
        pass "--html_path over the size limit: the path and the reason, nothing left" ||
        fail "--html_path over the size limit: the path and the reason" "exit $st; $(cat err)"
else
    skip "medium.etdp not in the corpus"
fi
cat >npy.lua <<'EOF'
local t = etinspect.Tensor.new { dtype = "float32", shape = { 2 }, values = { 1, 2 } }
etinspect.write_npy("no-such-dir/x.npy", t)
EOF
"$ETINSPECT" npy.lua 2>err
[ $? -eq 1 ] && grep -q "npy.lua:2: no-such-dir/x.npy: cannot create a file beside it" err &&
    ! grep -q "etinspect.numeric:[0-9]*: no-such" err &&
    pass "write_npy: the error at the user's line, no internal position" ||
    fail "write_npy: the error at the user's line" "$(cat err)"
"$ETINSPECT" -e 'etinspect.write_npy("/dev/full", etinspect.Tensor.new { dtype = "float32", shape = { 2 }, values = { 1, 2 } })' 2>err
[ $? -eq 1 ] && grep -q "(command line):1: /dev/full: write failed: No space left on device" err &&
    pass "write_npy to a full file: named, at the user's line" ||
    fail "write_npy to a full file: named, at the user's line" "$(cat err)"
if [ -x "$MKZIP" ]; then
    "$MKZIP" bad.etrecord ETRECORD_V0=@ \
        'edge_dialect_exported_program/forward=@{"graph_module": {"graph": {"nodes": 3}}}' \
        'debug_handle_map=@{"forward": {"0": [1]}}' 'export_graph_id=@0'
    "$ETINSPECT" bad.etrecord >out 2>err
    st=$?
    if [ $st -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] &&
        grep -q "^etinspect: error: bad.etrecord: entry 'edge_dialect_exported_program/forward': not a serialized exported program: expected an array" err &&
        [ ! -s out ]; then
        pass "an ETRecord with a malformed graph: one line naming the file and what was expected"
    else
        fail "an ETRecord with a malformed graph: one line" "exit $st; $(head -n 3 err)"
    fi
    "$MKZIP" bad2.etrecord ETRECORD_V0=@ \
        'edge_dialect_exported_program/forward=@{"graph_module": {"graph": {"nodes": [' \
        'debug_handle_map=@{"forward": {"0": [1]}}' 'export_graph_id=@0'
    "$ETINSPECT" bad2.etrecord >out 2>err
    [ $? -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "bad2.etrecord: entry .*: invalid JSON at line 1" err &&
        pass "... and with graph JSON cut short" ||
        fail "... and with graph JSON cut short" "$(head -n 3 err)"
else
    skip "mkzip not built"
    skip "mkzip not built"
fi

done_testing
