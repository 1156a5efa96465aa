#!/bin/sh
# repl_history.t - the REPL's history file ($XDG_STATE_HOME/etinspect/history):
# each entry is appended as it runs, so a session that ends without .quit
# (the terminal closed, the process killed) keeps its lines; a write that
# fails (a full disk; here a file size limit) leaves the file as it was,
# never a truncated stub; a file over 2000 entries is trimmed to its last
# 1000 through a temporary file renamed over it; entries over several
# lines, with backslashes or UTF-8, come back as typed.
. "$(dirname "$0")/lib.sh"
DRIVE="$ET_BUILD/tools/ptydrive"
[ -x "$DRIVE" ] || skip_all "ptydrive not built"
export XDG_STATE_HOME="$T/state"
export XDG_CONFIG_HOME="$T/config" # no startup file of the machine's user
H="$T/state/etinspect/history"

drive() { # drive NAME: run the steps of $T/NAME.pty against the REPL
    "$DRIVE" "$T/$1.pty" "$ETINSPECT" -i >"$T/$1.log" 2>&1
}
KILL='send os.execute("kill -KILL " .. io.open("/proc/self/stat"):read("n"))\n'

# a session killed: its lines are in the file
cat >"$T/killed.pty" <<PTY
expect > 
send marker_a = [[\xc2\xb5s \\\\ back]]\n
expect > 
send for i = 1,\n
expect >> 
send 2 do end\n
expect > 
send print("recalled " .. "ok")\n
expect recalled ok
$KILL
sleep 300
PTY
drive killed
# one backslash typed, written doubled
if grep -qxF 'marker_a = [[µs \\ back]]' "$H" 2>/dev/null; then
    pass "a killed session: its first entry is in the file (a backslash as \\\\)"
else
    fail "a killed session: its first entry is in the file (a backslash as \\\\)" "$(cat "$H" 2>&1)" "$(tail -n 5 "$T/killed.log")"
fi
grep -qxF 'for i = 1,\n2 do end' "$H" 2>/dev/null && pass "a statement over two lines: one entry, its newline as \\n" ||
    fail "a statement over two lines: one entry, its newline as \\n" "$(cat "$H" 2>&1)"
[ "$(grep -c . "$H" 2>/dev/null)" = 4 ] && pass "4 entries, the kill included" || fail "4 entries, the kill included" "$(cat "$H" 2>&1)"
[ "$(stat -c %a "$H" 2>/dev/null)" = 600 ] && pass "the file is private (0600)" || fail "the file is private (0600)" "$(stat -c %a "$H" 2>&1)"

# the next session recalls them as typed
cat >"$T/recall.pty" <<'PTY'
expect > 
sleep 200
send \e[A
sleep 200
send \e[A
sleep 200
send \n
expect recalled ok
sleep 200
send \e[A
sleep 100
send \e[A
sleep 100
send \e[A
sleep 100
send \e[A
sleep 100
send \e[A
sleep 100
send \n
send print(marker_a, #marker_a)\n
expect µs \\ back	10
send .quit\n
PTY
ok "the next session recalls the entries, UTF-8 and backslash as typed" drive recall

# a write that fails leaves the file as it was (ulimit -f: the size limit
# of a full disk, in 512-byte blocks; SIGXFSZ ignored so writes fail with EFBIG)
i=0
: >"$T/h500"
while [ $i -lt 500 ]; do
    printf 'print("history line %03d of a long session")\n' $i >>"$T/h500"
    i=$((i + 1))
done
cp "$T/h500" "$H"
cat >"$T/full.pty" <<PTY
expect > 
mark
send x = 1\n
expect cannot write
send y = 2\n
send print("still " .. "here")\n
expect still here
save $T/full.out
send .quit\n
PTY
(trap '' XFSZ; ulimit -f 16; drive full)
rc=$?
size=$(wc -c <"$T/h500")
if [ "$(head -c "$size" "$H" | cmp - "$T/h500" && echo same)" = same ]; then
    pass "a full disk: the 500-line history is whole ($size bytes)"
else
    fail "a full disk: the 500-line history is whole ($size bytes)" "now $(wc -c <"$H") bytes"
fi
[ $rc -eq 0 ] && grep -q "etinspect: history .*: cannot write: File too large; this session's lines are not saved" "$T/full.out" &&
    pass "... said, and the session went on" || fail "... said, and the session went on" "$(tail -n 5 "$T/full.log")"
[ "$(grep -c "cannot write" "$T/full.out")" = 1 ] && pass "... once" || fail "... once" "$(cat "$T/full.out")"

# trimmed through a rename: 2500 entries become the last 1000 and the new ones
i=0
: >"$H"
while [ $i -lt 2500 ]; do
    printf 'e%d = %d\n' $i $i >>"$H"
    i=$((i + 1))
done
ln "$H" "$T/old-link"
cat >"$T/trim.pty" <<'PTY'
expect > 
send after_trim = 1\n
expect > 
send .quit\n
PTY
ok "a session over a 2500-entry history" drive trim
[ "$(wc -l <"$H")" = 1002 ] && [ "$(head -n 1 "$H")" = "e1500 = 1500" ] && [ "$(tail -n 2 "$H")" = "$(printf 'after_trim = 1\n.quit')" ] &&
    pass "trimmed to the last 1000 entries, then the new ones appended" ||
    fail "trimmed to the last 1000 entries, then the new one appended" "$(wc -l <"$H") lines, first $(head -n 1 "$H")"
[ "$(wc -l <"$T/old-link")" = 2500 ] && pass "the rewrite replaced the file by a rename (the old inode is untouched)" ||
    fail "the rewrite replaced the file by a rename (the old inode is untouched)"
ls "$T/state/etinspect" | grep -q 'history\.' && fail "no temporary file left" "$(ls "$T/state/etinspect")" || pass "no temporary file left"

# libedit's own format (earlier versions): read, then rewritten in ours
printf '_HiStOrY_V2_\nprint("legacy\\040entry")\n' >"$H"
cat >"$T/legacy.pty" <<'PTY'
expect > 
sleep 200
send \e[A
sleep 200
send \n
expect legacy entry
send .quit\n
PTY
ok "a history written by libedit (earlier versions) is recalled" drive legacy
[ "$(head -n 1 "$H")" = 'print("legacy entry")' ] && pass "... and rewritten in the line format" ||
    fail "... and rewritten in the line format" "$(cat "$H")"
done_testing
