#!/bin/sh
# perfetto.t - etinspect --trace_path X.pftrace / --trace_format perfetto:
# Perfetto's native TrackEvent protobuf (docs/trace.md, issue 27).  The
# traces are decoded with Perfetto's own perfetto_trace.proto
# (tests/trace/perfetto_trace.proto), compiled by protoc, and checked by
# tests/trace/perfetto_check.py (python3-protobuf) slice for slice
# against the JSON trace of the same dump and options, with the
# interning, sequence flags, track parents, flows and counters.  Without
# protoc or python3-protobuf the decoding cases are skipped, saying so;
# corpus cases are skipped when the shared corpus is absent.
. "$(dirname "$0")/lib.sh"

FIX="$ET_BUILD/fixtures"
[ -f "$FIX/sample.etdp" ] || skip_all "build/fixtures missing (run make fixtures)"
ETD="$CORPUS/etdump"
PROTO="$ET_SRC/tests/trace/perfetto_trace.proto"
CHK="$ET_SRC/tests/trace/perfetto_check.py"

run() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err"; echo $? >"$T/status"; }
status_is() { test "$(cat "$T/status")" -eq "$1"; }
err_has() { grep -q -- "$1" "$T/err"; }
first_byte() { head -c 1 "$1" | od -An -tx1 | tr -d ' \n'; }
is_pb() { test "$(first_byte "$1")" = 0a; }    # Trace.packet, field 1, length-delimited
is_json() { test "$(first_byte "$1")" = 7b; }  # {

# --- the format: extension and --trace_format ---------------------------
run -q --etdump_path "$FIX/sample.etdp" --trace_path "$T/a.pftrace"
ok ".pftrace: exit 0" status_is 0
ok ".pftrace: a protobuf, not JSON" is_pb "$T/a.pftrace"
run -q --etdump_path "$FIX/sample.etdp" --trace_path "$T/a.PERFETTO-TRACE"
ok ".perfetto-trace (any case): a protobuf" is_pb "$T/a.PERFETTO-TRACE"
run -q --etdump_path "$FIX/sample.etdp" --trace_path "$T/b.pftrace" --trace_format json
ok "--trace_format json overrides .pftrace" is_json "$T/b.pftrace"
run -q --etdump_path "$FIX/sample.etdp" --trace_path "$T/c.json" --trace_format perfetto
ok "--trace_format perfetto overrides .json" is_pb "$T/c.json"
ok "the same bytes either way" cmp "$T/a.pftrace" "$T/c.json"
run -q --etdump_path "$FIX/sample.etdp" --trace_path "$T/d.json"
ok "a .json path stays JSON" is_json "$T/d.json"
run -q --etdump_path "$FIX/sample.etdp" --trace_path "$T/e.pftrace" --trace_format proto
ok "--trace_format proto: exit 2" status_is 2
ok "--trace_format proto: names the choices" \
    err_has "argument --trace_format: invalid choice: 'proto' (choose from 'json', 'perfetto')"
ok "--trace_format proto: nothing written" test ! -e "$T/e.pftrace"
run -q --etdump_path "$FIX/sample.etdp" --trace_format perfetto
ok "--trace_format without --trace_path: exit 2" status_is 2
ok "--trace_format without --trace_path: says so" err_has "trace_format: only with --trace_path"
cp "$FIX/sample.etdp" "$T/in.pftrace"
run -q --etdump_path "$T/in.pftrace" --trace_path "$T/in.pftrace"
ok "never over the input: an error" status_is 2
ok "never over the input: the input is intact" cmp "$T/in.pftrace" "$FIX/sample.etdp"
printf 'old' >"$T/old.pftrace"
run -q --etdump_path "$FIX/sample.etdp" --trace_path "$T/old.pftrace" --trace_runs 9
ok "a failed trace keeps what was there" test "$(cat "$T/old.pftrace")" = old

