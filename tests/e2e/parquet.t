#!/bin/sh
# parquet.t - the Parquet dataset (--parquet_path, insp:to_parquet,
# dumps:to_parquet; src/core/output/parquet.h, docs/fleet.md) read back by
# a real engine: DuckDB, its Node.js package installed from npm into a
# scratch directory (skipped, saying so, when node or npm is missing or
# the registry cannot be reached).  DuckDB must read every table with the
# declared types and physical layout (ZSTD, dictionary encodings, REQUIRED
# and OPTIONAL, statistics equal to the data), return every sample (the
# SQLite export's rows, value for value), and give each dump's
# Method::execute p50, computed with quantile_cont over the samples, equal
# to the TSV's.  Shards: content-hash names, a re-run replaces its own
# files only, two machines' dumps of one name stay apart.  Every SQL block
# of docs/fleet.md runs and gives the output printed under it.  pyarrow,
# when installed, reads the files too.
. "$(dirname "$0")/lib.sh"

FIX="$ET_BUILD/fixtures"
C="$CORPUS/etdump"
[ -f "$FIX/sample.etdp" ] && [ -f "$FIX/sample.etrecord" ] ||
    skip_all "build/fixtures not built (run make fixtures)"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed (apt-get install sqlite3)"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
    skip_all "node or npm is not installed (apt-get install nodejs npm): DuckDB cannot be installed to read the files"
mkdir -p "$T/npm"
if ! timeout 600 npm install --prefix "$T/npm" --no-audit --no-fund --loglevel=error \
    @duckdb/node-api >"$T/npm.log" 2>&1; then
    skip_all "npm could not install @duckdb/node-api (is the npm registry reachable?): $(tail -n 1 "$T/npm.log")"
fi

# run.mjs [--tsv] SQL_FILE...: the files' SQL in one DuckDB connection, in
# order; each file's last result into FILE.out, as a Markdown table (the
# form docs/fleet.md prints) or, with --tsv, tab-separated without a
# header; NULL for null; "ERROR: ..." and exit status 1 on an error
cat >"$T/npm/run.mjs" <<'EOF'
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const tsv = args[0] === '--tsv';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
let failed = 0;
for (const f of tsv ? args.slice(1) : args) {
  try {
    const r = await con.runAndReadAll(readFileSync(f, 'utf8'));
    const body = r.getRowsJson().map(row => row.map(v => v === null ? 'NULL' : String(v)));
    let out;
    if (tsv) {
      out = body.map(row => row.join('\t'));
    } else {
      const rows = [r.columnNames()].concat(body);
      const w = rows[0].map((_, i) => Math.max(3, ...rows.map(row => row[i].length)));
      const line = row => '| ' + row.map((c, i) => c.padEnd(w[i])).join(' | ') + ' |';
      out = [line(rows[0]), '|' + w.map(n => '-'.repeat(n + 2)).join('|') + '|']
        .concat(rows.slice(1).map(line));
    }
    writeFileSync(f + '.out', out.join('\n') + (out.length ? '\n' : ''));
  } catch (e) {
    writeFileSync(f + '.out', 'ERROR: ' + e.message + '\n');
    console.error(f + ': ' + e.message);
    failed = 1;
  }
}
process.exit(failed);
EOF
# duck SQL: one query, its rows tab-separated on stdout (a fresh
# connection; paths relative to $T)
duck() {
    printf '%s\n' "$1" >"$T/q.sql"
    (cd "$T" && node "$T/npm/run.mjs" --tsv q.sql) 2>"$T/duck.err" && cat "$T/q.sql.out"
}
is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}
same_file() { # description got want
    if cmp -s "$2" "$3"; then pass "$1"
    else fail "$1" "$(diff "$2" "$3" | head -n 10)"; fi
}
run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }

# ---------------------------------------------------------------------------
# a fleet: dumps of every shape the fixtures have, and corpus dumps (more
# rows than a page holds, cycles, several blocks) when the corpus is there

mkdir -p "$T/fleet"
for f in alloc_small debug_only delegate_ids delegates diff_a diff_b hostile_names stats10 \
    two_methods wrap empty_runs memory_round repeat upstream_names groups; do
    cp "$FIX/$f.etdp" "$T/fleet/"
