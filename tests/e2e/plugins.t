#!/bin/sh
# plugins.t - a delegate time-scale converter (and metadata parser) of the
# user's, from a plugin file or a FILE.lua, used by the command line (the
# table, TSV, trace and HTML report: one model) and by the bundled scripts
# (issue 26: an NPU on its own clock showed its cycles as ns).  The sample
# dump's delegated events ("0", "fused_relu #1") last 30.8667 and 11.4333
# microseconds on average read as ns -> ms; the plugin's NPU counts them in
# units a thousand times longer.
. "$(dirname "$0")/lib.sh"
S="$ET_BUILD/fixtures/sample.etdp"
[ -f "$S" ] || skip_all "build/fixtures/sample.etdp missing (run make)"

mkdir -p "$T/cfg/etinspect/plugins" "$T/home"
printf 'etinspect.converters.npu = function(name, ticks) return ticks / 1e3 end\n' >"$T/npu.lua"
printf 'return function(name, ticks) return ticks / 1e3 end\n' >"$T/conv.lua"
printf 'etinspect.converters.npu2 = function(name, ticks) return ticks / 1e3 end\n' \
    >"$T/cfg/etinspect/plugins/npu2.lua"
printf 'etinspect.parsers.npu = function(raw, ev) return { npu = true } end\n' >"$T/parser.lua"
printf 'error("plugin broke")\n' >"$T/broken.lua"
printf 'return function(name, ticks) error("no clock for " .. name) end\n' >"$T/fails.lua"
export HOME="$T/home" XDG_CONFIG_HOME="$T/cfg"

E() { "$ETINSPECT" "$@" >"$T/out" 2>"$T/err" </dev/null; echo $? >"$T/st"; }
st() { cat "$T/st"; }

# the command line: the TSV, the trace, the HTML report
E --etdump_path "$S" --tsv_path "$T/plain.tsv" --html_path "$T/plain.html" -q
E --etdump_path "$S" --plugin "$T/npu.lua" --delegate_time_scale_converter npu \
    --tsv_path "$T/npu.tsv" --trace_path "$T/npu.json" --html_path "$T/npu.html" -q
[ "$(st)" = 0 ] && [ ! -s "$T/err" ] && pass "--plugin FILE --delegate_time_scale_converter NAME: exit 0, quiet" ||
    fail "--plugin FILE --delegate_time_scale_converter NAME: exit 0" "$(cat "$T/err")"
grep -q "^[0-9]*	Execute	0	.*	30\.8666666" "$T/npu.tsv" && grep -q "	Execute	0	.*	0\.0308666" "$T/plain.tsv" &&
    pass "the TSV: the delegated event converted (30.87 ms, not 0.0309)" ||
    fail "the TSV: the delegated event converted" "$(grep Execute "$T/npu.tsv" | head -3)"
grep -q "	Execute	native_call_convolution.out	0\.12072" "$T/npu.tsv" &&
    pass "... a CPU event left as it was" || fail "... a CPU event left as it was"
grep -q '"name":"0","cat":"delegate","ph":"X","ts":[0-9.]*,"dur":30000,' "$T/npu.json" &&
    pass "the trace: the delegated slice lasts 30 ms" || fail "the trace: the delegated slice lasts 30 ms"
grep -q "30\.866" "$T/npu.html" && ! grep -q "30\.866" "$T/plain.html" &&
    pass "the HTML report: the converted duration" || fail "the HTML report: the converted duration"
E --etdump_path "$S" --delegate_time_scale_converter "$T/conv.lua" --tsv_path "$T/file.tsv" -q
[ "$(st)" = 0 ] && cmp -s "$T/file.tsv" "$T/npu.tsv" && pass "a FILE.lua returning the converter: the same table" ||
    fail "a FILE.lua returning the converter: the same table" "$(cat "$T/err")"
E --etdump_path "$S" --delegate_time_scale_converter npu2 --tsv_path "$T/dir.tsv" -q
[ "$(st)" = 0 ] && cmp -s "$T/dir.tsv" "$T/npu.tsv" &&
    pass "a converter of \$XDG_CONFIG_HOME/etinspect/plugins, by name" ||
    fail "a converter of \$XDG_CONFIG_HOME/etinspect/plugins, by name" "$(cat "$T/err")"
E --etdump_path "$S" --delegate_time_scale_converter coreml -q
[ "$(st)" = 0 ] && pass "a built-in converter by name (coreml, made for the target unit)" ||
    fail "a built-in converter by name" "$(cat "$T/err")"

