/* l_frame.c - Lua frames rendered by the C writers; see l_frame.h. */
#include "l_frame.h"
#include "binding.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>

#include "frame.h"
#include "l_json.h"
#include "outfile.h"
#include "pyfmt.h"

static int core_repr(lua_State *L)
{
    char b[ET_PYFMT_BUFSZ];
    size_t n = et_pyfmt_repr(luaL_checknumber(L, 1), b);
    lua_pushlstring(L, b, n);
    return 1;
}

static int core_g(lua_State *L)
{
    char b[ET_PYFMT_BUFSZ];
    size_t n = et_pyfmt_g(luaL_checknumber(L, 1), b);
    lua_pushlstring(L, b, n);
    return 1;
}

/* Build an et_frame from (columns, rows) at stack 2 and 3; NULL on OOM. */
static et_frame *frame_from_lua(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    size_t ncols = (size_t)luaL_len(L, 2);
    const char **names = calloc(ncols ? ncols : 1, sizeof *names);
    if (!names)
        return NULL;
    for (size_t c = 0; c < ncols; c++) {
        lua_rawgeti(L, 2, (lua_Integer)c + 1);
        names[c] = lua_tostring(L, -1);
        if (!names[c])
            names[c] = "";
        lua_pop(L, 1); /* still anchored in the columns table */
    }
    et_frame *f = et_frame_new(ncols, names);
    free(names);
    if (!f)
        return NULL;
    lua_Integer nrows = luaL_len(L, 3);
    for (lua_Integer r = 1; r <= nrows; r++) {
        long row = et_frame_add_row(f);
        if (row < 0) {
            et_frame_free(f);
            return NULL;
        }
        lua_rawgeti(L, 3, r);
        for (size_t c = 0; c < ncols; c++) {
            lua_rawgeti(L, -1, (lua_Integer)c + 1);
            size_t len;
            const char *s;
            switch (lua_type(L, -1)) {
            case LUA_TBOOLEAN: et_frame_set_bool(f, (size_t)row, c, lua_toboolean(L, -1)); break;
            case LUA_TNUMBER:
                if (lua_isinteger(L, -1))
                    et_frame_set_int(f, (size_t)row, c, lua_tointeger(L, -1));
                else
                    et_frame_set_float(f, (size_t)row, c, lua_tonumber(L, -1));
                break;
            case LUA_TSTRING:
                s = lua_tolstring(L, -1, &len);
                if (et_frame_set_text(f, (size_t)row, c, s, len) != 0) {
                    et_frame_free(f);
                    return NULL;
                }
                break;
            default: break; /* nil and anything else: missing */
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return f;
}

static int core_render(lua_State *L)
{
    static const char *const fmts[] = {"grid", "tsv", NULL};
    int fmt = luaL_checkoption(L, 1, NULL, fmts);
    et_frame *f = frame_from_lua(L);
    if (!f)
        return luaL_error(L, "out of memory");
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int rc = -1;
    if (mem) {
        rc = fmt == 0 ? et_frame_write_grid(f, mem) : et_frame_write_tsv(f, mem);
        if (fclose(mem) != 0)
            rc = -1;
    }
    et_frame_free(f);
    if (rc != 0) {
        free(buf);
        return luaL_error(L, "out of memory while rendering a frame");
    }
    lua_pushlstring(L, buf, len);
    free(buf);
    return 1;
}

/* _core.write_file(path, text [, inputs]): write `text` to `path` through
 * a temporary file and rename (outfile.h: a FIFO, terminal or /dev/null is
 * written directly, a symbolic link keeps pointing at the replaced file);
 * `inputs` is a sequence of paths that must not be overwritten (besides
 * every input in use: outfile.h's guard).  Raises the outfile errors
 * ("PATH: refusing to overwrite an input file ...",
 * "PATH: is a directory ...", "PATH: write failed: ..."). */
static int core_write_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t n;
    const char *text = luaL_checklstring(L, 2, &n);
    const char *inputs[9] = {0};
    if (lua_istable(L, 3))
        for (int i = 0; i < 8; i++) {
            lua_rawgeti(L, 3, i + 1);
            if (!lua_isstring(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            inputs[i] = lua_tostring(L, -1); /* anchored in the table */
            lua_pop(L, 1);
        }
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

void et_lua_open_core(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"repr", core_repr},   {"g", core_g}, {"render", core_render},
        {"json_decode", et_lua_json_decode}, {"write_file", core_write_file}, {NULL, NULL}};
    luaL_newlib(L, fns);
    et_lua_open_contract(L);
}
