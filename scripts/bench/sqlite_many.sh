#!/bin/sh
# The bench row of issue 28: the SQLite export of many dumps holds one
# dump at a time, so its memory is constant in the number of dumps.
# Copies medium.etdp 100 times (distinct files: a file given twice is
# refused), then measures the peak RSS (PEAKRSS) of exporting 1 and 100
# of them into a new database, from the command line (--sqlite_path over
# a directory) and from Lua (etinspect.open_many(DIR):to_sqlite(DB)).
# Goal (the command line): 100 dumps' peak RSS <= 1.5x one dump's,
# printed with PASS or FAIL; Lua's figures follow for information (the
# Dumps object keeps every dump's model, statistics without samples:
# about 100 KiB a medium.etdp).
#   sh sqlite_many.sh ETINSPECT PEAKRSS CORPUS_DIR WORK_DIR
set -eu
et=$1 peakrss=$2 corpus=$3 work=$4
M="$corpus/medium.etdp"
printf '  %-44s ' "SQLite: 100 copies of medium.etdp, peak RSS"
if [ ! -f "$M" ]; then
    echo "skipped: medium.etdp absent"
    exit 0
fi
rm -rf "$work/many1" "$work/many100"
mkdir "$work/many1" "$work/many100"
cp "$M" "$work/many1/m1.etdp"
i=1
while [ $i -le 100 ]; do
    cp "$M" "$work/many100/m$i.etdp"
    i=$((i + 1))
done
peak() { # the command's peak RSS in KiB
    rm -f "$work/many.db"
    "$peakrss" "$@" 2>&1 >/dev/null | sed -n 's/^peak_rss_kb //p'
}
line=""
for how in cli lua; do
    for n in 1 100; do
        if [ $how = cli ]; then
            kb=$(peak "$et" --etdump_path "$work/many$n" --quiet --sqlite_path "$work/many.db")
        else
            kb=$(peak "$et" -e "etinspect.open_many('$work/many$n'):to_sqlite('$work/many.db')")
        fi
        eval "${how}_$n=\${kb:-0}"
    done
done
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx: %s", b / a, (a > 0 && b <= 1.5 * a) ? "PASS" : "FAIL" }'; }
echo "command line: 1 dump $((cli_1 / 1024)) MiB, 100 dumps $((cli_100 / 1024)) MiB" \
    "($(verdict "$cli_1" "$cli_100"); goal <= 1.5x); Lua open_many: $((lua_1 / 1024)) MiB," \
    "$((lua_100 / 1024)) MiB ($(awk -v a="$lua_1" -v b="$lua_100" 'BEGIN { printf "%.2fx", b / a }'))"
rm -rf "$work/many1" "$work/many100" "$work/many.db"
