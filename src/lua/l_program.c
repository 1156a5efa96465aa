/*
 * l_program.c - Program, Method, Instruction and Operator: an ExecuTorch
 * program (.pte) in Lua (the C reader is src/core/format/program.h;
 * docs/programs.md, docs/lua-api.md "Programs").
 *
 *   etinspect.parse_program(path) -> Program
 *       Errors (Lua errors): "PATH: No such file or directory", "PATH: not
 *       an ExecuTorch program: expected file identifier \"ET12\" at byte 4,
 *       found ...", "PATH: execution_plan[0]...: byte N: ..." (every
 *       message of et_program_open).
 *
 *   prog.path            the path given
 *   prog.version         Program.version
 *   prog.file_size       bytes of the file
 *   prog.program_size    bytes of the FlatBuffer (file_size without the
 *                        segment data)
 *   prog.segments        sequence of {offset = bytes past the segment base,
 *                        size = bytes}
 *   prog.constants       {buffers = constant_buffer entries, buffer_bytes,
 *                        segment = {index, bytes, offsets} or nil}
 *   prog.methods         read-only sequence of Method, in the program's
 *                        order (the same userdata on every read)
 *   prog:method(name)    the Method named `name`, or nil
 *   prog:summary()       the text `etinspect PROGRAM.pte` prints
 *   prog:diff(other)     what changed from prog to the Program `other`
 *                        (operators, delegate blobs, planned memory,
 *                        constants; progsummary.h), as text
 *   prog:close()         free it now (also __close); its Methods,
 *                        Instructions and Operators then raise "Method used
 *                        after its program was closed" (...)
 *   tostring(prog)       "Program 'PATH' (N methods)"
 *
 *   m.name, m.index      the method's name; its 1-based place in prog.methods
 *   m.instructions       read-only sequence of Instruction over all chains
 *                        (instructions[k] has id k - 1: the instruction id an
 *                        ETDump event carries)
 *   m.operators          read-only sequence of Operator
 *   m.delegates          sequence of {backend, bytes, location ("inline" or
 *                        "segment"), index, calls, compile_specs = {key =
 *                        value bytes as a string}}
 *   m.planned_memory     {bytes = total, buffers = sequence of
 *                        non_const_buffer_sizes}
 *   m.num_values, m.num_inputs, m.num_outputs, m.num_chains
 *   #m                   the number of instructions
 *   tostring(m)          "Method 'forward' (3 instructions)"
 *
 *   ins.id               0-based instruction id; ins.chain: 0-based chain
 *   ins.kind             "KernelCall", "DelegateCall", "MoveCall",
 *                        "JumpFalseCall" or "FreeCall"
 *   ins.operator         a KernelCall's operator ("aten::add.out"), or nil
 *   ins.backend          a DelegateCall's backend id, or nil
 *   ins.args             sequence of value indices (KernelCall,
 *                        DelegateCall), else empty
 *   tostring(ins)        "Instruction 0: KernelCall aten::add.out"
 *
 *   op.name, op.overload ("aten::add", "out"; overload "" when absent)
 *   op.full_name         "aten::add.out"
 *   op.calls             the KernelCalls of it in the method
 *   tostring(op)         "Operator aten::add.out (1 call)"
 *
 * Methods, Instructions and Operators depend on their Program (user
 * value 1 anchors it) under docs/lua-api.md "Lifetimes and contracts".
 *
 * Added to Event (an Inspector opened with program_path; proglink.h):
 *   ev.program_instruction   nil, or {method = "forward", id = instruction
 *                            id, kind = "KernelCall", operator =
 *                            "aten::add.out" (kernel calls), backend =
 *                            "XnnpackBackend" (delegate calls)}
 */
#include <string.h>

#include "binding.h"
#include "l_hooks.h"
#include "model/proglink.h"
#include "output/progsummary.h"

#define ET_MT_PROGRAM "etinspect.Program"
#define ET_MT_PMETHOD "etinspect.Method"
#define ET_MT_PINSTR "etinspect.Instruction"
#define ET_MT_POP "etinspect.Operator"

typedef struct lua_prog_box {
    et_lua_owner own;
    et_program *p;
} lua_prog_box;

