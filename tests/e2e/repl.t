#!/bin/sh
# repl.t - the interactive shell, driven through a pseudo-terminal
# (tests/tools/ptydrive): completion, history, errors, Ctrl-C, meta commands.
. "$(dirname "$0")/lib.sh"
DRIVE="$ET_BUILD/tools/ptydrive"
S="$ET_BUILD/fixtures/sample.etdp"
[ -x "$DRIVE" ] || skip_all "ptydrive not built"
[ -f "$S" ] || skip_all "sample fixture not built"
export XDG_STATE_HOME="$T/state"

drive() { # drive NAME: run the steps in $T/NAME.pty against the REPL
    "$DRIVE" "$T/$1.pty" "$ETINSPECT" -i >"$T/$1.log" 2>&1
}

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
expect interrupted
send for i = 1,\n
expect >> 
send 2 do io.write(i) end print()\n
expect 12
send print('still' .. ' alive')\n
expect still alive
send .quit\n
PTY
ok "session 1: completion (globals, module fields, userdata fields and methods), errors, Ctrl-C, .open, .mode, multi-line input" drive session1
[ -s "$T/session1.log" ] && sed 's/^/#   /' "$T/session1.log" | tail -n 5 >&2
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

rm -rf "$T/state2"
printf 'x = 1\nprint(x + 1)\n' | XDG_STATE_HOME="$T/state2" "$ETINSPECT" -i >"$T/pipe.out" 2>&1
ok "stdin not a terminal: statements still run" grep -q "^2$" "$T/pipe.out"
ok "stdin not a terminal: no history file" test ! -e "$T/state2/etinspect/history"
printf '.help\n.mode nope\n.bogus\n' | "$ETINSPECT" -i >"$T/meta.out" 2>&1
ok ".help lists the meta commands" grep -q ".open FILE" "$T/meta.out"
ok ".mode refuses an unknown style" grep -q "expected box, plain, markdown or tsv" "$T/meta.out"
ok "an unknown meta command is named" grep -q "unknown command '.bogus'" "$T/meta.out"
done_testing
