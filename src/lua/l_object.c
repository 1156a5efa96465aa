/*
 * l_object.c - the object model every userdata type of the binding shares
 * (binding.h, docs/lua-api.md "Lifetimes and contracts"): owners, pins and
 * finalizers; the dispatch of methods and fields (self checked, arguments
 * counted, owner pinned, cached fields); read-only fields and sequences;
 * the standard-library functions the binding keeps from the start.
 *
 * Why pins: C code of the binding holds pointers into an owner (the mapped
 * dump, an event name, a graph) while it calls into Lua - the user's
 * parser, converter, warning handler or sink, a metamethod of a user's
 * value, or just an allocation, at which the collector may run a user's
 * finalizer.  Any of them may call owner:close().  Every method, field read
 * and __tostring therefore runs as a protected call with its owner pinned,
 * and close() refuses a pinned owner.  A protected call (rather than a
 * to-be-closed slot) releases the pin on every path: an error, an attempt
 * to yield across the C call, and inside a coroutine that dies with an
 * error (whose to-be-closed slots would stay open).
 */
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "l_pyobj.h" /* et_lua_pairs_in_order */

#define CBUFFER_MT "etinspect.cbuffer"
#define REQUIRE_KEY "etinspect.require"
#define STDOUT_KEY "etinspect.stdout"
#define STD_KEY "etinspect.std"

/* ---- owners -------------------------------------------------------------- */

void et_lua_owner_init(et_lua_owner *o, const et_lua_owner_class *cls)
{
    memset(o, 0, sizeof *o);
    o->obj.magic = ET_LUA_OBJ_MAGIC;
    o->obj.owner = o;
    o->cls = cls;
}

et_lua_owner *et_lua_owner_of(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) < sizeof(et_lua_obj))
        return NULL;
    const et_lua_obj *h = lua_touserdata(L, idx);
    return h->magic == ET_LUA_OBJ_MAGIC ? h->owner : NULL;
}

void et_lua_pin(et_lua_owner *o, const char *op)
{
    if (o->pins++ == 0) {
        o->op = op;
        o->op_type = o->op_key = NULL;
    }
}

/* Pin for a field read: the operation is named "Type.key". */
static void pin_field(et_lua_owner *o, const char *type, const char *key)
{
    if (o->pins++ == 0) {
        o->op = NULL;
        o->op_type = type;
        o->op_key = key;
    }
}

static void release(lua_State *L, et_lua_owner *o)
{
    o->closed = true;
    o->finalized = false;
    o->cls->release(L, o);
}

void et_lua_unpin(lua_State *L, et_lua_owner *o)
{
    (void)L;
    if (o->pins && --o->pins == 0)
        o->op = o->op_type = o->op_key = NULL;
}

/* Push the name of the operation pinning `o`. */
static const char *push_op(lua_State *L, const et_lua_owner *o)
{
    if (o->op_type)
        return lua_pushfstring(L, "%s.%s", o->op_type, o->op_key);
    return lua_pushstring(L, o->op ? o->op : "an operation");
}

/* close() of an owner: nothing when already closed; refused (a Lua
 * error) while pinned or while users > 0; else releases it. */
static void et_lua_owner_close(lua_State *L, et_lua_owner *o)
{
    if (o->closed)
        return;
    if (o->pins) {
        const char *op = push_op(L, o);
        luaL_error(L, "%s is busy (%s is running); close it after %s returns", o->cls->name, op,
                   op);
    }
    if (o->users)
        luaL_error(L, "%s", o->cls->in_use_msg);
    release(L, o);
}

void et_lua_owner_unuse(lua_State *L, et_lua_owner *o)
{
    if (o->users)
        o->users--;
    if (!o->users && o->finalized && !o->closed)
        release(L, o);
}

int et_lua_closed_error(lua_State *L, const char *type, const et_lua_owner *o)
{
    if (!type)
        return luaL_error(L, "%s", o->cls->closed_msg);
    return luaL_error(L, "%s used after its %s was closed", type, o->cls->noun);
}

/* Is the running C function a finalizer called by the collector (not by
 * hand through the debug library)? */
static int in_finalizer(lua_State *L)
{
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "n", &ar))
        return 0;
    return ar.namewhat && strcmp(ar.namewhat, "metamethod") == 0 && ar.name &&
           strcmp(ar.name, "__gc") == 0;
}

/* The owner that is argument 1 (raises for anything else). */
static et_lua_owner *check_owner(lua_State *L)
{
    et_lua_owner *o = et_lua_owner_of(L, 1);
    if (!o || o->obj.owner != o)
        luaL_error(L, "close: expected an Inspector, ETRecord or other closable object, got %s",
                   luaL_typename(L, 1));
    return o;
}

/* owner:close() and __close */
static int owner_close(lua_State *L)
{
    et_lua_owner_close(L, check_owner(L));
    return 0;
}

