#!/bin/sh
# sqlite.t - etinspect --sqlite_path DB [--sqlite_dump NAME] (src/core/output/sqlexport.h,
# docs/sqlite-schema.md): the schema's marks, events, samples, allocations
# and ETRecord linkage read back with the sqlite3 tool; several dumps in one
# database; a dump exported again replaces its rows; files that are not
# etinspect databases and refused exports leave the file as it was (faults:
# sqlite_faults.t).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip_all "the sqlite3 command-line tool is absent"

SAMPLE="$ET_BUILD/fixtures/sample.etdp"
REC="$ET_BUILD/fixtures/sample.etrecord"
STATS10="$ET_BUILD/fixtures/stats10.etdp"
[ -f "$SAMPLE" ] && [ -f "$REC" ] && [ -f "$STATS10" ] ||
    skip_all "build/fixtures not built (run make fixtures)"
MEDIUM="$ET_SHARED/corpus/etdump/medium.etdp"
SMALL="$ET_SHARED/corpus/etdump/small.etdp"
ALLOC="$ET_SHARED/corpus/etdump/alloc.etdp"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -q -- "$1" "$T/err"; }
# sq DB SQL: the query's rows, columns separated by '|', no ~/.sqliterc
sq() { sqlite3 -init /dev/null -batch -noheader "$@" 2>&1; }
# is GOT WANT: compare two strings, showing both on failure
is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}
no_temp_files() { test -z "$(ls "$T" | grep -E "^$1\.[A-Za-z0-9]{6}")"; }

# ---------------------------------------------------------------------------
# the sample dump, linked to its ETRecord

DB="$T/sample.db"
run --etdump_path "$SAMPLE" --etrecord_path "$REC" --sqlite_path "$DB" -q
ok "sample + ETRecord: exit 0" status_is 0
ok "sample + ETRecord: nothing on stderr" test ! -s "$T/err"
is "the database is marked: application_id 'ETIN', schema version 2" \
    "$(sq "$DB" 'PRAGMA application_id; PRAGMA user_version')" "1163151694
2"
is "a new database has pages of 64 KiB" "$(sq "$DB" 'PRAGMA page_size')" 65536
is "the dump is named after the file; units and inputs recorded" \
    "$(sq "$DB" 'SELECT dump, format, source_time_scale, target_time_scale, etrecord_path,
                        num_blocks, num_events, num_samples FROM dumps')" \
    "sample.etdp|etdump|ns|ms|$REC|2|10|26"
is "blocks: the ETRecord method each block is linked to" \
    "$(sq "$DB" 'SELECT block_index, name, num_runs, etrecord_method FROM blocks ORDER BY 1')" \
    "0|Default|1|forward
1|Execute|3|forward"
is "op_types as JSON text: a kernel's" \
    "$(sq "$DB" "SELECT op_types FROM events WHERE name = 'native_call_convolution.out'")" \
    '["aten.convolution.default"]'
is "the delegate call: op_types, debug handles (a list) and backend" \
    "$(sq "$DB" "SELECT op_types, debug_handles, delegate_backend_name FROM events
                 WHERE name = 'DELEGATE_CALL'")" \
    '["aten.convolution.default", "aten.relu.default"]|[2, 3]|XnnpackBackend'
is "a delegated event: string identifier, node type, backend" \
    "$(sq "$DB" "SELECT delegate_debug_identifier, typeof(delegate_debug_identifier), node_type,
                        is_delegated_op, delegate_backend_name FROM events WHERE name = 'fused_relu #1'")" \
    'fused_relu #1|text|delegate:fused_relu #1|1|XnnpackBackend'
is "an integer delegate identifier is an INTEGER" \
    "$(sq "$DB" "SELECT delegate_debug_identifier, typeof(delegate_debug_identifier) FROM events
                 WHERE name = '0'")" '0|integer'
is "the JSON columns are valid JSON for SQLite's JSON functions" \
    "$(sq "$DB" "SELECT sum(json_valid(op_types)), sum(json_array_length(op_types)),
                        count(debug_handles) FROM events")" '10|8|10'
is "samples: one per run of every event with perf data" \
    "$(sq "$DB" 'SELECT count(*), (SELECT sum(num_samples) FROM events) FROM samples')" '26|26'
is "samples: raw start ticks and run_data_index of the convolution's runs" \
    "$(sq "$DB" "SELECT s.run, s.run_data_index, s.start_time, printf('%.4f', s.duration)
                 FROM samples s JOIN events e USING (dump, block_index, event_index)
                 WHERE e.name = 'native_call_convolution.out' ORDER BY s.run")" \
    "0|1|100300|0.1200