/* A Method, Instruction or Operator: which one of which method. */
typedef struct lua_pdep_box {
    et_lua_obj obj;
    lua_prog_box *prog;
    uint32_t method;
    uint32_t chain;  /* Instruction: its chain */
    uint32_t index;  /* Instruction: index in its chain; Operator: index */
    uint64_t id;     /* Instruction: id over the chains */
} lua_pdep_box;

static void prog_release(lua_State *L, et_lua_owner *o)
{
    (void)L;
    lua_prog_box *b = (lua_prog_box *)o;
    et_program_free(b->p);
    b->p = NULL;
}

static const et_lua_owner_class prog_class = {
    "Program", "program", "Program used after it was closed",
    "Program is in use; close it later", prog_release, NULL};

static lua_prog_box *check_prog(lua_State *L, int arg)
{
    lua_prog_box *b = luaL_checkudata(L, arg, ET_MT_PROGRAM);
    if (!b->p)
        luaL_error(L, "Program used after it was closed");
    return b;
}

/* The dependent at `arg` of type `mt` (named `type` in messages). */
static lua_pdep_box *check_dep(lua_State *L, int arg, const char *mt, const char *type)
{
    lua_pdep_box *b = luaL_checkudata(L, arg, mt);
    if (!b->prog->p)
        luaL_error(L, "%s used after its program was closed", type);
    return b;
}

static void dep_method(const lua_pdep_box *b, et_pmethod *m)
{
    et_program_method(b->prog->p, b->method, m);
}

/* Push a new dependent of the Program userdata at `prog_idx`. */
static lua_pdep_box *push_dep(lua_State *L, int prog_idx, const char *mt, uint32_t method)
{
    prog_idx = lua_absindex(L, prog_idx);
    lua_prog_box *pb = check_prog(L, prog_idx);
    lua_pdep_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    memset(b, 0, sizeof *b);
    b->obj.magic = ET_LUA_OBJ_MAGIC;
    b->obj.owner = &pb->own;
    b->prog = pb;
    b->method = method;
    luaL_setmetatable(L, mt);
    lua_pushvalue(L, prog_idx);
    lua_setiuservalue(L, -2, 1);
    return b;
}

/* ---- Program ---- */

int et_lua_parse_program(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "etinspect.parse_program: bad argument #1 (path string expected, "
                             "got %s)",
                          luaL_typename(L, 1));
    if (lua_gettop(L) > 1)
        return luaL_error(L, "etinspect.parse_program: takes one argument (the path), got %d",
                          lua_gettop(L));
    const char *path = lua_tostring(L, 1);
    lua_prog_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    et_lua_owner_init(&b->own, &prog_class);
    b->p = NULL;
    luaL_setmetatable(L, ET_MT_PROGRAM);
    et_error err;
    if (!(b->p = et_program_open_path(path, &err)))
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int prog_path(lua_State *L)
{
    lua_prog_box *b = check_prog(L, 1);
    lua_pushstring(L, b->p->path ? b->p->path : "");
    return 1;
}

static int prog_version(lua_State *L)
{
    lua_pushinteger(L, check_prog(L, 1)->p->version);
    return 1;
}

static int prog_file_size(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_prog(L, 1)->p->file_size);
    return 1;
}

static int prog_program_size(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_prog(L, 1)->p->program_size);
    return 1;
}

static int prog_segments(lua_State *L)
{
    const et_program *p = check_prog(L, 1)->p;
    lua_createtable(L, (int)p->segments.count, 0);
    for (uint32_t i = 0; i < p->segments.count; i++) {
        uint64_t off, size;
        et_program_segment(p, i, &off, &size);
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, (lua_Integer)off);
        lua_setfield(L, -2, "offset");
        lua_pushinteger(L, (lua_Integer)size);
        lua_setfield(L, -2, "size");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int prog_constants(lua_State *L)
{
    const et_program *p = check_prog(L, 1)->p;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < p->constant_buffer.count; i++)
        bytes += et_program_constant_buffer_bytes(p, i);
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, p->constant_buffer.count);
    lua_setfield(L, -2, "buffers");
    lua_pushinteger(L, (lua_Integer)bytes);
    lua_setfield(L, -2, "buffer_bytes");
    if (p->has_constant_segment) {
        uint64_t off, size;
        et_program_segment(p, p->constant_segment_index, &off, &size);
        lua_createtable(L, 0, 3);
        lua_pushinteger(L, p->constant_segment_index);
        lua_setfield(L, -2, "index");
        lua_pushinteger(L, (lua_Integer)size);
        lua_setfield(L, -2, "bytes");
        lua_pushinteger(L, p->constant_offsets.count);
        lua_setfield(L, -2, "offsets");
        lua_setfield(L, -2, "segment");
    }
    return 1;
}

