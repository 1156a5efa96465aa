#!/bin/sh
# man.t - the man pages etinspect(1) and etinspect-lua(3) (man/*.scd, built
# by `make man` into build/man): they render without a groff warning, carry
# src/core/base/version.h's version, and name everything the program says it has
# -- every flag of --help, every bundled script, every REPL meta command,
# every environment variable the sources read, every public field of the
# Lua module.  When the program grows, this test says what to add where.
. "$(dirname "$0")/lib.sh"
P1="$ET_BUILD/man/etinspect.1"
P3="$ET_BUILD/man/etinspect-lua.3"
command -v man >/dev/null 2>&1 || skip_all "man (man-db) not installed: scripts/install-deps.sh"
command -v groff >/dev/null 2>&1 || skip_all "groff not installed: scripts/install-deps.sh"
[ -f "$P1" ] && [ -f "$P3" ] || skip_all "build/man not built (make man; needs scdoc)"
VERSION=$(sed -n 's/^#define ETINSPECT_VERSION "\(.*\)"$/\1/p' "$ET_SRC/src/core/base/version.h")

# names PAGE TEXT: the roff source has TEXT (scdoc writes \fBword\fR and a
# "\&" before a leading dot); grep -F on the roff, not on the rendered page,
# which may hyphenate a long flag across two lines
names() { sed 's/\\&//g' "$1" | grep -qF -- "$2"; }

for page in "$P1" "$P3"; do
    name=$(basename "$page")
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" >"$T/$name.txt" 2>"$T/$name.err"
    status=$?
    if [ "$status" -eq 0 ] && [ ! -s "$T/$name.err" ] && [ -s "$T/$name.txt" ]; then
        pass "$name renders without warnings (man --warnings -l)"
    else
        fail "$name renders without warnings (man --warnings -l)" "exit $status" "$(head -n 5 "$T/$name.err")"
    fi
    if grep -q "etinspect $VERSION" "$T/$name.txt"; then
        pass "$name carries version.h's version ($VERSION)"
    else
        fail "$name carries version.h's version ($VERSION)" "$(tail -n 1 "$T/$name.txt")"
    fi
done
ok "etinspect --version agrees with version.h" test "$("$ETINSPECT" --version)" = "etinspect $VERSION"

# every long flag of `etinspect --help`
"$ETINSPECT" --help >"$T/help.txt" 2>&1
grep -oE -- '--[a-z][a-z0-9_-]*' "$T/help.txt" | sort -u >"$T/flags"
[ -s "$T/flags" ] || fail "etinspect --help lists flags"
missing=
while read -r flag; do names "$P1" "$flag" || missing="$missing $flag"; done <"$T/flags"
if [ -z "$missing" ]; then pass "etinspect(1) names every flag of --help ($(wc -l <"$T/flags"))"
else fail "etinspect(1) names every flag of --help" "add to man/etinspect.1.scd (OPTIONS):$missing"; fi

# every bundled script
"$ETINSPECT" --list-scripts 2>&1 | awk '{ print $1 }' >"$T/scripts"
[ -s "$T/scripts" ] || fail "etinspect --list-scripts lists scripts"
missing=
while read -r s; do names "$P1" "\\fB$s\\fR" || missing="$missing $s"; done <"$T/scripts"
if [ -z "$missing" ]; then pass "etinspect(1) names every bundled script ($(wc -l <"$T/scripts"))"
else fail "etinspect(1) names every bundled script" "add to man/etinspect.1.scd (SCRIPTS):$missing"; fi

# every REPL meta command of .help
printf '.help\n' | "$ETINSPECT" -i >"$T/meta.txt" 2>&1
grep -oE '^ +\.[a-z]+' "$T/meta.txt" | tr -d ' ' | sort -u >"$T/meta"
[ -s "$T/meta" ] || fail "the REPL's .help lists meta commands" "$(head -n 3 "$T/meta.txt")"
missing=
while read -r m; do names "$P1" "\\fB$m\\fR" || missing="$missing $m"; done <"$T/meta"
if [ -z "$missing" ]; then pass "etinspect(1) names every REPL meta command ($(wc -l <"$T/meta"))"
else fail "etinspect(1) names every REPL meta command" "add to man/etinspect.1.scd (REPL):$missing"; fi

# every environment variable the program reads (C getenv, Lua os.getenv),
# but PATH, which every program reads
grep -rhoE 'getenv\("[A-Z_][A-Z0-9_]*"\)' "$ET_SRC/src" "$ET_SRC/lua" |
    sed 's/.*("\(.*\)")/\1/' | grep -vx PATH | sort -u >"$T/env"
[ -s "$T/env" ] || fail "the sources read environment variables"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$P1" >"$T/envsec"
missing=
while read -r v; do names "$T/envsec" "\\fB$v\\fR" || missing="$missing $v"; done <"$T/env"
if [ -z "$missing" ]; then pass "etinspect(1) ENVIRONMENT names every variable the sources read ($(tr '\n' ' ' <"$T/env"))"
else fail "etinspect(1) ENVIRONMENT names every variable the sources read" "add to man/etinspect.1.scd (ENVIRONMENT):$missing"; fi

# every document of docs/ in SEE ALSO
sed -n '/^\.SH SEE ALSO/,$p' "$P1" >"$T/seealso"
missing=
for doc in "$ET_SRC"/docs/*.md; do
    d=$(basename "$doc" .md)
    sed 's/\\&//g' "$T/seealso" | grep -qwF -- "$d" || missing="$missing $d"
done
if [ -z "$missing" ]; then pass "etinspect(1) SEE ALSO names every document of docs/"
else fail "etinspect(1) SEE ALSO names every document of docs/" "add to man/etinspect.1.scd (SEE ALSO):$missing"; fi

# every public field of the Lua module
"$ETINSPECT" -e 'local t = {}
for k in pairs(require("etinspect")) do if not k:find("^_") then t[#t + 1] = k end end
table.sort(t) print(table.concat(t, "\n"))' >"$T/fields" 2>&1
[ -s "$T/fields" ] || fail "the Lua module has public fields"
missing=
while read -r f; do names "$P3" "$f" || missing="$missing $f"; done <"$T/fields"
if [ -z "$missing" ]; then pass "etinspect-lua(3) names every public field of the module ($(wc -l <"$T/fields"))"
else fail "etinspect-lua(3) names every public field of the module" "add to man/etinspect-lua.3.scd (MODULE):$missing"; fi
ok "etinspect-lua(3) points to the Lua API reference" grep -q "lua-api.md" "$T/etinspect-lua.3.txt"
done_testing
