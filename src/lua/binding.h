/*
 * binding.h - shared pieces of the Lua binding (module `etinspect`).
 *
 * The binding exposes the C core's objects to Lua 5.4 as userdata, one
 * source file per type:
 *
 *   l_inspector.c  Inspector     owns an et_inspector; also the gate of
 *                                every view of its model (et_lua_insp) and
 *                                the helpers of its children (EventBlock,
 *                                Event, PerfData: et_lua_push_child ...)
 *   l_block.c      EventBlock    a block of an Inspector
 *   l_event.c      Event         an event of a block
 *   l_perfdata.c   PerfData      the statistics of an event
 *   l_runs.c       Run, RawEvent raw RunData and events, C-closure iterators
 *   l_etrecord.c   ETRecord      owns an et_etrecord (etinspect.parse_etrecord)
 *   l_graph.c      Graph, Node   a program of an ETRecord and its nodes
 *   l_program.c    Program, Method, Instruction, Operator  an ExecuTorch
 *                  program (.pte; etinspect.parse_program)
 *   l_pyobj.c      ordered dicts and tuples (Python's dict and tuple),
 *                  iteration in a given key order (et_lua_pairs_in_order)
 *   l_export.c     Inspector:write_trace, Inspector:to_sqlite,
 *                  EventBlock:memory_summary
 *   l_rawframe.c   Inspector:raw_frame (the raw events as a Frame)
 *   l_modelexplorer.c  Inspector:write_model_explorer (Model Explorer files)
 *   l_module.c     luaopen_etinspect: the module table, TimeScale, the
 *                  embedded Lua library (lua/)
 *
 *   l_object.c     the object model every type above shares: lifetimes
 *                  (owners, pins, finalizers), method and field dispatch,
 *                  read-only fields and sequences, cached fields; the one
 *                  way the Lua library adds methods (_core.extend) and
 *                  reads a type's members (_core.members)
 *   l_contract.c   the argument contracts: option tables, sinks,
 *                  sequences of strings
 *   l_hooks.c      users' functions called from C (parsers, converters,
 *                  warning handlers) and the delivery of warnings
 *
 * Lifetimes (docs/lua-api.md, "Lifetimes and contracts").  An *owner* is a
 * userdata that holds memory others point into: Inspector (the mapped
 * dump, the model), ETRecord (its programs and graphs) and NpyFile (a
 * mapped .npy).  Every other userdata (EventBlock, Event, PerfData, Run,
 * Graph, Node, Tensor) *depends* on one owner: its payload starts with an
 * et_lua_obj header naming that owner, and it keeps the owner alive
 * through its user value 1.  The rule, enforced here in one place:
 *
 *  - while C code of the binding runs on an object (any method, field
 *    read or __tostring: a loop over events, a writer, a print, a value
 *    decode, a call of the user's parser), the object's owner is *pinned*;
 *    owner:close() on a pinned owner is refused (a getter marked
 *    ET_LUA_LEAF, which copies one value and runs no Lua code, needs no
 *    pin and is called in place):
 *      "Inspector is busy (Inspector:write_trace is running); close it
 *       after Inspector:write_trace returns"
 *    The pin is taken and released around a protected call, so an error or
 *    a yield attempt inside a callback never leaves it set;
 *  - an owner is closed by close(), `<close>`, or its finalizer; using a
 *    dependent afterwards raises "Event used after its inspector was
 *    closed" (the type's message) and never reads freed memory;
 *  - a finalizer never frees what another live object points into: an
 *    ETRecord finalized while an open Inspector is linked to it is freed
 *    when that Inspector closes; a finalizer called by hand (through the
 *    debug library) is a close();
 *  - every userdata metatable of the binding sets __metatable, so getmetatable()
 *    reaches no finalizer; fields are read-only ("field 'name' of Event is
 *    read-only");
 *  - no script reaches a type's metatable (its raw getters and methods
 *    are not pinned): the host's debug library hides it (src/host/
 *    safelib.c), and the Lua library adds methods with _core.extend and
 *    reads names with _core.members, never through the registry.
 *
 * C code that calls into Lua (a user's function, a metamethod of a user's
 * value, or anything that allocates - the collector may run a user's
 * finalizer) while holding a pointer into an owner must run pinned: the
 * dispatch does this for every method, getter and __tostring; other
 * entry points (iterators, _core functions) use et_lua_call_pinned or
 * re-check their owner after each such call.
 */
