#!/bin/sh
# repl.t - the interactive shell, driven through a pseudo-terminal
# (tests/tools/ptydrive): completion, history, errors, Ctrl-C (of a
# statement and of printing), display on a terminal, the pager, meta
# commands, and no panic whatever a statement does to the REPL's state.
# The Lua half's details (completion, display, meta commands) are in
# tests/lua/repl.t.
. "$(dirname "$0")/lib.sh"
DRIVE="$ET_BUILD/tools/ptydrive"
S="$ET_BUILD/fixtures/sample.etdp"
R="$ET_BUILD/fixtures/sample.etrecord"
M="$ET_SHARED/corpus/etdump/medium.etdp"
[ -x "$DRIVE" ] || skip_all "ptydrive not built"
[ -f "$S" ] || skip_all "sample fixture not built"
export XDG_STATE_HOME="$T/state"
export XDG_CONFIG_HOME="$T/config" # no startup file of the machine's user

drive() { # drive NAME [ptydrive options]: run the steps in $T/NAME.pty against the REPL
    name=$1
    shift
    "$DRIVE" "$@" "$T/$name.pty" "$ETINSPECT" -i >"$T/$name.log" 2>&1
}
show_log() { [ -s "$T/$1.log" ] && sed 's/^/#   /' "$T/$1.log" | tail -n 8 >&2; }

cat >"$T/session1.pty" <<PTY
expect > 
send x = 41\n
send etinsp\t
expect etinspect
send .vers\t
expect etinspect.version
send \n
expect 0.1.0
send error('bad thing')\n
expect bad thing
expect stack traceback
send 1+1\n
expect 2
send .open $S\n
expect insp = Inspector
send insp.event_b\t
expect insp.event_blocks
send \n
expect EventBlock 'Default'
send insp:to_d\t
expect insp:to_dataframe
send ():select{'event_name'}:head(1)\n
expect Method::init
send .mode markdown\n
send insp:to_dataframe():select{'event_name'}:head(1)\n
expect | Method::init
send while true do end\n
sleep 400
send \x03
expect interrupted!
send for i = 1,\n
expect >> 
send 2 do io.write(i) end print()\n
expect 12
send print('still' .. ' alive')\n
expect still alive
send .quit\n
PTY
ok "session 1: completion (globals, module fields, userdata fields and methods), errors, Ctrl-C, .open, .mode, multi-line input" drive session1
show_log session1
ok "history written to \$XDG_STATE_HOME/etinspect/history" grep -q "insp.event_blocks" "$T/state/etinspect/history"

