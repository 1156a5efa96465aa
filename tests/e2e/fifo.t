#!/bin/sh
# fifo.t - a FIFO given as any input (issue 25, item 11) is refused with
# "PATH: not a regular file" at once: an input is opened without blocking,
# then checked, so a FIFO nobody writes to never makes the open wait.
# Every input path of the command line and of the Lua API: the dump, a
# debug buffer, an ETRecord, a BundledProgram, a legacy profiler dump, a
# positional input, read_npy, open_many (a FIFO named, and one inside a
# directory, which is left out).  Then what runs as Lua or is read by the
# library: a script, a module (require, -l, package.searchpath), dofile,
# loadfile, an AOT outputs index, the REPL's history, and write_html's
# check of its output path.  `timeout` turns a
# hang into a failure.
. "$(dirname "$0")/lib.sh"

C="$CORPUS/etdump"
[ -f "$C/small.etdp" ] || skip_all "corpus not found"
mkfifo "$T/ff" || skip_all "mkfifo failed"

run() { timeout 20 "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
refused() { # description, then the arguments
    desc=$1
    shift
    run "$@"
    if [ "$(cat "$T/status")" -eq 1 ] && grep -qF "$T/ff: not a regular file" "$T/err"; then
        pass "$desc: refused, not a regular file"
    else
        fail "$desc: refused, not a regular file" "status $(cat "$T/status") (124: it hung)" \
            "$(head -c 300 "$T/err")"
    fi
}

refused "--etdump_path FIFO" --etdump_path "$T/ff"
refused "--debug_buffer_path FIFO" --etdump_path "$C/debug.etdp" --debug_buffer_path "$T/ff"
refused "--etrecord_path FIFO" --etdump_path "$C/small.etdp" --etrecord_path "$T/ff"
refused "--bundled_program_path FIFO" --etdump_path "$C/small.etdp" --bundled_program_path "$T/ff"
refused "--profile_results_path FIFO" --profile_results_path "$T/ff"
refused "a FIFO as the positional input" "$T/ff"
refused "a FIFO as the second positional input" "$C/small.etdp" "$T/ff"
refused "Lua: Inspector{etdump_path = FIFO}" -e "etinspect.Inspector{etdump_path = '$T/ff'}"
refused "Lua: Inspector{debug_buffer_path = FIFO}" \
    -e "etinspect.Inspector{etdump_path = '$C/debug.etdp', debug_buffer_path = '$T/ff'}"
refused "Lua: parse_etrecord(FIFO)" -e "etinspect.parse_etrecord('$T/ff')"
refused "Lua: read_npy(FIFO)" -e "etinspect.read_npy('$T/ff')"
refused "Lua: open_many{FIFO}" -e "etinspect.open_many{'$T/ff'}"

# a directory's FIFO is not one of its dumps (and is never opened blocking)
mkdir "$T/dir"
cp "$C/small.etdp" "$T/dir/a.etdp"
mkfifo "$T/dir/b.etdp"
run -e "print(#etinspect.open_many('$T/dir'))"
if [ "$(cat "$T/status")" -eq 0 ] && [ "$(cat "$T/out")" = 1 ]; then
    pass "open_many(DIR): a FIFO in the directory is left out"
else
    fail "open_many(DIR): a FIFO in the directory is left out" "status $(cat "$T/status")" \
        "$(cat "$T/out" "$T/err" | head -c 300)"
fi

# Lua code and the library's own reads (issue 25, item 11, continued): a
# FIFO named as a script, a module, a dofile/loadfile argument, an AOT
# outputs index or the REPL's history is refused, never waited for (Lua's
# loader and package.searchpath used fopen, which blocks on a FIFO)
mkdir "$T/mod" "$T/aot"
mkfifo "$T/ff.lua" "$T/mod/m.lua" "$T/aot/index.json"
says() { # description, the message expected, then the arguments
    desc=$1
    want=$2
    shift 2
    run "$@"
    if [ "$(cat "$T/status")" -eq 1 ] && grep -qF "$want" "$T/err"; then
        pass "$desc: refused"
    else
        fail "$desc: refused" "status $(cat "$T/status") (124: it hung)" \
            "$(head -c 300 "$T/err")"
    fi
}
NR="not a regular file"
says "a FIFO as the script x.lua" "$T/ff.lua: $NR" "$T/ff.lua"
says "dofile(FIFO)" "cannot open $T/ff.lua: $NR" -e "dofile('$T/ff.lua')"
says "loadfile(FIFO)" "cannot open $T/ff.lua: $NR" -e "error(select(2, loadfile('$T/ff.lua')))"
says "require of a FIFO module" "cannot open $T/mod/m.lua: $NR" \
    -e "package.path = '$T/mod/?.lua'; require 'm'"
LUA_PATH="$T/mod/?.lua"
export LUA_PATH
says "-l of a FIFO module" "cannot open $T/mod/m.lua: $NR" -l m
unset LUA_PATH
says "package.searchpath finds a FIFO without opening it for good" "$T/mod/m.lua" \
    -e "error(package.searchpath('m', '$T/mod/?.lua'))"
says "numeric.load_aot_outputs: a FIFO index.json" "$T/aot/index.json: $NR" \
    -e "etinspect.load_aot_outputs('$T/aot')"

# write_html to a FIFO with a reader: the page streams through it (its
# check that the output is not an input opened the FIFO to read, waiting
# for a writer that was itself)
mkfifo "$T/page"
(timeout 20 cat "$T/page" >"$T/page.out") &
reader=$!
run -e "etinspect.Inspector{etdump_path = '$C/small.etdp'}:write_html('$T/page')"
wait "$reader"
if [ "$(cat "$T/status")" -eq 0 ] && grep -q '^<!DOCTYPE html>' "$T/page.out"; then
    pass "write_html(FIFO): the page goes through it"
else
    fail "write_html(FIFO): the page goes through it" "status $(cat "$T/status") (124: it hung)" \
        "$(head -c 300 "$T/err")"
fi

# the REPL's history a FIFO: not read (and said), the session goes on
DRIVE="$ET_BUILD/tools/ptydrive"
if [ -x "$DRIVE" ]; then
    mkdir -p "$T/state/etinspect"
    mkfifo "$T/state/etinspect/history"
    printf 'expect history %s: not a regular file\nexpect > \nsend print(6 * 7)\\n\nexpect 42\nsend .quit\\n\n' \
        "$T/state/etinspect/history" >"$T/h.pty"
    XDG_STATE_HOME="$T/state" timeout 30 "$DRIVE" "$T/h.pty" "$ETINSPECT" -i >"$T/h.log" 2>&1
    st=$?
    if [ "$st" -eq 0 ]; then
        pass "the REPL's history a FIFO: not read, said, the session runs"
    else
        fail "the REPL's history a FIFO: not read, said, the session runs" "status $st" \
            "$(head -c 400 "$T/h.log")"
    fi
else
    skip "ptydrive not built"
fi
done_testing
