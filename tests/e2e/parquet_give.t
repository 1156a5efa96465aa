#!/bin/sh
# parquet_give.t - a directory of dumps to --parquet_path, each dump's
# files written beside the next dump's build (et_parquet_give,
# src/core/output/parquet.c): a dump whose files cannot be written stops
# the run with exit 1 and a message naming the file, whichever thread
# found it; the dumps before it are kept, whole; the dumps after it are
# not written; no temporary file is left.  On 1 thread (no writer beside
# the build) the same.
. "$(dirname "$0")/lib.sh"

FIX="$ET_BUILD/fixtures"
[ -f "$FIX/sample.etdp" ] && [ -f "$FIX/diff_a.etdp" ] && [ -f "$FIX/stats10.etdp" ] ||
    skip_all "build/fixtures not built (run make fixtures)"
cd "$T" || exit 1
is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

mkdir dir
cp "$FIX/sample.etdp" dir/a.etdp
cp "$FIX/stats10.etdp" dir/b.etdp
cp "$FIX/diff_a.etdp" dir/c.etdp
# each dump's ID: its files' names when exported alone
for d in a b c; do
    "$ETINSPECT" --etdump_path "dir/$d.etdp" --parquet_path "alone_$d" -q
    eval "id_$d=\$(ls alone_$d/samples | sed 's/^part-//; s/\.parquet\$//')"
done
ok "three dumps, three IDs" test -n "$id_a" -a -n "$id_b" -a -n "$id_c" -a "$id_a" != "$id_b" -a "$id_b" != "$id_c"

for threads in 2 1; do
    rm -rf ds
    mkdir -p ds/samples
    # the second dump's samples file cannot be made: a directory is there
    mkdir "ds/samples/part-$id_b.parquet"
    ETINSPECT_THREADS=$threads "$ETINSPECT" --etdump_path dir --parquet_path ds -q >out.txt 2>err.txt
    rc=$?
    is "$threads thread(s): the second dump's file cannot be made: exit 1" "$rc" 1
    ok "... the message names the file and why" \
        grep -q "ds/samples/part-$id_b.parquet: is a directory" err.txt
    is "... one message" "$(grep -c 'error' err.txt)" 1
    is "... the first dump is kept, each table's file whole (as exported alone)" \
        "$(for t in blocks events samples allocations; do
               cmp -s "ds/$t/part-$id_a.parquet" "alone_a/$t/part-$id_a.parquet" && echo ok
           done | tr '\n' ' ')" "ok ok ok ok "
    is "... and nothing of the second or third dump, no temporary file" \
        "$(find ds -type f | grep -v "part-$id_a\.parquet\$" | wc -l)" 0
done

done_testing
