#!/bin/sh
# rockspec.t - the LuaRocks rockspec: named and versioned as
# src/core/base/version.h says; `luarocks make --local` (Debian's luarocks, Lua
# 5.4) in a copy of the checkout installs the module into a temporary tree,
# from which a stock lua5.4 requires it with that tree's paths.
. "$(dirname "$0")/lib.sh"
VERSION=$(sed -n 's/^#define ETINSPECT_VERSION "\(.*\)"$/\1/p' "$ET_SRC/src/core/base/version.h")
[ -n "$VERSION" ] || fail "src/core/base/version.h defines ETINSPECT_VERSION"

# exactly one rockspec, for this version
set -- "$ET_SRC"/*.rockspec
if [ "$#" -eq 1 ] && [ "$(basename "$1")" = "etinspect-$VERSION-1.rockspec" ]; then
    pass "one rockspec, etinspect-$VERSION-1.rockspec"
else
    fail "one rockspec, etinspect-$VERSION-1.rockspec" "found: $*"
fi
ROCKSPEC="$ET_SRC/etinspect-$VERSION-1.rockspec"

command -v lua5.4 >/dev/null 2>&1 || skip_all "lua5.4 not installed: scripts/install-deps.sh"
fields=$(ROCKSPEC="$ROCKSPEC" lua5.4 -e 'local t = {}
assert(loadfile(os.getenv("ROCKSPEC"), "t", t))()
print(t.package, t.version, t.build.type, t.dependencies[1])' 2>&1)
ok "the rockspec says package etinspect, version $VERSION-1, make build, Lua 5.4" \
    test "$fields" = "etinspect	$VERSION-1	make	lua >= 5.4, < 5.5"

command -v luarocks >/dev/null 2>&1 || { skip "luarocks not installed: scripts/install-deps.sh"; done_testing; }
case "$ETINSPECT" in
*/asan/*)
    skip "luarocks make: run by the normal build's pass (the rock does not use the sanitizer build)"
    done_testing
    ;;
esac

# a copy of the checkout without build/ (luarocks make builds in the source
# directory), and a HOME of our own for --local's tree and luarocks' cache
SRC="$T/src"
mkdir -p "$SRC" "$T/home"
if git -C "$ET_SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$ET_SRC" ls-files -z --cached --others --exclude-standard | grep -zv '^build/' |
        (cd "$ET_SRC" && tar --null -T - -cf -) | tar -xf - -C "$SRC"
else
    (cd "$ET_SRC" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$SRC"
fi
(cd "$SRC" && HOME="$T/home" env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
    luarocks --lua-version 5.4 make --local --deps-mode=none "etinspect-$VERSION-1.rockspec") >"$T/make.log" 2>&1
status=$?
if [ "$status" -eq 0 ]; then pass "luarocks --lua-version 5.4 make --local builds and installs the rock"
else fail "luarocks --lua-version 5.4 make --local builds and installs the rock" "exit $status"; tail -n 15 "$T/make.log" | sed 's/^/#   /' >&2; fi
TREE="$T/home/.luarocks"
ok "the module is in the tree's lib/lua/5.4" test -f "$TREE/lib/lua/5.4/etinspect.so"
ok "the rock is registered (luarocks list)" \
    sh -c 'HOME="$1" luarocks --lua-version 5.4 list --local --porcelain | grep -q "^etinspect	$2-1	installed"' _ "$T/home" "$VERSION"

# a stock lua5.4 with the tree's paths (luarocks path), from a directory
# holding no etinspect.so, finds the module there
paths=$(HOME="$T/home" luarocks --lua-version 5.4 path --local)
got=$(cd "$T" && eval "$paths" && lua5.4 -e 'print(require("etinspect").version)
print(package.searchpath("etinspect", package.cpath))' 2>&1)
want="$VERSION
$TREE/lib/lua/5.4/etinspect.so"
if [ "$got" = "$want" ]; then pass "lua5.4 -e 'print(require(\"etinspect\").version)' with the tree's paths: $VERSION"
else fail "lua5.4 -e 'print(require(\"etinspect\").version)' with the tree's paths" "got: $got" "want: $want"; fi
got=$(cd "$T" && eval "$paths" && SAMPLE="$ET_BUILD/fixtures/sample.etdp" lua5.4 -e '
local i = require("etinspect").Inspector{etdump_path = os.getenv("SAMPLE")}
print(#i.event_blocks, i.event_blocks[2].name)' 2>&1)
ok "the rock's module reads the sample ETDump" test "$got" = "2	Execute"
done_testing
