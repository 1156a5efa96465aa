/*
 * safelib.c - the standard library as the host offers it: nothing a
 * script calls may crash etinspect or reach the state its C code owns.
 *
 * 1. Source only, never binary chunks.  Lua does not check a binary chunk
 *    (precompiled bytecode) before running it: a damaged or crafted one
 *    reads and writes outside the VM's memory and crashes the process (the
 *    Lua 5.4 manual, section 4.7 "load").  So every way the host offers to
 *    load code takes text only:
 *
 *      load(chunk [, chunkname [, mode [, env]]])   mode nil, "t" or "bt":
 *      loadfile([filename [, mode [, env]]])        text only; "b" raises
 *      dofile([filename])
 *      require(name)                                the Lua file searcher
 *                                                   (package.searchers[2])
 *
 *    plus the host's own chunks (scripts, -e, the REPL), which it loads
 *    with mode "t" itself.  A binary chunk gets Lua's own error, "attempt
 *    to load a binary chunk (mode is 't')", as a result of load/loadfile
 *    (nil, message) or raised by dofile/require.  A file is read whole
 *    first (et_read_regular: opened without blocking, a regular file only)
 *    and package.searchpath opens without blocking, so a FIFO named as a
 *    script or a module is refused ("cannot open PATH: not a regular
 *    file") rather than waited for.
 *
 * 2. A debug library that cannot change etinspect's internal state.  The
 *    standard one bypasses every protection the binding relies on (the
 *    manual, section 6.10: it "can compromise otherwise secure code"):
 *    swapping a userdata's metatable or user value, a registry entry, or a
 *    C function's upvalue or stack slot confuses one type for another and
 *    crashed etinspect.  So:
 *
 *      debug.getregistry()          a read-only view of the registry,
 *                                   without the protected metatables
 *      debug.setmetatable(v, mt)    raises when v is a userdata
 *      debug.setuservalue(u, ...)   raises
 *      debug.setupvalue(f, ...),    raise when f (f1, f2) is a C function
 *        upvaluejoin(f1, n1, f2, n2),
 *        getupvalue(f, n)
 *      debug.getlocal([co,] level, n), setlocal(...)
 *                                   raise when level is a C function's
 *                                   frame (its slots are C temporaries)
 *      debug.getmetatable(v)        for a userdata whose metatable is
 *                                   protected, what getmetatable(v)
 *                                   gives: its __metatable value
 *      debug.getinfo([co,] level ...)  no `func` for a C function's frame
 *
 *    A protected metatable is one with a `__metatable` field: the binding's
 *    types' (getmetatable gives a read-only {__name = "Event"}) and the C
 *    memory holders' (false).  Their raw methods and getters run without
 *    the pin the dispatch takes (binding.h, "Lifetimes") and their
 *    finalizers free C memory, so no script reaches them: not through the
 *    registry, a userdata, a C function's upvalues (the method wrappers
 *    hold the raw methods and the type's metatable) nor a running C
 *    function (getinfo's `func`, in a callback or a hook); the Lua library
 *    extends and reads the types through _core (extend, members), not
 *    through the registry.  A read-only sequence's metatable (a table's,
 *    without a finalizer) stays visible: it holds only the sequence.
 *
 *    An error reads "debug.NAME: WHY (etinspect's internal state is not
 *    open to scripts)".  Everything else (traceback, the rest of getinfo,
 *    sethook, getuservalue, the upvalues of Lua functions, the metatables
 *    of tables and of other userdata) is the standard library's.
 *
 * 3. No C modules unless the user asks for them.  A C module runs native
 *    code with no check at all: package.loadlib("libc.so.6", "free")()
 *    aborts the process.  So, unless the environment variable
 *    ETINSPECT_C_MODULES is "1" (etinspect(1), ENVIRONMENT):
 *
 *      package.loadlib(path, fn)    raises "C modules are off ..."
 *      require(name)                the C searchers (package.searchers[3]
 *                                   and [4]) raise the same error when
 *                                   package.cpath has a file for the name,
 *                                   else say where they looked, as usual
 *
 *    Whatever the variable says, package.cpath keeps only absolute
 *    entries: "./?.so" (Lua's default) and any other relative one would
 *    load a library from the current directory, where a dump may have
 *    come from (require "evil" loaded ./evil.so).
 *
 * The library compiled into etinspect is loaded by luaopen_etinspect
 * (l_module.c) and is not affected by 1; it uses the checked debug
 * library of 2 as scripts do.  etinspect.so in a stock lua5.4 leaves
 * that interpreter's libraries alone: there the user chose its rules.
 */
