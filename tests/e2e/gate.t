#!/bin/sh
# gate.t - the CI gate of `etinspect diff` (--fail_above: exit 3 on a
# significant slowdown whose ratio interval lies above the threshold, a
# summary naming the events) and sets against sets (each side several
# dumps, a directory or a pattern; runs pooled per event); docs/ci.md.
#
# The fixtures: diff_b.etdp is diff_a.etdp with the convolution about 25%
# faster (tests/fixtures/diff_*.json), so B -> A is a slowdown: the
# convolution 1.34x [1.31492, 1.35912], Method::execute 1.28x [1.25346,
# 1.29144], both q = 0.0076123; relu unchanged.
. "$(dirname "$0")/lib.sh"
F="$ET_BUILD/fixtures"
[ -f "$F/diff_a.etdp" ] || skip_all "build/fixtures/diff_a.etdp missing (run make)"
A="$F/diff_a.etdp"
B="$F/diff_b.etdp"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_is() { printf '%s\n' "$1" | cmp -s - "$T/err"; }
err_has() { grep -qF -- "$1" "$T/err"; }

# ---- the gate
run diff "$B" "$A" --format plain
ok "no --fail_above: a slowdown still exits 0" status_is 0
ok "no --fail_above: nothing on standard error" test ! -s "$T/err"

run diff "$B" "$A" --fail_above 5 --format plain
ok "--fail_above 5: exit 3" status_is 3
ok "--fail_above 5: the summary names both slower events, with ratio, interval and q" err_is \
"etinspect: diff: regression: 2 events significantly (q < 0.05) more than 5% slower (ratio interval above 1.05):
  Execute  Method::execute  (instruction 0)  ratio 1.28023  [1.25346, 1.29144]  q 0.0076123
  Execute  native_call_convolution.out  (instruction 0)  ratio 1.34072  [1.31492, 1.35912]  q 0.0076123"
ok "--fail_above 5: the table is still printed, whole" test "$(wc -l <"$T/out")" -eq 6

run diff "$B" "$A" --fail_above 30 --format tsv
ok "--fail_above 30: exit 3" status_is 3
ok "--fail_above 30: only the convolution (Method::execute's interval starts at 1.25)" err_is \
"etinspect: diff: regression: 1 event significantly (q < 0.05) more than 30% slower (ratio interval above 1.3):
  Execute  native_call_convolution.out  (instruction 0)  ratio 1.34072  [1.31492, 1.35912]  q 0.0076123"
ok "--fail_above with --format tsv: standard output is the TSV alone" \
    test "$(grep -c '^[0-9]' "$T/out")" -eq 5

# the whole interval must lie above: the convolution's ratio 1.34 is above
# 1.33, its interval's low end 1.3149 is not
run diff "$B" "$A" --fail_above 33 --format plain
ok "--fail_above 33: ratio above the limit, interval not: exit 0" status_is 0
ok "--fail_above 33: the pass line" err_is \
    "etinspect: diff: pass: no matched event is significantly (q < 0.05) more than 33% slower"

# significance is required: at alpha 0.005 the q-values 0.0076 are not below
run diff "$B" "$A" --fail_above 5 --alpha 0.005 --format plain
ok "--alpha 0.005: nothing significant, exit 0" status_is 0
ok "--alpha 0.005: the summary says which alpha" err_has "significantly (q < 0.005) more than 5% slower"

run diff "$A" "$B" --fail_above 0 --format plain
ok "a speed-up never fails the gate, even at 0%" status_is 0

run diff "$B" "$A" --fail_above=-1
ok "--fail_above -1: exit 2" status_is 2
ok "--fail_above -1: named" err_is "etinspect: diff: --fail_above must be a percentage >= 0, got -1 (etinspect --help diff)"
run diff "$B" "$A" --fail_above five
ok "--fail_above five: exit 2" status_is 2
run diff "$B" "$T/missing.etdp" --fail_above 5
ok "an unreadable dump with --fail_above: exit 1, not 3" status_is 1
ok "an unreadable dump: named" err_has "missing.etdp"