#ifndef ET_LUA_BINDING_H
#define ET_LUA_BINDING_H

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "etinspect.h" /* the public part: what a host calls */

/* Metatable names (luaL_newmetatable / luaL_checkudata). */
#define ET_MT_INSPECTOR "etinspect.Inspector"
#define ET_MT_BLOCK "etinspect.EventBlock"
#define ET_MT_EVENT "etinspect.Event"
#define ET_MT_PERFDATA "etinspect.PerfData"
#define ET_MT_RUN "etinspect.Run"
#define ET_MT_RAWEVENT "etinspect.RawEvent"
#define ET_MT_ETRECORD "etinspect.ETRecord"
#define ET_MT_GRAPH "etinspect.Graph"
#define ET_MT_NODE "etinspect.Node"

/* ---- the object model (l_object.c) ---------------------------------- */

#define ET_LUA_OBJ_MAGIC 0x45544c4fu /* "ETLO" */

typedef struct et_lua_owner et_lua_owner;

/* The first member of every userdata payload of the binding. */
typedef struct et_lua_obj {
    uint32_t magic;      /* ET_LUA_OBJ_MAGIC */
    et_lua_owner *owner; /* the owner whose memory it uses (itself for an owner), or NULL */
} et_lua_obj;

/* What an owner type says about itself. */
typedef struct et_lua_owner_class {
    const char *name;       /* "Inspector": "Inspector is busy (...)" */
    const char *noun;       /* "inspector": "Event used after its inspector was closed" */
    const char *closed_msg; /* raised when the owner itself is used after close */
    const char *in_use_msg; /* raised by close() while users > 0 */
    /* free what it holds (idempotent; L may run no Lua code but luaL_unref) */
    void (*release)(lua_State *L, et_lua_owner *o);
    /* free what it keeps after close() (nothing release touches), or NULL:
     * called once, by the collector's finalizer (after release when that
     * runs then); L as for release */
    void (*collect)(lua_State *L, et_lua_owner *o);
} et_lua_owner_class;

/* The header of an owner's payload (Inspector, ETRecord, NpyFile). */
struct et_lua_owner {
    et_lua_obj obj; /* obj.owner == this owner */
    const et_lua_owner_class *cls;
    const char *op;   /* the outermost running operation ("Inspector:write_trace") */
    const char *op_type, *op_key; /* ... or a field read: op_type "." op_key */
    unsigned pins;    /* operations running on it (0: idle) */
    unsigned users;   /* open owners pointing into it (Inspectors linked to an ETRecord) */
    bool closed;      /* released by close() or a finalizer */
    bool finalized;   /* finalized while users > 0: released when the last user goes */
};

/* Initialise the header of an owner payload (not yet closed, idle). */
void et_lua_owner_init(et_lua_owner *o, const et_lua_owner_class *cls);

/* The owner of the binding userdata at `idx` (itself for an owner), or
 * NULL for any other value. */
et_lua_owner *et_lua_owner_of(lua_State *L, int idx);

/* Pin and unpin by hand, for C code that cannot raise between the two
 * (nothing but C and protected calls in between): see et_lua_call_pinned.
 * `op` must stay valid until the matching unpin. */
void et_lua_pin(et_lua_owner *o, const char *op);
void et_lua_unpin(lua_State *L, et_lua_owner *o);

/* A user of `o` went away (an Inspector linked to an ETRecord closed):
 * releases `o` when it was finalized and this was its last user. */
void et_lua_owner_unuse(lua_State *L, et_lua_owner *o);