/* __gc: the collector releases the owner (after its last user when other
 * owners point into it) and frees what it kept after close() (its
 * class's collect); called by hand it is a close(). */
static int owner_gc(lua_State *L)
{
    et_lua_owner *o = et_lua_owner_of(L, 1);
    if (!o || o->obj.owner != o)
        return 0;
    if (!in_finalizer(L)) {
        et_lua_owner_close(L, o);
        return 0;
    }
    if (!o->closed) {
        if (o->users)
            o->finalized = true;
        else
            release(L, o);
    }
    if (o->cls->collect)
        o->cls->collect(L, o);
    return 0;
}

/* Does message `m` start with a source position ("chunk:12: ")? */
static int has_position(const char *m)
{
    const char *c = m;
    while (*c && *c != '\n') {
        if (c[0] == ':' && c[1] >= '0' && c[1] <= '9') {
            const char *d = c + 1;
            while (*d >= '0' && *d <= '9')
                d++;
            if (d[0] == ':' && d[1] == ' ')
                return 1;
        }
        c++;
    }
    return 0;
}

/* Raise the error on top of the stack again from the running C function
 * (a method wrapper or the field dispatch), with the position of the
 * line that called it when the message has none: errors of the binding
 * read as those of Lua's own C functions ("script.lua:12: field 'name' of
 * Event is read-only").  Errors from the user's code keep theirs. */
static int rethrow(lua_State *L)
{
    if (lua_type(L, -1) == LUA_TSTRING && !has_position(lua_tostring(L, -1))) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* ---- methods --------------------------------------------------------------- */

/* Is argument 1 a userdata whose metatable is the one at upvalue 3? */
static int self_ok(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TUSERDATA || !lua_getmetatable(L, 1))
        return 0;
    int ok = lua_rawequal(L, -1, lua_upvalueindex(3));
    lua_pop(L, 1);
    return ok;
}

/* The wrapper of every C method.  Upvalues: 1 the function, 2 its name as
 * users write it ("Inspector:write_trace"), 3 the metatable of self's type
 * (nil: self not checked), 4 max_args + 1 (0: not checked) * 256 + flags. */
