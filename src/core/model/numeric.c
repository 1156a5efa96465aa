/* numeric.c - numerical comparison of tensors; see numeric.h. */
#include "model/numeric.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format/etdump.h"
#include "base/pyfmt.h"

#define CHUNK 256

/* ---- names -------------------------------------------------------------- */

int et_distance_from_name(const char *name, size_t len)
{
    /* str.strip(): ASCII whitespace is all a distance name can sensibly hold */
    while (len && isspace((unsigned char)name[0]))
        name++, len--;
    while (len && isspace((unsigned char)name[len - 1]))
        len--;
    char up[4];
    if (len == 0 || len >= sizeof up)
        return -1;
    for (size_t i = 0; i < len; i++)
        up[i] = (char)toupper((unsigned char)name[i]);
    up[len] = 0;
    if (!strcmp(up, "MSE"))
        return ET_DIST_MSE;
    if (!strcmp(up, "L1"))
        return ET_DIST_L1;
    if (!strcmp(up, "SNR"))
        return ET_DIST_SNR;
    return -1;
}

const char *et_distance_name(et_distance d)
{
    switch (d) {
    case ET_DIST_MSE: return "MSE";
    case ET_DIST_L1: return "L1";
    case ET_DIST_SNR: return "SNR";
    }
    return "?";
}

/* "snr", "mse", "cosine_similarity". */
static const char *metric_name(et_metric m)
{
    switch (m) {
    case ET_METRIC_SNR: return "snr";
    case ET_METRIC_MSE: return "mse";
    case ET_METRIC_COSINE: return "cosine_similarity";
    }
    return "?";
}

int et_metric_from_name(const char *name)
{
    for (int m = ET_METRIC_SNR; m <= ET_METRIC_COSINE; m++)
        if (!strcmp(name, metric_name((et_metric)m)))
            return m;
    return -1;
}

void et_numeric_scalar(et_tensor *t, double *storage)
{
    memset(t, 0, sizeof *t);
    t->scalar_type = 7; /* DOUBLE */
    t->elem_size = 8;
    t->ndim = 0;
    t->numel = 1;
    t->data = (const uint8_t *)storage;
    t->span = 8;
}

/* ---- helpers ------------------------------------------------------------ */

/* "float32 [2, 3]" */
static void describe(const et_tensor *t, char *buf, size_t cap)
{
    char tmp[24];
    int n = snprintf(buf, cap, "%s [", et_scalar_type_label(t->scalar_type, tmp));
    for (uint32_t d = 0; d < t->ndim && n > 0 && (size_t)n < cap; d++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    if (n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "]");
}

/* The elements of `t` can be read (or there are none). */
static int check_readable(const et_tensor *t, const char *name, et_error *err)
{
    char why[96], desc[200];
    const char *r = et_tensor_unreadable(t, why, sizeof why);
    if (!r)
        return 0;
    describe(t, desc, sizeof desc);
    return et_fail(err, ET_ERR_VALUE, "cannot read the elements of tensor %s (%s): %s", name, desc,
                   r);
}

static bool same_shape(const et_tensor *a, const et_tensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (uint32_t d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d])
            return false;
    return true;
}

int et_numeric_broadcast_shape(const et_tensor *a, const et_tensor *b, uint32_t *ndim,
                               int64_t *sizes, et_error *err)
{
    uint32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (uint32_t k = 0; k < n; k++) { /* k-th dimension from the right */
        int64_t sa = k < a->ndim ? a->sizes[a->ndim - 1 - k] : 1;
        int64_t sb = k < b->ndim ? b->sizes[b->ndim - 1 - k] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return et_fail(err, ET_ERR_VALUE,
                           "The size of tensor a (%lld) must match the size of tensor b (%lld) "
                           "at non-singleton dimension %u",
                           (long long)sa, (long long)sb, n - 1 - k);
        sizes[n - 1 - k] = sa == 1 ? sb : sa;
    }
    *ndim = n;
    return 0;
}

