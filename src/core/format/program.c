/* program.c - ExecuTorch program (.pte) header checks, verifier and accessors; see program.h. */
#include "format/program.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Scalar fields.  The program writer's FlatBuffers builder records a
 * table's inline size without the bytes of a trailing 8-byte field (a
 * DataSegment's `size` at offset 4 of an 8-byte table), and FlatBuffers'
 * own verifier only asks that a field lie inside the buffer.  So here a
 * scalar field must be aligned and inside the buffer, not inside the
 * table's recorded size (fb.h's fb_verify_scalar and fb_get_* ask the
 * latter, and would read such a field as its default). */

static uint32_t lfield(const fb_buf *b, const fb_table *t, unsigned slot, unsigned size)
{
    uint16_t off = fb_slot(b, t, slot);
    if (off == 0 || !fb_in(b, (uint64_t)t->pos + off, size))
        return 0;
    return t->pos + off;
}

static uint8_t l_u8(const fb_buf *b, const fb_table *t, unsigned slot, uint8_t def)
{
    uint32_t q = lfield(b, t, slot, 1);
    return q ? b->data[q] : def;
}

static uint32_t l_u32(const fb_buf *b, const fb_table *t, unsigned slot, uint32_t def)
{
    uint32_t q = lfield(b, t, slot, 4);
    return q ? fb_ld_u32(b->data + q) : def;
}

static int32_t l_i32(const fb_buf *b, const fb_table *t, unsigned slot, int32_t def)
{
    return (int32_t)l_u32(b, t, slot, (uint32_t)def);
}

static uint64_t l_u64(const fb_buf *b, const fb_table *t, unsigned slot, uint64_t def)
{
    uint32_t q = lfield(b, t, slot, 8);
    return q ? fb_ld_u64(b->data + q) : def;
}

/* Verify scalar field `slot` of `size` bytes: absent, or aligned to its
 * size and inside the buffer. */
static int l_verify_scalar(fb_verifier *v, const fb_table *t, unsigned slot, unsigned size,
                           const char *what)
{
    uint16_t off = fb_slot(v->b, t, slot);
    if (off == 0)
        return 0;
    uint64_t q = (uint64_t)t->pos + off;
    if (!fb_in(v->b, q, size))
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: %u-byte field runs past the end of the buffer (%u)",
                       q, what, size, v->b->end);
    if ((q & (size - 1)) != 0)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: %u-byte field is not aligned to %u bytes", q, what,
                       size, size);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Verification.  As in bundled.c: the innermost check writes "byte N:
 * ..." into the error, and each level on the way out prepends its field
 * name to `path`. */

typedef struct vctx {
    fb_verifier fv;
    et_program *p;
    char path[256];
    /* the method being verified */
    uint32_t n_values, n_operators, n_delegates;
} vctx;

