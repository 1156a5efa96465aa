#!/bin/sh
# corpus.t - etinspect against what the reference Inspector printed for the
# real ETDumps in ../shared/corpus (see its README):
#  - TSV and printed table byte-identical for every file the reference read;
#  - --json agrees with ref/NAME.json on every event (tests/tools/cmp_ref_json);
#  - cycles.etdp differs only by the wrap-around correction, in exactly nine
#    samples (docs/differences.md);
#  - alloc.etdp and debug.etdp, where the reference fails, load and show
#    their profiling rows.
. "$(dirname "$0")/lib.sh"
[ -d "$CORPUS/etdump" ] || skip_all "$CORPUS not found (the shared corpus is not beside the checkout)"
E="$CORPUS/etdump"
R="$CORPUS/ref"
CMP="$ET_BUILD/tools/cmp_ref_json"

same_file() { cmp -s "$1" "$2"; }

for ref in "$R"/*.tsv; do
    name=$(basename "$ref" .tsv)
    case $name in
        cycles|cycles.cycles) continue ;;          # checked below
        debug.lenient) continue ;;                 # checked below
    esac
    "$ETINSPECT" --etdump_path "$E/$name.etdp" --quiet --tsv_path "$T/$name.tsv" 2>"$T/$name.err"
    if same_file "$T/$name.tsv" "$ref"; then
        pass "$name: TSV byte-identical to the reference"
    else
        fail "$name: TSV byte-identical to the reference" "$(diff "$T/$name.tsv" "$ref" | head -n 6)"
    fi
done

for ref in "$R"/*.print.txt; do
    name=$(basename "$ref" .print.txt)
    [ "$name" = cycles ] && continue
    "$ETINSPECT" --etdump_path "$E/$name.etdp" >"$T/$name.print" 2>/dev/null
    if same_file "$T/$name.print" "$ref"; then
        pass "$name: printed table byte-identical to the reference"
    else
        fail "$name: printed table byte-identical to the reference" "$(diff "$T/$name.print" "$ref" | head -n 4)"
    fi
done

for ref in "$R"/*.json; do
    name=$(basename "$ref" .json)
    case $name in
        *.lenient|alloc|debug) continue ;;         # the reference failed on these
        cycles.cycles) args="--source_time_scale cycles --target_time_scale cycles"; in=cycles ;;
        *) args=""; in=$name ;;
    esac
    # shellcheck disable=SC2086
    "$ETINSPECT" --etdump_path "$E/$in.etdp" $args --quiet --json "$T/$name.json" 2>/dev/null
    case $name in
        cycles) ok "cycles: JSON agrees except 9 wrap-around samples, each corrected by +1 tick" \
                   "$CMP" "$T/$name.json" "$ref" --wrap 9 1000000 ;;
        cycles.cycles) ok "cycles (cycles->cycles): JSON agrees except the 9 corrected samples" \
                   "$CMP" "$T/$name.json" "$ref" --wrap 9 1 ;;
        *) ok "$name: JSON agrees with the reference on every event" "$CMP" "$T/$name.json" "$ref" ;;
    esac
done

# cycles.etdp: the TSV differs from the reference exactly in the rows of the
# three events that hold wrapped samples (relu, dsp_kernel, Method::execute)
for variant in cycles cycles.cycles; do
    if [ $variant = cycles ]; then args=""; else args="--source_time_scale cycles --target_time_scale cycles"; fi
    # shellcheck disable=SC2086
    "$ETINSPECT" --etdump_path "$E/cycles.etdp" $args --quiet --tsv_path "$T/$variant.tsv"
    diff "$T/$variant.tsv" "$R/$variant.tsv" | grep '^<' | cut -f 3 | sort >"$T/$variant.rows"
    printf 'Method::execute\ndsp_kernel\nnative_call_relu.out\n' >"$T/want.rows"
    if same_file "$T/$variant.rows" "$T/want.rows"; then
        pass "$variant: TSV differs from the reference only in the rows of the wrapped events"
    else
        fail "$variant: TSV differs from the reference only in the rows of the wrapped events" "$(cat "$T/$variant.rows")"
    fi
done
"$ETINSPECT" --etdump_path "$E/cycles.etdp" --source_time_scale cycles --target_time_scale cycles --quiet --tsv_path "$T/cc.tsv"
ok "cycles: dsp_kernel (delegated, 0xFFFFFF00 -> 0x100) lasts 512 cycles" \
    grep -q "	dsp_kernel	512.0	512.0	512.0	512.0	512.0	512.0	" "$T/cc.tsv"

# debug.etdp: the reference refuses it (differing debug data); the lenient
# reference shows what the rows should be
for buf in "" "--debug_buffer_path $E/debug.bin"; do
    # shellcheck disable=SC2086
    "$ETINSPECT" --etdump_path "$E/debug.etdp" $buf --quiet --tsv_path "$T/debug.tsv" 2>"$T/debug.err"
    st=$?
    if [ $st -eq 0 ] && same_file "$T/debug.tsv" "$R/debug.lenient.tsv"; then
        pass "debug.etdp ${buf:+with debug buffer }loads; TSV equals the lenient reference's"
    else
        fail "debug.etdp ${buf:+with debug buffer }loads; TSV equals the lenient reference's" "exit $st"
    fi
    ok "debug.etdp: warns once that merged runs logged different debug data" \
        test "$(grep -c 'different debug data' "$T/debug.err")" -eq 1
done

# alloc.etdp: the reference fails on allocation events
"$ETINSPECT" --etdump_path "$E/alloc.etdp" --quiet --tsv_path "$T/alloc.tsv" --json "$T/alloc.json" 2>"$T/alloc.err"
ok "alloc.etdp loads (the reference fails: Unable to find populated event)" test $? -eq 0
cut -f 2,3 "$T/alloc.tsv" >"$T/alloc.rows"
printf 'event_block_name\tevent_name\nDefault\tMethod::init\nDefault\tProgram::load_method\nExecute\tnative_call_convolution.out\nExecute\tnative_call_add.out\nExecute\tMethod::execute\n' >"$T/alloc.want"
ok "alloc.etdp: the profiling rows (Default: init, load_method; Execute: conv, add, execute)" \
    cmp -s "$T/alloc.rows" "$T/alloc.want"
ok "alloc.etdp: Default's allocators, 1-based" \
    grep -q '"allocators": \["method_allocator", "planned_memory_0", "temp_allocator"\]' "$T/alloc.json"
ok "alloc.etdp: the 5 GB allocation on planned_memory_0 (id 2)" \
    grep -q '{"allocator_id": 2, "allocator": "planned_memory_0", "allocation_size": 5000000000}' "$T/alloc.json"
ok "alloc.etdp: an absent allocation_size reads 0" \
    grep -q '{"allocator_id": 3, "allocator": "temp_allocator", "allocation_size": 0}' "$T/alloc.json"
ok "alloc.etdp: Execute keeps each run's allocations (256, 512, 768 on temp_allocator)" \
    test "$(grep -oE '"allocator": "temp_allocator", "allocation_size": (256|512|768)[}]' "$T/alloc.json" | wc -l)" -eq 3
ok "alloc.etdp: the events-less AllocatorsOnly run is listed with its allocators" \
    grep -q '"name": "AllocatorsOnly", "bundled_input_index": -1, "allocators": \["late_allocator_a", "late_allocator_b"\], "num_events": null' "$T/alloc.json"
ok "alloc.etdp: no warning" test ! -s "$T/alloc.err"

# large.etdp: byte-identical TSV was checked above; the printed table too
# when the reference has it (it does not for large)
done_testing
