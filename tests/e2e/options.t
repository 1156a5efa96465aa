#!/bin/sh
# options.t - nothing typed is silently ignored: every option --help lists,
# in each mode of the command line (one ETDump, several ETDumps, a legacy
# dump, an ETRecord alone), is either taken or a usage error (exit 2)
# naming it (cli.c's options table).  An option --help lists that the table
# below does not know fails the test.
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
R="$ET_BUILD/fixtures/sample.etrecord"
L="$ET_SRC/tests/legacy/main.bin"
[ -f "$S" ] && [ -f "$R" ] || skip_all "build/fixtures/sample.etdp or sample.etrecord missing (run make check)"
cp "$S" "$T/s2.etdp"
cp "$S" "$T/s3.etdp"

# The outcome of an option added to each mode's base command:
#   ok     exit 0
#   no     exit 2, "argument --OPT: " and the mode's refusal
#   needs  exit 2, "argument --OPT: only with --"
#   input  exit 1, the error names the option's value (the file was read)
#   arg    exit 2, "argument --OPT: " (a mode's own usage error)
#   other  exit 2, another option named (the option switches the mode)
#   unrec  exit 2, "unrecognized arguments: OPT"
#   -      not tried (the option is the mode's own input)
# option                  value            one    many   legacy record
cat >"$T/table" <<TABLE
-h                        -                ok     ok     ok     ok
--help                    -                ok     ok     ok     ok
--version                 -                ok     ok     ok     ok
--etdump_path             $T/s3.etdp       ok     ok     no     ok
--etrecord_path           $R               ok     ok     no     -
--etrecord_method         forward          needs  needs  no     no
--etrecord_json_budget    100000           needs  needs  no     ok
--debug_buffer_path       $T/none.bin      input  arg    no     no
--bundled_program_path    $T/none.bpte     input  no     no     no
--bundled_test_case       0                needs  needs  no     no
--source_time_scale       us               ok     ok     no     no
--target_time_scale       us               ok     ok     no     no
--tsv_path                $T/out.tsv       ok     ok     ok     no
--json                    $T/out.json      ok     ok     ok     no
--compare_results         -                ok     no     no     no
-q                        -                ok     ok     ok     no
--quiet                   -                ok     ok     ok     no
--memory                  -                ok     no     no     no
--trace_path              $T/trace.json    ok     no     no     no
--cycles_hz               1000000          needs  needs  no     no
--trace_runs              0                needs  needs  no     no
--trace_window            0:1              needs  needs  no     no
--trace_runs_apart        -                needs  needs  no     no
--trace_format            perfetto         needs  needs  no     no
--sqlite_path             $T/db.sqlite     ok     ok     no     no
--sqlite_dump             name             needs  needs  no     no
--sqlite_replace          -                needs  needs  no     no
--html_path               $T/report.html   ok     no     no     no
--model_explorer_path     $T/mx            needs  needs  no     no
--program_path            $T/none.pte      input  no     no     no
--parquet_path            $T/pq            ok     ok     no     no
--max_broadcast_elements  100              ok     ok     no     no
--delegate_time_scale_converter coreml    ok     ok     no     no
--plugin                  $T/plugin.lua    needs  needs  no     no
--delegate_metadata_parser json           needs  needs  no     no
--profile_results_path    $L               other  other  -      other
--time_scale              us               needs  needs  ok     no
--list-scripts            -                unrec  unrec  unrec  unrec
-e                        1                unrec  unrec  unrec  unrec
-l                        string           unrec  unrec  unrec  unrec
-i                        -                unrec  unrec  unrec  unrec
--no-init                 -                unrec  unrec  unrec  unrec
TABLE

# every option of --help is in the table
"$ETINSPECT" --help >"$T/help" 2>&1
grep -oE '^ +(-[a-z], )?-(-[a-z_-]+|[a-z])\b' "$T/help" | sed 's/^ *//; s/, /\n/' |
    sort -u >"$T/help_opts"
awk '{ print $1 }' "$T/table" | sort -u >"$T/table_opts"
ok "--help lists options (found $(wc -l <"$T/help_opts"))" test "$(wc -l <"$T/help_opts")" -ge 30
missing=$(comm -23 "$T/help_opts" "$T/table_opts" | tr '\n' ' ')
if [ -z "$missing" ]; then pass "every option of --help is in the table"
else fail "every option of --help is in the table" "not in the table: $missing"; fi
stale=$(comm -13 "$T/help_opts" "$T/table_opts" | tr '\n' ' ')
if [ -z "$stale" ]; then pass "every option of the table is in --help"
else fail "every option of the table is in --help" "not in --help: $stale"; fi