done
for f in multiblock medium cycles; do
    [ -f "$C/$f.etdp" ] && cp "$C/$f.etdp" "$T/fleet/"
done
n_fleet=$(ls "$T/fleet" | wc -l)
cd "$T" || exit 1
run --etdump_path fleet --parquet_path ds --sqlite_path ref.db -q
ok "a fleet of $n_fleet dumps: exit 0" test "$(cat status)" -eq 0
# the dump with an ETRecord (op types, debug handles, backends) joins it
run --etdump_path "$FIX/sample.etdp" --etrecord_path "$FIX/sample.etrecord" --parquet_path ds \
    --sqlite_path ref.db -q
ok "sample.etdp with its ETRecord into the same dataset: exit 0" test "$(cat status)" -eq 0
n_dumps=$((n_fleet + 1))
for t in dumps blocks events samples allocations; do
    is "$t/: one file per dump, part-<32 hex digits>.parquet" \
        "$(ls "ds/$t" | grep -c '^part-[0-9a-f]\{32\}\.parquet$')" "$n_dumps"
done
is "nothing else in the dataset (no temporary files left)" \
    "$(find ds -type f | grep -vc '/part-[0-9a-f]\{32\}\.parquet$')" 0
is "the files of one dump share its name across the tables" \
    "$(ls ds/*/ | grep '^part' | sort | uniq -c | awk '$1 != 5' | wc -l)" 0

# ---------------------------------------------------------------------------
# every table, with the declared types

cat >"$T/types.want" <<'EOF'
dumps	dump	VARCHAR
dumps	dump_id	VARCHAR
dumps	format	VARCHAR
dumps	etdump_path	VARCHAR
dumps	etrecord_path	VARCHAR
dumps	etrecord_method	VARCHAR
dumps	source_time_scale	VARCHAR
dumps	target_time_scale	VARCHAR
dumps	num_blocks	BIGINT
dumps	num_events	BIGINT
dumps	num_samples	BIGINT
dumps	num_allocations	BIGINT
dumps	warnings	VARCHAR
dumps	etinspect_version	VARCHAR
dumps	exported_at	VARCHAR
dumps	etdump_realpath	VARCHAR
blocks	dump	VARCHAR
blocks	dump_id	VARCHAR
blocks	block_index	BIGINT
blocks	name	VARCHAR
blocks	num_runs	BIGINT
blocks	num_events	BIGINT
blocks	bundled_input_index	BIGINT
blocks	etrecord_method	VARCHAR
events	dump	VARCHAR
events	dump_id	VARCHAR
events	block_index	BIGINT
events	event_index	BIGINT
events	name	VARCHAR
events	node_type	VARCHAR
events	instruction_id	BIGINT
events	delegate_debug_identifier	VARCHAR
events	is_delegated_op	BOOLEAN
events	delegate_backend_name	VARCHAR
events	debug_handles	VARCHAR
events	op_types	VARCHAR
events	num_outputs	BIGINT
events	num_samples	BIGINT
events	p10	DOUBLE
events	p50	DOUBLE
events	p90	DOUBLE
events	avg	DOUBLE
events	min	DOUBLE
events	max	DOUBLE
events	total	DOUBLE
samples	dump	VARCHAR
samples	dump_id	VARCHAR
samples	block_index	BIGINT
samples	event_index	BIGINT
samples	run	BIGINT
samples	run_data_index	BIGINT
samples	duration	DOUBLE
samples	start_time	UBIGINT
allocations	dump	VARCHAR
allocations	dump_id	VARCHAR
allocations	block_index	BIGINT
allocations	run	BIGINT
allocations	seq	BIGINT
allocations	run_data_index	BIGINT
allocations	allocator_id	BIGINT
allocations	allocator	VARCHAR
allocations	allocation_size	UBIGINT
EOF
: >"$T/types.got"
for t in dumps blocks events samples allocations; do
    duck "SELECT '$t', column_name, column_type FROM (DESCRIBE FROM 'ds/$t/*.parquet')" \
        >>"$T/types.got" || fail "DuckDB describes $t" "$(cat "$T/duck.err")"
