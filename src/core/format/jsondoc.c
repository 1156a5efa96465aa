/* jsondoc.c - JSON parsed under a budget into a compact tape; see jsondoc.h. */
#include "format/jsondoc.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

/* A tape entry: h = type (bits 0-2) | flag (bit 3) | 28-bit field.
 *   string:  v = offset in the string store; field = length (saturated)
 *   integer: flag clear: v = the value (int32); flag set: v = index in nums
 *   real:    v = index in nums
 *   array, object: field = member count; v = index past the last descendant */
typedef struct jent {
    uint32_t h, v;
} jent;

/* the most blocks yajl 2.1 holds at once (handle, lexer, two buffers and
 * their data, the state stack): 7; the rest are spare */
#define YAJL_HELD 16

#define T_MASK 7u
#define F_BIG 8u
#define FIELD_MAX ((1u << 28) - 1)

/* tape types (3 bits; et_jtype minus one) */
enum { J_NULL, J_FALSE, J_TRUE, J_INT, J_REAL, J_STRING, J_ARRAY, J_OBJECT };

struct et_jsondoc {
    jent *tape;
    size_t n, cap;
    char *str; /* the string store */
    size_t sn, scap;
    uint64_t *nums;
    size_t nn, ncap;
    /* parsing */
    yajl_handle h;
    struct open {
        uint32_t at, count;
    } stack[ET_JSON_MAX_DEPTH + 1];
    unsigned depth;
    bool done;           /* finish succeeded: the tape is whole */
    bool over_budget;    /* failed for crossing a budget */
    uint64_t max_nodes, max_bytes, fed;
    bool scalar_root;
    /* position of the end of the text fed so far (line 1-based; column:
     * characters since the last newline) */
    uint64_t line, col;
    /* a failure found by a callback: what, and which kind */
    char why[96];
    enum { W_NONE, W_SYNTAX, W_NODES, W_STRING, W_NOMEM } wkind;
    char *label, *hint;
    /* the incomplete token at the end of what was fed (held back: yajl
     * would lex it again from its start at every chunk), and the scan
     * state at its end (see split_point) */
    char *carry;
    size_t carry_n, carry_cap;
    size_t scanned;   /* bytes of carry already scanned */
    bool in_str;      /* the scan is inside a string ... */
    size_t str_start; /* ... opened at this byte of carry */
    size_t run_start; /* carry[run_start, scanned) are number/literal
                         characters outside strings (SIZE_MAX: none) */
    uint64_t size_hint;
    /* yajl's memory (yajl_alloc_funcs): yajl does not check its
     * allocations, so a failed one jumps back to the guarded call
     * (guard_*) through `jmp`; the blocks yajl holds are tracked so that
     * they can be freed without yajl once it has been left half-way */
    yajl_alloc_funcs afs;
    jmp_buf jmp;
    bool armed;    /* a guarded yajl call is running */
    bool poisoned; /* yajl was left by a failed allocation: never called again */
    void *held[YAJL_HELD];
};

