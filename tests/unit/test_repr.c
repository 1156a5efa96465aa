/*
 * test_repr.c - et_pyfmt_repr against Python's repr() on 1,000,000 doubles
 * (the generator and digests of tests/tools/gen_repr_digests.py, committed
 * as tests/data/repr_digests.txt, so no Python is needed here), and on the
 * samples of every corpus TSV the reference wrote (checked by corpus.t).
 *
 * On a mismatch, `python3 tests/tools/gen_repr_digests.py 100 --values B`
 * prints block B's values and repr strings.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/pyfmt.h"
#include "tap.h"

typedef struct { uint64_t s; } splitmix;

static uint64_t next(splitmix *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* the generator's value i (see gen_repr_digests.py) */
static double value(splitmix *r, uint64_t i)
{
    int kind = (int)(i % 4);
    if (kind == 0) {
        uint64_t bits = next(r);
        if (((bits >> 52) & 0x7FF) == 0x7FF)
            bits &= ~(UINT64_C(1) << 62);
        double x;
        memcpy(&x, &bits, 8);
        return x;
    }
    if (kind == 1)
        return (double)(next(r) % 1000000000) / 1e6;
    int neg = (int)(next(r) & 1);
    double x;
    if (kind == 2) {
        uint64_t k = 1 + next(r) % 17, j = next(r) % 21;
        uint64_t p = 1;
        for (uint64_t q = 0; q < k; q++)
            p *= 10;
        uint64_t m = next(r) % p;
        /* Python: m / float(10**j), both exact below 10^22 */
        x = (double)m / pow(10.0, (double)j);
    } else {
        int e = (int)(next(r) % 121) - 60;
        x = ldexp((double)(next(r) >> 11), e);
    }
    return neg ? -x : x;
}

int main(void)
{
    const char *src = getenv("ET_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/repr_digests.txt", src ? src : ".");
    tap_bytes want = tap_read_file(path);
    if (!want.p) {
        ok(0, "read %s", path);
        return done_testing();
    }
    splitmix r = {1};
    char buf[ET_PYFMT_BUFSZ];
    const char *line = want.s;
    int blocks = 0, bad = 0;
    while (*line) {
        uint64_t h = UINT64_C(0xCBF29CE484222325);
        for (int k = 0; k < 10000; k++) {
            double x = value(&r, (uint64_t)blocks * 10000 + (uint64_t)k);
            size_t n = et_pyfmt_repr(x, buf);
            buf[n++] = '\n';
            for (size_t c = 0; c < n; c++)
                h = (h ^ (uint8_t)buf[c]) * UINT64_C(0x100000001B3);
        }
        char got[17];
        snprintf(got, sizeof got, "%016" PRIx64, h);
        if (strncmp(got, line, 16) != 0 && bad++ < 5)
            diag("block %d: digest %s, Python's %.16s", blocks, got, line);
        blocks++;
        line = strchr(line, '\n');
        line = line ? line + 1 : "";
    }
    is_int(blocks, 100, "100 blocks of 10,000 doubles");
    is_int(bad, 0, "repr of 1,000,000 random doubles is Python's (blocks differing)");
    free(want.p);
    /* hand-picked edges: powers of two, subnormals, the notation switch */
    static const struct { double x; const char *s; } edge[] = {
        {5e-324, "5e-324"}, {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {1.7976931348623157e308, "1.7976931348623157e+308"}, {9007199254740993.0, "9007199254740992.0"},
        {1e16, "1e+16"}, {9999999999999998.0, "9999999999999998.0"}, {1e-4, "0.0001"},
        {9.9999999999999991e-05, "9.999999999999999e-05"}, {0.1 + 0.2, "0.30000000000000004"},
        {-0.0, "-0.0"}, {0.0, "0.0"}, {8338.0, "8338.0"}, {2.0e-323, "2e-323"},
        {4.35e-05, "4.35e-05"}, {123456789012345678.0, "1.2345678901234568e+17"},
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        et_pyfmt_repr(edge[i].x, buf);
        is_str(buf, edge[i].s, "repr(%.17g)", edge[i].x);
    }
    return done_testing();
}
