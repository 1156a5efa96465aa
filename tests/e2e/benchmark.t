#!/bin/sh
# benchmark.t - the bundled `benchmark` script (docs/ci.md):
# github-action-benchmark's customSmallerIsBetter entries and PyTorch
# benchmark-database v3 records, their shapes (read back with Python's
# json), and their numbers: exactly the TSV's, for the fixtures and for
# the corpus's medium.etdp (401 events of 250 runs).
. "$(dirname "$0")/lib.sh"
F="$ET_BUILD/fixtures"
[ -f "$F/diff_a.etdp" ] || skip_all "build/fixtures/diff_a.etdp missing (run make)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 (to read the JSON back) missing"
A="$F/diff_a.etdp"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_is() { printf '%s\n' "$1" | cmp -s - "$T/err"; }

# check_tsv JSON TSV METRIC_COLUMN: every entry's value is the TSV's, in the
# order the script promises (method events, then operators: kernels and
# delegated events, each in the TSV's row order), and nothing else
cat >"$T/check.py" <<'EOF'
import csv, json, math, sys
entries = json.load(open(sys.argv[1]))
col = sys.argv[3]
rows = list(csv.DictReader(open(sys.argv[2]), delimiter="\t"))
def is_method(r): return r["event_name"] == "Method::execute" or r["event_name"].startswith("Method::execute::")
def is_op(r): return r["is_delegated_op"] == "True" or r["event_name"].startswith("native_call_")
rows = [r for r in rows if r[col] not in ("", "nan") and math.isfinite(float(r[col]))]
want = [r for r in rows if is_method(r)] + [r for r in rows if not is_method(r) and is_op(r)]
if len(want) != len(entries):
    sys.exit("%d entries, %d TSV rows" % (len(entries), len(want)))
for e, r in zip(entries, want):
    if list(e) != ["name", "unit", "value", "range", "extra"]:
        sys.exit("keys %r" % list(e))
    if e["value"] != float(r[col]):
        sys.exit("%s: %r != TSV %s" % (e["name"], e["value"], r[col]))
    if not e["name"].split("/", 2)[2].startswith(r["event_name"]) or e["name"].split("/")[1] != r["event_block_name"]:
        sys.exit("%s is not row %s/%s" % (e["name"], r["event_block_name"], r["event_name"]))
    if not (isinstance(e["range"], str) and e["range"].startswith("\u00b1 ") and e["unit"] == "ms"):
        sys.exit("range or unit of %s" % e["name"])
print(len(entries))
EOF

"$ETINSPECT" --etdump_path "$A" --tsv_path "$T/a.tsv" -q
run benchmark "$A" --format github
ok "github: exit 0" status_is 0
ok "github: the p50 of every method and operator event, exactly the TSV's" \
    python3 "$T/check.py" "$T/out" "$T/a.tsv" "p50 (ms)"
ok "github: four entries (Method::execute, convolution, relu, addmm), the method first" \
    test "$(python3 -c 'import json,sys; print(" | ".join(e["name"] for e in json.load(open(sys.argv[1]))))' "$T/out")" = \
    "diff_a/Execute/Method::execute | diff_a/Execute/native_call_convolution.out (instruction 0) | diff_a/Execute/native_call_relu.out (instruction 1) | diff_a/Execute/native_call_addmm.out (instruction 2)"
ok "github: extra says the metric, runs and dumps" \
    python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))[0]; sys.exit(e["extra"] != "metric: p50\nruns: 6\ndumps: 1")' "$T/out"
for m in avg p10 p90 min max; do
    run benchmark "$A" --format github --metric $m
    ok "github --metric $m: exactly the TSV's $m" python3 "$T/check.py" "$T/out" "$T/a.tsv" "$m (ms)"
done
run benchmark "$A" --format github --target_time_scale us
ok "--target_time_scale us: unit us, value in us" \
    python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))[0]; sys.exit(not (e["unit"] == "us" and e["value"] == 166.75))' "$T/out"

# ---- PyTorch benchmark database v3, shaped as ExecuTorch's records
run benchmark "$A" --format pytorch-v3 --model mv2 --backend xnnpack --device "Pixel 8" --metric avg
ok "pytorch-v3: exit 0" status_is 0
cat >"$T/v3.py" <<'EOF'
import csv, json, sys
recs = json.load(open(sys.argv[1]))
rows = {(r["event_block_name"], r["event_name"]): r for r in csv.DictReader(open(sys.argv[2]), delimiter="\t")}
assert len(recs) == 4, len(recs)
for rec in recs:
    assert list(rec) == ["benchmark", "model", "metric", "runners"], list(rec)
    b, m, me, ru = rec["benchmark"], rec["model"], rec["metric"], rec["runners"]
    assert list(b) == ["name", "mode", "extra_info"] and b["name"] == "ExecuTorch" and b["mode"] == "inference", b
    assert json.loads(b["extra_info"]["benchmark_config"]) == {"model": "mv2", "config": "xnnpack", "device": "Pixel 8"}, b
    assert m == {"name": "mv2", "type": "OSS model", "backend": "xnnpack"}, m
    assert list(me) == ["name", "benchmark_values", "target_value", "extra_info"], list(me)
    assert me["extra_info"] == {"method": "Execute"} and me["target_value"] == 0, me
    assert isinstance(me["benchmark_values"], list) and len(me["benchmark_values"]) == 1, me
    assert ru == [{"name": "Pixel 8", "type": "", "avail_mem_in_gb": "", "total_mem_in_gb": ""}], ru
