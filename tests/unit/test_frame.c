/*
 * test_frame.c - unit tests for pyfmt.c and frame.c (TAP output).
 *
 * Usage: test_frame REF_DIR
 *
 * REF_DIR holds reference outputs made by pandas 1.5 / tabulate 0.8.9
 * (NAME.tsv and NAME.print.txt).  Each NAME.tsv is loaded into a frame,
 * written back with et_frame_write_tsv() and et_frame_write_grid(), and
 * both must equal the references byte for byte.  When REF_DIR is missing
 * the whole program is skipped.
 *
 * Plain C11 (tmpfile() stands in for open_memstream()).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/frame.h"
#include "base/pyfmt.h"
#include "tap.h"

/* ------------------------------------------------------------- helpers */

typedef tap_bytes bytes;



/* Run a writer into a temporary file and return what it wrote. */
static bytes render(const et_frame *f, int (*writer)(const et_frame *, FILE *), int *rc)
{
    bytes b = {.p = NULL, .n = 0};
    FILE *fp = tmpfile();

    *rc = -1;
    if (!fp)
        return b;
    *rc = writer(f, fp);
    rewind(fp);
    b = tap_slurp(fp);
    fclose(fp);
    return b;
}

/* Render with `writer` and compare with the NUL-terminated `want`. */
static void check_render(const et_frame *f, int (*writer)(const et_frame *, FILE *),
                         const char *want, const char *what)
{
    int rc;
    bytes got = render(f, writer, &rc);

    if (!got.s) {
        ok(0, "%s (could not render)", what);
        return;
    }
    is_mem(got.s, got.n, want, strlen(want), "%s", what);
    free(got.s);
}

/* pandas' to_csv(sep="\t", index=False) */
static int write_tsv_noindex(const et_frame *f, FILE *out)
{
    return et_frame_write_tsv_index(f, out, false);
}

/* ------------------------------------------------------------- pyfmt */

static void test_pyfmt(void)
{
    static const struct {
        double x;
        const char *repr;
    } reprs[] = {
        {0.1, "0.1"},
        {1e-05, "1e-05"},
        {0.0001, "0.0001"},
        {1e16, "1e+16"},
        {1234567890123456.0, "1234567890123456.0"},
        {8338.0, "8338.0"},
        {0.0009305000000000001, "0.0009305000000000001"},
        {4294963000.033216, "4294963000.033216"},
        {5e-324, "5e-324"},
        {1.7976931348623157e+308, "1.7976931348623157e+308"},
        {-0.0, "-0.0"},
        {0.0, "0.0"},
        {-2.5, "-2.5"},
        {1e22, "1e+22"},
        {1.5e-100, "1.5e-100"},
        {123456789.0, "123456789.0"},
        {0.30000000000000004, "0.30000000000000004"},
        {7.120236347223045e-307, "7.120236347223045e-307"}, /* power of two */
    };
    static const struct {
        double x;
        const char *g;
    } gs[] = {
        {4294963000.033216, "4.29496e+09"},
        {1.031719, "1.03172"},
        {0.0001, "0.0001"},
        {1e-05, "1e-05"},
        {100000.0, "100000"},
        {1e6, "1e+06"},
        {999999.5, "1e+06"},
        {0.0009305000000000001, "0.0009305"},
        {-0.0, "-0"},
        {2.5, "2.5"},
        {1e100, "1e+100"},
        {5e-324, "4.94066e-324"},
    };
    char buf[ET_PYFMT_BUFSZ];
    size_t i, n;

    for (i = 0; i < sizeof reprs / sizeof reprs[0]; i++) {
        n = et_pyfmt_repr(reprs[i].x, buf);
        is_str(buf, reprs[i].repr, "repr(%.17g) == %s", reprs[i].x, reprs[i].repr);
        if (n != strlen(buf))
            ok(0, "repr length for %s", reprs[i].repr);
    }
    et_pyfmt_repr(NAN, buf);
    is_str(buf, "nan", "repr(nan)");
    et_pyfmt_repr(-NAN, buf);
    is_str(buf, "nan", "repr(-nan)");
    et_pyfmt_repr(INFINITY, buf);
    is_str(buf, "inf", "repr(inf)");
    et_pyfmt_repr(-INFINITY, buf);
    is_str(buf, "-inf", "repr(-inf)");

    for (i = 0; i < sizeof gs / sizeof gs[0]; i++) {
        n = et_pyfmt_g(gs[i].x, buf);
        is_str(buf, gs[i].g, "format(%.17g, 'g') == %s", gs[i].x, gs[i].g);
        if (n != strlen(buf))
            ok(0, "g length for %s", gs[i].g);
    }
    et_pyfmt_g(NAN, buf);
    is_str(buf, "nan", "format(nan, 'g')");
    et_pyfmt_g(-NAN, buf);
    is_str(buf, "nan", "format(-nan, 'g') (glibc says -nan)");
    et_pyfmt_g(INFINITY, buf);
    is_str(buf, "inf", "format(inf, 'g')");
    et_pyfmt_g(-INFINITY, buf);
    is_str(buf, "-inf", "format(-inf, 'g')");
}

