#!/bin/sh
# sqlite_faults.t - issue 25, item 4: the SQLite export writes the database
# in place, in one transaction (src/core/output/sqlexport.h,
# docs/sqlite-schema.md "How the database is written").  Concurrent
# exports and other writers serialise and all land; a signal or a failure
# rolls back and leaves nothing beside the database; a database with
# objects etinspect did not create, or a damaged one, is refused and left
# byte for byte as it was; appending does not copy the file.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip_all "the sqlite3 command-line tool is absent"

SAMPLE="$ET_BUILD/fixtures/sample.etdp"
STATS10="$ET_BUILD/fixtures/stats10.etdp"
SIGWHEN="$ET_BUILD/tools/sigwhen"
[ -f "$SAMPLE" ] && [ -f "$STATS10" ] || skip_all "build/fixtures not built (run make fixtures)"
MEDIUM="$CORPUS/etdump/medium.etdp"
LARGE="$CORPUS/etdump/large.etdp"
unset ETINSPECT_SQLITE_TIMEOUT

run() { timeout 120 "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -qF -- "$1" "$T/err"; }
sq() { sqlite3 -init /dev/null -batch -noheader "$@" 2>&1; }
is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}
# only_file DIR NAME: NAME is the one entry of DIR (no journal, no temporary)
only_file() { test "$(ls -A "$1")" = "$2"; }
# wait_for PATH: until PATH exists (at most about 30 s); 0 when it does
wait_for() {
    i=0
    while [ ! -e "$1" ]; do
        i=$((i + 1))
        [ "$i" -le 3000 ] || return 1
        sleep 0.01
    done
}
# dumps DB: "name|samples" per dump
dumps() {
    sq "$1" "SELECT d.dump, (SELECT count(*) FROM samples s WHERE s.dump = d.dump) FROM dumps d
             ORDER BY d.dump"
}
HAND="INSERT INTO dumps(dump, format, etdump_path, source_time_scale, target_time_scale,
  num_blocks, num_events, num_samples, num_allocations, warnings, etinspect_version, exported_at)
  VALUES('by-hand', 'etdump', 'x', 'ns', 'ms', 0, 0, 0, 0, '[]', '0', 'now');"
# hold DB SECONDS [SQL]: in the background, sqlite3 takes the write lock
# (BEGIN IMMEDIATE), runs SQL (default: a row into dumps, which creates the
# journal), holds the lock SECONDS, commits; returns once the lock is held
hold() {
    { echo "BEGIN IMMEDIATE;"; echo "${3:-$HAND}"; sleep "$2"; echo "COMMIT;"; } |
        sqlite3 -init /dev/null -batch "$1" >"$T/hold.out" 2>&1 &
    HOLD=$!
    wait_for "$1-journal"
}

# ---------------------------------------------------------------------------
# in place: the file is updated, not replaced

D="$T/inplace"
mkdir "$D"
"$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q
chmod 600 "$D/db"
ino=$(stat -c %i "$D/db")
run --etdump_path "$STATS10" --sqlite_path "$D/db" -q
ok "an export into an existing database: exit 0" status_is 0
is "... the same file (inode) was written, not a copy renamed over it" "$(stat -c %i "$D/db")" "$ino"
is "... its mode is kept" "$(stat -c %a "$D/db")" 600
ok "... nothing beside it (journal, temporary file)" only_file "$D" db
is "... both dumps in it" "$(dumps "$D/db")" "sample.etdp|26
stats10.etdp|10"

# ---------------------------------------------------------------------------
# writers serialise: two exports waiting for a sqlite3 writer, all land

D="$T/conc"
mkdir "$D"
"$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" --sqlite_dump first -q
if hold "$D/db" 1.5; then
    "$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" --sqlite_dump second -q \
        >"$T/a.out" 2>&1 &
    A=$!
    "$ETINSPECT" --etdump_path "$STATS10" --sqlite_path "$D/db" -q >"$T/b.out" 2>&1 &
    B=$!
    wait "$A"
    ra=$?
    wait "$B"
    rb=$?
    wait "$HOLD"
    is "two exports while sqlite3 holds the write lock: both exit 0" "$ra $rb" "0 0"
    is "... the row sqlite3 committed and both dumps are in, with all their samples" \
        "$(dumps "$D/db")" "by-hand|0
first|26
second|26
stats10.etdp|10"
    is "... the database is consistent" "$(sq "$D/db" 'PRAGMA integrity_check')" ok
    ok "... nothing beside it" only_file "$D" db
