#!/bin/sh
# fleet.t - several dumps as one dataset (docs/fleet.md): --etdump_path
# repeated, a directory or a pattern gives one table, TSV, JSON document
# and SQLite export with a leading dump column; one dump stays
# byte-identical to the reference; debug buffers pair with their dumps in
# order; errors (an empty pattern, the same file twice, a count of debug
# buffers that does not match, options for one dump) name what is wrong;
# SQLite keeps dumps of the same file name apart, one export or many.
. "$(dirname "$0")/lib.sh"

SAMPLE="$ET_BUILD/fixtures/sample.etdp"
REC="$ET_BUILD/fixtures/sample.etrecord"
STATS10="$ET_BUILD/fixtures/stats10.etdp"
[ -f "$SAMPLE" ] && [ -f "$REC" ] && [ -f "$STATS10" ] ||
    skip_all "build/fixtures not built (run make fixtures)"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -qF -- "$1" "$T/err"; }
is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}
# the TSV of one dump with `name` inserted as a second field and the
# rows renumbered from `first`: what the many-dumps TSV holds for it
with_dump() { # TSV NAME FIRST
    awk -F '\t' -v OFS='\t' -v name="$2" -v first="$3" \
        'NR > 1 { $1 = $1 OFS name; $1 = (NR - 2 + first) substr($1, index($1, OFS)); print }' "$1"
}

# three runs of one model, each in its own directory under one file name
mkdir -p "$T/runs/a" "$T/runs/b" "$T/runs/c"
cp "$SAMPLE" "$T/runs/a/model.etdp"
cp "$STATS10" "$T/runs/b/model.etdp"
cp "$SAMPLE" "$T/runs/c/model.etdp"
printf 'not an etdump\n' >"$T/runs/notes.txt"

# ---------------------------------------------------------------------------
# one table over three dumps

cd "$T" || exit 1
run --etdump_path 'runs/*/model.etdp' --tsv_path all.tsv -q
ok "a pattern of three dumps: exit 0" status_is 0
ok "... nothing on stderr" test ! -s "$T/err"
is "the TSV's header: the dump column first (after pandas' index)" \
    "$(head -n 1 all.tsv | cut -f 1-3)" "$(printf '\tdump\tevent_block_name')"
for d in a b c; do "$ETINSPECT" --etdump_path "runs/$d/model.etdp" -q --tsv_path "one-$d.tsv"; done
{ with_dump one-a.tsv a/model.etdp 0
  with_dump one-b.tsv b/model.etdp "$(($(wc -l <one-a.tsv) - 1))"
  with_dump one-c.tsv c/model.etdp "$(($(wc -l <one-a.tsv) + $(wc -l <one-b.tsv) - 2))"
} >want.rows
ok "... each dump's rows are its own TSV's, named by the shortest distinct path, in sorted order" \
    sh -c 'tail -n +2 all.tsv | cmp -s - want.rows'

run --etdump_path runs/c/model.etdp --etdump_path runs/a/model.etdp -q --tsv_path two.tsv
is "--etdump_path repeated: the dumps in the order given" \
    "$(cut -f 2 two.tsv | uniq | tr '\n' ' ')" "dump c/model.etdp a/model.etdp "

run --etdump_path 'runs/a/*.etdp' -q --tsv_path glob1.tsv
ok "a pattern matching one dump: exit 0" status_is 0
ok "... its TSV is byte-identical to the single dump's (no dump column)" cmp glob1.tsv one-a.tsv

mkdir -p flat
cp "$SAMPLE" flat/x.etdp
cp "$STATS10" flat/y.bin
cp "$T/runs/notes.txt" flat/
run --etdump_path flat -q --tsv_path flat.tsv
ok "a directory: exit 0" status_is 0
is "... its ETDumps by content (y.bin is one), not the notes" \
    "$(tail -n +2 flat.tsv | cut -f 2 | uniq | tr '\n' ' ')" "x.etdp y.bin "

run --etdump_path 'runs/*/model.etdp'
ok "the table: exit 0" status_is 0
is "... the grid's header names the dump column first" \
    "$(sed -n 2p "$T/out" | awk -F '│' '{ gsub(/ /, "", $3); print $3 }')" "dump"