refusal() {
    case $1 in
    one) echo "only with --profile_results_path" ;;
    many) echo "not allowed with several dumps" ;;
    legacy) echo "not allowed with --profile_results_path" ;;
    record) echo "needs an ETDump (an ETRecord alone is summarised)" ;;
    esac
}

try() { # mode option value outcome
    mode=$1 opt=$2 value=$3 want=$4
    [ "$want" = - ] && return
    case $mode in
    one) set -- --etdump_path "$S" ;;
    many) set -- --etdump_path "$S" --etdump_path "$T/s2.etdp" ;;
    legacy) set -- --profile_results_path "$L" ;;
    record) set -- "$R" ;;
    esac
    if [ "$value" = - ]; then set -- "$@" "$opt"; else set -- "$@" "$opt" "$value"; fi
    rm -f "$T/out.tsv" "$T/out.json" "$T/trace.json" "$T/db.sqlite" "$T/report.html"
    (cd "$T" && "$ETINSPECT" "$@" </dev/null >"$T/o" 2>"$T/e")
    rc=$?
    err=$(cat "$T/e")
    desc="$mode: $opt: $want"
    [ "$opt" = -q ] && opt=--quiet # the messages name the long form
    case $want in
    ok) [ $rc -eq 0 ] ;;
    no) [ $rc -eq 2 ] && grep -qF -- "argument $opt: $(refusal "$mode")" "$T/e" ;;
    needs) [ $rc -eq 2 ] && grep -qF -- "argument $opt: only with --" "$T/e" ;;
    input) [ $rc -eq 1 ] && grep -qF -- "$value" "$T/e" ;;
    arg) [ $rc -eq 2 ] && grep -qF -- "argument $opt: " "$T/e" ;;
    other) [ $rc -eq 2 ] && grep -q -- "argument --" "$T/e" && ! grep -qF -- "argument $opt:" "$T/e" ;;
    unrec) [ $rc -eq 2 ] && grep -qF -- "unrecognized arguments: $opt" "$T/e" ;;
    esac
    if [ $? -eq 0 ]; then pass "$desc"
    else fail "$desc" "exit $rc: $(printf '%s' "$err" | grep -v '^ \|^usage' | head -n 3)"; fi
}

while read -r opt value one many legacy record; do
    try one "$opt" "$value" "$one"
    try many "$opt" "$value" "$many"
    try legacy "$opt" "$value" "$legacy"
    try record "$opt" "$value" "$record"
done <"$T/table"

# what the table says for the modes, told exactly
run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
run --profile_results_path "$L" --memory
ok "legacy --memory: says why" grep -qxF "etinspect: error: argument --memory: not allowed with --profile_results_path (the legacy tables show the memory per allocator)" "$T/err"
run --profile_results_path "$L" --source_time_scale us
ok "legacy --source_time_scale: says what it takes" grep -qxF "etinspect: error: argument --source_time_scale: not allowed with --profile_results_path (a legacy dump takes --time_scale)" "$T/err"
run --etdump_path "$S" --trace_runs 0-3
ok "--trace_runs without --trace_path: names both" grep -qxF "etinspect: error: argument --trace_runs: only with --trace_path" "$T/err"
run --etdump_path "$S" --time_scale us
ok "--time_scale with an ETDump: what an ETDump takes" grep -qxF "etinspect: error: argument --time_scale: only with --profile_results_path (an ETDump takes --source_time_scale and --target_time_scale)" "$T/err"

# honoured where taken: --etrecord_method with several dumps, the budget
# with an ETRecord alone
run --etdump_path "$S" --etdump_path "$T/s2.etdp" --etrecord_path "$R" --etrecord_method bogus --quiet
ok "several dumps: --etrecord_method is used (exit 2 for a method the record lacks)" grep -qF "has no method 'bogus'" "$T/err"
run "$R" --etrecord_json_budget 10
ok "an ETRecord alone: --etrecord_json_budget is used (exit 1 under a budget of 10)" \
    grep -qF "above the cap of 160 bytes per entry" "$T/err"
run "$R" --etrecord_json_budget 0
ok "an ETRecord alone: the budget is checked as for a dump" \
    grep -qF "argument --etrecord_json_budget: expected a number of JSON values from 1 to 268435455, found '0'" "$T/err"
done_testing