/* Python's round(x, n), checked against values Python 3.11 printed, then
 * the fast path against "%.*f" + strtod on many values, ties included. */
static void test_py_round(void)
{
    static const struct {
        double x;
        int n;
        double want;
    } cases[] = {
        {1.00005, 4, 1.0001},   {2.675, 2, 2.67},        {0.5, 0, 0.0},
        {1.5, 0, 2.0},          {2.5, 0, 2.0},           {-1e-05, 4, -0.0},
        {1234567800.0, 4, 1234567800.0}, {0.00015, 4, 0.0001}, {123.45675, 4, 123.4567},
        {-2.5, 0, -2.0},        {1e17, 4, 1e17},         {3.14159, 15, 3.14159},
    };
    char buf[ET_PYFMT_BUFSZ];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = et_py_round(cases[i].x, cases[i].n);
        et_pyfmt_repr(got, buf);
        ok(got == cases[i].want && signbit(got) == signbit(cases[i].want),
           "round(%.17g, %d) == %.17g (got %s)", cases[i].x, cases[i].n, cases[i].want, buf);
    }
    ok(isnan(et_py_round(NAN, 4)) && et_py_round(INFINITY, 4) == INFINITY,
       "round(nan) and round(inf) unchanged");
    /* fast path against the slow one */
    unsigned long long st = 88172645463325252ull;
    long bad = 0, total = 0;
    for (int k = 0; k < 300000; k++) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        double x;
        if (k % 3 == 0) {
            /* near a tie at 4 decimals: j.5e-4 give or take a few ulps */
            double j = (double)(st % 100000000ull);
            x = (j + 0.5) / 1e4;
            x = nextafter(x, (k & 4) ? INFINITY : -INFINITY);
            if (k & 8)
                x = (j + 0.5) / 1e4;
        } else {
            /* a random magnitude from 1e-7 to 1e13 */
            double m = (double)(st >> 11) / 9007199254740992.0;
            x = m * pow(10.0, (double)(int)(st % 21) - 7.0);
        }
        if (st & 16)
            x = -x;
        char b[400];
        snprintf(b, sizeof b, "%.*f", 4, x);
        double want = strtod(b, NULL);
        double got = et_py_round(x, 4);
        total++;
        if (got != want || signbit(got) != signbit(want)) {
            if (bad++ < 5)
                diag("round(%.17g, 4): fast %.17g, exact %.17g", x, got, want);
        }
    }
    ok(bad == 0, "et_py_round agrees with the exact rounding on %ld values (%ld differ)", total, bad);
}

/* ------------------------------------------------------------- frames */

static void test_frame_basics(void)
{
    const char *names[] = {"a", "b"};
    et_frame *f = et_frame_new(2, names);
    size_t len = 0;
    const char *t;

    if (!ok(f != NULL, "et_frame_new"))
        return;
    is_int((long long)et_frame_ncols(f), 2, "ncols");
    is_str(et_frame_colname(f, 1), "b", "colname");
    is_int(et_frame_add_row(f), 0, "add_row returns 0");
    is_int(et_frame_kind(f, 0, 0), ET_CELL_NONE, "new cells are NONE");
    ok(et_frame_set_text(f, 0, 0, "x\0y", 3) == 0, "set_text with a NUL");
    t = et_frame_get_text(f, 0, 0, &len);
    ok(t && len == 3 && !memcmp(t, "x\0y", 4), "get_text keeps NUL bytes and terminates");
    et_frame_set_int(f, 0, 1, -7);
    is_int(et_frame_get_int(f, 0, 1), -7, "get_int");
    ok(et_frame_get_text(f, 0, 1, NULL) == NULL, "get_text of an INT cell is NULL");
    et_frame_set_float(f, 0, 1, 2.5);
    ok(et_frame_get_float(f, 0, 1) == 2.5 && et_frame_get_int(f, 0, 1) == 0, "get_float");
    et_frame_set_bool(f, 0, 1, true);
    ok(et_frame_get_bool(f, 0, 1), "get_bool");
    et_frame_set_none(f, 0, 1);
    is_int(et_frame_kind(f, 0, 1), ET_CELL_NONE, "set_none");
    is_int((long long)et_frame_nrows(f), 1, "nrows");
    et_frame_free(f);
    et_frame_free(NULL);
}

