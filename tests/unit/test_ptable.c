/*
 * test_ptable.c - unit tests for ptable.c (TAP output).
 *
 * Usage: test_ptable [GOLDEN_DIR]
 *
 * GOLDEN_DIR (default $ET_SRC/tests/ptable, ET_SRC defaulting to ".") holds
 * NAME.txt files printed by the real PrettyTable 3.6.0; tests/ptable/gen.py
 * made them from the same tables as CASES below.  Each case is built as an
 * et_frame, written with et_ptable_write() and compared byte for byte.
 *
 * Plain C11 (tmpfile() stands in for open_memstream()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/frame.h"
#include "output/ptable.h"
#include "tap.h"

/* ------------------------------------------------------------- helpers */

typedef tap_bytes bytes;



/* et_ptable_write() into a temporary file; returns what it wrote. */
static bytes render(const et_frame *f, const char *title, int *rc)
{
    bytes b = {.p = NULL, .n = 0};
    FILE *fp = tmpfile();

    *rc = -2;
    if (!fp)
        return b;
    *rc = et_ptable_write(f, title, fp);
    rewind(fp);
    b = tap_slurp(fp);
    fclose(fp);
    return b;
}

/* A frame with columns `names` and rows of cells given as strings: "~" is
 * NONE, "#<n>" INT, "%<x>" FLOAT (strtod: "%nan", "%-inf"), "?T"/"?F"
 * BOOL, "'<text>" TEXT in which "^@" stands for a NUL byte, anything else
 * TEXT as is. */
static et_frame *build(size_t ncols, const char *const *names, size_t nrows,
                       const char *const *cells)
{
    et_frame *f = et_frame_new(ncols, names);
    size_t r, c;

    for (r = 0; f && r < nrows; r++) {
        if (et_frame_add_row(f) < 0)
            goto fail;
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
            else if (s[0] == '\'') {
                char buf[256];
                size_t n = 0;
                for (s++; *s && n < sizeof buf; s++) {
                    if (s[0] == '^' && s[1] == '@') {
                        buf[n++] = '\0';
                        s++;
                    } else
                        buf[n++] = *s;
                }
                if (et_frame_set_text(f, r, c, buf, n) != 0)
                    goto fail;
            } else if (et_frame_set_text(f, r, c, s, strlen(s)) != 0)
                goto fail;
        }
    }
    return f;
fail:
    et_frame_free(f);
    return NULL;
}

/* ------------------------------------------------------------- cases */

/* The tables of tests/ptable/gen.py, in the same order. */
typedef struct {
    const char *name;  /* golden file NAME.txt */
    const char *title; /* NULL: no title */
    size_t ncols;
    const char *const *names;
    size_t nrows;
    const char *const *cells; /* nrows * ncols, see build() */
} pt_case;

#define NAMES(...) ((const char *const[]){__VA_ARGS__})
#define CELLS(...) ((const char *const[]){__VA_ARGS__})
#define PROFILE "Name", "Chain", "Instr", "Frame"
#define MEM "Allocator name", "Total size of allocations done"
#define WIDE_CELLS CELLS("#1", "#22", "#333", "x", "yy", "zzzz")

