/*
 * l_sql.c - SQL over inspectors in memory (src/core/output/sqlvtab.h,
 * docs/sql.md): the private helper behind Inspector:sql and Dumps:sql
 * (lua/etinspect/many.lua builds the Frame).
 *
 *   _core.sql_query(inspectors, names, query [, max_steps]) -> names, columns, n
 */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "binding.h"
#include "output/sqlvtab.h"

/* The most cells (rows x columns) a query's result may have. */
#define MAX_CELLS 10000000LL

typedef struct run_state {
    et_sql *s;
    sqlite3_stmt *st;
    et_error err;
    int failed; /* err set */
} run_state;

/* A count hook on the thread: the REPL's Ctrl-C (src/host/repl.c). */
static int lua_interrupted(void *arg)
{
    return (lua_gethookmask((lua_State *)arg) & LUA_MASKCOUNT) != 0;
}

/* Protected: the rows into columns (names, columns, n on the stack). */
static int collect(lua_State *L)
{
    run_state *rs = lua_touserdata(L, 1);
    int nc = sqlite3_column_count(rs->st);
    lua_createtable(L, nc, 0); /* names */
    lua_createtable(L, nc, 0); /* columns */
    for (int j = 0; j < nc; j++) {
        const char *name = sqlite3_column_name(rs->st, j);
        if (!name) {
            rs->failed = 1;
            et_fail(&rs->err, ET_ERR_NOMEM, "out of memory");
            return 0;
        }
        for (int k = 0; k < j; k++)
            if (strcmp(sqlite3_column_name(rs->st, k), name) == 0) {
                rs->failed = 1;
                et_fail(&rs->err, ET_ERR_USAGE,
                        "SQL: the result has two columns named '%s' (name one with AS)", name);
                return 0;
            }
        lua_pushstring(L, name);
        lua_rawseti(L, 2, j + 1);
        lua_newtable(L);
        lua_rawseti(L, 3, j + 1);
    }
    lua_Integer n = 0;
    for (;;) {
        int rc = et_sql_step(rs->s, rs->st, &rs->err);
        if (rc < 0) {
            rs->failed = 1;
            return 0;
        }
        if (rc == 0)
            break;
        if ((n + 1) * (long long)(nc ? nc : 1) > MAX_CELLS) {
            rs->failed = 1;
            et_fail(&rs->err, ET_ERR_USAGE,
                    "SQL: the result has more than %lld cells (rows x columns); "
                    "aggregate or LIMIT it",
                    MAX_CELLS);
            return 0;
        }
        n++;
        for (int j = 0; j < nc; j++) {
            lua_rawgeti(L, 3, j + 1);
            switch (sqlite3_column_type(rs->st, j)) {
            case SQLITE_INTEGER: lua_pushinteger(L, sqlite3_column_int64(rs->st, j)); break;
            case SQLITE_FLOAT: lua_pushnumber(L, sqlite3_column_double(rs->st, j)); break;
            case SQLITE_NULL: lua_pushnil(L); break;
            default: {
                const void *p = sqlite3_column_blob(rs->st, j);
                int len = sqlite3_column_bytes(rs->st, j);
                lua_pushlstring(L, p ? p : "", (size_t)len);
                break;
            }
            }
            lua_rawseti(L, -2, n);
            lua_pop(L, 1);
        }
    }
    for (int j = 0; j < nc; j++) {
        lua_rawgeti(L, 3, j + 1);
        lua_pushinteger(L, n);
        lua_setfield(L, -2, "n");
        lua_pop(L, 1);
    }
    lua_pushinteger(L, n);
    return 3;
}

/* _core.sql_query(inspectors, names, query [, max_steps]) -> names,
 * columns, n: the result of `query` over the Inspectors of the sequence
 * (dump k named names[k]), within max_steps SQLite instructions (default
 * and most: ET_SQL_MAX_STEPS), as its column names, the columns (sequences with nil for
 * NULL and field n) and the number of rows.  SQLite's INTEGER give Lua
 * integers, REAL numbers, TEXT and BLOB strings.  Raises "SQL: ..." for
 * the query's errors (sqlvtab.h), "SQL: interrupted" after Ctrl-C in the
 * REPL (a count hook on the thread), the result past 10,000,000 cells,
 * two result columns of one name, the Inspectors' errors (closed) and
 * "out of memory".  The garbage collector is held while the query runs:
 * no finalizer can close an Inspector under it. */
static int core_sql_query(lua_State *L)
{
    lua_settop(L, 4);
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *query = luaL_checkstring(L, 3);
    lua_Integer max_steps = luaL_optinteger(L, 4, 0);
    size_t n = (size_t)lua_rawlen(L, 1), n_names;
    const char **names = et_lua_check_strings(L, 2, "sql_query", "names", &n_names);
    if (n_names != n)
        return luaL_error(L, "sql_query: %d inspectors, %d names", (int)n, (int)n_names);
    lua_insp_box **boxes = lua_newuserdatauv(L, (n ? n : 1) * sizeof *boxes, 0);
    const et_inspector **insps = lua_newuserdatauv(L, (n ? n : 1) * sizeof *insps, 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (lua_Integer)i + 1);
        boxes[i] = luaL_testudata(L, -1, ET_MT_INSPECTOR);
        if (!boxes[i])
            return luaL_error(L, "sql_query: inspectors[%d]: an Inspector expected, got %s",
                              (int)i + 1, luaL_typename(L, -1));
        lua_pop(L, 1);
    }
    for (size_t i = 0; i < n; i++)
        et_lua_insp(L, boxes[i]);
    for (size_t i = 0; i < n; i++) {
        et_error rerr;
        if (et_inspector_ready_samples(et_lua_insp_raw(L, boxes[i]), &rerr) != 0)
            return luaL_error(L, "%s", rerr.msg);
        insps[i] = et_lua_insp_raw(L, boxes[i]);
    }
    run_state *rs = lua_newuserdatauv(L, sizeof *rs, 0);
    memset(rs, 0, sizeof *rs);
    et_sql_options o = {.interrupted = lua_interrupted, .arg = L, .max_steps = max_steps};
    if (et_sql_open(&rs->s, insps, names, n, &o, &rs->err) != 0)
        return luaL_error(L, "%s", rs->err.msg);
    if (et_sql_prepare(rs->s, query, &rs->st, &rs->err) != 0) {
        et_sql_close(rs->s);
        return luaL_error(L, "%s", rs->err.msg);
    }
    int running = lua_gc(L, LUA_GCISRUNNING);
    lua_gc(L, LUA_GCSTOP);
    lua_pushcfunction(L, collect);
    lua_pushlightuserdata(L, rs);
    int rc = lua_pcall(L, 1, 3, 0);
    if (running)
        lua_gc(L, LUA_GCRESTART);
    sqlite3_finalize(rs->st);
    et_sql_close(rs->s);
    if (rc != LUA_OK)
        return lua_error(L);
    if (rs->failed)
        return luaL_error(L, "%s", rs->err.msg);
    return 3;
}

void et_lua_open_sql(lua_State *L)
{
    static const luaL_Reg fns[] = {{"sql_query", core_sql_query}, {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
