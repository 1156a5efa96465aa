#!/bin/sh
# program_diff.t - `etinspect diff A.pte B.pte` (Program:diff,
# progsummary.h): operators added or removed and call counts changed,
# delegate blobs grown or shrunk, planned memory and constants changed,
# methods added or removed - against what flatc's JSON of the two programs
# says (both built by flatc from tests/pte/two_methods.json and a variant
# of it made here).  Also: a program and a dump is a usage error, a
# malformed program an input error naming it, a program compared with
# itself "no change".
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || skip_all "cannot cd to ET_SRC=$ET_SRC"
command -v flatc >/dev/null 2>&1 || skip_all "flatc absent (flatbuffers-compiler)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 absent"
P=tests/pte
mkdir "$T/a" "$T/b"
cp $P/two_methods.json "$T/a/prog.json"
python3 - $P/two_methods.json "$T/b/prog.json" <<'EOT'
import json, sys
d = json.load(open(sys.argv[1]))
fwd = d["execution_plan"][0]
ins = fwd["chains"][0]["instructions"]
ins.append({"instr_args_type": "KernelCall", "instr_args": {"op_index": 1, "args": [0, 1]}})
ins.append({"instr_args_type": "KernelCall", "instr_args": {"op_index": 2, "args": [0, 1]}})
fwd["operators"].append({"name": "aten::relu", "overload": "out"})
fwd["non_const_buffer_sizes"] = [0, 96]
d["backend_delegate_data"][0]["data"] = list(range(10))
dec = d["execution_plan"][1]
dec["name"] = "prefill"
json.dump(d, open(sys.argv[2], "w"))
EOT
flatc -b -o "$T/a" $P/schema/program.fbs "$T/a/prog.json" &&
    flatc -b -o "$T/b" $P/schema/program.fbs "$T/b/prog.json" || skip_all "flatc could not build the programs"
# ground truth: flatc's JSON of the built programs
flatc --json --strict-json --raw-binary -o "$T/a" $P/schema/program.fbs -- "$T/a/prog.pte"
flatc --json --strict-json --raw-binary -o "$T/b" $P/schema/program.fbs -- "$T/b/prog.pte"
python3 - "$T/a/prog.json" "$T/b/prog.json" >"$T/want" <<'EOT'
import json, sys
A, B = (json.load(open(p)) for p in sys.argv[1:3])
def facts(d):
    out = {}
    for p in d["execution_plan"]:
        calls = {}
        ops = p.get("operators", [])
        for o in ops:
            calls.setdefault(o["name"] + "." + o.get("overload", ""), 0)
        dels = {}
        n = 0
        for c in p.get("chains", []):
            for i in c.get("instructions", []):
                n += 1
                if i["instr_args_type"] == "KernelCall":
                    o = ops[i["instr_args"].get("op_index", 0)]
                    calls[o["name"] + "." + o.get("overload", "")] += 1
        for k, x in enumerate(p.get("delegates", [])):
            dels[x["id"]] = len(d["backend_delegate_data"][x["processed"].get("index", 0)]["data"])
        out[p["name"]] = (n, calls, dels, sum(p.get("non_const_buffer_sizes", [])))
    return out
fa, fb = facts(A), facts(B)
def delta(a, b):
    return "%d -> %d (%s%d)" % (a, b, "+" if b >= a else "-", abs(b - a))
for m in fa:
    if m not in fb:
        print("method %s: removed" % m); continue
    print("method %s:" % m)
    (na, ca, da, pa), (nb, cb, db, pb) = fa[m], fb[m]
    if na != nb: print("  instructions: " + delta(na, nb))
    for op in sorted(set(ca) | set(cb)):
        if op not in cb: print("  operator %s removed (%d call%s)" % (op, ca[op], "" if ca[op] == 1 else "s"))
        elif op not in ca: print("  operator %s added (%d call%s)" % (op, cb[op], "" if cb[op] == 1 else "s"))
        elif ca[op] != cb[op]: print("  operator %s calls: %s" % (op, delta(ca[op], cb[op])))
    for be in sorted(set(da) | set(db)):
        if be in da and be in db and da[be] != db[be]:
            print("  delegate %s[0]: blob %s %s" % (be, "grew" if db[be] > da[be] else "shrank", delta(da[be], db[be]).replace(" (", " bytes (", 1)))
    if pa != pb: print("  planned memory: %s" % delta(pa, pb).replace(" (", " bytes (", 1))
for m in fb:
    if m not in fa: print("method %s: added (%d instructions)" % (m, fb[m][0]))
EOT
"$ETINSPECT" diff "$T/a/prog.pte" "$T/b/prog.pte" >"$T/out" 2>"$T/err"
ok "diff of two programs: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$T/err"
sed -e '1d' -e '/^file size: /d' -e '/^constants: /d' "$T/out" >"$T/got"
if cmp -s "$T/want" "$T/got"; then
    pass "diff: what flatc's JSON of the two programs says changed ($(wc -l <"$T/want") lines)"
else
    fail "diff: what flatc's JSON of the two programs says changed"; diff "$T/want" "$T/got" | sed "s/^/# /" >&2
fi
ok "diff: the delegate blob grew 7 -> 10 bytes" grep -qx "  delegate XnnpackBackend\[0\]: blob grew 7 -> 10 bytes (+3)" "$T/out"
"$ETINSPECT" diff $P/add.pte $P/add.pte >"$T/same" 2>&1
ok "a program against itself: no change" grep -qx "no change in methods, operators, delegates, planned memory or constants" "$T/same"
"$ETINSPECT" diff $P/add.pte $P/arduino_add.pte >"$T/c" 2>&1
ok "constants 0 -> 4 bytes (arduino_add's constant segment)" grep -qx "constants: 0 -> 4 bytes (+4)" "$T/c"
"$ETINSPECT" diff $P/add.pte "$ET_BUILD/fixtures/sample.etdp" >/dev/null 2>"$T/mixed"
rc=$?
ok "a program and a dump: exit 2, named" sh -c "test $rc -eq 2 && grep -q 'is an ExecuTorch program and' '$T/mixed'"
"$ETINSPECT" diff $P/add.pte tests/malformed/programs/pte_plan_name_absent.pte >/dev/null 2>"$T/bad"
rc=$?
ok "a malformed program: exit 1, the file named" \
    sh -c "test $rc -eq 1 && grep -q 'pte_plan_name_absent.pte: execution_plan\[0\]' '$T/bad'"
done_testing