static int method_tramp(lua_State *L)
{
    const char *qname = lua_tostring(L, lua_upvalueindex(2));
    lua_Integer spec = lua_tointeger(L, lua_upvalueindex(4));
    int max_args = (int)(spec >> 8) - 1;
    unsigned flags = (unsigned)(spec & 0xff);
    int nargs = lua_gettop(L) - 1;
    if (!lua_isnil(L, lua_upvalueindex(3)) && !self_ok(L)) {
        const char *got = luaL_getmetafield(L, 1, "__name") == LUA_TSTRING ? lua_tostring(L, -1)
                                                                            : luaL_typename(L, 1);
        if (lua_isnone(L, 1))
            got = "no value";
        lua_pushlstring(L, qname, strcspn(qname, ":")); /* the type's name */
        return luaL_error(L, "%s: bad self (%s expected, got %s)", qname, lua_tostring(L, -1),
                          got);
    }
    if (max_args >= 0 && nargs > max_args)
        return luaL_error(L, "%s: too many arguments (it takes %d, got %d)", qname, max_args,
                          nargs);
    et_lua_owner *o = (flags & ET_LUA_NOPIN) ? NULL : et_lua_owner_of(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (o)
        et_lua_pin(o, qname);
    int rc = lua_pcall(L, nargs + 1, LUA_MULTRET, 0);
    if (o)
        et_lua_unpin(L, o);
    if (rc == LUA_OK)
        return lua_gettop(L);
    /* "bad argument #N to '?' (...)" of luaL_argerror, raised inside the
     * protected call where the method has no name: say it as users count
     * (self excluded) with the method's name */
    size_t len;
    const char *m = lua_tolstring(L, -1, &len);
    int n;
    if (lua_type(L, -1) == LUA_TSTRING && strncmp(m, "bad argument #", 14) == 0 &&
        (n = atoi(m + 14)) > 0 && len && m[len - 1] == ')') {
        const char *open = strstr(m, " (");
        if (open) {
            int k = (int)(len - (size_t)(open + 2 - m) - 1);
            if (flags & ET_LUA_FUNCTION)
                lua_pushfstring(L, "%s: bad argument #%d (", qname, n);
            else if (n > 1)
                lua_pushfstring(L, "%s: bad argument #%d (", qname, n - 1);
            else
                lua_pushfstring(L, "%s: bad self (", qname);
            lua_pushlstring(L, open + 2, (size_t)k);
            lua_pushliteral(L, ")");
            lua_concat(L, 3);
        }
    }
    return rethrow(L);
}

/* Push the wrapper of the function at `fn` (absolute index), method `name`
 * of type `type` ("Inspector") registered as `mt` (NULL: self unchecked);
 * with ET_LUA_FUNCTION a function named `name` (type NULL). */
static void push_wrapped(lua_State *L, int fn, const char *type, const char *mt, const char *name,
                         int max_args, unsigned flags)
{
    lua_pushvalue(L, fn);
    if (type)
        lua_pushfstring(L, "%s:%s", type, name);
    else
        lua_pushstring(L, name);
    if (mt)
        luaL_getmetatable(L, mt);
    else
        lua_pushnil(L);
    lua_pushinteger(L, (lua_Integer)(max_args + 1) * 256 + (lua_Integer)flags);
    lua_pushcclosure(L, method_tramp, 4);
}

void et_lua_push_pinned(lua_State *L, lua_CFunction fn, const char *name)
{
    lua_pushcfunction(L, fn);
    push_wrapped(L, lua_gettop(L), NULL, NULL, name, -1, ET_LUA_FUNCTION);
    lua_remove(L, -2);
}

/* ---- fields ----------------------------------------------------------------- */

int et_lua_record_index(lua_State *L)
{
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    int slot = 0, t = lua_rawget(L, lua_upvalueindex(3)); /* 3: a leaf, or a cached field */
    if (t == LUA_TFUNCTION) { /* ET_LUA_LEAF: called in place */
        lua_CFunction f = lua_tocfunction(L, 3);
        lua_settop(L, 1);
        return f ? f(L) : 0;
    }
    if (t == LUA_TNUMBER) {
        slot = (int)lua_tointeger(L, 3);
        if (lua_getiuservalue(L, 1, slot) > LUA_TNIL) {
            et_lua_owner *o = et_lua_owner_of(L, 1);
            if (o && o->closed)
                return et_lua_closed_error(L, o == lua_touserdata(L, 1)
                                                  ? NULL
                                                  : lua_tostring(L, lua_upvalueindex(4)),
                                           o);
            return 1;
        }
    }
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) /* 3: a method (wrapped) */
        return 1;
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TFUNCTION) { /* 3: the getter */
        lua_pushvalue(L, 1);
        et_lua_owner *o = et_lua_owner_of(L, 1);
        if (o)
            pin_field(o, lua_tostring(L, lua_upvalueindex(4)), lua_tostring(L, 2));
        int rc = lua_pcall(L, 1, 1, 0);
        if (o)
            et_lua_unpin(L, o);
        if (rc != LUA_OK)
            return rethrow(L);
        if (slot && !lua_isnil(L, -1)) {
            lua_pushvalue(L, -1);
            lua_setiuservalue(L, 1, slot);
        }
        return 1;
    }
    if (lua_type(L, 2) == LUA_TSTRING)
        return luaL_error(L, "%s has no field or method '%s'", lua_tostring(L, lua_upvalueindex(4)),
                          lua_tostring(L, 2));
    lua_pushnil(L);
    return 1;
}

/* __newindex: every field is read-only.  Upvalues: 1 methods, 2 getters,
 * 3 the type's name. */
