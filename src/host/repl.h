/*
 * repl.h - the interactive shell (see repl.c).
 */
#ifndef ET_REPL_H
#define ET_REPL_H

#include <lua.h>

/* Run the read-eval-print loop on `L` until .quit or end of input.
 * Returns 0 (errors inside statements are reported and survived). */
int et_repl_run(lua_State *L);

#endif