else
    fail "sqlite3 took the write lock" "$(cat "$T/hold.out")"
fi

# two exports creating one new database at the same time: both land
D="$T/new2"
mkdir "$D"
"$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q >"$T/a.out" 2>&1 &
A=$!
"$ETINSPECT" --etdump_path "$STATS10" --sqlite_path "$D/db" -q >"$T/b.out" 2>&1 &
B=$!
wait "$A"
ra=$?
wait "$B"
rb=$?
is "two exports creating the same new database: both exit 0" "$ra $rb" "0 0"
is "... both dumps in it" "$(dumps "$D/db")" "sample.etdp|26
stats10.etdp|10"

# a writer that keeps the lock past the busy timeout: a clear error
D="$T/busy"
mkdir "$D"
"$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q
if hold "$D/db" 4; then
    ETINSPECT_SQLITE_TIMEOUT=0.3 run --etdump_path "$STATS10" --sqlite_path "$D/db" -q
    wait "$HOLD"
    ok "the lock held past ETINSPECT_SQLITE_TIMEOUT=0.3: exit 1" status_is 1
    ok "... the message names the database and the wait" \
        err_has "db: begin a transaction: the database is locked by another process (waited 0.3 s; ETINSPECT_SQLITE_TIMEOUT sets how long)"
    is "... the other writer's row is in, the refused dump is not" "$(dumps "$D/db")" "by-hand|0
sample.etdp|26"
else
    fail "sqlite3 took the write lock" "$(cat "$T/hold.out")"
fi
ETINSPECT_SQLITE_TIMEOUT=soon run --etdump_path "$STATS10" --sqlite_path "$D/db" -q
ok "ETINSPECT_SQLITE_TIMEOUT that is not a number: exit 2" status_is 2
ok "... the message names it" \
    err_has "ETINSPECT_SQLITE_TIMEOUT='soon' is not a number of seconds from 0 to 86400"

# a sqlite3 INSERT issued while an export runs waits for it and is kept
if [ -f "$LARGE" ]; then
    D="$T/during"
    mkdir "$D"
    "$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q
    "$ETINSPECT" --etdump_path "$LARGE" --sqlite_path "$D/db" -q >"$T/a.out" 2>&1 &
    A=$!
    # the export is writing: its journal (or, before issue 25, its copy)
    i=0
    while [ ! -e "$D/db-journal" ] && ! ls "$D" | grep -q '^db\.'; do
        i=$((i + 1))
        [ "$i" -le 3000 ] || break
        sleep 0.01
    done
    running=no
    kill -0 "$A" 2>/dev/null && running=yes
    sq "$D/db" ".timeout 60000" "$HAND" >"$T/hand.out"
    wait "$A"
    ra=$?
    if [ "$running" = yes ]; then
        pass "a sqlite3 INSERT issued while an export of large.etdp was writing"
    else
        skip "the export of large.etdp ended before the INSERT (too fast to test the overlap)"
    fi
    is "... the export exits 0, sqlite3 prints nothing" "$ra $(cat "$T/hand.out")" "0 "
    is "... both the export's dump and the row sqlite3 committed are in" \
        "$(sq "$D/db" 'SELECT dump FROM dumps ORDER BY dump')" "by-hand
large.etdp
sample.etdp"
else
    skip "large.etdp absent (the shared corpus)"
fi

# ---------------------------------------------------------------------------
# a signal during the export: rolled back, nothing left beside the database

