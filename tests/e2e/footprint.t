#!/bin/sh
# footprint.t - memory proportional to what is kept (docs/performance.md):
# the dump is mapped lazily and pass 1 gives its pages back behind it, so
# it is never resident whole.  large.etdp (67 MB, 1,000,502 events): load +
# aggregate + TSV peaks below the dump's own size (and so below 90 MiB,
# issue 15's goal); a narrow dump of 250,000 runs of 4 events (67 MB, runs
# smaller than a page, given back in spans): below 100 MiB.  Peak RSS as
# tests/tools/benchrun reports it (one run).  Not under the sanitizers
# (their shadow memory), and the corpus case skips when the corpus is
# absent.
. "$(dirname "$0")/lib.sh"

case "$ETINSPECT" in
*/asan/*) skip_all "peak memory is not measured under the sanitizers" ;;
esac
BENCHRUN="$ET_BUILD/tools/benchrun"
GEN="$ET_BUILD/tools/gen_etdump"
[ -x "$BENCHRUN" ] && [ -x "$GEN" ] || skip_all "build/tools/benchrun or gen_etdump missing"

# peak RSS in KiB of "$@" (one run), from benchrun's "peak_rss N MiB"
peak_kib() {
    "$BENCHRUN" 1 "$@" | sed -n 's/.*peak_rss \([0-9.]*\) MiB.*/\1/p' |
        awk '{ printf "%d", $1 * 1024 }'
}

L="$CORPUS/etdump/large.etdp"
if [ -f "$L" ]; then
    k=$(peak_kib "$ETINSPECT" --etdump_path "$L" --quiet --tsv_path "$T/l.tsv")
    size=$(($(wc -c <"$L") / 1024))
    if [ -n "$k" ] && [ "$k" -lt "$size" ] && [ "$k" -lt $((90 * 1024)) ]; then
        pass "large.etdp: load + aggregate + TSV peaks at $k KiB, below the dump's $size KiB and 90 MiB"
    else
        fail "large.etdp: load + aggregate + TSV peaks at ${k:-?} KiB, expected below the dump's $size KiB"
    fi
    rm -f "$T/l.tsv"
else
    skip "corpus not found at $CORPUS: large.etdp not measured"
fi

"$GEN" "$T/narrow.etdp" 4 250000
k=$(peak_kib "$ETINSPECT" --etdump_path "$T/narrow.etdp" --quiet --tsv_path "$T/n.tsv")
if [ -n "$k" ] && [ "$k" -lt $((100 * 1024)) ]; then
    pass "narrow dump (4 x 250,000 runs, $(wc -c <"$T/narrow.etdp") bytes): peaks at $k KiB, below 100 MiB"
else
    fail "narrow dump: peaks at ${k:-?} KiB, expected below 100 MiB"
fi
# the same TSV from the same bytes given in memory (etdump_data: not a
# mapping, nothing given back)
"$ETINSPECT" -e "local e = require('etinspect')
local f = assert(io.open('$T/narrow.etdp', 'rb'))
local insp <close> = e.Inspector{etdump_data = f:read('a')}
f:close()
insp:save_data_to_tsv('$T/n2.tsv')"
ok "narrow dump: the TSV does not depend on the pages given back" cmp -s "$T/n.tsv" "$T/n2.tsv"
done_testing
