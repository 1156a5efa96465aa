/*
 * host.h - the state of one run of the etinspect program, shared by the
 * parts main.c runs (see host.c): the command line (cli.c), the Lua host
 * (lua_host.c) and the REPL (repl.c) never call each other; what they
 * share is here.
 *
 *  - the exit statuses every part returns;
 *  - the run's one Lua state, made at the first need (a script, -e, the
 *    REPL, telling a first argument apart, the command line's
 *    --html_path and --compare_results) and closed once, at the end;
 *  - the host's services to Lua: the message handler of its protected
 *    calls, what an input file is (inputs.h) as Lua functions, the
 *    standard library as the host offers it (safelib.c);
 *  - the terminal's size.
 *
 * The signal handlers are installed by main.c (signals.h).
 */
#ifndef ET_HOST_H
#define ET_HOST_H

#include <lua.h>
#include <stddef.h>

#include "inputs.h"

/* The exit statuses of the program (etinspect(1), "EXIT STATUS"). */
enum {
    ET_EXIT_OK = 0,    /* success */
    ET_EXIT_INPUT = 1, /* unreadable or malformed input, a Lua error, out of memory */
    ET_EXIT_USAGE = 2, /* bad options or arguments, unsupported features */
    ET_EXIT_REGRESSION = 3 /* `etinspect diff --fail_above`: a regression (docs/ci.md) */
};

/* The run's Lua state: made at the first call (the standard libraries,
 * checked by et_host_safe_loaders and et_host_safe_debug, and `etinspect`
 * in package.preload: require "etinspect" is the compiled-in module),
 * the same state at every later call.  NULL when out of memory (the
 * caller says so; a later call tries again). */
lua_State *et_host_lua(void);

/* Close the run's Lua state, if one was made (its finalizers run);
 * et_host_lua makes a new one afterwards.  Called once at the end of the
 * run (main.c), or after each input by a fuzz target. */
void et_host_close(void);

/* lua_pcall with a traceback message handler: an error's message gets
 * the traceback; the usage and input errors of etinspect.scripts (tables
 * with a string `usage` or `input` field) are passed on as they are; any
 * other value becomes its __tostring, or "(error object is a T value)".
 * Arguments and results as lua_pcall's; returns its status. */
int et_host_pcall(lua_State *L, int nargs, int nres);

/* Lua: input_kind(path [, expected]) -> kind [, why]: what the file is by
 * its content (inputs.h): "etdump", "profile_results", "etrecord",
 * "bundled_program", "text", "unknown", "directory", or "missing" and the
 * system's reason; with `expected` (a kind's name), a file of another kind
 * the command line takes gives et_input_misplaced's message as `why`.
 * Handed to etinspect.scripts.resolve and the REPL's Lua half. */
int et_host_input_kind(lua_State *L);

/* Lua: assign_inputs({path, ...}) -> {etdump_path=, profile_results_path=,
 * etrecord=, bundled_program_path=, debug_buffer_path=}: each file's role
 * by its content (et_inputs_assign; keys as etinspect.Inspector takes
 * them); raises the reason when a file cannot be read or two claim one
 * role, and for a table of more than 64 files or a non-string.  Several
 * ETDumps (or a directory of them) are one dataset: the table then also
 * holds etdump_paths and debug_buffer_paths, sequences in the order given
 * (etinspect.open_many's paths and option).  Handed to the REPL's Lua half
 * (.open). */
int et_host_assign_inputs(lua_State *L);

/* Standard input as an input (`etinspect -`, `--etdump_path -`): read
 * once, kept until et_host_close.  et_host_stdin_kind reads its first
 * bytes (up to 64, blocking until they come or the stream ends) and says
 * what they are (inputs.h; ET_INPUT_TEXT also for an empty stream, a
 * script that does nothing).  et_host_stdin_all reads the rest, within
 * the budget of an ETDump file (2 GiB, a FlatBuffer's limit: the stream is
 * refused past it, before more is read): *data (NUL-terminated, not
 * counted) and *size, or -1 with `msg` set ("standard input: ...").
 * Returns 0. */
et_input_kind et_host_stdin_kind(void);
int et_host_stdin_all(const unsigned char **data, size_t *size, char *msg, size_t msg_size);

/* The label of standard input in messages. */
#define ET_STDIN_LABEL "standard input"

/* The size of the terminal on standard output: 1 with *rows and *cols
 * set (characters), or 0 when standard output is not a terminal (or says
 * no size). */
int et_host_terminal_size(int *rows, int *cols);

/* Make the state load Lua source only (safelib.c): load, loadfile,
 * dofile and require's file searcher refuse binary chunks, which Lua does
 * not verify and which can crash the process; a mode without 't' given to
 * load or loadfile raises an error naming it; C modules are off unless
 * et_host_c_modules_allowed (safelib.c, 3).  et_host_lua calls it after
 * luaL_openlibs; the host loads its own chunks (scripts, -e, REPL input)
 * with mode "t". */
void et_host_safe_loaders(lua_State *L);

/* Whether C modules are allowed: the environment variable
 * ETINSPECT_C_MODULES is exactly "1" (etinspect(1)).  Otherwise
 * et_host_safe_loaders makes package.loadlib and require's C searchers
 * raise an error saying so; package.cpath loses its relative entries
 * ("./?.so") either way. */
int et_host_c_modules_allowed(void);

/* Replace the debug functions that would change the binding's internal
 * state (the registry, userdata metatables and user values, C functions'
 * upvalues and stack slots) by checked ones (safelib.c): the registry
 * reads through a read-only view, the rest raise an error naming
 * themselves.  et_host_lua calls it before `etinspect` is opened, so the
 * Lua library's copy of the standard library (_core.std) is checked
 * too. */
void et_host_safe_debug(lua_State *L);

#endif