#include "host.h"

#include <lauxlib.h>
#include <lua.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files/mapfile.h"

/* Check the mode at argument `arg`: nil, or a string that allows text;
 * raises for a mode without 't' ("b") or a non-string.  The load is then
 * made with mode "t" whatever was asked. */
static void check_text_mode(lua_State *L, int arg, const char *fn)
{
    if (lua_isnoneornil(L, arg))
        return;
    const char *mode = luaL_checkstring(L, arg);
    if (!strchr(mode, 't'))
        luaL_error(L, "bad argument #%d to '%s' (mode '%s': etinspect loads text chunks only; binary "
                      "chunks are not verified and could crash it)",
                   arg, fn, mode);
}

/* After a load: the chunk (with `env` as its first upvalue when given)
 * or fail and the message, as load and loadfile return them. */
static int load_result(lua_State *L, int status, int env)
{
    if (status != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}

#define READER_SLOT 5 /* load's stack slot keeping the last piece alive */

/* lua_Reader for load(function): the pieces the function returns. */
static const char *piece_reader(lua_State *L, void *ud, size_t *size)
{
    (void)ud;
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(L, -1))
        luaL_error(L, "reader function must return a string");
    lua_replace(L, READER_SLOT);
    return lua_tolstring(L, READER_SLOT, size);
}

/* load(chunk [, chunkname [, mode [, env]]]): the standard load, text only. */
static int text_load(lua_State *L)
{
    size_t n;
    const char *s = lua_tolstring(L, 1, &n);
    check_text_mode(L, 3, "load");
    int env = !lua_isnone(L, 4) ? 4 : 0;
    int status;
    if (s) {
        const char *name = luaL_optstring(L, 2, s);
        status = luaL_loadbufferx(L, s, n, name, "t");
    } else {
        const char *name = luaL_optstring(L, 2, "=(load)");
        luaL_checktype(L, 1, LUA_TFUNCTION);
        lua_settop(L, READER_SLOT);
        status = lua_load(L, piece_reader, NULL, name, "t");
    }
    return load_result(L, status, env);
}

/* Load the file `fname` as a text chunk named "@fname", as
 * luaL_loadfilex(L, fname, "t") does (a UTF-8 BOM and a first line
 * starting with '#' are skipped, the line numbers kept), but read whole by
 * et_read_regular first: opened without blocking and refused unless it is
 * a regular file, so a FIFO never makes the load wait.  NULL: standard
 * input, as Lua reads it.  Returns the status with the chunk, or the
 * message ("cannot open PATH: not a regular file"), on the stack. */
static int load_text_file(lua_State *L, const char *fname)
{
    if (!fname)
        return luaL_loadfilex(L, NULL, "t");
    lua_pushfstring(L, "@%s", fname); /* before the buffer: it may raise */
    et_error err;
    size_t n;
    char *buf = et_read_regular(fname, &n, &err);
    if (!buf) {
        lua_pop(L, 1);
        lua_pushfstring(L, "cannot open %s", err.msg); /* no buffer to leak */
        return LUA_ERRFILE;
    }
    const char *p = buf, *end = buf + n;
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    if (p < end && *p == '#') { /* the first line, as a comment: keep its newline */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl : end;
    }
    int status = luaL_loadbufferx(L, p, (size_t)(end - p), lua_tostring(L, -1), "t");
    free(buf);
    lua_remove(L, -2);
    return status;
}

