#!/bin/sh
# program.t - `etinspect PROGRAM.pte` and its --json on the real programs of
# tests/pte (README.md there), against numbers derived from flatc's JSON of
# each program over ExecuTorch's schema (tests/pte/schema/program.fbs),
# never from etinspect: per method the instruction count, the kernel calls
# by operator ("aten::add.out" and counts), the delegate calls by backend
# with blob bytes, non_const_buffer_sizes; per program the constants
# (constant_buffer bytes, the constant segment's size and offsets) and the
# segments.  Also: a .pte is told apart by content (any name), a
# BundledProgram alone is summarised by its program, options other than
# --json and --quiet are refused, and the text summary shows the numbers.
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || skip_all "cannot cd to ET_SRC=$ET_SRC"
command -v flatc >/dev/null 2>&1 || skip_all "flatc absent (flatbuffers-compiler)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 absent"
P=tests/pte

# the facts both sides give, as lines of text, from a flatc JSON ($1 = kind
# "flatc") or an etinspect JSON ("etinspect")
cat >"$T/facts.py" <<'EOT'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
out = []
if kind == "flatc":
    segs = [(s.get("offset", 0), s.get("size", 0)) for s in d.get("segments", [])]
    cb = d.get("constant_buffer", [])
    out.append("constant_buffer %d entries %d bytes" % (len(cb), sum(len(b.get("storage", [])) for b in cb)))
    cs = d.get("constant_segment")
    if cs is not None and cs.get("segment_index", 0) < len(segs):
        out.append("constant_segment %d bytes %d offsets" % (segs[cs.get("segment_index", 0)][1], len(cs.get("offsets", []))))
    out.append("segments " + " ".join("%d+%d" % s for s in segs))
    inline = d.get("backend_delegate_data", [])
    for p in d.get("execution_plan", []):
        ops = p.get("operators", [])
        dels = p.get("delegates", [])
        n = 0
        opc = [0] * len(ops)
        delc = [0] * len(dels)
        for c in p.get("chains", []):
            for ins in c.get("instructions", []):
                n += 1
                t = ins.get("instr_args_type")
                a = ins.get("instr_args", {})
                if t == "KernelCall":
                    opc[a.get("op_index", 0)] += 1
                elif t == "DelegateCall":
                    delc[a.get("delegate_index", 0)] += 1
        out.append("method %s: %d instructions" % (p["name"], n))
        for i, o in enumerate(ops):
            name = o["name"] + ("." + o["overload"] if o.get("overload") else "")
            out.append("  op %s %d" % (name, opc[i]))
        for i, x in enumerate(dels):
            ref = x.get("processed", {})
            idx = ref.get("index", 0)
            if ref.get("location", "INLINE") == "SEGMENT":
                size = segs[idx][1]
            else:
                size = len(inline[idx].get("data", []))
            out.append("  delegate %s %d bytes %d calls" % (x["id"], size, delc[i]))
        out.append("  planned %s" % p.get("non_const_buffer_sizes", []))
else:
    c = d["constants"]
    out.append("constant_buffer %d entries %d bytes" % (c["buffers"], c["buffer_bytes"]))
    if c["segment"] is not None:
        out.append("constant_segment %d bytes %d offsets" % (c["segment"]["bytes"], c["segment"]["offsets"]))
    out.append("segments " + " ".join("%d+%d" % (s["offset"], s["size"]) for s in d["segments"]))
    for m in d["methods"]:
        out.append("method %s: %d instructions" % (m["name"], m["instructions"]))
        for o in m["operators"]:
            out.append("  op %s %d" % (o["name"], o["calls"]))
        for x in m["delegates"]:
            out.append("  delegate %s %d bytes %d calls" % (x["backend"], x["bytes"], x["calls"]))
        out.append("  planned %s" % m["planned_memory"]["buffers"])
        assert m["planned_memory"]["bytes"] == sum(m["planned_memory"]["buffers"])
print("\n".join(out))
EOT

for f in add arduino_add keyword_spotting module_linear_no_constant_segment \
         stories260k_hybrid_llama_qnn; do
    flatc --json --strict-json --raw-binary -o "$T" $P/schema/program.fbs -- "$P/$f.pte" \
        >"$T/flatc.err" 2>&1 || { fail "$f: flatc reads it" "$(cat "$T/flatc.err")"; continue; }
    python3 "$T/facts.py" flatc "$T/$f.json" >"$T/$f.want" ||
        { fail "$f: facts from flatc's JSON"; continue; }
    "$ETINSPECT" "$P/$f.pte" --json "$T/$f.et.json" >"$T/$f.out" 2>"$T/$f.err"
    ok "$f: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$T/$f.err"
    python3 "$T/facts.py" etinspect "$T/$f.et.json" >"$T/$f.got" 2>"$T/$f.err2"
    if cmp -s "$T/$f.want" "$T/$f.got"; then
        pass "$f: --json agrees with flatc ($(grep -c '^method' "$T/$f.want") methods, $(grep -c '  op ' "$T/$f.want") operators, $(grep -c '  delegate ' "$T/$f.want") delegates)"
    else
        fail "$f: --json agrees with flatc" "$(diff "$T/$f.want" "$T/$f.got" | head -20)" "$(head -3 "$T/$f.err2")"
    fi