/* Methods are made once, kept in the Program's user value 1. */
static void push_method(lua_State *L, int prog_idx, uint32_t i)
{
    prog_idx = lua_absindex(L, prog_idx);
    if (lua_getiuservalue(L, prog_idx, 1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, prog_idx, 1);
    }
    int cache = lua_gettop(L);
    if (lua_rawgeti(L, cache, (lua_Integer)i + 1) == LUA_TUSERDATA) {
        lua_remove(L, cache);
        return;
    }
    lua_pop(L, 1);
    push_dep(L, prog_idx, ET_MT_PMETHOD, i);
    lua_pushvalue(L, -1);
    lua_rawseti(L, cache, (lua_Integer)i + 1);
    lua_remove(L, cache);
}

static int methods_len(lua_State *L)
{
    lua_prog_box *b = check_prog(L, lua_upvalueindex(1));
    lua_pushinteger(L, b->p->plans.count);
    return 1;
}

static int methods_index(lua_State *L)
{
    lua_prog_box *b = check_prog(L, lua_upvalueindex(1));
    lua_Integer k = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : 0;
    if (k < 1 || (lua_Unsigned)k > b->p->plans.count) {
        lua_pushnil(L);
        return 1;
    }
    push_method(L, lua_upvalueindex(1), (uint32_t)(k - 1));
    return 1;
}

static int prog_methods(lua_State *L)
{
    check_prog(L, 1);
    et_lua_push_readonly_c(L, 1, methods_len, methods_index, "Program.methods");
    return 1;
}

static int prog_method(lua_State *L)
{
    lua_prog_box *b = check_prog(L, 1);
    size_t n;
    const char *name = luaL_checklstring(L, 2, &n);
    int32_t i = et_program_find_method(b->p, name, n);
    if (i < 0)
        lua_pushnil(L);
    else
        push_method(L, 1, (uint32_t)i);
    return 1;
}

static int prog_summary(lua_State *L)
{
    lua_prog_box *b = check_prog(L, 1);
    et_strbuf sb = {0};
    et_progsum_text(b->p, NULL, &sb);
    if (sb.failed) {
        et_sb_free(&sb);
        return luaL_error(L, "out of memory");
    }
    lua_pushlstring(L, sb.p ? sb.p : "", sb.n);
    et_sb_free(&sb);
    return 1;
}

static int prog_diff(lua_State *L)
{
    lua_prog_box *a = check_prog(L, 1);
    lua_prog_box *b = check_prog(L, 2);
    et_strbuf sb = {0};
    et_progsum_diff(a->p, a->p->path ? a->p->path : "A", b->p, b->p->path ? b->p->path : "B",
                    &sb);
    if (sb.failed) {
        et_sb_free(&sb);
        return luaL_error(L, "out of memory");
    }
    lua_pushlstring(L, sb.p ? sb.p : "", sb.n);
    et_sb_free(&sb);
    return 1;
}

static int prog_tostring(lua_State *L)
{
    lua_prog_box *b = luaL_checkudata(L, 1, ET_MT_PROGRAM);
    if (!b->p) {
        lua_pushliteral(L, "Program (closed)");
        return 1;
    }
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    luaL_addstring(&buf, "Program '");
    const char *path = b->p->path ? b->p->path : "";
    et_lua_push_shown(L, path, strlen(path));
    luaL_addvalue(&buf);
    lua_pushfstring(L, "' (%d method%s)", (int)b->p->plans.count,
                    b->p->plans.count == 1 ? "" : "s");
    luaL_addvalue(&buf);
    luaL_pushresult(&buf);
    return 1;
}

/* ---- Method ---- */

static int m_name(lua_State *L)
{
    lua_pdep_box *b = check_dep(L, 1, ET_MT_PMETHOD, "Method");
    et_pmethod m;
    dep_method(b, &m);
    lua_pushlstring(L, m.name.p ? m.name.p : "", m.name.n);
    return 1;
}