done
same_file "DuckDB reads every table, every column with its declared type" "$T/types.got" "$T/types.want"

# the schema as written: REQUIRED where the SQLite schema says NOT NULL,
# OPTIONAL elsewhere; UTF8 strings, unsigned 64-bit ticks and sizes
duck "SELECT DISTINCT regexp_extract(file_name, 'ds/([a-z]+)/', 1), name, repetition_type,
      coalesce(converted_type, '-')
      FROM parquet_schema('ds/*/*.parquet') WHERE name <> 'schema' ORDER BY ALL" >"$T/schema.got"
grep -c . "$T/schema.got" >"$T/schema.n"
is "parquet_schema: one repetition per column over all files" "$(cat "$T/schema.n")" \
    "$(grep -c . "$T/types.want")"
for c in "samples	start_time	OPTIONAL	UINT_64" "samples	duration	REQUIRED	-" \
    "allocations	allocation_size	REQUIRED	UINT_64" "events	node_type	OPTIONAL	UTF8" \
    "events	p50	OPTIONAL	-" "events	name	REQUIRED	UTF8" "dumps	etrecord_path	OPTIONAL	UTF8" \
    "events	is_delegated_op	REQUIRED	-" "blocks	etrecord_method	OPTIONAL	UTF8"; do
    ok "parquet_schema: $(echo "$c" | tr '\t' ' ')" grep -qxF "$c" "$T/schema.got"
done

# the physical layout: ZSTD everywhere, dictionaries for strings, PLAIN
# for doubles, statistics in every column chunk
is "every column chunk is ZSTD-compressed" \
    "$(duck "SELECT DISTINCT compression FROM parquet_metadata('ds/*/*.parquet')")" ZSTD
is "strings are dictionary-encoded (RLE_DICTIONARY data pages)" \
    "$(duck "SELECT count(*) FROM parquet_metadata('ds/*/*.parquet') WHERE type = 'BYTE_ARRAY'
             AND (encodings NOT LIKE '%RLE_DICTIONARY%' OR dictionary_page_offset IS NULL)")" 0
# a number column: a dictionary when its values repeat, PLAIN when they
# differ on most rows (medium.etdp: 2,748 durations in 100,252 samples; a
# start tick on every row; statistics of 401 events, nearly all distinct)
medium_col() {
    duck "SELECT DISTINCT m.encodings FROM parquet_metadata('ds/$1/*.parquet') m
          JOIN (FROM 'ds/dumps/*.parquet' WHERE dump = 'medium.etdp') d
          ON m.file_name LIKE '%' || d.dump_id || '%' WHERE m.path_in_schema = '$2'"
}
if [ -f "$T/fleet/medium.etdp" ]; then
    is "medium.etdp's durations: dictionary-encoded (RLE_DICTIONARY)" \
        "$(medium_col samples duration)" "PLAIN, RLE, RLE_DICTIONARY"
    is "... its start ticks: PLAIN" "$(medium_col samples start_time)" "PLAIN, RLE"
    is "... its events' p50: PLAIN" "$(medium_col events p50)" "PLAIN, RLE"
fi
is "every column chunk has a null count" \
    "$(duck "SELECT count(*) FROM parquet_metadata('ds/*/*.parquet') WHERE stats_null_count IS NULL")" 0
[ -f "$T/fleet/medium.etdp" ] && is "medium.etdp's samples: several data pages (65,536 rows each)" \
    "$(duck "SELECT count(*) > 0 FROM parquet_metadata('ds/samples/*.parquet') m
             JOIN (FROM 'ds/dumps/*.parquet' WHERE dump = 'medium.etdp') d
             ON m.file_name LIKE '%' || d.dump_id || '%'
             WHERE m.path_in_schema = 'start_time' AND m.total_uncompressed_size > 65536 * 8 * 1.5")" true