# mistakes: usage 2, input 1, a failing converter warns
E --etdump_path "$S" --delegate_time_scale_converter nosuch -q
[ "$(st)" = 2 ] && grep -q "unknown delegate time-scale converter 'nosuch' (known: coreml, cycles, npu2, qnn, scale" "$T/err" &&
    pass "an unknown converter: exit 2, the known ones named" ||
    fail "an unknown converter: exit 2" "exit $(st)" "$(cat "$T/err")"
E --etdump_path "$S" --delegate_time_scale_converter cycles -q
[ "$(st)" = 2 ] && grep -q "converters.cycles makes a converter from its arguments" "$T/err" &&
    pass "a factory by name: exit 2, how to make one" || fail "a factory by name: exit 2" "$(cat "$T/err")"
E --etdump_path "$S" --plugin "$T/npu.lua" -q
[ "$(st)" = 2 ] && grep -q "argument --plugin: only with --delegate_time_scale_converter" "$T/err" &&
    pass "--plugin alone: exit 2 (nothing typed is ignored)" || fail "--plugin alone: exit 2" "$(cat "$T/err")"
E --etdump_path "$S" --plugin "$T/broken.lua" --delegate_time_scale_converter npu -q
[ "$(st)" = 1 ] && grep -q "plugin $T/broken.lua: .*plugin broke" "$T/err" &&
    pass "a plugin that fails: exit 1, named" || fail "a plugin that fails: exit 1, named" "$(cat "$T/err")"
E --etdump_path "$S" --delegate_time_scale_converter "$T/nosuch.lua" -q
[ "$(st)" = 1 ] && grep -q "nosuch.lua" "$T/err" && pass "a missing FILE.lua: exit 1, named" ||
    fail "a missing FILE.lua: exit 1, named" "$(cat "$T/err")"
E --etdump_path "$S" --delegate_time_scale_converter "$T/fails.lua" --tsv_path "$T/fails.tsv" -q
[ "$(st)" = 0 ] && [ "$(grep -c "warning: --delegate_time_scale_converter" "$T/err")" = 1 ] &&
    grep -q "failed on delegated event '0': .*no clock for 0; the default conversion is used" "$T/err" &&
    cmp -s "$T/fails.tsv" "$T/plain.tsv" &&
    pass "a converter that fails: one warning, the default conversion" ||
    fail "a converter that fails: one warning, the default conversion" "$(cat "$T/err")"
E --profile_results_path "$ET_SRC/tests/legacy/main.bin" --delegate_time_scale_converter npu -q
[ "$(st)" = 2 ] && grep -q "argument --delegate_time_scale_converter" "$T/err" &&
    pass "a legacy dump: exit 2" || fail "a legacy dump: exit 2" "$(cat "$T/err")"

# the bundled scripts
E top_ops "$S" --format tsv
grep -q "^0	convolution	" "$T/out" && pass "top_ops without a converter: convolution first" ||
    fail "top_ops without a converter: convolution first"
E top_ops "$S" --format tsv --plugin "$T/npu.lua" --delegate_time_scale_converter npu
[ "$(st)" = 0 ] && grep -q "^0	delegate:0	1	30\.866" "$T/out" &&
    pass "top_ops with the plugin's converter: the NPU's time converted" ||
    fail "top_ops with the plugin's converter" "$(cat "$T/out" "$T/err")"
E top_ops "$S" --format tsv --delegate_time_scale_converter npu2
grep -q "^0	delegate:0	1	30\.866" "$T/out" && pass "top_ops: a plugin of the plugin directory" ||
    fail "top_ops: a plugin of the plugin directory" "$(cat "$T/err")"
for s in framework_tax delegation; do
    E $s "$S" --format tsv --delegate_time_scale_converter "$T/conv.lua"
    [ "$(st)" = 0 ] && pass "$s takes --delegate_time_scale_converter" ||
        fail "$s takes --delegate_time_scale_converter" "$(cat "$T/err")"
done
E top_ops "$S" --delegate_time_scale_converter nosuch
[ "$(st)" = 2 ] && grep -q "^etinspect: top_ops: --delegate_time_scale_converter: unknown delegate time-scale converter 'nosuch'" "$T/err" &&
    pass "top_ops: an unknown converter: exit 2, as the main command" ||
    fail "top_ops: an unknown converter: exit 2" "$(cat "$T/err")"
# a parser: top_ops shows no metadata, so it refuses one (metadata_parser.t)
E top_ops "$S" --plugin "$T/parser.lua" --delegate_metadata_parser npu --format tsv
[ "$(st)" = 2 ] && grep -q "top_ops: --delegate_metadata_parser: this report shows no delegate metadata" "$T/err" &&
    pass "top_ops refuses a parser: exit 2, saying why" || fail "top_ops refuses a parser: exit 2" "$(cat "$T/err")"

done_testing
