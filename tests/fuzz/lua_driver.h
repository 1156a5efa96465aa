/*
 * lua_driver.h - what the libFuzzer targets that run a Lua driver
 * (fuzz_api, fuzz_frame, fuzz_query) share: where the checkout is, and a
 * fresh program state with the driver chunk loaded.
 *
 * Each target keeps its own driver chunk, its arguments and what counts as
 * a finding; only the setup is here.
 */
#ifndef ET_FUZZ_LUA_DRIVER_H
#define ET_FUZZ_LUA_DRIVER_H

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lua_cov.h"
#include "host/host.h"

static const char *et_fuzz_target = "fuzz"; /* for messages (et_fuzz_src sets it) */

/* The checkout, for tests/fuzz/NAME.lua: $ET_SRC, else the current
 * directory when the target starts (as scripts/fuzz.sh runs it), copied
 * into `src` (n bytes).  Exits 1 when neither can be had. */
static void et_fuzz_src(const char *target, char *src, size_t n)
{
    et_fuzz_target = target;
    const char *s = getenv("ET_SRC");
    char cwd[2048];
    if (!(s && *s) && !(s = getcwd(cwd, sizeof cwd))) {
        fprintf(stderr, "%s: getcwd: ", target);
        perror(NULL);
        exit(1);
    }
    snprintf(src, n, "%s", s);
}

static int et_fuzz_panic(lua_State *L)
{
    fprintf(stderr, "%s: Lua panic: %s\n", et_fuzz_target, lua_tostring(L, -1));
    abort();
}

/* The program's state (et_host_lua: the standard library as the host
 * offers it, `etinspect` in package.preload), its Lua lines counted as
 * coverage, a panic aborting, and `chunk` (len bytes, named "=TARGET")
 * loaded on its stack, to be called by the target; et_host_close() ends
 * it.  NULL when the state cannot be made (out of memory: not a finding);
 * a chunk that does not compile aborts. */
static lua_State *et_fuzz_driver_state(const char *chunk, size_t len)
{
    lua_State *L = et_host_lua();
    if (!L)
        return NULL;
    lua_atpanic(L, et_fuzz_panic);
    et_fuzz_lua_coverage(L);
    char name[64];
    snprintf(name, sizeof name, "=%s", et_fuzz_target);
    if (luaL_loadbuffer(L, chunk, len, name) != LUA_OK) {
        fprintf(stderr, "%s: %s\n", et_fuzz_target, lua_tostring(L, -1));
        abort();
    }
    return L;
}

#endif
