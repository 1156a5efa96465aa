/*
 * lua_cov.h - Lua line coverage for libFuzzer targets that run the Lua
 * library (fuzz_html, fuzz_cli).
 *
 * The Lua VM is not instrumented, so libFuzzer cannot see which lines of the
 * Lua library (lua/etinspect/NAME.lua) an input reaches.  et_fuzz_lua_coverage(L) sets a
 * line hook that sets one of 65,536 counters per (chunk, line) pair, in
 * the section libFuzzer reads as extra coverage counters
 * (__libfuzzer_extra_counters): an input reaching new Lua lines is kept.
 */
#ifndef ET_FUZZ_LUA_COV_H
#define ET_FUZZ_LUA_COV_H

#include <lua.h>
#include <stdint.h>

__attribute__((section("__libfuzzer_extra_counters"), used)) static uint8_t et_lua_lines[65536];

static void et_lua_line_hook(lua_State *L, lua_Debug *ar)
{
    if (!lua_getinfo(L, "S", ar))
        return;
    /* the chunk's name, not its address: a chunk loaded again (or its name
     * string collected and made anew) must count as the same lines */
    uint32_t h = 2166136261u;
    for (const char *p = ar->source; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    h ^= (uint32_t)ar->currentline * 2654435761u;
    /* reached or not: hit counts would make every loop length a new
     * feature and flood the corpus */
    et_lua_lines[(h ^ (h >> 16)) & 0xffff] = 1;
}

/* Count the lines `L` (and the coroutines it makes later do not inherit
 * hooks: only the main thread is counted) runs. */
static inline void et_fuzz_lua_coverage(lua_State *L)
{
    lua_sethook(L, et_lua_line_hook, LUA_MASKLINE, 0);
}

#endif
