/* tensor.c - tensor views over foreign bytes; see tensor.h. */
#include "format/tensor.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "format/etdump.h"

/* ---- scalar types ------------------------------------------------------- */

et_elem_kind et_scalar_type_kind(int st)
{
    switch (st) {
    case ET_ST_BOOL:
        return ET_ELEM_BOOL;
    case ET_ST_CHAR: case ET_ST_SHORT: case ET_ST_INT: case ET_ST_LONG: case ET_ST_QINT8:
    case ET_ST_QINT32:
        return ET_ELEM_SIGNED;
    case ET_ST_BYTE: case ET_ST_QUINT8: case ET_ST_BITS16: case ET_ST_UINT16: case ET_ST_UINT32:
    case ET_ST_UINT64:
        return ET_ELEM_UNSIGNED;
    case ET_ST_HALF: case ET_ST_FLOAT: case ET_ST_DOUBLE: case ET_ST_BFLOAT16:
    case ET_ST_FLOAT8E5M2: case ET_ST_FLOAT8E4M3FN: case ET_ST_FLOAT8E5M2FNUZ:
    case ET_ST_FLOAT8E4M3FNUZ:
        return ET_ELEM_FLOAT;
    default:
        return ET_ELEM_NONE;
    }
}

int et_scalar_type_from_name(const char *name)
{
    static const struct {
        const char *n;
        int st;
    } np[] = {{"uint8", 0},    {"int8", 1},     {"int16", 2},     {"int32", 3},
              {"int64", 4},    {"float16", 5},  {"float32", 6},   {"float64", 7},
              {"bool", 11},    {"bfloat16", 15}, {"uint16", 27},  {"uint32", 28},
              {"uint64", 29},  {"half", 5},     {"float", 6},     {"double", 7}};
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof np / sizeof np[0]; i++)
        if (strcmp(name, np[i].n) == 0)
            return np[i].st;
    for (int st = 0; st < 64; st++) {
        const char *n = et_scalar_type_name(st);
        if (n && strcasecmp(n, name) == 0) /* also the Python spelling QUINT4x2 */
            return st;
    }
    return -1;
}

const char *et_scalar_type_label(int st, char *buf)
{
    const char *n = et_scalar_type_dtype(st);
    if (!n)
        n = et_scalar_type_name(st);
    if (n)
        return n;
    snprintf(buf, 24, "scalar_type_%d", st);
    return buf;
}

/* ---- float formats ------------------------------------------------------ */

double et_half_to_double(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp(m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(m + 1024, e - 25);
    return s ? -v : v;
}

/* IEEE bfloat16 bits to double (exact). */
static double bfloat16_to_double(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t et_double_to_bfloat16(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f))
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* Round a finite non-negative double to a binary format with `mb`
 * mantissa bits, minimum normal exponent `emin` (unbiased): returns the
 * magnitude as (exponent field << mb | mantissa), exponent field 0 for
 * subnormals, possibly one past the largest finite (the caller checks). */
static uint32_t round_mini(double a, int mb, int emin)
{
    if (a == 0)
        return 0;
    int e;
    frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) -> unbiased exponent e-1 */
    int ue = e - 1;
    if (ue < emin)
        ue = emin; /* subnormal: fixed quantum */
    double q = ldexp(a, mb - ue); /* in [2^mb, 2^(mb+1)) for normals */
    double r = nearbyint(q);      /* default rounding mode: nearest even */
    uint64_t n = (uint64_t)r;
    /* field = (ue - emin + 1) for normals; n includes the implicit bit */
    if (n < (1u << mb)) /* subnormal (ue == emin and below 2^mb) */
        return (uint32_t)n;
    return (uint32_t)(((uint64_t)(ue - emin + 1) << mb) + (n - (1u << mb)));
}

uint16_t et_double_to_half(double v)
{
    uint16_t s = signbit(v) ? 0x8000 : 0;
    if (isnan(v))
        return 0x7e00 | s;
    double a = fabs(v);
    if (!(a < 65520.0)) /* 65504 + half an ulp rounds to even: infinity */
        return s | 0x7c00;
    return (uint16_t)(s | round_mini(a, 10, -14));
}

