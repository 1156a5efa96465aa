/*
 * repl.h - the interactive shell (see repl.c).
 */
#ifndef ET_REPL_H
#define ET_REPL_H

#include <lua.h>

/* Run the read-eval-print loop on `L` (the run's state, et_host_lua)
 * until .quit or end of input: the global `etinspect` set, then the Lua
 * half (etinspect.repl) set up with the host's functions.  Returns 0
 * (errors inside statements are reported and survived), or 1 after
 * printing why when the module or the Lua half cannot be loaded, or when
 * input that is not a terminal was refused (a NUL byte, a line longer than
 * ET_LINE_MAX, a read error: linereader.h).  On a terminal the startup
 * file ($XDG_CONFIG_HOME/etinspect/init.lua, else
 * ~/.config/etinspect/init.lua) runs first, unless `no_init` (--no-init). */
int et_repl_run(lua_State *L, int no_init);

#endif