/* ------------------------------------------------------------------ */
/* building                                                            */

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c = c > SIZE_MAX / 2 / elem ? need : c * 2;
    if (c > SIZE_MAX / elem)
        return false;
    void *q = realloc(*p, c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static int fail_cb(et_jsondoc *d, int kind, const char *why)
{
    d->wkind = kind;
    snprintf(d->why, sizeof d->why, "%s", why);
    return 0; /* cancels the parse */
}

/* The longest string accepted: an eighth of the byte budget (a string cut
 * by a chunk's end is held whole, and yajl copies it once more). */
static uint64_t max_string(const et_jsondoc *d)
{
    return d->max_bytes / 8;
}

/* A new tape entry for a value or key (the parent's count is kept here);
 * NULL with the failure noted. */
static jent *push(et_jsondoc *d, unsigned type, bool is_key)
{
    if (d->n >= d->max_nodes) {
        fail_cb(d, W_NODES, "");
        return NULL;
    }
    if (d->n >= d->cap && !grow((void **)&d->tape, &d->cap, d->n + 1, sizeof *d->tape)) {
        fail_cb(d, W_NOMEM, "");
        return NULL;
    }
    if (d->depth > 0) {
        struct open *o = &d->stack[d->depth - 1];
        /* an object counts its keys, an array its elements */
        if (is_key || (d->tape[o->at].h & T_MASK) == J_ARRAY)
            o->count++;
    } else if (d->n > 0) {
        /* not reached: yajl allows one top-level value */
        fail_cb(d, W_SYNTAX, "trailing garbage");
        return NULL;
    }
    jent *e = &d->tape[d->n++];
    e->h = type;
    e->v = 0;
    return e;
}

static int scalar_ok(et_jsondoc *d, unsigned type)
{
    if (d->depth == 0 && !d->scalar_root)
        return fail_cb(d, W_SYNTAX, "'[' or '{' expected");
    (void)type;
    return 1;
}

static int cb_null(void *ctx)
{
    et_jsondoc *d = ctx;
    return scalar_ok(d, J_NULL) && push(d, J_NULL, false) ? 1 : 0;
}

static int cb_bool(void *ctx, int b)
{
    et_jsondoc *d = ctx;
    return scalar_ok(d, J_TRUE) && push(d, b ? J_TRUE : J_FALSE, false) ? 1 : 0;
}

static bool push_num(et_jsondoc *d, jent *e, uint64_t bits)
{
    if (d->nn >= d->ncap && !grow((void **)&d->nums, &d->ncap, d->nn + 1, sizeof *d->nums)) {
        fail_cb(d, W_NOMEM, "");
        return false;
    }
    e->h |= F_BIG;
    e->v = (uint32_t)d->nn;
    d->nums[d->nn++] = bits;
    return true;
}

/* A number as written (yajl has checked its grammar). */
static int cb_number(void *ctx, const char *s, size_t len)
{
    et_jsondoc *d = ctx;
    if (!scalar_ok(d, J_INT))
        return 0;
    bool integer = true;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            integer = false;
    if (integer) {
        bool neg = len > 0 && s[0] == '-';
        uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (size_t i = neg; i < len; i++) {
            unsigned dg = (unsigned)(s[i] - '0');
            if (v > (lim - dg) / 10)
                return fail_cb(d, W_SYNTAX, "too big integer");
            v = v * 10 + dg;
        }
        int64_t x = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
        jent *e = push(d, J_INT, false);
        if (!e)
            return 0;
        if (x >= INT32_MIN && x <= INT32_MAX) {
            e->v = (uint32_t)(int32_t)x;
            return 1;
        }
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        return push_num(d, e, bits) ? 1 : 0;
    }
    char small[64], *buf = len < sizeof small ? small : malloc(len + 1);
    if (!buf)
        return fail_cb(d, W_NOMEM, "");
    memcpy(buf, s, len);
    buf[len] = 0;
    double x = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    if (isinf(x))
        return fail_cb(d, W_SYNTAX, "real number overflow");
    jent *e = push(d, J_REAL, false);
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return e && push_num(d, e, bits) ? 1 : 0;
}

/* A string or key: copied into the store, NUL-terminated. */
static int add_string(et_jsondoc *d, const unsigned char *s, size_t len, bool is_key)
{
    if (len > max_string(d))
        return fail_cb(d, W_STRING, "");
    if (memchr(s, 0, len))
        return fail_cb(d, W_SYNTAX, "\\u0000 is not allowed in a string");
    jent *e = push(d, J_STRING, is_key);
    if (!e)
        return 0;
    if (d->sn + len + 1 > d->scap && !grow((void **)&d->str, &d->scap, d->sn + len + 1, 1))
        return fail_cb(d, W_NOMEM, "");
    /* the store never outgrows the text fed (max_bytes <= ET_JSON_MAX_BYTES) */
    e->h |= (uint32_t)(len < FIELD_MAX ? len : FIELD_MAX) << 4;
    e->v = (uint32_t)d->sn;
    memcpy(d->str + d->sn, s, len);
    d->str[d->sn + len] = 0;
    d->sn += len + 1;
    return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    et_jsondoc *d = ctx;
    return scalar_ok(d, J_STRING) ? add_string(d, s, len, false) : 0;
}

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
    return add_string(ctx, s, len, true);
}

static int cb_start(et_jsondoc *d, unsigned type)
{
    if (d->depth >= ET_JSON_MAX_DEPTH)
        return fail_cb(d, W_SYNTAX, "maximum parsing depth reached");
    size_t at = d->n;
    if (!push(d, type, false))
        return 0;
    d->stack[d->depth].at = (uint32_t)at;
    d->stack[d->depth].count = 0;
    d->depth++;
    return 1;
}