static int record_newindex(lua_State *L)
{
    const char *type = lua_tostring(L, lua_upvalueindex(3));
    if (lua_type(L, 2) != LUA_TSTRING)
        return luaL_error(L, "%s is read-only (cannot set a %s key)", type, luaL_typename(L, 2));
    const char *k = lua_tostring(L, 2);
    lua_pushvalue(L, 2);
    int known = lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL;
    lua_pushvalue(L, 2);
    known |= lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL;
    if (known)
        return luaL_error(L, "field '%s' of %s is read-only", k, type);
    return luaL_error(L, "%s has no field '%s' (its fields are read-only; keep your own data in "
                         "a table)",
                      type, k);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t push_sorted_keys(lua_State *L, int t, int (*keep)(lua_State *L));
static int keep_all(lua_State *L);

/* __pairs for record-like userdata: iterates the getter names (sorted) and
 * their values. */
static int et_lua_record_pairs(lua_State *L)
{
    if (!lua_getmetatable(L, 1) || lua_getfield(L, -1, "__getters") != LUA_TTABLE)
        return luaL_error(L, "not a record");
    push_sorted_keys(L, -1, keep_all);
    return et_lua_pairs_in_order(L, 1, -1);
}

/* ---- read-only sequences ------------------------------------------------------ */

static int ro_newindex(lua_State *L)
{
    return luaL_error(L, "%s is read-only (a sequence of the API: copy it to change it)",
                      lua_tostring(L, lua_upvalueindex(1)));
}

/* Push the sequence behind the read-only view at `idx` (for C code). */
static void et_lua_push_backing(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (!lua_getmetatable(L, idx)) {
        lua_pushvalue(L, idx);
        return;
    }
    lua_pushliteral(L, "__index");
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

static int ro_len(lua_State *L)
{
    et_lua_push_backing(L, 1);
    lua_pushinteger(L, lua_istable(L, -1) ? (lua_Integer)lua_rawlen(L, -1) : 0);
    return 1;
}

static int ro_next(lua_State *L)
{
    lua_Integer i = luaL_checkinteger(L, 2) + 1;
    if (lua_geti(L, 1, i) == LUA_TNIL)
        return 0;
    lua_pushinteger(L, i);
    lua_insert(L, -2);
    return 2;
}

static int ro_pairs(lua_State *L)
{
    lua_pushcfunction(L, ro_next);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    return 3;
}

/* Is the value at `idx` a read-only view (et_lua_push_readonly, of a
 * table: its __len is ro_len; et_lua_push_readonly_c, of what C keeps:
 * its __newindex, as every view's, is ro_newindex)?  Reads raw: runs no
 * user code. */
static int et_lua_is_view(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
        return 0;
    lua_pushliteral(L, "__len");
    lua_rawget(L, -2);
    int view = lua_tocfunction(L, -1) == ro_len;
    lua_pushliteral(L, "__newindex");
    lua_rawget(L, -3);
    view = view || lua_tocfunction(L, -1) == ro_newindex;
    lua_pop(L, 3);
    return view;
}

/* _core.is_view(v) -> boolean: is v a read-only sequence of the API
 * (et_lua_push_readonly)?  Runs no user code. */
static int core_is_view(lua_State *L)
{
    lua_pushboolean(L, et_lua_is_view(L, 1));
    return 1;
}

/* Push a read-only view: an empty table whose metatable reads through
 * `index` and `len` (the two values on top of the stack, popped), refuses
 * writes naming `what`, and hides itself.  Both kinds of view below are
 * made here, so et_lua_is_view and the messages agree. */
static void push_view(lua_State *L, const char *what)
{
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 5);
    lua_rotate(L, -4, 2); /* index, len, view, mt -> view, mt, index, len */
    lua_setfield(L, -3, "__len");
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, what);
    lua_pushcclosure(L, ro_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, ro_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

void et_lua_push_readonly(lua_State *L, int idx, const char *what)
{
    lua_pushvalue(L, idx);
    lua_pushcfunction(L, ro_len);
    push_view(L, what);
}

void et_lua_push_readonly_c(lua_State *L, int anchor, lua_CFunction len, lua_CFunction index,
                            const char *what)
{
    anchor = lua_absindex(L, anchor);
    lua_pushvalue(L, anchor);
    lua_pushcclosure(L, index, 1);
    lua_pushvalue(L, anchor);
    lua_pushcclosure(L, len, 1);
    push_view(L, what);
}

/* ---- types ----------------------------------------------------------------- */

/* Wrap and store method `m` in the methods table at `methods` of type
 * `type` registered as `mt`. */
static void put_method(lua_State *L, int methods, const char *type, const char *mt,
                       const et_lua_method *m)
{
    lua_pushcfunction(L, m->fn);
    push_wrapped(L, lua_gettop(L), type, mt, m->name, m->max_args, m->flags);
    lua_setfield(L, methods, m->name);
    lua_pop(L, 1);
}

/* Store getter `g`: the function in the getters table; in the cache
 * table its user value slot, or for a leaf the function itself (the
 * dispatch looks there first). */
static void put_getter(lua_State *L, int getters, int cache, const et_lua_getter *g)
{
    lua_pushcfunction(L, g->fn);
    lua_setfield(L, getters, g->name);
    if (g->flags & ET_LUA_LEAF) {
        lua_pushcfunction(L, g->fn);
        lua_setfield(L, cache, g->name);
    } else if (g->cache) {
        lua_pushinteger(L, g->cache);
        lua_setfield(L, cache, g->name);
    }
}

/* The short name of the metatable at `mt` (its __name after the last
 * '.'); left on the stack. */
static const char *push_type_name(lua_State *L, int mt)
{
    lua_getfield(L, mt, "__name");
    const char *n = lua_tostring(L, -1);
    const char *dot = n ? strrchr(n, '.') : NULL;
    if (dot) {
        lua_pushstring(L, dot + 1);
        lua_remove(L, -2);
    } else if (!n) {
        lua_pop(L, 1);
        lua_pushliteral(L, "object");
    }
    return lua_tostring(L, -1);
}

/* Fill the metatable at `mt` (its __name set) from the two lists (either
 * may be NULL) or, when `reg_methods` / `reg_getters` are given, from
 * luaL_Reg lists. */
static void setup(lua_State *L, int mt, const char *mtname, const et_lua_method *methods,
                  const et_lua_getter *getters, const luaL_Reg *reg_methods,
                  const luaL_Reg *reg_getters, lua_CFunction index, lua_CFunction newindex)
{
    mt = lua_absindex(L, mt);
    int top = lua_gettop(L);
    const char *type = push_type_name(L, mt); /* top + 1 */
    if (!mtname) {
        /* the registry name: "etinspect.<type>" when that is this metatable */
        mtname = lua_pushfstring(L, "etinspect.%s", type);
        lua_pushvalue(L, -1);
        lua_rawget(L, LUA_REGISTRYINDEX);
        if (!lua_rawequal(L, -1, mt))
            mtname = NULL; /* self unchecked */
        lua_pop(L, 1);
    } else {
        lua_pushnil(L);
    }
    lua_pushnil(L); /* top + 3 */
    lua_newtable(L); /* top + 4: methods */
    int m = lua_gettop(L);
    lua_newtable(L); /* top + 5: getters */
    int g = m + 1;
    lua_newtable(L); /* top + 6: cache slots */
    int c = m + 2;
    for (int i = 0; methods && methods[i].name; i++)
        put_method(L, m, type, mtname, &methods[i]);
    for (int i = 0; reg_methods && reg_methods[i].name; i++) {
        et_lua_method me = {reg_methods[i].name, reg_methods[i].func, -1, 0};
        put_method(L, m, type, mtname, &me);
    }
    for (int i = 0; getters && getters[i].name; i++)
        put_getter(L, g, c, &getters[i]);
    for (int i = 0; reg_getters && reg_getters[i].name; i++) {
        et_lua_getter ge = {reg_getters[i].name, reg_getters[i].func, 0, 0};
        put_getter(L, g, c, &ge);
    }
    lua_pushvalue(L, m);
    lua_setfield(L, mt, "__methods"); /* the metatable is the binding's own: scripts
                                        * reach none of it (_core.members, _core.extend) */
    lua_pushvalue(L, g);
    lua_setfield(L, mt, "__getters");
    lua_pushvalue(L, c);
    lua_setfield(L, mt, "__cache");
    lua_pushvalue(L, m);
    lua_pushvalue(L, g);
    lua_pushvalue(L, c);
    lua_pushvalue(L, top + 1);
    lua_pushcclosure(L, index ? index : et_lua_record_index, 4);
    lua_setfield(L, mt, "__index");
    if (newindex) {
        lua_pushcfunction(L, newindex);
    } else {
        lua_pushvalue(L, m);
        lua_pushvalue(L, g);
        lua_pushvalue(L, top + 1);
        lua_pushcclosure(L, record_newindex, 3);
    }
    lua_setfield(L, mt, "__newindex");
    lua_pushcfunction(L, et_lua_record_pairs);
    lua_setfield(L, mt, "__pairs");
    /* getmetatable(obj) gives {__name = "Type"}, read-only: not the
     * metatable, whose __gc must stay out of reach */
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, top + 1);
    lua_setfield(L, -2, "__name");
    lua_pushfstring(L, "the metatable of %s", type);
    et_lua_push_readonly(L, -2, lua_tostring(L, -1));
    lua_setfield(L, mt, "__metatable");
    lua_settop(L, top);
}

void et_lua_define_type(lua_State *L, const et_lua_type *t)
{
    luaL_newmetatable(L, t->mt);
    int mt = lua_gettop(L);
    lua_pushstring(L, t->name);
    lua_setfield(L, mt, "__name");
    setup(L, mt, t->mt, t->methods, t->getters, NULL, NULL, t->index, t->newindex);
    lua_getfield(L, mt, "__methods");
    int methods = lua_gettop(L);
    if (t->owner) {
        et_lua_method close = {"close", owner_close, 0, ET_LUA_NOPIN};
        put_method(L, methods, t->name, t->mt, &close);
        lua_pushcfunction(L, owner_close);
        lua_setfield(L, mt, "__close");
        lua_pushcfunction(L, owner_gc);
        lua_setfield(L, mt, "__gc");
    }
    if (t->len) {
        lua_pushcfunction(L, t->len);
        lua_setfield(L, mt, "__len");
    }
    if (t->tostring) { /* pinned as a method is; self unchecked (a metamethod) */
        lua_pushcfunction(L, t->tostring);
        push_wrapped(L, lua_gettop(L), t->name, NULL, "__tostring", -1, 0);
        lua_setfield(L, mt, "__tostring");
        lua_pop(L, 1);
    }
    lua_settop(L, mt - 1);
}

void et_lua_add_method(lua_State *L, const char *mt, const et_lua_method *m)
{
    luaL_getmetatable(L, mt);
    int top = lua_gettop(L);
    const char *type = push_type_name(L, top);
    lua_getfield(L, top, "__methods");
    put_method(L, lua_gettop(L), type, mt, m);
    lua_settop(L, top - 1);
}

void et_lua_add_getter(lua_State *L, const char *mt, const et_lua_getter *g)
{
    luaL_getmetatable(L, mt);
    lua_getfield(L, -1, "__getters");
    lua_getfield(L, -2, "__cache");
    put_getter(L, lua_gettop(L) - 1, lua_gettop(L), g);
    lua_pop(L, 3);
}

/* ---- the Lua library's access to the types ----------------------------------- */

/* Push the metatable of the binding's type called `type` ("Inspector")
 * and return 1, or push nothing and return 0 when there is none (a
 * binding type is a registry entry "etinspect.<type>" made by
 * et_lua_define_type or et_lua_set_index: it has a __methods table). */
static int push_type_mt(lua_State *L, const char *type)
{
    lua_pushfstring(L, "etinspect.%s", type);
    lua_rawget(L, LUA_REGISTRYINDEX);
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushliteral(L, "__methods");
        int ok = lua_rawget(L, -2) == LUA_TTABLE;
        lua_pop(L, 1);
        if (ok)
            return 1;
    }
    lua_pop(L, 1);
    return 0;
}

