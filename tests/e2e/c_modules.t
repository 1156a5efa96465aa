#!/bin/sh
# c_modules.t - C modules are off unless ETINSPECT_C_MODULES=1 (safelib.c,
# 3): package.loadlib and require's C searchers raise an error saying how
# to allow them, and package.cpath never holds a relative entry
# ("./?.so"), whatever the variable says.
. "$(dirname "$0")/lib.sh"
unset ETINSPECT_C_MODULES
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip_all "no C compiler to build a module"

mkdir -p "$T/cwd" "$T/lib"
cat >"$T/evil.c" <<'C'
#include <stdio.h>
int luaopen_evil(void *L);
int luaopen_evil(void *L) { (void)L; puts("EVIL LOADED"); fflush(stdout); return 0; }
C
"$CC" -shared -fPIC -o "$T/cwd/evil.so" "$T/evil.c" || skip_all "cannot build a shared object"
cp "$T/cwd/evil.so" "$T/lib/evil.so"

# require "evil" in a directory holding evil.so: not loaded, off or on
(cd "$T/cwd" && "$ETINSPECT" -e 'print(pcall(require, "evil"))') >"$T/req.out" 2>&1
if grep -q "EVIL LOADED" "$T/req.out"; then
    fail "require does not load ./evil.so from the current directory" "$(cat "$T/req.out")"
else
    pass "require does not load ./evil.so from the current directory"
fi
(cd "$T/cwd" && ETINSPECT_C_MODULES=1 "$ETINSPECT" -e 'print(pcall(require, "evil"))') >"$T/req1.out" 2>&1
if grep -q "EVIL LOADED" "$T/req1.out"; then
    fail "nor with C modules allowed: ./?.so is never searched" "$(cat "$T/req1.out")"
else
    pass "nor with C modules allowed: ./?.so is never searched"
fi
out=$("$ETINSPECT" -e 'io.write(package.cpath)')
case ";$out;" in
*";./"*) fail "package.cpath has no relative entry" "$out" ;;
*) pass "package.cpath has no relative entry" ;;
esac
out=$(LUA_CPATH_5_4="./?.so;lib/?.so;/abs/?.so" "$ETINSPECT" -e 'io.write(package.cpath)')
[ "$out" = "/abs/?.so" ] && pass "relative entries of LUA_CPATH_5_4 are dropped" ||
    fail "relative entries of LUA_CPATH_5_4 are dropped" "$out"

# loadlib: off by default, with a message saying how to allow it
"$ETINSPECT" -e 'package.loadlib("libc.so.6", "free")()' >"$T/ll.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "C modules are off.*ETINSPECT_C_MODULES=1" "$T/ll.out" &&
    pass "package.loadlib raises (exit 1) and says how to allow C modules" ||
    fail "package.loadlib raises (exit 1) and says how to allow C modules" "exit $rc" "$(cat "$T/ll.out")"

# a C module on an absolute cpath entry: refused, naming the file, unless allowed
"$ETINSPECT" -e "package.cpath = '$T/lib/?.so'; require 'evil'" >"$T/abs.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && ! grep -q "EVIL LOADED" "$T/abs.out" &&
    grep -q "module 'evil' is a C module ($T/lib/evil.so): C modules are off" "$T/abs.out"; then
    pass "require of a C module on package.cpath: refused, naming the file"
else
    fail "require of a C module on package.cpath: refused, naming the file" "exit $rc" "$(cat "$T/abs.out")"
fi
"$ETINSPECT" -e "package.cpath = '$T/lib/?.so'; require 'evil.sub'" >"$T/aio.out" 2>&1
grep -q "module 'evil.sub' is a C module ($T/lib/evil.so)" "$T/aio.out" &&
    pass "the all-in-one searcher (evil.sub from evil.so) is refused too" ||
    fail "the all-in-one searcher (evil.sub from evil.so) is refused too" "$(cat "$T/aio.out")"
out=$(ETINSPECT_C_MODULES=1 "$ETINSPECT" -e "package.cpath = '$T/lib/?.so'; require 'evil'" 2>&1)
[ "$out" = "EVIL LOADED" ] && pass "ETINSPECT_C_MODULES=1 allows C modules" ||
    fail "ETINSPECT_C_MODULES=1 allows C modules" "$out"
out=$(ETINSPECT_C_MODULES=yes "$ETINSPECT" -e "package.cpath = '$T/lib/?.so'; require 'evil'" 2>&1)
case "$out" in
*"C modules are off"*) pass "only ETINSPECT_C_MODULES=1 allows them (yes does not)" ;;
*) fail "only ETINSPECT_C_MODULES=1 allows them (yes does not)" "$out" ;;
esac

# a missing module still says where it looked
out=$("$ETINSPECT" -e 'require "no_such_module_x"' 2>&1)
case "$out" in
*"module 'no_such_module_x' not found"*"no_such_module_x.so"*) pass "a missing module still lists the files tried" ;;
*) fail "a missing module still lists the files tried" "$out" ;;
esac

# a script and the REPL have the same rules
printf 'print(pcall(package.loadlib, "libc.so.6", "free"))\n' >"$T/s.lua"
"$ETINSPECT" "$T/s.lua" 2>&1 | grep -q "false.*C modules are off" &&
    pass "a script: loadlib refused" || fail "a script: loadlib refused"
printf 'package.loadlib("libc.so.6", "free")()\nprint("still here")\n' | "$ETINSPECT" -i >"$T/repl.out" 2>&1
grep -q "C modules are off" "$T/repl.out" && grep -q "still here" "$T/repl.out" &&
    pass "the REPL: loadlib refused, the session goes on" ||
    fail "the REPL: loadlib refused, the session goes on" "$(cat "$T/repl.out")"
done_testing