typedef struct f8fmt {
    int mb, emin;   /* mantissa bits, minimum normal exponent */
    int has_inf;    /* IEEE-like E5M2 */
    int nan_80;     /* FNUZ: 0x80 is the only NaN, no negative zero */
} f8fmt;

static const f8fmt *f8_format(int st)
{
    /* largest finite: 57344, 448, 57344, 240 */
    static const f8fmt e5m2 = {2, -14, 1, 0}, e4m3fn = {3, -6, 0, 0}, e5m2fnuz = {2, -15, 0, 1},
                       e4m3fnuz = {3, -7, 0, 1};
    switch (st) {
    case ET_ST_FLOAT8E5M2: return &e5m2;
    case ET_ST_FLOAT8E4M3FN: return &e4m3fn;
    case ET_ST_FLOAT8E5M2FNUZ: return &e5m2fnuz;
    case ET_ST_FLOAT8E4M3FNUZ: return &e4m3fnuz;
    default: return NULL;
    }
}

double et_float8_to_double(int st, uint8_t b)
{
    const f8fmt *f = f8_format(st);
    if (!f)
        return NAN;
    int s = b >> 7, mb = f->mb, eb = 7 - mb;
    int e = (b >> mb) & ((1 << eb) - 1), m = b & ((1 << mb) - 1);
    if (f->nan_80 && b == 0x80)
        return NAN;
    if (f->has_inf && e == (1 << eb) - 1)
        return m ? NAN : (s ? -INFINITY : INFINITY);
    if (!f->has_inf && !f->nan_80 && e == (1 << eb) - 1 && m == (1 << mb) - 1)
        return NAN; /* E4M3FN: S.1111.111 */
    double v = e == 0 ? ldexp(m, f->emin - mb) : ldexp(m + (1 << mb), e - 1 + f->emin - mb);
    return s ? -v : v;
}

static uint8_t double_to_float8(const f8fmt *f, double v)
{
    uint8_t s = signbit(v) ? 0x80 : 0;
    uint8_t nan = f->nan_80 ? 0x80 : 0x7f;
    if (isnan(v))
        return nan;
    double a = fabs(v);
    /* largest finite magnitude code */
    uint32_t maxc = f->has_inf ? 0x7b : f->nan_80 ? 0x7f : 0x7e;
    uint32_t mag = isinf(a) ? maxc + 1 : round_mini(a, f->mb, f->emin);
    if (mag > maxc)
        return f->has_inf ? (uint8_t)(s | 0x7c) : nan;
    if (mag == 0 && f->nan_80)
        return 0; /* no negative zero */
    return (uint8_t)(s | mag);
}

/* ---- element decoding --------------------------------------------------- */

