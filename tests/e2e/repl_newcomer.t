#!/bin/sh
# repl_newcomer.t - the REPL as a newcomer meets it (issue 26), driven
# through a pseudo-terminal (tests/tools/ptydrive): a frame fitted to the
# terminal keeps the names and statistics; help(x) and ?x read from
# docs/lua-api.md; the startup file and --no-init; .open of several dumps;
# completion of quoted file names, column keys, after a call and on a
# Series; Ctrl-C stops what a call prints, which is paged as values are; a
# pager that cannot run; .help's layout; Inspector{ option keys.
. "$(dirname "$0")/lib.sh"
DRIVE="$ET_BUILD/tools/ptydrive"
S="$ET_BUILD/fixtures/sample.etdp"
LARGE="$CORPUS/etdump/large.etdp"
MEDIUM="$CORPUS/etdump/medium.etdp"
SMALL="$CORPUS/etdump/small.etdp"
[ -x "$DRIVE" ] || skip_all "ptydrive not built"
[ -f "$S" ] || skip_all "sample fixture not built"
export XDG_STATE_HOME="$T/state"
export XDG_CONFIG_HOME="$T/config" # no startup file of the machine's user
unset PAGER

drive() { # drive NAME [ptydrive options] [-- etinspect arguments]: the steps in $T/NAME.pty
    name=$1
    shift
    "$DRIVE" "$@" "$T/$name.pty" "$ETINSPECT" -i >"$T/$name.log" 2>&1
}
show_log() { [ -s "$T/$1.log" ] && sed 's/^/#   /' "$T/$1.log" | tail -n 8 >&2; }
# check NAME DESCRIPTION [ptydrive options]: one test, the session's
# expectations all met
check() {
    name=$1 desc=$2
    shift 2
    if drive "$name" "$@"; then pass "$desc"; else fail "$desc"; show_log "$name"; fi
}

# ---- df of a 1M-event dump at 100 and 80 columns: names and statistics
if [ -f "$LARGE" ]; then
    for cols in 100 80; do
        cat >"$T/df$cols.pty" <<PTY