/* Push a new sequence of the string keys of the table at `t` for which
 * `keep(L)` (the key at -2, the value at -1) is true, sorted; returns
 * its length.  Sorted in C: table.sort may be replaced by a script. */
static size_t push_sorted_keys(lua_State *L, int t, int (*keep)(lua_State *L))
{
    t = lua_absindex(L, t);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        n++;
    }
    const char **names = lua_newuserdatauv(L, (n ? n : 1) * sizeof *names, 0);
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (i < n && lua_type(L, -2) == LUA_TSTRING && keep(L))
            names[i++] = lua_tostring(L, -2); /* anchored as a key of t */
        lua_pop(L, 1);
    }
    qsort(names, i, sizeof *names, cmp_str);
    lua_createtable(L, (int)i, 0);
    for (size_t k = 0; k < i; k++) {
        lua_pushstring(L, names[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_remove(L, -2);
    return i;
}

static int keep_all(lua_State *L)
{
    (void)L;
    return 1;
}

/* The value (at -1) is a binding type's metatable? */
static int keep_type(lua_State *L)
{
    const char *k = lua_tostring(L, -2);
    if (strncmp(k, "etinspect.", 10) != 0 || lua_type(L, -1) != LUA_TTABLE)
        return 0;
    lua_pushliteral(L, "__methods");
    int ok = lua_rawget(L, -2) == LUA_TTABLE;
    lua_pop(L, 1);
    return ok;
}

/* Push the sorted sequence of the binding's type names ("Inspector"). */
static void push_type_names(lua_State *L)
{
    lua_pushvalue(L, LUA_REGISTRYINDEX);
    push_sorted_keys(L, -1, keep_type);
    lua_remove(L, -2);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) { /* "etinspect.Inspector" -> "Inspector" */
        lua_rawgeti(L, -1, i);
        lua_pushstring(L, lua_tostring(L, -1) + 10);
        lua_rawseti(L, -3, i);
        lua_pop(L, 1);
    }
}

/* _core.types() -> the sorted sequence of the binding's type names, those
 * _core.extend and _core.members take. */
static int core_types(lua_State *L)
{
    push_type_names(L);
    return 1;
}

/* Push "A, B, C" (quote "'": "'A', 'B', 'C'"): the sequence of strings
 * on top joined (popped). */
static const char *join_names(lua_State *L, const char *quote)
{
    luaL_Buffer b;
    int seq = lua_gettop(L);
    luaL_buffinit(L, &b);
    lua_Integer n = (lua_Integer)lua_rawlen(L, seq);
    for (lua_Integer i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addstring(&b, ", ");
        lua_rawgeti(L, seq, i);
        const char *k = lua_tostring(L, -1);
        lua_pop(L, 1);
        luaL_addstring(&b, quote);
        luaL_addstring(&b, k);
        luaL_addstring(&b, quote);
    }
    luaL_pushresult(&b);
    lua_remove(L, seq);
    return lua_tostring(L, -1);
}

/* _core.extend(type, methods): add each function of table `methods` as
 * a method of the binding's type `type` ("Inspector"), wrapped as every
 * method is (self checked, the owner pinned while it runs, argument
 * errors named "Type:name: ..."), so that Lua-library methods (report.lua,
 * html.lua, numeric.lua) dispatch as the C ones do.  Raises, adding
 * nothing, for an unknown type ("_core.extend: unknown type 'X' (types:
 * ...)"), a key that is not a string or a value that is not a function,
 * and names the type has already (methods or fields: "_core.extend:
 * Inspector has 'a', 'b' already"). */
static int core_extend(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING || lua_type(L, 2) != LUA_TTABLE) {
        int bad = lua_type(L, 1) != LUA_TSTRING ? 1 : 2;
        return luaL_error(L, "_core.extend: bad argument #%d (%s expected, got %s)", bad,
                          bad == 1 ? "type name" : "table of methods", luaL_typename(L, bad));
    }
    const char *type = lua_tostring(L, 1);
    lua_settop(L, 2);
    if (!push_type_mt(L, type)) {
        push_type_names(L);
        return luaL_error(L, "_core.extend: unknown type '%s' (types: %s)", type,
                          join_names(L, ""));
    }
    int mt = 3;
    lua_getfield(L, mt, "__methods"); /* 4 */
    lua_getfield(L, mt, "__getters"); /* 5 */
    lua_newtable(L); /* 6: the names the type has already */
    int taken = 0;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            return luaL_error(L, "_core.extend: %s: a method's name must be a string, got %s",
                              type, luaL_typename(L, -2));
        if (lua_type(L, -1) != LUA_TFUNCTION)
            return luaL_error(L, "_core.extend: %s:%s must be a function, got %s", type,
                              lua_tostring(L, -2), luaL_typename(L, -1));
        lua_pushvalue(L, -2);
        int have = lua_rawget(L, 4) != LUA_TNIL;
        lua_pop(L, 1);
        if (!have && lua_type(L, 5) == LUA_TTABLE) {
            lua_pushvalue(L, -2);
            have = lua_rawget(L, 5) != LUA_TNIL;
            lua_pop(L, 1);
        }
        if (have) {
            lua_pushvalue(L, -2);
            lua_pushboolean(L, 1);
            lua_rawset(L, 6);
            taken = 1;
        }
        lua_pop(L, 1);
    }
    if (taken) {
        push_sorted_keys(L, 6, keep_all);
        return luaL_error(L, "_core.extend: %s has %s already", type, join_names(L, "'"));
    }
    const char *mtname = lua_pushfstring(L, "etinspect.%s", type); /* 7 */
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        push_wrapped(L, lua_gettop(L), type, mtname, lua_tostring(L, -2), -1, 0);
        lua_pushvalue(L, -3);
        lua_insert(L, -2);
        lua_rawset(L, 4);
        lua_pop(L, 1);
    }
    return 0;
}

