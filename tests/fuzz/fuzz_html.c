/*
 * fuzz_html.c - libFuzzer target: an ETDump through the HTML report (the
 * Lua writer, lua/etinspect/html.lua), through the embedded Lua exactly as
 * a user calls it: only the public insp:write_html.
 *
 * One Lua state (luaopen_etinspect, the embedded library) serves every
 * input.  Each input is an ETDump given as etdump_data to
 * etinspect.Inspector{}; when it opens, insp:write_html(PATH) writes the
 * report into a scratch directory, with options chosen by the input's
 * length (none, {run = {block = 1, index = 1}}, a top-N, per-block views),
 * and the Inspector is closed.  Invariants, checked with __builtin_trap():
 * a refused dump raises a string naming it; an accepted dump always gives
 * a report (write_html raising on an accepted dump is a finding: its
 * message is printed), and the report is a complete HTML document.  Lua's
 * garbage is collected after every input; the Lua lines run count as
 * coverage (lua_cov.h).
 *
 * Seeds: tests/fuzz/fuzz_html.seeds; make fuzz / scripts/fuzz.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lua_cov.h"
#include "lua/etinspect.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static lua_State *L;
static char scratch[] = "/tmp/fuzz_html-XXXXXX";
static char out[sizeof scratch + 16];

/* data, out, variant -> "refused" | "ok" | raises (a finding) */
static const char chunk[] =
    "local data, out, variant = ...\n"
    "local etinspect = require('etinspect')\n"
    "local ok, insp = pcall(etinspect.Inspector, {etdump_data = data})\n"
    "if not ok then\n"
    "  if type(insp) ~= 'string' or insp == '' then error('a refusal without a message') end\n"
    "  return 'refused'\n"
    "end\n"
    "local opts = nil\n"
    "if variant == 1 then opts = {run = {block = 1, index = 1}} end\n"
    "if variant == 2 then opts = {top = 3} end\n"
    "local wok, werr = pcall(insp.write_html, insp, out, opts)\n"
    "insp:close()\n"
    "if not wok then\n"
    "  local msg = tostring(werr)\n"
    "  -- options an accepted dump may refuse: a run that is not there, an\n"
    "  -- option the writer does not have\n"
    "  if variant ~= 0 and (msg:find('opts', 1, true) or msg:find('unknown option', 1, true)) then\n"
    "    return 'refused'\n"
    "  end\n"
    "  error('write_html failed on an accepted dump: ' .. msg, 0)\n"
    "end\n"
    "local f = assert(io.open(out, 'rb'))\n"
    "local html = f:read('a')\n"
    "f:close()\n"
    "if not html:find('^<!DOCTYPE html>') or not html:find('</html>%s*$') then\n"
    "  error('not a complete HTML document', 0)\n"
    "end\n"
    "return 'ok'\n";

/* At exit: the scratch directory goes. */
static void cleanup(void)
{
    unlink(out);
    rmdir(scratch);
}

static int init(void)
{
    if (!mkdtemp(scratch))
        return -1;
    snprintf(out, sizeof out, "%s/r.html", scratch);
    atexit(cleanup);
    L = luaL_newstate();
    if (!L)
        return -1;
    luaL_openlibs(L);
    et_fuzz_lua_coverage(L); /* html.lua's lines count as coverage */
    luaL_requiref(L, "etinspect", luaopen_etinspect, 0);
    lua_pop(L, 1);
    /* warnings are a user's business, not the fuzzer's */
    if (luaL_dostring(L, "require('etinspect').on_warning(function() end)") != LUA_OK)
        return -1;
    return 0;
}

/* One input (see the top of the file).  Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!L && init() != 0)
        return 0;
    int top = lua_gettop(L);
    if (luaL_loadbuffer(L, chunk, sizeof chunk - 1, "=fuzz_html") != LUA_OK)
        __builtin_trap();
    lua_pushlstring(L, (const char *)data, size);
    lua_pushstring(L, out);
    lua_pushinteger(L, (lua_Integer)(size % 3));
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        fprintf(stderr, "fuzz_html: %s\n", lua_tostring(L, -1));
        __builtin_trap();
    }
    lua_settop(L, top);
    lua_gc(L, LUA_GCCOLLECT, 0);
    unlink(out);
    return 0;
}