/* A frame with columns `names` and rows of cells given as strings: "~" is
 * NONE, "#<n>" INT, "%<x>" FLOAT (strtod; "%nan" NaN), "?T"/"?F" BOOL,
 * anything else TEXT. */
static et_frame *build(size_t ncols, const char *const *names, size_t nrows,
                       const char *const *cells)
{
    et_frame *f = et_frame_new(ncols, names);
    size_t r, c;

    for (r = 0; f && r < nrows; r++) {
        if (et_frame_add_row(f) < 0) {
            et_frame_free(f);
            return NULL;
        }
        for (c = 0; c < ncols; c++) {
            const char *s = cells[r * ncols + c];
            if (!strcmp(s, "~"))
                et_frame_set_none(f, r, c);
            else if (s[0] == '#')
                et_frame_set_int(f, r, c, strtoll(s + 1, NULL, 10));
            else if (s[0] == '%')
                et_frame_set_float(f, r, c, strtod(s + 1, NULL));
            else if (s[0] == '?')
                et_frame_set_bool(f, r, c, s[1] == 'T');
            else if (et_frame_set_text(f, r, c, s, strlen(s)) != 0) {
                et_frame_free(f);
                return NULL;
            }
        }
    }
    return f;
}

static void test_tsv_quoting(void)
{
    const char *names[] = {"t", "q\"h", "f"};
    const char *cells[] = {
        "a\tb", "say \"hi\"", "%0.1",        /* tab, quotes */
        "l1\nl2", "~", "%nan",               /* newline, None, NaN */
        "cr\rx", "plain", "%-0.0",           /* carriage return */
        "", "?T", "#-42",                    /* empty text, bool, int */
    };
    et_frame *f = build(3, names, 4, cells);

    if (!ok(f != NULL, "build quoting frame"))
        return;
    check_render(f, et_frame_write_tsv,
                 "\tt\t\"q\"\"h\"\tf\n"
                 "0\t\"a\tb\"\t\"say \"\"hi\"\"\"\t0.1\n"
                 "1\t\"l1\nl2\"\t\t\n"
                 "2\t\"cr\rx\"\tplain\t-0.0\n"
                 "3\t\tTrue\t-42\n",
                 "TSV quoting: tab, quote, newline, CR; None/NaN empty");
    check_render(f, write_tsv_noindex,
                 "t\t\"q\"\"h\"\tf\n"
                 "\"a\tb\"\t\"say \"\"hi\"\"\"\t0.1\n"
                 "\"l1\nl2\"\t\t\n"
                 "\"cr\rx\"\tplain\t-0.0\n"
                 "\tTrue\t-42\n",
                 "TSV without the index: no leading field");
    et_frame_free(f);

    f = et_frame_new(0, NULL);
    if (ok(f && et_frame_add_row(f) == 0, "frame without columns")) {
        check_render(f, et_frame_write_tsv, "\"\"\n0\n", "TSV without columns");
        check_render(f, write_tsv_noindex, "\n\n", "TSV without columns nor index (pandas)");
        check_render(f, et_frame_write_grid, "╒═══╕\n│ 0 │\n╘═══╛\n",
                     "grid without columns: no header row");
    }
    et_frame_free(f);
    f = et_frame_new(0, NULL);
    if (f)
        check_render(f, et_frame_write_grid, "\n", "grid of an empty frame is \"\\n\"");
    et_frame_free(f);
}

