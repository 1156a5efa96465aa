/*
 * frame.c - typed table and its pandas/tabulate renderings (see frame.h).
 *
 * Storage: one flat array of fixed-size cells (rows * ncols, grown by
 * doubling) and a chunked arena holding every text byte, NUL-terminated.
 * Arena chunks never move, so a pointer from et_frame_get_text() stays valid
 * until the frame is freed.  Overwriting a text cell leaves its old bytes
 * in the arena (frames are built once, then printed).
 *
 * The grid writer reproduces tabulate 0.8.9 (headers="keys",
 * tablefmt="fancy_grid") applied to a DataFrame, with these deliberate or
 * unavoidable differences:
 *   - Control characters (bytes < 0x20, 0x7f and the C1 controls) in
 *     headers and cells are shown as Python escapes ("\n", "\t", "\r",
 *     "\x1b": base/shown.h) so that every table line stays one line, and no
 *     escape sequence of a name reaches the terminal.  tabulate would instead switch fancy_grid to its
 *     multi-line layout as soon as any cell contains "\n" or "\r".
 *   - Number recognition in text cells (tabulate's numparse) follows
 *     Python 3.11's int()/float() syntax: underscores, any Unicode
 *     whitespace around the number, and any Unicode decimal digit (category
 *     Nd, "١", "１２") read as its ASCII digit, so such a name is an int and
 *     right-aligned, as tabulate 0.9 does; int() refuses more than 4,300
 *     digits (Python's default limit): such a text is a float when float()
 *     reads it as a finite number ("000...0"), else text.  ANSI
 *     colour codes (which tabulate ignores when measuring) are not special.
 *   - A "True"/"False" text cell in a float column makes tabulate raise
 *     ValueError; here it is printed as it is.
 *   - Widths are Python len(): one per code point (wcwidth is not used);
 *     each byte of an invalid UTF-8 sequence counts as one.
 *
 * Plain C11, no POSIX functions needed.
 */
#include "output/frame.h"

#include "base/shown.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pyfmt.h"

/* ---------------------------------------------------------------- storage */

typedef struct {
    union {
        int64_t i;
        double d;
        bool b;
        struct {
            const char *p;
            size_t len;
        } t;
    } v;
    unsigned char kind; /* et_cell_kind */
} cell;

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[]; /* cap bytes */
} chunk;

#define CHUNK_SIZE ((size_t)64 * 1024)

struct et_frame {
    size_t ncols, nrows, caprows;
    const char **names; /* ncols names, in the arena */
    cell *cells;        /* caprows * ncols */
    chunk *arena;       /* head is the chunk being filled */
    int64_t *labels;    /* et_frame_set_view: index labels (nlabels), or NULL */
    size_t nlabels;
    bool has_ellipsis;  /* et_frame_set_view: row `ellipsis` is shown as "..." */
    size_t ellipsis;
};

/* Copy n bytes plus a NUL into the arena; NULL when out of memory. */
static const char *arena_copy(et_frame *f, const char *s, size_t n)
{
    chunk *c = f->arena;
    char *p;

    if (n >= SIZE_MAX - sizeof(chunk) - 1)
        return NULL;
    if (!c || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > CHUNK_SIZE / 4 ? n + 1 : CHUNK_SIZE;
        chunk *nc = malloc(sizeof(chunk) + cap);
        if (!nc)
            return NULL;
        nc->used = 0;
        nc->cap = cap;
        if (c && cap != CHUNK_SIZE) { /* big block: keep filling the head */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            f->arena = nc;
        }
        c = nc;
    }
    p = c->data + c->used;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    c->used += n + 1;
    return p;
}

/* Create a frame with `ncols` columns named by `names` (NUL-terminated
 * strings, copied).  Returns NULL when out of memory. */
et_frame *et_frame_new(size_t ncols, const char *const *names)
{
    et_frame *f = calloc(1, sizeof *f);
    size_t i;

    if (!f)
        return NULL;
    f->ncols = ncols;
    if (ncols) {
        f->names = calloc(ncols, sizeof *f->names);
        if (!f->names)
            goto fail;
        for (i = 0; i < ncols; i++)
            if (!(f->names[i] = arena_copy(f, names[i], strlen(names[i]))))
                goto fail;
    }
    return f;
fail:
    et_frame_free(f);
    return NULL;
}

/* Free a frame and everything it owns.  NULL is accepted. */
void et_frame_free(et_frame *f)
{
    chunk *c, *next;

    if (!f)
        return;
    for (c = f->arena; c; c = next) {
        next = c->next;
        free(c);
    }
    free(f->names);
    free(f->cells);
    free(f->labels);
    free(f);
}

