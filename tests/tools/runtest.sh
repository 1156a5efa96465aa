#!/bin/sh
# runtest.sh TEST: how the suite (make test, make test-asan: prove --exec)
# runs one test.  A Lua test (tests/lua/*.t, first line "#!/usr/bin/env
# etinspect") runs through `etinspect -e`, which loads it by name:
# etinspect runs a file as a script only when its name ends in .lua, so it
# would refuse `etinspect tests/lua/x.t` as a text input (docs/user-guide.md,
# "Report scripts and Lua").  Anything else (a shell script, a unit test
# binary) runs as itself.  The etinspect run is the first on PATH, as the
# shebang's would be.
case $(head -c 24 "$1") in
'#!/usr/bin/env etinspect')
    ET_LUA_TEST=$1 exec etinspect -e 'dofile(os.getenv("ET_LUA_TEST"))'
    ;;
esac
exec "$@"
