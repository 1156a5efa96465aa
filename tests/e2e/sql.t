#!/bin/sh
# sql.t - `etinspect sql QUERY DUMPS...` (docs/sql.md): SQL over the dumps
# in memory gives, for the same query, exactly the values the SQLite export
# gives (read back with the sqlite3 tool and compared as JSON values with
# Python); several dumps are one dataset; a bad query or a statement that
# would write is a usage error (exit 2) naming SQLite's complaint.
. "$(dirname "$0")/lib.sh"
C="$CORPUS/etdump"
[ -f "$C/medium.etdp" ] || skip_all "the corpus's etdump directory is absent ($C)"
command -v sqlite3 >/dev/null 2>&1 || skip_all "the sqlite3 tool (to read the export back) missing"
command -v python3 >/dev/null 2>&1 || skip_all "python3 (to compare the JSON) missing"

DUMPS="$C/alloc.etdp $C/multiblock.etdp $C/medium.etdp $C/debug.etdp"
# the export of the same dumps, as one dataset (the names open_many gives)
"$ETINSPECT" -e "etinspect.open_many({$(for d in $DUMPS; do printf '"%s",' "$d"; done)}):to_sqlite('$T/all.db')" \
    2>"$T/err" || { cat "$T/err" >&2; skip_all "the export failed"; }

cat >"$T/same.py" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2])) if open(sys.argv[2]).read().strip() else []
if len(a) != len(b):
    sys.exit("%d rows from the export, %d from sql" % (len(a), len(b)))
if len(a) == 0:
    sys.exit("no rows: the query tests nothing")
for i, (x, y) in enumerate(zip(a, b)):
    if list(x) != list(y) or x != y:
        sys.exit("row %d: export %r, sql %r" % (i, x, y))
print(len(a))
PYEOF

# same DESC QUERY: the export's rows (sqlite3 -json) = etinspect sql's
same() {
    desc=$1
    q=$2
    sqlite3 -json "$T/all.db" "$q" >"$T/want.json" 2>"$T/want.err"
    # shellcheck disable=SC2086
    "$ETINSPECT" sql "$q" $DUMPS --format json >"$T/got.json" 2>"$T/got.err"
    st=$?
    if [ "$st" -eq 0 ] && python3 "$T/same.py" "$T/want.json" "$T/got.json" >"$T/n" 2>"$T/why"; then
        pass "$desc ($(cat "$T/n") rows)"
    else
        fail "$desc" "status $st: $(cat "$T/got.err" "$T/want.err" "$T/why")"
    fi
}

same "dumps: every column but exported_at" \
    "SELECT dump, format, etdump_path, etrecord_path, etrecord_method, source_time_scale, target_time_scale, num_blocks, num_events, num_samples, num_allocations, warnings, etinspect_version, etdump_realpath FROM dumps ORDER BY dump"
same "blocks" "SELECT * FROM blocks ORDER BY dump, block_index"
same "events: every column (JSON lists, statistics, first_sample)" \
    "SELECT * FROM events ORDER BY dump, block_index, event_index"
same "samples (the view's columns)" \
    "SELECT * FROM samples ORDER BY dump, block_index, event_index, run"
same "sample_data ids follow the events' first_sample" "SELECT * FROM sample_data ORDER BY id"
same "allocations" "SELECT * FROM allocations ORDER BY dump, block_index, run, seq"
same "counts per table per dump" \
    "SELECT d.dump, (SELECT count(*) FROM blocks b WHERE b.dump = d.dump) AS blocks, (SELECT count(*) FROM events e WHERE e.dump = d.dump) AS events, (SELECT count(*) FROM samples s WHERE s.dump = d.dump) AS samples, (SELECT count(*) FROM allocations a WHERE a.dump = d.dump) AS allocations FROM dumps d ORDER BY d.dump"
same "the p50 of Method::execute from the samples, per dump" \
    "WITH s AS (SELECT e.dump AS dump, s.duration AS duration, row_number() OVER (PARTITION BY e.dump ORDER BY s.duration) AS k, count(*) OVER (PARTITION BY e.dump) AS n FROM samples s JOIN events e ON e.dump = s.dump AND e.block_index = s.block_index AND e.event_index = s.event_index WHERE e.name = 'Method::execute') SELECT dump, avg(duration) AS p50 FROM s WHERE k IN ((n + 1) / 2, (n + 2) / 2) GROUP BY dump ORDER BY dump"