/* Raise the message for using a dependent of type `type` ("Event") or the
 * owner itself (type NULL) after `o` was closed. */
int et_lua_closed_error(lua_State *L, const char *type, const et_lua_owner *o);

/* A method of a userdata type. */
typedef struct et_lua_method {
    const char *name;
    lua_CFunction fn;
    int max_args; /* arguments after self it takes; -1: not checked */
    unsigned flags;
} et_lua_method;

#define ET_LUA_NOPIN 1u /* runs unpinned (close: it must see no pin of its own) */
#define ET_LUA_FUNCTION 2u /* a function, not a method: argument 1 is no self */

/* Push `fn` wrapped as the function `name` ("_core.html_plan"): while it
 * runs (a protected call), the owner of its first argument (when that is
 * an object of the binding) is pinned, so a user's finalizer run by one
 * of its allocations, or any Lua code it calls, cannot close what it
 * reads; its errors are raised again with the caller's position and
 * "bad argument #N" names it.  For the _core functions taking an object
 * first. */
void et_lua_push_pinned(lua_State *L, lua_CFunction fn, const char *name);

/* A field of a userdata type, read by getter(self) -> value. */
typedef struct et_lua_getter {
    const char *name;
    lua_CFunction fn;
    int cache; /* user value slot keeping the value once read (same value on
                * every read), or 0: computed on each read */
    unsigned flags; /* ET_LUA_LEAF or 0 */
} et_lua_getter;

/* A getter that runs no Lua code and uses its pointers only before its
 * one allocation (it pushes one number, boolean or string it copies):
 * called directly, without a protected call or a pin. */
#define ET_LUA_LEAF 1u

/* A userdata type. */
typedef struct et_lua_type {
    const char *mt;   /* registry name, "etinspect.Event" */
    const char *name; /* what users read, "Event" */
    const et_lua_method *methods; /* {NULL} terminated; may be NULL */
    const et_lua_getter *getters; /* {NULL} terminated; may be NULL */
    lua_CFunction len, tostring;  /* __len, __tostring (pinned), or NULL */
    lua_CFunction index;          /* its own __index (upvalues as
                                   * et_lua_record_index's), or NULL */
    lua_CFunction newindex;       /* its own __newindex, or NULL */
    const et_lua_owner_class *owner; /* an owner type: adds close(), __close
                                      * and __gc (et_lua_owner_close) */
} et_lua_type;

/* Create and fill the metatable of `t`: __index dispatching to the methods
 * (each wrapped: self checked, arguments counted, owner pinned, argument
 * errors named "Type:method: bad argument #N (...)") and getters (pinned;
 * cached ones kept in their user value slot), __newindex raising "field
 * 'k' of Type is read-only" / "Type has no field 'k'", __pairs over the
 * fields, __name, __metatable (a read-only table {__name = name}), and for
 * owners close/__close/__gc. */
void et_lua_define_type(lua_State *L, const et_lua_type *t);

/* Add a method / a getter to the type registered as `mt` (after
 * et_lua_define_type). */
void et_lua_add_method(lua_State *L, const char *mt, const et_lua_method *m);
void et_lua_add_getter(lua_State *L, const char *mt, const et_lua_getter *g);

/* Push a read-only view of the sequence at `idx`: `#`, `[k]`, ipairs and
 * pairs read it; writes raise "<what> is read-only (a sequence of the
 * API: copy it to change it)".  `what` ("EventBlock.events") is copied. */
void et_lua_push_readonly(lua_State *L, int idx, const char *what);

/* Push a read-only view as et_lua_push_readonly's (the same `#`, `[k]`,
 * ipairs, pairs, refused writes; _core.is_view true) of a sequence C
 * keeps rather than a Lua table: `len` is the view's __len (pushes the
 * count) and `index` its __index (called as index(view, key): pushes
 * item k for an integer key 1 <= k <= count, else nil), each a C closure
 * with the value at `anchor` (what holds the sequence, kept alive by the
 * view) as upvalue 1.  They run no Lua code and check their upvalue. */
