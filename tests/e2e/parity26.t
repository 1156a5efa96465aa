#!/bin/sh
# parity26.t - details of the reference's output found on generated dumps
# (issue 26), each on a dump made for it (tests/fixtures/*.json):
#  - digit_names: names made of non-ASCII decimal digits ("١", "１２") are
#    numbers to tabulate (Python's int() reads any Unicode digit), so the
#    printed table right-aligns them, header included;
#  - bad_time_delegated: a delegated event that ends before it starts with
#    times past 2^32 is read as the reference reads it, (4294967295 -
#    start/f) + end/f = 4294966295.0 ms, where a non-delegated one
#    (bad_time) is still an error;
#  - late_outputs: the first run logged no program outputs, the block's
#    run_output is the second run's, without a warning;
#  - trailing_null: a Null debug entry after an Int is kept in the JSON;
#  - cr_names: a field holding a carriage return is quoted in the TSV
#    (docs/differences.md: Pythons before 3.11.9 / 3.12.3 wrote it bare).
. "$(dirname "$0")/lib.sh"
F="$ET_BUILD/fixtures"
for f in digit_names bad_time_delegated bad_time late_outputs trailing_null cr_names; do
    [ -f "$F/$f.etdp" ] || skip_all "$F/$f.etdp not built (make fixtures)"
done

# --- digit names: right-aligned as numbers, the text kept
"$ETINSPECT" --etdump_path "$F/digit_names.etdp" >"$T/digits.out" 2>"$T/digits.err"
cat >"$T/digits.want" <<'TXT'
╒════╤════════════════════╤══════════════╤════════════╤════════════╤════════════╤════════════╤════════════╤════════════╤════════════╤═══════════════════╤═════════════════════════╤══════════════╕
│    │ event_block_name   │   event_name │   p10 (ms) │   p50 (ms) │   p90 (ms) │   avg (ms) │   min (ms) │   max (ms) │ op_types   │ is_delegated_op   │ delegate_backend_name   │ start_time   │
╞════╪════════════════════╪══════════════╪════════════╪════════════╪════════════╪════════════╪════════════╪════════════╪════════════╪═══════════════════╪═════════════════════════╪══════════════╡
│  0 │ Execute            │            ١ │     0.001  │     0.001  │     0.001  │     0.001  │     0.001  │     0.001  │ []         │ False             │                         │ [1000]       │
├────┼────────────────────┼──────────────┼────────────┼────────────┼────────────┼────────────┼────────────┼────────────┼────────────┼───────────────────┼─────────────────────────┼──────────────┤
│  1 │ Execute            │           １２ │     0.0025 │     0.0025 │     0.0025 │     0.0025 │     0.0025 │     0.0025 │ []         │ False             │                         │ [2000]       │
╘════╧════════════════════╧══════════════╧════════════╧════════════╧════════════╧════════════╧════════════╧════════════╧════════════╧═══════════════════╧═════════════════════════╧══════════════╛
TXT
if cmp -s "$T/digits.out" "$T/digits.want" && [ ! -s "$T/digits.err" ]; then
    pass "non-ASCII digit names: right-aligned as tabulate aligns numbers"
else
    fail "non-ASCII digit names: right-aligned as tabulate aligns numbers" "$(diff "$T/digits.want" "$T/digits.out")"
fi
# a column of such numbers and a float: floats, aligned on the point as
# tabulate's decimal alignment pads them; with a word: text, left-aligned
"$ETINSPECT" -e "
local F = etinspect.Frame
io.write(F.new({'n'}, {{n = '١'}, {n = '１２'}, {n = '1.5'}}):render('box'))
io.write(F.new({'n'}, {{n = '١'}, {n = 'x'}}):render('box'))" >"$T/mixed.out" 2>&1
cat >"$T/mixed.want" <<'TXT'
╒════╤══════╕
│    │    n │
╞════╪══════╡
│  0 │  1   │
├────┼──────┤
│  1 │ 12   │
├────┼──────┤
│  2 │  1.5 │
╘════╧══════╛
╒════╤═════╕
│    │ n   │
╞════╪═════╡
│  0 │ ١   │
├────┼─────┤
│  1 │ x   │
╘════╧═════╛
TXT
if cmp -s "$T/mixed.out" "$T/mixed.want"; then
    pass "a float column of Unicode digits is formatted as float() reads it; with text it is text"
else
    fail "a float column of Unicode digits is formatted as float() reads it; with text it is text" \
        "$(diff "$T/mixed.want" "$T/mixed.out")"