# statistics equal to the data, file by file
is "min and max statistics of samples.duration are each file's minimum and maximum" \
    "$(duck "SELECT count(*) FROM parquet_metadata('ds/samples/*.parquet') m
             JOIN (SELECT filename, min(duration) AS lo, max(duration) AS hi
                   FROM read_parquet('ds/samples/*.parquet', filename = true) GROUP BY filename) s
             ON m.file_name = s.filename
             WHERE m.path_in_schema = 'duration'
               AND (m.stats_min::DOUBLE <> s.lo OR m.stats_max::DOUBLE <> s.hi)")" 0
is "... and of samples.start_time (unsigned) and events.name (strings)" \
    "$(duck "SELECT count(*) FROM parquet_metadata('ds/samples/*.parquet') m
             JOIN (SELECT filename, min(start_time)::VARCHAR AS lo, max(start_time)::VARCHAR AS hi
                   FROM read_parquet('ds/samples/*.parquet', filename = true) GROUP BY filename) s
             ON m.file_name = s.filename
             WHERE m.path_in_schema = 'start_time' AND (m.stats_min <> s.lo OR m.stats_max <> s.hi)")
$(duck "SELECT count(*) FROM parquet_metadata('ds/events/*.parquet') m
        JOIN (SELECT filename, min(name) AS lo, max(name) AS hi
              FROM read_parquet('ds/events/*.parquet', filename = true) GROUP BY filename) s
        ON m.file_name = s.filename
        WHERE m.path_in_schema = 'name' AND (m.stats_min <> s.lo OR m.stats_max <> s.hi)")" "0
0"

# ---------------------------------------------------------------------------
# every sample, and the other tables, row for row with the SQLite export

is "every dump is there once" "$(duck "SELECT count(*), count(DISTINCT dump_id) FROM 'ds/dumps/*.parquet'")" \
    "$n_dumps	$n_dumps"
duck "SELECT d.dump, d.num_samples, count(s.run) FROM 'ds/dumps/*.parquet' AS d
      LEFT JOIN 'ds/samples/*.parquet' AS s USING (dump_id) GROUP BY ALL ORDER BY 1" >"$T/counts.got"
awk -F '\t' '$2 != $3' "$T/counts.got" >"$T/counts.bad"
ok "each dump's samples: as many rows as dumps.num_samples ($(awk -F '\t' '{ n += $3 } END { print n }' "$T/counts.got") in all)" \
    test ! -s "$T/counts.bad" -a -s "$T/counts.got"
sqlite3 -separator '	' ref.db "SELECT dump, num_samples FROM dumps ORDER BY dump" >"$T/counts.want"
is "... and as many as the SQLite export of the same dumps" "$(cut -f 1,2 "$T/counts.got")" "$(cat "$T/counts.want")"

# samples, value for value (doubles compared as numbers: both sides print
# round-trip digits)
duck "SELECT dump, block_index, event_index, run, run_data_index, duration, coalesce(start_time::VARCHAR, 'NULL')
      FROM 'ds/samples/*.parquet' ORDER BY ALL" >"$T/samples.got"
sqlite3 -separator '	' ref.db "SELECT dump, block_index, event_index, run, run_data_index,
    printf('%!.17g', duration), ifnull(CAST(start_time AS TEXT), 'NULL') FROM samples ORDER BY 1, 2, 3, 4" >"$T/samples.want"
is "samples: the SQLite export's rows" "$(wc -l <"$T/samples.got")" "$(wc -l <"$T/samples.want")"
paste "$T/samples.got" "$T/samples.want" | awk -F '\t' '
    { for (i = 1; i <= 7; i++) if (i == 6 ? ($i + 0 != $(i + 7) + 0) : ($i != $(i + 7))) { print; bad++; break } }
    END { exit bad > 0 }' >"$T/samples.diff"
ok "... value for value (dump, keys, RunData, duration, start tick)" test ! -s "$T/samples.diff"

cols="dump, block_index, event_index, name, coalesce(node_type, 'NULL'), instruction_id,
      coalesce(delegate_debug_identifier::VARCHAR, 'NULL'), is_delegated_op::INTEGER,
      coalesce(delegate_backend_name, 'NULL'), coalesce(debug_handles, 'NULL'), coalesce(op_types, 'NULL'),
      num_outputs, num_samples"
duck "SELECT $cols FROM 'ds/events/*.parquet' ORDER BY dump, block_index, event_index" >"$T/events.got"
sqlite3 -separator '	' ref.db "SELECT $(echo "$cols" | sed 's/::VARCHAR//; s/::INTEGER//')
    FROM events ORDER BY dump, block_index, event_index" >"$T/events.want"
same_file "events: every column but the statistics, as the SQLite export's" "$T/events.got" "$T/events.want"
duck "SELECT dump, block_index, event_index, p10, p50, p90, avg, min, max, total
      FROM 'ds/events/*.parquet' ORDER BY dump, block_index, event_index" >"$T/stats.got"
sqlite3 -separator '	' ref.db "SELECT dump, block_index, event_index$(for c in p10 p50 p90 avg min max total; do
    printf ", CASE WHEN %s IS NULL THEN 'NULL' ELSE printf('%%!.17g', %s) END" $c $c; done)
    FROM events ORDER BY dump, block_index, event_index" >"$T/stats.want"