expect > 
send df = etinspect.Inspector{etdump_path = "$LARGE"}:to_dataframe()\n
expect > 
mark
send df\n
expect columns]
save $T/df$cols.txt
send .quit\n
PTY
        check "df$cols" "df at $cols columns: the session" -s 40x$cols
        head=$(grep -m1 'event_block_name' "$T/df$cols.txt" | tr -d '\r')
        case $head in
        *event_name*p10\ \(ms\)*p50\ \(ms\)*) pass "df at $cols columns: names, p10 and p50 shown" ;;
        *) fail "df at $cols columns: names, p10 and p50 shown" "header: $head" ;;
        esac
        case $head in
        *start_time* | *debug_data* | *raw\ *) fail "df at $cols columns: the list columns cut first" "header: $head" ;;
        *) pass "df at $cols columns: the list columns cut first" ;;
        esac
        widest=$(tr -d '\r' <"$T/df$cols.txt" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
        ok "df at $cols columns: no line wider than the terminal ($widest)" test "$widest" -le "$cols"
    done
else
    skip "large.etdp not in the corpus"
fi

# ---- help(x), ?x: from docs/lua-api.md, one line each
"$ETINSPECT" -e 'io.write((require("etinspect.lua_api_doc")))' >"$T/embedded.md" 2>&1
ok "help reads docs/lua-api.md itself (the build embeds it whole)" cmp -s "$T/embedded.md" "$ET_SRC/docs/lua-api.md"
cat >"$T/help.pty" <<PTY
expect > 
send .open $S\n
expect insp = Inspector
mark
send ?insp\n
expect insp:close()
send help(insp:to_dataframe{include_units = false})\n
expect frame:group_by
expect tostring(frame)
send ?insp.event_blocks[2].events[1].perf_data\n
expect pd:percentile(q)
send ?\n
expect help(x) or ?x
save $T/help.txt
send print('after' .. ' help')\n
expect after help
send .quit\n
PTY
check help "help(x) and ?x: an Inspector's, a Frame's, a PerfData's fields and methods" -s 40x90
ok "help: the Inspector's lines are the reference's rows (insp.event_blocks, its type)" \
    grep -q 'insp.event_blocks  *sequence of EventBlock' "$T/help.txt"
ok "help: the frame's columns are listed" grep -q 'columns: event_block_name, event_name, block_index, raw, p10' "$T/help.txt"
widest=$(tr -d '\r' <"$T/help.txt" | "$ETINSPECT" -e 'local w = 0
for l in io.lines() do w = math.max(w, utf8.len(l) or #l) end
print(w)')
ok "help: one line each, cut to the terminal's 90 columns ($widest)" test "$widest" -gt 0 -a "$widest" -le 90

# ---- the startup file, and --no-init
mkdir -p "$T/config/etinspect"
cat >"$T/config/etinspect/init.lua" <<'LUA'
from_init = 6 * 7
print("startup file ran")
error("a mistake in init.lua")
LUA
cat >"$T/init.pty" <<'PTY'
expect startup file ran
expect init.lua:3: a mistake in init.lua
expect --no-init
expect > 
send print(from_init + 1)\n
expect 43
send .quit\n
PTY
check init "the startup file runs; its error is reported, naming it, and the shell goes on"
cat >"$T/noinit.pty" <<PTY
mark
expect > 
send print(type(from_init))\n
expect nil
save $T/noinit.txt
send .quit\n
PTY
if "$DRIVE" "$T/noinit.pty" "$ETINSPECT" --no-init >"$T/noinit.log" 2>&1 &&
    ! grep -q 'startup file ran' "$T/noinit.txt"; then
    pass "etinspect --no-init: the REPL without the startup file"
else
    fail "etinspect --no-init: the REPL without the startup file"
    show_log noinit
fi
printf 'while true do end\n' >"$T/config/etinspect/init.lua"
cat >"$T/initloop.pty" <<'PTY'
sleep 400
send \x03
expect interrupted!
expect > 
send print('alive' .. ' after init')\n
expect alive after init
send .quit\n
PTY
check initloop "a startup file that never ends is stopped by Ctrl-C"
rm -f "$T/config/etinspect/init.lua"

# ---- .open A B: one dataset
if [ -f "$SMALL" ] && [ -f "$MEDIUM" ]; then
    cat >"$T/many.pty" <<PTY
expect > 
send .open $SMALL $MEDIUM\n
expect dumps = Dumps (2): small.etdp, medium.etdp
send print(#dumps, #dumps:to_dataframe())\n
expect 2\t
send .quit\n
PTY
    check many ".open with two ETDumps makes one dataset (dumps), as the command line does"
else
    skip "small.etdp or medium.etdp not in the corpus"
fi

# ---- completion
mkdir -p "$T/wd/my dir"
cp "$S" "$T/wd/my dir/my run.etdp"
cat >"$T/complete.pty" <<'PTY'
expect > 
send .open my\t
expect my\\ dir/
send my\t
expect run.etdp
send \n
expect insp = Inspector
send df = insp:to_dataframe{include_units = false}\n
send df["p5\t
expect p50"]
send \n
expect Series 'p50'
send df.p50:notn\t
expect notna
send ()\n
expect Series
send df:group_by("event_name"):su\t
expect sum
send ()\n
expect event_name
send insp:to_dataframe():sort("event_name"):tai\t
expect tail
send (1)\n
send calls = 0\n
send function count() calls = calls + 1 return df end\n
send count():he\t
sleep 300
send \x03
send print('calls', calls)\n
expect calls\t0
send etinspect.Inspector{etrecord_j\t
expect etrecord_json_budget
send \x03
send .quit\n
PTY
if (cd "$T/wd" && "$DRIVE" "$T/complete.pty" "$ETINSPECT" -i) >"$T/complete.log" 2>&1; then
    pass "completion: a name with a blank escaped (the .open line works), df[\"p, after a call, on a Series"
else
    fail "completion: a name with a blank escaped (the .open line works), df[\"p, after a call, on a Series"
    show_log complete
fi

# ---- Ctrl-C stops what a call prints in C; its output is paged as values are
if [ -f "$LARGE" ]; then
    cat >"$T/stop.pty" <<PTY
expect > 
send insp = etinspect.Inspector{etdump_path = "$LARGE"}\n
expect > 
mark
send insp:print_data_tabular()\n
expect native_call
pause 500
send \x03
expect interrupted!
save $T/stop.txt
send print('still' .. ' alive')\n
expect still alive
send .quit\n
PTY
    check stop "Ctrl-C during insp:print_data_tabular() of large.etdp: the prompt again"
    ok "... the 22 MB table stopped: its end never printed" sh -c 'test -s "$1" && ! grep -q "╘" "$1"' _ "$T/stop.txt"
    ok "... one 'interrupted!'" test "$(grep -c 'interrupted!' "$T/stop.txt")" -eq 1
else
    skip "large.etdp not in the corpus"
fi
cat >"$T/paged.pty" <<PTY
expect > 
send insp = etinspect.Inspector{etdump_path = "$S"}\n
expect > 
mark
send insp:print_data_tabular()\n
expect > 
save $T/paged_term.txt
send .quit\n
PTY
if env PAGER="cat >'$T/paged.txt'" "$DRIVE" -t xterm -s 12x80 "$T/paged.pty" "$ETINSPECT" -i >"$T/paged.log" 2>&1 &&
    grep -q 'native_call_convolution.out' "$T/paged.txt" 2>/dev/null &&
    ! grep -q 'native_call_convolution.out' "$T/paged_term.txt"; then
    pass "a call's long output (print_data_tabular) goes through \$PAGER, as values do"
else
    fail "a call's long output (print_data_tabular) goes through \$PAGER, as values do"
    show_log paged
fi

# ---- a pager that cannot run: the value, with one warning
cat >"$T/badpager.pty" <<PTY
mark
expect > 
send df = etinspect.Inspector{etdump_path = "$S"}:to_dataframe()\n
expect > 
send df\n
expect [10 rows x 18 columns]
send df\n
expect [10 rows x 18 columns]
save $T/badpager.txt
send .quit\n
PTY
env PAGER=/nonexistent/pager "$DRIVE" -t xterm -s 8x80 "$T/badpager.pty" "$ETINSPECT" -i >"$T/badpager.log" 2>&1
st=$?
ok "PAGER=/nonexistent/pager: the value is shown (directly), twice" test "$st" -eq 0
ok "... with one warning naming the pager" test "$(grep -c "pager '/nonexistent/pager'" "$T/badpager.txt")" -eq 1
ok "... and not the shell's 'not found'" sh -c 'test -s "$1" && ! grep -q "not found" "$1"' _ "$T/badpager.txt"

# ---- .help: continuation lines under the text they continue
printf '.help\n' | "$ETINSPECT" -i >"$T/help_meta.txt" 2>&1
first=$(awk '/^  \.open/ { print index($0, "open inputs") }' "$T/help_meta.txt")
cont=$(awk '/^ +or debug buffer/ { print index($0, "or debug buffer") }' "$T/help_meta.txt")
ok ".help: a continuation line starts in the column of its text ($first, $cont)" \
    test -n "$first" -a "$first" = "$cont"

# ---- Inspector{ completes every option the Inspector takes
"$ETINSPECT" -e 'etinspect.Inspector{zz = 1}' 2>&1 | sed -n "s/.*(accepted: \(.*\))$/\1/p" | tr -d ' ' | tr ',' '\n' |
    sort >"$T/accepted"
"$ETINSPECT" -e 'for _, k in ipairs(require("etinspect.repl").INSPECTOR_OPTIONS) do print(k) end' | sort >"$T/completed"
if [ -s "$T/accepted" ] && cmp -s "$T/accepted" "$T/completed"; then
    pass "Inspector{ completes exactly the options etinspect.Inspector accepts"
else
    fail "Inspector{ completes exactly the options etinspect.Inspector accepts" "$(diff "$T/accepted" "$T/completed")"
fi

done_testing