same "events.p50 of Method::execute (the TSV's)" \
    "SELECT dump, block_index, p50 FROM events WHERE name = 'Method::execute' ORDER BY dump, block_index"

# errors: exit 2, SQLite's words; nothing written
run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
expect() { # DESC STATUS MESSAGE
    if [ "$(cat "$T/status")" -eq "$2" ] && printf '%s\n' "$3" | cmp -s - "$T/err"; then
        pass "$1"
    else
        fail "$1" "status $(cat "$T/status")" "$(cat "$T/err")"
    fi
}
run sql "SELECT nope FROM events" "$C/alloc.etdp"
expect "an unknown column: exit 2, SQLite's message" 2 \
    "etinspect: sql: SQL: no such column: nope (etinspect --help sql)"
run sql "SELEC 1" "$C/alloc.etdp"
expect "a syntax error: exit 2" 2 'etinspect: sql: SQL: near "SELEC": syntax error (etinspect --help sql)'
run sql "DELETE FROM events" "$C/alloc.etdp"
expect "a write is refused" 2 "etinspect: sql: SQL: table events may not be modified (etinspect --help sql)"
run sql "CREATE TABLE t(x)" "$C/alloc.etdp"
expect "CREATE is refused" 2 "etinspect: sql: SQL: not authorized (etinspect --help sql)"
run sql "ATTACH '$T/new.db' AS x" "$C/alloc.etdp"
expect "ATTACH is refused" 2 "etinspect: sql: SQL: not authorized (etinspect --help sql)"
ok "... and made no file" test ! -e "$T/new.db"
run sql "PRAGMA writable_schema = 1" "$C/alloc.etdp"
expect "a PRAGMA is refused" 2 "etinspect: sql: SQL: not authorized (etinspect --help sql)"
run sql "SELECT 1; SELECT 2" "$C/alloc.etdp"
expect "one statement at a time" 2 "etinspect: sql: SQL: only one statement at a time (etinspect --help sql)"
run sql "SELECT 1" "$T/absent.etdp"
if [ "$(cat "$T/status")" -eq 1 ]; then pass "a missing dump: exit 1"; else fail "a missing dump: exit 1" "$(cat "$T/err")"; fi

# the output formats, a directory as the dumps
mkdir "$T/dir" && cp "$C/alloc.etdp" "$C/multiblock.etdp" "$T/dir/"
run sql "SELECT dump, count(*) AS n FROM events GROUP BY dump ORDER BY dump" "$T/dir" --format tsv
if [ "$(cat "$T/status")" -eq 0 ] && printf '\tdump\tn\n0\talloc.etdp\t7\n1\tmultiblock.etdp\t%s\n' \
    "$(sqlite3 "$T/all.db" "SELECT count(*) FROM events WHERE dump = 'multiblock.etdp'")" | cmp -s - "$T/out"; then
    pass "a directory is one dataset; --format tsv"
else
    fail "a directory is one dataset; --format tsv" "$(cat "$T/out" "$T/err")"
fi

# .sql in the REPL (its input piped): over the dumps opened, shown as a Frame
printf '.sql SELECT 1\n.open %s %s\n.sql SELECT dump, count(*) AS n FROM blocks GROUP BY dump ORDER BY dump\n.sql SELECT nope\n' \
    "$C/alloc.etdp" "$C/multiblock.etdp" | "$ETINSPECT" -i >"$T/out" 2>&1
nb=$(sqlite3 "$T/all.db" "SELECT count(*) FROM blocks WHERE dump = 'multiblock.etdp'")
if grep -q '^\.sql: no dumps open (\.open FILE\.\.\. first)$' "$T/out" &&
   grep -q "^alloc\.etdp  *2$" "$T/out" && grep -q "^multiblock\.etdp  *$nb$" "$T/out" &&
   grep -q '^\.sql: SQL: no such column: nope$' "$T/out"; then
    pass ".sql in the REPL: the Frame over dumps, SQLite's errors"
else
    fail ".sql in the REPL: the Frame over dumps, SQLite's errors" "$(cat "$T/out")"
fi
done_testing
