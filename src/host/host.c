/*
 * host.c - the state of one run of the etinspect program (host.h): its
 * one Lua state, made when something first needs Lua, and the services
 * the host offers the Lua side.
 */
#include "host.h"

#include <errno.h>
#include <stdint.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "files/outfile.h"
#include "inputs.h"
#include "lua/etinspect.h"

static lua_State *g_lua; /* the run's state, or NULL before the first need */

/* Lua's last resort, for an error raised outside any protected call of
 * the host.  Out of memory (pushing a string or making a table where no
 * call protects it) is reported as every other time, exit status 1
 * (exit() removes the temporary files, et_temp_track); any other error
 * there is a bug, which aborts as Lua's own handler does, the temporary
 * files removed first. */
static int panic(lua_State *L)
{
    const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (m && strcmp(m, "not enough memory") == 0) {
        fputs("etinspect: error: out of memory\n", stderr);
        exit(ET_EXIT_INPUT);
    }
    fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n",
            m ? m : "error object is not a string");
    et_temp_remove_all();
    abort();
}

/* Protected: the standard libraries as the host offers them, and
 * require "etinspect" resolving to the compiled-in module. */
static int setup(lua_State *L)
{
    luaL_openlibs(L);
    et_host_safe_loaders(L);
    et_host_safe_debug(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_etinspect);
    lua_setfield(L, -2, "etinspect");
    lua_pop(L, 2);
    return 0;
}

lua_State *et_host_lua(void)
{
    if (g_lua)
        return g_lua;
    lua_State *L = luaL_newstate();
    if (!L)
        return NULL;
    lua_atpanic(L, panic);
    /* a light C function is pushed without allocating; what setup
     * allocates fails as an error of the call, not a panic */
    lua_pushcfunction(L, setup);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lua_close(L);
        return NULL;
    }
    g_lua = L;
    return L;
}

/* Standard input, read once (et_host_stdin_kind, et_host_stdin_all). */
static struct {
    unsigned char *data;
    size_t n, cap;
    int peeked, complete;
} g_stdin;

/* Read from standard input until `want` bytes are held or it ends.
 * Returns 0, or -1 (errno set) on a read error. */
static int stdin_fill(size_t want)
{
    while (!g_stdin.complete && g_stdin.n < want) {
        if (g_stdin.cap < want + 1) {
            size_t cap = g_stdin.cap ? g_stdin.cap : 65536;
            while (cap < want + 1)
                cap *= 2;
            unsigned char *p = realloc(g_stdin.data, cap);
            if (!p) {
                errno = ENOMEM;
                return -1;
            }
            g_stdin.data = p;
            g_stdin.cap = cap;
        }
        ssize_t k = read(STDIN_FILENO, g_stdin.data + g_stdin.n, g_stdin.cap - 1 - g_stdin.n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            g_stdin.complete = 1;
        g_stdin.n += (size_t)k;
    }
    return 0;
}

et_input_kind et_host_stdin_kind(void)
{
    if (!g_stdin.peeked) {
        g_stdin.peeked = 1;
        if (stdin_fill(64) != 0)
            return ET_INPUT_MISSING;
    }
    if (g_stdin.n == 0)
        return ET_INPUT_TEXT; /* an empty script */
    return et_input_kind_of_bytes(g_stdin.data, g_stdin.n < 64 ? g_stdin.n : 64);
}

/* The budget of standard input: an ETDump file's (a FlatBuffer's limit). */
#define STDIN_MAX ((size_t)INT32_MAX)

int et_host_stdin_all(const unsigned char **data, size_t *size, char *msg, size_t msg_size)
{
    g_stdin.peeked = 1;
    while (!g_stdin.complete) {
        size_t want = g_stdin.n < 65536 ? 65536 : g_stdin.n * 2;
        if (want > STDIN_MAX + 1)
            want = STDIN_MAX + 1;
        errno = 0;
        if (stdin_fill(want) != 0) {
            snprintf(msg, msg_size, ET_STDIN_LABEL ": %s", strerror(errno));
            return -1;
        }
        if (g_stdin.n > STDIN_MAX) {
            snprintf(msg, msg_size, ET_STDIN_LABEL ": more than %zu bytes, larger than a "
                                    "FlatBuffer can be (2 GiB)", STDIN_MAX);
            return -1;
        }
    }
    if (!g_stdin.data) { /* an empty stream: an empty buffer */
        g_stdin.data = malloc(1);
        if (!g_stdin.data) {
            snprintf(msg, msg_size, "out of memory");
            return -1;
        }
        g_stdin.cap = 1;
    }
    g_stdin.data[g_stdin.n] = 0;
    *data = g_stdin.data;
    *size = g_stdin.n;
    return 0;
}

void et_host_close(void)
{
    free(g_stdin.data);
    memset(&g_stdin, 0, sizeof g_stdin);
    if (g_lua) {
        lua_State *L = g_lua;
        g_lua = NULL;
        lua_close(L);
    }
}

/* Message handler: a traceback for errors, except the usage and input
 * errors of etinspect.scripts (tables with a `usage` or `input` field),
 * which are kept as they are, and a memory error that Lua code caught and
 * raised again (Lua's own words, "not enough memory", unchanged), which
 * the report calls out of memory as it does LUA_ERRMEM. */
static int msgh(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_pushliteral(L, "usage");
        int u = lua_rawget(L, 1) == LUA_TSTRING;
        lua_pushliteral(L, "input");
        int in = lua_rawget(L, 1) == LUA_TSTRING;
        lua_pop(L, 2);
        if (u || in) {
            lua_settop(L, 1);
            return 1;
        }
    }
    const char *m = lua_tostring(L, 1);
    if (m && strcmp(m, "not enough memory") == 0) {
        lua_settop(L, 1);
        return 1;
    }
    if (!m) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        m = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, m, 1);
    return 1;
}