# --- Lua -----------------------------------------------------------------
"$ETINSPECT" -e "
  local i = require('etinspect').Inspector{etdump_path = '$FIX/sample.etdp'}
  i:write_trace('$T/l1.pftrace')
  i:write_trace('$T/l2.pftrace', {format = 'json'})
  i:write_trace('$T/l3.json', {format = 'perfetto', runs = '1'})
  local ok1, e1 = pcall(i.write_trace, i, '$T/l4.pftrace', {format = 'xml'})
  local ok2, e2 = pcall(i.write_trace, i, '$T/l5.pftrace', {formats = 'json'})
  local ok3, e3 = pcall(i.write_trace, i, '$T/l6.pftrace', {format = 1})
  io.open('$T/lua.err', 'w'):write(tostring(e1), '\n', tostring(e2), '\n', tostring(e3), '\n'):close()
" >"$T/out" 2>"$T/err"
ok "Lua: .pftrace is a protobuf" is_pb "$T/l1.pftrace"
ok "Lua: the same bytes as the command line" cmp "$T/l1.pftrace" "$T/a.pftrace"
ok "Lua: format = 'json' overrides the extension" is_json "$T/l2.pftrace"
ok "Lua: format = 'perfetto' overrides .json" is_pb "$T/l3.json"
ok "Lua: an unknown format names the choices" \
    grep -q "Inspector:write_trace: trace format: expected json or perfetto, found 'xml'" "$T/lua.err"
ok "Lua: an unknown option key is an error" grep -q "formats" "$T/lua.err"
ok "Lua: format must be a string" grep -q "format" "$T/lua.err"
ok "Lua: nothing written for the errors" test ! -e "$T/l4.pftrace" -a ! -e "$T/l5.pftrace"

# --- decoding with Perfetto's proto ---------------------------------------
PY=
for p in $(which -a python3 2>/dev/null); do
    if "$p" -c 'import google.protobuf' 2>/dev/null; then PY=$p; break; fi
done
if ! command -v protoc >/dev/null 2>&1 || [ -z "$PY" ]; then
    skip "protoc or python3-protobuf missing (Debian: protobuf-compiler python3-protobuf): the traces are not decoded"
    done_testing
fi
mkdir "$T/pb"
cp "$PROTO" "$T/pb/"
ok "protoc compiles Perfetto's perfetto_trace.proto" \
    sh -c "cd '$T/pb' && protoc --python_out=. perfetto_trace.proto"
decode() { (cd "$T/pb" && protoc --decode=perfetto.protos.Trace perfetto_trace.proto) <"$1"; }

