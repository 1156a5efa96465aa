#!/bin/sh
# deb.t - the Debian packaging, in the cheap form `make check` can afford
# (`make deb` builds the packages, runs lintian and tries them from a
# scratch root; CI runs it after make check):
#  - debian/changelog is at src/core/base/version.h's version;
#  - every Build-Depends package is installed by scripts/install-deps.sh
#    (CI installs only those);
#  - `make install` with the Debian layout installs exactly the files the
#    two packages' .install lists claim, each claimed once (dh_missing would
#    fail the build otherwise), with the Lua module on lua5.4's cpath.
. "$(dirname "$0")/lib.sh"
cd "$ET_SRC" || exit 1
VERSION=$(sed -n 's/^#define ETINSPECT_VERSION "\(.*\)"$/\1/p' src/core/base/version.h)
command -v dpkg-parsechangelog >/dev/null 2>&1 || skip_all "dpkg-dev not installed: scripts/install-deps.sh"

got=$(dpkg-parsechangelog -l debian/changelog -S Version)
ok "debian/changelog is at version.h's version ($VERSION)" test "$got" = "$VERSION"

# Build-Depends: names only (no versions, architectures, profiles)
awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") } on && /^[A-Za-z-]+:/ && !/^Build-Depends:/ { on = 0 }
     on { print }' debian/control | tr ',' '\n' |
    sed 's/[[(<].*//; s/^[[:space:]]*//; s/[[:space:]]*$//' | grep . | sed 's/^debhelper-compat$/debhelper/' >"$T/bdeps"
[ -s "$T/bdeps" ] || fail "debian/control has Build-Depends"
sed -n '/^PACKAGES="/,/"$/p' scripts/install-deps.sh | tr -d '"' | sed 's/^PACKAGES=//' | tr ' ' '\n' | grep . >"$T/deps"
missing=
while read -r p; do grep -qx "$p" "$T/deps" || missing="$missing $p"; done <"$T/bdeps"
if [ -z "$missing" ]; then pass "every Build-Depends package is in install-deps.sh ($(wc -l <"$T/bdeps"))"
else fail "every Build-Depends package is in install-deps.sh" "missing:$missing"; fi

case "$ETINSPECT" in
*/asan/*)
    skip "make install layout: checked by the normal build's pass"
    done_testing
    ;;
esac
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
ROOT="$T/root"
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -s install DESTDIR="$ROOT" PREFIX=/usr \
    LUA_LIBDIR="/usr/lib/$MA/lua/5.4" >"$T/install.log" 2>&1
status=$?
if [ "$status" -eq 0 ]; then pass "make install (PREFIX=/usr, multiarch Lua path) into a scratch root"
else fail "make install (PREFIX=/usr, multiarch Lua path) into a scratch root" "$(tail -n 5 "$T/install.log")"; fi
(cd "$ROOT" && find . -type f | sed 's|^\./||' | sort) >"$T/installed"

# which .install line claims each file (dh_install's patterns are globs;
# a directory claims what is under it)
: >"$T/claims"
for list in debian/*.install; do
    while read -r pat; do
        [ -n "$pat" ] || continue
        while read -r f; do
            # shellcheck disable=SC2254
            case $f in $pat | $pat/*) printf '%s\t%s\n' "$f" "$(basename "$list" .install)" >>"$T/claims" ;; esac
        done <"$T/installed"
    done <"$list"
done
unclaimed=$(cut -f1 "$T/claims" | sort | comm -23 "$T/installed" -)
twice=$(cut -f1 "$T/claims" | sort | uniq -d)
if [ -z "$unclaimed" ] && [ -z "$twice" ]; then pass "each installed file goes to exactly one package ($(wc -l <"$T/installed") files)"
else fail "each installed file goes to exactly one package" "unclaimed: $unclaimed" "claimed twice: $twice"; fi
ok "etinspect gets the program, both man pages and the completion" sh -c '
    for f in usr/bin/etinspect usr/share/man/man1/etinspect.1 usr/share/man/man3/etinspect-lua.3 \
             usr/share/bash-completion/completions/etinspect usr/share/doc/etinspect/user-guide.html \
             usr/share/doc/etinspect/examples/sample.etdp; do
        grep -qx "$f	etinspect" "$1" || { echo "$f"; exit 1; }
    done' _ "$T/claims"
ok "lua-etinspect gets the module under Debian's Lua 5.4 path" \
    grep -qx "usr/lib/$MA/lua/5.4/etinspect.so	lua-etinspect" "$T/claims"
if command -v lua5.4 >/dev/null 2>&1; then
    ok "that path is on lua5.4's package.cpath" \
        lua5.4 -e "assert(package.cpath:find('/usr/lib/$MA/lua/5.4/?.so', 1, true))"
else
    skip "lua5.4 not installed"
fi
got=$("$ROOT/usr/bin/etinspect" --etdump_path "$ROOT/usr/share/doc/etinspect/examples/sample.etdp" \
    --etrecord_path "$ROOT/usr/share/doc/etinspect/examples/sample.etrecord" -q --tsv_path "$T/s.tsv" 2>&1 &&
    sed -n 2p "$T/s.tsv" | cut -f1-3)
ok "the installed program runs the demo on the installed sample (first TSV row)" \
    test "$got" = "0	Default	Method::init"
done_testing
