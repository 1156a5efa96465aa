/*
 * l_outfile.c - output files for the Lua library, in the private table
 * etinspect._core (outfile.h: a temporary file beside the destination,
 * synced and renamed into place; a FIFO, terminal or /dev/null is written
 * directly; a symbolic link keeps naming the replaced file; an input in
 * use is never overwritten):
 *
 *   _core.outfile(path [, inputs])           -> OutFile, written piecewise
 *   _core.write_file(path, text [, inputs])  -> nothing; text written whole
 *   _core.write_to(dest, who, text)          -> nothing; text written to an
 *                                              open file, checked
 *   _core.set_stdout_writer(fn or nil)       text write_to sends to
 *                                              io.stdout goes to fn(text)
 *                                              instead (the REPL: paged,
 *                                              stopped by Ctrl-C)
 *
 * and the library's way to read a file (mapfile.h's et_open_regular:
 * opened without blocking, then refused unless it is a regular file, so a
 * FIFO never makes it wait):
 *
 *   _core.read_file(path)                    -> string | nil, "PATH: why"
 *   _core.same_file(a, b)                    -> boolean
 *
 * `inputs` is a sequence of paths that must not be overwritten besides
 * every input in use (outfile.h's guard), of any length; an entry that is
 * not a string is an error naming it ("_core.outfile: inputs[2]: expected
 * a string, got number").  OutFile is a type of the object
 * model (et_lua_define_type: self checked, __metatable); unless committed
 * its temporary file is removed when it is closed (`<close>`, :abort(),
 * garbage collection) - and at exit by the core's registry of temporary
 * files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding.h"
#include "files/mapfile.h"
#include "files/outfile.h"

#define ET_MT_OUTFILE "etinspect.OutFile"

/* An output file being written (outfile.h); `open` until committed or
 * aborted. */
typedef struct lua_outfile {
    et_lua_obj obj; /* no owner */
    et_outfile of;
    int open;
} lua_outfile;

/* The paths at `arg` that must not be overwritten: a sequence of strings
 * (et_lua_check_strings: its array pushed on the stack), or nil / none
 * for no paths (an empty array pushed). */
static const char **check_inputs(lua_State *L, int arg, const char *who)
{
    size_t n;
    if (!lua_isnoneornil(L, arg))
        return et_lua_check_strings(L, arg, who, "inputs", &n);
    const char **none = lua_newuserdatauv(L, sizeof *none, 0);
    none[0] = NULL;
    return none;
}

/* _core.outfile(path [, inputs]): an open OutFile writing to a temporary
 * file beside `path`.  Raises the outfile errors ("PATH: refusing to
 * overwrite an input file ...", "PATH: is a directory ..."). */