# ---- sets against sets
mkdir -p "$T/base" "$T/test"
cp "$B" "$T/base/run1.etdp"; cp "$B" "$T/base/run2.etdp"; cp "$B" "$T/base/run3.etdp"
cp "$A" "$T/test/run1.etdp"; cp "$A" "$T/test/run2.etdp"
echo "not a dump" >"$T/base/notes.txt"

run diff "$T/base" "$T/test" --format tsv
ok "two directories: exit 0" status_is 0
ok "two directories: runs_a and runs_b count the pooled runs (3 x 6, 2 x 6)" \
    test "$(awk -F '\t' '$3 == "native_call_convolution.out" { print $8, $9 }' "$T/out")" = "18 12"
ok "two directories: a one-sided event counts its side's runs" \
    test "$(awk -F '\t' '$3 == "native_call_linear.out" { print $7, $8, $9 }' "$T/out")" = "only in A 18 0"
# copies of one dump: the pooled median is the dump's own
ok "copies of one dump: the pooled p50 is the dump's" \
    test "$(awk -F '\t' '$3 == "native_call_convolution.out" { print $10, $11 }' "$T/out")" = "0.09025 0.121"

run diff --base "$T/base/*.etdp" --test "$T/test/run1.etdp" "$T/test/run2.etdp" --fail_above 30 --format tsv
ok "--base PATTERN --test FILE FILE: exit 3 (the gate over sets)" status_is 3
ok "--base PATTERN --test FILE FILE: the pooled runs" \
    test "$(awk -F '\t' '$3 == "Method::execute" { print $8, $9 }' "$T/out")" = "18 12"
ok "--base PATTERN --test FILE FILE: more runs, a narrower interval, a smaller q" \
    err_has "native_call_convolution.out  (instruction 0)  ratio 1.34072  [1.32597, 1.35]  q 7.4532e-06"
cp "$T/out" "$T/sets.tsv"

run diff "$T/base" "$T/test" --format tsv
ok "the same sets as directories give the same rows" cmp -s "$T/out" "$T/sets.tsv"

run diff "$T/nowhere/*.etdp" "$T/test"
ok "a pattern that matches nothing: exit 1" status_is 1
ok "a pattern that matches nothing: named" err_is "etinspect: error: $T/nowhere/*.etdp: no file matches this pattern"
mkdir "$T/empty"
run diff "$T/empty" "$T/test"
ok "a directory without ETDumps: exit 1" status_is 1
ok "a directory without ETDumps: named" err_has "$T/empty: is a directory with no ETDump in it"
run diff --base "$T/base/run1.etdp" "$T/base/run1.etdp" --test "$T/test"
ok "the same dump twice on a side: exit 2" status_is 2
ok "the same dump twice on a side: named" err_has "are the same file"
run diff "$B" --base "$T/base" --test "$T/test"
ok "A and --base: exit 2" status_is 2
ok "A and --base: named" err_is "etinspect: diff: give A or --base, not both (etinspect --help diff)"
run diff --base "$T/base"
ok "--base without a test side: exit 2" status_is 2
ok "--base without a test side: missing B" err_is "etinspect: diff: missing argument 'B' (etinspect --help diff)"
run diff --base "$T/base" --test "$T/test" --etrecord "$F/sample.etrecord" --model_explorer_path "$T/mx"
ok "--model_explorer_path with several dumps on a side: exit 2" status_is 2
ok "--model_explorer_path with several dumps: named" \
    err_is "etinspect: diff: --model_explorer_path needs one dump on each side (etinspect --help diff)"
run diff "$T/base" "$T/test" --tsv_path "$T/test/run2.etdp"
ok "--tsv_path over a dump of a set: refused (exit 1)" status_is 1
ok "--tsv_path over a dump of a set: the dump is intact" cmp -s "$T/test/run2.etdp" "$A"