names = [r["metric"]["name"] for r in recs]
assert names == ["avg_inference_latency(ms)", "native_call_convolution.out (instruction 0) avg_latency(ms)",
                 "native_call_relu.out (instruction 1) avg_latency(ms)",
                 "native_call_addmm.out (instruction 2) avg_latency(ms)"], names
for rec, ev in zip(recs, ["Method::execute", "native_call_convolution.out", "native_call_relu.out", "native_call_addmm.out"]):
    assert rec["metric"]["benchmark_values"][0] == float(rows[("Execute", ev)]["avg (ms)"]), rec
EOF
ok "pytorch-v3: ExecuTorch's record shape, metric names, the TSV's avg" python3 "$T/v3.py" "$T/out" "$T/a.tsv"

# upstream's names: blocks Execute::<method>, events Method::execute::<method>
run benchmark "$F/upstream_names.etdp" --format pytorch-v3
ok "upstream names: a method per block, its metric the inference latency; names unique" python3 -c '
import json, sys
recs = json.load(open(sys.argv[1]))
key = [(r["metric"]["name"], r["metric"]["extra_info"]["method"]) for r in recs]
assert key[:2] == [("p50_inference_latency(ms)", "forward"), ("p50_inference_latency(ms)", "decode")], key
assert len(set(key)) == len(key) == 10, key
assert key[3] == ("0 (instruction 1, delegate 0) p50_latency(ms)", "forward"), key' "$T/out"
run benchmark "$F/upstream_names.etdp" --format github
ok "upstream names: github names unique, with the block" python3 -c '
import json, sys
names = [e["name"] for e in json.load(open(sys.argv[1]))]
assert len(set(names)) == len(names) == 10, names
assert names[0] == "upstream_names/Execute::forward/Method::execute::forward", names' "$T/out"

# ---- the output writer
run benchmark "$A" --format pytorch-v3 -o "$T/records.json"
ok "-o: exit 0, nothing on standard output" sh -c '[ "$(cat "$1")" -eq 0 ] && [ ! -s "$2" ]' _ "$T/status" "$T/out"
"$ETINSPECT" benchmark "$A" --format pytorch-v3 >"$T/stdout.json"
ok "-o: the file holds what standard output gets" cmp -s "$T/records.json" "$T/stdout.json"
ok "-o: no temporary file left beside it" test "$(ls "$T" | grep -c records)" -eq 1
cp "$A" "$T/dump.etdp"
run benchmark "$T/dump.etdp" --format github --output "$T/dump.etdp"
ok "--output over the dump: exit 1" status_is 1
ok "--output over the dump: the dump is intact" cmp -s "$T/dump.etdp" "$A"
ok "--output over the dump: said" grep -q "refusing to overwrite an input" "$T/err"

# ---- several dumps: runs pooled per event
mkdir -p "$T/farm/pixel" "$T/farm/galaxy"
cp "$A" "$T/farm/pixel/model.etdp"; cp "$A" "$T/farm/galaxy/model.etdp"
run benchmark "$T/farm/*/model.etdp" --format github
ok "a pattern: exit 0" status_is 0
ok "two copies: pooled p50 = the dump's, 12 runs, 2 dumps, model named from the files" \
    python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))[1]
sys.exit(not (e["name"] == "model/Execute/native_call_convolution.out (instruction 0)" and e["value"] == 0.121
              and e["extra"] == "metric: p50\nruns: 12\ndumps: 2"))' "$T/out"
run benchmark "$T/farm/pixel" "$F/diff_b.etdp" --format github --metric min
ok "a directory and a file: min of the pooled runs is the smaller of the two dumps' min" \
    python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))[1]
sys.exit(not (e["name"] == "model/Execute/native_call_convolution.out (instruction 0)" and e["value"] == 0.0895))' "$T/out"
"$ETINSPECT" --etdump_path "$F/diff_b.etdp" --tsv_path "$T/b.tsv" -q
ok "... (diff_b's convolution min is 0.0895 in its TSV)" \
    test "$(awk -F '\t' '$3 == "native_call_convolution.out" { print $8 }' "$T/b.tsv")" = 0.0895

# ---- usage and input errors
run benchmark "$A"
ok "no --format: exit 2" status_is 2
ok "no --format: named" err_is "etinspect: benchmark: missing option '--format' (etinspect --help benchmark)"
run benchmark "$A" --format csv
ok "--format csv: exit 2" status_is 2
run benchmark "$T/none/*.etdp" --format github
ok "a pattern matching nothing: exit 1" status_is 1
ok "a pattern matching nothing: named" err_is "etinspect: error: $T/none/*.etdp: no file matches this pattern"
run benchmark "$A" "$A" --format github
ok "the same dump twice: exit 2" status_is 2
"$ETINSPECT" --list-scripts >"$T/list"
ok "--list-scripts lists benchmark" grep -q '^benchmark  ' "$T/list"

# ---- the corpus: every event of medium.etdp, exactly the TSV's p50
M="$ET_SHARED/corpus/etdump/medium.etdp"
if [ -f "$M" ]; then
    "$ETINSPECT" --etdump_path "$M" --tsv_path "$T/m.tsv" -q
    "$ETINSPECT" benchmark "$M" --format github -o "$T/m.json"
    ok "medium.etdp: 201 entries (Method::execute and 200 kernels), each the TSV's p50 exactly" \
        sh -c '[ "$(python3 "$1" "$2" "$3" "p50 (ms)")" = 201 ]' _ "$T/check.py" "$T/m.json" "$T/m.tsv"
else
    skip "the shared corpus (medium.etdp) is absent"
fi

done_testing
