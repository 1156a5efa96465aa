/*
 * cli_metadata.h - the command line's --delegate_metadata_parser: a Lua
 * function (a name of etinspect.parsers, built in or registered by a
 * plugin, or FILE.lua returning it; etinspect.scripts.find_parser) called
 * on every delegated event of the inspector the command line built, its
 * results kept as JSON text for --json (docjson.h, et_report_write_json_md)
 * and --trace_path (trace.h's metadata callback), and the parser given to
 * the Inspector userdata the HTML report reads (et_lua_adopt_inspector).
 * See docs/user-guide.md "A delegate on its own clock: converters and
 * plugins" and docs/json-format.md.
 */
#ifndef ET_CLI_METADATA_H
#define ET_CLI_METADATA_H

#include <stddef.h>

#include <lua.h>

#include "model/model.h"

/* The parser of a run and what it gave. */
typedef struct et_cli_md {
    lua_State *L;   /* the run's Lua state (et_host_lua) */
    int parser_ref; /* the wrapped parser, in the registry (0: none) */
    int state_ref;  /* the wrapper's state table */
    int ud_ref;     /* the Inspector userdata owning the inspector (0: none) */
    const char *spec;
    char ***text;   /* [block][event]: JSON text, or NULL (not delegated, or the parser failed) */
    size_t *n_events; /* [block]: the length of text[block] */
    size_t n_blocks;
} et_cli_md;

/* Inside a protected call: set the global etinspect (which a plugin
 * registers in), run etinspect.scripts.load_plugins{plugin}, the plugin the
 * value at stack index `plugin` (nil: none), and leave the module
 * etinspect.scripts on top of the stack, for its find_parser or
 * find_converter.  Raises the plugins' errors. */
void et_cli_scripts_with_plugins(lua_State *L, int plugin);

/* After a failed protected call into etinspect.scripts (finding a parser
 * or a converter): print its error, on top of L's stack, to stderr as
 * "etinspect: error: MESSAGE" (a table's `usage` or `input` field, or the
 * message itself; "out of memory" when there is none) and return the exit
 * status: 2 for a usage error, else 1.  The stack is left as it was. */
int et_cli_script_failure(lua_State *L);

/* Load the plugins (--plugin `plugin`, may be NULL, then the plugin
 * directory) and find the parser `spec` names (etinspect.scripts.
 * find_parser), in the run's Lua state.  Returns 0, or the exit status
 * after printing the error: 2 for an unknown name or a file that returns
 * no function, 1 for a plugin or file that cannot be read or fails, or out
 * of memory. */
int et_cli_md_find(et_cli_md *md, const char *spec, const char *plugin);

/* Push the parser (a function) on md->L, or nil without one. */
void et_cli_md_push_parser(const et_cli_md *md);

/* Run the parser on every delegated event of the Inspector userdata on top
 * of md->L's stack (adopted from `insp`, with the parser; popped and kept
 * in md->ud_ref) and keep each result as JSON text.  A parser that raises
 * or returns no table warns (naming the event; the Inspector's warning)
 * and the event's text is NULL; a dump without delegated events warns
 * that the parser is never called.  Returns 0, or 1 after printing an
 * error naming the event whose result cannot be represented in JSON
 * (etinspect.parsers.to_json), or out of memory. */
int et_cli_md_collect(et_cli_md *md, const et_inspector *insp);

/* The JSON text of event `event` of block `block` (0-based), or NULL; `ud`
 * is the et_cli_md (for et_json_metadata). */
const char *et_cli_md_text(void *ud, size_t block, size_t event);

/* The same as a malloc'd copy, for the trace's metadata callback (trace.h);
 * `run` is ignored (one result per event). */
char *et_cli_md_trace(void *ud, size_t block, size_t event, size_t run);

/* Push the Inspector userdata kept by et_cli_md_collect and return true,
 * or push nothing and return false. */
int et_cli_md_push_inspector(const et_cli_md *md);

/* Free the texts, close the Inspector userdata (which frees the
 * inspector) and release the references. */
void et_cli_md_free(et_cli_md *md);

#endif