1|2|350300|0.1268
2|3|600300|0.1236"

# every statistic equals the TSV's, to the last bit (both read as doubles;
# SQLite's printf needs the '!' flag for 17 significant digits)
"$ETINSPECT" --etdump_path "$SAMPLE" --quiet --tsv_path "$T/sample.tsv"
sq "$DB" "SELECT printf('%!.17g|%!.17g|%!.17g|%!.17g|%!.17g|%!.17g', p10, p50, p90, avg, min, max)
          FROM events WHERE name NOT LIKE '%OPERATOR_CALL%' ORDER BY block_index, event_index" |
    tr '|' '\t' >"$T/sql.stats"
tail -n +2 "$T/sample.tsv" | cut -f 4-9 >"$T/tsv.stats"
ok "events: p10 .. max equal the TSV's (save_data_to_tsv)" \
    awk 'NR == FNR { a[FNR] = $0; next }
         { split(a[FNR], x, "\t"); for (i = 1; i <= 6; i++) if (x[i] + 0 != $i + 0) exit 1 }
         END { if (NR != 2 * FNR) exit 1 }' "$T/sql.stats" "$T/tsv.stats"
is "events: total is the sum of the samples" \
    "$(sq "$DB" "SELECT count(*) FROM events e WHERE abs(e.total - (SELECT sum(duration) FROM samples s
                 WHERE s.dump = e.dump AND s.block_index = e.block_index
                 AND s.event_index = e.event_index)) > 1e-12")" '0'
is "the view top_operators: per block, top_ops's node types, counts and shares" \
    "$(sq "$DB" "SELECT block_index, block_name, runs, rank, node_type, events,
                        printf('%.6f|%.4f|%.4f', time_per_run, pct, cdf_pct)
                 FROM top_operators WHERE dump = 'sample.etdp' ORDER BY rank")" \
    "1|Execute|3|1|convolution|1|0.123467|66.8713|66.8713
1|Execute|3|2|delegate:0|1|0.030867|16.7178|83.5891
1|Execute|3|3|addmm|1|0.018867|10.2185|93.8075
1|Execute|3|4|delegate:fused_relu #1|1|0.011433|6.1925|100.0000"

run --etdump_path "$SAMPLE" --sqlite_path "$T/norec.db" -q
is "without an ETRecord: op_types, debug handles, backend and method are NULL" \
    "$(sq "$T/norec.db" "SELECT count(op_types), count(debug_handles), count(delegate_backend_name),
                         (SELECT count(etrecord_method) FROM blocks), (SELECT count(etrecord_path) FROM dumps)
                         FROM events")" '0|0|0|0|0'

# ---------------------------------------------------------------------------
# several dumps in one database; exporting a dump again replaces it

DB="$T/multi.db"
run --etdump_path "$SAMPLE" --sqlite_path "$DB" --sqlite_dump first -q
run --etdump_path "$SAMPLE" --sqlite_path "$DB" --sqlite_dump second -q
run --etdump_path "$STATS10" --sqlite_path "$DB" -q
ok "three exports into one database: exit 0" status_is 0
is "three dumps, rows per dump" \
    "$(sq "$DB" "SELECT d.dump, (SELECT count(*) FROM blocks b WHERE b.dump = d.dump),
                        (SELECT count(*) FROM events e WHERE e.dump = d.dump),
                        (SELECT count(*) FROM samples s WHERE s.dump = d.dump)
                 FROM dumps d ORDER BY d.dump")" \
    "first|2|10|26
second|2|10|26
stats10.etdp|1|1|10"
cp "$DB" "$T/multi.orig"
run --etdump_path "$STATS10" --sqlite_path "$DB" --sqlite_dump first -q
ok "another file under an existing dump name: refused (exit 2)" status_is 2
ok "... the message names the dump, the other file and the way out" \
    err_has "multi.db: the database has a dump named 'first' from another file ($SAMPLE); choose another name, or replace it (--sqlite_replace"
ok "... the database is untouched" cmp "$DB" "$T/multi.orig"
run --etdump_path "$STATS10" --sqlite_path "$DB" --sqlite_dump first --sqlite_replace -q
ok "... with --sqlite_replace: exit 0" status_is 0
is "the dump's old rows are gone, the new ones in, the others untouched" \
    "$(sq "$DB" "SELECT d.dump, d.etdump_path,
                        (SELECT count(*) FROM blocks b WHERE b.dump = d.dump),
                        (SELECT count(*) FROM events e WHERE e.dump = d.dump),
                        (SELECT count(*) FROM samples s WHERE s.dump = d.dump)
                 FROM dumps d ORDER BY d.dump")" \
    "first|$STATS10|1|1|10