void et_lua_push_readonly_c(lua_State *L, int anchor, lua_CFunction len, lua_CFunction index,
                            const char *what);

/* Add to the table on top (_core): is_view(v) -> boolean (et_lua_is_view),
 * the Lua library's way to tell the API's read-only sequences, whose
 * getmetatable() is false, from other tables; std, the standard library
 * as it was when the module was opened (et_lua_capture_stdlib), the
 * environment of the library's modules; and the Lua library's only access
 * to the types' metatables, which no script reaches:
 *   extend(type, {name = function, ...})  adds Lua functions as methods
 *       of the type named `type` ("Inspector"), wrapped as the C methods
 *       are (self checked, owner pinned); raises, adding nothing, for an
 *       unknown type, a value that is not a function, or a name the type
 *       has already (a method or a field), naming them;
 *   members(v) -> getters, methods, lua  the field and method names
 *       (sorted sequences) of a binding userdata or type name, and the set
 *       of its methods written in Lua; nothing for other values (the
 *       REPL's completion and help);
 *   peek(v, k) -> value  v[k] of a binding userdata, a field read pinned
 *       but not cached (the REPL's completion);
 *   types() -> the names of the types, sorted (the tests). */
void et_lua_open_object(lua_State *L);

/* Push a zeroed userdata of `size` bytes holding C memory for the
 * duration of one call, with the metatable `mt` (made on first use:
 * __gc and __close both `gc`, __metatable false, so no script reaches the
 * finalizer).  `gc` must free what the payload holds and be idempotent.
 * Returns the payload; raises only on out of memory. */
void *et_lua_push_holder(lua_State *L, size_t size, const char *mt, lua_CFunction gc);

/* Push a userdata owning a malloc'd buffer: store the pointer in the slot
 * returned (NULL until then); it is freed when the userdata is collected
 * or closed, so a Lua error unwinding through the caller cannot leak it.
 * Marked to-be-closed when `tbc` (then freed when the C function returns;
 * mind lua_settop below it). */
void **et_lua_push_cbuffer(lua_State *L, int tbc);

/* Functions of the standard library the binding uses, captured when the
 * module is opened, so that a script replacing the globals (`require =
 * nil`, `io = nil`) breaks nothing (l_object.c); also the snapshot of the
 * standard library the Lua library's modules run in (_core.std). */
void et_lua_capture_stdlib(lua_State *L);
/* require(name) with the captured require; pushes the module. */
void et_lua_require(lua_State *L, const char *name);
/* Push io.stdout as it was when the module was opened (a Lua error when
 * the io library was not loaded). */
void et_lua_push_stdout(lua_State *L);

/* ---- the types' payloads --------------------------------------------- */

/* The ETRecord's userdata payload.  An Inspector linked to it holds it in
 * its user value and counts itself in own.users; the record cannot be
 * closed while an open Inspector points into it. */
typedef struct lua_etr_box {
    et_lua_owner own;
    et_etrecord *r; /* NULL once closed */
} lua_etr_box;

/* A Graph's payload (user value 1: its ETRecord userdata; 2: the nodes). */
typedef struct lua_graph_box {
    et_lua_obj obj;
    lua_etr_box *rec;
    const et_graph *g;  /* owned by the record */
    char name[200];     /* what it was asked as, e.g. "aten_dialect_output/forward" */
} lua_graph_box;

/* The Inspector's userdata payload (user value 1: a table anchoring its
 * options and caches; 2: event_blocks). */