static int seg(vctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prepend one path segment ("chains[0]", "instr_args", ...); returns -1. */
static int seg(vctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fb_path_vprepend(c->path, sizeof c->path, fmt, ap);
    va_end(ap);
    return -1;
}

/* A vector field (absent: count 0). */
static int v_vector(vctx *c, const fb_table *t, unsigned slot, unsigned elem, const char *name,
                    fb_vec *vec)
{
    uint32_t target;
    vec->pos = vec->count = 0;
    if (fb_verify_offset(&c->fv, t, slot, &target, "offset to vector") != 0)
        return seg(c, "%s", name);
    if (target && fb_verify_vector_at(&c->fv, target, elem, vec, "vector") != 0)
        return seg(c, "%s", name);
    return 0;
}

/* A string field; absent is an error when `table` is not NULL (required). */
static int v_string(vctx *c, const fb_table *t, unsigned slot, const char *name,
                    const char *table)
{
    uint32_t target;
    if (fb_verify_offset(&c->fv, t, slot, &target, "offset to string") != 0)
        return seg(c, "%s", name);
    if (!target)
        return table ? fb_fail_missing(&c->fv, t, table, name) : 0;
    if (fb_verify_string_at(&c->fv, target, "string") != 0)
        return seg(c, "%s", name);
    return 0;
}

/* A sub-table field: `*present` says whether it is there. */
static int v_subtable(vctx *c, const fb_table *t, unsigned slot, const char *name,
                      const char *type, fb_table *out, bool *present)
{
    uint32_t target;
    *present = false;
    if (fb_verify_offset(&c->fv, t, slot, &target, "offset to table") != 0)
        return seg(c, "%s", name);
    if (!target)
        return 0;
    if (fb_verify_table_at(&c->fv, target, out, type) != 0)
        return seg(c, "%s", name);
    *present = true;
    return 0;
}

/* Every element of a vector of int32 EValue indices lies in [0, n_values)
 * (-1 allowed when `opt`: an absent optional tensor). */
static int v_indices(vctx *c, const fb_vec *v, const char *name, bool opt)
{
    const uint8_t *d = c->fv.b->data;
    for (uint32_t i = 0; i < v->count; i++) {
        int32_t x = (int32_t)fb_ld_u32(d + v->pos + 4u * i);
        if ((x < 0 && !(opt && x == -1)) || (x >= 0 && (uint32_t)x >= c->n_values))
            return et_fail(c->fv.err, ET_ERR_FORMAT,
                           "byte %u: value index %" PRId32 " is outside the method's %" PRIu32
                           " values",
                           v->pos + 4u * i, x, c->n_values),
                   seg(c, "%s[%" PRIu32 "]", name, i);
    }
    return 0;
}

static int v_tensor(vctx *c, const fb_table *t)
{
    static const struct { unsigned slot, size; const char *name; } scalars[] = {
        {0, 1, "scalar_type"}, {1, 4, "storage_offset"}, {4, 1, "requires_grad"},
        {5, 4, "data_buffer_idx"}, {7, 1, "layout"}, {8, 1, "shape_dynamism"}};
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (l_verify_scalar(&c->fv, t, scalars[i].slot, scalars[i].size, scalars[i].name) != 0)
            return -1;
    fb_vec sizes, dim_order;
    if (v_vector(c, t, 2, 4, "sizes", &sizes) != 0 ||
        v_vector(c, t, 3, 1, "dim_order", &dim_order) != 0)
        return -1;
    fb_table sub;
    bool present;
    if (v_subtable(c, t, 6, "allocation_info", "AllocationDetails", &sub, &present) != 0)
        return -1;
    for (unsigned s = 0; present && s < 3; s++)
        if (l_verify_scalar(&c->fv, &sub, s, 4, "memory_id") != 0)
            return seg(c, "allocation_info");
    if (v_subtable(c, t, 9, "extra_tensor_info", "ExtraTensorInfo", &sub, &present) != 0)
        return -1;
    if (present && (l_verify_scalar(&c->fv, &sub, 0, 8, "mutable_data_segments_idx") != 0 ||
                    v_string(c, &sub, 1, "fully_qualified_name", NULL) != 0 ||
                    l_verify_scalar(&c->fv, &sub, 2, 1, "location") != 0 ||
                    l_verify_scalar(&c->fv, &sub, 3, 1, "device_type") != 0 ||
                    l_verify_scalar(&c->fv, &sub, 4, 1, "device_index") != 0))
        return seg(c, "extra_tensor_info");
    return 0;
}

static const char *const pval_names[] = {
    "None", "Null", "Int", "Bool", "Double", "Tensor", "String", "IntList", "DoubleList",
    "BoolList", "TensorList", "OptionalTensorList"};

static int v_evalue(vctx *c, const fb_table *t)
{
    uint32_t target;
    if (l_verify_scalar(&c->fv, t, ETP_EVALUE_TYPE, 1, "val_type") != 0)
        return -1;
    if (fb_verify_offset(&c->fv, t, ETP_EVALUE_VAL, &target, "offset to table") != 0)
        return seg(c, "val");
    uint8_t type = l_u8(c->fv.b, t, ETP_EVALUE_TYPE, 0);
    if (type == ET_PVAL_NONE || type > ET_PVAL_OPT_TENSOR_LIST)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: val_type %u is not a member of KernelTypes (expected 1 Null "
                       "to 11 OptionalTensorList)",
                       t->pos, type);
    if (!target)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: EValue: required field 'val' is absent (val_type %s)", t->pos,
                       pval_names[type]);
    fb_table m;
    if (fb_verify_table_at(&c->fv, target, &m, pval_names[type]) != 0)
        return seg(c, "val");
    fb_vec v;
    int rc = 0;
    switch (type) {
    case ET_PVAL_NULL: break;
    case ET_PVAL_INT: rc = l_verify_scalar(&c->fv, &m, 0, 8, "int_val"); break;
    case ET_PVAL_BOOL: rc = l_verify_scalar(&c->fv, &m, 0, 1, "bool_val"); break;
    case ET_PVAL_DOUBLE: rc = l_verify_scalar(&c->fv, &m, 0, 8, "double_val"); break;
    case ET_PVAL_TENSOR: rc = v_tensor(c, &m); break;
    case ET_PVAL_STRING: rc = v_string(c, &m, 0, "string_val", NULL); break;
    case ET_PVAL_INT_LIST: rc = v_vector(c, &m, 0, 8, "items", &v); break;
    case ET_PVAL_DOUBLE_LIST: rc = v_vector(c, &m, 0, 8, "items", &v); break;
    case ET_PVAL_BOOL_LIST: rc = v_vector(c, &m, 0, 1, "items", &v); break;
    default: rc = v_vector(c, &m, 0, 4, "items", &v); break;
    }
    return rc != 0 ? seg(c, "val") : 0;
}

static const char *const pinstr_names[] = {"None", "KernelCall", "DelegateCall", "MoveCall",
                                           "JumpFalseCall", "FreeCall"};

/* One value index field of an instruction member. */
static int v_index_field(vctx *c, const fb_table *m, unsigned slot, const char *name,
                         uint32_t limit, const char *what)
{
    if (l_verify_scalar(&c->fv, m, slot, 4, name) != 0)
        return -1;
    int32_t x = l_i32(c->fv.b, m, slot, 0);
    if (x < 0 || (uint32_t)x >= limit)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: %s.%s %" PRId32 " is outside the method's %" PRIu32 " %s",
                       m->pos, what, name, x, limit,
                       strcmp(name, "op_index") == 0        ? "operators"
                       : strcmp(name, "delegate_index") == 0 ? "delegates"
                       : strcmp(name, "destination_instruction") == 0
                           ? "instructions of its chain"
                           : "values");
    return 0;
}