second|$SAMPLE|2|10|26
stats10.etdp|$STATS10|1|1|10"
is "... and the replaced dump's sample rows are gone (no orphans)" \
    "$(sq "$DB" "SELECT count(*), (SELECT sum(num_samples) FROM events) FROM sample_data")" "46|46"
run --etdump_path "$SAMPLE" --sqlite_path "$DB" --sqlite_replace -q
ok "--sqlite_replace without --sqlite_dump: exit 2" status_is 2
ok "... says what it needs" err_has "argument --sqlite_replace: only with --sqlite_dump"
is "the database is consistent" "$(sq "$DB" 'PRAGMA integrity_check; PRAGMA foreign_key_check')" ok
ok "no temporary file left beside the database" no_temp_files multi.db
run --etdump_path "$SAMPLE" --sqlite_path "$DB" --sqlite_dump "" -q
ok "an empty dump name: exit 2" status_is 2

# ---------------------------------------------------------------------------
# what is not an etinspect database is never replaced

printf 'my notes\n' >"$T/notes.txt"
cp "$T/notes.txt" "$T/notes.orig"
run --etdump_path "$SAMPLE" --sqlite_path "$T/notes.txt" -q
ok "a file that is not a database: exit 1" status_is 1
ok "... the message names the file" err_has "notes.txt: not an etinspect database (file is not a database)"
ok "... the file is untouched" cmp "$T/notes.txt" "$T/notes.orig"
ok "... no temporary file left" no_temp_files notes.txt

sq "$T/other.db" "CREATE TABLE mine(x); INSERT INTO mine VALUES (42)" >/dev/null
cp "$T/other.db" "$T/other.orig"
run --etdump_path "$SAMPLE" --sqlite_path "$T/other.db" -q
ok "another application's SQLite database: exit 1" status_is 1
ok "... the message says why" err_has "other.db: not an etinspect database (an SQLite database with application_id 0"
ok "... the database is untouched" cmp "$T/other.db" "$T/other.orig"

cp "$SAMPLE" "$T/in.etdp"
run --etdump_path "$T/in.etdp" --sqlite_path "$T/in.etdp" -q
ok "the ETDump itself as the database: refused (exit 2)" status_is 2
ok "... the ETDump is untouched" cmp "$T/in.etdp" "$SAMPLE"
run --etdump_path "$SAMPLE" --sqlite_path "$T" -q
ok "a directory: exit 1" status_is 1
run --etdump_path "$SAMPLE" --sqlite_path "$T/no/such/dir.db" -q
ok "a directory that does not exist: exit 1" status_is 1
ok "... the message names the path" err_has "no/such/dir.db: cannot create the database: No such file or directory"

# ---------------------------------------------------------------------------
# a failed export leaves the database as it was

DB="$T/keep.db"
"$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$DB" -q
sq "$DB" "CREATE TRIGGER refuse BEFORE INSERT ON sample_data BEGIN SELECT RAISE(ABORT, 'no more samples'); END" \
    >/dev/null
cp "$DB" "$T/keep.orig"
run --etdump_path "$STATS10" --sqlite_path "$DB" -q
ok "a trigger etinspect did not create: refused (exit 1)" status_is 1
ok "... the message names the path and the trigger" \
    err_has "keep.db: the database has a trigger 'refuse' that etinspect did not create; refusing to write into it"
ok "... the database is byte for byte as it was" cmp "$DB" "$T/keep.orig"
ok "... no temporary file left" no_temp_files keep.db

sq "$DB" "DROP TRIGGER refuse; PRAGMA user_version = 7" >/dev/null
cp "$DB" "$T/keep.orig"
run --etdump_path "$STATS10" --sqlite_path "$DB" -q
ok "a database of a newer schema version: exit 1" status_is 1
ok "... the message gives both versions" err_has "keep.db: an etinspect database of schema version 7; this etinspect writes version 2"
ok "... the database is untouched" cmp "$DB" "$T/keep.orig"