is "... one line per row of the TSV" \
    "$(grep -c '^│ *[0-9][0-9]* │ [abc]/model.etdp │' "$T/out")" "$(($(wc -l <all.tsv) - 1))"

# ---------------------------------------------------------------------------
# JSON: one document per dump, as the single dump's --json writes it

run --etdump_path runs/a/model.etdp --etdump_path runs/b/model.etdp -q --json all.json
ok "--json over two dumps: exit 0" status_is 0
"$ETINSPECT" --etdump_path runs/a/model.etdp -q --json a.json
"$ETINSPECT" --etdump_path runs/b/model.etdp -q --json b.json
{ printf '{"format": "etinspect-json-dumps", "format_version": 1, "num_dumps": 2, "dumps": [\n'
  printf '{"dump": "a/model.etdp", "document": '; cat a.json; printf '},\n'
  printf '{"dump": "b/model.etdp", "document": '; cat b.json; printf '}\n]}\n'
} >want.json
ok "... the documents are the single dumps', each under its name" cmp all.json want.json

# ---------------------------------------------------------------------------
# an ETRecord for all; debug buffers in the order of the dumps

run --etdump_path runs/a/model.etdp --etdump_path runs/c/model.etdp --etrecord_path "$REC" \
    -q --tsv_path linked.tsv
ok "--etrecord_path with two dumps: exit 0" status_is 0
is "... both dumps' events linked (op types of the convolution)" \
    "$(grep 'native_call_convolution' linked.tsv | cut -f 2,11 | tr '\t\n' '  ')" \
    "a/model.etdp ['aten.convolution.default'] c/model.etdp ['aten.convolution.default'] "

DEBUG="$ET_SHARED/corpus/etdump/debug.etdp"
DEBUG_BIN="$ET_SHARED/corpus/etdump/debug.bin"
if [ -f "$DEBUG" ] && [ -f "$DEBUG_BIN" ]; then
    mkdir -p dbg
    cp "$DEBUG" dbg/1.etdp
    cp "$DEBUG" dbg/2.etdp
    cp "$DEBUG_BIN" dbg/1.bin
    # the second buffer: as long as the first, all zeros
    head -c "$(wc -c <"$DEBUG_BIN")" /dev/zero >dbg/2.bin
    run --etdump_path 'dbg/*.etdp' --debug_buffer_path 'dbg/*.bin' -q --json dbg.json
    ok "two dumps, two debug buffers (patterns): exit 0" status_is 0
    "$ETINSPECT" --etdump_path dbg/2.etdp --debug_buffer_path dbg/2.bin -q --json dbg2.json 2>/dev/null
    "$ETINSPECT" --etdump_path dbg/2.etdp --debug_buffer_path dbg/1.bin -q --json dbg21.json 2>/dev/null
    ok "(the two buffers give the dump different documents)" sh -c '! cmp -s dbg2.json dbg21.json'
    key='{"dump": "2.etdp", "document": '
    at=$(grep -b -o -F "$key" dbg.json | cut -d: -f1)
    ok "... the second dump's document is read with the second buffer" \
        sh -c "tail -c +$((at + ${#key} + 1)) dbg.json | head -c $(wc -c <dbg2.json) | cmp -s - dbg2.json"
    run --etdump_path 'dbg/*.etdp' --debug_buffer_path dbg/1.bin -q
    ok "one debug buffer for two dumps: exit 2" status_is 2
    ok "... says how they pair" err_has "argument --debug_buffer_path: 1 debug buffers for 2 dumps (give one per dump, in the order of the dumps)"
else
    skip "the corpus's debug.etdp and debug.bin are absent ($ET_SHARED)"
fi

# ---------------------------------------------------------------------------
# errors

run --etdump_path runs/a/model.etdp --etdump_path runs/c/model.etdp --debug_buffer_path runs \
    --debug_buffer_path runs -q