static int v_instruction(vctx *c, const fb_table *t, uint32_t chain_len)
{
    uint32_t target;
    if (l_verify_scalar(&c->fv, t, ETP_INSTR_TYPE, 1, "instr_args_type") != 0)
        return -1;
    if (fb_verify_offset(&c->fv, t, ETP_INSTR_ARGS, &target, "offset to table") != 0)
        return seg(c, "instr_args");
    uint8_t type = l_u8(c->fv.b, t, ETP_INSTR_TYPE, 0);
    if (type == ET_PINSTR_NONE || type > ET_PINSTR_FREE)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: instr_args_type %u is not a member of InstructionArguments "
                       "(expected 1 KernelCall to 5 FreeCall)",
                       t->pos, type);
    if (!target)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: Instruction: required field 'instr_args' is absent "
                       "(instr_args_type %s)",
                       t->pos, pinstr_names[type]);
    fb_table m;
    const char *what = pinstr_names[type];
    if (fb_verify_table_at(&c->fv, target, &m, what) != 0)
        return seg(c, "instr_args");
    fb_vec args;
    int rc = 0;
    switch (type) {
    case ET_PINSTR_KERNEL:
    case ET_PINSTR_DELEGATE:
        rc = v_index_field(c, &m, 0, type == ET_PINSTR_KERNEL ? "op_index" : "delegate_index",
                           type == ET_PINSTR_KERNEL ? c->n_operators : c->n_delegates, what);
        if (rc == 0)
            rc = v_vector(c, &m, 1, 4, "args", &args);
        if (rc == 0)
            rc = v_indices(c, &args, "args", false);
        break;
    case ET_PINSTR_MOVE:
        rc = v_index_field(c, &m, 0, "move_from", c->n_values, what);
        if (rc == 0)
            rc = v_index_field(c, &m, 1, "move_to", c->n_values, what);
        break;
    case ET_PINSTR_JUMP_FALSE:
        rc = v_index_field(c, &m, 0, "cond_value_index", c->n_values, what);
        if (rc == 0)
            rc = v_index_field(c, &m, 1, "destination_instruction", chain_len, what);
        break;
    default: rc = v_index_field(c, &m, 0, "value_index", c->n_values, what); break;
    }
    return rc != 0 ? seg(c, "instr_args") : 0;
}

static int v_chain(vctx *c, const fb_table *t)
{
    fb_vec inputs, outputs, instrs, stack;
    if (v_vector(c, t, ETP_CHAIN_INPUTS, 4, "inputs", &inputs) != 0 ||
        v_indices(c, &inputs, "inputs", false) != 0 ||
        v_vector(c, t, ETP_CHAIN_OUTPUTS, 4, "outputs", &outputs) != 0 ||
        v_indices(c, &outputs, "outputs", false) != 0 ||
        v_vector(c, t, ETP_CHAIN_INSTRUCTIONS, 4, "instructions", &instrs) != 0 ||
        v_vector(c, t, ETP_CHAIN_STACKTRACE, 4, "stacktrace", &stack) != 0)
        return -1;
    for (uint32_t i = 0; i < instrs.count; i++) {
        fb_table in;
        if (fb_verify_vec_table(&c->fv, &instrs, i, &in, "Instruction") != 0 ||
            v_instruction(c, &in, instrs.count) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "instructions");
    }
    c->p->num_instructions += instrs.count;
    for (uint32_t i = 0; i < stack.count; i++) {
        fb_table fl;
        fb_vec frames;
        if (fb_verify_vec_table(&c->fv, &stack, i, &fl, "FrameList") != 0 ||
            v_vector(c, &fl, 0, 4, "items", &frames) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "stacktrace");
        for (uint32_t k = 0; k < frames.count; k++) {
            fb_table fr;
            if (fb_verify_vec_table(&c->fv, &frames, k, &fr, "Frame") != 0 ||
                v_string(c, &fr, 0, "filename", NULL) != 0 ||
                l_verify_scalar(&c->fv, &fr, 1, 4, "lineno") != 0 ||
                v_string(c, &fr, 2, "name", NULL) != 0 ||
                v_string(c, &fr, 3, "context", NULL) != 0)
                return seg(c, "[%" PRIu32 "]", k), seg(c, "items"),
                       seg(c, "[%" PRIu32 "]", i), seg(c, "stacktrace");
        }
    }
    return 0;
}

/* The delegate's processed data: location and index in range. */
static int v_delegate(vctx *c, const fb_table *t)
{
    const et_program *p = c->p;
    if (v_string(c, t, ETP_DEL_ID, "id", "BackendDelegate") != 0)
        return -1;
    fb_table ref;
    bool present;
    if (v_subtable(c, t, ETP_DEL_PROCESSED, "processed", "BackendDelegateDataReference", &ref,
                   &present) != 0)
        return -1;
    if (!present)
        return fb_fail_missing(&c->fv, t, "BackendDelegate", "processed");
    if (l_verify_scalar(&c->fv, &ref, ETP_REF_LOCATION, 1, "location") != 0 ||
        l_verify_scalar(&c->fv, &ref, ETP_REF_INDEX, 4, "index") != 0)
        return seg(c, "processed");
    uint8_t loc = l_u8(c->fv.b, &ref, ETP_REF_LOCATION, 0);
    uint32_t index = l_u32(c->fv.b, &ref, ETP_REF_INDEX, 0);
    if (loc > 1)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: location %u is not a DataLocation (0 INLINE, 1 SEGMENT)",
                       ref.pos, loc),
               seg(c, "processed");
    uint32_t limit = loc ? p->segments.count : p->delegate_data.count;
    if (index >= limit)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: index %" PRIu32 " is outside the program's %" PRIu32 " %s",
                       ref.pos, index, limit, loc ? "segments" : "backend_delegate_data entries"),
               seg(c, "processed");
    fb_vec specs;
    if (v_vector(c, t, ETP_DEL_SPECS, 4, "compile_specs", &specs) != 0)
        return -1;
    for (uint32_t i = 0; i < specs.count; i++) {
        fb_table s;
        fb_vec value;
        if (fb_verify_vec_table(&c->fv, &specs, i, &s, "CompileSpec") != 0 ||
            v_string(c, &s, ETP_SPEC_KEY, "key", NULL) != 0 ||
            v_vector(c, &s, ETP_SPEC_VALUE, 1, "value", &value) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "compile_specs");
    }
    return 0;
}

