#!/bin/sh
# threads.t - outputs do not depend on the number of threads
# (ETINSPECT_THREADS, docs/performance.md): for every corpus dump and
# fixture, the table, warnings, TSV, JSON, trace and SQLite dump written
# with 1, 2 and 5 threads are byte-identical; so are the errors of a dump
# damaged in two places far apart (the first in run order wins, as with one
# thread).  Corpus cases are skipped, saying so, when the corpus is absent.
. "$(dirname "$0")/lib.sh"

[ -f "$ET_BUILD/fixtures/sample.etdp" ] || skip_all "build/fixtures missing (run make fixtures)"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 not installed (scripts/install-deps.sh)"
ETD="$CORPUS/etdump"

# outputs of $1 (a dump) with $2 threads into directory $3
outputs() {
    mkdir -p "$3"
    ETINSPECT_THREADS=$2 "$ETINSPECT" --etdump_path "$1" --memory --tsv_path "$3/tsv" \
        --json "$3/json" --trace_path "$3/trace" --sqlite_path "$3/db" >"$3/out" 2>"$3/err"
    echo "status $?" >>"$3/out"
    if [ -f "$3/db" ]; then
        # the export's own time stamp is the one field that may differ
        sqlite3 "$3/db" .dump | sed "s/'[0-9-]*T[0-9:]*Z'/'T'/g" >"$3/sql"
        rm -f "$3/db"
    fi
}

same_for_threads() { # $1 dump, $2 label
    rm -rf "$T/1" "$T/2" "$T/5"
    outputs "$1" 1 "$T/1"
    outputs "$1" 2 "$T/2"
    outputs "$1" 5 "$T/5"
    if diff -r "$T/1" "$T/2" >"$T/d" 2>&1 && diff -r "$T/1" "$T/5" >>"$T/d" 2>&1; then
        pass "$2: 1, 2 and 5 threads write the same bytes"
    else
        fail "$2: outputs differ across thread counts" "$(head -c 600 "$T/d")"
    fi
}

for f in "$ET_BUILD"/fixtures/*.etdp; do
    same_for_threads "$f" "fixture $(basename "$f")"
done

if [ ! -f "$ETD/medium.etdp" ]; then
    skip "corpus not found at $ETD: corpus dumps not compared"
    done_testing
fi
for f in "$ETD"/*.etdp; do
    case "$f" in
    */large.etdp) # 67 MB: once per suite is enough, not under the sanitizers
        case "$ETINSPECT" in */asan/*) continue ;; esac ;;
    esac
    same_for_threads "$f" "corpus $(basename "$f")"
done

# medium.etdp damaged every 64 KiB from its middle on (bytes 0x7fffffff,
# which no offset, vtable or length can hold): workers meet different
# errors; every thread count reports the first in run order
size=$(wc -c <"$ETD/medium.etdp")
cp "$ETD/medium.etdp" "$T/bad.etdp"
chmod u+w "$T/bad.etdp"
at=$((size / 2))
while [ "$at" -lt "$size" ]; do
    printf '\377\377\377\177' | dd of="$T/bad.etdp" bs=1 seek="$at" conv=notrunc 2>/dev/null
    at=$((at + 65536))
done
for n in 1 2 5; do
    ETINSPECT_THREADS=$n "$ETINSPECT" --etdump_path "$T/bad.etdp" --quiet >/dev/null 2>"$T/err.$n"
    echo "status $?" >>"$T/err.$n"
done
if grep -q "run_data\[" "$T/err.1" && grep -q "status 1" "$T/err.1"; then
    pass "a damaged medium.etdp fails naming the run ($(head -c 120 "$T/err.1"))"
else
    fail "a damaged medium.etdp fails naming the run" "$(cat "$T/err.1")"
fi
if cmp -s "$T/err.1" "$T/err.2" && cmp -s "$T/err.1" "$T/err.5"; then
    pass "its error is the same with 1, 2 and 5 threads"
else
    fail "its error depends on the thread count" "$(cat "$T/err.1" "$T/err.2" "$T/err.5")"
fi
done_testing
