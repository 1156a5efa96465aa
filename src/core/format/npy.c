/* npy.c - NumPy .npy reader; see npy.h. */
#include "format/npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/etdump.h"

static const uint8_t MAGIC[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* ---- the header: a Python dict literal ---------------------------------- */

typedef struct lexer {
    const char *p, *end;
} lexer;

static void skip_ws(lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r'))
        lx->p++;
}

/* A short, printable excerpt of what is at the cursor, for messages. */
static const char *excerpt(const lexer *lx, char *buf, size_t cap)
{
    size_t n = 0;
    if (lx->p >= lx->end)
        return "the end of the header";
    buf[n++] = '\'';
    for (const char *q = lx->p; q < lx->end && n + 6 < cap && q - lx->p < 12; q++) {
        unsigned char c = (unsigned char)*q;
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            buf[n++] = (char)c;
        } else {
            n += (size_t)snprintf(buf + n, cap - n, "\\x%02x", c);
        }
    }
    if (n + 2 > cap)
        n = cap - 2;
    buf[n++] = '\'';
    buf[n] = 0;
    return buf;
}

static int expect_char(lexer *lx, char c, const char *where, et_error *err)
{
    skip_ws(lx);
    if (lx->p < lx->end && *lx->p == c) {
        lx->p++;
        return 0;
    }
    char b[64];
    return et_fail(err, ET_ERR_FORMAT, "header: expected '%c' %s, found %s", c, where,
                   excerpt(lx, b, sizeof b));
}

/* A quoted string without escapes into out (cap bytes). */
static int parse_string(lexer *lx, char *out, size_t cap, const char *what, et_error *err)
{
    skip_ws(lx);
    char b[64];
    if (lx->p >= lx->end || (*lx->p != '\'' && *lx->p != '"'))
        return et_fail(err, ET_ERR_FORMAT, "header: %s: expected a string, found %s", what,
                       excerpt(lx, b, sizeof b));
    char q = *lx->p++;
    const char *s = lx->p;
    while (lx->p < lx->end && *lx->p != q) {
        if (*lx->p == '\\' || *lx->p == '\n')
            return et_fail(err, ET_ERR_FORMAT,
                           "header: %s: escapes and line breaks in strings are not supported",
                           what);
        lx->p++;
    }
    if (lx->p >= lx->end)
        return et_fail(err, ET_ERR_FORMAT, "header: %s: unterminated string", what);
    size_t n = (size_t)(lx->p - s);
    lx->p++;
    if (n >= cap)
        return et_fail(err, ET_ERR_FORMAT, "header: %s: string of %zu bytes is too long", what, n);
    memcpy(out, s, n);
    out[n] = 0;
    return 0;
}

static bool word_at(const lexer *lx, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(lx->end - lx->p) < n || memcmp(lx->p, w, n) != 0)
        return false;
    /* not the prefix of a longer name */
    if ((size_t)(lx->end - lx->p) > n) {
        char c = lx->p[n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
            return false;
    }
    return true;
}

static int parse_bool(lexer *lx, bool *out, et_error *err)
{
    skip_ws(lx);
    if (word_at(lx, "True")) {
        lx->p += 4;
        *out = true;
        return 0;
    }
    if (word_at(lx, "False")) {
        lx->p += 5;
        *out = false;
        return 0;
    }
    char b[64];
    return et_fail(err, ET_ERR_FORMAT, "header: 'fortran_order': expected True or False, found %s",
                   excerpt(lx, b, sizeof b));
}

/* A non-negative decimal integer (Python 2's trailing L accepted). */
static int parse_dim(lexer *lx, int64_t *out, uint32_t d, et_error *err)
{
    skip_ws(lx);
    char b[64];
    if (lx->p < lx->end && *lx->p == '-')
        return et_fail(err, ET_ERR_FORMAT, "header: 'shape': negative dimension %u", d);
    if (lx->p >= lx->end || *lx->p < '0' || *lx->p > '9')
        return et_fail(err, ET_ERR_FORMAT,
                       "header: 'shape': expected a tuple of integers, found %s in dimension %u",
                       excerpt(lx, b, sizeof b), d);
    int64_t v = 0;
    while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9') {
        int dig = *lx->p - '0';
        if (v > (INT64_MAX - dig) / 10)
            return et_fail(err, ET_ERR_FORMAT, "header: 'shape': dimension %u overflows 64 bits",
                           d);
        v = v * 10 + dig;
        lx->p++;
    }
    if (lx->p < lx->end && (*lx->p == 'L' || *lx->p == 'l'))
        lx->p++;
    *out = v;
    return 0;
}