int et_frame_set_view(et_frame *f, const int64_t *labels, long ellipsis_row)
{
    free(f->labels);
    f->labels = NULL;
    f->nlabels = 0;
    if (labels && f->nrows) {
        if (!(f->labels = malloc(f->nrows * sizeof *f->labels)))
            return -1;
        memcpy(f->labels, labels, f->nrows * sizeof *f->labels);
        f->nlabels = f->nrows;
    }
    f->has_ellipsis = ellipsis_row >= 0 && (size_t)ellipsis_row < f->nrows;
    f->ellipsis = f->has_ellipsis ? (size_t)ellipsis_row : 0;
    return 0;
}

/* Is row r the "..." row of a truncated view? */
static bool is_ellipsis(const et_frame *f, size_t r)
{
    return f->has_ellipsis && r == f->ellipsis;
}

/* Index label of row r in the grid (its number unless a view sets one). */
static size_t row_label(const et_frame *f, size_t r, char *buf, size_t cap)
{
    if (is_ellipsis(f, r))
        return (size_t)snprintf(buf, cap, "...");
    if (f->labels && r < f->nlabels)
        return (size_t)snprintf(buf, cap, "%" PRId64, f->labels[r]);
    return (size_t)snprintf(buf, cap, "%zu", r);
}

/* Number of columns / rows. */
size_t et_frame_ncols(const et_frame *f) { return f->ncols; }

/* Number of columns / rows. */
size_t et_frame_nrows(const et_frame *f) { return f->nrows; }

/* Name of column `col` (NUL-terminated, owned by the frame). */
const char *et_frame_colname(const et_frame *f, size_t col)
{
    assert(col < f->ncols);
    return f->names[col];
}

/* Append an empty row (all cells NONE).  Returns the new row's index, or
 * -1 when out of memory. */
long et_frame_add_row(et_frame *f)
{
    if (f->nrows >= (size_t)LONG_MAX)
        return -1;
    if (f->nrows == f->caprows && f->ncols) {
        size_t cap = f->caprows ? f->caprows * 2 : 64;
        cell *nc;
        if (cap > SIZE_MAX / sizeof(cell) / f->ncols)
            return -1;
        nc = realloc(f->cells, cap * f->ncols * sizeof(cell));
        if (!nc)
            return -1;
        f->cells = nc;
        f->caprows = cap;
    }
    if (f->ncols)
        memset(f->cells + f->nrows * f->ncols, 0, f->ncols * sizeof(cell));
    return (long)f->nrows++;
}

/* See frame.h. */
int et_frame_reserve(et_frame *f, size_t nrows)
{
    if (nrows <= f->caprows || !f->ncols)
        return 0;
    if (nrows > SIZE_MAX / sizeof(cell) / f->ncols)
        return -1;
    cell *nc = realloc(f->cells, nrows * f->ncols * sizeof(cell));
    if (!nc)
        return -1;
    f->cells = nc;
    f->caprows = nrows;
    return 0;
}

/* The cell at (row, col); both must be in range. */
static cell *at(const et_frame *f, size_t row, size_t col)
{
    assert(row < f->nrows && col < f->ncols);
    return &f->cells[row * f->ncols + col];
}

/* Set one cell.  `row` and `col` must be in range (checked with assert).
 * set_text copies `len` bytes of `s`; returns -1 when out of memory. */
int et_frame_set_text(et_frame *f, size_t row, size_t col, const char *s, size_t len)
{
    cell *c = at(f, row, col);
    const char *p = arena_copy(f, s, len);

    if (!p)
        return -1;
    c->kind = ET_CELL_TEXT;
    c->v.t.p = p;
    c->v.t.len = len;
    return 0;
}

/* Set one cell (see et_frame_set_text). */
void et_frame_set_int(et_frame *f, size_t row, size_t col, int64_t v)
{
    cell *c = at(f, row, col);
    c->kind = ET_CELL_INT;
    c->v.i = v;
}

/* Set one cell (see et_frame_set_text).  NaN is pandas' missing float. */
void et_frame_set_float(et_frame *f, size_t row, size_t col, double v)
{
    cell *c = at(f, row, col);
    c->kind = ET_CELL_FLOAT;
    c->v.d = v;
}

/* Set one cell (see et_frame_set_text). */
void et_frame_set_bool(et_frame *f, size_t row, size_t col, bool v)
{
    cell *c = at(f, row, col);
    c->kind = ET_CELL_BOOL;
    c->v.b = v;
}