static inline double load_f64(int st, const uint8_t *p)
{
    switch (st) {
    case ET_ST_BYTE: case ET_ST_QUINT8: return *p;
    case ET_ST_CHAR: case ET_ST_QINT8: return (int8_t)*p;
    case ET_ST_BOOL: return *p != 0;
    case ET_ST_SHORT: { int16_t x; memcpy(&x, p, 2); return x; }
    case ET_ST_BITS16: case ET_ST_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case ET_ST_INT: case ET_ST_QINT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case ET_ST_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case ET_ST_LONG: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    case ET_ST_UINT64: { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    case ET_ST_FLOAT: { float x; memcpy(&x, p, 4); return x; }
    case ET_ST_DOUBLE: { double x; memcpy(&x, p, 8); return x; }
    case ET_ST_HALF: { uint16_t x; memcpy(&x, p, 2); return et_half_to_double(x); }
    case ET_ST_BFLOAT16: { uint16_t x; memcpy(&x, p, 2); return bfloat16_to_double(x); }
    default: return et_float8_to_double(st, *p);
    }
}

static inline int64_t load_i64(int st, const uint8_t *p)
{
    switch (st) {
    case ET_ST_BYTE: case ET_ST_QUINT8: return *p;
    case ET_ST_CHAR: case ET_ST_QINT8: return (int8_t)*p;
    case ET_ST_BOOL: return *p != 0;
    case ET_ST_SHORT: { int16_t x; memcpy(&x, p, 2); return x; }
    case ET_ST_BITS16: case ET_ST_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case ET_ST_INT: case ET_ST_QINT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case ET_ST_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case ET_ST_LONG: { int64_t x; memcpy(&x, p, 8); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return (int64_t)x; } /* UINT64 */
    }
}

/* Decode `n` elements spaced `step` bytes apart (specialised loops for the
 * common types; the switch of load_f64 otherwise). */
static void decode_run_f64(int st, const uint8_t *p, int64_t step, uint64_t n, double *out)
{
    switch (st) {
    case ET_ST_FLOAT:
        for (uint64_t i = 0; i < n; i++, p += step) {
            float x;
            memcpy(&x, p, 4);
            out[i] = x;
        }
        return;
    case ET_ST_DOUBLE:
        for (uint64_t i = 0; i < n; i++, p += step)
            memcpy(&out[i], p, 8);
        return;
    default:
        for (uint64_t i = 0; i < n; i++, p += step)
            out[i] = load_f64(st, p);
    }
}

static void decode_run_i64(int st, const uint8_t *p, int64_t step, uint64_t n, int64_t *out)
{
    for (uint64_t i = 0; i < n; i++, p += step)
        out[i] = load_i64(st, p);
}

/* ---- views -------------------------------------------------------------- */

static _Atomic uint64_t max_broadcast = ET_TENSOR_MAX_BROADCAST;

uint64_t et_tensor_max_broadcast(void)
{
    return atomic_load_explicit(&max_broadcast, memory_order_relaxed);
}

uint64_t et_tensor_set_max_broadcast(uint64_t n)
{
    return atomic_exchange_explicit(&max_broadcast, n ? n : ET_TENSOR_MAX_BROADCAST,
                                    memory_order_relaxed);
}

/* "[2, 3]" into buf (cap >= 8), shortened with "..." when it does not fit. */
static void dims_text(const int64_t *v, uint32_t n, char *buf, size_t cap)
{
    size_t k = 0;
    buf[k++] = '[';
    for (uint32_t d = 0; d < n; d++) {
        char one[24];
        int w = snprintf(one, sizeof one, "%s%lld", d ? ", " : "", (long long)v[d]);
        if (w < 0 || k + (size_t)w + 5 > cap) {
            memcpy(buf + k, "...", 3);
            k += 3;
            break;
        }
        memcpy(buf + k, one, (size_t)w);
        k += (size_t)w;
    }
    buf[k++] = ']';
    buf[k] = 0;
}

/* Work proportional to the input: a view may not hold more elements than
 * the `avail` bytes behind element 0 can (numel * es <= avail), unless
 * the surplus comes from broadcasting - dimensions of size > 1 with stride
 * 0 - whose other dimensions fit in those bytes, and the whole view stays
 * within the broadcast budget (et_tensor_max_broadcast).  Overlapping
 * non-zero strides that repeat elements beyond the bytes are refused. */
static int check_repeats(const et_tensor *t, uint64_t es, uint64_t avail, int64_t offset,
                         const char *what, const char *buffer_name, et_error *err)
{
    if (es == 0 || t->numel <= avail / es)
        return 0;
    uint64_t distinct = 1;
    bool broadcast = false;
    for (uint32_t d = 0; d < t->ndim; d++) {
        if (t->sizes[d] > 1 && t->strides[d] == 0)
            broadcast = true;
        else
            distinct *= (uint64_t)t->sizes[d]; /* <= numel: no overflow */
    }
    char sz[96], st[96];
    dims_text(t->sizes, t->ndim, sz, sizeof sz);
    dims_text(t->strides, t->ndim, st, sizeof st);
    if (!broadcast || distinct > avail / es)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: sizes %s with strides %s name %llu elements of %llu bytes, more "
                       "than the %llu bytes from offset %lld in the %s hold (only a zero "
                       "stride may repeat elements)",
                       what, sz, st, (unsigned long long)t->numel, (unsigned long long)es,
                       (unsigned long long)avail, (long long)offset, buffer_name);
    uint64_t cap = et_tensor_max_broadcast();
    if (t->numel > cap)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: sizes %s with strides %s broadcast %llu elements from %llu bytes, "
                       "more than the broadcast budget of %llu elements (raise it with "
                       "--max_broadcast_elements or etinspect.limits)",
                       what, sz, st, (unsigned long long)t->numel,
                       (unsigned long long)(distinct * es), (unsigned long long)cap);
    return 0;
}