paste "$T/stats.got" "$T/stats.want" | awk -F '\t' '
    { for (i = 4; i <= 10; i++) if (($i == "NULL") != ($(i + 10) == "NULL") || ($i != "NULL" && $i + 0 != $(i + 10) + 0)) { print; bad++; break } }
    END { exit bad > 0 }' >"$T/stats.diff"
ok "events' statistics (p10 ... total), NULL without perf data, as the SQLite export's" \
    test ! -s "$T/stats.diff" -a -s "$T/stats.got"
is "debug_only.etdp: events without perf data have NULL statistics" \
    "$(duck "SELECT count(*) > 0, bool_and(p50 IS NULL AND total IS NULL) FROM 'ds/events/*.parquet'
             WHERE dump = 'debug_only.etdp' AND num_samples = 0")" "true	true"
for t in blocks allocations dumps; do
    case $t in
    blocks) c="dump, block_index, name, num_runs, num_events, bundled_input_index, coalesce(etrecord_method, 'NULL')" ;;
    allocations) c="dump, block_index, run, seq, run_data_index, allocator_id, coalesce(allocator, 'NULL'), allocation_size" ;;
    dumps) c="dump, format, etdump_path, coalesce(etrecord_path, 'NULL'), source_time_scale, target_time_scale,
              num_blocks, num_events, num_samples, num_allocations, warnings, etinspect_version, etdump_realpath" ;;
    esac
    duck "SELECT $c FROM 'ds/$t/*.parquet' ORDER BY ALL" >"$T/$t.got"
    sqlite3 -separator '	' ref.db "SELECT $c FROM $t ORDER BY $(echo "$c" | sed 's/coalesce(\([a-z_]*\), .NULL.)/\1/g')" >"$T/$t.want"
    LC_ALL=C sort "$T/$t.want" -o "$T/$t.want"
    LC_ALL=C sort "$T/$t.got" -o "$T/$t.got"
    same_file "$t: the SQLite export's rows" "$T/$t.got" "$T/$t.want"
done

# ---------------------------------------------------------------------------
# each dump's Method::execute p50: quantile_cont over the samples equals
# the TSV's p50

