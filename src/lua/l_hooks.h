/*
 * l_hooks.h - calling users' Lua functions from the core: the delegate
 * metadata parser, the delegate time-scale converter, and warnings (those
 * an Inspector finds later, when its model is made, included).
 *
 * A user function that raises, or returns the wrong type, never stops the
 * shell: it gives one warning naming the event and the function (with the
 * first lines of the traceback), and the raw metadata / default conversion
 * is used instead.
 */
#ifndef ET_L_HOOKS_H
#define ET_L_HOOKS_H

#include <lua.h>
#include <stdbool.h>

#include "model/model.h"

struct lua_insp_box; /* binding.h */

/* A warning about the Inspector userdata at `insp_idx`: appended to its
 * insp.warnings (box->warnings, once: a message already given is neither
 * kept nor reported again) and reported as et_lua_warn does.  The
 * message is clipped to 2047 bytes.  Raises "out of memory". */
void et_lua_insp_warn(lua_State *L, int insp_idx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record `msg` in the warnings of the Inspector at `insp_idx` as
 * et_lua_insp_warn does, without reporting it (warnings the command line
 * printed already, for an inspector it hands to Lua).  Raises "out of
 * memory". */
void et_lua_insp_warnings_add(lua_State *L, int insp_idx, const char *msg);

/* Note the Inspector userdata at `ud` as its box's (a weak registry
 * table), so that warnings found later reach its insp.warnings. */
void et_lua_insp_register(lua_State *L, int ud);

/* Give the inspector's warnings that Lua has not seen yet
 * (box->warnings_given on) to insp.warnings and on_warning, one at a time;
 * stops when a handler closes the inspector.  Gives nothing while the
 * warnings are held (et_lua_hold_warnings). */
void et_lua_insp_give_warnings(lua_State *L, struct lua_insp_box *box);

/* Push s[0..n) as a terminal is to be given it: control characters
 * escaped (base/shown.h: "\n", "\x1b", C1 as "\x9b"), for every display
 * form of the binding (tostring of its objects, Graph:print on a terminal,
 * warnings on stderr).  Raises "out of memory". */
void et_lua_push_shown(lua_State *L, const char *s, size_t n);

/* Add `shown(s)` (et_lua_push_shown), `warn(message)` (et_lua_warn) and
 * `hold_warnings(hold)` (et_lua_hold_warnings) to the table on top of the
 * stack: the library's private _core table. */
void et_lua_open_hooks(lua_State *L);

/* Call the inspector's metadata parser (Inspector userdata at `insp_idx`)
 * as parser(raw_list, event) -- the raw metadata list at `raw_idx`, the
 * Event userdata at `ev_idx` (parsers written for the Python contract take
 * only the list) -- for event (block, event) (0-based; messages say them
 * 1-based, as Lua indexes); leaves the parser's table on the stack, or
 * the raw list after a warning when the parser failed or returned
 * something else than a table.  The caller runs pinned (the dispatch):
 * the parser cannot close the inspector under it. */
void et_lua_call_parser(lua_State *L, int insp_idx, int raw_idx, int ev_idx, const et_event *ev,
                        size_t block, size_t event);

/* State of a Lua delegate time-scale converter during construction. */
typedef struct et_lua_converter {
    lua_State *L;
    int fn_index;   /* stack index of the converter function */
    int warned_index; /* stack index of a table of event names already warned about */
    int insp_index; /* stack index of the Inspector userdata being built */
    const char *what; /* how to name the function in warnings */
} et_lua_converter;

/* An et_time_converter (model.h) calling the Lua converter in `ud`.  All
 * Lua work runs in one protected call: no Lua error (not even running out
 * of memory) unwinds through the core; a failing converter gives one
 * warning per event name and the default conversion. */
int et_lua_time_converter(void *ud, const char *name, size_t name_len, uint64_t ticks,
                          double *out);

/* Describe the function at `idx` for messages: "function at file.lua:12". */
const char *et_lua_describe_function(lua_State *L, int idx);

#endif