int et_tensor_init(et_tensor *t, int scalar_type, uint32_t ndim, const int64_t *sizes,
                   const int64_t *strides, const uint8_t *base, uint64_t base_size,
                   int64_t offset, const char *what, et_error *err)
{
    return et_tensor_init_in(t, scalar_type, ndim, sizes, strides, base, base_size, offset, what,
                             "debug buffer", err);
}

int et_tensor_init_in(et_tensor *t, int scalar_type, uint32_t ndim, const int64_t *sizes,
                      const int64_t *strides, const uint8_t *base, uint64_t base_size,
                      int64_t offset, const char *what, const char *buffer_name, et_error *err)
{
    memset(t, 0, sizeof *t);
    t->scalar_type = scalar_type;
    t->elem_size = et_scalar_type_kind(scalar_type) == ET_ELEM_NONE ? 0
                                                                     : et_scalar_type_size(scalar_type);
    if (!what)
        what = "tensor";
    if (!buffer_name)
        buffer_name = "buffer";
    if (ndim > ET_TENSOR_MAX_DIM)
        return et_fail(err, ET_ERR_FORMAT, "%s: %u dimensions (at most %d are supported)", what,
                       ndim, ET_TENSOR_MAX_DIM);
    t->ndim = ndim;
    uint64_t numel = 1;
    bool overflow = false;
    for (uint32_t d = 0; d < ndim; d++) {
        if (sizes[d] < 0)
            return et_fail(err, ET_ERR_FORMAT, "%s: negative size %lld in dimension %u", what,
                           (long long)sizes[d], d);
        t->sizes[d] = sizes[d];
        if (sizes[d] && numel > UINT64_MAX / (uint64_t)sizes[d])
            overflow = true;
        numel *= (uint64_t)sizes[d];
    }
    /* a zero size makes any product 0, even one that overflowed earlier */
    for (uint32_t d = 0; d < ndim; d++)
        if (sizes[d] == 0)
            numel = 0, overflow = false;
    if (overflow)
        return et_fail(err, ET_ERR_FORMAT, "%s: the number of elements overflows 64 bits", what);
    t->numel = numel;
    /* strides: given (>= 0) or contiguous */
    int64_t acc = 1;
    for (uint32_t d = ndim; d-- > 0;) {
        if (strides) {
            if (strides[d] < 0)
                return et_fail(err, ET_ERR_FORMAT, "%s: negative stride %lld in dimension %u",
                               what, (long long)strides[d], d);
            t->strides[d] = strides[d];
        } else {
            t->strides[d] = acc;
            if (sizes[d] && acc > INT64_MAX / (sizes[d] ? sizes[d] : 1))
                acc = INT64_MAX; /* only reached when numel overflowed: caught above */
            else
                acc *= sizes[d] ? sizes[d] : 1;
        }
    }
    if (numel == 0)
        return 0; /* empty: nothing to read, nothing to check (offset -1 allowed) */
    /* span in elements: 1 + sum (size-1)*stride, checked */
    uint64_t span_el = 1;
    for (uint32_t d = 0; d < ndim; d++) {
        uint64_t s1 = (uint64_t)t->sizes[d] - 1, st = (uint64_t)t->strides[d];
        if (s1 && st > UINT64_MAX / s1)
            return et_fail(err, ET_ERR_FORMAT,
                           "%s: the byte span of sizes and strides overflows 64 bits", what);
        uint64_t add = s1 * st;
        if (span_el > UINT64_MAX - add)
            return et_fail(err, ET_ERR_FORMAT,
                           "%s: the byte span of sizes and strides overflows 64 bits", what);
        span_el += add;
    }
    /* byte counts are int64 everywhere (t.nbytes, offsets): the span and
     * numel * elem_size must stay below 2^63 */
    int es = et_scalar_type_size(scalar_type);
    uint64_t es_u = es > 0 ? (uint64_t)es : 0;
    uint64_t most = es_u ? (uint64_t)INT64_MAX / es_u : (uint64_t)INT64_MAX;
    if (span_el > most || numel > most)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: %llu elements of %d bytes overflow 64 bits", what,
                       (unsigned long long)(span_el > numel ? span_el : numel), es);
    uint64_t span = span_el * es_u;
    if (!base)
        return 0; /* no bytes: shape and dtype only */
    if (offset < 0)
        return et_fail(err, ET_ERR_FORMAT, "%s: offset %lld for a tensor of %llu elements", what,
                       (long long)offset, (unsigned long long)numel);
    if ((uint64_t)offset > base_size || span > base_size - (uint64_t)offset)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: offset %lld + %llu bytes runs past the end of the %s (%llu bytes)",
                       what, (long long)offset, (unsigned long long)span, buffer_name,
                       (unsigned long long)base_size);
    if (check_repeats(t, es_u, base_size - (uint64_t)offset, offset, what, buffer_name, err) != 0)
        return -1;
    if (t->elem_size == 0)
        return 0; /* unreadable type: bounds known to be fine as far as we can tell */
    t->data = base + offset;
    t->span = span;
    return 0;
}