static int cb_end(et_jsondoc *d)
{
    struct open *o = &d->stack[--d->depth];
    jent *e = &d->tape[o->at];
    e->h |= (o->count < FIELD_MAX ? o->count : FIELD_MAX) << 4;
    e->v = (uint32_t)d->n;
    return 1;
}

static int cb_start_map(void *ctx)
{
    return cb_start(ctx, J_OBJECT);
}

static int cb_start_array(void *ctx)
{
    return cb_start(ctx, J_ARRAY);
}

static int cb_end_any(void *ctx)
{
    return cb_end(ctx);
}

static const yajl_callbacks callbacks = {
    cb_null,  cb_bool,      NULL, NULL,       cb_number,      cb_string,
    cb_start_map, cb_key, cb_end_any, cb_start_array, cb_end_any,
};

/* ------------------------------------------------------------------ */
/* messages                                                            */

/* n with thousands separators: 8,000,000. */
static void with_commas(char *dst, size_t cap, uint64_t n)
{
    char digits[32];
    int k = snprintf(digits, sizeof digits, "%" PRIu64, n);
    size_t at = 0;
    for (int i = 0; i < k && at + 2 < cap; i++) {
        if (i > 0 && (k - i) % 3 == 0)
            dst[at++] = ',';
        dst[at++] = digits[i];
    }
    dst[at] = 0;
}

static int budget_fail(et_jsondoc *d, et_error *err, uint64_t budget, const char *unit)
{
    d->over_budget = true;
    char num[40];
    with_commas(num, sizeof num, budget);
    if (d->hint)
        return et_fail(err, ET_ERR_FORMAT, "%s: JSON larger than the %s-%s budget (%s)", d->label,
                       num, unit, d->hint);
    return et_fail(err, ET_ERR_FORMAT, "%s: JSON larger than the %s-%s budget", d->label, num,
                   unit);
}

static int string_fail(et_jsondoc *d, et_error *err)
{
    d->over_budget = true;
    char num[40], budget[40];
    with_commas(num, sizeof num, max_string(d));
    with_commas(budget, sizeof budget, d->max_bytes);
    return et_fail(err, ET_ERR_FORMAT,
                   "%s: a JSON string longer than %s bytes (an eighth of the %s-byte budget%s%s)",
                   d->label, num, budget, d->hint ? "; " : "", d->hint ? d->hint : "");
}

static bool lead_byte(unsigned char c)
{
    return (c & 0xC0) != 0x80;
}

/* Advance the position past text[0, n). */
static void advance(et_jsondoc *d, const char *text, size_t n)
{
    const char *last = NULL;
    for (const char *p = text, *end = text + n; (p = memchr(p, '\n', (size_t)(end - p))); p++) {
        d->line++;
        last = p;
    }
    const char *p = last ? last + 1 : text, *end = text + n;
    uint64_t c = (uint64_t)(end - p);
    /* minus the UTF-8 continuation bytes (10xxxxxx), 8 at a time */
    for (; end - p >= 8; p += 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        c -= (uint64_t)__builtin_popcountll(x & ~(x << 1) & 0x8080808080808080u);
    }
    for (; p < end; p++)
        c -= !lead_byte((unsigned char)*p);
    d->col = last ? c : d->col + c;
}

static unsigned char *guarded_error(et_jsondoc *d);

/* The failure of a yajl call on text[0, n) (NULL, 0: the final call). */
static int parse_failed(et_jsondoc *d, const char *text, size_t n, et_error *err)
{
    if (d->wkind == W_NODES)
        return budget_fail(d, err, d->max_nodes, "node");
    if (d->wkind == W_STRING)
        return string_fail(d, err);
    if (d->wkind == W_NOMEM)
        return et_fail(err, ET_ERR_NOMEM, "%s: out of memory after %zu values of JSON", d->label,
                       d->n);
    char why[160];
    if (d->wkind == W_SYNTAX) {
        snprintf(why, sizeof why, "%s", d->why);
    } else {
        unsigned char *e = guarded_error(d);
        snprintf(why, sizeof why, "%s", e ? (const char *)e : "invalid text");
        if (e)
            yajl_free_error(d->h, e);
        size_t k = strlen(why);
        while (k > 0 && (why[k - 1] == '\n' || why[k - 1] == '.' || why[k - 1] == ' '))
            why[--k] = 0;
        /* "parse error: premature EOF" -> "premature EOF" */
        const char *colon = strstr(why, "error: ");
        if (colon)
            memmove(why, colon + 7, strlen(colon + 7) + 1);
    }
    /* the offending byte: the last one yajl consumed of this chunk */
    if (text) {
        size_t used = yajl_get_bytes_consumed(d->h);
        if (used > n)
            used = n;
        if (used == 0) /* yajl stopped before the chunk's first byte: blame that one */
            used = 1;
        advance(d, text, used);
    }
    return et_fail(err, ET_ERR_FORMAT, "%s: invalid JSON at line %" PRIu64 ", column %" PRIu64
                                       ": %s",
                   d->label, d->line, d->col, why);
}

