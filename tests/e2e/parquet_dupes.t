#!/bin/sh
# parquet_dupes.t - identical dumps in one --parquet_path run
# (src/core/output/parquet.c, et_parquet_add; docs/fleet.md, "Shards"):
# two identical dumps are one dump under the later name, and the earlier
# one's files, which the later one's would replace at the commit, are
# dropped before it (not synced, not renamed).  The dataset must be the
# one the later dump alone gives, byte for byte but for `dumps` (its
# exported_at and paths), with no temporary file left; with strace
# installed, the run must sync one file per table, not one per dump.
. "$(dirname "$0")/lib.sh"

FIX="$ET_BUILD/fixtures"
[ -f "$FIX/sample.etdp" ] && [ -f "$FIX/diff_b.etdp" ] ||
    skip_all "build/fixtures not built (run make fixtures)"
cd "$T" || exit 1
is() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

mkdir dir
cp "$FIX/sample.etdp" dir/a.etdp
cp "$FIX/sample.etdp" dir/b.etdp
cp "$FIX/sample.etdp" dir/c.etdp
cp "$FIX/diff_b.etdp" dir/d.etdp
"$ETINSPECT" --etdump_path dir --parquet_path ds -q 2>err.txt
ok "three identical dumps and another in one run: exit 0" test $? -eq 0 -a ! -s err.txt
is "... each table holds two files: one for the three, one for the fourth" \
    "$(for t in blocks events samples allocations dumps; do ls "ds/$t" | wc -l; done | tr '\n' ' ')" \
    "2 2 2 2 2 "
is "... and nothing else (no temporary file left)" "$(ls -A ds/*/ | grep -vc '^part-[0-9a-f]\{32\}\.parquet$\|^$\|:$')" 0

mkdir alone
cp "$FIX/sample.etdp" alone/c.etdp
"$ETINSPECT" --etdump_path alone/c.etdp --parquet_path ds1 -q
f=$(ls ds1/samples)
ok "... the samples, events, blocks and allocations files are those of the last copy exported alone" \
    sh -c "cmp ds/samples/$f ds1/samples/$f && cmp ds/events/$f ds1/events/$f &&
           cmp ds/blocks/$f ds1/blocks/$f && cmp ds/allocations/$f ds1/allocations/$f"

if command -v strace >/dev/null 2>&1 && strace -f -qq -e trace=none true 2>/dev/null; then
    rm -rf ds
    strace -f -qq -e trace=fsync -o trace.txt "$ETINSPECT" --etdump_path dir --parquet_path ds -q
    # 10 files (two dumps' five) and the five table directories, not 20 + 5
    is "... synced: one file per table and dump kept, and each directory once" \
        "$(grep -c 'fsync(' trace.txt)" 15
else
    skip "strace is not installed or cannot trace here: the syncs are not counted"
fi

done_testing