/* loadfile([filename [, mode [, env]]]): the standard loadfile, text only. */
static int text_loadfile(lua_State *L)
{
    const char *fname = luaL_optstring(L, 1, NULL);
    check_text_mode(L, 2, "loadfile");
    int env = !lua_isnone(L, 3) ? 3 : 0;
    return load_result(L, load_text_file(L, fname), env);
}

static int dofile_cont(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L) - 1;
}

/* dofile([filename]): as the standard one (errors propagate, the chunk
 * may yield), loading text only. */
static int text_dofile(lua_State *L)
{
    const char *fname = luaL_optstring(L, 1, NULL);
    lua_settop(L, 1);
    if (load_text_file(L, fname) != LUA_OK)
        return lua_error(L);
    lua_callk(L, 0, LUA_MULTRET, 0, dofile_cont);
    return dofile_cont(L, 0, 0);
}

/* Can `filename` be opened for reading?  As Lua's searchpath asks, but
 * without blocking: a FIFO on the path is found (and then refused by the
 * loader, load_text_file) rather than waited for. */
static int readable(const char *filename)
{
    int fd = open(filename, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* package.searchpath(name, path [, sep [, rep]]): the standard one (Lua
 * 5.4's: each '?' of `path` replaced by `name`, whose `sep` (".") become
 * `rep` ("/"); the first template that names a readable file; else nil
 * and "no file 'A'\n\tno file 'B'..."), with `readable` above instead of
 * fopen, which waits for a FIFO's writer.  Every searcher of the host
 * (Lua files, and C libraries' whether on or off) uses it. */
static int nb_searchpath(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    const char *path = luaL_checkstring(L, 2);
    const char *sep = luaL_optstring(L, 3, ".");
    const char *rep = luaL_optstring(L, 4, LUA_DIRSEP);
    if (*sep != '\0' && strchr(name, *sep) != NULL)
        name = luaL_gsub(L, name, sep, rep);
    const char *all = luaL_gsub(L, path, LUA_PATH_MARK, name); /* every file name */
    size_t n = strlen(all);
    const char *p = all, *end = all + n;
    for (;;) {
        const char *semi = memchr(p, *LUA_PATH_SEP, (size_t)(end - p));
        const char *stop = semi ? semi : end;
        lua_pushlstring(L, p, (size_t)(stop - p));
        if (readable(lua_tostring(L, -1)))
            return 1;
        lua_pop(L, 1);
        if (!semi)
            break;
        p = semi + 1;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "no file '");
    luaL_addgsub(&b, all, LUA_PATH_SEP, "'\n\tno file '");
    luaL_addstring(&b, "'");
    luaL_pushresult(&b);
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
}

/* package.searchers[2]: a Lua module found on package.path, loaded as
 * text.  Upvalues: 1 the package table, 2 package.searchpath, both as
 * they were when the host started.  Returns the loader and the file name,
 * or searchpath's message saying where it looked, as the standard
 * searcher does. */
static int text_searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, lua_upvalueindex(1), "path");
    if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "'package.path' must be a string");
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_call(L, 2, 2);
    if (lua_type(L, -2) != LUA_TSTRING)
        return 1; /* not found: the list of files tried */
    const char *file = lua_tostring(L, -2);
    if (load_text_file(L, file) != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file,
                          lua_tostring(L, -1));
    lua_pushstring(L, file);
    return 2;
}

#define C_MODULES_ENV "ETINSPECT_C_MODULES"
#define C_MODULES_HOW "C modules are off: native code is not checked and can crash etinspect; " \
                      "set " C_MODULES_ENV "=1 in the environment to allow them"

int et_host_c_modules_allowed(void)
{
    const char *v = getenv(C_MODULES_ENV);
    return v && strcmp(v, "1") == 0;
}

/* package.loadlib(path, funcname) with C modules off: raises. */
static int no_loadlib(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checkstring(L, 2);
    return luaL_error(L, "package.loadlib('%s'): " C_MODULES_HOW, path);
}

