#!/bin/sh
# repl_input.t - the REPL's input.  Input that is not a terminal is read by
# the bounded line reader (src/host/linereader.c), never by libedit: a NUL
# byte or a line over 1 MiB ends the session with a message naming the
# line and exit status 1 (random bytes aborted the process in libedit;
# -i < /dev/zero grew without bound); bytes pass unchanged.  On a terminal
# (tests/tools/ptydrive), non-ASCII bytes typed reach Lua whatever the
# locale (they were all deleted).
. "$(dirname "$0")/lib.sh"
DRIVE="$ET_BUILD/tools/ptydrive"
export XDG_STATE_HOME="$T/state"
export XDG_CONFIG_HOME="$T/config" # no startup file of the machine's user

# ---- a pipe ----
head -c 92000 /dev/urandom >"$T/random.bin"
# make sure of a NUL in the first line of 60 or so bytes
printf 'x = 1 \000 y\n' | cat - "$T/random.bin" >"$T/rnd"
"$ETINSPECT" -i <"$T/rnd" >"$T/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^etinspect: stdin:1: a NUL byte at byte 7 of the line: the REPL reads text; input ends here" "$T/out"; then
    pass "random bytes on a pipe: exit 1, the NUL byte named (stdin:1, byte 7)"
else
    fail "random bytes on a pipe: exit 1, the NUL byte named (stdin:1, byte 7)" "exit $rc" "$(tail -n 3 "$T/out")"
fi
for i in 1 2 3 4 5; do
    head -c 92000 /dev/urandom >"$T/r$i"
    "$ETINSPECT" -i <"$T/r$i" >"$T/out" 2>&1
    rc=$?
    [ $rc -le 1 ] || break
done
[ $rc -le 1 ] && pass "5 files of 92 KB of random bytes: no crash (exit $rc)" ||
    fail "5 files of 92 KB of random bytes: no crash" "exit $rc" "$(tail -n 3 "$T/out")"

printf 'print("before")\nprint("a\000b")\nprint("after")\n' | "$ETINSPECT" -i >"$T/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^before" "$T/out" && ! grep -q "after" "$T/out" &&
    grep -q "stdin:2: a NUL byte at byte 9 of the line" "$T/out"; then
    pass "a NUL byte on line 2: line 1 ran, the session ends there, exit 1"
else
    fail "a NUL byte on line 2: line 1 ran, the session ends there, exit 1" "exit $rc" "$(cat "$T/out")"
fi

# /dev/zero: bounded, ends at once
timeout 60 "$ETINSPECT" -i </dev/zero >"$T/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "stdin:1: a line longer than 1048576 bytes (1 MiB): input ends here" "$T/out"; then
    pass "-i < /dev/zero: ends with 'a line longer than 1048576 bytes', exit 1"
else
    fail "-i < /dev/zero: ends with 'a line longer than 1048576 bytes', exit 1" "exit $rc" "$(head -c 300 "$T/out")"
fi
# the limit: 1 MiB passes, one byte more does not
lua5.4 -e 'io.write("s = \"", string.rep("a", 1048576 - 6), "\"\nprint(#s)\n")' >"$T/max.lua"
out=$("$ETINSPECT" -i <"$T/max.lua" 2>&1)
[ "$out" = "1048570" ] && pass "a line of exactly 1 MiB is read" || fail "a line of exactly 1 MiB is read" "$(printf %s "$out" | head -c 200)"
lua5.4 -e 'io.write("print(1)\ns = \"", string.rep("a", 1048576 - 5), "\"\nprint(#s)\n")' >"$T/over.lua"
"$ETINSPECT" -i <"$T/over.lua" >"$T/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && [ "$(head -n 1 "$T/out")" = "1" ] && grep -q "stdin:2: a line longer than 1048576" "$T/out" &&
    [ "$(wc -l <"$T/out")" -eq 2 ]; then
    pass "a line of 1 MiB + 1 byte: refused (stdin:2), after line 1 ran"
else
    fail "a line of 1 MiB + 1 byte: refused (stdin:2), after line 1 ran" "exit $rc" "$(head -c 300 "$T/out")"
fi

# bytes unchanged: UTF-8 and not
out=$(printf 'print("\302\265s", #"\302\265s")\nprint(#"\351t\351")\nprint("no newline at the end")' | "$ETINSPECT" -i 2>&1)
want=$(printf '\302\265s\t3\n3\nno newline at the end')
[ "$out" = "$want" ] && pass "a pipe: UTF-8 and Latin-1 bytes come through unchanged; a last line without newline runs" ||
    fail "a pipe: UTF-8 and Latin-1 bytes come through unchanged; a last line without newline runs" "$out"
out=$(printf 'for i = 1,\n2 do io.write(i) end print()\r\nprint("cr")\n' | "$ETINSPECT" -i 2>&1)
[ "$out" = "$(printf '12\ncr')" ] && pass "a pipe: a statement over two lines" ||
    fail "a pipe: a statement over two lines" "$out"
out=$(printf '' | "$ETINSPECT" -i 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && pass "empty input: exit 0, nothing printed" || fail "empty input: exit 0, nothing printed" "exit $rc" "$out"
: >"$T/stateless"
[ ! -e "$T/state/etinspect/history" ] && pass "a pipe writes no history" || fail "a pipe writes no history"

# ---- a terminal ----
if [ -x "$DRIVE" ]; then
    mkdir -p "$T/dir"
    S="$ET_BUILD/fixtures/sample.etdp"
    [ -f "$S" ] && cp "$S" "$T/dir/$(printf 'mod\303\250le.etdp')"
    cat >"$T/utf8.pty" <<'PTY'
expect > 
send print("µs", #"µs")\n
expect µs	3
send print(#"\xc3\xa9t\xc3\xa9")\n
expect 5
send .open modèle.etdp\n
expect insp = Inspector 'modèle.etdp'
send .quit\n
PTY
    for loc in C.UTF-8 C; do
        (cd "$T/dir" && env -u LC_ALL -u LC_CTYPE LANG=$loc "$DRIVE" "$T/utf8.pty" "$ETINSPECT" -i) >"$T/utf8.log" 2>&1 &&
            pass "a terminal, LANG=$loc: non-ASCII typed reaches Lua unchanged (print, .open modèle.etdp)" ||
            fail "a terminal, LANG=$loc: non-ASCII typed reaches Lua unchanged (print, .open modèle.etdp)" "$(tail -n 5 "$T/utf8.log")"
    done
else
    skip "ptydrive not built"
fi
done_testing
