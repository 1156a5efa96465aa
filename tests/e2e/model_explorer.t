#!/bin/sh
# model_explorer.t - etinspect --model_explorer_path DIR,
# Inspector:write_model_explorer and `etinspect diff --model_explorer_path`
# (docs/model-explorer.md, issue 27 item 2).  The files are read back into
# Model Explorer's own dataclasses (tests/model_explorer/graph_builder.py
# and node_data_builder.py, unmodified) by tests/model_explorer/mx_check.py,
# which also checks the node ids against the ETRecord's edge programs read
# from the zip with Python's standard library; the values are checked
# against the sample's event times, including the even split of a
# delegate call over its nodes.
. "$(dirname "$0")/lib.sh"

FIX="$ET_BUILD/fixtures"
S="$FIX/sample.etdp"
R="$FIX/sample.etrecord"
[ -f "$S" ] && [ -f "$R" ] || skip_all "build/fixtures missing (run make fixtures)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
CHK="$ET_SRC/tests/model_explorer/mx_check.py"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -qF -- "$1" "$T/err"; }
# check DIR RECORD [--ratio]: mx_check.py's lines in $T/vals
check() { python3 "$CHK" "$@" >"$T/vals" 2>"$T/chk.err" || { cat "$T/chk.err"; return 1; }; }
# val FILE NODE EXPECTED: the value mx_check printed is EXPECTED to 1e-9
val() {
    awk -v f="$1" -v n="$2" -v e="$3" '$1 == f && $3 == n { v = $4; found = 1 }
        END { if (!found) { print "no value for " n " in " f; exit 1 }
              d = v - e; if (d < 0) d = -d; if (d > 1e-9) { print f ": " n " = " v ", expected " e; exit 1 } }' "$T/vals"
}
no_val() { ! awk -v f="$1" -v n="$2" '$1 == f && $3 == n { found = 1 } END { exit !found }' "$T/vals"; }

# --- the sample and its ETRecord -----------------------------------------
run -q --etdump_path "$S" --etrecord_path "$R" --model_explorer_path "$T/mx"
ok "sample: exit 0" status_is 0
ok "sample: graph.json and three node-data files" \
    test -f "$T/mx/graph.json" -a -f "$T/mx/node_data_latency.json" \
    -a -f "$T/mx/node_data_share.json" -a -f "$T/mx/node_data_delegated.json"
ok "sample: no ratio file without a baseline" test ! -e "$T/mx/node_data_ratio.json"
ok "sample: Model Explorer's dataclasses take the files; node ids are the ETRecord's" \
    check "$T/mx" "$R"
ok "sample: one graph, forward, of 5 nodes" grep -qx 'graph forward 5' "$T/vals"
# native_call_convolution.out p50 0.1236 ms; its OPERATOR_CALL wrapper
# (0.1245) is not counted again
ok "latency: convolution = its kernel's p50" val node_data_latency.json convolution 0.1236
ok "latency: addmm = its kernel's p50" val node_data_latency.json addmm 0.0189
# delegated events count, not the delegate call that holds them
ok "latency: convolution_1 = its delegated event's p50" \
    val node_data_latency.json convolution_1 0.0309
ok "latency: relu = its delegated event's p50" val node_data_latency.json relu 0.01145
ok "latency: the delegate call node has no event of its own" \
    no_val node_data_latency.json executorch_call_delegate
ok "share: convolution = 100 x 0.1236 / 0.1903 (Method::execute)" \
    val node_data_share.json convolution 64.95007882291119
ok "delegated: convolution_1 is" val node_data_delegated.json convolution_1 1
ok "delegated: relu is" val node_data_delegated.json relu 1
ok "delegated: addmm is not" val node_data_delegated.json addmm 0
python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["graphs"][0]
n = {x["id"]: x for x in g["nodes"]}
a = {k["key"]: k["value"] for k in n["relu"]["attrs"]}
assert n["relu"]["label"] == "aten.relu.default", n["relu"]["label"]
assert n["relu"]["namespace"] == "block", n["relu"]["namespace"]
assert a["delegate_backend"] == "XnnpackBackend", a
assert a["debug_handle"] == "3", a
assert a["op"] == "aten.relu.default", a
assert "line 15" in a["stack_trace"], a
e = n["relu"]["incomingEdges"]
assert [x["sourceNodeId"] for x in e] == ["convolution_1"], e
assert n["convolution"]["incomingEdges"] == [], n["convolution"]
assert [x["sourceNodeId"] for x in n["addmm"]["incomingEdges"]] == ["executorch_call_delegate"]
' "$T/mx/graph.json" >"$T/py.err" 2>&1
if [ $? -eq 0 ]; then pass "graph.json: label, namespace, attrs and edges of the nodes"
else fail "graph.json: label, namespace, attrs and edges of the nodes" "$(cat "$T/py.err")"; fi

