#!/bin/sh
# metadata_parser.t - --delegate_metadata_parser NAME|FILE.lua on the main
# command (issue 26): the parser of a plugin, of the plugin directory, of a
# FILE.lua or built in, run on every delegated event; its results in the
# --json document (delegate_debug_metadatas), the HTML report's events
# table and the trace's args; the TSV left as the reference's.  Mistakes:
# an unknown name, a legacy dump, no output that shows it (exit 2), a value
# JSON cannot hold (exit 1, nothing written), a parser that raises (one
# warning, null).  The bundled scripts show no metadata and refuse it.
# delegates.etdp (tests/fixtures/delegates.json): event '0' logged Core ML
# JSON metadata in both runs, '5' the byte 0x07, '6' VGF statistics.
. "$(dirname "$0")/lib.sh"
D="$ET_BUILD/fixtures/delegates.etdp"
S="$ET_BUILD/fixtures/stats10.etdp"
[ -f "$D" ] && [ -f "$S" ] || skip_all "build/fixtures/delegates.etdp missing (run make fixtures)"

mkdir -p "$T/cfg/etinspect/plugins" "$T/home"
printf 'etinspect.parsers.npu = function(raw, ev) return { name = ev.name, runs = #raw } end\n' >"$T/npu.lua"
printf 'return function(raw, ev) return { name = ev.name, runs = #raw } end\n' >"$T/file.lua"
printf 'etinspect.parsers.npu2 = function(raw, ev) return { name = ev.name, runs = #raw } end\n' \
    >"$T/cfg/etinspect/plugins/npu2.lua"
printf 'return function(raw, ev) error("no parser for " .. ev.name) end\n' >"$T/raises.lua"
printf 'return function(raw, ev) return { f = print } end\n' >"$T/func.lua"
printf 'return function(raw, ev) return { 0/0 } end\n' >"$T/nan.lua"
export HOME="$T/home" XDG_CONFIG_HOME="$T/cfg"

E() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err" </dev/null; echo $? >"$T/st"; }
st() { cat "$T/st"; }
# the delegate_debug_metadatas member of event NAME (first match)
md() { grep -A40 "\"name\": \"$2\"," "$1" | grep -m1 '"delegate_debug_metadatas"' | sed 's/^ *"delegate_debug_metadatas": //; s/,$//'; }

# the built-in json parser: the exact values
E --etdump_path "$D" --delegate_metadata_parser json --json "$T/json.json" --tsv_path "$T/json.tsv" -q
[ "$(st)" = 0 ] && pass "--delegate_metadata_parser json --json: exit 0" ||
    fail "--delegate_metadata_parser json --json: exit 0" "$(cat "$T/err")"
[ "$(md "$T/json.json" 0)" = '{"operatorName": "conv", "estimatedCost": 0.25, "preferredComputeUnit": "ANE", "supportedComputeUnits": ["CPU", "ANE"], "other": 1}' ] &&
    pass "event '0': the parsed Core ML metadata, in the text's order" ||
    fail "event '0': the parsed Core ML metadata" "$(md "$T/json.json" 0)"
[ "$(md "$T/json.json" 6)" = '{"schema": "executorch.vgf.neural_statistics", "schema_version": 1, "segments": [{"debug_database": {"available": true, "encoding": "base64", "data": "aGVsbG8="}, "statistics_info": {"available": false}}]}' ] &&
    pass "event '6': nested objects and arrays" || fail "event '6': nested objects and arrays" "$(md "$T/json.json" 6)"
[ "$(md "$T/json.json" 'Convolution #1')" = '[]' ] && pass "a delegated event without metadata: []" ||
    fail "a delegated event without metadata: []" "$(md "$T/json.json" 'Convolution #1')"
[ "$(md "$T/json.json" DELEGATE_CALL)" = null ] && pass "an event that is not delegated: null" ||
    fail "an event that is not delegated: null" "$(md "$T/json.json" DELEGATE_CALL)"
# '5' holds 0x07, not JSON: the parser raises; one warning naming it, null
[ "$(md "$T/json.json" 5)" = null ] && [ "$(grep -c warning "$T/err")" = 1 ] &&
    grep -q "warning: delegate metadata parser (json) failed on event '5' (event_blocks\[1\].events\[6\]): invalid JSON metadata.*; its delegate_debug_metadatas are null" "$T/err" &&
    pass "a parser that raises on one event: one warning naming it, null" ||
    fail "a parser that raises on one event: one warning naming it, null" "$(cat "$T/err")"