/* _core.members(v) -> getters, methods, lua: the field names and the
 * method names (each a sorted sequence) of the binding's userdata `v`, or
 * of the binding's type named `v` ("Inspector"), and the set (name ->
 * true) of the methods written in Lua (added by _core.extend); nothing
 * for any other value.  For the REPL's completion and help, which must
 * not reach the metatables (docs/lua-api.md, "Lifetimes and
 * contracts").  Runs no user code. */
static int core_members(lua_State *L)
{
    lua_settop(L, 1);
    if (lua_type(L, 1) == LUA_TSTRING) {
        if (!push_type_mt(L, lua_tostring(L, 1)))
            return 0;
    } else if (lua_type(L, 1) != LUA_TUSERDATA || !lua_getmetatable(L, 1)) {
        return 0;
    }
    lua_pushliteral(L, "__methods"); /* 2: the metatable */
    if (lua_rawget(L, 2) != LUA_TTABLE)
        return 0;
    lua_pushliteral(L, "__getters");
    if (lua_rawget(L, 2) != LUA_TTABLE)
        return 0;
    push_sorted_keys(L, 4, keep_all);   /* 5 */
    push_sorted_keys(L, 3, keep_all);   /* 6 */
    lua_newtable(L);                    /* 7 */
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        /* a wrapper whose function (upvalue 1) is a Lua function */
        if (lua_tocfunction(L, -1) == method_tramp && lua_getupvalue(L, -1, 1) &&
            lua_type(L, -1) == LUA_TFUNCTION && !lua_iscfunction(L, -1)) {
            lua_pushvalue(L, -3);
            lua_pushboolean(L, 1);
            lua_rawset(L, 7);
        }
        lua_settop(L, 8); /* the key */
    }
    return 3;
}

