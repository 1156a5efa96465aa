#!/bin/sh
# layers.t - the layering check (scripts/check-layers.lua): on a small
# synthetic tree of fake modules, compiled, every kind of violation is caught
# and named, in both graphs (include, symbol), and what is allowed (a
# module's own header, two files using each other, a lower layer) is not;
# then the real tree has no violations but the known ones, and the audit
# lists what it must on a tree of its own.
. "$(dirname "$0")/lib.sh"
CHECK="$ET_SRC/scripts/check-layers.lua"
command -v lua5.4 >/dev/null 2>&1 || skip_all "lua5.4 not installed: scripts/install-deps.sh"
command -v nm >/dev/null 2>&1 || skip_all "nm not installed (binutils)"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip_all "no C compiler ($CC)"

# file PATH: write stdin to $R/PATH
R="$T/tree"
file() { mkdir -p "$(dirname "$R/$1")" && cat >"$R/$1"; }

# base: a (the bottom; uses model: upward), b (a Lua header, a Lua call)
file src/core/base/a.h <<'EOF'
void a_fn(void);
EOF
file src/core/base/a.c <<'EOF'
#include "a.h"
#include "model/m.h"
void a_fn(void) { m_fn(); }
EOF
file src/core/base/b.h <<'EOF'
#include <lua.h>
EOF
file src/core/base/b.c <<'EOF'
void lua_pushnil(void *L);
void b_fn(void *L);
void b_fn(void *L) { lua_pushnil(L); }
EOF
# model: m uses base (allowed) - with a above, a cycle of the two layers
file src/core/model/m.h <<'EOF'
void m_fn(void);
EOF
file src/core/model/m.c <<'EOF'
#include "m.h"
#include "base/a.h"
void m_fn(void) { a_fn(); }
EOF
# ... and m.c is too long: 1,803 lines
yes '/* a line */' | head -n 1800 >>"$R/src/core/model/m.c"
# lua: x -> y -> z -> x, a cycle of three (through ../lua/ to check paths)
for pair in x:y y:z z:x; do
    f=${pair%:*} g=${pair#*:}
    printf 'void %s_fn(void);\n' "$f" | file "src/lua/$f.h"
    printf '#include "%s.h"\n#include "../lua/%s.h"\nvoid %s_fn(void) { %s_fn(); }\n' "$f" "$g" "$f" "$g" |
        file "src/lua/$f.c"
done
# host: p <-> q, two files using each other (allowed); p uses the binding
for pair in p:q q:p; do
    f=${pair%:*} g=${pair#*:}
    printf 'void %s_fn(void);\n' "$f" | file "src/host/$f.h"
    printf '#include "%s.h"\n#include "%s.h"\n#include "lua/x.h"\nvoid %s_fn(void) { %s_fn(); x_fn(); }\n' \
        "$f" "$g" "$f" "$g" | file "src/host/$f.c"
done
# a directory of no layer
file src/core/misc/n.c <<'EOF'
int n_fn(void);
int n_fn(void) { return 0; }
EOF

# each .c compiled from the tree's root, as the Makefile does
compiled=yes
(cd "$R" && for c in $(find src -name '*.c'); do
    mkdir -p "build/$(dirname "$c")" && "$CC" -c -Isrc/core -Isrc -o "build/${c%.c}.o" "$c" || exit 1
done) || compiled=no
[ "$compiled" = yes ] || { fail "the synthetic tree compiles"; done_testing; }

cat >"$T/want.inc" <<'EOF'
core has Lua: src/core/base/b.h includes lua.h: the core has no Lua
no layer: src/core/misc/n.c is in no layer's directory
too long: src/core/model/m.c has 1803 lines, more than 1800: split it at its seams
upward include: src/core/base/a includes src/core/model/m (model/m.h): base may not use model, a higher layer
group cycle include: layers base, model use each other
file cycle include: 3 files src/lua/x src/lua/y src/lua/z: x -> y (../lua/y.h), y -> z (../lua/z.h), z -> x (../lua/x.h)
EOF
cat "$T/want.inc" - >"$T/want" <<'EOF'
core has Lua: src/core/base/b.o uses lua_pushnil of Lua's API: the core has no Lua
upward symbol: src/core/base/a uses src/core/model/m (m_fn): base may not use model, a higher layer
group cycle symbol: layers base, model use each other
file cycle symbol: 3 files src/lua/x src/lua/y src/lua/z: x -> y (y_fn), y -> z (z_fn), z -> x (x_fn)
EOF

lua5.4 "$CHECK" "$R" >"$T/out" 2>"$T/err"
status=$?
ok "a tree with violations: exit 1" test "$status" -eq 1
if cmp -s "$T/want" "$T/out"; then
    pass "each violation, of each kind and each graph, is one line naming the files"
else
    fail "each violation, of each kind and each graph, is one line naming the files"
    diff "$T/want" "$T/out" | sed 's/^/#   /' >&2
fi
ok "the count on stderr" grep -qx 'check-layers: 10 violations of the layering (scripts/check-layers.lua)' "$T/err"

lua5.4 "$CHECK" --no-symbols "$R" >"$T/out" 2>/dev/null
ok "--no-symbols: the include graph alone" cmp -s "$T/want.inc" "$T/out"

mkdir -p "$T/empty"
lua5.4 "$CHECK" "$R" "$T/empty" >"$T/out" 2>&1
status=$?
ok "no objects to read: exit 2, not a silent pass" test "$status" -eq 2
ok "... and says why" grep -q 'no objects under .*(run make all first)' "$T/out"

# with the violations removed (a's use of model, b, n, m's length, the lua
# cycle made a line), the tree passes; b.o, left behind by the removed b.c, is not read
rm -r "$R/src/core/misc" "$R/build/src/core/misc" "$R/src/core/base/b.h" "$R/src/core/base/b.c"
printf '#include "a.h"\nvoid a_fn(void) { }\n' >"$R/src/core/base/a.c"
head -n 3 "$R/src/core/model/m.c" >"$T/m.c" && mv "$T/m.c" "$R/src/core/model/m.c"
printf '#include "z.h"\nvoid z_fn(void) { }\n' >"$R/src/lua/z.c"
(cd "$R" && "$CC" -c -Isrc/core -Isrc -o build/src/core/base/a.o src/core/base/a.c &&
    "$CC" -c -Isrc/core -Isrc -o build/src/lua/z.o src/lua/z.c)
lua5.4 "$CHECK" "$R" >"$T/out" 2>&1
status=$?
ok "the tree without its violations passes" test "$status" -eq 0
ok "... and says what it checked" \
    grep -qx 'check-layers: the layering holds (7 modules, 7 include edges, 7 symbol edges)' "$T/out"

# the audit, on the same objects and two more: s.c (d_fn used by nothing,
# s_fn and t_fn only by s.c itself, main not listed) and a unit test, the
# only user of m_fn now that a.c no longer calls it
printf 'int d_fn(void);\nint d_fn(void) { return 2; }\nint s_fn(void);\nint s_fn(void) { return 1; }\nint t_fn(void);\nint t_fn(void) { return s_fn(); }\nint main(void) { return t_fn(); }\n' |
    file src/host/s.c
printf 'void m_fn(void);\nint main(void) { m_fn(); return 0; }\n' | file tests/unit/test_m.c
mkdir -p "$R/build/tests/unit"
(cd "$R" && "$CC" -c -o build/src/host/s.o src/host/s.c && "$CC" -c -o build/tests/unit/test_m.o tests/unit/test_m.c)
lua5.4 "$CHECK" --audit "$R/build" "$R" >"$T/out" 2>&1
cat >"$T/want" <<'EOF'
dead: public functions referenced from no object (1):
  d_fn                                 src/host/s
static?: public functions referenced from their own object only (2):
  s_fn                                 src/host/s
  t_fn                                 src/host/s
tests only: public functions referenced outside their object only by tests, tools, fuzz targets (1):
  m_fn                                 src/core/model/m  <- tests/unit/test_m
EOF
if cmp -s "$T/want" "$T/out"; then
    pass "--audit: dead, could be static, used by tests only"
else
    fail "--audit: dead, could be static, used by tests only"
    diff "$T/want" "$T/out" | sed 's/^/#   /' >&2
fi

# The real tree: the layering holds, with the symbols of the build's
# objects when there are any.
if ls "$ET_BUILD"/src/core/base/*.o >/dev/null 2>&1; then
    lua5.4 "$CHECK" "$ET_SRC" "$ET_BUILD" >"$T/out" 2>"$T/err"
else
    skip "the real tree's symbols: no objects in $ET_BUILD/src (make all)"
    lua5.4 "$CHECK" --no-symbols "$ET_SRC" >"$T/out" 2>"$T/err"
fi
status=$?
if [ "$status" -eq 0 ] && grep -q "^check-layers: the layering holds " "$T/out" &&
    [ "$(grep -vc "^check-layers: the layering holds " "$T/out")" -eq 0 ]; then
    pass "the real tree: the layering holds"
else
    fail "the real tree: the layering holds" "exit $status"
    sed 's/^/#   /' "$T/out" "$T/err" >&2
fi
# docs/architecture.md draws the tree: every folder and module of src/ and
# lua/etinspect/ has its line there, and every line names something that
# exists (a module is x.c/x.h/x.cc/x.lua by its path without extension; a
# name with an extension is that file; "scripts/*" stands for the folder)
awk '
    /^## The tree, file by file/ { intree = 1; next }
    intree && /^```/ { if (inblock) exit; inblock = 1; next }
    !inblock { next }
    /^[^ ]/ { dir = $1; print "dir " dir; next }
    /^  [^ ]/ {
        line = substr($0, 3); sub(/  .*/, "", line)
        n = split(line, names, /, */)
        for (i = 1; i <= n; i++) print "entry " dir names[i]
    }