typedef struct lua_insp_box {
    et_lua_owner own;
    et_inspector *insp; /* NULL once closed */
    int parser_ref;     /* delegate metadata parser (registry ref) or LUA_NOREF */
    char parser_name[64];
    lua_etr_box *etrecord; /* the linked ETRecord's box, or NULL */
    size_t warnings_given; /* insp->warnings given to Lua (insp.warnings, on_warning) */
    /* the warnings given to Lua, each once, in order (insp.warnings: the
     * core's, the converter's, the parser's ...); kept after close() for
     * the views taken before, freed when the userdata is collected */
    et_warnings warnings;
    /* the model's reference count for the frames that borrow its arrays
     * (to_dataframe's raw and start_time list views), made on first
     * use by et_lua_insp_model, or NULL: close() drops the box's
     * reference and the model is freed with the last frame */
    struct et_col_owner *model;
} lua_insp_box;

/* A child's payload: its inspector, block index and (for events and perf
 * data) event index.  User value 1 anchors the Inspector, 2 caches
 * (EventBlock: events; Event: perf_data). */
typedef struct lua_child {
    et_lua_obj obj;
    lua_insp_box *box;
    size_t block;
    size_t event;
} lua_child;

/* Register each type's metatable (called once by luaopen_etinspect). */
void et_lua_register_inspector(lua_State *L);
void et_lua_register_block(lua_State *L);
void et_lua_register_event(lua_State *L);
void et_lua_register_perfdata(lua_State *L);
void et_lua_register_runs(lua_State *L);
void et_lua_register_etrecord(lua_State *L);
void et_lua_register_graph(lua_State *L);
/* Add the export methods to the Inspector and EventBlock types (after
 * their registration). */
void et_lua_register_export(lua_State *L);
/* Add Inspector:write_model_explorer (l_modelexplorer.c; after the
 * Inspector's registration). */
void et_lua_register_modelexplorer(lua_State *L);
/* Add EventBlock.reference_output and Inspector.bundled_program
 * (l_bundled.c; after the Inspector and EventBlock registrations). */
void et_lua_register_bundled(lua_State *L);

/* Register Program, Method, Instruction and Operator (l_program.c). */
void et_lua_register_program(lua_State *L);

/* etinspect.parse_program(path) -> Program (l_program.c). */
int et_lua_parse_program(lua_State *L);
/* Add insp:run_columns and insp:column_names (l_columns.c; after the
 * Inspector's registration). */
void et_lua_register_columns(lua_State *L);
/* insp:raw_frame (l_rawframe.c) */
void et_lua_register_rawframe(lua_State *L);

/* l_table.c: the Frame's column store (Table) and its _core functions
 * (into the table at the top); et_lua_push_table pushes a Table over C
 * columns (each retained) of nrows rows. */
struct et_column;
void et_lua_open_table(lua_State *L);
void et_lua_push_table(lua_State *L, struct et_column *const *cols, size_t ncols, size_t nrows);
/* Push cell i (0-based) of column c as a Lua value: nil for an absent
 * cell, NaN (as Lua's 0/0 makes it) for a NaN cell of any kind, a number,
 * integer, boolean or string, a new table for a list cell.  Returns true
 * when it pushed; false, pushing nothing, for a present cell of an
 * ET_COL_OBJ column, whose value is in the store of the Table or Series
 * holding it.  Raises only Lua's memory error. */
bool et_lua_push_col_value(lua_State *L, const struct et_column *c, size_t i);

/* etinspect.Inspector{...} (l_inspector.c): open an ETDump (or a legacy
 * dump) with its options table at argument 1; see docs/lua-api.md. */
int et_lua_inspector_new(lua_State *L);

/* Add a file's private helpers to the `_core` table on top of the stack
 * (called once by luaopen_etinspect): numeric primitives (l_numeric.c),
 * the HTML report's data (l_html.c), OutFile and write_file
 * (l_outfile.c), several dumps' helpers (l_export.c). */
void et_lua_open_numeric(lua_State *L);
void et_lua_open_html(lua_State *L);
void et_lua_open_outfile(lua_State *L);
void et_lua_open_export(lua_State *L);
/* SQL over inspectors in memory (l_sql.c): _core.sql_query. */
void et_lua_open_sql(lua_State *L);