# --- the even split: a delegate call without delegated events -------------
if command -v flatc >/dev/null 2>&1; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["run_data"]:
    r["events"] = [e for e in r["events"] if not any(
        k in e.get("profile_event", {}) for k in ("delegate_debug_id_int", "delegate_debug_id_str"))]
json.dump(d, open(sys.argv[2], "w"))
' "$ET_SRC/tests/fixtures/sample.json" "$T/split.json"
    flatc --binary --size-prefixed -o "$T" "$ET_SRC/schema/etdump.fbs" "$T/split.json"
    run -q --etdump_path "$T/split.etdp" --etrecord_path "$R" --model_explorer_path "$T/split"
    ok "split: exit 0" status_is 0
    ok "split: the files check" check "$T/split" "$R"
    # DELEGATE_CALL p50 0.0438 ms over its two nodes (debug handles 2, 3)
    ok "split: convolution_1 gets half the delegate call" val node_data_latency.json convolution_1 0.0219
    ok "split: relu gets the other half" val node_data_latency.json relu 0.0219
    ok "split: both delegated" val node_data_delegated.json relu 1
else
    skip "flatc not installed: the even split"
fi

# --- the corpus ETRecord (2023 layout: nodes without names) ---------------
CREC="$CORPUS/etdump/repo_example_etrecord_v0_2023.bin"
if [ -f "$CREC" ]; then
    run -q --etdump_path "$S" --etrecord_path "$CREC" --model_explorer_path "$T/c2023"
    ok "corpus ETRecord: exit 0" status_is 0
    ok "corpus ETRecord: node ids are torch.fx's names of the 2023 nodes" check "$T/c2023" "$CREC"
    ok "corpus ETRecord: its one node" grep -qx 'graph forward 1' "$T/vals"
    ok "corpus ETRecord: aten_mul_tensor" grep -q '"id":"aten_mul_tensor"' "$T/c2023/graph.json"
else
    skip "the shared corpus is absent"
fi

# --- a record with both layouts: one graph per method ---------------------
SREC="$ET_SRC/tests/fixtures/sample_etrecord"
if [ -x "$ET_BUILD/tools/mkzip" ]; then
    "$ET_BUILD/tools/mkzip" "$T/both.etrecord" ETRECORD_V0=@ \
        edge_dialect_exported_program="$SREC/edge_dialect_exported_program.json" \
        edge_dialect_exported_program/forward="$SREC/edge_dialect_exported_program.json" \
        debug_handle_map="$SREC/debug_handle_map.json" delegate_map="$SREC/delegate_map.json" \
        export_graph_id=@0 >/dev/null
    run -q --etdump_path "$S" --etrecord_path "$T/both.etrecord" --model_explorer_path "$T/both"
    ok "both layouts: exit 0" status_is 0
    ok "both layouts: the files check" check "$T/both" "$T/both.etrecord"
    ok "both layouts: one graph, forward" test "$(grep -c '^graph ' "$T/vals")" -eq 1
else
    skip "build/tools/mkzip missing"
fi

# --- strictness and the files of the user ---------------------------------
run -q --etdump_path "$S" --model_explorer_path "$T/nore"
ok "without an ETRecord: exit 2" status_is 2
ok "without an ETRecord: names the option it needs" \
    err_has "argument --model_explorer_path: only with --etrecord_path"
ok "without an ETRecord: nothing created" test ! -e "$T/nore"
run -q --etdump_path "$S" --etrecord_path "$R" --model_explorer_path "$T/mx" \
    --tsv_path "$T/mx/graph.json"
ok "--tsv_path DIR/graph.json: exit 2" status_is 2
ok "--tsv_path DIR/graph.json: names both options" \
    err_has "arguments --tsv_path and --model_explorer_path"
