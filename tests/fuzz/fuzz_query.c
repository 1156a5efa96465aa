/*
 * fuzz_query.c - libFuzzer target for frame:query and the Series a script
 * hands to filter and mutate (issue 24): an input is two choice bytes (the
 * frame's rows, the length of a hostile Series) and an expression in
 * pandas' query syntax (any bytes; fuzz_query.dict holds its tokens, the
 * frame's columns and the @variables).  tests/fuzz/query_driver.lua runs
 * it: the query must give a frame (the frame's columns, a subset of its
 * rows in order) or a clean "Frame:query: ..." error - no stack overflow,
 * no Lua position leaking; filter and mutate must take a Series of the
 * frame's length and refuse any other, naming both lengths.  A broken
 * contract aborts (a finding), as do a crash, a sanitizer report, a leak
 * or a Lua panic.
 *
 * Every input runs in a fresh lua_State, the program's (et_host_lua; closed
 * after the input).  Nothing is written to disk.
 *
 *   ET_SRC  the checkout, for tests/fuzz/query_driver.lua (default: the
 *           current directory when it starts, as scripts/fuzz.sh runs it)
 *
 * The Lua lines an input reaches count as coverage (lua_cov.h).  A fixed
 * slice runs in the test suite (tests/lua/query_fuzz.t).
 *
 * Build and run: make fuzz FUZZ_TARGETS=fuzz_query (scripts/fuzz.sh).
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
    et_fuzz_src("fuzz_query", src, sizeof src);
    return 0;
}

/* returns the finding (a string), or nothing */
static const char driver[] =
    "local data, src = ...\n"
    "package.path = src .. '/tests/fuzz/?.lua;' .. package.path\n"
    "local D = require 'query_driver'\n"
    "local why = D.run(data)\n"
    "if why then return 'CONTRACT ' .. why end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536) /* an expression's cost grows with its length: keep runs short */
        return 0;
    lua_State *L = et_fuzz_driver_state(driver, sizeof driver - 1);
    if (!L)
        return 0;
    lua_pushlstring(L, (const char *)data, size);
    lua_pushstring(L, src);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        /* the driver raised: a contract the driver does not catch (an error
         * escaping filter/mutate's pcall cannot happen), or a missing
         * checkout - say it, and abort unless the checkout is missing */
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "fuzz_query: %s\n", msg ? msg : "(an error that is not a string)");
        if (!(msg && strstr(msg, "module 'query_driver' not found")))
            abort();
        exit(1);
    } else if (lua_isstring(L, -1)) {
        fprintf(stderr, "fuzz_query: %s\n", lua_tostring(L, -1));
        abort();
    }
    et_host_close();
    return 0;
}
