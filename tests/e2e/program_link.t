#!/bin/sh
# program_link.t - a program beside a dump (proglink.h, docs/programs.md
# "Linked with a dump"):
#  - the corpus's real_add_x10.etdp ran tests/pte/add.pte: its native_call
#    event gets the operator flatc's JSON of add.pte gives for the event's
#    instruction id, in the table, the TSV (op_types), --json
#    (program_instruction) and Lua (ev.program_instruction, and op_types
#    in to_dataframe);
#  - a two-method dump (tests/fixtures/two_methods.json) and a program
#    built by flatc from tests/pte/two_methods.json: blocks named Execute
#    are linked by the shape of their instructions (the delegate block to
#    forward, the four-kernel block to decode), Execute::<method> by name;
#    delegate calls show their backend;
#  - --memory shows each block's planned memory;
#  - with an ETRecord, the table and TSV are byte-identical with and
#    without a program; without a program, --json has no
#    program_instruction;
#  - a program with several dumps or a legacy dump is a usage error.
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || skip_all "cannot cd to ET_SRC=$ET_SRC"
command -v flatc >/dev/null 2>&1 || skip_all "flatc absent (flatbuffers-compiler)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 absent"
P=tests/pte
D="$ET_SHARED/corpus/etdump/real_add_x10.etdp"

if [ -f "$D" ]; then
    # ground truth: the operator of each instruction of add.pte's forward, by flatc
    flatc --json --strict-json --raw-binary -o "$T" $P/schema/program.fbs -- $P/add.pte
    "$ETINSPECT" "$D" --quiet --json "$T/plain.json" 2>/dev/null
    python3 - "$T/add.json" "$T/plain.json" >"$T/want" <<'EOT'
import json, sys
prog = json.load(open(sys.argv[1]))
plan = prog["execution_plan"][0]
ops = plan["operators"]
ins = plan["chains"][0]["instructions"]
dump = json.load(open(sys.argv[2]))
for b in dump["event_blocks"]:
    for e in b["events"]:
        iid = e.get("_instruction_id")
        name = e["name"]
        if b["name"] != "Execute" or iid is None or iid < 0 or name.startswith("Method::") or name == "OPERATOR_CALL":
            continue
        a = ins[iid]
        assert a["instr_args_type"] == "KernelCall"  # OPERATOR_CALL rows are not in the table
        o = ops[a["instr_args"].get("op_index", 0)]
        print("%s\t['%s.%s']" % (name, o["name"], o["overload"]))
EOT
    ok "flatc gives the operator of the dump's kernel call" grep -q "^native_call_add.out	\['aten::add.out'\]$" "$T/want"
    "$ETINSPECT" "$D" $P/add.pte --quiet --tsv_path "$T/l.tsv" --json "$T/l.json" 2>"$T/l.err"
    ok "dump and program: exit 0, no warning" test $? -eq 0 -a ! -s "$T/l.err"
    awk -F'\t' 'NR > 1 && $2 == "Execute" && $3 !~ /^Method::/ { print $3 "\t" $10 }' "$T/l.tsv" >"$T/got"
    if cmp -s "$T/want" "$T/got"; then pass "TSV op_types: the program's operator of each instruction"
    else fail "TSV op_types: the program's operator of each instruction" "$(diff "$T/want" "$T/got")"; fi
    head -1 "$T/l.tsv" | cut -f10 >"$T/col"
    ok "TSV: column 10 is op_types" grep -qx op_types "$T/col"
    "$ETINSPECT" "$D" --program_path $P/add.pte >"$T/table" 2>&1
    ok "table (--program_path): ['aten::add.out'] beside native_call_add.out" \
        grep -q "native_call_add.out  *│.*│ \['aten::add.out'\] *│" "$T/table"
    python3 - "$T/l.json" >"$T/j" <<'EOT'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["event_blocks"]:
    for e in b["events"]:
        pi = e["program_instruction"]
        print(b["name"], e["name"], pi and pi["method"], pi and pi["kind"], pi and pi.get("operator"))