bool et_tensor_readable(const et_tensor *t)
{
    return t->elem_size > 0 && (t->data != NULL || t->numel == 0);
}

const char *et_tensor_unreadable(const et_tensor *t, char *buf, size_t cap)
{
    if (t->elem_size == 0) {
        const char *n = et_scalar_type_name(t->scalar_type);
        if (n)
            snprintf(buf, cap, "scalar type %s cannot be read", n);
        else
            snprintf(buf, cap, "unknown scalar type %d cannot be read", t->scalar_type);
        return buf;
    }
    if (t->numel == 0 || t->data)
        return NULL;
    return "no debug buffer";
}

bool et_tensor_is_contiguous(const et_tensor *t)
{
    /* unsigned: sizes [0, 2^62, 4] must not overflow a signed product; once
     * the product passes INT64_MAX no stride can equal it, and only size-1
     * dimensions (or none) may remain */
    if (t->numel == 0)
        return true; /* nothing to lay out (as torch says of empty tensors) */
    uint64_t acc = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        uint64_t sz = t->sizes[d] > 0 ? (uint64_t)t->sizes[d] : 0;
        if (sz != 1 && (acc > (uint64_t)INT64_MAX || (uint64_t)t->strides[d] != acc))
            return false;
        acc = sz && acc > UINT64_MAX / sz ? UINT64_MAX : acc * sz;
    }
    return true;
}

/* Byte offset from `data` of element `flat` (< numel), strides honoured. */
static uint64_t elem_offset(const et_tensor *t, uint64_t flat)
{
    uint64_t off = 0;
    for (uint32_t d = t->ndim; d-- > 0;) {
        uint64_t sz = (uint64_t)t->sizes[d];
        off += (flat % sz) * (uint64_t)t->strides[d];
        flat /= sz;
    }
    return off * (uint64_t)t->elem_size;
}

/* Walk elements first .. first+n-1 as runs along the last dimension:
 * fn(ctx, pointer, step in bytes, count, index in the output). */
typedef void (*run_fn)(void *ctx, const uint8_t *p, int64_t step, uint64_t n, uint64_t at);