static const pt_case CASES[] = {
    {"profile", "default", 7, NAMES(PROFILE, "Iteration 0", "Iteration 1", "Iteration 2"), 4,
     CELLS("Method::execute", "#0", "#-1", "~", "%12.340000000000002", "%0.0123", "%1.5",
           "native_call_add.out", "#0", "#0", "~", "%0.0123", "%3.0", "%2.25",
           "DELEGATE_CALL", "#1", "#1", "~", "%100.0", "%1e-05", "%8338.0",
           "Method::init", "#0", "#2", "~", "#2", "%0.30000000000000004", "%1234567.0")},
    {"framework_tax", "default framework tax calculations", 3,
     NAMES("", "Iteration 0", "Iteration 1"), 3,
     CELLS("Model execution time", "%1.5", "%2.0",
           "Time spent in kernels and delegates", "%1.3", "%1.7",
           "Framework tax (%)", "%13.33", "%15.0")},
    {"memory", "default", 2, NAMES(MEM), 3,
     CELLS("scratch", "#1024", "activations", "#4194304", "planned", "#0")},
    {"title_wide_exact", "A title much wider than all of the columns", 3,
     NAMES("a", "bb", "ccc"), 2, WIDE_CELLS},
    {"title_wide_rest", "A title much wider than all of the columns!", 3,
     NAMES("a", "bb", "ccc"), 2, WIDE_CELLS},
    {"title_wide_floor", "Thirty characters long title..", 2, NAMES("Name", "x"), 2,
     CELLS("abcd", "#1", "ab", "#12")},
    {"title_wide_zero_col", "A wide title over an empty column", 2, NAMES("", "a"), 1,
     CELLS("", "#1")},
    {"title_wide_one_col", "Only one narrow column under a long title", 1, NAMES("n"), 2,
     CELLS("#7", "~")},
    {"title_narrow_odd", "x", 2, NAMES(MEM), 1, CELLS("scratch", "#1024")},
    {"title_narrow_even", "xy", 2, NAMES(MEM), 1, CELLS("scratch", "#1024")},
    {"title_exact", "Allocator name | Total size of allocations done", 2, NAMES(MEM), 1,
     CELLS("scratch", "#1024")},
    {"empty", "empty", 5, NAMES(PROFILE, "Iteration 0"), 0, NULL},
    {"empty_no_title", NULL, 2, NAMES(MEM), 0, NULL},
    {"empty_wide_title", "A title wider than the empty table", 2, NAMES("a", "b"), 0, NULL},
    {"name32", "default", 5, NAMES(PROFILE, "Iteration 0"), 2,
     CELLS("native_call_convolution.out_abcd", "#0", "#3", "~", "%0.5",
           "x", "#0", "#4", "~", "%10.25")},
    {"unicode", "Durations (\xce\xbcs)", 3,
     NAMES("Name", "Time (\xce\xbcs)", "\xe6\xb3\xa8\xe8\xa8\x98"), 3,
     CELLS("\xce\xbc-kernel", "%1.5", "\xe8\xa1\xa8\xe6\xa0\xbc",
           "e\xcc\x81t\xc3\xa9", "#22", "ok",
           "\xf0\x9f\x99\x82 smile", "~", "")},
    {"unicode_title", "\xe8\xa1\xa8\xe6\xa0\xbc\xe3\x81\xae\xe9\xa1\x8c\xe5\x90\x8d", 1,
     NAMES("a"), 1, CELLS("#1")},
    {"ints", "ints", 3, NAMES("n", "neg", "big"), 2,
     CELLS("#0", "#-42", "#9223372036854775807",
           "#-1", "#-9223372036854775808", "#12345678901234")},
    {"no_title", NULL, 2, NAMES(MEM), 2,
     CELLS("scratch", "#1024", "activations", "#4194304")},
    {"title_empty_string", "", 2, NAMES("a", "b"), 1, CELLS("#1", "#2")},
    {"floats", "floats", 3, NAMES("x", "y", "flag"), 4,
     CELLS("%nan", "%inf", "?T",
           "%-inf", "%1e16", "?F",
           "%-0.0", "%5e-324", "?T",
           "%0.1", "%1.7976931348623157e308", "~")},
    {"multiline", "lines", 2, NAMES("Name", "Value"), 3,
     CELLS("first\nsecond line\n3rd", "#1", "one", "a\nb", "", "\n")},
    {"control", "ctl", 3, NAMES("tab\there", "ok", "new\nline"), 2,
     CELLS("a\tb", "\x1b[1mbold\x1b[0m", "#1", "\x01", "\x1b(Bx", "y")},
    {"control_title", "two\nlines", 1, NAMES("a"), 1, CELLS("x")},
    {"control_shrink", "A long title here", 2, NAMES("a\tb", "c"), 0, NULL},
    {"stray_bytes", "bytes \xff", 2, NAMES("raw", "n"), 4,
     CELLS("ab\xff" "cd", "#1", "\xe4\xb8 cut", "#2", "\xed\xa0\x80\xc0\xaf", "#3",
           "'a^@b", "#4")},
    {"no_columns", NULL, 0, NULL, 2, NULL},
    {"no_columns_no_rows", NULL, 0, NULL, 0, NULL},
};