if [ -f "$MEDIUM" ] && [ -x "$SIGWHEN" ]; then
    for sig in 15 2; do
        D="$T/sig$sig"
        mkdir "$D"
        "$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q
        cp "$D/db" "$T/sig.orig"
        timeout 120 "$SIGWHEN" "$D" db-journal "$sig" \
            "$ETINSPECT" --etdump_path "$MEDIUM" --sqlite_path "$D/db" -q >"$T/out" 2>"$T/err"
        if grep -q "^signalled db-journal; exit signal $sig$" "$T/out"; then
            pass "signal $sig while the export writes: the program dies of it"
        else
            fail "signal $sig while the export writes: the program dies of it" "$(cat "$T/out")"
        fi
        ok "... the database is byte for byte as it was (rolled back)" cmp "$D/db" "$T/sig.orig"
        ok "... nothing beside it (no journal, no temporary file)" only_file "$D" db
        # into a new database: no file at all
        timeout 120 "$SIGWHEN" "$D" new.db-journal "$sig" \
            "$ETINSPECT" --etdump_path "$MEDIUM" --sqlite_path "$D/new.db" -q >"$T/out" 2>"$T/err"
        if grep -q "^signalled new.db-journal; exit signal $sig$" "$T/out"; then
            pass "signal $sig while a new database is written: the program dies of it"
        else
            fail "signal $sig while a new database is written: the program dies of it" \
                "$(cat "$T/out")"
        fi
        ok "... the new file is removed, nothing is left" only_file "$D" db
    done
    # several dumps in one export (the fleet path): the same
    D="$T/sigmany"
    mkdir "$D" "$T/runs"
    cp "$MEDIUM" "$T/runs/a.etdp"
    cp "$MEDIUM" "$T/runs/b.etdp"
    "$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q
    cp "$D/db" "$T/sig.orig"
    timeout 120 "$SIGWHEN" "$D" db-journal 15 \
        "$ETINSPECT" --etdump_path "$T/runs" --sqlite_path "$D/db" -q >"$T/out" 2>"$T/err"
    if grep -q "^signalled db-journal; exit signal 15$" "$T/out"; then
        pass "signal 15 while several dumps are exported: the program dies of it"
    else
        fail "signal 15 while several dumps are exported: the program dies of it" "$(cat "$T/out")"
    fi
    ok "... the database is byte for byte as it was" cmp "$D/db" "$T/sig.orig"
    ok "... nothing beside it" only_file "$D" db
    # killed outright (SIGKILL): SQLite's hot journal rolls the export back
    # when the database is next opened
    D="$T/kill"
    mkdir "$D"
    "$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q
    timeout 120 "$SIGWHEN" "$D" db-journal 9 \
        "$ETINSPECT" --etdump_path "$MEDIUM" --sqlite_path "$D/db" -q >"$T/out" 2>"$T/err"
    run --etdump_path "$STATS10" --sqlite_path "$D/db" -q
    ok "after an export killed with SIGKILL, the next export: exit 0" status_is 0
    is "... the killed export's rows are gone, the others kept" "$(dumps "$D/db")" "sample.etdp|26
stats10.etdp|10"
    is "... the database is consistent" "$(sq "$D/db" 'PRAGMA integrity_check')" ok
    ok "... nothing beside it" only_file "$D" db
else
    skip "medium.etdp (the shared corpus) or build/tools/sigwhen absent"
fi

# ---------------------------------------------------------------------------
# a write failing half-way (the file-size limit): rolled back

if [ -f "$MEDIUM" ]; then
    D="$T/fsize"
    mkdir "$D"
    "$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/db" -q
    cp "$D/db" "$T/fsize.orig"
    blocks=$(($(stat -c %s "$D/db") / 512 + 16))
    (ulimit -f "$blocks" && exec timeout 120 "$ETINSPECT" --etdump_path "$MEDIUM" \
        --sqlite_path "$D/db" -q) >"$T/out" 2>"$T/err"
    echo $? >"$T/status"
    ok "an export that cannot grow the file (ulimit -f): exit 1" status_is 1
    ok "... the message names the database" err_has "$D/db: "
    ok "... the database is byte for byte as it was" cmp "$D/db" "$T/fsize.orig"
    ok "... nothing beside it" only_file "$D" db
else
    skip "medium.etdp absent (the shared corpus)"
fi

# a failed export into a new database leaves no file
run --etdump_path "$SAMPLE" --sqlite_path "$T/none.db" --sqlite_dump "" -q
ok "a failed export into a new database: exit 2" status_is 2
ok "... no file is left" test ! -e "$T/none.db" -a ! -e "$T/none.db-journal"

# ---------------------------------------------------------------------------
# a schema etinspect did not write is refused, the database untouched

D="$T/schema"
mkdir "$D"
"$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/base.db" -q
# refused NAME SQL MESSAGE: the SQL applied to a copy of base.db, the
# export refused with MESSAGE, the copy byte for byte as it was
refused() {
    cp "$D/base.db" "$D/$1.db"
    sq "$D/$1.db" "$2" >/dev/null
    cp "$D/$1.db" "$T/schema.orig"
    run --etdump_path "$STATS10" --sqlite_path "$D/$1.db" -q
    if status_is 1 && err_has "$D/$1.db: $3; refusing to write into it"; then
        pass "$1: refused (exit 1), the message names the object"
    else
        fail "$1: refused (exit 1), the message names the object" \
            "exit $(cat "$T/status"): $(cat "$T/err")"
    fi
    ok "... the database is byte for byte as it was" cmp "$D/$1.db" "$T/schema.orig"
}
# a trigger that never ends: the export ran forever before issue 25
refused endless-trigger "CREATE TRIGGER spin AFTER INSERT ON sample_data BEGIN
  SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c);
  END" "the database has a trigger 'spin' that etinspect did not create"