# both NAME [etinspect options...]: the two traces of one dump, and the check
both() {
    name=$1
    shift
    "$ETINSPECT" -q "$@" --trace_path "$T/$name.json" 2>/dev/null &&
        "$ETINSPECT" -q "$@" --trace_path "$T/$name.pftrace" 2>/dev/null
}
check() { # NAME [checker options]
    name=$1
    shift
    "$PY" "$CHK" "$T/pb" "$T/$name.pftrace" "$T/$name.json" "$@" >"$T/$name.chk" 2>&1
    rc=$?
    diag "$name: $(cat "$T/$name.chk")"
    return $rc
}
fx() { # NAME FIXTURE [checker options] -- [etinspect options]
    name=$1 f=$2
    shift 2
    copts=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do copts="$copts $1"; shift; done
    [ $# -gt 0 ] && shift
    ok "$name: both traces written" both "$name" --etdump_path "$f" "$@"
    # shellcheck disable=SC2086
    ok "$name: slice for slice as the JSON trace" check "$name" $copts
}

fx sample "$FIX/sample.etdp" --flows 6 -- --etrecord_path "$FIX/sample.etrecord"
decode "$T/sample.pftrace" >"$T/sample.txt"
ok "sample: the first packet clears the incremental state" \
    sh -c "awk '/^packet/ { n++ } n == 1' '$T/sample.txt' | grep -q 'sequence_flags: 1'"
ok "sample: later packets need it" grep -q 'sequence_flags: 2' "$T/sample.txt"
ok "sample: one sequence" test "$(grep -c 'trusted_packet_sequence_id: 1' "$T/sample.txt")" = \
    "$(grep -c '^packet {' "$T/sample.txt")"
ok "sample: event names interned" grep -q 'name: "DELEGATE_CALL"' "$T/sample.txt"
ok "sample: the track hierarchy: the dump, then its block" \
    sh -c "grep -A3 'track_descriptor' '$T/sample.txt' | grep -q 'name: \"sample.etdp\"'"
ok "sample: op types as annotation strings" \
    grep -q 'string_value: "aten.convolution.default"' "$T/sample.txt"
ok "sample: the module hierarchy" grep -qF "string_value: \"L[\\'self\\'].block\"" "$T/sample.txt"
ok "sample: flows from DELEGATE_CALL" grep -q 'flow_ids:' "$T/sample.txt"
ok "sample: ... ended by the delegated events" grep -q 'terminating_flow_ids:' "$T/sample.txt"
ok "sample: the checker can fail (other runs in the JSON)" sh -c "
    '$ETINSPECT' -q --etdump_path '$FIX/sample.etdp' --etrecord_path '$FIX/sample.etrecord' \
        --trace_path '$T/sample.json' --trace_runs 0 && ! '$PY' '$CHK' '$T/pb' '$T/sample.pftrace' '$T/sample.json'"
fx runs "$FIX/sample.etdp" -- --trace_runs 1,3 --trace_window 100:400
ok "runs and window: fewer slices" test "$(grep -c '^perfetto_check: ok: [0-9] slices' "$T/runs.chk")" = 1
fx apart "$FIX/sample.etdp" -- --trace_runs_apart
fx alloc_small "$FIX/alloc_small.etdp"
ok "allocations: counters in bytes" sh -c "decode() { (cd '$T/pb' && protoc --decode=perfetto.protos.Trace perfetto_trace.proto) < \"\$1\"; }; decode '$T/alloc_small.pftrace' | grep -q 'unit: UNIT_SIZE_BYTES'"
ok "allocations: the JSON's samples" grep -q ' [1-9][0-9]* counter samples' "$T/alloc_small.chk"
fx memory_round "$FIX/memory_round.etdp"
fx delegates "$FIX/delegates.etdp" --flows 1
fx delegate_ids "$FIX/delegate_ids.etdp" --flows 1
fx vulkan "$FIX/vulkan.etdp"
fx hostile_names "$FIX/hostile_names.etdp"
fx two_methods "$FIX/two_methods.etdp"
fx wrap "$FIX/wrap.etdp"
fx cycles_fx "$FIX/sample.etdp" --cycles -- --source_time_scale cycles --target_time_scale cycles --cycles_hz 2e9
decode "$T/cycles_fx.pftrace" >"$T/cycles.txt"
ok "cycles: a counter with unit_name cycles" grep -q 'unit_name: "cycles"' "$T/cycles.txt"
ok "cycles: without cycles_hz, an error as for JSON" sh -c "! '$ETINSPECT' -q --etdump_path '$FIX/sample.etdp' \
    --source_time_scale cycles --target_time_scale cycles --trace_path '$T/nohz.pftrace' 2>/dev/null"

# delegate metadata (Lua parser) as a JSON annotation
"$ETINSPECT" -e "
  local i = require('etinspect').Inspector{etdump_path = '$FIX/delegates.etdp',
                                           delegate_metadata_parser = 'json'}
  i:write_trace('$T/md.pftrace')" >/dev/null 2>&1
ok "Lua: delegate metadata as legacy_json_value" \
    sh -c "(cd '$T/pb' && protoc --decode=perfetto.protos.Trace perfetto_trace.proto) <'$T/md.pftrace' | grep -q 'legacy_json_value:'"

# --- corpus ------------------------------------------------------------------
if [ -f "$ETD/small.etdp" ]; then
    fx small "$ETD/small.etdp" --flows 1
    fx multiblock "$ETD/multiblock.etdp"
    fx multiblock_apart "$ETD/multiblock.etdp" -- --trace_runs_apart
    fx alloc "$ETD/alloc.etdp"
    fx real_bundled_debug "$ETD/real_bundled_debug.etdp"
    fx real_add_x10 "$ETD/real_add_x10.etdp"
    fx tutorial "$ETD/repo_docs_tutorial_etdump.etdp"
    fx edge_empty_block "$ETD/edge_empty_block.etdp"
    fx cycles "$ETD/cycles.etdp" --cycles -- --source_time_scale cycles --target_time_scale cycles --cycles_hz 1e9
    fx medium "$ETD/medium.etdp" --flows 1 -- --trace_runs 0-49,200 --trace_window 0:3000000
else
    skip "the shared corpus ($ETD) is absent: corpus traces not checked"
fi

done_testing