static int v_plan(vctx *c, const fb_table *t)
{
    et_pmethod m;
    memset(&m, 0, sizeof m);
    if (v_string(c, t, ETP_PLAN_NAME, "name", "ExecutionPlan") != 0)
        return -1;
    fb_table meta;
    bool present;
    if (v_subtable(c, t, ETP_PLAN_META, "container_meta_type", "ContainerMetadata", &meta,
                   &present) != 0)
        return -1;
    if (present && (v_string(c, &meta, 0, "encoded_inp_str", NULL) != 0 ||
                    v_string(c, &meta, 1, "encoded_out_str", NULL) != 0))
        return seg(c, "container_meta_type");
    if (v_vector(c, t, ETP_PLAN_VALUES, 4, "values", &m.values) != 0 ||
        v_vector(c, t, ETP_PLAN_INPUTS, 4, "inputs", &m.inputs) != 0 ||
        v_vector(c, t, ETP_PLAN_OUTPUTS, 4, "outputs", &m.outputs) != 0 ||
        v_vector(c, t, ETP_PLAN_CHAINS, 4, "chains", &m.chains) != 0 ||
        v_vector(c, t, ETP_PLAN_OPERATORS, 4, "operators", &m.operators) != 0 ||
        v_vector(c, t, ETP_PLAN_DELEGATES, 4, "delegates", &m.delegates) != 0 ||
        v_vector(c, t, ETP_PLAN_BUFFER_SIZES, 8, "non_const_buffer_sizes", &m.buffer_sizes) !=
            0)
        return -1;
    c->n_values = m.values.count;
    c->n_operators = m.operators.count;
    c->n_delegates = m.delegates.count;
    for (uint32_t i = 0; i < m.values.count; i++) {
        fb_table v;
        if (fb_verify_vec_table(&c->fv, &m.values, i, &v, "EValue") != 0 || v_evalue(c, &v) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "values");
    }
    if (v_indices(c, &m.inputs, "inputs", false) != 0 ||
        v_indices(c, &m.outputs, "outputs", false) != 0)
        return -1;
    for (uint32_t i = 0; i < m.operators.count; i++) {
        fb_table o;
        if (fb_verify_vec_table(&c->fv, &m.operators, i, &o, "Operator") != 0 ||
            v_string(c, &o, ETP_OP_NAME, "name", "Operator") != 0 ||
            v_string(c, &o, ETP_OP_OVERLOAD, "overload", NULL) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "operators");
    }
    for (uint32_t i = 0; i < m.delegates.count; i++) {
        fb_table d;
        if (fb_verify_vec_table(&c->fv, &m.delegates, i, &d, "BackendDelegate") != 0 ||
            v_delegate(c, &d) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "delegates");
    }
    for (uint32_t i = 0; i < m.chains.count; i++) {
        fb_table ch;
        if (fb_verify_vec_table(&c->fv, &m.chains, i, &ch, "Chain") != 0 || v_chain(c, &ch) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "chains");
    }
    for (uint32_t i = 0; i < m.buffer_sizes.count; i++) {
        int64_t s = (int64_t)fb_ld_u64(c->fv.b->data + m.buffer_sizes.pos + 8u * i);
        if (s < 0)
            return et_fail(c->fv.err, ET_ERR_FORMAT,
                           "byte %u: buffer size %" PRId64 " is negative",
                           m.buffer_sizes.pos + 8u * i, s),
                   seg(c, "non_const_buffer_sizes[%" PRIu32 "]", i);
    }
    fb_vec dev;
    if (v_vector(c, t, ETP_PLAN_BUFFER_DEVICE, 4, "non_const_buffer_device", &dev) != 0)
        return -1;
    for (uint32_t i = 0; i < dev.count; i++) {
        fb_table d;
        if (fb_verify_vec_table(&c->fv, &dev, i, &d, "NonConstBufferDevice") != 0 ||
            l_verify_scalar(&c->fv, &d, 0, 4, "buffer_idx") != 0 ||
            l_verify_scalar(&c->fv, &d, 1, 1, "device_type") != 0 ||
            l_verify_scalar(&c->fv, &d, 2, 1, "device_index") != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "non_const_buffer_device");
    }
    return 0;
}

/* A SubsegmentOffsets table: segment index in range, offsets inside the
 * segment. */
static int v_subsegments(vctx *c, const fb_table *t, uint32_t *segment, fb_vec *offsets)
{
    if (l_verify_scalar(&c->fv, t, ETP_SUB_SEGMENT, 4, "segment_index") != 0 ||
        v_vector(c, t, ETP_SUB_OFFSETS, 8, "offsets", offsets) != 0)
        return -1;
    *segment = l_u32(c->fv.b, t, ETP_SUB_SEGMENT, 0);
    if (*segment >= c->p->segments.count && (offsets->count > 0 || c->p->segments.count > 0))
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: segment_index %" PRIu32 " is outside the program's %" PRIu32
                       " segments",
                       t->pos, *segment, c->p->segments.count);
    return 0;
}

/* Segments: each inside the segment data (and the file). */
static int v_segments(vctx *c)
{
    et_program *p = c->p;
    for (uint32_t i = 0; i < p->segments.count; i++) {
        fb_table s;
        if (fb_verify_vec_table(&c->fv, &p->segments, i, &s, "DataSegment") != 0 ||
            l_verify_scalar(&c->fv, &s, ETP_SEG_OFFSET, 8, "offset") != 0 ||
            l_verify_scalar(&c->fv, &s, ETP_SEG_SIZE, 8, "size") != 0)
            return seg(c, "segments[%" PRIu32 "]", i);
        uint64_t off = l_u64(c->fv.b, &s, ETP_SEG_OFFSET, 0);
        uint64_t size = l_u64(c->fv.b, &s, ETP_SEG_SIZE, 0);
        if (size == 0)
            continue;
        uint64_t avail = p->file_size > p->segment_base ? p->file_size - p->segment_base : 0;
        if (p->segment_base == 0 || off > avail || size > avail - off)
            return et_fail(c->fv.err, ET_ERR_FORMAT,
                           "byte %u: segment of %" PRIu64 " bytes at offset %" PRIu64
                           " past the segment base %" PRIu64
                           " does not fit in the file's %" PRIu64 " bytes%s",
                           s.pos, size, off, p->segment_base, p->file_size,
                           p->segment_base == 0 ? " (the file has no segment data: no "
                                                  "extended header, or its segment base is 0)"
                                                : " (a truncated file?)"),
                   seg(c, "segments[%" PRIu32 "]", i);
    }
    return 0;
}