E --etdump_path "$D" --json "$T/plain.json" --tsv_path "$T/plain.tsv" -q
! grep -q '"delegate_debug_metadatas"' "$T/plain.json" && grep -v '"delegate_debug_metadatas"' "$T/json.json" | cmp -s - "$T/plain.json" &&
    pass "without the option the document is as before; with it, one member per event more" ||
    fail "without the option the document is as before"
cmp -s "$T/json.tsv" "$T/plain.tsv" && pass "the TSV is the reference command line's, parser or not" ||
    fail "the TSV is the reference command line's, parser or not"

# a plugin, the plugin directory, a FILE.lua: the same values
E --etdump_path "$D" --plugin "$T/npu.lua" --delegate_metadata_parser npu --json "$T/npu.json" -q
[ "$(st)" = 0 ] && [ "$(md "$T/npu.json" 0)" = '{"name": "0", "runs": 2}' ] &&
    [ "$(md "$T/npu.json" conv_node)" = '{"name": "conv_node", "runs": 0}' ] &&
    pass "--plugin FILE --delegate_metadata_parser NAME: the plugin's parser, given the event" ||
    fail "--plugin FILE --delegate_metadata_parser NAME" "$(cat "$T/err")" "$(md "$T/npu.json" 0)"
E --etdump_path "$D" --delegate_metadata_parser npu2 --json "$T/npu2.json" -q
[ "$(st)" = 0 ] && cmp -s "$T/npu.json" "$T/npu2.json" &&
    pass "a parser of \$XDG_CONFIG_HOME/etinspect/plugins, by name" ||
    fail "a parser of the plugin directory" "$(cat "$T/err")"
E --etdump_path "$D" --delegate_metadata_parser "$T/file.lua" --json "$T/file.json" -q
[ "$(st)" = 0 ] && cmp -s "$T/npu.json" "$T/file.json" && pass "a FILE.lua returning the parser" ||
    fail "a FILE.lua returning the parser" "$(cat "$T/err")"

# the trace and the HTML report show them too
E --etdump_path "$D" --delegate_metadata_parser npu2 --trace_path "$T/t.json" --html_path "$T/r.html" -q
grep -q '"delegate_metadata":{"name": "0", "runs": 2}' "$T/t.json" &&
    pass "--trace_path: the parsed metadata in the delegated slices' args" ||
    fail "--trace_path: the parsed metadata in the args"
grep -q '<th>delegate_<wbr>debug_<wbr>metadata</th>' "$T/r.html" &&
    grep -q '<td class="metadata mono">{&#39;name&#39;: &#39;conv_node&#39;, &#39;runs&#39;: 0}</td>' "$T/r.html" &&
    pass "--html_path: a delegate_debug_metadata column, the parsed value per delegated event" ||
    fail "--html_path: a delegate_debug_metadata column"
E --etdump_path "$D" --html_path "$T/plain.html" -q
! grep -q "delegate_<wbr>debug_<wbr>metadata" "$T/plain.html" && pass "... and none without a parser" ||
    fail "... and none without a parser"
"$ETINSPECT" -e "local i = etinspect.Inspector{etdump_path = '$D', delegate_metadata_parser = 'json'}
  local j = etinspect.Inspector{etdump_path = '$D'}
  print(i.delegate_metadata_parser == etinspect.parsers.json, j.delegate_metadata_parser)" >"$T/out" 2>&1
[ "$(cat "$T/out")" = "true	nil" ] && pass "insp.delegate_metadata_parser: the parser, or nil" ||
    fail "insp.delegate_metadata_parser" "$(cat "$T/out")"

# a parser that raises on every event: one warning, then how many more
E --etdump_path "$D" --delegate_metadata_parser "$T/raises.lua" --json "$T/raises.json" -q
[ "$(st)" = 0 ] && [ "$(grep -c warning "$T/err")" = 2 ] &&
    grep -q "failed on event '0' (event_blocks\[1\].events\[1\]): .*raises.lua:1: no parser for 0; its delegate_debug_metadatas are null" "$T/err" &&
    grep -q "raises.lua: it failed on 6 more delegated events too (null as well)" "$T/err" &&
    [ "$(grep -c '"delegate_debug_metadatas": null' "$T/raises.json")" = 9 ] &&
    pass "a parser that always raises: exit 0, two warnings, every value null" ||
    fail "a parser that always raises" "exit $(st)" "$(cat "$T/err")"