fi

# more than 4,300 digits: not an int (Python's int() limit); 4,301 zeros
# are the float 0, 4,301 ones (float() gives inf) text
"$ETINSPECT" -e "
local F = etinspect.Frame
io.write(F.new({'n'}, {{n = string.rep('0', 4301)}}):render('box'))
local int = F.new({'n'}, {{n = string.rep('0', 4300)}}):render('box')
print(int:find('│ ' .. string.rep('0', 4300) .. ' │', 1, true) ~= nil)
local text = F.new({'n'}, {{n = string.rep('1', 4301)}}):render('box')
print(text:find('│ n' .. string.rep(' ', 4301) .. '│', 1, true) ~= nil)" >"$T/long.out" 2>&1
cat >"$T/long.want" <<'TXT'
╒════╤═════╕
│    │   n │
╞════╪═════╡
│  0 │   0 │
╘════╧═════╛
true
true
TXT
if cmp -s "$T/long.out" "$T/long.want"; then
    pass "4,301 digits: a float when finite (0), else text; 4,300: an int kept as written"
else
    fail "4,301 digits: a float when finite (0), else text; 4,300: an int kept as written" \
        "$(diff "$T/long.want" "$T/long.out" | head -c 600)"
fi

# --- a delegated event ending before it starts, 64-bit times
"$ETINSPECT" --etdump_path "$F/bad_time_delegated.etdp" --quiet --tsv_path "$T/bt.tsv" \
    >"$T/bt.out" 2>&1
rc=$?
line=$(sed -n 2p "$T/bt.tsv")
want=$(printf '0\tExecute\t0\t4294966295.0\t4294966295.0\t4294966295.0\t4294966295.0\t4294966295.0\t4294966295.0\t[]\tTrue\t\t[5000000000]')
if [ "$rc" = 0 ] && [ "$line" = "$want" ] && [ ! -s "$T/bt.out" ]; then
    pass "delegated start > end past 2^32: read as the reference, 4294966295.0 ms"
else
    fail "delegated start > end past 2^32: read as the reference, 4294966295.0 ms" \
        "exit $rc" "got:  $line" "want: $want" "$(cat "$T/bt.out")"
fi
"$ETINSPECT" --etdump_path "$F/bad_time.etdp" --quiet >"$T/bt2.out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "ends before it starts (start_time 5000000000, end_time 4000000000)" "$T/bt2.out"; then
    pass "non-delegated start > end past 2^32: still an error (the reference raises ValueError)"
else
    fail "non-delegated start > end past 2^32: still an error" "exit $rc" "$(cat "$T/bt2.out")"
fi

# --- program outputs from the second run on
"$ETINSPECT" --etdump_path "$F/late_outputs.etdp" --quiet --json "$T/late.json" >"$T/late.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -qF '"run_output": [{"kind": "int", "value": 7}]' "$T/late.json" &&
    [ ! -s "$T/late.out" ]; then
    pass "first run without program outputs: run_output is the first run's that has them, no warning"
else
    fail "first run without program outputs: run_output is the first run's that has them, no warning" \
        "exit $rc" "$(grep -o '"run_output[^]]*]' "$T/late.json")" "$(cat "$T/late.out")"
fi

# --- a trailing Null debug entry: kept in the JSON
"$ETINSPECT" --etdump_path "$F/trailing_null.etdp" --quiet --json "$T/null.json" >/dev/null 2>&1
if grep -qF '"debug_data": [{"kind": "int", "value": 4}, null]' "$T/null.json"; then
    pass "JSON: a trailing Null debug entry is kept"
else
    fail "JSON: a trailing Null debug entry is kept" "$(grep -o '"debug_data"[^]]*]' "$T/null.json")"
fi

# --- a lone carriage return in a field: quoted (Python >= 3.11.9 / 3.12.3)
"$ETINSPECT" --etdump_path "$F/cr_names.etdp" --quiet --tsv_path "$T/cr.tsv" >/dev/null 2>&1
field() { sed -n "$1p" "$T/cr.tsv" | cut -f3 | tr -d '\n' | od -An -c | tr -d ' \n'; }
if [ "$(field 2)" = '"\r"' ] && [ "$(field 3)" = '"a\rb"' ]; then
    pass "TSV: a field holding a carriage return is quoted"
else
    fail "TSV: a field holding a carriage return is quoted" "$(od -c "$T/cr.tsv" | sed -n 9,14p)"
fi

done_testing