' "$ET_SRC/docs/architecture.md" >"$T/arch_tree"
: >"$T/arch_tree_bad"
while read -r kind name; do
    case $kind in
    dir) [ -d "$ET_SRC/$name" ] || echo "no folder $name" >>"$T/arch_tree_bad" ;;
    entry)
        case $name in
        */\*) [ -d "$ET_SRC/${name%/\*}" ] || echo "no folder ${name%/\*}" >>"$T/arch_tree_bad" ;;
        *.*) [ -f "$ET_SRC/$name" ] || echo "no file $name" >>"$T/arch_tree_bad" ;;
        *) [ -f "$ET_SRC/$name.c" ] || [ -f "$ET_SRC/$name.h" ] || [ -f "$ET_SRC/$name.lua" ] ||
               echo "no module $name" >>"$T/arch_tree_bad" ;;
        esac ;;
    esac
done <"$T/arch_tree"
(cd "$ET_SRC" && find src lua/etinspect -name '*.[ch]' -o -name '*.cc' -o -name '*.lua') |
    sort | while read -r f; do
    d=${f%/*}/ m=${f%.*}
    grep -qx "entry $m" "$T/arch_tree" || grep -qx "entry $f" "$T/arch_tree" ||
        grep -qx "entry $d*" "$T/arch_tree" || echo "not in the tree: $f" >>"$T/arch_tree_bad"
    grep -qx "dir $d" "$T/arch_tree" || grep -qx "entry $d*" "$T/arch_tree" ||
        echo "folder not in the tree: $d" >>"$T/arch_tree_bad"
done
if [ -s "$T/arch_tree" ] && [ ! -s "$T/arch_tree_bad" ]; then
    pass "docs/architecture.md's tree: every folder and module, nothing more"
else
    fail "docs/architecture.md's tree: every folder and module, nothing more"
    sort -u "$T/arch_tree_bad" | sed 's/^/#   /' >&2
fi

done_testing