# mistakes
E --etdump_path "$D" --delegate_metadata_parser "$T/func.lua" --json "$T/func.json" -q
[ "$(st)" = 1 ] && [ ! -e "$T/func.json" ] &&
    grep -q "error: --delegate_metadata_parser .*func.lua: the metadata of event '0' (event_blocks\[1\].events\[1\]) cannot be represented in JSON: \[\"f\"\] is a function" "$T/err" &&
    pass "a value JSON cannot hold: exit 1 naming the event and where, nothing written" ||
    fail "a value JSON cannot hold: exit 1" "exit $(st)" "$(cat "$T/err")"
E --etdump_path "$D" --delegate_metadata_parser "$T/nan.lua" --json "$T/nan.json" -q
[ "$(st)" = 1 ] && grep -q "cannot be represented in JSON: \[1\] is not a finite number" "$T/err" &&
    pass "NaN: exit 1" || fail "NaN: exit 1" "$(cat "$T/err")"
E --etdump_path "$D" --delegate_metadata_parser nosuch --json "$T/x.json" -q
[ "$(st)" = 2 ] && grep -q "unknown delegate metadata parser 'nosuch' (known: .*json, .*npu2" "$T/err" && [ ! -e "$T/x.json" ] &&
    pass "an unknown name: exit 2, the known ones named" || fail "an unknown name: exit 2" "$(cat "$T/err")"
E --etdump_path "$D" --delegate_metadata_parser json -q
[ "$(st)" = 2 ] && grep -q "argument --delegate_metadata_parser: only with --json, --html_path or --trace_path" "$T/err" &&
    pass "no output that shows it: exit 2 (the table and the TSV are the reference's)" ||
    fail "no output that shows it: exit 2" "$(cat "$T/err")"
E --etdump_path "$D" --delegate_metadata_parser json --tsv_path "$T/y.tsv"
[ "$(st)" = 2 ] && [ ! -e "$T/y.tsv" ] && pass "... --tsv_path alone: exit 2, nothing written" ||
    fail "... --tsv_path alone: exit 2" "$(cat "$T/err")"
E --profile_results_path "$ET_SRC/tests/legacy/main.bin" --delegate_metadata_parser json --json "$T/l.json" -q
[ "$(st)" = 2 ] && grep -q "argument --delegate_metadata_parser: not allowed with --profile_results_path (a legacy dump has no delegated events)" "$T/err" &&
    pass "a legacy dump: exit 2" || fail "a legacy dump: exit 2" "$(cat "$T/err")"
E --etdump_path "$S" --delegate_metadata_parser json --json "$T/s.json" -q
[ "$(st)" = 0 ] && grep -q "warning: --delegate_metadata_parser json: the dump has no delegated events, so the parser is never called" "$T/err" &&
    pass "a dump without delegated events: a warning says the parser is never called" ||
    fail "a dump without delegated events: a warning" "$(cat "$T/err")"
E --etdump_path "$D" --plugin "$T/npu.lua" --json "$T/z.json" -q
[ "$(st)" = 2 ] && grep -q "argument --plugin: only with --delegate_time_scale_converter (or --delegate_metadata_parser" "$T/err" &&
    pass "--plugin alone: exit 2, naming both options it serves" || fail "--plugin alone: exit 2" "$(cat "$T/err")"

# the bundled scripts show no parsed metadata: they refuse a parser
for s in top_ops framework_tax delegation; do
    E $s "$D" --delegate_metadata_parser json
    [ "$(st)" = 2 ] && grep -q "^etinspect: $s: --delegate_metadata_parser: this report shows no delegate metadata, so a parser would change nothing; the main command's --json, --html_path and --trace_path show it" "$T/err" &&
        pass "$s refuses --delegate_metadata_parser: exit 2, saying where it shows" ||
        fail "$s refuses --delegate_metadata_parser" "exit $(st)" "$(cat "$T/err")"
done
E diff "$D" "$D" --delegate_metadata_parser json
[ "$(st)" = 2 ] && grep -q "diff: --delegate_metadata_parser: this report shows no delegate metadata" "$T/err" &&
    pass "diff refuses it too" || fail "diff refuses it too" "$(cat "$T/err")"

done_testing