/* ------------------------------------------------------------------ */
/* yajl's memory                                                       */

/* The slot of d->held holding `p` (NULL: a free slot), or -1.  A full
 * table leaves a block untracked: a leak, should yajl then fail, never a
 * crash. */
static int held_slot(const et_jsondoc *d, const void *p)
{
    for (int i = 0; i < YAJL_HELD; i++)
        if (d->held[i] == p)
            return i;
    return -1;
}

/* A failed allocation inside yajl: back to the guarded call. */
static void yajl_nomem(et_jsondoc *d)
{
    if (d->armed)
        longjmp(d->jmp, 1);
}

static void *y_malloc(void *ctx, size_t n)
{
    et_jsondoc *d = ctx;
    void *p = malloc(n ? n : 1);
    int k;
    if (!p)
        yajl_nomem(d);
    else if ((k = held_slot(d, NULL)) >= 0)
        d->held[k] = p;
    return p;
}

static void *y_realloc(void *ctx, void *old, size_t n)
{
    et_jsondoc *d = ctx;
    int k = held_slot(d, old); /* found before `old` may be freed */
    void *p = realloc(old, n ? n : 1);
    if (!p)
        yajl_nomem(d); /* `old` is still yajl's */
    else if (k >= 0)
        d->held[k] = p;
    return p;
}

static void y_free(void *ctx, void *p)
{
    et_jsondoc *d = ctx;
    int k;
    if (p && (k = held_slot(d, p)) >= 0)
        d->held[k] = NULL;
    free(p);
}

/* After a failed allocation inside yajl: free what it held, without it
 * (its structures may be half-made). */
static void yajl_abandon(et_jsondoc *d)
{
    for (int i = 0; i < YAJL_HELD; i++) {
        free(d->held[i]);
        d->held[i] = NULL;
    }
    d->h = NULL;
    d->poisoned = true;
    d->wkind = W_NOMEM;
}

/* yajl_parse(d->h, text, n), or yajl_complete_parse when text is NULL,
 * with its allocations guarded: one that fails ends the call with
 * yajl_status_error and W_NOMEM noted, yajl abandoned. */
static yajl_status guarded_parse(et_jsondoc *d, const unsigned char *text, size_t n)
{
    if (setjmp(d->jmp) != 0) {
        d->armed = false;
        yajl_abandon(d);
        return yajl_status_error;
    }
    d->armed = true;
    yajl_status st = text ? yajl_parse(d->h, text, n) : yajl_complete_parse(d->h);
    d->armed = false;
    return st;
}

/* yajl_get_error(d->h) with its one allocation guarded: NULL when it
 * fails (yajl is left whole: nothing else was under way). */
static unsigned char *guarded_error(et_jsondoc *d)
{
    if (setjmp(d->jmp) != 0) {
        d->armed = false;
        return NULL;
    }
    d->armed = true;
    unsigned char *e = yajl_get_error(d->h, 0, NULL, 0);
    d->armed = false;
    return e;
}

/* yajl_alloc for d, guarded; d->h NULL when out of memory. */
static void guarded_alloc(et_jsondoc *d)
{
    d->afs = (yajl_alloc_funcs){y_malloc, y_realloc, y_free, d};
    if (setjmp(d->jmp) != 0) {
        d->armed = false;
        yajl_abandon(d);
        return;
    }
    d->armed = true;
    d->h = yajl_alloc(&callbacks, &d->afs, d);
    d->armed = false;
}

