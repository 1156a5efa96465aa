#!/bin/sh
# make-seeds.sh - write the fuzz seeds of tests/etrecord/ (see README.md).
#
# Usage: sh tests/etrecord/make-seeds.sh [MKZIP]   (default build/tools/mkzip;
#        make build/tools/mkzip first).  Run from anywhere; writes beside
#        this script.  The output depends only on this script (mkzip gives
#        every entry the same time).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkzip=${1:-$here/../../build/tools/mkzip}
[ -x "$mkzip" ] || { echo "make-seeds.sh: $mkzip: not built (make build/tools/mkzip)" >&2; exit 2; }
cd "$here"

DHM='{"forward": {"0": 1, "1": 2, "3": [3, 4, 5], "10": 7, "2": []}, "encode": {"0": 9, "4": [11]}}'
DM='{"forward": {"3": {"name": "XnnpackBackend", "delegate_map": {"0": [10, 11], "1": [11, 12], "fused_op_1_2_3": [11, 12, 15]}}}, "encode": {"4": {"name": "VulkanBackend", "delegate_map": {}}}}'
NOM='{"forward": {"3": 2, "10": 1}, "encode": {"4": 3}}'
EP='{"graph_module": {"graph": {"nodes": []}}, "schema_version": {"major": 5, "minor": 4}}'

# the current layout: two edge methods, the ATen program, a graph_map
# program, payloads, every map
current() {
    "$mkzip" "$@" ETRECORD_V0=@ \
        "exported_program=@$EP" exported_program_state_dict=@SD exported_program_constants=@C \
        exported_program_example_inputs=@ export_graph_id=@140234567890123 \
        "edge_dialect_exported_program/forward=@$EP" \
        edge_dialect_exported_program/forward_state_dict=@SD \
        edge_dialect_exported_program/forward_constants=@C \
        edge_dialect_exported_program/forward_example_inputs=@EI \
        "edge_dialect_exported_program/encode=@$EP" \
        edge_dialect_exported_program/encode_state_dict=@SD \
        "aten_dialect_output/forward=@$EP" aten_dialect_output/forward_state_dict=@SD \
        "debug_handle_map=@$DHM" "delegate_map=@$DM" "instruction_id_to_num_outs_map=@$NOM" \
        reference_outputs=@PK representative_inputs=@PK
}
current current.zip
current -d current_deflated.zip

# the 2023 layout: one edge program, state dicts only, no num-outs map
"$mkzip" single_2023.zip ETRECORD_V0=@ "aten_dialect_output/forward=@$EP" \
    aten_dialect_output/forward_state_dict=@SD "edge_dialect_exported_program=@$EP" \
    edge_dialect_exported_program_state_dict=@SD \
    'debug_handle_map=@{"forward": {"0": 1, "1": 2}}' 'delegate_map=@{}'

# JSON entries for the fuzzer to wrap: byte 0 chooses the entry
printf '0%s' "$DHM" >map_debug_handle_map.seed
printf '1%s' "$DM" >map_delegate_map.seed
printf '2%s' "$NOM" >map_num_outs.seed
printf '3%s' 140234567890123 >map_export_graph_id.seed
# several delegate calls per method, int and string identifiers, a name-less one
printf '1%s' '{"forward": {"7": {"name": "XnnpackBackend", "delegate_map": {"0": [1, 2], "op #1": [3]}}, "2": {"name": "VulkanBackend", "delegate_map": {"5": 4}}, "12": {"delegate_map": null}}, "encode": {"0": {"name": "B"}, "1": {"name": "C", "delegate_map": {}}}}' >map_delegate_map_multi.seed
# lying headers: byte 0 = 0x04 | entry (declared size 40 LE follows), 0x08
# (method byte follows), 0x40 (flagged encrypted)
printf '\044\050\000\000\000%s' '{"forward": {"0": 1}}' >lie_size_debug_handle_map.seed
printf '\051\014%s' '{}' >lie_method_delegate_map.seed
printf '\102%s' '{}' >lie_encrypted_num_outs.seed
# records with real programs, as tests/lua/etrecord.t writes them for
# small.etdp (the fuzzer links them to it): current layout stored, 2023
# layout deflated
ETINSPECT=${ETINSPECT:-$here/../../build/etinspect}
export ET_BUILD="${ET_BUILD:-$here/../../build}"
"$ETINSPECT" -e "package.path = '$here/../lua/?.lua;' .. package.path
    local c = require 'etr_cases'
    c.small('$here/small_linked.zip')
    c.small('$here/small_2023_deflated.zip', {layout = '2023', deflate = true})"
echo "make-seeds.sh: wrote $(ls "$here" | grep -c -e '\.zip$' -e '\.seed$') seeds in $here"