: >"$T/p50.want"
for f in fleet/*.etdp; do
    "$ETINSPECT" --etdump_path "$f" -q --tsv_path "$T/one.tsv" 2>/dev/null
    awk -F '\t' -v d="$(basename "$f")" 'NR > 1 && $3 == "Method::execute" { print d "\t" $5 }' "$T/one.tsv" >>"$T/p50.want"
done
"$ETINSPECT" --etdump_path "$FIX/sample.etdp" --etrecord_path "$FIX/sample.etrecord" -q --tsv_path "$T/one.tsv"
awk -F '\t' 'NR > 1 && $3 == "Method::execute" { print "sample.etdp\t" $5 }' "$T/one.tsv" >>"$T/p50.want"
duck "SELECT e.dump, quantile_cont(s.duration, 0.5)
      FROM 'ds/samples/*.parquet' AS s JOIN 'ds/events/*.parquet' AS e USING (dump_id, block_index, event_index)
      WHERE e.name = 'Method::execute' GROUP BY e.dump, e.block_index, e.event_index
      ORDER BY e.dump, e.block_index, e.event_index" >"$T/p50.got"
LC_ALL=C sort -s -t '	' -k 1,1 "$T/p50.want" -o "$T/p50.want"
is "Method::execute: one p50 per event of every dump that has one" "$(cut -f 1 "$T/p50.got")" "$(cut -f 1 "$T/p50.want")"
paste "$T/p50.got" "$T/p50.want" | awk -F '\t' '$2 + 0 != $4 + 0 { print; bad++ } END { exit bad > 0 }' >"$T/p50.diff"
ok "... quantile_cont(duration, 0.5) equals the TSV's p50 ($(wc -l <"$T/p50.got") events)" \
    test ! -s "$T/p50.diff" -a -s "$T/p50.got"

# ---------------------------------------------------------------------------
# shards: a re-run replaces its own files only; two machines, one name

ls -i ds/*/* | sort >"$T/inodes.before"
id=$(duck "SELECT dump_id FROM 'ds/dumps/*.parquet' WHERE dump = 'stats10.etdp'")
run --etdump_path fleet/stats10.etdp --parquet_path ds -q
ok "stats10.etdp again: exit 0" test "$(cat status)" -eq 0
ls -i ds/*/* | sort >"$T/inodes.after"
is "... its five files were replaced (new files), the others' untouched" \
    "$(diff "$T/inodes.before" "$T/inodes.after" | grep '^>' | grep -c "part-$id")	$(diff "$T/inodes.before" "$T/inodes.after" | grep '^[<>]' | grep -vc "part-$id")" "5	0"
is "... and the dataset holds each dump once" "$(duck "SELECT count(*) FROM 'ds/dumps/*.parquet'")" "$n_dumps"

mkdir -p m1 m2
cp "$FIX/diff_a.etdp" m1/model.etdp
cp "$FIX/diff_b.etdp" m2/model.etdp
run --etdump_path m1/model.etdp --parquet_path shared -q
run --etdump_path m2/model.etdp --parquet_path shared -q
is "two machines' dumps named alike: two dumps, apart by dump_id" \
    "$(duck "SELECT count(*), count(DISTINCT dump), count(DISTINCT dump_id) FROM 'shared/dumps/*.parquet'")" "2	1	2"
cp "$FIX/diff_a.etdp" m2/copy.etdp
run --etdump_path m2/copy.etdp --parquet_path shared -q
is "the same bytes under another name: the same dump (its files replaced, its new name)" \
    "$(duck "SELECT count(*), string_agg(dump, ',' ORDER BY dump) FROM 'shared/dumps/*.parquet'")" "2	copy.etdp,model.etdp"

# ---------------------------------------------------------------------------
# Lua: insp:to_parquet, dumps:to_parquet

"$ETINSPECT" -e '
local E = etinspect
local insp <close> = E.Inspector{etdump_path = "fleet/stats10.etdp"}
insp:to_parquet("lua1")
insp:to_parquet("lua2", {dump = "renamed"})
local d <close> = E.open_many({"fleet/diff_a.etdp", "fleet/diff_b.etdp"})
d:to_parquet("lua3")
local ok, err = pcall(insp.to_parquet, insp, "lua1", {bogus = true})
print(ok, err)' >"$T/lua.out" 2>&1
ok "Lua: insp:to_parquet with an unknown option is an error naming it" \
    grep -qF "to_parquet: unknown option 'bogus'" "$T/lua.out"
f=$(ls lua1/samples)
ok "insp:to_parquet: the command line's samples file, byte for byte" cmp "lua1/samples/$f" "ds/samples/$f"
ok "... events and blocks too" sh -c "cmp lua1/events/$f ds/events/$f && cmp lua1/blocks/$f ds/blocks/$f"
is "insp:to_parquet{dump = NAME}: the rows carry NAME" \
    "$(duck "SELECT DISTINCT dump FROM 'lua2/samples/*.parquet'")" renamed
is "dumps:to_parquet: every dump, under its name" \
    "$(duck "SELECT string_agg(dump, ' ' ORDER BY dump) FROM 'lua3/dumps/*.parquet'")" "diff_a.etdp diff_b.etdp"

# one thread or several (a large table's columns are encoded side by
# side): the same bytes
if [ -f fleet/medium.etdp ]; then
    ETINSPECT_THREADS=1 "$ETINSPECT" --etdump_path fleet/medium.etdp --parquet_path th1 -q
    ETINSPECT_THREADS=4 "$ETINSPECT" --etdump_path fleet/medium.etdp --parquet_path th4 -q
    ok "medium.etdp on 1 thread and on 4: the same samples and events files" \
        sh -c 'cmp th1/samples/part-* th4/samples/part-* && cmp th1/events/part-* th4/events/part-*'
else
    skip "medium.etdp absent (the shared corpus): threads not compared"
fi
# a directory of dumps: on 1 thread each dump's files are written before
# the next dump is read; on 4 they are written beside the next one's build
# (et_parquet_give) - the same files, byte for byte (`dumps` but for the
# time of the export)
ETINSPECT_THREADS=1 "$ETINSPECT" --etdump_path fleet --parquet_path fl1 -q
ETINSPECT_THREADS=4 "$ETINSPECT" --etdump_path fleet --parquet_path fl4 -q
is "a directory of dumps on 1 thread and on 4: the same files" \
    "$( (cd fl1 && find . -type f | sort) | tr '\n' ' ')" "$( (cd fl4 && find . -type f | sort) | tr '\n' ' ')"
ok "... the same bytes in every table but dumps" \
    sh -c 'cd fl1 && for f in blocks/* events/* samples/* allocations/*; do cmp "$f" "../fl4/$f" || exit 1; done'
is "... and the same dumps rows but for exported_at" \
    "$(duck "SELECT count(*) FROM (SELECT * EXCLUDE (exported_at) FROM 'fl1/dumps/*.parquet'
             EXCEPT SELECT * EXCLUDE (exported_at) FROM 'fl4/dumps/*.parquet')")" 0

# names that are not UTF-8 (a byte 0xFF, a surrogate's encoding): each
# invalid byte becomes U+FFFD, so that the STRING columns are UTF-8 as
# Parquet requires and DuckDB reads them (the SQLite export keeps bytes)
perl -0777 -pe 's/native_call_addmm/native_call_a\xffdmm/g; s/convolution/c\xed\xa0\x80olution/' \
    "$FIX/sample.etdp" >notutf8.etdp
run --etdump_path notutf8.etdp --parquet_path u8 -q
ok "a dump whose names are not UTF-8: exit 0" test "$(cat status)" -eq 0
is "... DuckDB reads them, each invalid byte as U+FFFD" \
    "$(duck "SELECT DISTINCT name FROM 'u8/events/*.parquet' WHERE name LIKE '%' || chr(65533) || '%' ORDER BY 1")" \
    "$(printf 'native_call_a\357\277\275dmm.out\nnative_call_c\357\277\275\357\277\275\357\277\275olution.out')"
is "... node types alike" \
    "$(duck "SELECT count(*) FROM 'u8/events/*.parquet' WHERE node_type LIKE '%' || chr(65533) || '%'")" 3

# ---------------------------------------------------------------------------
# what is refused

printf 'keep me\n' >afile
run --etdump_path fleet/stats10.etdp --parquet_path afile -q
is "--parquet_path naming a file: exit 1" "$(cat status)" 1
ok "... the error names it" grep -qxF "etinspect: error: afile: not a directory (the Parquet dataset is a directory)" err
ok "... the file is untouched" grep -qxF "keep me" afile
mkdir -p odd && printf 'x\n' >odd/samples
run --etdump_path fleet/stats10.etdp --parquet_path odd -q
ok "a table's directory that is a file: exit 1, named" \
    sh -c "test $(cat status) -eq 1 && grep -qF 'odd/samples: not a directory' err"
run --etdump_path fleet/stats10.etdp --parquet_path '' -q
is "an empty --parquet_path: usage error" "$(cat status)" 2
# an input where a file would go: refused, the input untouched
mkdir -p trap/samples
id=$(duck "SELECT dump_id FROM 'ds/dumps/*.parquet' WHERE dump = 'stats10.etdp'")
cp fleet/stats10.etdp "trap/samples/part-$id.parquet"
run --etdump_path fleet/diff_a.etdp --etdump_path "trap/samples/part-$id.parquet" --parquet_path trap -q
ok "an input named as the file a dump's samples would replace: refused (exit 2), named" \
    sh -c "test $(cat status) -eq 2 && grep -qF 'refusing to overwrite an input file with output' err"
ok "... the input untouched" cmp fleet/stats10.etdp "trap/samples/part-$id.parquet"
# a dump that cannot be read, after 9 that can: exit 1, the 9 kept
mkdir -p partial
for f in alloc_small delegates diff_a diff_b stats10 two_methods wrap empty_runs groups; do
    cp "fleet/$f.etdp" partial/
done
head -c 200 "$FIX/sample.etdp" >partial/zz_truncated.etdp
run --etdump_path partial --parquet_path partialds -q
is "a fleet whose last dump is truncated: exit 1" "$(cat status)" 1
is "... the 9 dumps read before it are in the dataset, complete (two commits of files)" \
    "$(duck "SELECT count(*) FROM 'partialds/dumps/*.parquet'")	$(find partialds -name 'part-*' | wc -l)" "9	45"
is "... and no temporary file is left" "$(find partialds -type f | grep -vc '/part-[0-9a-f]\{32\}\.parquet$')" 0

# ---------------------------------------------------------------------------
# every SQL block of docs/fleet.md, in one connection, in order, from a
# directory holding the dataset its examples write

mkdir -p docs/build/doc-fleet/pixel docs/build/doc-fleet/galaxy docs/build/doc-fleet/tablet
cp "$FIX/diff_a.etdp" docs/build/doc-fleet/pixel/model.etdp
cp "$FIX/diff_b.etdp" docs/build/doc-fleet/galaxy/model.etdp
cp "$FIX/sample.etdp" docs/build/doc-fleet/tablet/model.etdp
(cd docs && "$ETINSPECT" --etdump_path 'build/doc-fleet/*/model.etdp' --parquet_path build/doc-fleet.parquet -q)
awk -v dir="$T/docs" '
    /^```sql/ { n++; f = sprintf("%s/block%02d.sql", dir, n); insql = 1; next }
    /^```text/ && prev == "sql" { want = sprintf("%s/block%02d.want", dir, n); intext = 1; printf "" > want; next }
    /^```/ { if (insql) prev = "sql"; else prev = ""; insql = 0; intext = 0; next }
    insql { print > f; next }
    intext { print > want; next }
    { if ($0 != "") prev = "" }' "$ET_SRC/docs/fleet.md"
n_sql=$(ls docs/block*.sql 2>/dev/null | wc -l)
ok "docs/fleet.md has SQL blocks ($n_sql)" test "$n_sql" -ge 3
(cd docs && node "$T/npm/run.mjs" $(ls block*.sql)) 2>"$T/docs.err"
for f in docs/block*.sql; do
    b=$(basename "$f" .sql)
    if [ -f "docs/$b.want" ]; then
        same_file "docs/fleet.md SQL block ${b#block}: runs, gives the output printed under it" "$f.out" "docs/$b.want"
    else
        ok "docs/fleet.md SQL block ${b#block}: runs" sh -c "! grep -q '^ERROR' '$f.out'"
    fi
done

# ---------------------------------------------------------------------------
# another reader, when installed

if python3 -c 'import pyarrow.parquet' 2>/dev/null; then
    ok "pyarrow reads every file, with the rows DuckDB counts" python3 -c '
import glob, sys, pyarrow.parquet as pq
n = sum(pq.read_table(f).num_rows for f in glob.glob("ds/samples/*.parquet"))
sys.exit(n != int(sys.argv[1]))' "$(awk -F '\t' '{ n += $3 } END { print n }' "$T/counts.got")"
else
    skip "pyarrow is not installed (python3-pyarrow is not in Debian 12): DuckDB is the engine read with"
fi

done_testing