/* Set one cell (see et_frame_set_text). */
void et_frame_set_none(et_frame *f, size_t row, size_t col)
{
    at(f, row, col)->kind = ET_CELL_NONE;
}

/* Read back one cell: its kind. */
et_cell_kind et_frame_kind(const et_frame *f, size_t row, size_t col)
{
    return (et_cell_kind)at(f, row, col)->kind;
}

/* Read back one cell.  `len` may be NULL.  For kinds other than the one
 * asked for, get_text returns NULL and the numeric getters return 0.  The
 * text is NUL-terminated and stays valid until the frame is freed. */
const char *et_frame_get_text(const et_frame *f, size_t row, size_t col, size_t *len)
{
    const cell *c = at(f, row, col);
    if (c->kind != ET_CELL_TEXT)
        return NULL;
    if (len)
        *len = c->v.t.len;
    return c->v.t.p;
}

/* Read back one cell (see et_frame_get_text). */
int64_t et_frame_get_int(const et_frame *f, size_t row, size_t col)
{
    const cell *c = at(f, row, col);
    return c->kind == ET_CELL_INT ? c->v.i : 0;
}

/* Read back one cell (see et_frame_get_text). */
double et_frame_get_float(const et_frame *f, size_t row, size_t col)
{
    const cell *c = at(f, row, col);
    return c->kind == ET_CELL_FLOAT ? c->v.d : 0;
}

/* Read back one cell (see et_frame_get_text); false for other kinds. */
bool et_frame_get_bool(const et_frame *f, size_t row, size_t col)
{
    const cell *c = at(f, row, col);
    return c->kind == ET_CELL_BOOL ? c->v.b : false;
}

/* -------------------------------------------------------------------- TSV */

/* Write one TSV field with csv.QUOTE_MINIMAL rules. */
static void tsv_field(FILE *out, const char *s, size_t n)
{
    size_t i, start = 0;
    /* memchr is vectorised; cells can be long (lists of start times) */
    bool quote = memchr(s, '\t', n) || memchr(s, '"', n) || memchr(s, '\n', n) ||
                 memchr(s, '\r', n);

    if (!quote) {
        fwrite(s, 1, n, out);
        return;
    }
    putc('"', out);
    for (i = 0; i < n; i++)
        if (s[i] == '"') { /* write up to and including it, then once more */
            fwrite(s + start, 1, i + 1 - start, out);
            start = i;
        }
    fwrite(s + start, 1, n - start, out);
    putc('"', out);
}

/* Flush `out` and report whether anything written to it failed. */
static int finish(FILE *out)
{
    return (fflush(out) != 0 || ferror(out)) ? -1 : 0;
}

/* Write the frame as pandas' DataFrame.to_csv(sep="\t") does (spec §6.4):
 * a header line whose first field (the unnamed index) is empty, then one
 * line per row starting with the row number; "\n" line ends; minimal
 * quoting with '"' (a field holding a tab, '"', '\n' or '\r' is quoted and
 * its quotes doubled); NONE and NaN as an empty field; FLOAT as Python
 * repr(); BOOL as True/False.  A frame without columns gets the header
 * line "\"\"" (Python's csv module quotes a lone empty field).  Quoting a
 * lone '\r' follows CPython >= 3.11.9 / 3.12.3 (gh-67044); older Pythons
 * wrote it bare.  Returns 0, or -1 on a write error. */
int et_frame_write_tsv(const et_frame *f, FILE *out)
{
    return et_frame_write_tsv_index(f, out, true);
}

/* et_frame_write_tsv with the index (the empty header field and the row
 * numbers) or without it, as pandas' to_csv(sep="\t", index=False): then
 * a frame without columns is an empty line per row after an empty header.
 * Returns 0, or -1 on a write error. */
int et_frame_write_tsv_index(const et_frame *f, FILE *out, bool index)
{
    return et_frame_write_tsv_part(f, out, index, true, 0);
}