sq "$DB" "PRAGMA user_version = 2" >/dev/null
: >"$DB-journal"
cp "$DB" "$T/keep.orig"
run --etdump_path "$STATS10" --sqlite_path "$DB" -q
ok "an empty journal beside the database (not a hot one, SQLite's to handle): exit 0" status_is 0
ok "... SQLite removed it" test ! -e "$DB-journal"
run --etdump_path "$STATS10" --sqlite_path "$DB" -q
ok "exported again: exit 0" status_is 0

ln -s keep-target.db "$T/link.db"
run --etdump_path "$SAMPLE" --sqlite_path "$T/link.db" -q
ok "a symbolic link to a new file: exit 0" status_is 0
ok "... the link stays a link, its target is the database" test -L "$T/link.db" -a -f "$T/keep-target.db"

# ---------------------------------------------------------------------------
# a database of schema version 1 (etinspect before the samples view) is
# migrated: its rows kept, samples moved to sample_data

DB="$T/v1.db"
sq "$DB" >/dev/null <<'EOF'
PRAGMA application_id = 1163151694;
PRAGMA user_version = 1;
CREATE TABLE dumps(dump TEXT NOT NULL PRIMARY KEY, format TEXT NOT NULL, etdump_path TEXT NOT NULL,
  etrecord_path TEXT, etrecord_method TEXT, source_time_scale TEXT NOT NULL,
  target_time_scale TEXT NOT NULL, num_blocks INTEGER NOT NULL, num_events INTEGER NOT NULL,
  num_samples INTEGER NOT NULL, num_allocations INTEGER NOT NULL, warnings TEXT NOT NULL,
  etinspect_version TEXT NOT NULL, exported_at TEXT NOT NULL);
CREATE TABLE blocks(dump TEXT NOT NULL REFERENCES dumps(dump) ON DELETE CASCADE,
  block_index INTEGER NOT NULL, name TEXT NOT NULL, num_runs INTEGER NOT NULL,
  num_events INTEGER NOT NULL, bundled_input_index INTEGER NOT NULL, etrecord_method TEXT,
  PRIMARY KEY (dump, block_index)) WITHOUT ROWID;
CREATE TABLE events(dump TEXT NOT NULL, block_index INTEGER NOT NULL, event_index INTEGER NOT NULL,
  name TEXT NOT NULL, node_type TEXT, instruction_id INTEGER NOT NULL, delegate_debug_identifier,
  is_delegated_op INTEGER NOT NULL, delegate_backend_name TEXT, debug_handles TEXT, op_types TEXT,
  num_outputs INTEGER NOT NULL, num_samples INTEGER NOT NULL,
  p10 REAL, p50 REAL, p90 REAL, avg REAL, min REAL, max REAL, total REAL,
  PRIMARY KEY (dump, block_index, event_index),
  FOREIGN KEY (dump, block_index) REFERENCES blocks(dump, block_index) ON DELETE CASCADE) WITHOUT ROWID;
CREATE TABLE samples(dump TEXT NOT NULL, block_index INTEGER NOT NULL, event_index INTEGER NOT NULL,
  run INTEGER NOT NULL, run_data_index INTEGER NOT NULL, duration REAL, start_time INTEGER,
  PRIMARY KEY (dump, block_index, event_index, run),
  FOREIGN KEY (dump, block_index, event_index) REFERENCES events(dump, block_index, event_index)
    ON DELETE CASCADE) WITHOUT ROWID;
CREATE TABLE allocations(dump TEXT NOT NULL, block_index INTEGER NOT NULL, run INTEGER NOT NULL,
  seq INTEGER NOT NULL, run_data_index INTEGER NOT NULL, allocator_id INTEGER NOT NULL,
  allocator TEXT, allocation_size INTEGER NOT NULL, PRIMARY KEY (dump, block_index, run, seq),
  FOREIGN KEY (dump, block_index) REFERENCES blocks(dump, block_index) ON DELETE CASCADE) WITHOUT ROWID;
CREATE INDEX events_by_name ON events(dump, name);
CREATE INDEX events_by_node_type ON events(dump, node_type);
CREATE VIEW top_operators AS SELECT dump, 1 AS rank, node_type, 1 AS events, avg, 100.0 AS avg_pct,
  100.0 AS cdf_pct, total FROM events;
INSERT INTO dumps VALUES('stats10.etdp', 'etdump', 'old/stats10.etdp', NULL, NULL, 'ns', 'ms', 1, 2, 5,
  0, '[]', '0.1.0', '2026-11-20T10:00:00Z');
INSERT INTO blocks VALUES('stats10.etdp', 0, 'Execute', 3, 2, -1, NULL);
INSERT INTO events VALUES('stats10.etdp', 0, 0, 'native_call_add.out', 'add', 0, NULL, 0, NULL, NULL,
  NULL, 1, 3, 1, 2, 3, 2, 1, 3, 6);