static int m_index(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_dep(L, 1, ET_MT_PMETHOD, "Method")->method + 1);
    return 1;
}

static int m_len(lua_State *L)
{
    lua_pdep_box *b = check_dep(L, 1, ET_MT_PMETHOD, "Method");
    et_pmethod m;
    dep_method(b, &m);
    lua_pushinteger(L, (lua_Integer)et_pmethod_num_instructions(b->prog->p, &m));
    return 1;
}

static int m_count(lua_State *L, int which)
{
    lua_pdep_box *b = check_dep(L, 1, ET_MT_PMETHOD, "Method");
    et_pmethod m;
    dep_method(b, &m);
    uint32_t n = which == 0 ? m.values.count
                 : which == 1 ? m.inputs.count
                 : which == 2 ? m.outputs.count
                              : m.chains.count;
    lua_pushinteger(L, n);
    return 1;
}
static int m_num_values(lua_State *L) { return m_count(L, 0); }
static int m_num_inputs(lua_State *L) { return m_count(L, 1); }
static int m_num_outputs(lua_State *L) { return m_count(L, 2); }
static int m_num_chains(lua_State *L) { return m_count(L, 3); }

/* The Method userdata at upvalue 1 of a view's closure. */
static lua_pdep_box *view_method(lua_State *L, et_pmethod *m)
{
    lua_pdep_box *b = check_dep(L, lua_upvalueindex(1), ET_MT_PMETHOD, "Method");
    dep_method(b, m);
    return b;
}

static int instrs_len(lua_State *L)
{
    et_pmethod m;
    lua_pdep_box *b = view_method(L, &m);
    lua_pushinteger(L, (lua_Integer)et_pmethod_num_instructions(b->prog->p, &m));
    return 1;
}

static int instrs_index(lua_State *L)
{
    et_pmethod m;
    lua_pdep_box *b = view_method(L, &m);
    lua_Integer k = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : 0;
    if (k < 1) {
        lua_pushnil(L);
        return 1;
    }
    uint64_t id = (uint64_t)k - 1, left = id;
    for (uint32_t c = 0; c < m.chains.count; c++) {
        fb_vec v = et_pmethod_chain_instructions(b->prog->p, &m, c);
        if (left < v.count) {
            lua_getiuservalue(L, lua_upvalueindex(1), 1); /* the Program */
            lua_pdep_box *ins = push_dep(L, -1, ET_MT_PINSTR, b->method);
            ins->chain = c;
            ins->index = (uint32_t)left;
            ins->id = id;
            return 1;
        }
        left -= v.count;
    }
    lua_pushnil(L);
    return 1;
}

static int m_instructions(lua_State *L)
{
    check_dep(L, 1, ET_MT_PMETHOD, "Method");
    et_lua_push_readonly_c(L, 1, instrs_len, instrs_index, "Method.instructions");
    return 1;
}

static int ops_len(lua_State *L)
{
    et_pmethod m;
    view_method(L, &m);
    lua_pushinteger(L, m.operators.count);
    return 1;
}

static int ops_index(lua_State *L)
{
    et_pmethod m;
    lua_pdep_box *b = view_method(L, &m);
    lua_Integer k = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : 0;
    if (k < 1 || (lua_Unsigned)k > m.operators.count) {
        lua_pushnil(L);
        return 1;
    }
    lua_getiuservalue(L, lua_upvalueindex(1), 1);
    lua_pdep_box *op = push_dep(L, -1, ET_MT_POP, b->method);
    op->index = (uint32_t)(k - 1);
    return 1;
}

static int m_operators(lua_State *L)
{
    check_dep(L, 1, ET_MT_PMETHOD, "Method");
    et_lua_push_readonly_c(L, 1, ops_len, ops_index, "Method.operators");
    return 1;
}