/* package.searchers[3] and [4] with C modules off (upvalue 1 the package
 * table, 2 package.searchpath, 3 true for the all-in-one searcher, which
 * looks for the name's root: "a" of "a.b").  A file on package.cpath for
 * the name raises, naming it; else the list of files tried, as Lua's own
 * searchers return it. */
static int no_c_searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (lua_toboolean(L, lua_upvalueindex(3))) {
        const char *dot = strchr(name, '.');
        if (!dot)
            return 0; /* Lua's all-in-one searcher: nothing to say */
        lua_pushlstring(L, name, (size_t)(dot - name));
    } else {
        lua_pushvalue(L, 1);
    }
    int root = lua_gettop(L);
    lua_getfield(L, lua_upvalueindex(1), "cpath");
    if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "'package.cpath' must be a string");
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, root);
    lua_pushvalue(L, -3);
    lua_call(L, 2, 2);
    if (lua_type(L, -2) != LUA_TSTRING)
        return 1; /* not found: the list of files tried */
    return luaL_error(L, "module '%s' is a C module (%s): " C_MODULES_HOW, name,
                      lua_tostring(L, -2));
}

/* package.cpath without its relative entries ("./?.so"): each entry
 * kept starts with '/' (";;" has been expanded by Lua already). */
static void absolute_cpath(lua_State *L)
{
    lua_getglobal(L, "package");
    if (lua_type(L, -1) == LUA_TTABLE && lua_getfield(L, -1, "cpath") == LUA_TSTRING) {
        const char *p = lua_tostring(L, -1);
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        int first = 1;
        while (*p) {
            const char *e = strchr(p, ';');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n > 0 && p[0] == '/') {
                if (!first)
                    luaL_addchar(&b, ';');
                luaL_addlstring(&b, p, n);
                first = 0;
            }
            p += n + (e != NULL);
        }
        luaL_pushresult(&b);
        lua_setfield(L, -3, "cpath");
    }
    lua_pop(L, 2);
}

/* Raise "debug.NAME: WHY (etinspect keeps its own state there)". */
static int refuse(lua_State *L, const char *name, const char *why)
{
    return luaL_error(L, "debug.%s: %s (etinspect's internal state is not open to scripts)", name, why);
}

/* The original debug function `name` (upvalue 1 of the checked one),
 * called with the arguments as given. */
static int pass_on(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* Whether value `idx` is a protected metatable: a table with a
 * `__metatable` field (read raw), as the binding's types' and the C
 * memory holders' metatables are. */
static int is_protected(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return 0;
    idx = lua_absindex(L, idx);
    lua_pushliteral(L, "__metatable");
    int p = lua_rawget(L, idx) != LUA_TNIL;
    lua_pop(L, 1);
    return p;
}

/* Whether value `idx` is an internal object's metatable that hides
 * itself entirely: protected by `__metatable` = false, with a finalizer
 * (the C memory holders'; read-only sequences' have none). */
static int hidden(lua_State *L, int idx)
{
    if (!is_protected(L, idx))
        return 0;
    idx = lua_absindex(L, idx);
    lua_getfield(L, idx, "__metatable");
    lua_getfield(L, idx, "__gc");
    int h = lua_isboolean(L, -2) && !lua_toboolean(L, -2) && !lua_isnil(L, -1);
    lua_pop(L, 2);
    return h;
}

/* The registry view's __index: the registry's value, but nil for a
 * protected metatable. */
static int regview_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, LUA_REGISTRYINDEX);
    if (is_protected(L, -1))
        lua_pushnil(L);
    return 1;
}

static int regview_newindex(lua_State *L)
{
    return refuse(L, "getregistry", "the registry is read-only");
}

/* The view's __pairs iterator: the registry's entries after key 2,
 * skipping protected metatables. */
static int regview_next(lua_State *L)
{
    lua_settop(L, 2);
    for (;;) {
        if (!lua_next(L, LUA_REGISTRYINDEX))
            return 0;
        if (!is_protected(L, -1))
            return 2;
        lua_pop(L, 1);
    }
}