/* The extended header, when "eh00" is at byte 8. */
static int read_header(et_program *p, const uint8_t *data, size_t size, et_error *err)
{
    p->program_size = size;
    if (size < 16 || memcmp(data + 8, "eh00", 4) != 0)
        return 0;
    uint32_t len = fb_ld_u32(data + 12);
    if (len < 24)
        return et_fail(err, ET_ERR_FORMAT,
                       "byte 12: extended header length %" PRIu32
                       " is too short (expected at least 24: magic, length, program_size and "
                       "segment_base_offset)",
                       len);
    if ((uint64_t)8 + len > size)
        return et_fail(err, ET_ERR_FORMAT,
                       "byte 12: extended header of %" PRIu32
                       " bytes runs past the end of the file (%zu bytes)",
                       len, size);
    p->extended_header = true;
    p->program_size = fb_ld_u64(data + 16);
    p->segment_base = fb_ld_u64(data + 24);
    p->segment_data_size = len >= 32 ? fb_ld_u64(data + 32) : 0;
    if (p->program_size > size)
        return et_fail(err, ET_ERR_FORMAT,
                       "byte 16: program_size %" PRIu64
                       " is larger than the file (%zu bytes; a truncated file?)",
                       p->program_size, size);
    if (p->program_size < 8 + (uint64_t)len)
        return et_fail(err, ET_ERR_FORMAT,
                       "byte 16: program_size %" PRIu64
                       " does not even cover the extended header (%" PRIu64 " bytes)",
                       p->program_size, 8 + (uint64_t)len);
    if (p->program_size > (uint64_t)INT32_MAX)
        return et_fail(err, ET_ERR_FORMAT,
                       "byte 16: program_size %" PRIu64
                       " is larger than a FlatBuffer can be (2 GiB)",
                       p->program_size);
    if (p->segment_base != 0) {
        if (p->segment_base < p->program_size)
            return et_fail(err, ET_ERR_FORMAT,
                           "byte 24: segment_base_offset %" PRIu64
                           " lies inside the program (program_size %" PRIu64 ")",
                           p->segment_base, p->program_size);
        if (p->segment_base > size || p->segment_data_size > size - p->segment_base)
            return et_fail(err, ET_ERR_FORMAT,
                           "byte 24: segment data of %" PRIu64 " bytes at byte %" PRIu64
                           " runs past the end of the file (%zu bytes; a truncated file?)",
                           p->segment_data_size, p->segment_base, size);
    }
    return 0;
}

/* The name of method `i` (verified: present). */
static et_str method_name(const et_program *p, uint32_t i)
{
    fb_table t;
    et_str s = {NULL, 0};
    if (fb_vec_table(&p->buf, &p->plans, i, &t))
        fb_get_string(&p->buf, &t, ETP_PLAN_NAME, &s.p, &s.n);
    return s;
}

/* Order of two names (bytes, then length); ties by index, so that the
 * first of equal names sorts first. */
static int name_cmp(et_str a, uint32_t ia, et_str b, uint32_t ib)
{
    uint32_t n = a.n < b.n ? a.n : b.n;
    int c = n ? memcmp(a.p, b.p, n) : 0;
    if (c == 0)
        c = (a.n > b.n) - (a.n < b.n);
    return c ? c : (ia > ib) - (ia < ib);
}

/* p->by_name: the method indices sorted by name (a bottom-up merge sort:
 * O(n log n) whatever the names). */
static int index_methods(et_program *p, et_error *err)
{
    uint32_t n = p->plans.count;
    if (n == 0)
        return 0;
    uint32_t *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *tmp);
    if (!a || !tmp) {
        free(a);
        free(tmp);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        a[i] = i;
    for (uint64_t w = 1; w < n; w *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * w) {
            uint64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = name_cmp(method_name(p, a[i]), a[i], method_name(p, a[j]), a[j]) <= 0
                               ? a[i++]
                               : a[j++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, (size_t)n * sizeof *a);
    }
    free(tmp);
    p->by_name = a;
    return 0;
}

/* Render 4 identifier bytes for a message: printable ASCII as is, others as \xNN. */
static void show4(const uint8_t *p, char out[20])
{
    char *o = out;
    for (int i = 0; i < 4; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
            *o++ = (char)p[i];
        else
            o += sprintf(o, "\\x%02x", p[i]);
    }
    *o = '\0';
}