static int outfile_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char **inputs = check_inputs(L, 2, "_core.outfile");
    lua_outfile *o = lua_newuserdatauv(L, sizeof *o, 0);
    memset(o, 0, sizeof *o);
    o->obj.magic = ET_LUA_OBJ_MAGIC;
    luaL_setmetatable(L, ET_MT_OUTFILE);
    et_error err;
    if (et_outfile_open(&o->of, path, inputs, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    o->open = 1;
    return 1;
}

/* _core.write_file(path, text [, inputs]): `text` written to `path` as a
 * whole (open, write, commit).  Raises the outfile errors, and
 * "PATH: write failed: REASON". */
static int write_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t n;
    const char *text = luaL_checklstring(L, 2, &n);
    const char **inputs = check_inputs(L, 3, "_core.write_file");
    et_error err;
    et_outfile of;
    if (et_outfile_open(&of, path, inputs, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    if (n && fwrite(text, 1, n, of.fp) != n) {
        et_outfile_fail(&of, &err); /* "PATH: write failed: REASON" */
        return luaL_error(L, "%s", err.msg);
    }
    if (et_outfile_commit(&of, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static lua_outfile *check_open(lua_State *L)
{
    lua_outfile *o = luaL_checkudata(L, 1, ET_MT_OUTFILE);
    if (!o->open)
        luaL_error(L, "OutFile: already committed or aborted");
    return o;
}

/* of:write(s, ...): append strings (or numbers); returns of.  Raises
 * "PATH: write failed: REASON" (the file is then aborted). */
static int outfile_write(lua_State *L)
{
    lua_outfile *o = check_open(L);
    int top = lua_gettop(L);
    for (int i = 2; i <= top; i++) {
        size_t n;
        const char *s = luaL_checklstring(L, i, &n);
        if (n && fwrite(s, 1, n, o->of.fp) != n) {
            et_error err;
            o->open = 0;
            et_outfile_fail(&o->of, &err); /* "PATH: write failed: REASON" */
            return luaL_error(L, "%s", err.msg);
        }
    }
    lua_settop(L, 1);
    return 1;
}

/* of:commit(): flush, sync, close and rename into place.  Raises the
 * commit error (the temporary file is then removed). */
static int outfile_commit(lua_State *L)
{
    lua_outfile *o = check_open(L);
    o->open = 0;
    et_error err;
    if (et_outfile_commit(&o->of, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

/* of:abort() (also __close and __gc): remove the temporary file unless
 * committed; a no-op afterwards. */
static int outfile_abort(lua_State *L)
{
    lua_outfile *o = luaL_testudata(L, 1, ET_MT_OUTFILE);
    if (!o)
        return luaL_error(L, "OutFile:abort: bad self (OutFile expected, got %s)",
                          luaL_typename(L, 1));
    if (o->open) {
        o->open = 0;
        et_outfile_abort(&o->of);
    }
    return 0;
}

FILE *et_lua_dest_file(lua_State *L, int arg, const char *who)
{
    if (lua_isnoneornil(L, arg))
        return NULL;
    luaL_Stream *s = luaL_testudata(L, arg, LUA_FILEHANDLE);
    if (s) {
        if (!s->closef)
            luaL_error(L, "%s: the file is closed", who);
        return s->f;
    }
    lua_outfile *o = luaL_testudata(L, arg, ET_MT_OUTFILE);
    if (!o)
        luaL_typeerror(L, arg, "file or OutFile");
    if (!o->open)
        luaL_error(L, "%s: the OutFile is finished", who);
    return o->of.fp;
}

int et_lua_dest_failed(lua_State *L, int arg, const char *who)
{
    lua_outfile *o = luaL_testudata(L, arg, ET_MT_OUTFILE);
    et_error err;
    if (o && o->open) {
        o->open = 0;
        et_outfile_fail(&o->of, &err); /* "PATH: write failed: REASON" */
        lua_pushstring(L, err.msg); /* no position: the caller's line is no help */
        return lua_error(L);
    }
    int e = errno;
    luaL_Stream *s = luaL_testudata(L, arg, LUA_FILEHANDLE);
    if (s && s->closef && s->f) {
        /* the stream's own error: flushing what is left fails the same way */
        clearerr(s->f);
        if (fflush(s->f) != 0)
            e = errno;
        if (s->f == stdout)
            who = "standard output";
        else if (s->f == stderr)
            who = "standard error";
    }
    lua_pushfstring(L, "%s: write failed: %s", who, strerror(e ? e : EIO));
    return lua_error(L);
}

#define STDOUT_WRITER "etinspect.stdout_writer" /* registry: set_stdout_writer's function */

/* _core.set_stdout_writer(fn or nil): the host's writer of standard output
 * (a service handed in as a function, as etinspect.h says): write_to then
 * calls fn(text) for text sent to io.stdout; nil: written by stdio again. */
static int set_stdout_writer(lua_State *L)
{
    if (!lua_isnil(L, 1))
        luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, STDOUT_WRITER);
    return 0;
}

/* _core.write_to(dest, who, text): `text` written to `dest` - an io file
 * (then flushed), an OutFile, or any value with a write method (called as
 * dest:write(text)) - checked: raises et_lua_dest_failed's error
 * ("standard output: write failed: REASON", "PATH: write failed: REASON",
 * "WHO: write failed: REASON").  Text for io.stdout goes to the writer of
 * set_stdout_writer when one is set. */
static int write_to(lua_State *L)
{
    const char *who = luaL_checkstring(L, 2);
    size_t n;
    const char *text = luaL_checklstring(L, 3, &n);
    luaL_Stream *s = luaL_testudata(L, 1, LUA_FILEHANDLE);
    if (!s && !luaL_testudata(L, 1, ET_MT_OUTFILE)) {
        lua_getfield(L, 1, "write");
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 3);
        lua_call(L, 2, 0);
        return 0;
    }
    FILE *fp = et_lua_dest_file(L, 1, who);
    if (s && fp == stdout && lua_getfield(L, LUA_REGISTRYINDEX, STDOUT_WRITER) == LUA_TFUNCTION) {
        if (fflush(stdout) != 0) /* what was written before comes first */
            return et_lua_dest_failed(L, 1, who);
        lua_pushvalue(L, 3);
        lua_call(L, 1, 0);
        return 0;
    }
    if ((n && fwrite(text, 1, n, fp) != n) || (s && fflush(fp) != 0))
        return et_lua_dest_failed(L, 1, who);
    return 0;
}

/* Protected: the string of lightuserdata 1's bytes, integer 2 of them. */
static int push_bytes(lua_State *L)
{
    lua_pushlstring(L, lua_touserdata(L, 1), (size_t)lua_tointeger(L, 2));
    return 1;
}

/* _core.read_file(path): the regular file's bytes as a string, or nil and
 * the message ("PATH: No such file or directory", "PATH: not a regular
 * file", "PATH: is a directory, expected a file"; et_read_regular).  Out
 * of memory raises "PATH: out of memory (reading N bytes)" or Lua's
 * memory error. */
static int read_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    et_error err;
    size_t n;
    char *text = et_read_regular(path, &n, &err);
    if (!text) {
        if (err.kind == ET_ERR_NOMEM)
            return luaL_error(L, "%s", err.msg);
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    /* the copy into a Lua string may raise: protected, so `text` is freed */
    lua_pushcfunction(L, push_bytes);
    lua_pushlightuserdata(L, text);
    lua_pushinteger(L, (lua_Integer)n);
    int rc = lua_pcall(L, 2, 1, 0);
    free(text);
    return rc == LUA_OK ? 1 : lua_error(L);
}

/* Do the descriptors `fa` and `fb` (regular files of `sa`, `sb`) hold the
 * same bytes?  A read error counts as different. */
static int same_bytes(int fa, const struct stat *sa, int fb, const struct stat *sb)
{
    if (sa->st_dev == sb->st_dev && sa->st_ino == sb->st_ino)
        return 1;
    if (sa->st_size != sb->st_size)
        return 0;
    char ba[8192], bb[8192];
    for (off_t at = 0; at < sa->st_size;) {
        ssize_t ka = pread(fa, ba, sizeof ba, at), kb = pread(fb, bb, sizeof bb, at);
        if (ka <= 0 || ka != kb || memcmp(ba, bb, (size_t)ka) != 0)
            return 0;
        at += ka;
    }
    return 1;
}

/* _core.same_file(a, b): are the paths the same file?  The same string,
 * or two regular files (opened without blocking: a FIFO is never waited
 * for, and is not the same file) with exactly the same bytes (another
 * spelling of the path, a link, a copy). */
static int same_file(lua_State *L)
{
    const char *a = luaL_checkstring(L, 1), *b = luaL_checkstring(L, 2);
    int same = strcmp(a, b) == 0;
    if (!same) {
        et_error ignored;
        struct stat sa, sb;
        int fa = et_open_regular(a, &sa, &ignored);
        int fb = fa < 0 ? -1 : et_open_regular(b, &sb, &ignored);
        same = fb >= 0 && same_bytes(fa, &sa, fb, &sb);
        if (fa >= 0)
            close(fa);
        if (fb >= 0)
            close(fb);
    }
    lua_pushboolean(L, same);
    return 1;
}

void et_lua_open_outfile(lua_State *L)
{
    static const et_lua_method methods[] = {{"write", outfile_write, -1, 0},
                                            {"commit", outfile_commit, 0, 0},
                                            {"abort", outfile_abort, 0, 0},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_type outfile = {ET_MT_OUTFILE, "OutFile", methods, NULL, NULL, NULL,
                                        NULL, NULL, NULL};
    et_lua_define_type(L, &outfile);
    luaL_getmetatable(L, ET_MT_OUTFILE);
    lua_pushcfunction(L, outfile_abort);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, outfile_abort);
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);
    lua_pushcfunction(L, outfile_open);
    lua_setfield(L, -2, "outfile");
    lua_pushcfunction(L, write_file);
    lua_setfield(L, -2, "write_file");
    lua_pushcfunction(L, write_to);
    lua_setfield(L, -2, "write_to");
    lua_pushcfunction(L, set_stdout_writer);
    lua_setfield(L, -2, "set_stdout_writer");
    lua_pushcfunction(L, read_file);
    lua_setfield(L, -2, "read_file");
    lua_pushcfunction(L, same_file);
    lua_setfield(L, -2, "same_file");
}