/* _core.peek(v, k) -> value: v[k] for the binding's userdata `v` and a
 * method or field name `k`, the field's getter run pinned as the dispatch
 * runs it, but its value not kept in the object's cache (so that a later
 * v[k] runs the getter again: the REPL's completion reads fields while
 * warnings are held, and the line run then gives them); nothing for
 * another name or value.  Raises the getter's error. */
static int core_peek(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_type(L, 1) != LUA_TUSERDATA || lua_type(L, 2) != LUA_TSTRING || !lua_getmetatable(L, 1))
        return 0;
    lua_pushliteral(L, "__methods"); /* 3: the metatable */
    if (lua_rawget(L, 3) != LUA_TTABLE)
        return 0;
    lua_pushvalue(L, 2); /* 4: the methods */
    if (lua_rawget(L, 4) != LUA_TNIL)
        return 1; /* 5: a method */
    lua_settop(L, 3);
    lua_pushliteral(L, "__getters");
    if (lua_rawget(L, 3) != LUA_TTABLE) /* 4: the getters */
        return 0;
    const char *type = push_type_name(L, 3); /* 5, anchored while pinned */
    lua_pushvalue(L, 2);
    if (lua_rawget(L, 4) != LUA_TFUNCTION) /* 6: the getter */
        return 0;
    lua_pushvalue(L, 1);
    et_lua_owner *o = et_lua_owner_of(L, 1);
    if (o)
        pin_field(o, type, lua_tostring(L, 2));
    int rc = lua_pcall(L, 1, 1, 0);
    if (o)
        et_lua_unpin(L, o);
    if (rc != LUA_OK)
        return rethrow(L);
    return 1;
}