int et_host_pcall(lua_State *L, int nargs, int nres)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msgh);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    return rc;
}

int et_host_input_kind(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    errno = 0;
    et_input_kind k = et_input_kind_of(path);
    lua_pushstring(L, et_input_kind_name(k));
    const char *expected = luaL_optstring(L, 2, NULL);
    if (expected && k != ET_INPUT_MISSING) {
        char msg[1024];
        for (int e = 0; e <= ET_INPUT_DIRECTORY; e++)
            if (strcmp(et_input_kind_name((et_input_kind)e), expected) == 0 &&
                et_input_misplaced(path, k, (et_input_kind)e, msg, sizeof msg)) {
                lua_pushstring(L, msg);
                return 2;
            }
    }
    if (k != ET_INPUT_MISSING)
        return 1;
    lua_pushstring(L, strerror(errno ? errno : ENOENT));
    return 2;
}

int et_host_assign_inputs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    if (n < 0 || n > 64)
        return luaL_error(L, "expected 1 to 64 files, got %d", (int)n);
    const char *files[64];
    for (lua_Integer i = 0; i < n; i++) {
        /* a string of the table stays anchored there */
        if (lua_rawgeti(L, 1, i + 1) != LUA_TSTRING)
            return luaL_error(L, "file %d: expected a string, got %s", (int)i + 1,
                              luaL_typename(L, -1));
        files[i] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    const char *dumps[64], *buffers[64];
    et_inputs in = {.etdumps = dumps, .debug_buffers = buffers};
    char msg[1024];
    if (et_inputs_assign(files, (int)n, &in, msg, sizeof msg) != 0)
        return luaL_error(L, "%s", msg);
    if (in.program) /* not an Inspector input */
        return luaL_error(L, "%s: an ExecuTorch program: read it with "
                             "etinspect.parse_program(path)", in.program);
    int many = in.n_etdumps > 1 ||
               (in.n_etdumps == 1 && et_input_kind_of(dumps[0]) == ET_INPUT_DIRECTORY);
    if (!many && in.n_debug_buffers > 1)
        return luaL_error(L, "cannot tell what %s is: not an ETDump, ETRecord, BundledProgram or "
                             "legacy profiler dump, and %s is already the debug buffer",
                          buffers[1], buffers[0]);
    lua_createtable(L, 0, 7);
    if (many) { /* several dumps, one dataset (etinspect.open_many) */
        const char *const *lists[2] = {dumps, buffers};
        const int counts[2] = {in.n_etdumps, in.n_debug_buffers};
        const char *const names[2] = {"etdump_paths", "debug_buffer_paths"};
        for (int k = 0; k < 2; k++) {
            lua_createtable(L, counts[k], 0);
            for (int i = 0; i < counts[k]; i++) {
                lua_pushstring(L, lists[k][i]);
                lua_rawseti(L, -2, i + 1);
            }
            lua_setfield(L, -2, names[k]);
        }
    }
    const char *const keys[] = {"etdump_path", "profile_results_path", "etrecord",
                                "bundled_program_path", "debug_buffer_path"};
    const char *const vals[] = {in.etdump, in.profile_results, in.etrecord, in.bundled_program,
                                in.debug_buffer};
    for (int k = 0; k < 5; k++) {
        if (vals[k]) {
            lua_pushstring(L, vals[k]);
            lua_setfield(L, -2, keys[k]);
        }
    }
    return 1;
}

int et_host_terminal_size(int *rows, int *cols)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0 || ws.ws_row == 0)
        return 0;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 1;
}