run -q --etdump_path "$S" --etrecord_path "$R" --model_explorer_path "$T/mx2" --json "$T/mx2"
ok "--json DIR: exit 2" status_is 2
ok "--json DIR: nothing written" test ! -e "$T/mx2"
printf 'keep' >"$T/afile"
run -q --etdump_path "$S" --etrecord_path "$R" --model_explorer_path "$T/afile"
ok "DIR is a file: exit 1" status_is 1
ok "DIR is a file: says so" err_has "afile: not a directory"
ok "DIR is a file: the file is kept" test "$(cat "$T/afile")" = keep
run -q --etdump_path "$S" --etrecord_path "$R" --model_explorer_path "$T/no/such/dir"
ok "a missing parent: exit 1" status_is 1
ok "a missing parent: says so" err_has "cannot create it"
mkdir "$T/own"
cp "$S" "$T/own/graph.json"
run -q --etdump_path "$T/own/graph.json" --etrecord_path "$R" --model_explorer_path "$T/own"
ok "never over an input: exit 2" status_is 2
ok "never over an input: the input is intact" cmp "$T/own/graph.json" "$S"
printf 'mine' >"$T/mx/notes.txt"
printf 'old' >"$T/mx/node_data_share.json"
run -q --etdump_path "$S" --etrecord_path "$R" --model_explorer_path "$T/mx"
ok "an existing DIR: exit 0" status_is 0
ok "an existing DIR: other files kept" test "$(cat "$T/mx/notes.txt")" = mine
ok "an existing DIR: its files replaced" check "$T/mx" "$R"
ok "no temporary file left" test "$(ls "$T/mx" | wc -l)" -eq 5

# --- Lua -----------------------------------------------------------------
"$ETINSPECT" -e "
  local E = require('etinspect')
  local a = E.Inspector{etdump_path = '$FIX/diff_a.etdp', etrecord = '$R'}
  local b = E.Inspector{etdump_path = '$FIX/diff_b.etdp', etrecord = '$R'}
  b:write_model_explorer('$T/lua', {baseline = a})
  local ok1, e1 = pcall(b.write_model_explorer, b, '$T/lua2', {basline = a})
  print(ok1, e1)
  local ok2, e2 = pcall(b.write_model_explorer, b, '$T/lua3', {baseline = 'a'})
  print(ok2, e2)
  local c = E.Inspector{etdump_path = '$S'}
  local ok3, e3 = pcall(c.write_model_explorer, c, '$T/lua4')
  print(ok3, e3)
  local ok4, e4 = pcall(b.write_model_explorer, b, '$T/lua5', {baseline = c})
  print(ok4, e4)
" >"$T/lua.out" 2>"$T/lua.err"
ok "Lua: exit 0" test $? -eq 0
ok "Lua: the files and the ratio check" check "$T/lua" "$R" --ratio
# diff_a/diff_b: the convolution kernel 0.121 -> 0.09025 ms (docs/diff.md)
ok "Lua: ratio of convolution = 0.09025 / 0.121" val node_data_ratio.json convolution 0.7458677685950413
ok "Lua: an unknown option names it" grep -q "unknown option 'basline'" "$T/lua.out"
ok "Lua: a baseline that is no Inspector" grep -q "option 'baseline' must be" "$T/lua.out"
ok "Lua: no ETRecord" grep -q "Model Explorer files need an ETRecord" "$T/lua.out"
ok "Lua: a baseline without ETRecord" grep -q "the baseline needs an ETRecord" "$T/lua.out"
ok "Lua: nothing written on errors" test ! -e "$T/lua2" -a ! -e "$T/lua4" -a ! -e "$T/lua5"

# --- etinspect diff -------------------------------------------------------
run diff "$FIX/diff_a.etdp" "$FIX/diff_b.etdp" --etrecord "$R" --model_explorer_path "$T/d" \
    --format plain
ok "diff: exit 0" status_is 0
ok "diff: the files and the ratio check" check "$T/d" "$R" --ratio
ok "diff: ratio of convolution as the diff's table says (0.745868)" \
    val node_data_ratio.json convolution 0.7458677685950413
ok "diff: the table's ratio" grep -q "native_call_convolution.out .* 0.745868 " "$T/out"
run diff "$FIX/diff_a.etdp" "$FIX/diff_b.etdp" --model_explorer_path "$T/d2"
ok "diff without --etrecord: exit 2" status_is 2
ok "diff without --etrecord: says so" err_has "--model_explorer_path needs --etrecord"
run diff "$FIX/diff_a.etdp" "$FIX/diff_b.etdp" --etrecord "$R" --model_explorer_path "$T/d3" \
    --tsv_path "$T/d3/graph.json"
ok "diff: --tsv_path in the directory: exit 2" status_is 2

done_testing