ok "a directory as a debug buffer: itself (a debug buffer has no header to find it by), exit 1" status_is 1
ok "... the reader says what it is" err_has "runs: is a directory, expected a file"
run --etdump_path 'runs/*/none.etdp'
ok "a pattern that matches nothing: exit 1" status_is 1
ok "... the message names the pattern" err_has "runs/*/none.etdp: no file matches this pattern"
mkdir -p empty
run --etdump_path empty
ok "a directory without ETDumps: exit 1" status_is 1
ok "... says so" err_has "empty: is a directory with no ETDump in it"
run --etdump_path runs/a/model.etdp --etdump_path ./runs/a/model.etdp
ok "the same file twice: exit 2" status_is 2
ok "... names both" err_has "runs/a/model.etdp and ./runs/a/model.etdp are the same file"
run --etdump_path 'runs/*/model.etdp' --trace_path t.json
ok "--trace_path with several dumps: exit 2" status_is 2
ok "... says why" err_has "argument --trace_path: not allowed with several dumps"
run --etdump_path 'runs/*/model.etdp' --sqlite_path x.db --sqlite_dump one
ok "--sqlite_dump with several dumps: exit 2 (each dump is named by its path)" status_is 2
cp "$STATS10" runs/bad.etdp
printf 'XXXX' | dd of=runs/bad.etdp bs=1 seek=24 conv=notrunc 2>/dev/null
run --etdump_path runs/a/model.etdp --etdump_path runs/bad.etdp --tsv_path bad.tsv \
    --sqlite_path bad.db -q
ok "a malformed dump among several: exit 1" status_is 1
ok "... the message names it" err_has "runs/bad.etdp"
ok "... and no output is written" test ! -e bad.tsv -a ! -e bad.db
ok "... nor left half-written" sh -c '! ls | grep -q "^bad\.\(tsv\|db\)\."'

# ---------------------------------------------------------------------------
# SQLite: dumps of the same file name stay apart

command -v sqlite3 >/dev/null 2>&1 || { skip "the sqlite3 command-line tool is absent"; done_testing; }
sq() { sqlite3 -init /dev/null -batch -noheader "$@" 2>&1; }

run --etdump_path 'runs/*/model.etdp' --sqlite_path fleet.db -q
ok "three dumps named model.etdp into one database: exit 0" status_is 0
is "... three dumps, each under its distinct name, with its canonical path" \
    "$(sq fleet.db "SELECT dump, etdump_realpath, num_samples FROM dumps ORDER BY dump")" \
    "a/model.etdp|$(pwd -P)/runs/a/model.etdp|26
b/model.etdp|$(pwd -P)/runs/b/model.etdp|10
c/model.etdp|$(pwd -P)/runs/c/model.etdp|26"
run --etdump_path 'runs/*/model.etdp' --sqlite_path fleet.db -q
is "the same three again: their own rows replaced, nothing added" \
    "$(sq fleet.db "SELECT count(*), sum(num_samples), (SELECT count(*) FROM samples) FROM dumps")" \
    "3|62|62"

for d in a b c; do
    run --etdump_path "runs/$d/model.etdp" --sqlite_path one.db -q
done
ok "three exports, one at a time: exit 0" status_is 0
is "... three dumps: the first under the file name, the others under a longer tail of their path" \
    "$(sq one.db "SELECT dump, etdump_path FROM dumps ORDER BY etdump_path")" \
    "model.etdp|runs/a/model.etdp
b/model.etdp|runs/b/model.etdp
c/model.etdp|runs/c/model.etdp"
run --etdump_path runs/b/model.etdp --sqlite_path one.db -q
run --etdump_path ./runs/a/model.etdp --sqlite_path one.db -q
is "exporting a file again, however its path is spelled: its own dump replaced" \
    "$(sq one.db "SELECT dump, etdump_path FROM dumps ORDER BY dump")" \
    "b/model.etdp|runs/b/model.etdp
c/model.etdp|runs/c/model.etdp
model.etdp|./runs/a/model.etdp"
is "... no sample rows left behind by the replaced dumps" \
    "$(sq one.db "SELECT count(*), (SELECT sum(num_samples) FROM events) FROM sample_data")" "62|62"
is "the database is consistent" "$(sq one.db 'PRAGMA integrity_check; PRAGMA foreign_key_check')" ok

done_testing
