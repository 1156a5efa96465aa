#!/bin/sh
# delegate_data.t - print_data_tabular and save_data_to_tsv with
# include_delegate_debug_data=true, byte for byte as the reference prints
# them on the corpus dumps with delegate metadata (small, medium, debug):
# raw metadata as Python bytes reprs, parsed metadata as columns with
# pandas' union and dtypes.  The expected bytes (tests/fixtures/delegate_data)
# come from tests/lua/gen_frame_cases.py (pandas 1.5.3, tabulate 0.8.9);
# medium's only as SHA-256 digests.
. "$(dirname "$0")/lib.sh"
C="$ET_SHARED/corpus/etdump"
[ -f "$C/small.etdp" ] || skip_all "$C absent (the shared corpus)"
X="$ET_SRC/tests/fixtures/delegate_data"
H="$ET_SRC/tests/lua/delegate_data.lua"

expected_sum() { awk -v f="$1" '$2 == f { print $1 }' "$X/SHA256SUMS"; }

for d in small debug medium; do
    for p in raw mixed num flag; do
        for w in tsv print frame; do
            ext=$w; [ "$w" = print ] && ext=print.txt; [ "$w" = frame ] && ext=tsv
            name="$d.$p.$ext"
            "$ETINSPECT" "$H" "$C/$d.etdp" "$p" "$w" >"$T/got" 2>"$T/err"
            got=$(sha256sum <"$T/got" | cut -d' ' -f1)
            if [ "$got" = "$(expected_sum "$name")" ]; then
                pass "$d, parser $p: $w equals the reference's $name"
            elif [ -f "$X/$name" ]; then
                fail "$d, parser $p: $w equals the reference's $name" \
                    "$(diff "$T/got" "$X/$name" | head -n 6 | cut -c1-200)" "$(head -n 3 "$T/err")"
            else
                fail "$d, parser $p: $w equals the reference's $name (sha256)" "$(head -n 3 "$T/err")"
            fi
        done
    done
done

# no raw non-UTF-8 byte reaches the table or the TSV (small.etdp's event 1
# logs 00 01 02 ff fe 7f 80 10)
"$ETINSPECT" "$H" "$C/small.etdp" raw tsv >"$T/tsv"
ok "raw metadata bytes are escaped: \\x00\\x01\\x02\\xff..." \
    grep -qF "[b'\\x00\\x01\\x02\\xff\\xfe\\x7f\\x80\\x10', " "$T/tsv"
ok "the TSV is valid UTF-8" iconv -f UTF-8 -t UTF-8 "$T/tsv" -o /dev/null

# the command line prints the same rows as the Lua API without metadata
"$ETINSPECT" --etdump_path "$C/small.etdp" --tsv_path "$T/cli.tsv" >/dev/null
ok "CLI TSV still equals the reference's" cmp "$T/cli.tsv" "$ET_SHARED/corpus/ref/small.tsv"
done_testing
