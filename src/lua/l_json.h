/*
 * l_json.h - JSON decoding for the Lua library (see l_json.c).
 */
#ifndef ET_L_JSON_H
#define ET_L_JSON_H

#include <lua.h>

/* _core.json_decode(text) -> value | nil, message. */
int et_lua_json_decode(lua_State *L);

#endif