/* Tensors (l_tensor.c): push a Tensor userdata viewing `t` (copied into
 * the userdata); the value at `anchor` (an Inspector, a BundledProgram ...
 * whatever owns the bytes) is kept alive by it. */
#define ET_MT_TENSOR "etinspect.Tensor"
struct et_tensor;

/* Check that argument `arg` is a Tensor whose owner is still open; returns
 * its view. */
const struct et_tensor *et_lua_check_tensor(lua_State *L, int arg);

/* etinspect.parse_etrecord(path) -> ETRecord (l_etrecord.c). */
int et_lua_parse_etrecord(lua_State *L);

/* Check that argument `arg` is an open ETRecord; returns its box. */
/* The FILE of an output destination at `arg` (l_outfile.c): an open io
 * file or an open OutFile; NULL for nil or none.  Raises "WHO: the file
 * is closed", "WHO: the OutFile is finished", or a type error. */
FILE *et_lua_dest_file(lua_State *L, int arg, const char *who);

/* After a write to the destination at `arg` (et_lua_dest_file) failed:
 * raise "PATH: write failed: REASON" for an OutFile (whose temporary file
 * is then removed), "WHO: write failed: REASON" for an io file - REASON
 * the stream's error (strerror); "standard output" and "standard error"
 * name io.stdout and io.stderr.  The message has no position. */
int et_lua_dest_failed(lua_State *L, int arg, const char *who);

/* Push a new ETRecord userdata holding no record yet (r NULL: the caller
 * sets it before anything can raise, or it reads as closed); raises only
 * on out of memory. */
lua_etr_box *et_lua_new_etrecord(lua_State *L);
lua_etr_box *et_lua_check_etrecord(lua_State *L, int arg);

/* Push a Graph for program `p` of the ETRecord userdata at `rec_idx`
 * (parsing it on first use; a Lua error when it cannot be parsed); `name`
 * is what it is called. */
void et_lua_push_graph(lua_State *L, int rec_idx, const et_etr_program *p, const char *name);

/* Push a node's nn_module_stack as an ordered dict key -> (path, type), or
 * nil when it has none (l_graph.c). */
void et_lua_push_module_stack(lua_State *L, const et_graph_node *nd);

/* Push a byte string of the dump (nil when absent). */
static inline void et_lua_push_str(lua_State *L, et_str s)
{
    if (s.p)
        lua_pushlstring(L, s.p, s.n);
    else
        lua_pushnil(L);
}

/* ---- the Inspector's gate and its children (l_inspector.c) ------------ */

/* Push a new child userdata of metatable `mt` for (block, event) of the
 * Inspector userdata at stack index `insp_idx`, anchoring it.  A child is
 * a view of the model: the statistics are computed first if they are
 * pending (et_lua_insp, whose errors it raises). */
void et_lua_push_child(lua_State *L, int insp_idx, const char *mt, size_t block, size_t event);

/* Check that argument `arg` is a child of type `mt` whose inspector is
 * open; returns it (raises "<Type> used after its inspector was closed").
 * The model's samples, when given back since (_core.drop_samples), are
 * built again first (raises that build's error: "out of memory", a dump
 * changed on disk); runs no Lua code. */
lua_child *et_lua_check_child(lua_State *L, int arg, const char *mt);

/* Push the Inspector userdata that child argument `arg` belongs to. */
void et_lua_push_parent(lua_State *L, int arg);

/* The open inspector of a box, its model complete: the event blocks, their
 * samples and perf data statistics, which an Inspector opened from Lua
 * leaves for their first view (et_inspector_ready), are made now if they
 * are not yet (the samples also when given back: _core.drop_samples), and
 * the warnings that found go to insp.warnings and
 * on_warning (et_lua_insp_give_warnings: a user's handler runs, and may
 * close the inspector).  Raises "<Type> used after its inspector was
 * closed" (et_lua_closed_error; also when the handler closed it) or
 * "out of memory".  Nothing read of the inspector before the call is
 * valid after it. */
