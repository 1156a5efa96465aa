/*
 * lua_host.h - etinspect as a Lua host: the steps main.c runs for scripts,
 * bundled report scripts, -e and -l (see lua_host.c).
 *
 * Every step works on the run's Lua state (et_host_lua, host.h), which
 * et_lua_host_open makes and the others expect, and returns an exit
 * status (host.h): 0 when it went through; else it has printed the error
 * on standard error - a usage error of a script (a table with `usage`,
 * raised by etinspect.scripts) as its usage text and "etinspect:
 * MESSAGE", 2; an input error "etinspect: error: MESSAGE", 1; any other
 * error "etinspect: MESSAGE" with its traceback, 1.
 */
#ifndef ET_LUA_HOST_H
#define ET_LUA_HOST_H

/* Make the run's Lua state if there is none yet and set the global
 * `etinspect` to require "etinspect".  1 with "etinspect: cannot create a
 * Lua state (out of memory)" when no state can be made. */
int et_lua_host_open(void);

/* When standard output is a terminal of known size, fit frames to its
 * width: etinspect.set_option("display.width", COLUMNS), as the REPL does
 * (written to a file or a pipe, the width stays unknown: 80). */
int et_lua_host_fit_terminal(void);

/* What `target`, an argument naming what to run, is
 * (etinspect.scripts.resolve, with the host's et_host_input_kind): *how
 * gets a string the state keeps until the next call or its end: "stdin"
 * (target "-"),
 * "bundled" (a bundled script's name, before any file of that name),
 * "data" (an input file by its content, or a directory: the command
 * line's), "script" (a Lua file); NULL when resolve returned no string.
 * A name that is none of these is a usage error, a missing script an
 * input error. */
int et_lua_host_resolve(const char *target, const char **how);

/* etinspect --list-scripts: the bundled scripts on standard output. */
int et_lua_host_list_scripts(void);

/* etinspect --help NAME: the description and arguments of the script
 * `name` (`how` as et_lua_host_resolve gave it, NULL read as ""; "data"
 * is a usage error: not a report script). */
int et_lua_host_script_help(const char *name, const char *how);

/* -e CODE: load `code` as text (chunk name "=(command line)") and run
 * it. */
int et_lua_host_run_code(const char *code);

/* -l MODULE: require `module` into the global of its name. */
int et_lua_host_require(const char *module);

/* Set the global `arg` as lua(1) does: arg[0] = argv[script], the
 * arguments after it at 1, 2, ..., those before it (the program, the
 * options) at negative indices; script 0 when no script runs.  Returns the
 * exit status: 0, or 1 with the error reported (out of memory, or a
 * __newindex an -e chunk gave _G raised). */
int et_lua_host_set_arg(int argc, char **argv, int script);

/* Run the script argv[script] (`how` from et_lua_host_resolve: "stdin",
 * "bundled" or "script") with the arguments after it, parsed as the
 * script declares them (etinspect.scripts.main).  Returns the exit
 * status: 1 or 2 with the error reported, else what a declared script's
 * `run` returned when it is an integer in 0..125 (3: diff's gate found a
 * regression), else 0. */
int et_lua_host_run_script(int argc, char **argv, int script, const char *how);

#endif
