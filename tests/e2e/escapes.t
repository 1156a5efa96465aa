#!/bin/sh
# escapes.t - escape sequences in names of a dump, an ETRecord or a legacy
# dump never reach the terminal raw (base/shown.h, the one escaping):
# tostring of events, blocks, nodes and ETRecords and so the REPL's
# display, warnings on stderr (the Lua side's and the command line's), the
# legacy reader's error message, and on a terminal Graph:print and the
# legacy tables; a file or a pipe still gets the bytes as they are from
# Graph:print, the legacy tables and every data output (TSV, fields).
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
R="$ET_BUILD/fixtures/sample.etrecord"
REP="$ET_BUILD/fixtures/repeat.etdp"
MKZIP="$ET_BUILD/tools/mkzip"
DRIVE="$ET_BUILD/tools/ptydrive"
L="$ET_SRC/tests/legacy/main.bin"
[ -f "$S" ] && [ -f "$REP" ] || skip_all "fixtures not built"
ESC=$(printf '\033')

# same-length replacements of names: the flatbuffer stays valid
# "Method::init" (12) -> ESC "]0;PWNED" BEL "ab" (12); "Default" (7) -> ESC "[2J" "abc" (7)
cat >"$T/patch1.lua" <<'LUA'
local f = assert(io.open(arg[1], "rb")); local d = f:read("a"); f:close()
d = d:gsub("Method::init", "\27]0;PWNED\7ab", 1):gsub("Default", "\27[2Jabc", 1)
f = assert(io.open(arg[2], "wb")); f:write(d); f:close()
LUA
lua5.4 "$T/patch1.lua" "$S" "$T/esc.etdp"

no_esc() { # no_esc FILE: no ESC or BEL byte in FILE
    ! grep -q "[$ESC$(printf '\007')]" "$1"
}
has_esc() { grep -q "$ESC" "$1"; }

"$ETINSPECT" -e "local insp = etinspect.Inspector{etdump_path = '$T/esc.etdp'}
print(tostring(insp.event_blocks[1]))
print(tostring(insp.event_blocks[1].events[1]))" >"$T/tostring.out" 2>&1
if no_esc "$T/tostring.out" && grep -qF "EventBlock '\\x1b[2Jabc'" "$T/tostring.out" &&
    grep -qF "Event '\\x1b]0;PWNED\\x07ab'" "$T/tostring.out"; then
    pass "tostring of a block and an event: the names escaped"
else
    fail "tostring of a block and an event: the names escaped" "$(cat -v "$T/tostring.out")"
fi
"$ETINSPECT" -e "local insp = etinspect.Inspector{etdump_path = '$T/esc.etdp'}
io.write(insp.event_blocks[1].name, '|', insp.event_blocks[1].events[1].name)" >"$T/fields.out" 2>&1
[ "$(cat "$T/fields.out")" = "$(printf '\033[2Jabc|\033]0;PWNED\007ab')" ] &&
    pass "the fields keep the bytes as they are (data)" || fail "the fields keep the bytes as they are (data)" "$(cat -v "$T/fields.out")"

printf '%s\n' ".open $T/esc.etdp" 'insp.event_blocks[1]' 'insp.event_blocks[1].events[1]' 'insp.event_blocks[1].events[1].name' |
    "$ETINSPECT" -i >"$T/repl.out" 2>&1
if no_esc "$T/repl.out" && grep -qF "EventBlock '\\x1b[2Jabc'" "$T/repl.out" && grep -qF '"\027]0;PWNED\007ab"' "$T/repl.out"; then
    pass "the REPL's display: a block, an event and a name string, escaped"
else
    fail "the REPL's display: a block, an event and a name string, escaped" "$(cat -v "$T/repl.out")"
fi
printf '%s\n' 'x = "a\194\155[2Jb"' 'x' | "$ETINSPECT" -i >"$T/c1.out" 2>&1
[ "$(cat "$T/c1.out")" = '"a\u{9B}[2Jb"' ] && pass "the REPL's display of a string: a C1 control (U+009B, CSI) escaped" ||
    fail "the REPL's display of a string: a C1 control (U+009B, CSI) escaped" "$(cat -v "$T/c1.out")"

