/*
 * fuzz_frame.c - libFuzzer target for the Frame (issue 24): each input is
 * a sequence of choices that tests/fuzz/frame_driver.lua turns into a
 * random frame (NaN, missing cells, NUL and invalid UTF-8 text) and a
 * random sequence of verbs - filter, sort (keys, directions, missing
 * first or last), head, tail, group_by + agg (every aggregator, sort and
 * dropna on or off), size, join (every how), unique, value_counts,
 * describe, mutate, select, rename - run on etinspect's Frame (the
 * columnar engine) and on the oracle, tests/lua/frame_oracle.lua (the Lua
 * Frame of before the engine).  The two must give the same frames, cell
 * by cell, and raise together: a mismatch aborts (a finding), as do a
 * crash, a sanitizer report, a leak or a Lua panic.
 *
 * Every input runs in a fresh lua_State, the program's (et_host_lua: the
 * standard libraries as the host offers them, `etinspect` in
 * package.preload; closed after the input).  Nothing is written to disk.
 *
 *   ET_SRC  the checkout, for tests/fuzz/frame_driver.lua and
 *           tests/lua/frame_oracle.lua (default: the current directory
 *           when it starts, as scripts/fuzz.sh runs it)
 *
 * The Lua lines an input reaches (the library's, the oracle's and the
 * driver's) count as coverage (lua_cov.h).  A fixed-seed slice runs in
 * the test suite (tests/lua/frame_oracle.t).
 *
 * Build and run: make fuzz FUZZ_TARGETS=fuzz_frame (scripts/fuzz.sh); make
 * fuzz-check runs a 20-second slice.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lua_driver.h"

/* The libFuzzer entry points (declared for -Wmissing-prototypes). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char src[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    et_fuzz_src("fuzz_frame", src, sizeof src);
    return 0;
}

static const char driver[] =
    "local data, src = ...\n"
    "package.path = src .. '/tests/fuzz/?.lua;' .. src .. '/tests/lua/?.lua;' .. package.path\n"
    "local D = require 'frame_driver'\n"
    "local ok, err = pcall(D.run, D.bytes(data), {steps = 40})\n"
    "if not ok and tostring(err):find('MISMATCH', 1, true) then return err end\n"
    "if not ok then error(err, 0) end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lua_State *L = et_fuzz_driver_state(driver, sizeof driver - 1);
    if (!L)
        return 0;
    lua_pushlstring(L, (const char *)data, size);
    lua_pushstring(L, src);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        /* the driver's own error (a missing checkout): say it once */
        static int said;
        if (!said++)
            fprintf(stderr, "fuzz_frame: %s\n", lua_tostring(L, -1));
    } else if (lua_isstring(L, -1)) {
        /* the engine and the oracle disagree: a finding */
        fprintf(stderr, "fuzz_frame: %s\n", lua_tostring(L, -1));
        abort();
    }
    et_host_close();
    return 0;
}
