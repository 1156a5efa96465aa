#!/bin/sh
# sqlite_many_memory.t - the SQLite export of many dumps holds one dump at
# a time (issue 28): its peak RSS does not grow with the number of dumps,
# from the command line (--sqlite_path over a directory) and from Lua
# (etinspect.open_many(DIR):to_sqlite(DB)).  Memory is asserted with
# peakrss, never time.  Before, 20 copies of medium.etdp (100k samples
# each) held about 5x one copy's memory (the whole database in SQLite's
# page cache; in Lua, every dump's samples at once).
. "$(dirname "$0")/lib.sh"

M="$ET_SHARED/corpus/etdump/medium.etdp"
PEAKRSS="$ET_BUILD/tools/peakrss"
[ -x "$PEAKRSS" ] || skip_all "run make first (tools)"
[ -f "$M" ] || skip_all "the corpus's medium.etdp is absent ($ET_SHARED)"
case $ETINSPECT in */asan/*) skip_all "memory is not measured under ASan" ;; esac

is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}
sq() { sqlite3 -init /dev/null -batch -noheader "$@" 2>&1; }
# peak RSS in KiB of the command; its status in $T/status
rss() {
    "$PEAKRSS" "$@" >"$T/out" 2>"$T/err"
    echo $? >"$T/status"
    sed -n 's/^peak_rss_kb //p' "$T/err" | tail -n 1
}

mkdir "$T/one" "$T/many"
cp "$M" "$T/one/m1.etdp"
i=1
while [ $i -le 20 ]; do
    cp "$M" "$T/many/m$i.etdp"
    i=$((i + 1))
done

one=$(rss "$ETINSPECT" --etdump_path "$T/one" --quiet --sqlite_path "$T/one.db")
is "command line, one dump: exit 0" "$(cat "$T/status")" 0
many=$(rss "$ETINSPECT" --etdump_path "$T/many" --quiet --sqlite_path "$T/many.db")
is "command line, 20 dumps: exit 0" "$(cat "$T/status")" 0
ok "... peak RSS of 20 dumps ($many KiB) < 2x one dump's ($one KiB)" \
    test "$many" -lt $((2 * one))
is "... every dump and sample written" \
    "$(sq "$T/many.db" "SELECT count(*), sum(num_samples), (SELECT count(*) FROM samples) FROM dumps")" \
    "20|2005040|2005040"
is "... each dump as the one-dump export wrote it" \
    "$(sq "$T/many.db" "SELECT count(DISTINCT num_samples || '/' || num_events) FROM dumps")|$(sq "$T/one.db" "SELECT num_samples || '/' || num_events FROM dumps")" \
    "1|$(sq "$T/many.db" "SELECT num_samples || '/' || num_events FROM dumps LIMIT 1")"
is "... the database is consistent" "$(sq "$T/many.db" 'PRAGMA integrity_check')" ok

one=$(rss "$ETINSPECT" -e "etinspect.open_many('$T/one'):to_sqlite('$T/lone.db')")
is "Lua open_many():to_sqlite, one dump: exit 0" "$(cat "$T/status")" 0
many=$(rss "$ETINSPECT" -e "etinspect.open_many('$T/many'):to_sqlite('$T/lmany.db')")
is "Lua, 20 dumps: exit 0" "$(cat "$T/status")" 0
ok "... peak RSS of 20 dumps ($many KiB) < 2x one dump's ($one KiB)" \
    test "$many" -lt $((2 * one))
is "... the same rows as the command line's export" \
    "$(sq "$T/lmany.db" "SELECT dump, block_index, event_index, run, duration, start_time FROM samples" | cksum)" \
    "$(sq "$T/many.db" "SELECT dump, block_index, event_index, run, duration, start_time FROM samples" | cksum)"

# the samples given back stay readable: built again when read after the export
is "Lua: a dump's samples read after the export are its samples" \
    "$("$ETINSPECT" -e "local d = etinspect.open_many('$T/many'); d:to_sqlite('$T/again.db')
        local n = 0
        for _, b in ipairs(d.inspectors[3].event_blocks) do
          for _, e in ipairs(b.events) do if e.perf_data then n = n + #e.perf_data.raw end end
        end
        print(n)")" 100252

done_testing