static void foreach_run(const et_tensor *t, uint64_t first, uint64_t n, run_fn fn, void *ctx)
{
    if (n == 0)
        return;
    int64_t es = t->elem_size;
    if (t->ndim == 0) {
        fn(ctx, t->data, es, 1, 0);
        return;
    }
    if (et_tensor_is_contiguous(t)) {
        fn(ctx, t->data + first * (uint64_t)es, es, n, 0);
        return;
    }
    uint32_t last = t->ndim - 1;
    uint64_t inner = (uint64_t)t->sizes[last];
    /* a dimension of size 1 may have any stride (its step is never taken;
     * stride x itemsize may not even fit); a longer one's fits, the tensor
     * being valid */
    int64_t step = inner > 1 ? t->strides[last] * es : es;
    /* coordinates of `first` */
    uint64_t idx[ET_TENSOR_MAX_DIM];
    uint64_t f = first;
    for (uint32_t d = t->ndim; d-- > 0;) {
        idx[d] = f % (uint64_t)t->sizes[d];
        f /= (uint64_t)t->sizes[d];
    }
    uint64_t at = 0;
    while (at < n) {
        uint64_t off = 0;
        for (uint32_t d = 0; d < t->ndim; d++)
            off += idx[d] * (uint64_t)t->strides[d];
        uint64_t cnt = inner - idx[last];
        if (cnt > n - at)
            cnt = n - at;
        fn(ctx, t->data + off * (uint64_t)es, step, cnt, at);
        at += cnt;
        /* advance the odometer to the start of the next row */
        idx[last] = 0;
        for (uint32_t d = last; d-- > 0;) {
            if (++idx[d] < (uint64_t)t->sizes[d])
                break;
            idx[d] = 0;
        }
    }
}

struct read_ctx {
    int st;
    void *out;
};

static void run_f64(void *c, const uint8_t *p, int64_t step, uint64_t n, uint64_t at)
{
    struct read_ctx *r = c;
    decode_run_f64(r->st, p, step, n, (double *)r->out + at);
}

static void run_i64(void *c, const uint8_t *p, int64_t step, uint64_t n, uint64_t at)
{
    struct read_ctx *r = c;
    decode_run_i64(r->st, p, step, n, (int64_t *)r->out + at);
}

static int range_ok(const et_tensor *t, uint64_t first, uint64_t n)
{
    return et_tensor_readable(t) && first <= t->numel && n <= t->numel - first;
}

int et_tensor_read_f64(const et_tensor *t, uint64_t first, uint64_t n, double *out)
{
    if (!range_ok(t, first, n))
        return -1;
    struct read_ctx r = {t->scalar_type, out};
    foreach_run(t, first, n, run_f64, &r);
    return 0;
}

int et_tensor_read_i64(const et_tensor *t, uint64_t first, uint64_t n, int64_t *out)
{
    et_elem_kind k = et_scalar_type_kind(t->scalar_type);
    if (k == ET_ELEM_FLOAT || !range_ok(t, first, n))
        return -1;
    struct read_ctx r = {t->scalar_type, out};
    foreach_run(t, first, n, run_i64, &r);
    return 0;
}

int et_tensor_get_f64(const et_tensor *t, uint64_t flat, double *out)
{
    if (!et_tensor_readable(t) || flat >= t->numel)
        return -1;
    *out = load_f64(t->scalar_type, t->data + elem_offset(t, flat));
    return 0;
}

int et_tensor_get_i64(const et_tensor *t, uint64_t flat, int64_t *out)
{
    if (et_scalar_type_kind(t->scalar_type) == ET_ELEM_FLOAT || !et_tensor_readable(t) ||
        flat >= t->numel)
        return -1;
    *out = load_i64(t->scalar_type, t->data + elem_offset(t, flat));
    return 0;
}

static void run_bytes(void *c, const uint8_t *p, int64_t step, uint64_t n, uint64_t at)
{
    struct read_ctx *r = c;
    size_t es = (size_t)et_scalar_type_size(r->st);
    uint8_t *o = (uint8_t *)r->out + at * es;
    if ((size_t)step == es) {
        memcpy(o, p, n * es);
        return;
    }
    for (uint64_t i = 0; i < n; i++, p += step, o += es)
        memcpy(o, p, es);
}

int et_tensor_copy_bytes(const et_tensor *t, uint8_t *out)
{
    if (!et_tensor_readable(t))
        return -1;
    struct read_ctx r = {t->scalar_type, out};
    foreach_run(t, 0, t->numel, run_bytes, &r);
    return 0;
}