static int regview_pairs(lua_State *L)
{
    lua_pushcfunction(L, regview_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* debug.getregistry(): a read-only view of the registry (upvalue 1). */
static int dbg_getregistry(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

/* A new registry view: an empty table whose metatable reads the
 * registry, refuses writes, and hides itself. */
static void push_regview(lua_State *L)
{
    lua_newtable(L);
    lua_createtable(L, 0, 4);
    lua_pushcfunction(L, regview_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, regview_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, regview_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

static int dbg_setuservalue(lua_State *L)
{
    return refuse(L, "setuservalue", "a userdata's user values cannot be changed");
}

/* debug.getmetatable(v): the metatable, except that a userdata's
 * protected one, or a hidden one, reads as getmetatable(v) does: its
 * `__metatable` value. */
static int dbg_getmetatable(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    if (!lua_getmetatable(L, 1))
        return 0;
    if ((lua_type(L, 1) == LUA_TUSERDATA && is_protected(L, 2)) || hidden(L, 2)) {
        lua_pushliteral(L, "__metatable");
        lua_rawget(L, 2);
    }
    return 1;
}

static int dbg_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (lua_type(L, 1) == LUA_TUSERDATA)
        return refuse(L, "setmetatable", "a userdata's metatable cannot be changed");
    return pass_on(L);
}

/* Check that arguments arg, arg + 1 are a function and an upvalue index
 * (as the standard functions do, so that a mistake names the function),
 * and refuse a C function. */
static void no_cfunction(lua_State *L, int arg, const char *name)
{
    luaL_checktype(L, arg, LUA_TFUNCTION);
    luaL_checkinteger(L, arg + 1);
    if (lua_iscfunction(L, arg))
        refuse(L, name, "a C function's upvalues are not available");
}

static int dbg_setupvalue(lua_State *L)
{
    luaL_checkany(L, 3);
    no_cfunction(L, 1, "setupvalue");
    return pass_on(L);
}

static int dbg_getupvalue(lua_State *L)
{
    no_cfunction(L, 1, "getupvalue");
    return pass_on(L);
}

/* getinfo([thread,] f_or_level [, what]): the original's, but for a level
 * whose function is a C function the table has no `func` (a C function
 * running there may be a raw method or getter of the binding, called by
 * the dispatch under a pin). */
static int dbg_getinfo(lua_State *L)
{
    int arg = lua_type(L, 1) == LUA_TTHREAD ? 2 : 1;
    lua_State *co = arg == 2 ? lua_tothread(L, 1) : L;
    int level = lua_type(L, arg) != LUA_TFUNCTION;
    /* the original's argument errors, raised here so that they name
     * debug.getinfo */
    lua_Integer n = level ? luaL_checkinteger(L, arg) : 0;
    const char *opt = luaL_optstring(L, arg + 1, "flnSrtu");
    luaL_argcheck(L, opt[0] != '>', arg + 1, "invalid option '>'");
    luaL_argcheck(L, opt[strspn(opt, "SlnrutLf")] == '\0', arg + 1, "invalid option");
    if (level && co == L && n >= 0 && n < LUA_MAXINTEGER) {
        /* in L, level 0 is this function and 1 the script's caller, as the
         * script counts: one frame less than the original's */
        lua_pushinteger(L, n + 1);
        lua_replace(L, arg);
    }
    int nres = pass_on(L);
    if (level && nres == 1 && lua_type(L, -1) == LUA_TTABLE) {
        lua_pushliteral(L, "func");
        if (lua_rawget(L, -2) == LUA_TFUNCTION && lua_iscfunction(L, -1)) {
            lua_pushliteral(L, "func");
            lua_pushnil(L);
            lua_rawset(L, -4);
        }
        lua_pop(L, 1);
    }
    return nres;
}

static int dbg_upvaluejoin(lua_State *L)
{
    no_cfunction(L, 1, "upvaluejoin");
    no_cfunction(L, 3, "upvaluejoin");
    return pass_on(L);
}

/* getlocal/setlocal([thread,] level, n ...): refuse a C function's frame
 * (its stack slots are the C code's temporaries), then call the original
 * with the level counted from it (one frame deeper than the script's
 * call: this function).  getlocal(f, n) of a function only names
 * parameters and passes. */
static int local_checked(lua_State *L, const char *name)
{
    int arg = lua_type(L, 1) == LUA_TTHREAD ? 2 : 1;
    lua_State *co = arg == 2 ? lua_tothread(L, 1) : L;
    if (lua_type(L, arg) == LUA_TFUNCTION || !lua_isinteger(L, arg))
        return pass_on(L); /* a function, or a bad argument the original reports */
    lua_Integer level = lua_tointeger(L, arg);
    luaL_checkinteger(L, arg + 1);
    if (name[0] == 's')
        luaL_checkany(L, arg + 2);
    lua_Debug ar;
    /* in L, level 0 is this function and 1 the script's caller, as the
     * script counts */
    if (level < 0 || level >= INT_MAX || !lua_getstack(co, (int)level, &ar))
        return luaL_argerror(L, arg, "level out of range");
    lua_getinfo(co, "S", &ar);
    if (strcmp(ar.what, "C") == 0)
        refuse(L, name, "a C function's stack slots are not available");
    if (co == L) {
        lua_pushinteger(L, level + 1);
        lua_replace(L, arg);
    }
    return pass_on(L);
}

static int dbg_getlocal(lua_State *L)
{
    if (lua_type(L, lua_type(L, 1) == LUA_TTHREAD ? 2 : 1) == LUA_TFUNCTION)
        return pass_on(L); /* a function's parameter names */
    return local_checked(L, "getlocal");
}

static int dbg_setlocal(lua_State *L)
{
    return local_checked(L, "setlocal");
}

void et_host_safe_debug(lua_State *L)
{
    static const struct {
        const char *name;
        lua_CFunction fn;
    } checked[] = {
        {"getregistry", dbg_getregistry},   {"setuservalue", dbg_setuservalue},
        {"getmetatable", dbg_getmetatable}, {"setmetatable", dbg_setmetatable},
        {"setupvalue", dbg_setupvalue},     {"upvaluejoin", dbg_upvaluejoin},
        {"getlocal", dbg_getlocal},         {"setlocal", dbg_setlocal},
        {"getupvalue", dbg_getupvalue},     {"getinfo", dbg_getinfo},
    };
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, "debug") != LUA_TTABLE) {
        lua_pop(L, 2);
        return;
    }
    for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++) {
        if (checked[i].fn == dbg_getregistry)
            push_regview(L);
        else
            lua_getfield(L, -1, checked[i].name);
        lua_pushcclosure(L, checked[i].fn, 1);
        lua_setfield(L, -2, checked[i].name);
    }
    lua_pop(L, 2);
}

void et_host_safe_loaders(lua_State *L)
{
    lua_pushcfunction(L, text_load);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, text_loadfile);
    lua_setglobal(L, "loadfile");
    lua_pushcfunction(L, text_dofile);
    lua_setglobal(L, "dofile");
    lua_getglobal(L, "package");
    lua_pushcfunction(L, nb_searchpath);
    lua_setfield(L, -2, "searchpath");
    if (lua_getfield(L, -1, "searchers") == LUA_TTABLE) {
        lua_pushvalue(L, -2);
        lua_getfield(L, -1, "searchpath");
        lua_pushcclosure(L, text_searcher, 2);
        lua_rawseti(L, -2, 2);
        if (!et_host_c_modules_allowed()) {
            for (int all_in_one = 0; all_in_one < 2; all_in_one++) {
                lua_pushvalue(L, -2);
                lua_getfield(L, -1, "searchpath");
                lua_pushboolean(L, all_in_one);
                lua_pushcclosure(L, no_c_searcher, 3);
                lua_rawseti(L, -2, 3 + all_in_one);
            }
        }
    }
    lua_pop(L, 1);
    if (!et_host_c_modules_allowed()) {
        lua_pushcfunction(L, no_loadlib);
        lua_setfield(L, -2, "loadlib");
    }
    lua_pop(L, 1);
    absolute_cpath(L);
}