# ---- the Lua API: pooled statistics by hand, the gate's value
"$ETINSPECT" -e "
  local E = require('etinspect')
  local D = require('etinspect.diff')
  local a = E.Inspector{etdump_path = '$A'}
  local b = E.Inspector{etdump_path = '$B'}
  local function raw_of(insp, name)
    for _, ev in ipairs(insp.event_blocks[1].events) do
      if ev.name == name then return ev.perf_data.raw end
    end
  end
  -- A and B pooled on one side, against A
  local f = E.diff({a, b}, a)
  local pooled = {}
  for _, v in ipairs(raw_of(a, 'native_call_relu.out')) do pooled[#pooled + 1] = v end
  for _, v in ipairs(raw_of(b, 'native_call_relu.out')) do pooled[#pooled + 1] = v end
  local x = {}
  for i, v in ipairs(pooled) do x[i] = v end
  table.sort(x)
  -- NumPy's linear percentile at 50 of 12 values: h = 5.5, g = 0.5
  local med = x[7] - (x[7] - x[6]) * 0.5
  local sum = 0
  for _, v in ipairs(pooled) do sum = sum + v end
  local _, p = D.mann_whitney_u(pooled, raw_of(a, 'native_call_relu.out'))
  for _, r in f:rows() do
    if r.event == 'native_call_relu.out' then
      print('relu', r.runs_a, r.runs_b, r.p50_a == med, math.abs(r.avg_a - sum / 12) < 1e-15, r.p_value == p)
    end
  end
  local d <close> = E.open_many('$T/base')
  local g = select(2, E.diff(d, {a}, {fail_above = 5}))
  print('gate', g.verdict, #g.regressions, g.regressions[1].event, g.regressions[2].event, g.limit, g.fail_above)
  print('none', select('#', E.diff(a, b)), select(2, E.diff(a, b)) == nil)
  print('pass', select(2, E.diff(a, b, {fail_above = 0})).verdict)
  print('untested', select(2, E.diff(b, a, {fail_above = 5, min_runs = 7})).verdict)
  print(pcall(E.diff, a, b, {fail_above = -1}))
  print(pcall(E.diff, a, b, {fail_above = '5'}))
  print(pcall(E.diff, {}, b))
  print(pcall(E.diff, a, {b, 'x'}))
  print(pcall(E.diff, a, E.Inspector{etdump_path = '$B', target_time_scale = 'us'}))
  print(pcall(E.diff, {a, E.Inspector{etdump_path = '$B', target_time_scale = 'us'}}, b))
  print(pcall(D.gate_summary, {}))
  io.write(D.gate_summary(select(2, E.diff(b, a, {fail_above = 30}))))
" >"$T/lua" 2>&1
cat >"$T/lua.want" <<EOF
relu	12	6	true	true	true
gate	regression	2	Method::execute	native_call_convolution.out	1.05	5
none	2	true
pass	pass
untested	pass
false	diff: fail_above must be a percentage >= 0, got -1
false	etinspect.diff: option 'fail_above' must be a number, got string
false	diff: argument 1 (A) is not an Inspector (an empty sequence)
false	diff: argument 2 (B)[2] is not an Inspector
false	diff: the Inspectors have different target time scales (A: ms, B: us)
false	diff: the Inspectors of A have different target time scales (1: ms, 2: us)
false	gate_summary: not a gate
diff: regression: 1 event significantly (q < 0.05) more than 30% slower (ratio interval above 1.3):
  Execute  native_call_convolution.out  (instruction 0)  ratio 1.34072  [1.31492, 1.35912]  q 0.0076123
EOF
if cmp -s "$T/lua" "$T/lua.want"; then pass "Lua: pooled p50, avg and test by hand; the gate's value; its errors"
else fail "Lua: pooled p50, avg and test by hand; the gate's value; its errors" "$(diff "$T/lua" "$T/lua.want")"; fi

done_testing