/* Neumaier's compensated sum. */
typedef struct ksum {
    double s, c;
} ksum;

static void ks_add(ksum *k, double x)
{
    double t = k->s + x;
    if (fabs(k->s) >= fabs(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}

static double ks_get(const ksum *k)
{
    return isfinite(k->s) ? k->s + k->c : k->s;
}

/* torch.nan_to_num */
static double nan_to_num(double x)
{
    if (isnan(x))
        return 0.0;
    if (isinf(x))
        return x > 0 ? DBL_MAX : -DBL_MAX;
    return x;
}

/* Whether a readable `t` holds a NaN. */
static bool has_nan(const et_tensor *t)
{
    if (et_scalar_type_kind(t->scalar_type) != ET_ELEM_FLOAT)
        return false;
    double buf[CHUNK];
    for (uint64_t i = 0; i < t->numel; i += CHUNK) {
        uint64_t n = t->numel - i < CHUNK ? t->numel - i : CHUNK;
        if (et_tensor_read_f64(t, i, n, buf) != 0)
            return false;
        for (uint64_t j = 0; j < n; j++)
            if (isnan(buf[j]))
                return true;
    }
    return false;
}

/* How an operand's elements are seen. */
enum { AS_IS = 0, FIX_NAN = 1 };

static double seen(double x, int mode)
{
    return mode == FIX_NAN ? nan_to_num(x) : x;
}

typedef void (*pair_fn)(void *ctx, double x, double y);
typedef void (*elem_fn)(void *ctx, double x);

/* Call fn(ctx, x) for every element of readable `t` (row-major). */
static void for_each(const et_tensor *t, int mode, elem_fn fn, void *ctx)
{
    double buf[CHUNK];
    for (uint64_t i = 0; i < t->numel; i += CHUNK) {
        uint64_t n = t->numel - i < CHUNK ? t->numel - i : CHUNK;
        if (et_tensor_read_f64(t, i, n, buf) != 0)
            return;
        for (uint64_t j = 0; j < n; j++)
            fn(ctx, seen(buf[j], mode));
    }
}

/* Call fn(ctx, x, y) for every element of the broadcast of readable `a`
 * and `b` (row-major over the broadcast shape).  *count receives the
 * number of pairs.  -1 with err set when the shapes do not broadcast. */
static int for_each_pair(const et_tensor *a, int ma, const et_tensor *b, int mb, pair_fn fn,
                         void *ctx, uint64_t *count, et_error *err)
{
    uint32_t nd;
    int64_t sizes[ET_TENSOR_MAX_DIM];
    if (et_numeric_broadcast_shape(a, b, &nd, sizes, err) != 0)
        return -1;
    uint64_t total = 1;
    bool zero = false, overflow = false;
    for (uint32_t d = 0; d < nd; d++) {
        if (sizes[d] == 0)
            zero = true;
        else if (total > UINT64_MAX / (uint64_t)sizes[d])
            overflow = true;
        else
            total *= (uint64_t)sizes[d];
    }
    if (zero)
        total = 0;
    else if (overflow)
        return et_fail(err, ET_ERR_VALUE, "the broadcast shape has more than 2^64 elements");
    /* work proportional to the operands: an expansion beyond both of
     * them stays within the broadcast budget (tensor.h) */
    if (total > a->numel && total > b->numel && total > et_tensor_max_broadcast()) {
        char da[200], db[200];
        describe(a, da, sizeof da);
        describe(b, db, sizeof db);
        return et_fail(err, ET_ERR_VALUE,
                       "broadcasting tensor a (%s) against tensor b (%s) makes %llu elements, "
                       "more than the broadcast budget of %llu elements (raise it with "
                       "--max_broadcast_elements or etinspect.limits)",
                       da, db, (unsigned long long)total,
                       (unsigned long long)et_tensor_max_broadcast());
    }
    *count = total;
    if (total == 0)
        return 0;
    double ba[CHUNK], bb[CHUNK];
    if (total == a->numel && total == b->numel) {
        /* no dimension expands: the two row-major orders coincide */
        for (uint64_t i = 0; i < total; i += CHUNK) {
            uint64_t n = total - i < CHUNK ? total - i : CHUNK;
            if (et_tensor_read_f64(a, i, n, ba) != 0 || et_tensor_read_f64(b, i, n, bb) != 0)
                return 0;
            for (uint64_t j = 0; j < n; j++)
                fn(ctx, seen(ba[j], ma), seen(bb[j], mb));
        }
        return 0;
    }
    if (a->numel == 1 || b->numel == 1) {
        /* a scalar against a tensor: the tensor in its own order */
        const et_tensor *s = a->numel == 1 ? a : b, *t = a->numel == 1 ? b : a;
        double sv;
        if (et_tensor_get_f64(s, 0, &sv) != 0)
            return 0;
        sv = seen(sv, s == a ? ma : mb);
        int mt = t == a ? ma : mb;
        for (uint64_t i = 0; i < t->numel; i += CHUNK) {
            uint64_t n = t->numel - i < CHUNK ? t->numel - i : CHUNK;
            if (et_tensor_read_f64(t, i, n, ba) != 0)
                return 0;
            for (uint64_t j = 0; j < n; j++) {
                if (s == a)
                    fn(ctx, sv, seen(ba[j], mt));
                else
                    fn(ctx, seen(ba[j], mt), sv);
            }
        }
        return 0;
    }
    /* general broadcasting: an odometer over the broadcast shape, with the
     * logical flat index of each operand (step 0 along expanded dims) */
    uint64_t step_a[ET_TENSOR_MAX_DIM], step_b[ET_TENSOR_MAX_DIM], idx[ET_TENSOR_MAX_DIM];
    const et_tensor *ops[2] = {a, b};
    uint64_t *steps[2] = {step_a, step_b};
    for (int o = 0; o < 2; o++) {
        const et_tensor *t = ops[o];
        uint64_t acc = 1;
        for (uint32_t k = 0; k < nd; k++) { /* from the right */
            uint32_t d = nd - 1 - k;
            if (k < t->ndim) {
                int64_t sz = t->sizes[t->ndim - 1 - k];
                steps[o][d] = sz == 1 ? 0 : acc;
                acc *= (uint64_t)sz;
            } else {
                steps[o][d] = 0;
            }
        }
    }
    memset(idx, 0, sizeof idx);
    uint64_t fa = 0, fb = 0;
    for (uint64_t i = 0; i < total; i++) {
        double x, y;
        if (et_tensor_get_f64(a, fa, &x) != 0 || et_tensor_get_f64(b, fb, &y) != 0)
            return 0;
        fn(ctx, seen(x, ma), seen(y, mb));
        for (uint32_t d = nd; d-- > 0;) {
            fa += step_a[d];
            fb += step_b[d];
            if (++idx[d] < (uint64_t)sizes[d])
                break;
            fa -= step_a[d] * (uint64_t)sizes[d];
            fb -= step_b[d] * (uint64_t)sizes[d];
            idx[d] = 0;
        }
    }
    return 0;
}

/* ---- calculate_numeric_gap's distances ---------------------------------- */

typedef struct dist_ctx {
    et_distance d;
    ksum err;
    ksum sig;
} dist_ctx;

static void dist_pair(void *c, double x, double y)
{
    dist_ctx *k = c;
    double e = x - y;
    ks_add(&k->err, k->d == ET_DIST_L1 ? fabs(e) : e * e);
}

static void sig_elem(void *c, double x)
{
    ks_add(&((dist_ctx *)c)->sig, x * x);
}

int et_numeric_distance(et_distance d, const et_tensor *a, const et_tensor *b, double *out,
                        et_error *err)
{
    if (check_readable(a, "a", err) != 0 || check_readable(b, "b", err) != 0)
        return -1;
    int ma = has_nan(a) ? FIX_NAN : AS_IS, mb = has_nan(b) ? FIX_NAN : AS_IS;
    dist_ctx k = {d, {0, 0}, {0, 0}};
    uint64_t n = 0;
    if (for_each_pair(a, ma, b, mb, dist_pair, &k, &n, err) != 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return et_fail(err, ET_ERR_VALUE, "Error computing %s difference between tensors: %s",
                       et_distance_name(d), msg);
    }
    double e = ks_get(&k.err);
    switch (d) {
    case ET_DIST_L1:
        *out = e;
        break;
    case ET_DIST_MSE:
        *out = e / (double)n; /* 0 / 0 = NaN for no elements, as torch.mean */
        break;
    case ET_DIST_SNR:
        for_each(a, ma, sig_elem, &k);
        *out = 10.0 * log10((ks_get(&k.sig) / (double)a->numel) / (e / (double)n));
        break;
    }
    return 0;
}

/* ---- compare_results' metrics (float32) --------------------------------- */

typedef struct metric_ctx {
    ksum diff2; /* sum (r - v)^2, each term a float */
    ksum ref2;  /* sum r^2 */
    ksum val2;  /* sum v^2 */
    ksum dot;   /* sum r*v */
} metric_ctx;

static void metric_pair(void *c, double x, double y)
{
    metric_ctx *k = c;
    float r = (float)x, v = (float)y;
    float e = r - v;
    ks_add(&k->diff2, (double)(e * e));
    ks_add(&k->val2, (double)(v * v));
    ks_add(&k->dot, (double)(r * v));
}

static void metric_ref(void *c, double x)
{
    float r = (float)x;
    ks_add(&((metric_ctx *)c)->ref2, (double)(r * r));
}

int et_numeric_metric(et_metric m, const et_tensor *ref, const et_tensor *val, double *out,
                      et_error *err)
{
    if (m == ET_METRIC_COSINE && !same_shape(ref, val))
        return et_fail(err, ET_ERR_VALUE, "Input tensors must have the same shape");
    if (check_readable(ref, "a", err) != 0 || check_readable(val, "b", err) != 0)
        return -1;
    metric_ctx k;
    memset(&k, 0, sizeof k);
    uint64_t n = 0;
    if (for_each_pair(ref, AS_IS, val, AS_IS, metric_pair, &k, &n, err) != 0)
        return -1;
    for_each(ref, AS_IS, metric_ref, &k);
    float r = 0;
    switch (m) {
    case ET_METRIC_MSE:
        r = (float)(ks_get(&k.diff2) / (double)n);
        break;
    case ET_METRIC_SNR: {
        float sp = (float)(ks_get(&k.ref2) / (double)ref->numel);
        float np = (float)(ks_get(&k.diff2) / (double)n);
        r = 10.0f * log10f(sp / np);
        break;
    }
    case ET_METRIC_COSINE: {
        float dot = (float)ks_get(&k.dot);
        float m1 = sqrtf((float)ks_get(&k.ref2));
        float m2 = sqrtf((float)ks_get(&k.val2));
        r = dot / (m1 * m2);
        break;
    }
    }
    *out = et_py_round((double)r, 2);
    return 0;
}

/* ---- max |a - b| -------------------------------------------------------- */

typedef struct maxabs_ctx {
    double m;
    bool nan;
} maxabs_ctx;

static void maxabs_pair(void *c, double x, double y)
{
    maxabs_ctx *k = c;
    double e = fabs(x - y);
    if (isnan(e))
        k->nan = true;
    else if (e > k->m)
        k->m = e;
}

int et_numeric_max_abs_diff(const et_tensor *a, const et_tensor *b, double *out, et_error *err)
{
    if (check_readable(a, "a", err) != 0 || check_readable(b, "b", err) != 0)
        return -1;
    maxabs_ctx k = {0.0, false};
    uint64_t n = 0;
    if (for_each_pair(a, AS_IS, b, AS_IS, maxabs_pair, &k, &n, err) != 0)
        return -1;
    *out = (n == 0 || k.nan) ? NAN : k.m;
    return 0;
}