static void test_grid(void)
{
    const char *names[] = {"name", "val", "n"};
    et_frame *f = et_frame_new(3, names);

    if (ok(f != NULL, "zero-row frame")) {
        /* tabulate drops the index column when there are no rows */
        check_render(f, et_frame_write_grid,
                     "╒════════╤═══════╤═════╕\n"
                     "│ name   │ val   │ n   │\n"
                     "╞════════╪═══════╪═════╡\n"
                     "╘════════╧═══════╧═════╛\n",
                     "grid with zero rows");
        check_render(f, et_frame_write_tsv, "\tname\tval\tn\n", "TSV with zero rows");
        check_render(f, write_tsv_noindex, "name\tval\tn\n", "TSV with zero rows, no index");
    }
    et_frame_free(f);

    {
        const char *cells[] = {
            "  x ", "%0.5", "#1",
            "yy", "~", "~",
            "z", "%1e-05", "#100",
        };
        f = build(3, names, 3, cells);
        if (ok(f != NULL, "frame with None in a float column"))
            check_render(f, et_frame_write_grid,
                         "╒════╤════════╤═══════╤═════╕\n"
                         "│    │ name   │   val │   n │\n"
                         "╞════╪════════╪═══════╪═════╡\n"
                         "│  0 │ x      │ 0.5   │   1 │\n"
                         "├────┼────────┼───────┼─────┤\n"
                         "│  1 │ yy     │       │     │\n"
                         "├────┼────────┼───────┼─────┤\n"
                         "│  2 │ z      │ 1e-05 │ 100 │\n"
                         "╘════╧════════╧═══════╧═════╛\n",
                         "grid: None in float/int columns, stripped text");
        et_frame_free(f);
    }
    {
        const char *cells[] = {
            "a\nb", "%nan", "?T",
            "tab\there\x01", "%2.25", "~",
        };
        f = build(3, names, 2, cells);
        if (ok(f != NULL, "frame with NaN and control characters"))
            check_render(f, et_frame_write_grid,
                         "╒════╤═══════════════╤════════╤══════╕\n"
                         "│    │ name          │    val │ n    │\n"
                         "╞════╪═══════════════╪════════╪══════╡\n"
                         "│  0 │ a\\nb          │ nan    │ True │\n"
                         "├────┼───────────────┼────────┼──────┤\n"
                         "│  1 │ tab\\there\\x01 │   2.25 │      │\n"
                         "╘════╧═══════════════╧════════╧══════╛\n",
                         "grid: NaN prints nan, control characters escaped");
        et_frame_free(f);
    }
    {
        /* numparse: numeric text makes int/float columns unless some cell is
         * real text; "True" text is a bool; UTF-8 counts code points */
        const char *n2[] = {"s", "i", "t", "b"};
        const char *cells[] = {
            "0", " 7", "1.50", "True",
            "x", "1_000", "-inf", "?F",
            "\xc3\xa9t\xc3\xa9", "#-3", "%3", "~",
        };
        f = build(4, n2, 3, cells);
        if (ok(f != NULL, "frame exercising numparse"))
            check_render(f, et_frame_write_grid,
                         "╒════╤═════╤═══════╤════════╤═══════╕\n"
                         "│    │ s   │     i │      t │ b     │\n"
                         "╞════╪═════╪═══════╪════════╪═══════╡\n"
                         "│  0 │ 0   │     7 │    1.5 │ True  │\n"
                         "├────┼─────┼───────┼────────┼───────┤\n"
                         "│  1 │ x   │ 1_000 │ -inf   │ False │\n"
                         "├────┼─────┼───────┼────────┼───────┤\n"
                         "│  2 │ été │    -3 │    3   │       │\n"
                         "╘════╧═════╧═══════╧════════╧═══════╛\n",
                         "grid: numparse, decimal alignment, bools, UTF-8 widths");
        et_frame_free(f);
    }
}

/* ------------------------------------------------------------- corpus */

/* Split the next TSV field (csv module dialect: '"' quoting, "" escapes)
 * from *p; writes the unquoted bytes to out (at least as large as the
 * input) and returns its length; *eol is set at the end of a line. */
static size_t next_field(const char **p, const char *end, char *out, int *eol)
{
    const char *s = *p;
    size_t n = 0;

    if (s < end && *s == '"') {
        for (s++; s < end; s++) {
            if (*s == '"' && s + 1 < end && s[1] == '"')
                out[n++] = *s++;
            else if (*s == '"') {
                s++;
                break;
            } else
                out[n++] = *s;
        }
    }
    while (s < end && *s != '\t' && *s != '\n')
        out[n++] = *s++;
    *eol = s >= end || *s == '\n';
    *p = s < end ? s + 1 : s;
    return n;
}

