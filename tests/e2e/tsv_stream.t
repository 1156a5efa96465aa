#!/bin/sh
# tsv_stream.t - --tsv_path without the printed table streams the rows a
# few thousand at a time, whole blocks each (rows.h et_report_write_tsv;
# issue 25, item 12): the file is byte for byte the one written from the
# table's frame (header once, rows numbered across the parts), a block
# larger than a part is one part, a failed write is an error, and a dump
# of 100,000 one-event blocks stays well below what it cost when the
# builder's tables, the model and a frame of every row were held together
# (99 MiB; the 64 MiB goal is a row of make bench).
. "$(dirname "$0")/lib.sh"

GEN="$ET_BUILD/tools/gen_etdump"
[ -x "$GEN" ] || skip_all "build/tools/gen_etdump missing"

# the streamed TSV (--quiet) against the one made from the printed table's frame
same_tsv() { # name dump
    "$ETINSPECT" --etdump_path "$2" --quiet --tsv_path "$T/$1.stream.tsv" 2>"$T/$1.err1"
    rc1=$?
    "$ETINSPECT" --etdump_path "$2" --tsv_path "$T/$1.frame.tsv" >/dev/null 2>"$T/$1.err2"
    rc2=$?
    if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && cmp -s "$T/$1.stream.tsv" "$T/$1.frame.tsv"; then
        pass "$1: the streamed TSV is the table's TSV byte for byte"
    else
        fail "$1: streamed and table TSVs differ (exit $rc1 / $rc2)"
        diag "$(cat "$T/$1.err1" "$T/$1.err2")"
    fi
}

# 3,000 blocks of 3 events: 9,000 rows in three parts of whole blocks
"$GEN" --distinct "$T/many.etdp" 3 3000 || fail "gen_etdump many.etdp"
same_tsv many "$T/many.etdp"
rows=$(tail -n +2 "$T/many.stream.tsv" | wc -l)
heads=$(grep -c '^	event_block_name	' "$T/many.stream.tsv")
last=$(tail -n 1 "$T/many.stream.tsv" | cut -f 1)
if [ "$rows" = 9000 ] && [ "$heads" = 1 ] && [ "$last" = 8999 ]; then
    pass "many: one header, 9,000 rows numbered 0 to 8999 across the parts"
else
    fail "many: $heads headers, $rows rows, last numbered '$last' (expected 1, 9000, 8999)"
fi

# one block of 5,000 events (two runs): larger than a part
"$GEN" "$T/wide.etdp" 5000 2 || fail "gen_etdump wide.etdp"
same_tsv wide "$T/wide.etdp"
[ "$(tail -n +2 "$T/wide.stream.tsv" | wc -l)" = 5000 ] &&
    pass "wide: a block of 5,000 events is written whole" ||
    fail "wide: expected 5,000 rows"

# a write that fails is an error naming the output, exit 1
if [ -w /dev/full ]; then
    "$ETINSPECT" --etdump_path "$T/many.etdp" --quiet --tsv_path /dev/full 2>"$T/full.err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q "/dev/full: write failed: No space left on device" "$T/full.err"; then
        pass "a streamed TSV to a full device: exit 1, the error names it"
    else
        fail "a streamed TSV to a full device: exit $rc, $(head -n 1 "$T/full.err")"
    fi
else
    skip "/dev/full not writable"
fi

# memory: 100,000 one-event blocks (peak RSS as benchrun reports it)
BENCHRUN="$ET_BUILD/tools/benchrun"
case "$ETINSPECT" in
*/asan/*) skip "peak memory is not measured under the sanitizers" ;;
*)
    if [ -x "$BENCHRUN" ] && "$GEN" --distinct "$T/blocks.etdp" 1 100000; then
        mib=$("$BENCHRUN" 1 "$ETINSPECT" --etdump_path "$T/blocks.etdp" --quiet \
            --tsv_path "$T/blocks.tsv" | sed -n 's/.*peak_rss \([0-9.]*\) MiB.*/\1/p')
        if [ -n "$mib" ] && awk -v m="$mib" 'BEGIN { exit !(m + 0 < 80) }'; then
            pass "100,000 one-event blocks: load + TSV peaks at $mib MiB, below 80"
        else
            fail "100,000 one-event blocks: load + TSV peaks at ${mib:-?} MiB, expected below 80"
        fi
    else
        skip "benchrun or the 100,000-block dump missing"
    fi
    ;;
esac

done_testing
