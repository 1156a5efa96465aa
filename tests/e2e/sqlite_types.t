#!/bin/sh
# sqlite_types.t - declared types in the SQLite export (issue 28;
# docs/sqlite-schema.md, "Declared types"): every table column has one but
# events.delegate_debug_identifier (INTEGER or TEXT by design); every
# column of the views is a typed table column or a CAST, whose values have
# the CAST's type; a database whose views etinspect wrote before the CASTs
# is accepted, appended to, and its views made again with them in the same
# transaction; a view that is neither is refused.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip_all "the sqlite3 command-line tool is absent"

SAMPLE="$ET_BUILD/fixtures/sample.etdp"
REC="$ET_BUILD/fixtures/sample.etrecord"
STATS10="$ET_BUILD/fixtures/stats10.etdp"
[ -f "$SAMPLE" ] && [ -f "$REC" ] && [ -f "$STATS10" ] ||
    skip_all "build/fixtures not built (run make fixtures)"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -qF -- "$1" "$T/err"; }
sq() { sqlite3 -init /dev/null -batch -noheader "$@" 2>&1; }
is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}
# every column of every table and view with its declared type: OBJECT.COLUMN:TYPE
columns() {
    sq "$1" "SELECT m.name || '.' || c.name || ':' || c.type
             FROM sqlite_master AS m, pragma_table_xinfo(m.name) AS c
             WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%'
             ORDER BY m.type, m.name, c.cid"
}
# recent SQLite gives a view's CAST column the CAST's type; the sqlite3 at
# hand (3.40) may not
cast_typed=$(sq :memory: "CREATE VIEW p AS SELECT CAST(1 AS INTEGER) AS x;
                          SELECT type FROM pragma_table_info('p')")

DB="$T/new.db"
run --etdump_path "$SAMPLE" --etrecord_path "$REC" --sqlite_path "$DB" -q
ok "a new database: exit 0" status_is 0
is "every table column has a declared type but delegate_debug_identifier" \
    "$(columns "$DB" | grep -v '^samples\.\|^top_operators\.' | grep ':$')" \
    "events.delegate_debug_identifier:"
is "... and the tables' columns are all listed (55)" \
    "$(columns "$DB" | grep -vc '^samples\.\|^top_operators\.')" 55
if [ "$cast_typed" = INTEGER ]; then
    is "every view column has a declared type (this SQLite types a CAST)" \
        "$(columns "$DB" | grep '^samples\.\|^top_operators\.' | grep -c ':$')" 0
    is "... the computed ones the CAST's" \
        "$(columns "$DB" | grep -E '^(samples\.run|top_operators\.(rank|events|time_per_run|pct|cdf_pct|total)):' | tr '\n' ' ')" \
        "samples.run:INTEGER top_operators.cdf_pct:REAL top_operators.events:INTEGER top_operators.pct:REAL top_operators.rank:INTEGER top_operators.time_per_run:REAL top_operators.total:REAL "
else
    skip "view column types: this SQLite ($(sq :memory: 'SELECT sqlite_version()')) gives a CAST column no declared type"
    skip "... (the CASTs are checked below)"
fi
# each view column without a type of its own is a CAST in the view's text
is "the view columns not typed by their table are the CASTs" \
    "$(columns "$DB" | grep '^samples\.\|^top_operators\.' | sed -n 's/:$//p' | sort | tr '\n' ' ')" \
    "$( [ "$cast_typed" = INTEGER ] && echo "" || echo "samples.run top_operators.cdf_pct top_operators.events top_operators.pct top_operators.rank top_operators.time_per_run top_operators.total ")"
for c in "CAST(s.id - e.first_sample AS INTEGER) AS run" "CAST(rank AS INTEGER) AS rank" \
    "CAST(events AS INTEGER) AS events" "CAST(time_per_run AS REAL) AS time_per_run" \
    "ELSE 0.0 END AS REAL) AS cdf_pct" "CAST(total AS REAL) AS total"; do
    ok "... the views say $c" test -n "$(sq "$DB" "SELECT name FROM sqlite_master WHERE type = 'view' AND instr(sql, '$c')")"
done
is "the values have the CASTs' types, on every row" \
    "$(sq "$DB" "SELECT group_concat(DISTINCT typeof(run)) FROM samples;
                 SELECT group_concat(DISTINCT typeof(rank) || typeof(events) || typeof(time_per_run) ||
                                     typeof(pct) || typeof(cdf_pct) || typeof(total)) FROM top_operators")" \
    "integer
integerintegerrealrealrealreal"
before=$(sq "$DB" "SELECT * FROM top_operators ORDER BY 1, 2, 5; SELECT * FROM samples ORDER BY 1, 2, 3, 4")

# a database of the views as etinspect wrote them before the CASTs
sq "$DB" "DROP VIEW samples; DROP VIEW top_operators;
CREATE VIEW samples AS
SELECT e.dump AS dump, e.block_index AS block_index, e.event_index AS event_index,
       s.id - e.first_sample AS run, s.run_data_index AS run_data_index,
       s.duration AS duration, s.start_time AS start_time
FROM events AS e JOIN sample_data AS s
  ON s.id BETWEEN e.first_sample AND e.first_sample + e.num_samples - 1;
CREATE VIEW top_operators AS
WITH t AS (
  SELECT e.dump AS dump, e.block_index AS block_index, b.name AS block_name,
         b.num_runs AS runs, e.node_type AS node_type, count(*) AS events,
         sum(e.avg) AS time_per_run, sum(e.total) AS total
  FROM events AS e JOIN blocks AS b ON b.dump = e.dump AND b.block_index = e.block_index
  WHERE e.node_type IS NOT NULL AND e.num_samples > 0 AND b.name <> 'Default'
  GROUP BY e.dump, e.block_index, e.node_type
), r AS (
  SELECT t.*, sum(time_per_run) OVER (PARTITION BY dump, block_index) AS grand,
         sum(time_per_run) OVER (PARTITION BY dump, block_index
           ORDER BY time_per_run DESC, node_type ROWS UNBOUNDED PRECEDING) AS cum,
         row_number() OVER (PARTITION BY dump, block_index
           ORDER BY time_per_run DESC, node_type) AS rank
  FROM t
)
SELECT dump, block_index, block_name, runs, rank, node_type, events, time_per_run,
       CASE WHEN grand > 0 THEN 100.0 * time_per_run / grand ELSE 0.0 END AS pct,
       CASE WHEN grand > 0 THEN 100.0 * cum / grand ELSE 0.0 END AS cdf_pct,
       total
FROM r;"
is "the old views: no CAST" "$(sq "$DB" "SELECT count(*) FROM sqlite_master WHERE instr(sql, 'CAST(')")" 0
is "... the same rows" \
    "$(sq "$DB" "SELECT * FROM top_operators ORDER BY 1, 2, 5; SELECT * FROM samples ORDER BY 1, 2, 3, 4")" \
    "$before"
cp "$DB" "$T/old.db"
# the views are made again inside the export's transaction: a refused
# export leaves them as they were
run --etdump_path "$STATS10" --sqlite_path "$DB" --sqlite_dump sample.etdp -q
ok "a refused export into the database of the old views: exit 2" status_is 2
ok "... the database byte for byte as it was (old views kept)" cmp "$DB" "$T/old.db"
run --etdump_path "$STATS10" --sqlite_path "$DB" -q
ok "appending to a database of the old views: exit 0" status_is 0
ok "... nothing on stderr" test ! -s "$T/err"
is "... its views made again with the CASTs" \
    "$(sq "$DB" "SELECT name FROM sqlite_master WHERE type = 'view' AND instr(sql, 'CAST(') ORDER BY 1" | tr '\n' ' ')" \
    "samples top_operators "
is "... the same schema as a new database's" \
    "$(sq "$DB" "SELECT type, name, sql FROM sqlite_master ORDER BY name")" \
    "$("$ETINSPECT" --etdump_path "$STATS10" --sqlite_path "$T/new2.db" -q; sq "$T/new2.db" "SELECT type, name, sql FROM sqlite_master ORDER BY name")"
is "... the old dump's rows as they were, the new dump's added" \
    "$(sq "$DB" "SELECT * FROM top_operators WHERE dump = 'sample.etdp' ORDER BY 1, 2, 5;
                 SELECT * FROM samples WHERE dump = 'sample.etdp' ORDER BY 1, 2, 3, 4")|$(sq "$DB" "SELECT count(*) FROM samples WHERE dump = 'stats10.etdp'")" \
    "$before|10"
is "... schema version 2, consistent" "$(sq "$DB" "PRAGMA user_version; PRAGMA integrity_check")" "2
ok"

# a view that is neither etinspect's old nor its new one is refused
cp "$T/old.db" "$T/mine.db"
sq "$T/mine.db" "DROP VIEW samples; CREATE VIEW samples AS SELECT 1 AS run" >/dev/null
cp "$T/mine.db" "$T/mine.orig"
run --etdump_path "$STATS10" --sqlite_path "$T/mine.db" -q
ok "a view of samples changed: exit 1" status_is 1
ok "... named" err_has "its view 'samples' is not as etinspect created it"
ok "... the database as it was" cmp "$T/mine.db" "$T/mine.orig"

done_testing
