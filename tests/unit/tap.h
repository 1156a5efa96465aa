/*
 * tap.h - a tiny Test Anything Protocol producer for the unit tests.
 *
 * Header-only (static functions); include it in exactly one file of each
 * test program.  Output goes to stdout, diagnostics ("# ...") to stderr, as
 * `prove` expects.
 *
 *   plan(n);                      optional: announce n tests up front
 *   skip_all("reason");           print "1..0 # SKIP reason"; then return 0
 *   skip_n(n, "reason");          record n skipped tests ("ok N # SKIP reason")
 *   ok(cond, "fmt", ...);         one test; returns cond (0/1)
 *   is_int(got, want, "fmt", ...)           integers (long long)
 *   is_str(got, want, "fmt", ...)           NUL-terminated strings
 *   is_mem(got, glen, want, wlen, "fmt", ...) byte strings; on failure
 *                                 reports the first differing byte, its
 *                                 line and both lines there
 *   diag("fmt", ...);             a "# " comment line on stderr
 *   tap_read_file(path), tap_slurp(fp)   a file or stream read whole
 *                                 (tap_bytes: p as bytes, s as text)
 *   return done_testing();        prints the plan if plan() was not called;
 *                                 returns 0 when every test passed and the
 *                                 count matches the plan, 1 otherwise
 *
 * Descriptions are printf formats and need at least a literal string.
 */
#ifndef ET_TAP_H
#define ET_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TAP_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#else
#define TAP_PRINTF_(f, a)
#endif

/* A file or stream read whole: n bytes, followed by a NUL that n does not
 * count (so text can be used as a C string); p (s) NULL when it could not
 * be read.  The caller frees p. */
typedef struct tap_bytes {
    union {
        uint8_t *p; /* as bytes */
        char *s;    /* as text */
    };
    size_t n;
} tap_bytes;

/* Read `fp` to its end (see tap_bytes). */
static inline tap_bytes tap_slurp(FILE *fp)
{
    tap_bytes b = {.p = NULL, .n = 0};
    size_t cap = 0;
    for (;;) {
        if (cap - b.n < 4096) {
            uint8_t *np = realloc(b.p, cap = cap * 2 + 65536);
            if (!np) {
                free(b.p);
                b.p = NULL;
                return b;
            }
            b.p = np;
        }
        size_t got = fread(b.p + b.n, 1, cap - b.n - 1, fp);
        b.n += got;
        if (got == 0)
            break;
    }
    b.p[b.n] = 0;
    if (ferror(fp)) {
        free(b.p);
        b.p = NULL;
    }
    return b;
}

/* Read the file `path` whole (see tap_bytes). */
static inline tap_bytes tap_read_file(const char *path)
{
    tap_bytes b = {.p = NULL, .n = 0};
    FILE *fp = fopen(path, "rb");
    if (fp) {
        b = tap_slurp(fp);
        fclose(fp);
    }
    return b;
}

static int tap_run_;         /* tests run so far */
static int tap_failed_;      /* tests failed so far */
static int tap_planned_ = -1; /* plan(), or -1 */

/* Announce the number of tests. */
static inline void plan(int n)
{
    tap_planned_ = n;
    printf("1..%d\n", n);
}

/* Skip the whole program: print the empty plan with a reason. */
static inline void skip_all(const char *reason)
{
    tap_planned_ = 0;
    printf("1..0 # SKIP %s\n", reason);
}

/* Record `n` skipped tests ("ok N # SKIP reason"); reason is shown by prove. */
static inline void skip_n(int n, const char *reason)
{
    for (int i = 0; i < n; i++)
        printf("ok %d # SKIP %s\n", ++tap_run_, reason);
}

/* Print a diagnostic line ("# ..."). */
static inline TAP_PRINTF_(1, 2) void diag(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fputs("# ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Record one test result with a description; returns pass (0/1). */
static inline int tap_vok_(int pass, const char *fmt, va_list ap)
{
    pass = pass != 0;
    tap_run_++;
    if (!pass)
        tap_failed_++;
    printf("%sok %d - ", pass ? "" : "not ", tap_run_);
    vprintf(fmt, ap);
    putchar('\n');
    return pass;
}

/* ok(cond, fmt, ...): one test that passes when cond is true. */
static inline TAP_PRINTF_(2, 3) int ok(int pass, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pass = tap_vok_(pass, fmt, ap);
    va_end(ap);
    return pass;
}

/* is_int(got, want, fmt, ...): integers equal. */
static inline TAP_PRINTF_(3, 4) int is_int(long long got, long long want, const char *fmt, ...)
{
    va_list ap;
    int pass;

    va_start(ap, fmt);
    pass = tap_vok_(got == want, fmt, ap);
    va_end(ap);
    if (!pass)
        diag("     got: %lld\n#   wanted: %lld", got, want);
    return pass;
}

/* is_str(got, want, fmt, ...): strings equal (NULL equals only NULL). */
static inline TAP_PRINTF_(3, 4) int is_str(const char *got, const char *want, const char *fmt, ...)
{
    va_list ap;
    int pass = (got && want) ? strcmp(got, want) == 0 : got == want;

    va_start(ap, fmt);
    pass = tap_vok_(pass, fmt, ap);
    va_end(ap);
    if (!pass)
        diag("     got: \"%s\"\n#   wanted: \"%s\"", got ? got : "(null)",
             want ? want : "(null)");
    return pass;
}

/* Print the line of s[0..n) that holds offset `at`, clipped to 200 bytes. */
static inline void tap_line_(const char *label, const char *s, size_t n, size_t at)
{
    size_t b = at > n ? n : at, e = b;

    while (b > 0 && s[b - 1] != '\n')
        b--;
    while (e < n && s[e] != '\n')
        e++;
    if (e - b > 200)
        e = b + 200;
    diag("%s: \"%.*s\"", label, (int)(e - b), s + b);
}

/* is_mem(got, glen, want, wlen, fmt, ...): byte strings equal. */
static inline TAP_PRINTF_(5, 6) int is_mem(const void *got, size_t glen, const void *want,
                                           size_t wlen, const char *fmt, ...)
{
    const char *g = got, *w = want;
    va_list ap;
    size_t i, line = 1, n = glen < wlen ? glen : wlen;
    int pass;

    for (i = 0; i < n && g[i] == w[i]; i++)
        if (g[i] == '\n')
            line++;
    pass = glen == wlen && i == n;
    va_start(ap, fmt);
    pass = tap_vok_(pass, fmt, ap);
    va_end(ap);
    if (!pass) {
        diag("first difference at byte %zu (line %zu); got %zu bytes, wanted %zu", i, line,
             glen, wlen);
        tap_line_("     got", g, glen, i);
        tap_line_("  wanted", w, wlen, i);
    }
    return pass;
}

/* End of tests: print the plan if none was given; 0 when all passed. */
static inline int done_testing(void)
{
    if (tap_planned_ < 0)
        printf("1..%d\n", tap_run_);
    else if (tap_planned_ != tap_run_)
        diag("planned %d tests but ran %d", tap_planned_, tap_run_);
    fflush(stdout);
    return (tap_failed_ || (tap_planned_ >= 0 && tap_planned_ != tap_run_)) ? 1 : 0;
}

#endif