/* Column kind used to rebuild a printed Inspector frame from its TSV. */
static et_cell_kind column_kind(const char *name)
{
    static const char *const stats[] = {"p10", "p50", "p90", "avg", "min", "max"};
    size_t i;

    for (i = 0; i < 6; i++)
        if (!strncmp(name, stats[i], 3) && (name[3] == '\0' || name[3] == ' '))
            return ET_CELL_FLOAT;
    return strcmp(name, "is_delegated_op") ? ET_CELL_TEXT : ET_CELL_BOOL;
}

/* Parse a TSV written by DataFrame.to_csv(sep="\t") into a frame. */
static et_frame *load_tsv(const bytes *b)
{
    const char *p = b->s, *end = b->s + b->n;
    char *field = malloc(b->n + 1);
    char **names = NULL;
    et_cell_kind *kinds = NULL;
    size_t ncols = 0, n, c;
    et_frame *f = NULL;
    int eol = 0;

    if (!field)
        return NULL;
    next_field(&p, end, field, &eol); /* the index has no name */
    while (!eol) {
        char **nn = realloc(names, (ncols + 1) * sizeof *names);
        if (!nn)
            goto out;
        names = nn;
        n = next_field(&p, end, field, &eol);
        if (!(names[ncols] = malloc(n + 1)))
            goto out;
        memcpy(names[ncols], field, n);
        names[ncols++][n] = '\0';
    }
    kinds = malloc((ncols + 1) * sizeof *kinds);
    if (!kinds || !(f = et_frame_new(ncols, (const char *const *)names)))
        goto out;
    for (c = 0; c < ncols; c++)
        kinds[c] = column_kind(names[c]);
    while (p < end) {
        long row = et_frame_add_row(f);
        next_field(&p, end, field, &eol); /* the row number */
        for (c = 0; row >= 0 && c < ncols && !eol; c++) {
            n = next_field(&p, end, field, &eol);
            field[n] = '\0';
            if (n == 0)
                continue; /* NONE */
            if (kinds[c] == ET_CELL_FLOAT)
                et_frame_set_float(f, (size_t)row, c, strtod(field, NULL));
            else if (kinds[c] == ET_CELL_BOOL && (!strcmp(field, "True") || !strcmp(field, "False")))
                et_frame_set_bool(f, (size_t)row, c, field[0] == 'T');
            else if (et_frame_set_text(f, (size_t)row, c, field, n) != 0)
                row = -1;
        }
        if (row < 0 || c != ncols || !eol) {
            diag("malformed TSV or out of memory near row %ld", row);
            et_frame_free(f);
            f = NULL;
            goto out;
        }
    }
out:
    for (c = 0; c < ncols; c++)
        free(names[c]);
    free(names);
    free(kinds);
    free(field);
    return f;
}

/* Check that NAME.tsv (and NAME.print.txt unless tsv_only) are reproduced. */
static void test_reference(const char *dir, const char *name, int tsv_only)
{
    char path[4096];
    bytes tsv, grid = {.p = NULL, .n = 0}, got;
    et_frame *f;
    int rc;

    snprintf(path, sizeof path, "%s/%s.tsv", dir, name);
    tsv = tap_read_file(path);
    if (!tsv.s) {
        ok(0, "%s: read %s", name, path);
        return;
    }
    f = load_tsv(&tsv);
    if (!ok(f != NULL, "%s: load TSV (%zu bytes)", name, tsv.n))
        goto out;
    got = render(f, et_frame_write_tsv, &rc);
    ok(got.s && rc == 0, "%s: et_frame_write_tsv succeeds", name);
    is_mem(got.s ? got.s : "", got.n, tsv.s, tsv.n, "%s.tsv is byte-identical", name);
    free(got.s);
    if (tsv_only)
        goto out;
    snprintf(path, sizeof path, "%s/%s.print.txt", dir, name);
    grid = tap_read_file(path);
    if (!ok(grid.s != NULL, "%s: read %s", name, path))
        goto out;
    got = render(f, et_frame_write_grid, &rc);
    ok(got.s && rc == 0, "%s: et_frame_write_grid succeeds", name);
    is_mem(got.s ? got.s : "", got.n, grid.s, grid.n, "%s.print.txt is byte-identical", name);
    free(got.s);
out:
    et_frame_free(f);
    free(tsv.s);
    free(grid.s);
}