static int parse_shape(lexer *lx, uint32_t *ndim, int64_t *sizes, et_error *err)
{
    char b[64];
    skip_ws(lx);
    if (lx->p >= lx->end || *lx->p != '(')
        return et_fail(err, ET_ERR_FORMAT,
                       "header: 'shape': expected a tuple of integers, found %s",
                       excerpt(lx, b, sizeof b));
    lx->p++;
    uint32_t n = 0;
    for (;;) {
        skip_ws(lx);
        if (lx->p < lx->end && *lx->p == ')') {
            lx->p++;
            break;
        }
        if (n == ET_TENSOR_MAX_DIM)
            return et_fail(err, ET_ERR_FORMAT,
                           "header: 'shape': more than %d dimensions are not supported",
                           ET_TENSOR_MAX_DIM);
        if (parse_dim(lx, &sizes[n], n, err) != 0)
            return -1;
        n++;
        skip_ws(lx);
        if (lx->p < lx->end && *lx->p == ',') {
            lx->p++;
            continue;
        }
        if (lx->p < lx->end && *lx->p == ')') {
            /* Python needs "(3,)" for one element; "(3)" is the integer 3 */
            if (n == 1)
                return et_fail(err, ET_ERR_FORMAT,
                               "header: 'shape': expected a tuple of integers, found '(%lld)' "
                               "(a one-element tuple is written (%lld,))",
                               (long long)sizes[0], (long long)sizes[0]);
            lx->p++;
            break;
        }
        return et_fail(err, ET_ERR_FORMAT, "header: 'shape': expected ',' or ')', found %s",
                       excerpt(lx, b, sizeof b));
    }
    *ndim = n;
    return 0;
}

/* ---- descr -------------------------------------------------------------- */

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* ScalarType of a descr and whether its bytes are in the host's order;
 * -1 with err set when unsupported. */
static int descr_type(const char *descr, bool *native, et_error *err)
{
    const char *s = descr;
    char order = '=';
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=')
        order = *s++;
    static const struct {
        const char *code;
        int st;
    } types[] = {
        {"f2", 5},  {"f4", 6},  {"f8", 7},  {"i1", 1},  {"i2", 2},  {"i4", 3},
        {"i8", 4},  {"u1", 0},  {"u2", 27}, {"u4", 28}, {"u8", 29}, {"b1", 11}, {"?", 11},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(s, types[i].code) != 0)
            continue;
        int st = types[i].st;
        bool little = host_little_endian();
        *native = true;
        if (et_scalar_type_size(st) > 1 && ((order == '<' && !little) || (order == '>' && little)))
            *native = false;
        return st;
    }
    const char *why = "unsupported dtype";
    switch (*s) {
    case 'c': why = "complex arrays are not supported"; break;
    case 'O': why = "object arrays (pickled Python objects) are not read"; break;
    case 'U': case 'S': case 'a': why = "string arrays are not supported"; break;
    case 'M': case 'm': why = "datetime arrays are not supported"; break;
    case 'V': why = "raw (void) arrays are not supported; save bfloat16 as float32"; break;
    case 'f': why = "only float16, float32 and float64 are supported"; break;
    default: break;
    }
    return et_fail(err, ET_ERR_FORMAT, "descr '%s': %s", descr, why);
}

const char *et_npy_descr(int scalar_type)
{
    switch (scalar_type) {
    case 0: return "|u1";
    case 1: return "|i1";
    case 2: return "<i2";
    case 3: return "<i4";
    case 4: return "<i8";
    case 5: return "<f2";
    case 6: return "<f4";
    case 7: return "<f8";
    case 11: return "|b1";
    case 22: case 27: return "<u2";
    case 28: return "<u4";
    case 29: return "<u8";
    default: return NULL;
    }
}