static void test_golden(const char *dir, const pt_case *k)
{
    char path[4200];
    bytes want, got;
    et_frame *f;
    int rc;

    snprintf(path, sizeof path, "%s/%s.txt", dir, k->name);
    want = tap_read_file(path);
    if (!ok(want.s != NULL, "%s: read %s", k->name, path))
        return;
    f = build(k->ncols, k->names, k->nrows, k->cells);
    if (ok(f != NULL, "%s: build the frame", k->name)) {
        got = render(f, k->title, &rc);
        is_int(rc, 0, "%s: et_ptable_write returns 0", k->name);
        is_mem(got.s ? got.s : "", got.n, want.s, want.n, "%s.txt is byte-identical", k->name);
        free(got.s);
    }
    et_frame_free(f);
    free(want.s);
}

/* ------------------------------------------------------------- the rest */

/* Where PrettyTable raises, nothing is written and errno is EINVAL. */
static void test_errors(void)
{
    const char *cells[] = {"x\ty", "#123456"};
    et_frame *f = et_frame_new(0, NULL);
    bytes got;
    int rc;

    if (ok(f != NULL && et_frame_add_row(f) == 0, "frame without columns")) {
        errno = 0;
        got = render(f, "T", &rc);
        ok(rc == -1 && errno == EINVAL, "a title without columns: -1, EINVAL (IndexError)");
        is_int((long long)got.n, 0, "... and nothing written");
        free(got.s);
    }
    et_frame_free(f);

    /* PrettyTable: ValueError('invalid width -3 (must be > 0)') */
    f = build(2, NAMES("a\tb", "c"), 1, cells);
    if (ok(f != NULL, "frame with a control character in a name")) {
        errno = 0;
        got = render(f, "A long title here", &rc);
        ok(rc == -1 && errno == EINVAL, "a cell wider than its shrunk column: -1, EINVAL");
        is_int((long long)got.n, 0, "... and nothing written");
        free(got.s);
        got = render(f, NULL, &rc);
        /* as PrettyTable 3.6.0 prints it: both texts measure -1 */
        ok(rc == 0 && got.s && !strcmp(got.s, "+-+--------+\n"
                                                "| a\tb |   c    |\n"
                                                "+-+--------+\n"
                                                "| x\ty | 123456 |\n"
                                                "+-+--------+\n"),
           "the same frame without the title prints");
        free(got.s);
    }
    et_frame_free(f);
}

static void test_write_error(void)
{
    const char *cells[] = {"scratch", "#1024"};
    et_frame *f = build(2, NAMES(MEM), 1, cells);
    FILE *fp = fopen("/dev/full", "w");

    if (!fp) {
        skip_n(1, "/dev/full cannot be opened");
        et_frame_free(f);
        return;
    }
    if (ok(f != NULL, "frame for the write error")) {
        errno = 0;
        is_int(et_ptable_write(f, "default", fp), -1, "writing to /dev/full returns -1");
        ok(errno == ENOSPC, "... with errno ENOSPC (%d)", errno);
    }
    fclose(fp);
    et_frame_free(f);
}

/* Things PrettyTable cannot be asked: duplicate names print as given. */
static void test_duplicates(void)
{
    const char *cells[] = {"#1", "#22"};
    et_frame *f = build(2, NAMES("a", "a"), 1, cells);
    bytes got;
    int rc;

    if (!ok(f != NULL, "frame with duplicate names"))
        return;
    got = render(f, NULL, &rc);
    ok(rc == 0 && got.s && !strcmp(got.s, "+---+----+\n"
                                            "| a | a  |\n"
                                            "+---+----+\n"
                                            "| 1 | 22 |\n"
                                            "+---+----+\n"),
       "duplicate column names are printed");
    free(got.s);
    et_frame_free(f);
}

int main(int argc, char **argv)
{
    const char *src = getenv("ET_SRC");
    char dir[4096];
    size_t i;

    if (argc > 1)
        snprintf(dir, sizeof dir, "%s", argv[1]);
    else
        snprintf(dir, sizeof dir, "%s/tests/ptable", src && *src ? src : ".");
    for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        test_golden(dir, &CASES[i]);
    test_errors();
    test_write_error();
    test_duplicates();
    return done_testing();
}