/* The reference directory: argv[1], else $ET_SHARED/corpus/ref, else
 * ../shared/corpus/ref (relative to the checkout). */
/* ------------------------------------------------------------- strip */

/* The FNV-1a hash of test_strip's grid of pseudo-random cells, as the
 * forward-scanning py_strip rendered it, with the C1 controls among them
 * (U+0085 and U+009A: the alphabet's 0xc2 before 0x85, 0x9a) escaped as
 * base/shown.h escapes them (issue 25; fca8b46827bf4a5b before, the same
 * grid byte for byte with the C0 escapes only). */
#define STRIP_GRID_HASH 0x4cffe9ba64755886u

/* The text cells of a left-aligned column are stripped as Python's
 * str.strip() does, over the code points frame.c decodes (an invalid byte
 * is a code point of its own, an overlong encoding of a space is a space).
 * Readable cases, then 4,000 pseudo-random cells over the bytes that
 * matter (ASCII and Unicode whitespace, leads and continuations, invalid
 * bytes) whose grid must hash to what the forward-scanning implementation
 * of the first release rendered. */
/* Does a row of the grid `h` end with the cell `want` (then only padding)? */
static bool has_cell(const char *h, size_t hn, const char *want)
{
    static const char bar[] = "\xe2\x94\x82 ", end[] = " \xe2\x94\x82\n";
    size_t wn = strlen(want), bn = strlen(bar), en = strlen(end);
    for (size_t i = 0; h && i + bn + wn + en <= hn; i++) {
        if (memcmp(h + i, bar, bn) || memcmp(h + i + bn, want, wn))
            continue;
        size_t j = i + bn + wn;
        while (j < hn && h[j] == ' ' && (j + en > hn || memcmp(h + j, end, en)))
            j++;
        if (j + en <= hn && !memcmp(h + j, end, en))
            return true;
    }
    return false;
}

static void test_strip(void)
{
    static const char *const names[] = {"s"};
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"  a b  ", "a b"},
        {"x\xe3\x80\x80", "x"},              /* U+3000 at the end */
        {"\xc2\xa0x\xc2\xa0 ", "x"},         /* U+00A0 on both sides */
        {"x\xe0\x80\xa0", "x"},              /* an overlong space decodes as one */
        {"x\x80 ", "x\x80"},                 /* a stray continuation byte stays */
        {"x\xe2\x80", "x\xe2\x80"},          /* a cut sequence stays */
        {"\xe2\x80\x8ax\xe2\x80\x8a", "x"},  /* U+200A */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        et_frame *f = et_frame_new(1, names);
        if (!f || et_frame_add_row(f) < 0 ||
            et_frame_set_text(f, 0, 0, cases[i].in, strlen(cases[i].in)) != 0) {
            ok(0, "strip case %zu: frame", i);
            et_frame_free(f);
            continue;
        }
        int rc;
        bytes got = render(f, et_frame_write_grid, &rc);
        ok(has_cell(got.s, got.n, cases[i].want),
           "strip case %zu: the cell shows as the stripped text", i);
        free(got.s);
        et_frame_free(f);
    }

    static const unsigned char alphabet[] = {
        ' ', '\t', '\n', 0x1c, 'a', '1', '.', 'e', '-', 0x80, 0x85, 0x8a, 0xa0, 0xc2,
        0xe0, 0xe1, 0xe2, 0xe3, 0x9a, 0xf0, 0xff, 0xed, 0xbf, 0x20,
    };
    et_frame *f = et_frame_new(1, names);
    uint64_t x = 0x9e3779b97f4a7c15u;
    char cell[24];
    int built = f != NULL;
    for (int r = 0; built && r < 4000; r++) {
        size_t n = 0, len;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        len = (size_t)(x % sizeof cell);
        for (n = 0; n < len; n++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            cell[n] = (char)alphabet[x % sizeof alphabet];
        }
        built = et_frame_add_row(f) >= 0 && et_frame_set_text(f, (size_t)r, 0, cell, len) == 0;
    }
    if (ok(built, "4,000 pseudo-random cells")) {
        int rc;
        bytes got = render(f, et_frame_write_grid, &rc);
        uint64_t h = 0xcbf29ce484222325u;
        for (size_t i = 0; got.s && i < got.n; i++)
            h = (h ^ (unsigned char)got.s[i]) * 0x100000001b3u;
        diag("grid of the pseudo-random cells: %zu bytes, FNV-1a %016llx", got.n,
             (unsigned long long)h);
        ok(got.s && h == STRIP_GRID_HASH, "... their grid is the first release's, byte for byte");
        free(got.s);
    }
    et_frame_free(f);
}