# the command line: its table escapes; its TSV keeps the bytes
"$ETINSPECT" "$T/esc.etdp" --tsv_path "$T/out.tsv" >"$T/cli.out" 2>&1
if no_esc "$T/cli.out" && grep -qF '\x1b]0;PWNED\x07ab' "$T/cli.out" && has_esc "$T/out.tsv"; then
    pass "the command line's table escapes, its TSV keeps the bytes"
else
    fail "the command line's table escapes, its TSV keeps the bytes" "$(cat -v "$T/cli.out" | head -n 5)"
fi
"$ETINSPECT" -e "local insp = etinspect.Inspector{etdump_path = '$T/esc.etdp'}
io.write(insp:to_dataframe():select{'event_name'}:head(2):render('box', {}))" >"$T/box.out" 2>&1
no_esc "$T/box.out" && grep -qF '\x1b]0;PWNED\x07ab' "$T/box.out" &&
    pass "a framed style (box) escapes" || fail "a framed style (box) escapes" "$(cat -v "$T/box.out")"

# warnings: a path with an escape sequence, named by repeat.etdp's warning
W="$T/w$(printf '\033]52;c;cHduZWQ=\007').etdp"
cp "$REP" "$W"
W="$W" "$ETINSPECT" -e "local seen
etinspect.on_warning(function(m) seen = m end)
local insp = etinspect.Inspector{etdump_path = os.getenv('W')}; local _ = insp.event_blocks
io.write(seen:find('\27]52;', 1, true) and 'raw' or 'escaped')
etinspect.on_warning(nil)
local insp2 = etinspect.Inspector{etdump_path = os.getenv('W')}; local _ = insp2.event_blocks" >"$T/warn.out" 2>"$T/warn.err"
if [ "$(cat "$T/warn.out")" = raw ] && no_esc "$T/warn.err" && grep -qF 'w\x1b]52;c;cHduZWQ=\x07.etdp' "$T/warn.err"; then
    pass "a Lua-side warning on stderr is escaped; on_warning gets the message as it is"
else
    fail "a Lua-side warning on stderr is escaped; on_warning gets the message as it is" "$(cat "$T/warn.out")" "$(cat -v "$T/warn.err")"
fi
"$ETINSPECT" "$W" --quiet >"$T/cliw.out" 2>"$T/cliw.err"
no_esc "$T/cliw.err" && grep -qF 'w\x1b]52;c;cHduZWQ=\x07.etdp' "$T/cliw.err" &&
    pass "the command line's warnings are escaped" || fail "the command line's warnings are escaped" "$(cat -v "$T/cliw.err")"

# an ETRecord whose node name and op hold escape sequences
if [ -x "$MKZIP" ] && [ -f "$R" ]; then
    SREC="$ET_SRC/tests/fixtures/sample_etrecord"
    cat >"$T/patch2.lua" <<'LUA'
local f = assert(io.open(arg[1], "rb")); local d = f:read("a"); f:close()
d = d:gsub("\"convolution\"", "\"conv\\u001b]0;T\\u0007\"")
f = assert(io.open(arg[2], "wb")); f:write(d); f:close()
LUA
    lua5.4 "$T/patch2.lua" "$SREC/edge_dialect_exported_program.json" "$T/ep.json"
    "$MKZIP" "$T/esc.etrecord" ETRECORD_V0=@ edge_dialect_exported_program/forward="$T/ep.json" \
        debug_handle_map="$SREC/debug_handle_map.json" delegate_map="$SREC/delegate_map.json" \
        instruction_id_to_num_outs_map="$SREC/instruction_id_to_num_outs_map.json" export_graph_id=@0
    cat >"$T/graph.lua" <<LUA