/* ---- statistics --------------------------------------------------------- */

#define CHUNK 2048

/* `t` with its dimensions ordered by decreasing stride (stable): the same
 * elements, visited in memory order when the tensor is a permutation of a
 * contiguous one.  Statistics do not depend on the order. */
static et_tensor in_memory_order(const et_tensor *t)
{
    et_tensor p = *t;
    for (uint32_t i = 1; i < p.ndim; i++)
        for (uint32_t j = i; j > 0 && p.strides[j] > p.strides[j - 1]; j--) {
            int64_t a = p.strides[j], b = p.sizes[j];
            p.strides[j] = p.strides[j - 1], p.sizes[j] = p.sizes[j - 1];
            p.strides[j - 1] = a, p.sizes[j - 1] = b;
        }
    return p;
}

int et_tensor_stats_compute(const et_tensor *t0, et_tensor_stats *s)
{
    memset(s, 0, sizeof *s);
    if (!et_tensor_readable(t0))
        return -1;
    et_tensor mo = in_memory_order(t0);
    const et_tensor *t = &mo;
    et_elem_kind k = et_scalar_type_kind(t->scalar_type);
    s->count = t->numel;
    s->min = s->max = s->mean = s->std = NAN;
    s->sum = 0;
    if (t->numel == 0) {
        s->is_int = k != ET_ELEM_FLOAT;
        s->isum_exact = true;
        return 0;
    }
    if (k != ET_ELEM_FLOAT) {
        bool uns = t->scalar_type == ET_ST_UINT64;
        int64_t buf[CHUNK];
        int64_t imin = 0, imax = 0, isum = 0;
        bool exact = true;
        double dsum = 0, comp = 0;
        for (uint64_t at = 0; at < t->numel; at += CHUNK) {
            uint64_t n = t->numel - at < CHUNK ? t->numel - at : CHUNK;
            et_tensor_read_i64(t, at, n, buf);
            for (uint64_t i = 0; i < n; i++) {
                int64_t x = buf[i];
                if (at == 0 && i == 0) {
                    imin = imax = x;
                } else if (uns) {
                    if ((uint64_t)x < (uint64_t)imin)
                        imin = x;
                    if ((uint64_t)x > (uint64_t)imax)
                        imax = x;
                } else {
                    if (x < imin)
                        imin = x;
                    if (x > imax)
                        imax = x;
                }
                double dx = uns ? (double)(uint64_t)x : (double)x;
                /* Neumaier */
                double tt = dsum + dx;
                comp += fabs(dsum) >= fabs(dx) ? (dsum - tt) + dx : (dx - tt) + dsum;
                dsum = tt;
                if (exact) {
                    if (uns && x < 0)
                        exact = false;
                    else if ((x > 0 && isum > INT64_MAX - x) || (x < 0 && isum < INT64_MIN - x))
                        exact = false;
                    else
                        isum += x;
                }
            }
        }
        s->is_int = true;
        s->is_unsigned = uns;
        s->imin = imin;
        s->imax = imax;
        s->isum_exact = exact;
        s->isum = exact ? isum : 0;
        s->min = uns ? (double)(uint64_t)imin : (double)imin;
        s->max = uns ? (double)(uint64_t)imax : (double)imax;
        s->sum = exact ? (double)isum : dsum + comp;
    } else {
        double buf[CHUNK];
        double mn = INFINITY, mx = -INFINITY, sum = 0, comp = 0;
        bool nan = false;
        for (uint64_t at = 0; at < t->numel; at += CHUNK) {
            uint64_t n = t->numel - at < CHUNK ? t->numel - at : CHUNK;
            et_tensor_read_f64(t, at, n, buf);
            for (uint64_t i = 0; i < n; i++) {
                double x = buf[i];
                if (isnan(x)) {
                    s->nan_count++;
                    nan = true;
                    continue;
                }
                if (isinf(x))
                    s->inf_count++;
                if (x < mn)
                    mn = x;
                if (x > mx)
                    mx = x;
                double tt = sum + x;
                if (isfinite(tt))
                    comp += fabs(sum) >= fabs(x) ? (sum - tt) + x : (x - tt) + sum;
                sum = tt;
            }
        }
        if (nan) {
            s->min = s->max = s->sum = NAN;
        } else {
            s->min = mn;
            s->max = mx;
            s->sum = isfinite(sum) ? sum + comp : sum;
        }
    }
    s->mean = s->sum / (double)s->count;
    if (!isfinite(s->mean)) {
        s->std = NAN;
        return 0;
    }
    /* second pass: sum of squared deviations (compensated) */
    double buf[CHUNK], m = s->mean, ss = 0, cs = 0;
    for (uint64_t at = 0; at < t->numel; at += CHUNK) {
        uint64_t n = t->numel - at < CHUNK ? t->numel - at : CHUNK;
        et_tensor_read_f64(t, at, n, buf);
        for (uint64_t i = 0; i < n; i++) {
            double dd = buf[i] - m;
            dd *= dd;
            double tt = ss + dd;
            cs += ss >= dd ? (ss - tt) + dd : (dd - tt) + ss;
            ss = tt;
        }
    }
    s->std = sqrt((ss + cs) / (double)s->count);
    return 0;
}