/* ---- the file ----------------------------------------------------------- */

/* Parse into `n`, whose fields other than `file` are zero. */
static int parse_into(et_npy *n, const uint8_t *data, size_t size, et_error *err)
{
    if (size < 10 || memcmp(data, MAGIC, sizeof MAGIC) != 0)
        return et_fail(err, ET_ERR_FORMAT, "not a .npy file (no \\x93NUMPY magic at its start)");
    n->major = data[6];
    n->minor = data[7];
    uint64_t hlen, hstart;
    if (n->major == 1 && n->minor == 0) {
        hlen = (uint64_t)data[8] | (uint64_t)data[9] << 8;
        hstart = 10;
    } else if ((n->major == 2 || n->major == 3) && n->minor == 0) {
        if (size < 12)
            return et_fail(err, ET_ERR_FORMAT, "truncated: %zu bytes, the header length needs 12",
                           size);
        hlen = (uint64_t)data[8] | (uint64_t)data[9] << 8 | (uint64_t)data[10] << 16 |
               (uint64_t)data[11] << 24;
        hstart = 12;
    } else {
        return et_fail(err, ET_ERR_FORMAT,
                       "unsupported .npy format version %d.%d (1.0, 2.0 and 3.0 are read)",
                       n->major, n->minor);
    }
    if (hlen > ET_NPY_MAX_HEADER)
        return et_fail(err, ET_ERR_FORMAT, "header of %llu bytes (at most %d are accepted)",
                       (unsigned long long)hlen, ET_NPY_MAX_HEADER);
    if (hlen > size - hstart)
        return et_fail(err, ET_ERR_FORMAT,
                       "the header (%llu bytes at byte %llu) runs past the end of the file "
                       "(%zu bytes)",
                       (unsigned long long)hlen, (unsigned long long)hstart, size);
    n->data_offset = hstart + hlen;

    lexer lx = {(const char *)data + hstart, (const char *)data + hstart + hlen};
    if (expect_char(&lx, '{', "at the start of the header (a dict)", err) != 0)
        return -1;
    bool have_descr = false, have_fortran = false, have_shape = false;
    uint32_t ndim = 0;
    int64_t sizes[ET_TENSOR_MAX_DIM];
    char b[64];
    for (;;) {
        skip_ws(&lx);
        if (lx.p < lx.end && *lx.p == '}') {
            lx.p++;
            break;
        }
        char key[32];
        if (parse_string(&lx, key, sizeof key, "key", err) != 0)
            return -1;
        if (expect_char(&lx, ':', "after a key", err) != 0)
            return -1;
        bool *have;
        if (!strcmp(key, "descr")) {
            have = &have_descr;
            skip_ws(&lx);
            if (lx.p < lx.end && *lx.p == '[')
                return et_fail(err, ET_ERR_FORMAT,
                               "descr: structured dtypes (a list of fields) are not supported");
            if (parse_string(&lx, n->descr, sizeof n->descr, "'descr'", err) != 0)
                return -1;
        } else if (!strcmp(key, "fortran_order")) {
            have = &have_fortran;
            if (parse_bool(&lx, &n->fortran_order, err) != 0)
                return -1;
        } else if (!strcmp(key, "shape")) {
            have = &have_shape;
            if (parse_shape(&lx, &ndim, sizes, err) != 0)
                return -1;
        } else {
            return et_fail(err, ET_ERR_FORMAT,
                           "header: unexpected key '%s' (a .npy header holds exactly 'descr', "
                           "'fortran_order' and 'shape')",
                           key);
        }
        if (*have)
            return et_fail(err, ET_ERR_FORMAT, "header: key '%s' appears twice", key);
        *have = true;
        skip_ws(&lx);
        if (lx.p < lx.end && *lx.p == ',') {
            lx.p++;
            continue;
        }
        if (lx.p < lx.end && *lx.p == '}') {
            lx.p++;
            break;
        }
        return et_fail(err, ET_ERR_FORMAT, "header: expected ',' or '}' after '%s', found %s", key,
                       excerpt(&lx, b, sizeof b));
    }
    skip_ws(&lx);
    for (; lx.p < lx.end; lx.p++)
        if (*lx.p != 0 && *lx.p != ' ')
            return et_fail(err, ET_ERR_FORMAT, "header: unexpected %s after the dict",
                           excerpt(&lx, b, sizeof b));
    if (!have_descr || !have_fortran || !have_shape)
        return et_fail(err, ET_ERR_FORMAT, "header: key '%s' missing",
                       !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");

    bool native = true;
    int st = descr_type(n->descr, &native, err);
    if (st < 0)
        return -1;
    uint64_t es = (uint64_t)et_scalar_type_size(st);
    uint64_t numel = 1;
    bool overflow = false, zero = false;
    for (uint32_t d = 0; d < ndim; d++) {
        if (sizes[d] == 0)
            zero = true;
        else if (numel > UINT64_MAX / (uint64_t)sizes[d])
            overflow = true;
        else
            numel *= (uint64_t)sizes[d];
    }
    if (zero)
        numel = 0;
    else if (overflow || numel > UINT64_MAX / es)
        return et_fail(err, ET_ERR_FORMAT, "shape: the byte size overflows 64 bits");
    uint64_t need = numel * es;
    uint64_t avail = size - n->data_offset;
    if (need > avail)
        return et_fail(err, ET_ERR_FORMAT,
                       "the data needs %llu bytes after the header, the file has %llu",
                       (unsigned long long)need, (unsigned long long)avail);
    const uint8_t *base = data + n->data_offset;
    if (!native && need > ET_NPY_MAX_SWAP)
        return et_fail(err, ET_ERR_FORMAT,
                       "descr '%s': %llu bytes in the other byte order, more than the %llu that "
                       "are byte-swapped in memory (ET_NPY_MAX_SWAP)",
                       n->descr, (unsigned long long)need, (unsigned long long)ET_NPY_MAX_SWAP);
    if (!native && need > 0) {
        n->owned = malloc((size_t)need);
        if (!n->owned)
            return et_fail(err, ET_ERR_NOMEM, "out of memory (%llu bytes of data to byte-swap)",
                           (unsigned long long)need);
        for (uint64_t i = 0; i < numel; i++)
            for (uint64_t k = 0; k < es; k++)
                n->owned[i * es + k] = base[i * es + es - 1 - k];
        base = n->owned;
        n->byte_swapped = true;
    }
    /* column-major strides; an empty array has no elements to place (and
     * its other dimensions may be as large as the header says) */
    int64_t strides[ET_TENSOR_MAX_DIM];
    bool fortran = n->fortran_order && numel > 0;
    if (fortran) {
        int64_t acc = 1;
        for (uint32_t d = 0; d < ndim; d++) {
            strides[d] = acc;
            acc *= sizes[d]; /* <= numel <= the file's size: no overflow */
        }
    }
    if (et_tensor_init_in(&n->tensor, st, ndim, sizes, fortran ? strides : NULL, base,
                          need, 0, "array", ".npy data", err) != 0) {
        free(n->owned);
        n->owned = NULL;
        return -1;
    }
    return 0;
}

int et_npy_parse(et_npy *n, const uint8_t *data, size_t size, et_error *err)
{
    memset(n, 0, sizeof *n);
    return parse_into(n, data, size, err);
}

int et_npy_open(et_npy *n, const char *path, et_error *err)
{
    memset(n, 0, sizeof *n);
    /* rewriting a .npy (by rename) leaves this mapping intact: read_npy
     * then write_npy to the same path is a round trip, not a hazard */
    static const et_map_options npy = {0, NULL, false, true};
    if (et_map_file_ex(&n->file, path, &npy, err) != 0)
        return -1;
    static const uint8_t none[1];
    if (parse_into(n, n->file.data ? n->file.data : none, n->file.size, err) != 0) {
        et_error_prefix(err, path);
        et_npy_close(n);
        return -1;
    }
    return 0;
}

void et_npy_close(et_npy *n)
{
    free(n->owned);
    et_unmap_file(&n->file);
    memset(n, 0, sizeof *n);
}
