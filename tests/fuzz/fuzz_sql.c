/*
 * fuzz_sql.c - libFuzzer target for SQL over dumps in memory (issue 28
 * item 7: etinspect sql, insp:sql, dumps:sql; the virtual tables of
 * src/core/output/sqlvtab.c): an input is a choice byte and a query (its
 * text, or bytes naming tokens; tests/fuzz/sql_driver.lua says which).
 * The query runs over two fixture dumps within a small work budget and
 * must give a well-formed result or a clean "SQL: ..." error; the
 * Inspectors must be as before and ATTACH must make no file.  A broken
 * contract aborts (a finding), as do a crash, a sanitizer report, a leak
 * or a Lua panic.
 *
 * Every input runs in a fresh lua_State, the program's (et_host_lua; closed
 * after the input), in the current directory (nothing is written there
 * unless ATTACH got through, which is a finding).
 *
 *   ET_SRC       the checkout, for tests/fuzz/sql_driver.lua (default: the
 *                current directory when it starts, as scripts/fuzz.sh
 *                runs it)
 *   ET_FIXTURES  the built fixtures (default: $ET_BUILD/fixtures, else
 *                $ET_SRC/build/fixtures)
 *
 * A fixed slice runs in the test suite (tests/lua/sql_fuzz.t).
 *
 * Build and run: make fuzz FUZZ_TARGETS=fuzz_sql (scripts/fuzz.sh).
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

static char src[2048], fixtures[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    et_fuzz_src("fuzz_sql", src, sizeof src);
    const char *f = getenv("ET_FIXTURES"), *b = getenv("ET_BUILD");
    if (f && *f)
        snprintf(fixtures, sizeof fixtures, "%s", f);
    else if (b && *b)
        snprintf(fixtures, sizeof fixtures, "%s/fixtures", b);
    else
        snprintf(fixtures, sizeof fixtures, "%s/build/fixtures", src);
    return 0;
}

/* returns the finding (a string), or nothing */
static const char driver[] =
    "local data, src, fixtures = ...\n"
    "package.path = src .. '/tests/fuzz/?.lua;' .. package.path\n"
    "local D = require 'sql_driver'\n"
    "local insps, names = D.open(fixtures)\n"
    "local why = D.run(data, insps, names)\n"
    "for _, insp in ipairs(insps) do insp:close() end\n"
    "if why then return 'CONTRACT ' .. why end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) /* a query's cost grows with its length: keep runs short */
        return 0;
    lua_State *L = et_fuzz_driver_state(driver, sizeof driver - 1);
    if (!L)
        return 0;
    lua_pushlstring(L, (const char *)data, size);
    lua_pushstring(L, src);
    lua_pushstring(L, fixtures);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        /* the driver raised: the fixtures or the checkout are missing, or a
         * contract the driver does not catch - say it, and abort unless
         * something is missing */
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "fuzz_sql: %s\n", msg ? msg : "(an error that is not a string)");
        if (!(msg && (strstr(msg, "module 'sql_driver' not found") ||
                      strstr(msg, "No such file or directory"))))
            abort();
        exit(1);
    } else if (lua_isstring(L, -1)) {
        fprintf(stderr, "fuzz_sql: %s\n", lua_tostring(L, -1));
        abort();
    }
    et_host_close();
    return 0;
}