/* ------------------------------------------------------------------ */
/* the document                                                        */

et_jsondoc *et_jsondoc_new(const char *label, const et_json_limits *lim, et_error *err)
{
    et_jsondoc *d = calloc(1, sizeof *d);
    if (!d || !(d->label = strdup(label ? label : "<json>")) ||
        (lim && lim->hint && !(d->hint = strdup(lim->hint))) ||
        (guarded_alloc(d), !d->h)) {
        et_jsondoc_free(d);
        et_fail(err, ET_ERR_NOMEM, "%s: out of memory", label ? label : "<json>");
        return NULL;
    }
    d->max_nodes = lim && lim->max_nodes ? lim->max_nodes : ET_JSON_MAX_NODES;
    d->max_bytes = lim && lim->max_bytes ? lim->max_bytes : ET_JSON_MAX_BYTES;
    if (d->max_nodes > ET_JSON_MAX_NODES)
        d->max_nodes = ET_JSON_MAX_NODES;
    if (d->max_bytes > ET_JSON_MAX_BYTES)
        d->max_bytes = ET_JSON_MAX_BYTES;
    d->scalar_root = lim && lim->scalar_root;
    d->line = 1;
    /* the text's size known: the string store (never larger than the text)
     * reserved once, so that it is never copied to grow; untouched pages
     * cost nothing */
    if (lim && lim->size_hint && lim->size_hint <= d->max_bytes &&
        (d->str = malloc((size_t)lim->size_hint + 1)))
        d->scap = (size_t)lim->size_hint + 1;
    d->size_hint = lim && lim->size_hint <= d->max_bytes ? lim->size_hint : 0;
    return d;
}

/* A character of a number or a literal (true, false, null). */
static bool run_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '+' || c == '.';
}

/* Scan buf[d->scanned, len) (buf holds the text since the last split,
 * and the scan state describes buf[0, d->scanned)), and return where the
 * last complete token ends: the opening quote of an unterminated string,
 * or the start of a trailing number or literal, else len.  Each byte is
 * looked at a bounded number of times, however the text is cut. */
static size_t split_point(et_jsondoc *d, const char *buf, size_t len)
{
    size_t pos = d->scanned;
    size_t old = pos;
    while (pos < len) {
        const char *q = memchr(buf + pos, '"', len - pos);
        if (!q) {
            pos = len;
            break;
        }
        size_t k = (size_t)(q - buf);
        pos = k + 1;
        if (!d->in_str) {
            d->in_str = true;
            d->str_start = k;
            continue;
        }
        size_t b = 0; /* an even run of backslashes before it: the closing quote */
        while (k - b > d->str_start + 1 && buf[k - b - 1] == '\\')
            b++;
        if (b % 2 == 0)
            d->in_str = false;
    }
    d->scanned = len;
    if (d->in_str) {
        d->run_start = SIZE_MAX;
        return d->str_start;
    }
    /* the trailing run: walked back over the new bytes only */
    size_t r = len;
    while (r > old && run_char((unsigned char)buf[r - 1]))
        r--;
    if (r == old && old > 0 && d->run_start != SIZE_MAX && len > old)
        r = d->run_start; /* the run goes on from before */
    else if (r == old && len == old)
        r = d->run_start != SIZE_MAX ? d->run_start : len;
    d->run_start = r < len ? r : SIZE_MAX;
    return r;
}

/* Hand text[0, n) to yajl.  Returns 0 or -1 with err set. */
static int parse_piece(et_jsondoc *d, const char *text, size_t n, et_error *err)
{
    if (n == 0)
        return 0;
    if (guarded_parse(d, (const unsigned char *)text, n) != yajl_status_ok)
        return parse_failed(d, text, n, err);
    advance(d, text, n);
    return 0;
}

/* Room for `need` bytes of carry: the text's size at once when known (a
 * token is never longer), else growing. */
static bool carry_room(et_jsondoc *d, size_t need)
{
    if (!d->carry && d->size_hint > need && (d->carry = malloc((size_t)d->size_hint)))
        d->carry_cap = (size_t)d->size_hint;
    return grow((void **)&d->carry, &d->carry_cap, need, 1);
}