cat >"$T/session2.pty" <<PTY
expect > 
sleep 200
send \e[A
sleep 200
send \e[A
sleep 200
send \n
expect still alive
send .quit\n
PTY
ok "session 2: history recalled (Up twice re-runs the print)" drive session2

# completion: the acceptance cases, run from a directory with ../shelf/
mkdir -p "$T/wd/shelf" "$T/wd/b"
cat >"$T/complete.pty" <<PTY
expect > 
send .open $S\n
expect insp = 
send insp.event_blocks[1].events[1].perf_d\t
expect perf_data
send \n
expect PerfData(n=1
send df = insp:to_dataframe()\n
send df:so\t
expect df:sort
send ('avg (ms)', true):select{'event_name'}:head(1)\n
expect Method::execute
send .mo\t
expect .mode 
send tsv\n
send df:select{'event_name'}:head(1)\n
expect 0	Method::init
send .open ../sh\t
expect ../shelf/
send \n
expect .open: ../shelf/: is a directory with no ETDump in it
send etinspect.Inspector{etdump_p\t
expect etdump_path
send  = '$S'}.format\n
expect "etdump"
send .quit\n
PTY
ok "completion: insp.event_blocks[1].events[1].perf_d, df:so, .mo, .open ../sh, Inspector{etdump_p" \
    sh -c "cd '$T/wd/b' && '$DRIVE' '$T/complete.pty' '$ETINSPECT' -i >'$T/complete.log' 2>&1"
show_log complete

# the medium frame on a 40 x 100 terminal: pandas' layout, fitted
if [ -f "$M" ]; then
    cat >"$T/frame.pty" <<PTY
expect > 
send .open $M\n
expect insp = 
send df = insp:to_dataframe()\n
send print('MA' .. 'RK')\n
expect MARK
mark
send df\n
expect columns]
save $T/frame.out
send .quit\n
PTY
    ok "medium frame: printed on a 40 x 100 terminal" drive frame -s 40x100
    show_log frame
    tr -d '\r' <"$T/frame.out" >"$T/frame.txt"
    lines=$(wc -l <"$T/frame.txt")
    widest=$("$ETINSPECT" -e "local w = 0 for l in io.lines('$T/frame.txt') do w = math.max(w, utf8.len(l) or #l) end print(w)")
    ok "medium frame: $lines lines (at most 100; pandas shows min_rows of 403)" test "$lines" -le 100 -a "$lines" -ge 10
    ok "medium frame: lines of at most $widest characters (the terminal has 100)" test "$widest" -le 100
    ok "medium frame: the footer" grep -q '^\[403 rows x [0-9]* columns\]$' "$T/frame.txt"
    ok "medium frame: head and tail around a '...' row" grep -q '^\.\.\. ' "$T/frame.txt"

    # taller than the terminal: through $PAGER, as psql does; .pager off
    cat >"$T/pager.pty" <<PTY
expect > 
send .open $M\n
expect insp = 
send .set min_rows 40\n
send insp:to_dataframe()\n
sleep 300
send print('after' .. ' the pager')\n
expect after the pager
send .pager off\n
send 1+1\n
expect 2
send print('MA' .. 'RK')\n
expect MARK
mark
send insp:to_dataframe()\n
expect columns]
save $T/direct.out
send .quit\n
PTY
    rm -f "$T/paged.txt"
    ok "pager: a session with PAGER set, on a 24 x 80 xterm" \
        env PAGER="cat >'$T/paged.txt'" "$DRIVE" -t xterm -s 24x80 "$T/pager.pty" "$ETINSPECT" -i
    ok "pager: the frame taller than the terminal went through \$PAGER" \
        grep -q '^\[403 rows x [0-9]* columns\]$' "$T/paged.txt"
    ok "pager: only it" test "$(grep -c 'rows x' "$T/paged.txt")" -eq 1
    ok "pager: .pager off prints it on the terminal" grep -q 'rows x [0-9]* columns' "$T/direct.out"
else
    skip "medium.etdp not in the corpus: frame and pager sessions"
fi

# Ctrl-C while a result prints: the terminal reads nothing for a while, so
# the REPL's writes block; without Ctrl-C the 20 MB would take long past
# the 10 s ptydrive waits for "interrupted!"
cat >"$T/ctrlc.pty" <<PTY
expect > 
send big = (string.rep('x', 99) .. string.char(10)):rep(200000)\n
send print('MA' .. 'RK')\n
expect MARK
send big\n
expect "xxxxxxxxxx
pause 300
send \x03
expect interrupted!
expect > 
send print('after' .. ' printing')\n
expect after printing
send .set max_rows none\n
send t = {} for i = 1, 2000000 do t[i] = i end\n
send function show() print('REN' .. 'DER') return t end\n
send show()\n
expect RENDER
pause 300
send \x03
expect interrupted!
send print('after' .. ' rendering')\n
expect after rendering
send print('LO' .. 'OP') while true do pcall(function() while true do end end) end\n
expect LOOP
sleep 200
send \x03
expect interrupted!
send co = coroutine.wrap(function() while true do end end)\n
send print('CORO' .. 'UTINE') co()\n
expect COROUTINE
sleep 200
send \x03
expect interrupted!
send cy = coroutine.wrap(function() coroutine.yield() while true do end end) cy()\n
send print('YIE' .. 'LDED') cy()\n
expect YIELDED
sleep 200
send \x03
expect interrupted!
send print('MA' .. 'SK=' .. select(2, debug.gethook()) .. ',' .. select(3, debug.gethook()))\n
expect MASK=cr,0
send print('after' .. ' loops')\n
expect after loops
send .quit\n
PTY
ok "Ctrl-C stops printing (a blocked write), rendering, a loop around pcall, a coroutine (also after a yield); the prompt comes back" \
    drive ctrlc
show_log ctrlc

# no input line can panic the REPL
cat >"$T/panic.lua" <<LUA
etinspect = nil
.open $S
insp.format
debug.getregistry()["etinspect.repl"] = nil
.mode plain
require = nil
.mode box
package.loaded["etinspect.repl"] = 5
debug.getregistry()["etinspect.repl"] = nil
.mode csv
package.loaded["etinspect.repl"] = nil
package.preload["etinspect.repl"] = function() error("no repl") end
.mode csv
print("alive")
LUA
"$ETINSPECT" -i <"$T/panic.lua" >"$T/panic.out" 2>&1
ok "panics: exit 0 after scripts broke the REPL's state" test $? -eq 0
ok "panics: etinspect = nil, then .open works" grep -q '^insp = Inspector' "$T/panic.out"
ok "panics: .mode works after scripts broke the globals" test "$(grep -c '^etinspect\.' "$T/panic.out")" -eq 0
ok "panics: the REPL's registry entry cannot be cleared (the registry is read-only to scripts)" \
    grep -q "debug.getregistry: the registry is read-only" "$T/panic.out"
ok "panics: statements still run" grep -q '^alive$' "$T/panic.out"

rm -rf "$T/state2"
printf 'x = 1\nprint(x + 1)\n' | XDG_STATE_HOME="$T/state2" "$ETINSPECT" -i >"$T/pipe.out" 2>&1
ok "stdin not a terminal: statements still run" grep -q "^2$" "$T/pipe.out"
ok "stdin not a terminal: no history file" test ! -e "$T/state2/etinspect/history"
printf '.help\n.mode nope\n.mode\n.bogus\n.open\n.open %s\n.open %s\n.open %s %s\nrec\n' "$T/none.etdp" "$R" "$R" "$S" |
    "$ETINSPECT" -i >"$T/meta.out" 2>&1
ok ".help lists the meta commands" grep -q "^  \.open FILE\.\.\." "$T/meta.out"
ok ".mode refuses an unknown style, naming the styles" \
    grep -q "^\.mode: unknown style 'nope' (box, plain, markdown, tsv, csv, json)$" "$T/meta.out"
ok ".mode alone shows the mode" grep -q "^mode: plain (box, plain, markdown, tsv, csv, json)$" "$T/meta.out"
ok "an unknown meta command is named" grep -q "^unknown command '.bogus' (try .help)$" "$T/meta.out"
ok ".open without a file says what it takes" grep -q "^\.open: expected a file name" "$T/meta.out"
ok ".open of a missing file: the reason, no traceback" grep -q "^\.open: .*none.etdp: No such file or directory$" "$T/meta.out"
ok ".open: no stack traceback" test "$(grep -c traceback "$T/meta.out")" -eq 0
ok ".open ETRECORD: binds rec" grep -q "^rec = ETRecord '.*sample.etrecord' (6 entries, methods: forward)$" "$T/meta.out"
ok ".open ETRECORD DUMP: one Inspector, linked" \
    grep -q "^insp = Inspector '.*sample.etdp' (2 event blocks, 10 events, ns -> ms)$" "$T/meta.out"
# a script or -e code writing to a terminal fits frames to it, as the REPL
# does; to a pipe the width stays unknown (nil: 80)
cat >"$T/width.pty" <<PTY
expect width=132
PTY
if "$DRIVE" -s 30x132 "$T/width.pty" "$ETINSPECT" -e \
    'print("width=" .. tostring(etinspect.get_option("display.width")))' >"$T/width.log" 2>&1; then
    pass "-e on a 132-column terminal: display.width is 132"
else
    fail "-e on a 132-column terminal: display.width is 132" "$(cat "$T/width.log")"
fi
out=$("$ETINSPECT" -e 'print("width=" .. tostring(etinspect.get_option("display.width")))' | cat)
ok "-e into a pipe: display.width stays unknown (nil)" test "$out" = "width=nil"
done_testing
