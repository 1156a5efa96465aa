/* bundled.c - BundledProgram (.bpte) layout detection, verifier and accessors; see bundled.h. */
#include "format/bundled.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Verification.  As in etdump.c: the innermost check writes "byte N: ..."
 * into the error, and each level on the way out prepends its field name
 * to `path`, giving "method_test_suites[0].test_cases[3].expected_outputs[0]
 * .val: byte N: ...". */

typedef struct vctx {
    fb_verifier fv;
    et_bundled *bp;
    char path[256];
} vctx;

static int seg(vctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prepend one path segment ("test_cases[3]", "val", ...); returns -1. */
static int seg(vctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fb_path_vprepend(c->path, sizeof c->path, fmt, ap);
    va_end(ap);
    return -1;
}

static int missing(vctx *c, const fb_table *t, const char *table, const char *field)
{
    return fb_fail_missing(&c->fv, t, table, field);
}

/* A vector field (absent: count 0, or an error when `required`). */
static int v_vector(vctx *c, const fb_table *t, unsigned slot, unsigned elem, const char *name,
                    bool required, const char *table, fb_vec *vec)
{
    uint32_t target;
    vec->pos = vec->count = 0;
    if (fb_verify_offset(&c->fv, t, slot, &target, "offset to vector") != 0)
        return seg(c, "%s", name);
    if (!target)
        return required ? missing(c, t, table, name) : 0;
    if (fb_verify_vector_at(&c->fv, target, elem, vec, "vector") != 0)
        return seg(c, "%s", name);
    return 0;
}

/* A one-field scalar table (Int, Bool, Double) of `size` bytes. */
static int v_scalar_table(vctx *c, const fb_table *t, unsigned size, const char *field)
{
    return fb_verify_scalar(&c->fv, t, ETB_SCALAR_VAL, size, field);
}

/* Render a shape "INT[2, 2]" for messages. */
static void shape_text(const et_bundled *bp, int st, const fb_vec *sizes, char *out, size_t cap)
{
    const char *name = et_scalar_type_name(st);
    int n = name ? snprintf(out, cap, "%s[", name) : snprintf(out, cap, "ScalarType %d[", st);
    for (uint32_t i = 0; i < sizes->count && n > 0 && (size_t)n < cap; i++) {
        int32_t s = (int32_t)fb_ld_u32(bp->buf.data + sizes->pos + 4u * i);
        n += snprintf(out + n, cap - (size_t)n, i ? ", %" PRId32 : "%" PRId32, s);
    }
    if (n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, "]");
}

static int v_tensor(vctx *c, const fb_table *t)
{
    const fb_buf *b = c->fv.b;
    fb_vec sizes, data, dim_order;
    if (fb_verify_scalar(&c->fv, t, ETB_TENSOR_SCALAR_TYPE, 1, "scalar_type") != 0)
        return -1;
    if (v_vector(c, t, ETB_TENSOR_SIZES, 4, "sizes", true, "Tensor", &sizes) != 0 ||
        v_vector(c, t, ETB_TENSOR_DATA, 1, "data", false, "Tensor", &data) != 0 ||
        v_vector(c, t, ETB_TENSOR_DIM_ORDER, 1, "dim_order", false, "Tensor", &dim_order) != 0)
        return -1;
    if (sizes.count > ET_TENSOR_MAX_DIM)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: Tensor has %" PRIu32 " dimensions, more than the %d allowed",
                       sizes.pos - 4, sizes.count, ET_TENSOR_MAX_DIM),
               seg(c, "sizes");
    /* numel, and the extent with sizes of 0 counted as 1 (what the
     * strides derived from dim_order reach): both must fit in int64 */
    uint64_t numel = 1, extent = 1;
    for (uint32_t i = 0; i < sizes.count; i++) {
        int32_t s = (int32_t)fb_ld_u32(b->data + sizes.pos + 4u * i);
        if (s < 0)
            return et_fail(c->fv.err, ET_ERR_FORMAT,
                           "byte %u: size %" PRId32 " of dimension %" PRIu32 " is negative",
                           sizes.pos + 4u * i, s, i),
                   seg(c, "sizes");
        if (s > 1 && extent > (uint64_t)INT64_MAX / (uint64_t)s) {
            char shape[160];
            shape_text(c->bp, (int8_t)fb_get_i8(b, t, ETB_TENSOR_SCALAR_TYPE, 0), &sizes, shape,
                       sizeof shape);
            return et_fail(c->fv.err, ET_ERR_FORMAT,
                           "byte %u: Tensor %s has more elements than 63 bits can count",
                           t->pos, shape),
                   seg(c, "sizes");
        }
        extent *= s > 1 ? (uint64_t)s : 1u;
        numel *= (uint64_t)s;
    }
    if (dim_order.count != 0 || fb_slot(b, t, ETB_TENSOR_DIM_ORDER) != 0) {
        /* present: a permutation of 0..ndim-1 */
        if (dim_order.count != sizes.count)
            return et_fail(c->fv.err, ET_ERR_FORMAT,
                           "byte %u: dim_order has %" PRIu32 " entries for %" PRIu32
                           " dimensions",
                           dim_order.pos - 4, dim_order.count, sizes.count),
                   seg(c, "dim_order");
        uint32_t seen = 0;
        for (uint32_t i = 0; i < dim_order.count; i++) {
            uint8_t d = b->data[dim_order.pos + i];
            if (d >= dim_order.count || (seen >> d & 1u))
                return et_fail(c->fv.err, ET_ERR_FORMAT,
                               "byte %u: dim_order is not a permutation of 0..%" PRIu32
                               " (entry %" PRIu32 " is %u)",
                               dim_order.pos + i, dim_order.count - 1, i, d),
                       seg(c, "dim_order");
            seen |= 1u << d;
        }
    }
    int st = (int8_t)fb_get_i8(b, t, ETB_TENSOR_SCALAR_TYPE, 0);
    int elem = et_scalar_type_size(st);
    if (elem > 0 && numel > data.count / (uint32_t)elem) {
        char shape[160];
        shape_text(c->bp, st, &sizes, shape, sizeof shape);
        if (numel > UINT64_MAX / (uint64_t)elem)
            return et_fail(c->fv.err, ET_ERR_FORMAT,
                           "byte %u: Tensor %s needs %" PRIu64 " elements of %d bytes, 'data' "
                           "has %" PRIu32 " bytes",
                           t->pos, shape, numel, elem, data.count);
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: Tensor %s needs %" PRIu64 " bytes of data, 'data' has %" PRIu32,
                       t->pos, shape, numel * (uint64_t)elem, data.count);
    }
    c->bp->num_tensors++;
    return 0;
}