/* Keep buf[at, len) as the carry, its scan state shifted. */
static int keep_tail(et_jsondoc *d, const char *buf, size_t at, size_t len, et_error *err)
{
    size_t k = len - at;
    if (buf != d->carry && !carry_room(d, k))
        return et_fail(err, ET_ERR_NOMEM, "%s: out of memory after %zu values of JSON", d->label,
                       d->n);
    memmove(d->carry, buf + at, k);
    d->carry_n = k;
    d->scanned = k;
    d->str_start -= d->in_str ? at : 0;
    if (d->run_start != SIZE_MAX)
        d->run_start -= at;
    return 0;
}

/* The error of a call after yajl was abandoned (out of memory). */
static int poisoned_fail(et_jsondoc *d, et_error *err)
{
    return et_fail(err, ET_ERR_NOMEM, "%s: out of memory after %zu values of JSON", d->label, d->n);
}

int et_jsondoc_feed(et_jsondoc *d, const char *text, size_t n, et_error *err)
{
    if (d->poisoned)
        return poisoned_fail(d, err);
    if (!d->h)
        return et_fail(err, ET_ERR_USAGE, "%s: the JSON text has already ended", d->label);
    if (n > d->max_bytes - d->fed)
        return budget_fail(d, err, d->max_bytes, "byte");
    d->fed += n;
    if (n == 0)
        return 0;
    if (d->carry_n == 0) {
        /* from the text itself; only an incomplete tail is copied */
        d->scanned = 0;
        d->run_start = SIZE_MAX;
        size_t split = split_point(d, text, n);
        if (d->in_str && n - d->str_start > max_string(d))
            return string_fail(d, err);
        if (parse_piece(d, text, split, err) != 0)
            return -1;
        if (split == n)
            return 0;
        return keep_tail(d, text, split, n, err);
    }
    if (!carry_room(d, d->carry_n + n))
        return et_fail(err, ET_ERR_NOMEM, "%s: out of memory after %zu values of JSON", d->label,
                       d->n);
    memcpy(d->carry + d->carry_n, text, n);
    d->carry_n += n;
    size_t split = split_point(d, d->carry, d->carry_n);
    if (d->in_str && d->carry_n - d->str_start > max_string(d))
        return string_fail(d, err);
    if (split == 0)
        return 0; /* still inside the first token */
    if (parse_piece(d, d->carry, split, err) != 0)
        return -1;
    return keep_tail(d, d->carry, split, d->carry_n, err);
}

int et_jsondoc_finish(et_jsondoc *d, et_error *err)
{
    if (d->poisoned)
        return poisoned_fail(d, err);
    if (!d->h)
        return et_fail(err, ET_ERR_USAGE, "%s: the JSON text has already ended", d->label);
    int rc = parse_piece(d, d->carry, d->carry_n, err);
    d->carry_n = 0;
    if (rc == 0 && guarded_parse(d, NULL, 0) != yajl_status_ok)
        rc = parse_failed(d, NULL, 0, err);
    else if (rc == 0 && (d->n == 0 || d->depth != 0)) /* not reached: yajl says "premature EOF" */
        rc = et_fail(err, ET_ERR_FORMAT, "%s: invalid JSON: incomplete", d->label);
    if (d->h)
        yajl_free(d->h);
    d->h = NULL;
    d->done = rc == 0;
    return rc;
}

et_jsondoc *et_jsondoc_parse(const char *text, size_t n, const char *label,
                             const et_json_limits *lim, et_error *err)
{
    et_jsondoc *d = et_jsondoc_new(label, lim, err);
    if (!d)
        return NULL;
    if (et_jsondoc_feed(d, text, n, err) != 0 || et_jsondoc_finish(d, err) != 0) {
        et_jsondoc_free(d);
        return NULL;
    }
    return d;
}

void et_jsondoc_free(et_jsondoc *d)
{
    if (!d)
        return;
    if (d->h)
        yajl_free(d->h);
    free(d->tape);
    free(d->str);
    free(d->nums);
    free(d->carry);
    free(d->label);
    free(d->hint);
    free(d);
}

char *et_jsondoc_take_strings(et_jsondoc *d, size_t *bytes)
{
    char *s = d->str;
    *bytes = d->sn;
    d->str = NULL;
    d->sn = d->scap = 0;
    return s;
}

bool et_jsondoc_over_budget(const et_jsondoc *d)
{
    return d->over_budget;
}

size_t et_jsondoc_nodes(const et_jsondoc *d)
{
    return d->n;
}