int et_program_open(et_program *p, const uint8_t *data, size_t size, et_error *err)
{
    memset(p, 0, sizeof *p);
    if (size < 8)
        return et_fail(err, ET_ERR_FORMAT,
                       "file is only %zu bytes, too short for an ExecuTorch program (it needs "
                       "at least 8: a root offset and the identifier \"ET12\")",
                       size);
    if (memcmp(data + 4, "ET12", 4) != 0) {
        char a[20];
        show4(data + 4, a);
        const char *hint = "";
        if (memcmp(data + 4, "BP08", 4) == 0)
            hint = ": this is a BundledProgram (its program is inside it)";
        else if (memcmp(data + 4, "ED00", 4) == 0 || (size >= 12 && memcmp(data + 8, "ED00", 4) == 0))
            hint = ": this is an ETDump";
        else if (data[4] == 'E' && data[5] == 'T' && data[6] >= '0' && data[6] <= '9')
            hint = ": a program of another schema version, whose tables are laid out "
                   "differently; etinspect reads \"ET12\" only";
        return et_fail(err, ET_ERR_FORMAT,
                       "not an ExecuTorch program: expected file identifier \"ET12\" at byte 4, "
                       "found \"%s\"%s",
                       a, hint);
    }
    p->file_size = size;
    if (read_header(p, data, size, err) != 0)
        return -1;
    if (!p->extended_header && size > (size_t)INT32_MAX)
        return et_fail(err, ET_ERR_FORMAT,
                       "file is %zu bytes, larger than a FlatBuffer can be (2 GiB), and has no "
                       "extended header saying where the program ends",
                       size);
    p->buf.data = data;
    p->buf.start = 0;
    p->buf.end = (uint32_t)p->program_size;

    vctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    fb_verifier_init(&c.fv, &p->buf, err);
    uint32_t root = fb_ld_u32(data);
    if (root == 0 || !fb_in(&p->buf, root, 4))
        return et_fail(err, ET_ERR_FORMAT,
                       "byte 0: root offset %" PRIu32
                       " does not point inside the program's %" PRIu64 " bytes",
                       root, p->program_size);
    fb_table t;
    if (fb_verify_table_at(&c.fv, root, &t, "Program") != 0 ||
        l_verify_scalar(&c.fv, &t, ETP_PROG_VERSION, 4, "version") != 0)
        return -1;
    p->version = l_u32(&p->buf, &t, ETP_PROG_VERSION, 0);
    if (v_vector(&c, &t, ETP_PROG_PLANS, 4, "execution_plan", &p->plans) != 0 ||
        v_vector(&c, &t, ETP_PROG_CONST_BUFFER, 4, "constant_buffer", &p->constant_buffer) != 0 ||
        v_vector(&c, &t, ETP_PROG_DELEGATE_DATA, 4, "backend_delegate_data",
                 &p->delegate_data) != 0 ||
        v_vector(&c, &t, ETP_PROG_SEGMENTS, 4, "segments", &p->segments) != 0 ||
        v_vector(&c, &t, ETP_PROG_MUTABLE_SEGMENTS, 4, "mutable_data_segments",
                 &p->mutable_segments) != 0 ||
        v_vector(&c, &t, ETP_PROG_NAMED_DATA, 4, "named_data", &p->named_data) != 0)
        return et_error_prefix(err, c.path);
    if (v_segments(&c) != 0)
        return et_error_prefix(err, c.path);
    for (uint32_t i = 0; i < p->constant_buffer.count; i++) {
        fb_table b;
        fb_vec storage;
        if (fb_verify_vec_table(&c.fv, &p->constant_buffer, i, &b, "Buffer") != 0 ||
            v_vector(&c, &b, 0, 1, "storage", &storage) != 0) {
            seg(&c, "constant_buffer[%" PRIu32 "]", i);
            return et_error_prefix(err, c.path);
        }
    }
    for (uint32_t i = 0; i < p->delegate_data.count; i++) {
        fb_table b;
        fb_vec data_vec;
        if (fb_verify_vec_table(&c.fv, &p->delegate_data, i, &b, "BackendDelegateInlineData") !=
                0 ||
            v_vector(&c, &b, 0, 1, "data", &data_vec) != 0) {
            seg(&c, "backend_delegate_data[%" PRIu32 "]", i);
            return et_error_prefix(err, c.path);
        }
    }
    fb_table cs;
    bool present;
    if (v_subtable(&c, &t, ETP_PROG_CONST_SEGMENT, "constant_segment", "SubsegmentOffsets", &cs,
                   &present) != 0)
        return et_error_prefix(err, c.path);
    if (present) {
        if (v_subsegments(&c, &cs, &p->constant_segment_index, &p->constant_offsets) != 0) {
            seg(&c, "constant_segment");
            return et_error_prefix(err, c.path);
        }
        /* an empty table (no segments) is what older writers leave */
        p->has_constant_segment = p->constant_segment_index < p->segments.count;
    }
    for (uint32_t i = 0; i < p->mutable_segments.count; i++) {
        fb_table s;
        uint32_t si;
        fb_vec offs;
        if (fb_verify_vec_table(&c.fv, &p->mutable_segments, i, &s, "SubsegmentOffsets") != 0 ||
            v_subsegments(&c, &s, &si, &offs) != 0) {
            seg(&c, "mutable_data_segments[%" PRIu32 "]", i);
            return et_error_prefix(err, c.path);
        }
    }
    for (uint32_t i = 0; i < p->named_data.count; i++) {
        fb_table s;
        if (fb_verify_vec_table(&c.fv, &p->named_data, i, &s, "NamedData") != 0 ||
            v_string(&c, &s, 0, "key", NULL) != 0 ||
            l_verify_scalar(&c.fv, &s, 1, 4, "segment_index") != 0) {
            seg(&c, "named_data[%" PRIu32 "]", i);
            return et_error_prefix(err, c.path);
        }
    }
    for (uint32_t i = 0; i < p->plans.count; i++) {
        fb_table pl;
        if (fb_verify_vec_table(&c.fv, &p->plans, i, &pl, "ExecutionPlan") != 0 ||
            v_plan(&c, &pl) != 0) {
            seg(&c, "execution_plan[%" PRIu32 "]", i);
            return et_error_prefix(err, c.path);
        }
    }
    return index_methods(p, err);
}