INSERT INTO events VALUES('stats10.etdp', 0, 1, 'Method::execute', NULL, -1, NULL, 0, NULL, NULL,
  NULL, 1, 2, 4, 4, 4, 4, 4, 4, 8);
INSERT INTO samples VALUES('stats10.etdp', 0, 1, 1, 2, 4.0, 900), ('stats10.etdp', 0, 0, 2, 3, 3.0, 300),
  ('stats10.etdp', 0, 0, 0, 1, 1.0, 100), ('stats10.etdp', 0, 1, 0, 1, 4.0, 800),
  ('stats10.etdp', 0, 0, 1, 2, 2.0, 200);
EOF
run --etdump_path "$STATS10" --sqlite_path "$DB" -q
ok "a schema 1 database: exported into (exit 0)" status_is 0
is "... migrated to schema 2" "$(sq "$DB" 'PRAGMA user_version')" 2
is "... its samples kept, in run order, through the samples view" \
    "$(sq "$DB" "SELECT event_index, run, run_data_index, duration, start_time FROM samples
                 WHERE dump = 'stats10.etdp' ORDER BY event_index, run")" \
    "0|0|1|1.0|100
0|1|2|2.0|200
0|2|3|3.0|300
1|0|1|4.0|800
1|1|2|4.0|900"
is "... its dump's file is not known: this file's dump of the same name is kept apart" \
    "$(sq "$DB" "SELECT dump, etdump_path, etdump_realpath IS NULL FROM dumps ORDER BY dump")" \
    "fixtures/stats10.etdp|$STATS10|0
stats10.etdp|old/stats10.etdp|1"
is "... top_operators is the new view" \
    "$(sq "$DB" "SELECT block_name, node_type, time_per_run FROM top_operators WHERE dump = 'stats10.etdp'")" \
    "Execute|add|2.0"
is "... and the database is consistent" \
    "$(sq "$DB" 'PRAGMA integrity_check; PRAGMA foreign_key_check')" ok

# ---------------------------------------------------------------------------
# the corpus: medium.etdp (100,252 samples), allocations of alloc.etdp

if [ ! -f "$MEDIUM" ] || [ ! -f "$SMALL" ] || [ ! -f "$ALLOC" ]; then
    skip "$MEDIUM, small.etdp or alloc.etdp absent (the shared corpus)"
    done_testing
fi