/* ------------------------------------------------------------------ */
/* reading                                                             */

static const jent *ent(const et_jsondoc *d, et_jref v)
{
    return d->done && v < d->n ? &d->tape[v] : NULL;
}

et_jref et_json_root(const et_jsondoc *d)
{
    return d->done && d->n ? 0 : ET_JNONE;
}

et_jtype et_json_type(const et_jsondoc *d, et_jref v)
{
    const jent *e = ent(d, v);
    return e ? (et_jtype)((e->h & T_MASK) + 1) : ET_JNONE_T;
}

const char *et_json_kind(const et_jsondoc *d, et_jref v)
{
    switch (et_json_type(d, v)) {
    case ET_JOBJECT: return "an object";
    case ET_JARRAY: return "a list";
    case ET_JSTRING: return "a string";
    case ET_JINT: return "an integer";
    case ET_JREAL: return "a real number";
    case ET_JTRUE: return "true";
    case ET_JFALSE: return "false";
    case ET_JNULL: return "null";
    case ET_JNONE_T: break;
    }
    return "nothing";
}

int64_t et_json_int(const et_jsondoc *d, et_jref v)
{
    const jent *e = ent(d, v);
    if (!e || (e->h & T_MASK) != J_INT)
        return 0;
    if (!(e->h & F_BIG))
        return (int32_t)e->v;
    int64_t x;
    memcpy(&x, &d->nums[e->v], sizeof x);
    return x;
}

double et_json_real(const et_jsondoc *d, et_jref v)
{
    const jent *e = ent(d, v);
    if (!e || (e->h & T_MASK) != J_REAL)
        return 0;
    double x;
    memcpy(&x, &d->nums[e->v], sizeof x);
    return x;
}

const char *et_json_str(const et_jsondoc *d, et_jref v)
{
    const jent *e = ent(d, v);
    return e && (e->h & T_MASK) == J_STRING && d->str ? d->str + e->v : NULL;
}

size_t et_json_strlen(const et_jsondoc *d, et_jref v)
{
    const jent *e = ent(d, v);
    if (!e || (e->h & T_MASK) != J_STRING || !d->str)
        return 0;
    size_t k = e->h >> 4;
    return k < FIELD_MAX ? k : strlen(d->str + e->v);
}

size_t et_json_count(const et_jsondoc *d, et_jref v)
{
    const jent *e = ent(d, v);
    if (!e || ((e->h & T_MASK) != J_ARRAY && (e->h & T_MASK) != J_OBJECT))
        return 0;
    return e->h >> 4; /* never saturated: the node budget is below FIELD_MAX */
}

/* The entry after v and its descendants. */
static et_jref skip(const et_jsondoc *d, et_jref v)
{
    unsigned t = d->tape[v].h & T_MASK;
    return t == J_ARRAY || t == J_OBJECT ? d->tape[v].v : v + 1;
}

et_jref et_json_first(const et_jsondoc *d, et_jref c)
{
    const jent *e = ent(d, c);
    if (!e || ((e->h & T_MASK) != J_ARRAY && (e->h & T_MASK) != J_OBJECT) || e->v == c + 1)
        return ET_JNONE;
    return c + 1;
}

et_jref et_json_next(const et_jsondoc *d, et_jref c, et_jref v)
{
    const jent *e = ent(d, c);
    if (!e || v == ET_JNONE || v <= c || v >= e->v)
        return ET_JNONE;
    et_jref n = skip(d, v);
    if ((e->h & T_MASK) == J_OBJECT && n < e->v)
        n = skip(d, n); /* from a key past its value */
    return n < e->v ? n : ET_JNONE;
}

et_jref et_json_get(const et_jsondoc *d, et_jref obj, const char *key)
{
    const jent *e = ent(d, obj);
    if (!e || (e->h & T_MASK) != J_OBJECT || !d->str)
        return ET_JNONE;
    size_t klen = strlen(key);
    et_jref found = ET_JNONE;
    for (et_jref k = et_json_first(d, obj); k != ET_JNONE; k = et_json_next(d, obj, k)) {
        const jent *ke = &d->tape[k];
        size_t l = ke->h >> 4;
        if ((l == klen || l == FIELD_MAX) && strcmp(d->str + ke->v, key) == 0)
            found = k + 1;
    }
    return found;
}