static const char *const member_names[] = {"NONE", "Tensor", "Int", "Bool", "Double"};

static int v_value(vctx *c, const fb_table *t)
{
    uint32_t target;
    if (fb_verify_scalar(&c->fv, t, ETB_VALUE_TYPE, 1, "val_type") != 0)
        return -1;
    if (fb_verify_offset(&c->fv, t, ETB_VALUE_VAL, &target, "offset to table") != 0)
        return seg(c, "val");
    uint8_t type = fb_get_u8(c->fv.b, t, ETB_VALUE_TYPE, 0);
    if (type == ET_BVAL_NONE)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: Value has no member (val_type NONE; expected Tensor, Int, Bool "
                       "or Double)",
                       t->pos);
    if (type > ET_BVAL_DOUBLE)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: val_type %u is not a member of ValueUnion (1 Tensor, 2 Int, "
                       "3 Bool, 4 Double)",
                       t->pos, type);
    if (!target)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: Value: required field 'val' is absent (val_type %s)", t->pos,
                       member_names[type]);
    fb_table m;
    if (fb_verify_table_at(&c->fv, target, &m, member_names[type]) != 0)
        return seg(c, "val");
    int rc = 0;
    switch (type) {
    case ET_BVAL_TENSOR: rc = v_tensor(c, &m); break;
    case ET_BVAL_INT: rc = v_scalar_table(c, &m, 8, "int_val"); break;
    case ET_BVAL_BOOL: rc = v_scalar_table(c, &m, 1, "bool_val"); break;
    default: rc = v_scalar_table(c, &m, 8, "double_val"); break;
    }
    if (rc != 0)
        return seg(c, "val");
    c->bp->num_values++;
    return 0;
}

static int v_values(vctx *c, const fb_table *t, unsigned slot, const char *name)
{
    fb_vec vec;
    if (v_vector(c, t, slot, 4, name, false, "BundledMethodTestCase", &vec) != 0)
        return -1;
    for (uint32_t i = 0; i < vec.count; i++) {
        fb_table v;
        if (fb_verify_vec_table(&c->fv, &vec, i, &v, "Value") != 0 || v_value(c, &v) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "%s", name);
    }
    return 0;
}