local rec = etinspect.parse_etrecord("$T/esc.etrecord")
local g = rec:get_exported_program()
local node
for _, n in ipairs(g.nodes) do if n.name:find("\27", 1, true) then node = n end end
print(tostring(node))
g:print(io.open("$T/graph.txt", "w"))
g:print()
LUA
    "$ETINSPECT" "$T/graph.lua" >"$T/graph.out" 2>&1
    if grep -qF "Node 'conv\\x1b]0;T\\x07'" "$T/graph.out"; then
        pass "tostring of a node: its name escaped"
    else
        fail "tostring of a node: its name escaped" "$(cat -v "$T/graph.out" | head -n 5)"
    fi
    has_esc "$T/graph.txt" && pass "Graph:print to a file: the bytes as they are" ||
        fail "Graph:print to a file: the bytes as they are" "$(cat -v "$T/graph.txt" | head -n 3)"
    if [ -x "$DRIVE" ]; then
        # what the terminal got, from the mark to the last match (ptydrive's save)
        printf 'expect > \nmark\nsend dofile("%s")\\n\nexpect handle\nexpect > \nsave %s\nsend .quit\\n\n' "$T/graph.lua" "$T/graphtty.out" >"$T/graph.pty"
        "$DRIVE" "$T/graph.pty" "$ETINSPECT" -i >"$T/graphtty.log" 2>&1
        if [ -s "$T/graphtty.out" ] && no_esc "$T/graphtty.out" && grep -qF 'conv\x1b]0;T\x07' "$T/graphtty.out"; then
            pass "Graph:print on a terminal (and tostring of a node): escaped"
        else
            fail "Graph:print on a terminal (and tostring of a node): escaped" "$(cat -v "$T/graphtty.out" "$T/graphtty.log" | head -n 8)"
        fi
    else
        skip "ptydrive not built"
    fi
else
    skip "mkzip or the sample ETRecord not built"
    skip "mkzip or the sample ETRecord not built"
    skip "mkzip or the sample ETRecord not built"
fi

# legacy dumps: block names (32-byte fields) holding escape sequences
if [ -f "$L" ]; then
    cat >"$T/patch3.lua" <<'LUA'
local f = assert(io.open(arg[1], "rb")); local d = f:read("a"); f:close()
-- the first block is "load": a name with an escape sequence, same field
d = "\27]0;LEG\7x" .. d:sub(10)
f = assert(io.open(arg[2], "wb")); f:write(d); f:close()
-- its prof_ver (at byte 32) broken: the reader refuses the block, naming it
d = d:sub(1, 32) .. "\9\0\0\0" .. d:sub(37)
f = assert(io.open(arg[3], "wb")); f:write(d); f:close()
LUA
    lua5.4 "$T/patch3.lua" "$L" "$T/esc_legacy.bin" "$T/bad_legacy.bin"
    "$ETINSPECT" "$T/esc_legacy.bin" >"$T/leg_pipe.out" 2>&1
    has_esc "$T/leg_pipe.out" && pass "the legacy tables on a pipe: the bytes as they are (as the reference prints them)" ||
        fail "the legacy tables on a pipe: the bytes as they are (as the reference prints them)" "$(head -n 3 "$T/leg_pipe.out" | cat -v)"
    "$ETINSPECT" --profile_results_path "$T/bad_legacy.bin" >"$T/leg_err.out" 2>&1
    if no_esc "$T/leg_err.out" && grep -qF "block 0 '\\x1b]0;LEG\\x07x' at offset 0: prof_ver" "$T/leg_err.out"; then
        pass "the legacy reader's error message: the block's name escaped"
    else
        fail "the legacy reader's error message: the block's name escaped" "$(cat -v "$T/leg_err.out")"
    fi
    if [ -x "$DRIVE" ]; then
        printf 'mark\nexpect Iteration 0\nexpect Allocator name\nsave %s\n' "$T/leg_tty.out" >"$T/leg.pty"
        "$DRIVE" -s 50x200 "$T/leg.pty" "$ETINSPECT" "$T/esc_legacy.bin" >"$T/leg_tty.log" 2>&1
        if [ -s "$T/leg_tty.out" ] && no_esc "$T/leg_tty.out" && grep -qF '\x1b]0;LEG\x07x' "$T/leg_tty.out"; then
            pass "the legacy tables on a terminal: names escaped"
        else
            fail "the legacy tables on a terminal: names escaped" "$(cat -v "$T/leg_tty.out" "$T/leg_tty.log" | head -n 8)"
        fi
    else
        skip "ptydrive not built"
    fi
else
    skip "no legacy dump"
    skip "no legacy dump"
    skip "no legacy dump"
fi
done_testing