/* et_frame_set_view: index labels and a "..." row that takes no part in
 * the columns' types (a float column stays right-aligned with "g"). */
static void test_view(void)
{
    const char *names[] = {"name", "val"};
    const char *cells[] = {
        "a", "%0.5", "~", "~", "long name", "%12.25",
    };
    et_frame *f = build(2, names, 3, cells);
    const int64_t labels[] = {0, 0, 402};

    if (!ok(f != NULL, "view: frame"))
        return;
    ok(et_frame_set_view(f, labels, 1) == 0, "set_view");
    check_render(f, et_frame_write_grid,
                 "╒═════╤═══════════╤═══════╕\n"
                 "│     │ name      │   val │\n"
                 "╞═════╪═══════════╪═══════╡\n"
                 "│   0 │ a         │  0.5  │\n"
                 "├─────┼───────────┼───────┤\n"
                 "│ ... │ ...       │   ... │\n"
                 "├─────┼───────────┼───────┤\n"
                 "│ 402 │ long name │ 12.25 │\n"
                 "╘═════╧═══════════╧═══════╛\n",
                 "view: labels 0 and 402 around a '...' row; val still a float column");
    check_render(f, et_frame_write_tsv, "\tname\tval\n0\ta\t0.5\n1\t\t\n2\tlong name\t12.25\n",
                 "view: the TSV ignores it (writers never cut)");
    ok(et_frame_set_view(f, NULL, -1) == 0, "set_view(NULL, -1) clears it");
    check_render(f, et_frame_write_grid,
                 "╒════╤═══════════╤═══════╕\n"
                 "│    │ name      │   val │\n"
                 "╞════╪═══════════╪═══════╡\n"
                 "│  0 │ a         │  0.5  │\n"
                 "├────┼───────────┼───────┤\n"
                 "│  1 │           │       │\n"
                 "├────┼───────────┼───────┤\n"
                 "│  2 │ long name │ 12.25 │\n"
                 "╘════╧═══════════╧═══════╛\n",
                 "view cleared: row numbers again");
    et_frame_free(f);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {
        "repo_docs_tutorial_etdump", "small", "multiblock", "cycles",
        "edge_empty_block", "edge_method_only", "edge_static_buffer", "real_add_x10",
        "real_bundled_debug", "real_bundled_debug_bii_patched", "medium",
    };
    static const char *const tsv_only[] = {"debug.lenient", "cycles.cycles", "large"};
    char refdir[4096], probe[4200];
    FILE *fp;
    size_t i;
    const char *shared = getenv("ET_SHARED");

    if (argc > 1)
        snprintf(refdir, sizeof refdir, "%s", argv[1]);
    else
        snprintf(refdir, sizeof refdir, "%s/corpus/ref", shared ? shared : "../shared");

    /* these need nothing but the code */
    test_pyfmt();
    test_py_round();
    test_frame_basics();
    test_tsv_quoting();
    test_grid();
    test_view();
    test_strip();

    snprintf(probe, sizeof probe, "%s/small.tsv", refdir);
    if (!(fp = fopen(probe, "rb"))) {
        char reason[sizeof refdir + 64];
        snprintf(reason, sizeof reason, "reference outputs not found in %s (../shared/corpus absent)",
                 refdir);
        skip_n(1, reason);
        return done_testing();
    }
    fclose(fp);
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        test_reference(refdir, names[i], 0);
    for (i = 0; i < sizeof tsv_only / sizeof tsv_only[0]; i++) {
        snprintf(probe, sizeof probe, "%s/%s.tsv", refdir, tsv_only[i]);
        if ((fp = fopen(probe, "rb")) != NULL) {
            fclose(fp);
            test_reference(refdir, tsv_only[i], 1);
        }
    }
    return done_testing();
}
