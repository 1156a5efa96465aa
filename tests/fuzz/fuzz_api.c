/*
 * fuzz_api.c - libFuzzer target for the Lua API (issue 12): each input is
 * a sequence of choices that tests/fuzz/api_driver.lua turns into calls of
 * the API - every method and field of every type, wrong selves, wrong and
 * extreme arguments, callbacks that close their owner, raise, yield,
 * recurse, return the wrong type or run the collector, coroutines.
 *
 * Every input runs in a fresh lua_State, the program's (et_host_lua: the
 * standard libraries as the host offers them, `etinspect` in
 * package.preload; closed after the input), in a private working
 * directory where the driver copies the fixtures before each run, so an
 * input behaves the same every time.  Lua errors are expected and ignored; a crash, a sanitizer report,
 * a leak or a Lua panic is a finding.
 *
 *   ET_SRC       the checkout, for tests/fuzz/api_driver.lua and
 *                tests/fixtures/tensors.bin (default: the current
 *                directory when it starts, as scripts/fuzz.sh runs it)
 *   ET_FIXTURES  the built fixtures (default: $ET_BUILD/fixtures, else
 *                $ET_SRC/build/fixtures)
 *
 * The Lua lines an input reaches (the library's and the driver's) count
 * as coverage (lua_cov.h).
 *
 * Build and run: make fuzz FUZZ_TARGETS=fuzz_api (scripts/fuzz.sh); make
 * fuzz-check runs a 20-second slice.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
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

static char workdir[256];
static char src[2048], fixtures[2048];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

/* Empty the working directory: every input starts from the same files. */
static void empty_workdir(void)
{
    nftw(workdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_workdir(void)
{
    empty_workdir();
    rmdir(workdir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    et_fuzz_src("fuzz_api", src, sizeof src);
    const char *f = getenv("ET_FIXTURES"), *b = getenv("ET_BUILD");
    if (f && *f)
        snprintf(fixtures, sizeof fixtures, "%s", f);
    else if (b && *b)
        snprintf(fixtures, sizeof fixtures, "%s/fixtures", b);
    else
        snprintf(fixtures, sizeof fixtures, "%s/build/fixtures", src);
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/etinspect-fuzz-api-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir) || chdir(workdir) != 0) {
        perror("fuzz_api: working directory");
        exit(1);
    }
    atexit(remove_workdir);
    return 0;
}

static const char driver[] =
    "local data, dir, fixtures, src = ...\n"
    "package.path = src .. '/tests/fuzz/?.lua;' .. package.path\n"
    "local D = require 'api_driver'\n"
    "D.run(D.bytes(data), {dir = dir, fixtures = fixtures, src = src, steps = 200})\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    empty_workdir();
    /* the program's state: the standard library as the host offers it,
     * `etinspect` in package.preload */
    lua_State *L = et_fuzz_driver_state(driver, sizeof driver - 1);
    if (!L)
        return 0;
    lua_pushlstring(L, (const char *)data, size);
    lua_pushstring(L, workdir);
    lua_pushstring(L, fixtures);
    lua_pushstring(L, src);
    if (lua_pcall(L, 4, 0, 0) != LUA_OK) {
        /* the driver catches every error of the API; one here is the
         * driver's own (a missing checkout, fixtures): say it once */
        static int said;
        if (!said++)
            fprintf(stderr, "fuzz_api: %s\n", lua_tostring(L, -1));
    }
    et_host_close();
    return 0;
}