void et_lua_open_object(lua_State *L)
{
    lua_pushcfunction(L, core_is_view);
    lua_setfield(L, -2, "is_view");
    lua_pushcfunction(L, core_extend);
    lua_setfield(L, -2, "extend");
    lua_pushcfunction(L, core_members);
    lua_setfield(L, -2, "members");
    lua_pushcfunction(L, core_peek);
    lua_setfield(L, -2, "peek");
    lua_pushcfunction(L, core_types);
    lua_setfield(L, -2, "types");
    lua_getfield(L, LUA_REGISTRYINDEX, STD_KEY);
    lua_setfield(L, -2, "std");
}

/* ---- C buffers owned by Lua ------------------------------------------------------ */

static int cbuffer_free(lua_State *L)
{
    void **p = luaL_checkudata(L, 1, CBUFFER_MT);
    free(*p);
    *p = NULL;
    return 0;
}

void *et_lua_push_holder(lua_State *L, size_t size, const char *mt, lua_CFunction gc)
{
    void *p = lua_newuserdatauv(L, size, 0);
    memset(p, 0, size);
    if (luaL_newmetatable(L, mt)) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__close");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    return p;
}

void **et_lua_push_cbuffer(lua_State *L, int tbc)
{
    void **box = et_lua_push_holder(L, sizeof *box, CBUFFER_MT, cbuffer_free);
    if (tbc)
        lua_toclose(L, -1);
    return box;
}

/* ---- the standard library, as it was ------------------------------------------------ */

static int std_newindex(lua_State *L)
{
    return luaL_error(L, "etinspect: a library module assigns the global '%s'",
                      lua_tostring(L, 2) ? lua_tostring(L, 2) : luaL_typename(L, 2));
}

/* The standard library as it is now, for the Lua library's modules (each
 * starts with `local _ENV = require("etinspect")._core.std`): the base
 * functions and copies of the library tables, so that a script setting
 * `table = nil`, `string = nil` or `table.concat = nil` later breaks no
 * module; `package` and `_G` are the real ones; other names are read
 * from the globals; assigning a global from a module raises. */
static void capture_std(lua_State *L)
{
    static const char *const fns[] = {
        "assert", "collectgarbage", "dofile", "error", "getmetatable", "ipairs", "load",
        "loadfile", "next", "pairs", "pcall", "print", "rawequal", "rawget", "rawlen",
        "rawset", "require", "select", "setmetatable", "tonumber", "tostring", "type",
        "warn", "xpcall", "_VERSION", "package", "_G", NULL};
    static const char *const libs[] = {"coroutine", "debug", "io", "math", "os",
                                       "string", "table", "utf8", NULL};
    lua_createtable(L, 0, 40);
    int std = lua_gettop(L);
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    for (int i = 0; fns[i]; i++) {
        lua_getfield(L, g, fns[i]);
        lua_setfield(L, std, fns[i]);
    }
    for (int i = 0; libs[i]; i++) {
        if (lua_getfield(L, g, libs[i]) != LUA_TTABLE) {
            lua_pop(L, 1);
            continue;
        }
        lua_newtable(L);
        lua_pushnil(L);
        while (lua_next(L, -3)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        }
        lua_setfield(L, std, libs[i]);
        lua_pop(L, 1);
    }
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, g);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, std_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, std);
    lua_pushvalue(L, std);
    lua_setfield(L, LUA_REGISTRYINDEX, STD_KEY);
    lua_settop(L, std - 1);
}

void et_lua_capture_stdlib(lua_State *L)
{
    capture_std(L);
    lua_getglobal(L, "require");
    lua_setfield(L, LUA_REGISTRYINDEX, REQUIRE_KEY);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, "io") == LUA_TTABLE)
        lua_getfield(L, -1, "stdout");
    else
        lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, STDOUT_KEY);
    lua_pop(L, 2);
}

void et_lua_require(lua_State *L, const char *name)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, REQUIRE_KEY) != LUA_TFUNCTION)
        luaL_error(L, "require was not available when etinspect was opened");
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
}

void et_lua_push_stdout(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, STDOUT_KEY) == LUA_TNIL)
        luaL_error(L, "no standard output: the io library was not loaded");
}