DB="$T/corpus.db"
run --etdump_path "$MEDIUM" --sqlite_path "$DB" -q
ok "medium.etdp: exit 0" status_is 0
want=$("$ETINSPECT" -e "
  local insp = require('etinspect').Inspector{etdump_path = '$MEDIUM'}
  local n = 0
  for _, b in ipairs(insp.event_blocks) do
    for _, ev in ipairs(b.events) do
      if ev.perf_data then n = n + #ev.perf_data.raw end
    end
  end
  print(n)")
is "medium.etdp: one sample per run and event ($want, counted in Lua)" \
    "$(sq "$DB" "SELECT count(*) FROM samples WHERE dump = 'medium.etdp'")" "$want"

# top_ops.lua: node type = 'delegate:' || name for delegated events, else
# the OP of native_call_OP without a last '.overload'; events with perf
# data outside "Default" blocks; avg = the sum of the events' means.  The
# query derives the node type from the names, not from events.node_type.
cat >"$T/top5.sql" <<'EOF'
.separator "\t"
WITH w(chars) AS (SELECT 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'),
op AS (
  SELECT e.avg, e.is_delegated_op, e.name,
         CASE WHEN substr(e.name, 1, 12) = 'native_call_' AND length(e.name) > 12
              THEN substr(e.name, 13) END AS op
  FROM events AS e JOIN blocks AS b USING (dump, block_index)
  WHERE e.dump = 'medium.etdp' AND b.name <> 'Default' AND e.num_samples > 0
),
nt AS (
  SELECT avg,
         CASE WHEN is_delegated_op THEN 'delegate:' || name
              WHEN op IS NULL THEN NULL
              WHEN length(rtrim(op, w.chars)) < length(op) AND substr(rtrim(op, w.chars), -1) = '.'
              THEN substr(op, 1, length(rtrim(op, w.chars)) - 1)
              ELSE op END AS node_type
  FROM op, w
),
g AS (SELECT node_type, count(*) AS n, sum(avg) AS total FROM nt
      WHERE node_type IS NOT NULL GROUP BY node_type)
SELECT node_type, n, printf('%!.17g', total),
       printf('%!.17g', 100.0 * total / (SELECT sum(total) FROM g))
FROM g ORDER BY total DESC, node_type LIMIT 5;
EOF
sqlite3 -init /dev/null -batch -noheader "$DB" <"$T/top5.sql" >"$T/top5.sql.out" 2>&1
"$ETINSPECT" top_ops "$MEDIUM" --format tsv --top 5 | tail -n +2 | cut -f 2-5 >"$T/top5.lua.out"
is "top 5 operators by total time: the SQL query's node types and counts are top_ops's" \
    "$(cut -f 1,2 "$T/top5.sql.out")" "$(cut -f 1,2 "$T/top5.lua.out")"
ok "... and so are their times and shares (to 1e-12, relative)" \
    awk -F '\t' 'NR == FNR { t[FNR] = $3; p[FNR] = $4; next }
        function off(a, b) { d = a - b; if (d < 0) d = -d; return d > 1e-12 * (b < 0 ? -b : b) }
        off($3, t[FNR]) || off($4, p[FNR]) { bad = 1 }
        END { exit bad || NR != 10 }' "$T/top5.sql.out" "$T/top5.lua.out"
sq "$DB" -separator "$(printf '\t')" \
    "SELECT node_type, events, printf('%!.17g', time_per_run), printf('%!.17g', pct) FROM top_operators
     WHERE dump = 'medium.etdp' AND rank <= 5 ORDER BY rank" >"$T/top5.view.out"
ok "... the view top_operators gives the same rows" \
    awk -F '\t' 'NR == FNR { a[FNR] = $0; next }
        { split(a[FNR], x, "\t"); d = x[3] - $3; if (d < 0) d = -d
          if (x[1] != $1 || x[2] != $2 || d > 1e-12 * $3) bad = 1 }
        END { exit bad || NR != 10 }' "$T/top5.view.out" "$T/top5.sql.out"

run --etdump_path "$SMALL" --sqlite_path "$DB" -q
ok "small.etdp added: exit 0" status_is 0
run --etdump_path "$SMALL" --sqlite_path "$DB" --sqlite_dump small-again -q
is "medium and small (twice) in one database: samples per dump" \
    "$(sq "$DB" "SELECT dump, count(*) FROM samples GROUP BY dump ORDER BY dump")" \
    "medium.etdp|$want
small-again|190
small.etdp|190"
run --etdump_path "$SMALL" --sqlite_path "$DB" -q
is "small.etdp exported again: replaced, not added" \
    "$(sq "$DB" "SELECT dump, count(*) FROM samples GROUP BY dump ORDER BY dump")" \
    "medium.etdp|$want
small-again|190
small.etdp|190"
is "the string delegate identifiers of small.etdp" \
    "$(sq "$DB" "SELECT DISTINCT delegate_debug_identifier FROM events WHERE dump = 'small.etdp'
                 AND typeof(delegate_debug_identifier) = 'text' ORDER BY 1")" "add #1
fused_conv_relu #1"

run --etdump_path "$ALLOC" --sqlite_path "$DB" -q
ok "alloc.etdp: exit 0" status_is 0
is "alloc.etdp: the Default block's allocations, in order (allocator ids 1-based)" \
    "$(sq "$DB" "SELECT seq, allocator_id, allocator, allocation_size FROM allocations
                 WHERE dump = 'alloc.etdp' AND block_index = 0 ORDER BY run, seq")" \
    "0|1|method_allocator|4096
1|1|method_allocator|128
2|2|planned_memory_0|1048576
3|1|method_allocator|24
4|3|temp_allocator|0
5|2|planned_memory_0|5000000000"
is "alloc.etdp: 15 allocations; bytes per block name and allocator" \
    "$(sq "$DB" "SELECT b.name, a.allocator, count(*), sum(a.allocation_size)
                 FROM allocations a JOIN blocks b USING (dump, block_index)
                 WHERE a.dump = 'alloc.etdp' GROUP BY b.name, a.allocator ORDER BY 1, 2")" \
    "Default|method_allocator|3|4248
Default|planned_memory_0|2|5001048576
Default|temp_allocator|1|0
Execute|scratch|3|196608
Execute|temp_allocator|6|1728"
is "alloc.etdp: the dumps row counts them" \
    "$(sq "$DB" "SELECT num_allocations FROM dumps WHERE dump = 'alloc.etdp'")" 15

done_testing