et_inspector *et_lua_insp(lua_State *L, lua_insp_box *box);

/* The owner (table/column.h) of the open inspector's model, for columns
 * that borrow its arrays: each such column retains it, and the model is
 * freed when the Inspector is closed and the last of them is released
 * (the Inspector reads as closed all the same).  Raises as et_lua_insp
 * when it is closed, "out of memory". */
struct et_col_owner *et_lua_insp_model(lua_State *L, lua_insp_box *box);

/* The open inspector of a box as it is, for what reads only the raw runs
 * of the dump (insp:runs(), insp:run_columns()) or what open set
 * (time scales, paths): the model may still be pending (n_blocks 0).
 * Raises as et_lua_insp when it is closed; runs no Lua code. */
et_inspector *et_lua_insp_raw(lua_State *L, lua_insp_box *box);

/* ---- more of the object model (l_object.c) ---------------------------- */

/* The __index body et_lua_define_type installs (upvalues: 1 methods,
 * 2 getters, 3 {name = leaf getter | cache slot}, 4 the type's name): a
 * leaf getter, called in place; else a cached value; else a method (each
 * stored wrapped: self checked, owner pinned - the C ones by
 * et_lua_define_type / et_lua_add_method, the Lua library's by
 * _core.extend); else the getter called pinned;
 * "<Type> has no field or method 'k'" for other strings, nil for other
 * keys.  A type with its own __index closure over the same upvalues
 * (Tensor: integer keys are elements) calls it for the rest. */
int et_lua_record_index(lua_State *L);

/* One accepted option of an options table: its name and the types it
 * takes, '|'-separated words: Lua type names ("boolean", "string",
 * "number", "table", "function"), "integer" (an integral number),
 * "callable", "file" (an io file or a value with a write method), "any",
 * or a userdata type by its metatable name ("Frame", "ETRecord"). */
typedef struct et_lua_opt {
    const char *name;
    const char *types; /* NULL: any */
} et_lua_opt;

/* The options contract (l_contract.c; docs/lua-api.md "Contracts"): the
 * value at `arg` must be nil or a table whose keys are all names in
 * `spec` (terminated by {NULL, NULL}) with values of their types.  Raises
 *   "<where>: bad argument #<argn> (options table expected, got <type>)"
 *   "<where>: unknown option '<k>' (accepted: a, b, c)"
 *   "<where>: option '<k>' must be a boolean, got string"
 *   "<where>: options must be named (got a positional value at [1])"
 * `where` names the call as users write it ("Inspector:to_dataframe");
 * `argn` is the argument's position as users count it (self excluded).
 * Keys are read raw; no user code runs. */
void et_lua_check_options(lua_State *L, int arg, const char *where, const et_lua_opt *spec,
                          int argn);

/* Argument `arg` must be a sink (nil allowed when `optional`); raises
 * "<where>: bad argument #<argn> (file expected, got <type>)". */
void et_lua_check_sink(lua_State *L, int arg, const char *where, int argn, int optional);

/* Push field `key` of the options table at `idx` read raw (nil when `idx`
 * is not a table); returns its type.  Options are read as checked: a
 * metatable of the options table is not consulted. */
int et_lua_opt_get(lua_State *L, int idx, const char *key);

/* The sequence of strings at `arg` (l_contract.c; read raw: no metamethod runs) as a
 * NULL-terminated array of its strings, in a userdata pushed on the stack
 * (the strings stay anchored in the table, which must stay reachable while
 * the array is used); *n is its length.  Raises "<fn>: bad argument #N (a
 * sequence of <what> expected, got T)" and "<fn>: <what>[k]: expected a
 * string, got T". */
const char **et_lua_check_strings(lua_State *L, int arg, const char *fn, const char *what,
                                  size_t *n);

/* Add _core.check_options(where, opts, spec [, argn]) -> opts to the
 * table on top (the same rule for the Lua library; spec = {key = "types"}). */
void et_lua_open_contract(lua_State *L);

#endif
