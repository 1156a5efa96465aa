/*
 * repl.h - the interactive shell (see repl.c).
 */
#ifndef ET_REPL_H
#define ET_REPL_H

#include <lua.h>

/* Run the read-eval-print loop on `L` until .quit or end of input.
 * Returns 0 (errors inside statements are reported and survived). */
int et_repl_run(lua_State *L);

/* The size of the terminal on standard output: 1 with *rows and *cols
 * set, or 0 when standard output is not a terminal (or says no size). */
int et_repl_terminal_size(int *rows, int *cols);

#endif
