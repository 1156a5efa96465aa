#!/bin/sh
# The bench row of issue 25: an SQLite export appends to the database in
# place, so adding a small dump costs what the dump costs, whatever the
# database holds.  Builds a database of about 100 MB (large.etdp exported
# four times under four names), then pairs two runs, each through sh:
# small.etdp exported into it (its rows replaced from the second run on)
# and small.etdp exported into a new database (the floor, removed first).
# Prints the ratio line of benchrun (goal: <= 2x).
#   sh sqlite_append.sh ETINSPECT BENCHRUN CORPUS_DIR WORK_DIR RUNS
set -eu
et=$1 benchrun=$2 corpus=$3 work=$4 runs=$5
L="$corpus/large.etdp" S="$corpus/small.etdp"
printf '  %-44s ' "SQLite: small.etdp into a 100 MB database"
if [ ! -f "$L" ] || [ ! -f "$S" ]; then
    echo "skipped: large.etdp or small.etdp absent"
    exit 0
fi
rm -f "$work/big.db" "$work/fresh.db"
for n in 1 2 3 4; do
    "$et" --etdump_path "$L" --quiet --sqlite_path "$work/big.db" --sqlite_dump "large-$n"
done
printf 'rm -f "%s"\nexec "%s" --etdump_path "%s" --quiet --sqlite_path "%s"\n' \
    "$work/fresh.db" "$et" "$S" "$work/fresh.db" >"$work/fresh.sh"
printf 'exec "%s" --etdump_path "%s" --quiet --sqlite_path "%s"\n' \
    "$et" "$S" "$work/big.db" >"$work/append.sh"
line=$("$benchrun" "$runs" --vs sh "$work/fresh.sh" sh "$work/append.sh")
echo "$line (floor: into a new database; $(wc -c <"$work/big.db") bytes)"
rm -f "$work/big.db" "$work/fresh.db" "$work/fresh.sh" "$work/append.sh"