static int m_delegates(lua_State *L)
{
    lua_pdep_box *b = check_dep(L, 1, ET_MT_PMETHOD, "Method");
    const et_program *p = b->prog->p;
    et_pmethod m;
    dep_method(b, &m);
    /* the counts in a userdata: collected if a table below cannot be made */
    uint64_t *calls = lua_newuserdatauv(L, ((size_t)m.delegates.count + 1) * sizeof *calls, 0);
    et_pmethod_count(p, &m, NULL, NULL, calls);
    lua_createtable(L, (int)m.delegates.count, 0);
    for (uint32_t i = 0; i < m.delegates.count; i++) {
        et_pdelegate d;
        et_pmethod_delegate(p, &m, i, &d);
        lua_createtable(L, 0, 6);
        lua_pushlstring(L, d.id.p ? d.id.p : "", d.id.n);
        lua_setfield(L, -2, "backend");
        lua_pushinteger(L, (lua_Integer)d.bytes);
        lua_setfield(L, -2, "bytes");
        lua_pushstring(L, d.in_segment ? "segment" : "inline");
        lua_setfield(L, -2, "location");
        lua_pushinteger(L, d.index);
        lua_setfield(L, -2, "index");
        lua_pushinteger(L, (lua_Integer)calls[i]);
        lua_setfield(L, -2, "calls");
        lua_createtable(L, 0, (int)(d.compile_specs.count > 64 ? 64 : d.compile_specs.count));
        for (uint32_t k = 0; k < d.compile_specs.count; k++) {
            et_str key;
            const uint8_t *v;
            uint32_t n;
            et_pdelegate_compile_spec(p, &d, k, &key, &v, &n);
            lua_pushlstring(L, key.p ? key.p : "", key.n);
            lua_pushlstring(L, v ? (const char *)v : "", n);
            lua_rawset(L, -3);
        }
        lua_setfield(L, -2, "compile_specs");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int m_planned_memory(lua_State *L)
{
    lua_pdep_box *b = check_dep(L, 1, ET_MT_PMETHOD, "Method");
    et_pmethod m;
    dep_method(b, &m);
    lua_createtable(L, 0, 2);
    lua_createtable(L, (int)m.buffer_sizes.count, 0);
    lua_Integer total = 0;
    for (uint32_t i = 0; i < m.buffer_sizes.count; i++) {
        int64_t s = et_pmethod_buffer_size(b->prog->p, &m, i);
        total += s;
        lua_pushinteger(L, s);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "buffers");
    lua_pushinteger(L, total);
    lua_setfield(L, -2, "bytes");
    return 1;
}

static int m_tostring(lua_State *L)
{
    lua_pdep_box *b = luaL_checkudata(L, 1, ET_MT_PMETHOD);
    if (!b->prog->p) {
        lua_pushliteral(L, "Method (program closed)");
        return 1;
    }
    et_pmethod m;
    dep_method(b, &m);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    luaL_addstring(&buf, "Method '");
    et_lua_push_shown(L, m.name.p ? m.name.p : "", m.name.n);
    luaL_addvalue(&buf);
    uint64_t n = et_pmethod_num_instructions(b->prog->p, &m);
    lua_pushfstring(L, "' (%I instruction%s)", (lua_Integer)n, n == 1 ? "" : "s");
    luaL_addvalue(&buf);
    luaL_pushresult(&buf);
    return 1;
}

/* ---- Instruction ---- */

static lua_pdep_box *check_instr(lua_State *L, et_pmethod *m, et_pinstr *in)
{
    lua_pdep_box *b = check_dep(L, 1, ET_MT_PINSTR, "Instruction");
    dep_method(b, m);
    fb_vec v = et_pmethod_chain_instructions(b->prog->p, m, b->chain);
    et_program_instruction(b->prog->p, &v, b->index, in);
    return b;
}

static int i_id(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_dep(L, 1, ET_MT_PINSTR, "Instruction")->id);
    return 1;
}

static int i_chain(lua_State *L)
{
    lua_pushinteger(L, check_dep(L, 1, ET_MT_PINSTR, "Instruction")->chain);
    return 1;
}

static int i_kind(lua_State *L)
{
    et_pmethod m;
    et_pinstr in;
    check_instr(L, &m, &in);
    lua_pushstring(L, et_pinstr_kind_name(in.kind));
    return 1;
}

static int i_operator(lua_State *L)
{
    et_pmethod m;
    et_pinstr in;
    lua_pdep_box *b = check_instr(L, &m, &in);
    if (in.kind != ET_PINSTR_KERNEL || in.index < 0) {
        lua_pushnil(L);
        return 1;
    }
    char name[8200];
    et_pmethod_operator_name(b->prog->p, &m, (uint32_t)in.index, name, sizeof name);
    lua_pushstring(L, name);
    return 1;
}

static int i_backend(lua_State *L)
{
    et_pmethod m;
    et_pinstr in;
    lua_pdep_box *b = check_instr(L, &m, &in);
    et_pdelegate d;
    if (in.kind != ET_PINSTR_DELEGATE || in.index < 0 ||
        !et_pmethod_delegate(b->prog->p, &m, (uint32_t)in.index, &d)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushlstring(L, d.id.p ? d.id.p : "", d.id.n);
    return 1;
}

static int i_args(lua_State *L)
{
    et_pmethod m;
    et_pinstr in;
    lua_pdep_box *b = check_instr(L, &m, &in);
    /* the getter runs pinned: the program stays open while it reads */
    const uint8_t *a = b->prog->p->buf.data + in.args.pos;
    uint32_t n = in.args.count;
    lua_createtable(L, (int)(n > 1u << 20 ? 1u << 20 : n), 0);
    for (uint32_t i = 0; i < n; i++) {
        lua_pushinteger(L, (int32_t)fb_ld_u32(a + 4u * i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int i_tostring(lua_State *L)
{
    lua_pdep_box *b = luaL_checkudata(L, 1, ET_MT_PINSTR);
    if (!b->prog->p) {
        lua_pushliteral(L, "Instruction (program closed)");
        return 1;
    }
    et_pmethod m;
    et_pinstr in;
    check_instr(L, &m, &in);
    lua_settop(L, 1);
    if (in.kind == ET_PINSTR_KERNEL)
        i_operator(L);
    else if (in.kind == ET_PINSTR_DELEGATE)
        i_backend(L);
    else
        lua_pushnil(L);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    lua_pushfstring(L, "Instruction %I: %s", (lua_Integer)b->id, et_pinstr_kind_name(in.kind));
    luaL_addvalue(&buf);
    if (lua_type(L, 2) == LUA_TSTRING) {
        size_t n;
        const char *s = lua_tolstring(L, 2, &n);
        luaL_addchar(&buf, ' ');
        et_lua_push_shown(L, s, n);
        luaL_addvalue(&buf);
    }
    luaL_pushresult(&buf);
    return 1;
}

/* ---- Operator ---- */

static lua_pdep_box *check_op(lua_State *L, et_pmethod *m, et_str *name, et_str *ov)
{
    lua_pdep_box *b = check_dep(L, 1, ET_MT_POP, "Operator");
    dep_method(b, m);
    et_pmethod_operator(b->prog->p, m, b->index, name, ov);
    return b;
}

static int o_name(lua_State *L)
{
    et_pmethod m;
    et_str name, ov;
    check_op(L, &m, &name, &ov);
    lua_pushlstring(L, name.p ? name.p : "", name.n);
    return 1;
}

static int o_overload(lua_State *L)
{
    et_pmethod m;
    et_str name, ov;
    check_op(L, &m, &name, &ov);
    lua_pushlstring(L, ov.p ? ov.p : "", ov.n);
    return 1;
}

static int o_full_name(lua_State *L)
{
    et_pmethod m;
    et_str name, ov;
    lua_pdep_box *b = check_op(L, &m, &name, &ov);
    char full[8200];
    et_pmethod_operator_name(b->prog->p, &m, b->index, full, sizeof full);
    lua_pushstring(L, full);
    return 1;
}

static uint64_t op_calls(const lua_pdep_box *b, const et_pmethod *m)
{
    uint64_t n = 0;
    for (uint32_t c = 0; c < m->chains.count; c++) {
        fb_vec v = et_pmethod_chain_instructions(b->prog->p, m, c);
        for (uint32_t i = 0; i < v.count; i++) {
            et_pinstr in;
            et_program_instruction(b->prog->p, &v, i, &in);
            n += in.kind == ET_PINSTR_KERNEL && in.index >= 0 && (uint32_t)in.index == b->index;
        }
    }
    return n;
}

static int o_calls(lua_State *L)
{
    et_pmethod m;
    et_str name, ov;
    lua_pdep_box *b = check_op(L, &m, &name, &ov);
    lua_pushinteger(L, (lua_Integer)op_calls(b, &m));
    return 1;
}

static int o_tostring(lua_State *L)
{
    lua_pdep_box *b = luaL_checkudata(L, 1, ET_MT_POP);
    if (!b->prog->p) {
        lua_pushliteral(L, "Operator (program closed)");
        return 1;
    }
    et_pmethod m;
    dep_method(b, &m);
    char full[8200];
    et_pmethod_operator_name(b->prog->p, &m, b->index, full, sizeof full);
    uint64_t n = op_calls(b, &m);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    luaL_addstring(&buf, "Operator ");
    et_lua_push_shown(L, full, strlen(full));
    luaL_addvalue(&buf);
    lua_pushfstring(L, " (%I call%s)", (lua_Integer)n, n == 1 ? "" : "s");
    luaL_addvalue(&buf);
    luaL_pushresult(&buf);
    return 1;
}

/* ev.program_instruction: nil, or {method, id, kind, operator, backend}
 * from the Inspector's program (program_path; proglink.h) */
static int ev_program_instruction(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_EVENT);
    const et_inspector *insp = c->box->insp;
    const et_block *blk = &insp->blocks[c->block];
    et_event_instr pi;
    if (!et_event_program_instr(insp, blk, &blk->events[c->event], &pi)) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 5);
    lua_pushlstring(L, pi.m.name.p ? pi.m.name.p : "", pi.m.name.n);
    lua_setfield(L, -2, "method");
    lua_pushinteger(L, blk->events[c->event].instruction_id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, et_pinstr_kind_name(pi.in.kind));
    lua_setfield(L, -2, "kind");
    if (pi.op[0]) {
        lua_pushstring(L, pi.op);
        lua_setfield(L, -2, "operator");
    }
    if (pi.backend.p) {
        lua_pushlstring(L, pi.backend.p, pi.backend.n);
        lua_setfield(L, -2, "backend");
    }
    return 1;
}

void et_lua_register_program(lua_State *L)
{
    static const et_lua_getter evg = {"program_instruction", ev_program_instruction, 0, 0};
    et_lua_add_getter(L, ET_MT_EVENT, &evg);
    static const et_lua_method pmethods[] = {{"method", prog_method, 1, 0},
                                             {"summary", prog_summary, 0, 0},
                                             {"diff", prog_diff, 1, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_getter pgetters[] = {{"path", prog_path, 0, 0},
                                             {"version", prog_version, 0, 0},
                                             {"file_size", prog_file_size, 0, 0},
                                             {"program_size", prog_program_size, 0, 0},
                                             {"segments", prog_segments, 0, 0},
                                             {"constants", prog_constants, 0, 0},
                                             {"methods", prog_methods, 0, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_type ptype = {ET_MT_PROGRAM, "Program", pmethods, pgetters, NULL,
                                      prog_tostring, NULL, NULL, &prog_class};
    et_lua_define_type(L, &ptype);

    static const et_lua_getter mgetters[] = {{"name", m_name, 0, 0},
                                             {"index", m_index, 0, 0},
                                             {"instructions", m_instructions, 0, 0},
                                             {"operators", m_operators, 0, 0},
                                             {"delegates", m_delegates, 0, 0},
                                             {"planned_memory", m_planned_memory, 0, 0},
                                             {"num_values", m_num_values, 0, 0},
                                             {"num_inputs", m_num_inputs, 0, 0},
                                             {"num_outputs", m_num_outputs, 0, 0},
                                             {"num_chains", m_num_chains, 0, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_type mtype = {ET_MT_PMETHOD, "Method", NULL, mgetters, m_len,
                                      m_tostring, NULL, NULL, NULL};
    et_lua_define_type(L, &mtype);

    static const et_lua_getter igetters[] = {{"id", i_id, 0, 0},
                                             {"chain", i_chain, 0, 0},
                                             {"kind", i_kind, 0, 0},
                                             {"operator", i_operator, 0, 0},
                                             {"backend", i_backend, 0, 0},
                                             {"args", i_args, 0, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_type itype = {ET_MT_PINSTR, "Instruction", NULL, igetters, NULL,
                                      i_tostring, NULL, NULL, NULL};
    et_lua_define_type(L, &itype);

    static const et_lua_getter ogetters[] = {{"name", o_name, 0, 0},
                                             {"overload", o_overload, 0, 0},
                                             {"full_name", o_full_name, 0, 0},
                                             {"calls", o_calls, 0, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_type otype = {ET_MT_POP, "Operator", NULL, ogetters, NULL, o_tostring,
                                      NULL, NULL, NULL};
    et_lua_define_type(L, &otype);
}