refused foreign-table "CREATE TABLE mine(x); INSERT INTO mine VALUES (42)" \
    "the database has a table 'mine' that etinspect did not create"
refused foreign-index "CREATE INDEX by_p50 ON events(p50)" \
    "the database has an index 'by_p50' that etinspect did not create"
refused foreign-view "CREATE VIEW slow AS SELECT * FROM events" \
    "the database has a view 'slow' that etinspect did not create"
refused altered-table "ALTER TABLE events ADD COLUMN note TEXT" \
    "its table 'events' is not as etinspect created it (changed since)"
refused replaced-trigger "DROP TRIGGER events_delete_samples;
  CREATE TRIGGER events_delete_samples AFTER DELETE ON events BEGIN DELETE FROM dumps; END" \
    "its trigger 'events_delete_samples' is not as etinspect created it (changed since)"
refused replaced-view "DROP VIEW samples; CREATE VIEW samples AS SELECT 1 AS dump" \
    "its view 'samples' is not as etinspect created it (changed since)"

cp "$D/base.db" "$D/analyzed.db"
sq "$D/analyzed.db" "ANALYZE; DROP VIEW top_operators" >/dev/null
run --etdump_path "$STATS10" --sqlite_path "$D/analyzed.db" -q
ok "ANALYZE's statistics tables are accepted (exit 0)" status_is 0
is "... a view that was dropped is made again" \
    "$(sq "$D/analyzed.db" "SELECT count(*) FROM sqlite_master WHERE name = 'top_operators'")" 1

# ---------------------------------------------------------------------------
# a damaged database is refused, untouched

D="$T/damaged"
mkdir "$D"
"$ETINSPECT" --etdump_path "$SAMPLE" --sqlite_path "$D/base.db" -q
psize=$(sq "$D/base.db" 'PRAGMA page_size')
# damage NAME PAGE MESSAGE: 32 bytes of 0xff written at the start of page
# PAGE (1-based; page 1 after its 100-byte header) of a copy of base.db
damage() {
    cp "$D/base.db" "$D/$1.db"
    off=$((($2 - 1) * psize))
    [ "$2" -eq 1 ] && off=100
    head -c 32 /dev/zero | tr '\0' '\377' |
        dd of="$D/$1.db" bs=1 seek="$off" conv=notrunc 2>/dev/null
    cp "$D/$1.db" "$T/damaged.orig"
    run --etdump_path "$STATS10" --sqlite_path "$D/$1.db" -q
    if status_is 1 && err_has "$D/$1.db: $3"; then
        pass "$1: refused (exit 1), the message names the database"
    else
        fail "$1: refused (exit 1), the message names the database" \
            "exit $(cat "$T/status"): $(cat "$T/err")"
    fi
    ok "... the database is byte for byte as it was" cmp "$D/$1.db" "$T/damaged.orig"
}
damage schema-page 1 "the database is damaged ("
damage dumps-page "$(sq "$D/base.db" "SELECT rootpage FROM sqlite_master WHERE name = 'dumps'")" \
    "the database is damaged ("
cp "$D/base.db" "$D/magic.db"
printf 'not SQLite at all' | dd of="$D/magic.db" bs=1 conv=notrunc 2>/dev/null
cp "$D/magic.db" "$T/damaged.orig"
run --etdump_path "$STATS10" --sqlite_path "$D/magic.db" -q
ok "a database whose header is overwritten: exit 1" status_is 1
ok "... not a database, says the message" \
    err_has "magic.db: not an etinspect database (file is not a database); refusing to write into it"
ok "... the file is as it was" cmp "$D/magic.db" "$T/damaged.orig"
head -c $((psize * 2)) "$D/base.db" >"$D/short.db"
cp "$D/short.db" "$T/damaged.orig"
run --etdump_path "$STATS10" --sqlite_path "$D/short.db" -q
ok "a truncated database: exit 1" status_is 1
ok "... damaged, says the message" err_has "short.db: the database is damaged ("
ok "... the file is as it was" cmp "$D/short.db" "$T/damaged.orig"
ok "no journal or temporary file left by the refusals" \
    test -z "$(ls "$D" | grep -v '\.db$')"

done_testing