done

# the text summary shows what flatc says, in words
ok "add: the summary names the operator with its count" \
    grep -qE '^ +1  aten::add\.out$' "$T/add.out"
ok "add: planned memory 48 bytes" grep -q 'planned memory: 48 bytes (non_const_buffer_sizes \[0, 48\])' "$T/add.out"
ok "keyword_spotting: 5 quantized_depthwise_conv2d calls" \
    grep -qE '^ +5  cortex_m::quantized_depthwise_conv2d\.out$' "$T/keyword_spotting.out"
ok "keyword_spotting: constants 39216 bytes in segment 0" \
    grep -q 'constant segment 0: 39216 bytes, 64 offsets' "$T/keyword_spotting.out"
ok "qnn: 29 methods, delegate blob of 1331456 bytes in segment 1" \
    sh -c "grep -q ', 29 methods, 2 segments' '$T/stories260k_hybrid_llama_qnn.out' &&
           test \$(grep -c 'QnnBackend: blob of 1331456 bytes in segment 1' '$T/stories260k_hybrid_llama_qnn.out') -eq 2"

# told apart by content, whatever the name
cp $P/add.pte "$T/model.bin"
"$ETINSPECT" "$T/model.bin" >"$T/bin.out" 2>&1
ok "a program named model.bin is still a program" grep -q 'aten::add.out' "$T/bin.out"

# --quiet with --json: nothing on stdout, the document written
"$ETINSPECT" $P/add.pte --quiet --json "$T/q.json" >"$T/q.out" 2>&1
ok "--quiet --json: exit 0, stdout empty, JSON written" \
    sh -c "test $? -eq 0 && test ! -s '$T/q.out' && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$T/q.json'"

# an option the summary does not take is an error naming it
"$ETINSPECT" $P/add.pte --tsv_path "$T/x.tsv" >"$T/o.out" 2>"$T/o.err"
rc=$?
ok "--tsv_path with a program alone: exit 2, named" \
    sh -c "test $rc -eq 2 && grep -q 'argument --tsv_path: not allowed with a program alone' '$T/o.err' && test ! -e '$T/x.tsv'"

# --json onto the program itself is refused, the program untouched
cp $P/add.pte "$T/self.pte"
"$ETINSPECT" "$T/self.pte" --json "$T/self.pte" >/dev/null 2>"$T/self.err"
ok "--json naming the program: refused, program unchanged" \
    sh -c "test $? -ne 0 && cmp -s '$T/self.pte' $P/add.pte"

# two programs: a usage error naming both
"$ETINSPECT" $P/add.pte $P/arduino_add.pte >/dev/null 2>"$T/two.err"
ok "two programs: named in the error" grep -q "two programs: $P/add.pte and $P/arduino_add.pte" "$T/two.err"

# a BundledProgram alone: its embedded program, through the same reader
B="$ET_SHARED/corpus/etdump/repo_bundled_program.bpte"
if [ -f "$B" ]; then
    "$ETINSPECT" "$B" --json "$T/b.json" >"$T/b.out" 2>"$T/b.err"
    ok "BundledProgram alone: exit 0, its program summarised" \
        sh -c "test $? -eq 0 && grep -q '(inside the BundledProgram)' '$T/b.out' && grep -qE '^ +2  aten::add\.out$' '$T/b.out'"
    python3 - "$B" "$T/b.json" "$T/embedded.pte" >"$T/b.cmp" 2>&1 <<'EOT'
import json, struct, sys, subprocess, os, tempfile
# the embedded program's bytes, cut out of the .bpte by hand: the
# BundledProgram's root table, field 2 (program: [ubyte])
d = open(sys.argv[1], "rb").read()
root = struct.unpack_from("<I", d, 0)[0]
vt = root - struct.unpack_from("<i", d, root)[0]
off = struct.unpack_from("<H", d, vt + 4 + 2 * 2)[0]
vec = root + off + struct.unpack_from("<I", d, root + off)[0]
n = struct.unpack_from("<I", d, vec)[0]
prog = d[vec + 4: vec + 4 + n]
got = json.load(open(sys.argv[2]))
assert got["file_size"] == n, (got["file_size"], n)
open(sys.argv[3], "wb").write(prog)
print("ok", n)
EOT
    ok "BundledProgram alone: the program's size is the embedded vector's" grep -q '^ok ' "$T/b.cmp"
    flatc --json --strict-json --raw-binary -o "$T" $P/schema/program.fbs -- "$T/embedded.pte" &&
        python3 "$T/facts.py" flatc "$T/embedded.json" >"$T/b.want" &&
        python3 "$T/facts.py" etinspect "$T/b.json" >"$T/b.got"
    ok "BundledProgram alone: --json agrees with flatc on the embedded program" cmp "$T/b.want" "$T/b.got"
else
    skip "$B absent (the shared corpus)"
fi
done_testing
