#!/bin/sh
# program_malformed.t - malformed ExecuTorch programs (tests/malformed/programs/
# pte_*.pte, made by tests/tools/mkmalformed_pte.py from tests/pte):
#  - each one read by etinspect.parse_program raises an error that names
#    the file and holds the text of NAME.expect;
#  - each one still told a program by content (ET12 at byte 4) is refused
#    by `etinspect NAME.pte` with exit 1, nothing on stdout, the same text;
#  - the generator still makes the same bytes and expectations.
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || skip_all "cannot cd to ET_SRC=$ET_SRC"

count=0
for f in tests/malformed/programs/pte_*.pte; do
    [ -f "$f" ] || continue
    count=$((count + 1))
    want=$(cat "${f%.pte}.expect")
    "$ETINSPECT" -e "local ok, e = pcall(require('etinspect').parse_program, '$f')
                     io.write(ok and 'accepted' or e)" >"$T/lua" 2>&1
    if grep -qF -- "$f: " "$T/lua" && grep -qF -- "$want" "$T/lua"; then
        pass "$f: parse_program raises \"$want\""
    else
        fail "$f: parse_program raises \"$want\"" "$(cat "$T/lua")"
    fi
    if [ "$(dd if="$f" bs=1 skip=4 count=4 2>/dev/null)" = ET12 ]; then
        "$ETINSPECT" "$f" >"$T/out" 2>"$T/err"
        rc=$?
        if [ $rc -eq 1 ] && [ ! -s "$T/out" ] && grep -qF -- "etinspect: error: $f: " "$T/err" &&
            grep -qF -- "$want" "$T/err"; then
            pass "$f: etinspect exits 1 naming the file"
        else
            fail "$f: etinspect exits 1 naming the file" "exit $rc" "$(cat "$T/err")"
        fi
    fi
done
ok "14 or more malformed programs ($count)" test "$count" -ge 14

if command -v python3 >/dev/null 2>&1; then
    mkdir "$T/regen"
    python3 tests/tools/mkmalformed_pte.py "$T/regen" tests/pte
    same=yes
    for f in "$T"/regen/*; do
        cmp -s "$f" "tests/malformed/programs/$(basename "$f")" || { same=no; diag "differs: $(basename "$f")"; }
    done
    ok "mkmalformed_pte.py makes the same files" test $same = yes
else
    skip "python3 absent"
fi
done_testing