static int v_suite(vctx *c, const fb_table *t)
{
    uint32_t target;
    if (fb_verify_offset(&c->fv, t, ETB_SUITE_METHOD, &target, "offset to string") != 0)
        return seg(c, "method_name");
    if (!target)
        return missing(c, t, "BundledMethodTestSuite", "method_name");
    if (fb_verify_string_at(&c->fv, target, "string") != 0)
        return seg(c, "method_name");
    fb_vec cases;
    if (v_vector(c, t, ETB_SUITE_CASES, 4, "test_cases", false, "BundledMethodTestSuite",
                 &cases) != 0)
        return -1;
    for (uint32_t i = 0; i < cases.count; i++) {
        fb_table tc;
        if (fb_verify_vec_table(&c->fv, &cases, i, &tc, "BundledMethodTestCase") != 0 ||
            v_values(c, &tc, ETB_CASE_INPUTS, "inputs") != 0 ||
            v_values(c, &tc, ETB_CASE_EXPECTED, "expected_outputs") != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "test_cases");
    }
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

static bool is_digit(uint8_t ch) { return ch >= '0' && ch <= '9'; }

/* What else the 4 bytes at `p` may say the file is (a hint for the
 * "not a BundledProgram" message), or NULL. */
static const char *identify(const uint8_t *p)
{
    if (memcmp(p, "ED00", 4) == 0)
        return "an ETDump (identifier \"ED00\"), not a BundledProgram";
    if (p[0] == 'B' && p[1] == 'P' && is_digit(p[2]) && is_digit(p[3]))
        return "a BundledProgram of an older schema, whose tables are laid out differently; "
               "etinspect reads \"BP08\" only";
    if (p[0] == 'E' && p[1] == 'T' && is_digit(p[2]) && is_digit(p[3]))
        return "an ExecuTorch program (.pte), not a BundledProgram: it has no test cases";
    return NULL;
}

int et_bundled_open(et_bundled *bp, const uint8_t *data, size_t size, et_error *err)
{
    memset(bp, 0, sizeof *bp);
    if (size == 0)
        return et_fail(err, ET_ERR_FORMAT,
                       "empty file, expected a BundledProgram (a FlatBuffer with identifier "
                       "\"BP08\")");
    if (size < 8)
        return et_fail(err, ET_ERR_FORMAT,
                       "file is only %zu bytes, too short for a BundledProgram (it needs at "
                       "least 8: a root offset and the identifier \"BP08\")",
                       size);
    if (size > (size_t)INT32_MAX)
        return et_fail(err, ET_ERR_FORMAT,
                       "file is %zu bytes, larger than a FlatBuffer can be (2 GiB)", size);
    uint32_t start, end;
    if (memcmp(data + 4, "BP08", 4) == 0) {
        /* A FlatBuffer builder pads the whole buffer to its largest
         * alignment (at least 4), so a size that is not a multiple of 4 is
         * a cut (or extended) file - even when the cut only took padding
         * and everything referenced is still there. */
        if (size % 4 != 0)
            return et_fail(err, ET_ERR_FORMAT,
                           "byte %zu: truncated BundledProgram: the file is %zu bytes, not a "
                           "multiple of 4 as every FlatBuffer is (or bytes were appended)",
                           size, size);
        start = 0;
        end = (uint32_t)size;
    } else if (size >= 12 && memcmp(data + 8, "BP08", 4) == 0) {
        uint32_t prefix = fb_ld_u32(data);
        if ((uint64_t)prefix > size - 4)
            return et_fail(err, ET_ERR_FORMAT,
                           "byte 0: truncated BundledProgram: the size prefix says %" PRIu32
                           " bytes follow, but the file has only %zu after it",
                           prefix, size - 4);
        if (prefix < 8)
            return et_fail(err, ET_ERR_FORMAT,
                           "byte 0: size prefix %" PRIu32
                           " is too small to hold the root offset and identifier",
                           prefix);
        bp->size_prefixed = true;
        start = 4;
        end = 4 + prefix;
    } else {
        char a[20], b[20];
        show4(data + 4, a);
        const char *what = identify(data + 4);
        if (!what && size >= 12)
            what = identify(data + 8);
        if (size >= 12)
            show4(data + 8, b);
        else
            strcpy(b, "(end of file)");
        if (what)
            return et_fail(err, ET_ERR_FORMAT,
                           "not a BundledProgram: expected file identifier \"BP08\" at byte 4 "
                           "(or 8 when size-prefixed), found \"%s\" (and \"%s\"): this is %s",
                           a, b, what);
        return et_fail(err, ET_ERR_FORMAT,
                       "not a BundledProgram: expected file identifier \"BP08\" at byte 4 (or 8 "
                       "when size-prefixed), found \"%s\" (and \"%s\")",
                       a, b);
    }
    bp->buf.data = data;
    bp->buf.start = start;
    bp->buf.end = end;

    vctx c;
    memset(&c, 0, sizeof c);
    c.bp = bp;
    fb_verifier_init(&c.fv, &bp->buf, err);
    uint32_t root = fb_ld_u32(data + start);
    uint64_t rootpos = (uint64_t)start + root;
    if (root == 0)
        return et_fail(err, ET_ERR_FORMAT,
                       "byte %" PRIu32 ": invalid root offset 0 (expected the position of the "
                       "root table)",
                       start);
    if (!fb_in(&bp->buf, rootpos, 4))
        return et_fail(err, ET_ERR_FORMAT,
                       "byte %" PRIu32 ": root offset %" PRIu32
                       " points outside the buffer (which ends at byte %" PRIu32
                       "; a truncated file?)",
                       start, root, end);
    fb_table t;
    if (fb_verify_table_at(&c.fv, rootpos, &t, "BundledProgram") != 0 ||
        fb_verify_scalar(&c.fv, &t, ETB_BP_VERSION, 4, "version") != 0)
        return -1;
    bp->version = fb_get_u32(&bp->buf, &t, ETB_BP_VERSION, 0);
    if (v_vector(&c, &t, ETB_BP_PROGRAM, 1, "program", false, "BundledProgram", &bp->program) !=
            0 ||
        v_vector(&c, &t, ETB_BP_SUITES, 4, "method_test_suites", false, "BundledProgram",
                 &bp->suites) != 0)
        return et_error_prefix(err, c.path);
    for (uint32_t i = 0; i < bp->suites.count; i++) {
        fb_table s;
        if (fb_verify_vec_table(&c.fv, &bp->suites, i, &s, "BundledMethodTestSuite") != 0 ||
            v_suite(&c, &s) != 0) {
            seg(&c, "method_test_suites[%" PRIu32 "]", i);
            return et_error_prefix(err, c.path);
        }
    }
    return 0;
}

et_bundled *et_bundled_open_path(const char *path, et_error *err)
{
    et_bundled *bp = calloc(1, sizeof *bp);
    char *p = strdup(path);
    if (!bp || !p) {
        free(bp);
        free(p);
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    /* refused from its size before mapping; mapped lazily: only the
     * tensors read are paged in */
    static const et_map_options fb = {(uint64_t)INT32_MAX,
                                      "larger than a FlatBuffer can be (2 GiB)", false, false};
    et_mapped_file mf;
    if (et_map_file_ex(&mf, path, &fb, err) != 0) {
        free(bp);
        free(p);
        return NULL;
    }
    if (et_bundled_open(bp, mf.data, mf.size, err) != 0) {
        et_error_prefix(err, path);
        et_unmap_file(&mf);
        free(bp);
        free(p);
        return NULL;
    }
    bp->file = mf;
    bp->path = p;
    return bp;
}

void et_bundled_close(et_bundled *bp)
{
    if (!bp)
        return;
    et_unmap_file(&bp->file);
    free(bp->path);
    memset(bp, 0, sizeof *bp);
}

void et_bundled_free(et_bundled *bp)
{
    if (!bp)
        return;
    et_bundled_close(bp);
    free(bp);
}

/* ------------------------------------------------------------------ */
/* Accessors. */

void et_bundled_suite_at(const et_bundled *bp, uint32_t i, et_bundled_suite *s)
{
    fb_table t;
    memset(s, 0, sizeof *s);
    if (!fb_vec_table(&bp->buf, &bp->suites, i, &t))
        return;
    fb_get_string(&bp->buf, &t, ETB_SUITE_METHOD, &s->method_name.p, &s->method_name.n);
    fb_get_vector(&bp->buf, &t, ETB_SUITE_CASES, 4, &s->test_cases);
}

int32_t et_bundled_find_suite(const et_bundled *bp, const char *method)
{
    size_t n = strlen(method);
    for (uint32_t i = 0; i < bp->suites.count && i <= INT32_MAX; i++) {
        et_bundled_suite s;
        et_bundled_suite_at(bp, i, &s);
        if (s.method_name.p && s.method_name.n == n && memcmp(s.method_name.p, method, n) == 0)
            return (int32_t)i;
    }
    return -1;
}

int32_t et_bundled_reference_suite(const et_bundled *bp)
{
    int32_t i = et_bundled_find_suite(bp, "forward");
    if (i >= 0)
        return i;
    return bp->suites.count == 1 ? 0 : -1;
}

void et_bundled_case_at(const et_bundled *bp, const et_bundled_suite *s, uint32_t i,
                        et_bundled_case *c)
{
    fb_table t;
    memset(c, 0, sizeof *c);
    if (!fb_vec_table(&bp->buf, &s->test_cases, i, &t))
        return;
    fb_get_vector(&bp->buf, &t, ETB_CASE_INPUTS, 4, &c->inputs);
    fb_get_vector(&bp->buf, &t, ETB_CASE_EXPECTED, 4, &c->expected_outputs);
}

void et_bundled_value(const et_bundled *bp, const fb_vec *values, uint32_t i, et_bvalue *v)
{
    const fb_buf *b = &bp->buf;
    fb_table t, m;
    memset(v, 0, sizeof *v);
    if (!fb_vec_table(b, values, i, &t))
        return;
    uint8_t type = fb_get_u8(b, &t, ETB_VALUE_TYPE, 0);
    if (type > ET_BVAL_DOUBLE || !fb_get_table(b, &t, ETB_VALUE_VAL, &m))
        return;
    v->kind = (et_bvalue_kind)type;
    v->pos = m.pos;
    switch (v->kind) {
    case ET_BVAL_TENSOR:
        v->scalar_type = fb_get_i8(b, &m, ETB_TENSOR_SCALAR_TYPE, 0);
        fb_get_vector(b, &m, ETB_TENSOR_SIZES, 4, &v->sizes);
        fb_get_vector(b, &m, ETB_TENSOR_DATA, 1, &v->data);
        fb_get_vector(b, &m, ETB_TENSOR_DIM_ORDER, 1, &v->dim_order);
        break;
    case ET_BVAL_INT: v->int_val = fb_get_i64(b, &m, ETB_SCALAR_VAL, 0); break;
    case ET_BVAL_BOOL: v->bool_val = fb_get_u8(b, &m, ETB_SCALAR_VAL, 0) != 0; break;
    case ET_BVAL_DOUBLE: v->double_val = fb_get_f64(b, &m, ETB_SCALAR_VAL, 0.0); break;
    default: break;
    }
}

int et_bundled_tensor(const et_bundled *bp, const et_bvalue *v, et_tensor *t, const char *what,
                      et_error *err)
{
    if (v->kind != ET_BVAL_TENSOR)
        return et_fail(err, ET_ERR_VALUE, "%s: not a Tensor", what);
    uint32_t ndim = v->sizes.count;
    if (ndim > ET_TENSOR_MAX_DIM)
        return et_fail(err, ET_ERR_FORMAT, "%s: %" PRIu32 " dimensions, more than the %d allowed",
                       what, ndim, ET_TENSOR_MAX_DIM);
    int64_t sizes[ET_TENSOR_MAX_DIM], strides[ET_TENSOR_MAX_DIM];
    for (uint32_t i = 0; i < ndim; i++)
        sizes[i] = et_bundled_size_at(bp, v, i);
    const int64_t *st = NULL;
    if (v->dim_order.count == ndim && ndim > 0) {
        /* strides from the dim order, as the runtime derives them: the
         * innermost dimension has stride 1, each outer one the next one's
         * stride times its size (a size of 0 counting as 1) */
        /* copied: each entry is checked, then used as an index, and the
         * mapped bytes may change between the two (a file rewritten) */
        uint8_t order[ET_TENSOR_MAX_DIM];
        memcpy(order, bp->buf.data + v->dim_order.pos, ndim);
        bool valid = true;
        for (uint32_t i = 0; i < ndim; i++)
            valid = valid && order[i] < ndim;
        if (valid) {
            strides[order[ndim - 1]] = 1;
            for (uint32_t i = ndim - 1; i-- > 0;) {
                int64_t next = sizes[order[i + 1]];
                int64_t s = strides[order[i + 1]];
                if (next > 1 && s > INT64_MAX / next)
                    return et_fail(err, ET_ERR_FORMAT, "%s: strides overflow 64 bits", what);
                strides[order[i]] = next > 1 ? s * next : s;
            }
            st = strides;
        }
    }
    const uint8_t *base = v->data.count ? bp->buf.data + v->data.pos : NULL;
    return et_tensor_init(t, v->scalar_type, ndim, sizes, st, base, v->data.count, 0, what, err);
}