/* ---- encoding ----------------------------------------------------------- */

int et_tensor_encode_f64(int st, double v, uint8_t *out)
{
    switch (et_scalar_type_kind(st)) {
    case ET_ELEM_NONE:
        return -1;
    case ET_ELEM_FLOAT:
        break;
    case ET_ELEM_BOOL:
        if (v != 0 && v != 1)
            return -1;
        *out = v != 0;
        return 0;
    default:
        if (!(v == floor(v)) || v < -9223372036854775808.0 || v >= 18446744073709551616.0)
            return -1;
        if (v >= 9223372036854775808.0) {
            if (st != ET_ST_UINT64)
                return -1;
            uint64_t u = (uint64_t)v;
            memcpy(out, &u, 8);
            return 0;
        }
        return et_tensor_encode_i64(st, (int64_t)v, out);
    }
    switch (st) {
    case ET_ST_FLOAT: { float f = (float)v; memcpy(out, &f, 4); return 0; }
    case ET_ST_DOUBLE: memcpy(out, &v, 8); return 0;
    case ET_ST_HALF: { uint16_t h = et_double_to_half(v); memcpy(out, &h, 2); return 0; }
    case ET_ST_BFLOAT16: { uint16_t h = et_double_to_bfloat16(v); memcpy(out, &h, 2); return 0; }
    default: *out = double_to_float8(f8_format(st), v); return 0;
    }
}

int et_tensor_encode_i64(int st, int64_t v, uint8_t *out)
{
    int64_t lo, hi;
    switch (st) {
    case ET_ST_BOOL: lo = 0, hi = 1; break;
    case ET_ST_BYTE: case ET_ST_QUINT8: lo = 0, hi = UINT8_MAX; break;
    case ET_ST_CHAR: case ET_ST_QINT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case ET_ST_SHORT: lo = INT16_MIN, hi = INT16_MAX; break;
    case ET_ST_BITS16: case ET_ST_UINT16: lo = 0, hi = UINT16_MAX; break;
    case ET_ST_INT: case ET_ST_QINT32: lo = INT32_MIN, hi = INT32_MAX; break;
    case ET_ST_UINT32: lo = 0, hi = UINT32_MAX; break;
    case ET_ST_LONG: lo = INT64_MIN, hi = INT64_MAX; break;
    case ET_ST_UINT64: lo = 0, hi = INT64_MAX; break;
    default:
        if (et_scalar_type_kind(st) == ET_ELEM_FLOAT)
            return et_tensor_encode_f64(st, (double)v, out);
        return -1;
    }
    if (v < lo || v > hi)
        return -1;
    switch (et_scalar_type_size(st)) {
    case 1: *out = (uint8_t)v; return 0;
    case 2: { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); return 0; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); return 0; }
    default: { uint64_t x = (uint64_t)v; memcpy(out, &x, 8); return 0; }
    }
}
