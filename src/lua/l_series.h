/*
 * l_series.h - Series: one column of a Frame as a C-backed vector, with
 * pandas' element-wise arithmetic, comparisons and boolean masks
 * (src/core/table/vecops.h); docs/lua-api.md "Series".
 *
 * A Series wraps one et_column (src/core/table/column.h, retained; a
 * borrowed column keeps its owner, so the one lifetime rule holds) and a
 * name.  It is also the column sequence of today's Frame: s[i] (1-based; a
 * missing cell is nil, or NaN in a column of numbers), #s, ipairs(s),
 * table.concat(s), and the statistics methods the Lua library adds
 * (_core.series_extend).
 */
#ifndef ET_LUA_SERIES_H
#define ET_LUA_SERIES_H

#include <lua.h>

struct et_column;

/* Push a new Series over `col` (retained).  name_idx: stack index of its
 * name (a string) or 0 for none; store_idx: for an ET_COL_OBJ column, the
 * stack index of the table mapping each handle (a Lua integer) to its
 * value, else 0. */
void et_lua_push_series(lua_State *L, struct et_column *col, int name_idx, int store_idx);

/* The column of the Series at idx, or NULL when the value is no Series
 * (borrowed: valid while the Series lives). */
struct et_column *et_lua_test_series(lua_State *L, int idx);

/* The bytes (0/1, n of them) of the mask at idx: a Series of n booleans
 * without missing cells; raises naming `where` otherwise.  Valid while the
 * Series lives (a copy, when made, is on the stack). */
const unsigned char *et_lua_check_mask(lua_State *L, int idx, size_t n, const char *where);

/* The _core functions (into the table at the top): _core.series(values,
 * n [, name]), _core.is_series(v), _core.series_extend(methods),
 * _core.series_mask(s, n, where). */
void et_lua_open_series(lua_State *L);

#endif