et_program *et_program_open_path(const char *path, et_error *err)
{
    et_program *p = calloc(1, sizeof *p);
    char *s = strdup(path);
    if (!p || !s) {
        free(p);
        free(s);
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    /* mapped lazily: segment data (delegate blobs, constants) is never
     * paged in, only the FlatBuffer before it */
    static const et_map_options lazy = {0, NULL, false, false};
    et_mapped_file mf;
    if (et_map_file_ex(&mf, path, &lazy, err) != 0) {
        free(p);
        free(s);
        return NULL;
    }
    if (et_program_open(p, mf.data, mf.size, err) != 0) {
        et_error_prefix(err, path);
        et_unmap_file(&mf);
        free(p->by_name);
        free(p);
        free(s);
        return NULL;
    }
    p->file = mf;
    p->path = s;
    return p;
}

void et_program_close(et_program *p)
{
    if (!p)
        return;
    free(p->by_name);
    et_unmap_file(&p->file);
    free(p->path);
    memset(p, 0, sizeof *p);
}

void et_program_free(et_program *p)
{
    if (!p)
        return;
    et_program_close(p);
    free(p);
}

/* ------------------------------------------------------------------ */
/* Accessors. */

void et_program_method(const et_program *p, uint32_t i, et_pmethod *m)
{
    const fb_buf *b = &p->buf;
    fb_table t;
    memset(m, 0, sizeof *m);
    if (!fb_vec_table(b, &p->plans, i, &t))
        return;
    fb_get_string(b, &t, ETP_PLAN_NAME, &m->name.p, &m->name.n);
    fb_get_vector(b, &t, ETP_PLAN_VALUES, 4, &m->values);
    fb_get_vector(b, &t, ETP_PLAN_INPUTS, 4, &m->inputs);
    fb_get_vector(b, &t, ETP_PLAN_OUTPUTS, 4, &m->outputs);
    fb_get_vector(b, &t, ETP_PLAN_CHAINS, 4, &m->chains);
    fb_get_vector(b, &t, ETP_PLAN_OPERATORS, 4, &m->operators);
    fb_get_vector(b, &t, ETP_PLAN_DELEGATES, 4, &m->delegates);
    fb_get_vector(b, &t, ETP_PLAN_BUFFER_SIZES, 8, &m->buffer_sizes);
}

int32_t et_program_find_method(const et_program *p, const char *name, size_t n)
{
    if (!p->by_name || n > UINT32_MAX)
        return -1;
    et_str key = {name, (uint32_t)n};
    /* the first entry not below (key, index 0) */
    uint32_t lo = 0, hi = p->plans.count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (name_cmp(method_name(p, p->by_name[mid]), 1, key, 0) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->plans.count) {
        et_str s = method_name(p, p->by_name[lo]);
        if (s.p && s.n == n && (n == 0 || memcmp(s.p, name, n) == 0) &&
            p->by_name[lo] <= INT32_MAX)
            return (int32_t)p->by_name[lo];
    }
    return -1;
}

fb_vec et_pmethod_chain_instructions(const et_program *p, const et_pmethod *m, uint32_t c)
{
    fb_vec v = {0, 0};
    fb_table t;
    if (fb_vec_table(&p->buf, &m->chains, c, &t))
        fb_get_vector(&p->buf, &t, ETP_CHAIN_INSTRUCTIONS, 4, &v);
    return v;
}

uint64_t et_pmethod_num_instructions(const et_program *p, const et_pmethod *m)
{
    uint64_t n = 0;
    for (uint32_t c = 0; c < m->chains.count; c++)
        n += et_pmethod_chain_instructions(p, m, c).count;
    return n;
}

void et_program_instruction(const et_program *p, const fb_vec *instrs, uint32_t i,
                            et_pinstr *in)
{
    const fb_buf *b = &p->buf;
    fb_table t, m;
    memset(in, 0, sizeof *in);
    if (!fb_vec_table(b, instrs, i, &t))
        return;
    uint8_t type = l_u8(b, &t, ETP_INSTR_TYPE, 0);
    if (type > ET_PINSTR_FREE || !fb_get_table(b, &t, ETP_INSTR_ARGS, &m))
        return;
    in->kind = (et_pinstr_kind)type;
    in->pos = m.pos;
    in->index = l_i32(b, &m, 0, 0);
    if (type == ET_PINSTR_MOVE || type == ET_PINSTR_JUMP_FALSE)
        in->index2 = l_i32(b, &m, 1, 0);
    if (type == ET_PINSTR_KERNEL || type == ET_PINSTR_DELEGATE)
        fb_get_vector(b, &m, 1, 4, &in->args);
}

bool et_pmethod_instruction_at(const et_program *p, const et_pmethod *m, uint64_t id,
                               et_pinstr *in)
{
    memset(in, 0, sizeof *in);
    for (uint32_t c = 0; c < m->chains.count; c++) {
        fb_vec v = et_pmethod_chain_instructions(p, m, c);
        if (id < v.count) {
            et_program_instruction(p, &v, (uint32_t)id, in);
            return in->kind != ET_PINSTR_NONE;
        }
        id -= v.count;
    }
    return false;
}

bool et_pmethod_operator(const et_program *p, const et_pmethod *m, uint32_t i, et_str *name,
                         et_str *overload)
{
    fb_table t;
    name->p = overload->p = NULL;
    name->n = overload->n = 0;
    if (!fb_vec_table(&p->buf, &m->operators, i, &t))
        return false;
    fb_get_string(&p->buf, &t, ETP_OP_NAME, &name->p, &name->n);
    fb_get_string(&p->buf, &t, ETP_OP_OVERLOAD, &overload->p, &overload->n);
    return name->p != NULL;
}

void et_pmethod_operator_name(const et_program *p, const et_pmethod *m, uint32_t i, char *out,
                              size_t cap)
{
    et_str name, ov;
    if (cap == 0)
        return;
    out[0] = '\0';
    if (!et_pmethod_operator(p, m, i, &name, &ov))
        return;
    snprintf(out, cap, "%.*s%s%.*s", (int)(name.n > 4096 ? 4096 : name.n), name.p,
             ov.n ? "." : "", (int)(ov.n > 4096 ? 4096 : ov.n), ov.p ? ov.p : "");
}

bool et_program_segment(const et_program *p, uint32_t i, uint64_t *offset, uint64_t *size)
{
    fb_table t;
    *offset = *size = 0;
    if (!fb_vec_table(&p->buf, &p->segments, i, &t))
        return false;
    *offset = l_u64(&p->buf, &t, ETP_SEG_OFFSET, 0);
    *size = l_u64(&p->buf, &t, ETP_SEG_SIZE, 0);
    return true;
}

bool et_pmethod_delegate(const et_program *p, const et_pmethod *m, uint32_t i,
                         et_pdelegate *d)
{
    const fb_buf *b = &p->buf;
    fb_table t, ref;
    memset(d, 0, sizeof *d);
    if (!fb_vec_table(b, &m->delegates, i, &t))
        return false;
    fb_get_string(b, &t, ETP_DEL_ID, &d->id.p, &d->id.n);
    fb_get_vector(b, &t, ETP_DEL_SPECS, 4, &d->compile_specs);
    if (!fb_get_table(b, &t, ETP_DEL_PROCESSED, &ref))
        return true;
    d->in_segment = l_u8(b, &ref, ETP_REF_LOCATION, 0) == 1;
    d->index = l_u32(b, &ref, ETP_REF_INDEX, 0);
    if (d->in_segment) {
        uint64_t off;
        if (et_program_segment(p, d->index, &off, &d->bytes))
            d->offset = p->segment_base + off;
    } else {
        fb_table inl;
        fb_vec data;
        if (fb_vec_table(b, &p->delegate_data, d->index, &inl) &&
            fb_get_vector(b, &inl, 0, 1, &data)) {
            d->bytes = data.count;
            d->offset = data.pos;
        }
    }
    return true;
}

bool et_pdelegate_compile_spec(const et_program *p, const et_pdelegate *d, uint32_t i,
                               et_str *key, const uint8_t **value, uint32_t *value_len)
{
    fb_table t;
    fb_vec v = {0, 0};
    key->p = NULL;
    key->n = 0;
    *value = NULL;
    *value_len = 0;
    if (!fb_vec_table(&p->buf, &d->compile_specs, i, &t))
        return false;
    fb_get_string(&p->buf, &t, ETP_SPEC_KEY, &key->p, &key->n);
    if (fb_get_vector(&p->buf, &t, ETP_SPEC_VALUE, 1, &v)) {
        *value = p->buf.data + v.pos;
        *value_len = v.count;
    }
    return true;
}

int64_t et_pmethod_buffer_size(const et_program *p, const et_pmethod *m, uint32_t i)
{
    if (i >= m->buffer_sizes.count)
        return 0;
    return (int64_t)fb_ld_u64(p->buf.data + m->buffer_sizes.pos + 8u * i);
}

et_pval_kind et_pmethod_value_kind(const et_program *p, const et_pmethod *m, uint32_t i)
{
    fb_table t;
    if (!fb_vec_table(&p->buf, &m->values, i, &t))
        return ET_PVAL_NONE;
    uint8_t k = l_u8(&p->buf, &t, ETP_EVALUE_TYPE, 0);
    return k > ET_PVAL_OPT_TENSOR_LIST ? ET_PVAL_NONE : (et_pval_kind)k;
}

const char *et_pval_kind_name(et_pval_kind k)
{
    return (unsigned)k <= ET_PVAL_OPT_TENSOR_LIST ? pval_names[k] : "None";
}

const char *et_pinstr_kind_name(et_pinstr_kind k)
{
    return (unsigned)k <= ET_PINSTR_FREE ? pinstr_names[k] : "None";
}

uint64_t et_program_constant_buffer_bytes(const et_program *p, uint32_t i)
{
    fb_table t;
    fb_vec v;
    if (!fb_vec_table(&p->buf, &p->constant_buffer, i, &t) ||
        !fb_get_vector(&p->buf, &t, 0, 1, &v))
        return 0;
    return v.count;
}

void et_pmethod_count(const et_program *p, const et_pmethod *m, uint64_t kinds[6],
                      uint64_t *op_calls, uint64_t *delegate_calls)
{
    if (kinds)
        memset(kinds, 0, 6 * sizeof *kinds);
    if (op_calls)
        memset(op_calls, 0, (size_t)m->operators.count * sizeof *op_calls);
    if (delegate_calls)
        memset(delegate_calls, 0, (size_t)m->delegates.count * sizeof *delegate_calls);
    for (uint32_t c = 0; c < m->chains.count; c++) {
        fb_vec v = et_pmethod_chain_instructions(p, m, c);
        for (uint32_t i = 0; i < v.count; i++) {
            et_pinstr in;
            et_program_instruction(p, &v, i, &in);
            if (kinds)
                kinds[in.kind]++;
            if (in.kind == ET_PINSTR_KERNEL && op_calls && in.index >= 0 &&
                (uint32_t)in.index < m->operators.count)
                op_calls[in.index]++;
            if (in.kind == ET_PINSTR_DELEGATE && delegate_calls && in.index >= 0 &&
                (uint32_t)in.index < m->delegates.count)
                delegate_calls[in.index]++;
        }
    }
}