/* See frame.h. */
int et_frame_write_tsv_part(const et_frame *f, FILE *out, bool index, bool header,
                            size_t first_row)
{
    char buf[ET_PYFMT_BUFSZ];
    size_t r, c;

    if (header) {
        if (f->ncols == 0 && index)
            fputs("\"\"", out);
        for (c = 0; c < f->ncols; c++) {
            if (index || c > 0)
                putc('\t', out);
            tsv_field(out, f->names[c], strlen(f->names[c]));
        }
        putc('\n', out);
    }
    for (r = 0; r < f->nrows && !ferror(out); r++) {
        if (index)
            fprintf(out, "%zu", first_row + r);
        for (c = 0; c < f->ncols; c++) {
            const cell *x = at(f, r, c);
            if (index || c > 0)
                putc('\t', out);
            switch ((et_cell_kind)x->kind) {
            case ET_CELL_NONE:
                break;
            case ET_CELL_TEXT:
                tsv_field(out, x->v.t.p, x->v.t.len);
                break;
            case ET_CELL_INT:
                fprintf(out, "%" PRId64, x->v.i);
                break;
            case ET_CELL_FLOAT:
                if (!isnan(x->v.d))
                    fwrite(buf, 1, et_pyfmt_repr(x->v.d, buf), out);
                break;
            case ET_CELL_BOOL:
                fputs(x->v.b ? "True" : "False", out);
                break;
            }
        }
        putc('\n', out);
    }
    return finish(out);
}

/* ------------------------------------------------ Python string semantics */

/* Decode one UTF-8 sequence from s[0..n), n > 0 (et_utf8_next); returns
 * its length.  An invalid byte decodes alone, as a code point no
 * predicate matches. */
static size_t u8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len = et_utf8_next(s, n, cp);
    if (!len) {
        *cp = UINT32_MAX;
        return 1;
    }
    return len;
}