EOT
    ok "--json: program_instruction of native_call_add.out" grep -qFx "Execute native_call_add.out forward KernelCall aten::add.out" "$T/j"
    ok "--json: framework events have none" grep -qFx "Execute Method::execute None None None" "$T/j"
    ok "--json without a program: no program_instruction key" sh -c "! grep -q program_instruction '$T/plain.json'"
    "$ETINSPECT" -e "
      local i = require('etinspect').Inspector{etdump_path = '$D', program_path = '$P/add.pte'}
      for _, b in ipairs(i.event_blocks) do for _, e in ipairs(b.events) do
        local p = e.program_instruction
        if p then print(b.name, e.name, p.method, p.id, p.kind, p.operator) end
      end end" >"$T/lua" 2>&1
    ok "Lua: ev.program_instruction" grep -qFx "Execute	native_call_add.out	forward	0	KernelCall	aten::add.out" "$T/lua"
    "$ETINSPECT" -e "
      local i = require('etinspect').Inspector{etdump_path = '$D', program_path = '$P/add.pte'}
      local f = i:to_dataframe()
      for k = 1, #f do
        local ops = f['op_types'][k]
        if #ops > 0 then print(f['event_name'][k], table.concat(ops, ',')) end
      end" >"$T/lua_frame" 2>&1
    ok "Lua: to_dataframe's op_types as the table's" grep -qFx "native_call_add.out	aten::add.out" "$T/lua_frame"
    "$ETINSPECT" "$D" $P/add.pte --memory --quiet >"$T/mem" 2>&1
    ok "--memory: the planned memory of the block's method" \
        grep -qx "  Execute: method forward plans 48 bytes (non_const_buffer_sizes \[0, 48\])" "$T/mem"
else
    skip "$D absent (the shared corpus)"
fi

# two methods, linked by name and by shape
flatc -b -o "$T" $P/schema/program.fbs $P/two_methods.json
TM="$ET_BUILD/fixtures/two_methods.etdp"
"$ETINSPECT" "$TM" "$T/two_methods.pte" --quiet --tsv_path "$T/tm.tsv" 2>"$T/tm.err"
ok "two methods: exit 0" test $? -eq 0
awk -F'\t' 'NR > 1 { print $2 "\t" $3 "\t" $10 "\t" $12 }' "$T/tm.tsv" >"$T/tm"
ok "the delegate block: a DelegateCall at instruction 1 (forward), its backend" \
    grep -qFx "Execute	DELEGATE_CALL	[]	XnnpackBackend" "$T/tm"
ok "the four-kernel block: instruction 3 is decode's argmax" \
    grep -qFx "Execute	native_call_argmax.out	['aten::argmax.out']	" "$T/tm"
ok "the four-kernel block: instruction 1 is decode's mm, not forward's delegate" \
    grep -qFx "Execute	native_call_mm.out	['aten::mm.out']	" "$T/tm"
ok "Execute::forward by name: its delegated events show the backend" \
    grep -qFx "Execute::forward	add #1	[]	XnnpackBackend" "$T/tm"
ok "Execute::decode by name" grep -qFx "Execute::decode	native_call_add.out	['aten::add.out']	" "$T/tm"
"$ETINSPECT" "$TM" "$T/two_methods.pte" --memory --quiet >"$T/tm.mem" 2>&1
ok "--memory: decode plans 160 bytes" grep -qx "  Execute::decode: method decode plans 160 bytes (non_const_buffer_sizes \[0, 128, 32\])" "$T/tm.mem"

# with an ETRecord, the reference's columns do not change
S="$ET_BUILD/fixtures/sample.etdp"
R="$ET_BUILD/fixtures/sample.etrecord"
"$ETINSPECT" "$S" "$R" --tsv_path "$T/a.tsv" >"$T/a.out" 2>/dev/null
"$ETINSPECT" "$S" "$R" "$T/two_methods.pte" --tsv_path "$T/b.tsv" >"$T/b.out" 2>/dev/null
ok "with an ETRecord: the table is byte-identical with a program" cmp "$T/a.out" "$T/b.out"
ok "with an ETRecord: the TSV is byte-identical with a program" cmp "$T/a.tsv" "$T/b.tsv"

# modes that take no program
"$ETINSPECT" "$S" "$TM" "$T/two_methods.pte" >/dev/null 2>"$T/many.err"
rc=$?
ok "several dumps and a program: exit 2, --program_path named" \
    sh -c "test $rc -eq 2 && grep -q 'argument --program_path: not allowed with several dumps' '$T/many.err'"
"$ETINSPECT" "$ET_SRC/tests/legacy/main.bin" "$T/two_methods.pte" >/dev/null 2>"$T/leg.err"
rc=$?
ok "a legacy dump and a program: exit 2" \
    sh -c "test $rc -eq 2 && grep -q 'argument --program_path: not allowed with --profile_results_path' '$T/leg.err'"
"$ETINSPECT" "$S" "$T/two_methods.pte" --program_path $P/add.pte >/dev/null 2>"$T/two.err"
ok "two programs: a usage error naming both" grep -q "two programs: $P/add.pte and $T/two_methods.pte" "$T/two.err"
done_testing