/* Python str.isspace() for one code point. */
static bool py_space(uint32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 ||
           c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
           c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Python str.strip(): narrow [*s, *s + *n) to drop surrounding whitespace
 * (code points as u8_next decodes them).  The leading code points are
 * decoded until the first that is not whitespace; at the end an ASCII byte
 * is always a code point of its own, so trailing ASCII whitespace is
 * dropped byte by byte, and only a text whose last kept byte is not ASCII
 * is decoded forward again to find where its last non-space code point
 * ends.  A cell like "[1103966, 2303121, ...]" thus costs O(1), not a
 * decode of every byte (it is stripped three times per grid). */
static void py_strip(const char **s, size_t *n)
{
    const unsigned char *p = (const unsigned char *)*s;
    size_t first = 0, end = *n, k;
    uint32_t cp;

    for (; first < end; first += k) {
        k = u8_next(p + first, end - first, &cp);
        if (!py_space(cp))
            break;
    }
    if (first == end) {
        *n = 0;
        return;
    }
    /* p[first] starts a code point that is not whitespace: these loops
     * stop at it at the latest */
    while (p[end - 1] < 0x80 && py_space(p[end - 1]))
        end--;
    if (p[end - 1] >= 0x80) {
        size_t i;
        for (i = first, end = first; i < *n; i += k) {
            k = u8_next(p + i, *n - i, &cp);
            if (!py_space(cp))
                end = i + k;
        }
    }
    *s += first;
    *n = end - first;
}

/* Number of Python characters (code points) in s[0..n). */
static size_t py_len(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, len = 0;
    uint32_t cp;

    while (i < n) {
        i += p[i] < 0x80 ? 1 : u8_next(p + i, n - i, &cp);
        len++;
    }
    return len;
}

/* The digit zeros of Unicode's non-ASCII decimal digits (category Nd), as
 * Python 3.11's unicodedata (Unicode 14.0.0) lists them: each starts a run
 * of ten code points worth 0..9 (python3 -c "import sys; print([hex(c) for
 * c in range(sys.maxunicode + 1) if chr(c).isdecimal() and
 * int(chr(c)) == 0])"). */
static const uint32_t nd_zero[] = {
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
    0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0,
    0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0,
    0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50,
    0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6,
    0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0};

/* The value 0..9 of decimal digit c (ASCII or not), or -1. */
static int py_decimal(uint32_t c)
{
    size_t lo = 0, hi = sizeof nd_zero / sizeof nd_zero[0];

    if (c < 0x80)
        return c >= '0' && c <= '9' ? (int)(c - '0') : -1;
    while (lo < hi) { /* the last zero <= c */
        size_t mid = lo + (hi - lo) / 2;
        if (nd_zero[mid] <= c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && c - nd_zero[lo - 1] < 10 ? (int)(c - nd_zero[lo - 1]) : -1;
}

/* Text as Python's int() and float() read it: they first turn every
 * Unicode decimal digit into its ASCII digit and every whitespace code
 * point into a space.  The ASCII form of s[0..n) is in *t, *tn (s itself
 * when s is ASCII; else small, or a malloc'd copy in *heap for the caller
 * to free).  False (nothing to free) when s holds a character no number
 * can hold, found at the first such character, so that a cell like
 * "[1103966, ...]" or "aten::add" costs a few bytes, not a scan. */
static bool py_numtext(const char *s, size_t n, char *small, size_t cap, const char **t,
                       size_t *tn, char **heap)
{
    const unsigned char *p = (const unsigned char *)s;
    char *o = NULL;
    size_t i = 0, k, m = 0;
    uint32_t cp;

    *heap = NULL;
    while (i < n) {
        char c;
        if (p[i] < 0x80) {
            c = (char)p[i];
            k = 1;
            if (!((c >= '0' && c <= '9') || strchr("+-._eEiInNfFaAtTyY", c) || py_space(p[i])) ||
                c == '\0')
                goto refuse;
        } else {
            int d;
            k = u8_next(p + i, n - i, &cp);
            if ((d = py_decimal(cp)) >= 0)
                c = (char)('0' + d);
            else if (py_space(cp))
                c = ' ';
            else
                goto refuse;
            if (!o) { /* the first non-ASCII code point: copy from here on */
                o = n < cap ? small : (*heap = malloc(n + 1));
                if (!o)
                    return false;
                memcpy(o, s, i);
                m = i;
            }
        }
        if (o)
            o[m++] = c;
        i += k;
    }
    *t = o ? o : s;
    *tn = o ? m : n;
    return true;
refuse:
    free(*heap);
    *heap = NULL;
    return false;
}

/* Length of the digit run "d(_?d)*" (Python digitpart) at s; 0 if none. */
static size_t digitpart(const char *s, size_t n)
{
    size_t i = 0;

    while (i < n && s[i] >= '0' && s[i] <= '9') {
        i++;
        if (i + 1 < n && s[i] == '_' && s[i + 1] >= '0' && s[i + 1] <= '9')
            i++;
    }
    return i;
}

/* Python int(s) succeeds (base 10, any decimal digits, at most 4,300 of
 * them: Python's sys.get_int_max_str_digits() default). */
static bool py_isint(const char *s0, size_t n0)
{
    char small[128], *heap;
    const char *s;
    size_t n, i, digits = 0;
    bool ok;

    if (!py_numtext(s0, n0, small, sizeof small, &s, &n, &heap))
        return false;
    py_strip(&s, &n);
    if (n && (*s == '+' || *s == '-'))
        s++, n--;
    ok = n && digitpart(s, n) == n;
    for (i = 0; ok && i < n; i++)
        digits += s[i] != '_';
    free(heap);
    return ok && digits <= 4300;
}

/* Case-insensitive equality of s[0..n) with the lowercase ASCII word w. */
static bool word_eq(const char *s, size_t n, const char *w)
{
    size_t i;

    if (n != strlen(w))
        return false;
    for (i = 0; i < n; i++)
        if ((s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]) != w[i])
            return false;
    return true;
}

/* py_float() of ASCII text s[0..n) (py_numtext's form): true when it
 * parses, the value in *v.  strtod() is given dp, the locale's decimal
 * point (dplen bytes). */
static bool py_float_ascii(const char *s, size_t n, double *v, const char *dp, size_t dplen)
{
    char small[128], *buf;
    size_t i, k, o;
    bool neg = false;

    py_strip(&s, &n);
    if (n && (*s == '+' || *s == '-'))
        neg = *s == '-', s++, n--;
    if (word_eq(s, n, "inf") || word_eq(s, n, "infinity") || word_eq(s, n, "nan")) {
        *v = *s == 'n' || *s == 'N' ? NAN : HUGE_VAL;
        if (neg)
            *v = -*v;
        return true;
    }
    /* digitpart ["." [digitpart]] | "." digitpart, then [e [sign] digitpart] */
    i = digitpart(s, n);
    if (i < n && s[i] == '.') {
        k = digitpart(s + i + 1, n - i - 1);
        if (i == 0 && k == 0)
            return false;
        i += 1 + k;
    } else if (i == 0) {
        return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        k = i + 1;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        if (!digitpart(s + k, n - k))
            return false;
        i = k + digitpart(s + k, n - k);
    }
    if (i != n)
        return false;
    /* strtod() wants no underscores and the locale's decimal point */
    buf = n + dplen + 2 <= sizeof small ? small : malloc(n + dplen + 2);
    if (!buf)
        return false;
    o = 0;
    if (neg)
        buf[o++] = '-';
    for (i = 0; i < n; i++) {
        if (s[i] == '.') {
            memcpy(buf + o, dp, dplen);
            o += dplen;
        } else if (s[i] != '_') {
            buf[o++] = s[i];
        }
    }
    buf[o] = '\0';
    *v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    return true;
}

/* Python float(s): true when s[0..n) parses (any decimal digits), the
 * value in *v.  (strtod() is given the locale's decimal point, read with
 * localeconv().) */
static bool py_float(const char *s0, size_t n0, double *v)
{
    char tsmall[128], *heap;
    const char *dp = localeconv()->decimal_point, *s;
    size_t n;
    bool ok;

    if (!py_numtext(s0, n0, tsmall, sizeof tsmall, &s, &n, &heap))
        return false;
    ok = py_float_ascii(s, n, v, dp, strlen(dp));
    free(heap);
    return ok;
}

/* tabulate's _isnumber(): float(s) works, and an infinite or NaN result is
 * only accepted when s is exactly "inf", "-inf" or "nan" (any case). */
static bool py_isnumber(const char *s, size_t n)
{
    double v;

    if (!py_float(s, n, &v))
        return false;
    return isfinite(v) || word_eq(s, n, "inf") || word_eq(s, n, "-inf") ||
           word_eq(s, n, "nan");
}

/* ---------------------------------------------------------------- grid */

/* tabulate's type ranks (its _more_generic order; bytes never occur). */
enum { T_NONE, T_BOOL, T_INT, T_FLOAT, T_TEXT };

/* tabulate's _type() of one cell. */
static int cell_type(const cell *x)
{
    const char *s;
    size_t n;

    switch ((et_cell_kind)x->kind) {
    case ET_CELL_NONE:
        return T_NONE;
    case ET_CELL_BOOL:
        return T_BOOL;
    case ET_CELL_INT:
        return T_INT;
    case ET_CELL_FLOAT:
        return T_FLOAT;
    case ET_CELL_TEXT:
        break;
    }
    s = x->v.t.p;
    n = x->v.t.len;
    if ((n == 4 && !memcmp(s, "True", 4)) || (n == 5 && !memcmp(s, "False", 5)))
        return T_BOOL;
    if (py_isint(s, n))
        return T_INT;
    return py_isnumber(s, n) ? T_FLOAT : T_TEXT;
}

/* A cell as tabulate's _format() renders it: s[0..n) points at the cell's
 * text or at buf. */
typedef struct {
    const char *s;
    size_t n;
    char buf[ET_PYFMT_BUFSZ];
} shown;

/* _format(value, column type) with missingval "" and floatfmt "g". */
static void format_cell(const cell *x, int ctype, shown *o)
{
    double d = 0;
    int n = 0;

    o->s = o->buf;
    o->n = 0;
    switch ((et_cell_kind)x->kind) {
    case ET_CELL_NONE:
        return;
    case ET_CELL_TEXT:
        o->s = x->v.t.p;
        o->n = x->v.t.len;
        if (ctype == T_FLOAT && py_float(o->s, o->n, &d)) {
            o->n = et_pyfmt_g(d, o->buf);
            o->s = o->buf;
        }
        return;
    case ET_CELL_INT:
        if (ctype == T_FLOAT)
            o->n = et_pyfmt_g((double)x->v.i, o->buf);
        else
            n = snprintf(o->buf, sizeof o->buf, "%" PRId64, x->v.i);
        break;
    case ET_CELL_FLOAT:
        o->n = ctype == T_FLOAT ? et_pyfmt_g(x->v.d, o->buf) : et_pyfmt_repr(x->v.d, o->buf);
        break;
    case ET_CELL_BOOL:
        if (ctype == T_FLOAT)
            o->n = et_pyfmt_g(x->v.b ? 1.0 : 0.0, o->buf);
        else
            n = snprintf(o->buf, sizeof o->buf, "%s", x->v.b ? "True" : "False");
        break;
    }
    if (n > 0)
        o->n = (size_t)n;
}

/* tabulate's _afterpoint(): characters after the last '.' (or, with no
 * '.', after the last 'e'/'E') of a non-integer number; -1 otherwise. */
static long afterpoint(const char *s, size_t n)
{
    size_t i;

    if (!py_isnumber(s, n) || py_isint(s, n))
        return -1;
    for (i = n; i-- > 0;)
        if (s[i] == '.')
            return (long)py_len(s + i + 1, n - i - 1);
    for (i = n; i-- > 0;)
        if (s[i] == 'e' || s[i] == 'E')
            return (long)py_len(s + i + 1, n - i - 1);
    return -1;
}

/* Display width of s[0..n) once control characters are escaped
 * (base/shown.h, the one escaping for a terminal). */
static size_t shown_width(const char *s, size_t n)
{
    return et_shown_width(s, n);
}

/* Write s[0..n), control characters as Python escapes ("\n", "\x01"). */
static void put_shown(FILE *out, const char *s, size_t n)
{
    et_fput_shown(out, s, n);
}

/* Write n spaces. */
static void put_spaces(FILE *out, size_t n)
{
    static const char sp[] = "                                ";

    for (; n >= sizeof sp - 1; n -= sizeof sp - 1)
        fwrite(sp, 1, sizeof sp - 1, out);
    fwrite(sp, 1, n, out);
}

/* Layout of one grid column (column 0 is the index). */
typedef struct {
    int type;     /* T_*; decides alignment and formatting */
    bool decimal; /* numalign "decimal" (int/float), else stralign "left" */
    long maxdec;  /* max _afterpoint over the column (decimal only) */
    size_t width; /* content width, without the padding */
} gcol;

/* The cell shown at (row r, grid column g), g >= 1; stripped when the
 * column is left-aligned. */
static void grid_cell(const et_frame *f, const gcol *gc, size_t r, size_t g, shown *o)
{
    format_cell(at(f, r, g - 1), gc->type, o);
    if (!gc->decimal)
        py_strip(&o->s, &o->n);
}

/* Build one horizontal rule (left glyph, fill over each padded column,
 * joints, right glyph, "\n") into a new string; NULL when out of memory. */
static char *make_rule(const gcol *gc, size_t n, const char *glyphs[4], size_t *len)
{
    size_t g, i, total = 2; /* "\n" and NUL */
    char *s, *p;

    for (g = 0; g < n; g++) {
        if (gc[g].width > SIZE_MAX / 8 - total)
            return NULL;
        total += 3 * (gc[g].width + 3); /* every glyph is 3 UTF-8 bytes */
    }
    total += 3;
    if (!(s = p = malloc(total)))
        return NULL;
    memcpy(p, glyphs[0], 3), p += 3;
    for (g = 0; g < n; g++) {
        for (i = 0; i < gc[g].width + 2; i++)
            memcpy(p, glyphs[1], 3), p += 3;
        memcpy(p, g + 1 < n ? glyphs[2] : glyphs[3], 3), p += 3;
    }
    *p++ = '\n';
    *p = '\0';
    *len = (size_t)(p - s);
    return s;
}

/* Write " " + s[0..n) padded to `width` + " │".  The content (shown width
 * w) is right-aligned when `right`, with `tail` spaces after it (decimal
 * alignment); otherwise it is left-aligned. */
static void put_cell(FILE *out, size_t width, const char *s, size_t n, bool right, size_t tail)
{
    size_t w = shown_width(s, n) + tail;

    putc(' ', out);
    if (right)
        put_spaces(out, width - w);
    put_shown(out, s, n);
    put_spaces(out, right ? tail : width - w);
    fputs(" \xe2\x94\x82", out); /* " │" */
}

/* Write the frame as tabulate(df, headers="keys", tablefmt="fancy_grid")
 * (tabulate 0.8.9) prints it, followed by one "\n" (spec §6.3): index column
 * with an empty header, column types inferred as tabulate does, numbers
 * right/decimal-aligned, text left-aligned and stripped, floats with "g".
 * Like tabulate, a frame without rows is drawn without the index column
 * (and one without columns has no header row; with neither it is "\n").
 * Unlike tabulate (which switches to multi-line cells), control characters
 * in headers and cells are shown as Python escapes ("\n", "\t", "\x01"),
 * so every table row is one line.  Returns 0, or -1 on a write error. */
int et_frame_write_grid(const et_frame *f, FILE *out)
{
    static const char *glyphs[4][4] = {
        {"\xe2\x95\x92", "\xe2\x95\x90", "\xe2\x95\xa4", "\xe2\x95\x95"}, /* ╒═╤╕ */
        {"\xe2\x95\x9e", "\xe2\x95\x90", "\xe2\x95\xaa", "\xe2\x95\xa1"}, /* ╞═╪╡ */
        {"\xe2\x94\x9c", "\xe2\x94\x80", "\xe2\x94\xbc", "\xe2\x94\xa4"}, /* ├─┼┤ */
        {"\xe2\x95\x98", "\xe2\x95\x90", "\xe2\x95\xa7", "\xe2\x95\x9b"}, /* ╘═╧╛ */
    };
    char *rule[4] = {NULL, NULL, NULL, NULL}, ibuf[32];
    size_t rlen[4], ng = f->ncols + 1, first = f->nrows ? 0 : 1, g, r, k;
    gcol *gc;
    shown sh;
    int rc = -1;

    if (f->ncols == 0 && f->nrows == 0) { /* tabulate returns "" */
        putc('\n', out);
        return finish(out);
    }
    /* grid column 0 is the index; tabulate drops it when there are no rows */
    if (!(gc = calloc(ng, sizeof *gc)))
        return -1;
    gc[0].type = T_INT;
    gc[0].decimal = true;
    gc[0].maxdec = -1;
    gc[0].width = f->ncols ? 2 : 0; /* min width: len(header "") + 2 */
    if (f->nrows && !f->labels && !f->has_ellipsis) {
        k = (size_t)snprintf(ibuf, sizeof ibuf, "%zu", f->nrows - 1);
        if (k > gc[0].width)
            gc[0].width = k;
    }
    for (r = 0; (f->labels || f->has_ellipsis) && r < f->nrows; r++) {
        k = row_label(f, r, ibuf, sizeof ibuf);
        if (k > gc[0].width)
            gc[0].width = k;
    }
    for (g = 1; g < ng; g++) {
        const char *name = f->names[g - 1];
        long long lead = 0; /* max over cells of width - afterpoint */
        size_t w;

        gc[g].type = T_BOOL; /* tabulate reduces the types from bool */
        for (r = 0; r < f->nrows && gc[g].type < T_TEXT; r++) {
            if (is_ellipsis(f, r))
                continue;
            int t = cell_type(at(f, r, g - 1));
            if (t > gc[g].type)
                gc[g].type = t;
        }
        gc[g].decimal = f->nrows && (gc[g].type == T_INT || gc[g].type == T_FLOAT);
        gc[g].maxdec = -1;
        for (r = 0; r < f->nrows; r++) {
            long dec = 0;
            if (is_ellipsis(f, r)) {
                if (lead < 3)
                    lead = 3;
                continue;
            }
            grid_cell(f, &gc[g], r, g, &sh);
            if (gc[g].decimal && (dec = afterpoint(sh.s, sh.n)) > gc[g].maxdec)
                gc[g].maxdec = dec;
            if ((long long)shown_width(sh.s, sh.n) - dec > lead)
                lead = (long long)shown_width(sh.s, sh.n) - dec;
        }
        if (gc[g].decimal)
            lead += gc[g].maxdec;
        if (f->has_ellipsis && lead < 3)
            lead = 3;
        w = shown_width(name, strlen(name)) + 2;
        gc[g].width = lead > (long long)w ? (size_t)lead : w;
    }
    for (k = 0; k < 4; k++)
        if (!(rule[k] = make_rule(gc + first, ng - first, glyphs[k], &rlen[k])))
            goto done;

    fwrite(rule[0], 1, rlen[0], out);
    if (f->ncols) { /* header row, aligned as the column, then ╞═╪╡ */
        fputs("\xe2\x94\x82", out);
        for (g = first; g < ng; g++) {
            const char *h = g ? f->names[g - 1] : "";
            put_cell(out, gc[g].width, h, strlen(h), gc[g].decimal, 0);
        }
        putc('\n', out);
        fwrite(rule[1], 1, rlen[1], out);
    }
    for (r = 0; r < f->nrows && !ferror(out); r++) {
        if (r)
            fwrite(rule[2], 1, rlen[2], out);
        fputs("\xe2\x94\x82", out);
        k = row_label(f, r, ibuf, sizeof ibuf);
        put_cell(out, gc[0].width, ibuf, k, true, 0);
        if (is_ellipsis(f, r)) {
            for (g = 1; g < ng; g++)
                put_cell(out, gc[g].width, "...", 3, gc[g].decimal, 0);
            putc('\n', out);
            continue;
        }
        for (g = 1; g < ng; g++) {
            size_t tail = 0;
            grid_cell(f, &gc[g], r, g, &sh);
            if (gc[g].decimal)
                tail = (size_t)(gc[g].maxdec - afterpoint(sh.s, sh.n));
            put_cell(out, gc[g].width, sh.s, sh.n, gc[g].decimal, tail);
        }
        putc('\n', out);
    }
    fwrite(rule[3], 1, rlen[3], out); /* its "\n" is print()'s */
    rc = finish(out);
done:
    for (k = 0; k < 4; k++)
        free(rule[k]);
    free(gc);
    return rc;
}
