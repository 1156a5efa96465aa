/*
 * pyfmt.c - Python-compatible float formatting (see pyfmt.h).
 *
 * repr() takes the shortest digits from libdouble-conversion (dtoa.h); the
 * "g" format starts from C's "%.*e", which glibc (and any C99 printf)
 * rounds correctly.  Only the digits and the exponent are used; the layout
 * is rebuilt here, so the result never depends on the locale's decimal
 * point.
 */
#include "base/pyfmt.h"

#include "base/dtoa.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decimal digits of a finite, non-negative double in scientific form. */
typedef struct {
    char dig[24]; /* significant digits, no trailing zeros, at least one */
    int ndig;
    int exp; /* value = 0.d1d2... * 10^(exp+1), i.e. d1 is at 10^exp */
} decimal;

/* Split the output of "%.*e" ("d<point>ddde[+-]XX") into digits and
 * exponent.  The point may be any locale-specific byte sequence. */
static void split_e(const char *s, decimal *d)
{
    d->ndig = 0;
    for (; *s && *s != 'e' && *s != 'E'; s++)
        if (*s >= '0' && *s <= '9' && d->ndig < (int)sizeof d->dig)
            d->dig[d->ndig++] = *s;
    d->exp = (*s) ? atoi(s + 1) : 0;
    while (d->ndig > 1 && d->dig[d->ndig - 1] == '0')
        d->ndig--;
}

/* Write "nan"/"inf"/"-inf" for a non-finite x; returns the length. */
static size_t nonfinite(double x, char *buf)
{
    const char *s = isnan(x) ? "nan" : (x < 0 ? "-inf" : "inf");
    size_t n = strlen(s);
    memcpy(buf, s, n + 1);
    return n;
}

/* Append "e+XX" / "e-XX" (at least two exponent digits) at p. */
static char *put_exp(char *p, int e)
{
    return p + sprintf(p, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
}

/* Lay out d in scientific notation: "d[.ddd]e+XX". */
static char *put_sci(char *p, const decimal *d)
{
    *p++ = d->dig[0];
    if (d->ndig > 1) {
        *p++ = '.';
        memcpy(p, d->dig + 1, (size_t)d->ndig - 1);
        p += d->ndig - 1;
    }
    return put_exp(p, d->exp);
}

/* Lay out d in fixed notation; `point_zero` adds ".0" to integers. */
static char *put_fixed(char *p, const decimal *d, int point_zero)
{
    int i;
    if (d->exp < 0) {
        *p++ = '0';
        *p++ = '.';
        for (i = -1; i > d->exp; i--)
            *p++ = '0';
        for (i = 0; i < d->ndig; i++)
            *p++ = d->dig[i];
        return p;
    }
    for (i = 0; i <= d->exp; i++)
        *p++ = i < d->ndig ? d->dig[i] : '0';
    if (d->ndig > d->exp + 1) {
        *p++ = '.';
        for (i = d->exp + 1; i < d->ndig; i++)
            *p++ = d->dig[i];
    } else if (point_zero) {
        *p++ = '.';
        *p++ = '0';
    }
    return p;
}

/* The fast path of repr() for doubles that are a decimal of at most 15
 * significant digits, as durations (ticks / 10^k) are: for x in
 * [1e-7, 1e15), m = x * 10^k rounded to an integer below 10^15 (k chosen so
 * that m has 15 digits) is that decimal's digits when m / 10^k (both exact,
 * the quotient correctly rounded) gives x back.  A decimal of at most 15
 * digits is the only one of that length that reads back as its double, so
 * m's digits without trailing zeros are the shortest ones.  Returns their
 * count (with *point as et_dtoa_shortest sets it), or 0 when x is not such
 * a decimal. */
static int short_decimal(double x, char *digits, int *point)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    static const double n10[8] = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0};
    if (!(x >= 1e-7 && x < 1e15))
        return 0;
    /* e10 = floor(log10(x)) from the binary exponent (x in [2^(be-1), 2^be)),
     * 1233 / 4096 ~ log10(2) floored, then corrected once */
    uint64_t bits;
    memcpy(&bits, &x, 8);
    int be = (int)((bits >> 52) & 0x7FF) - 1022;
    int t = (be - 1) * 1233;
    int e10 = t >= 0 ? t >> 12 : -((-t + 4095) >> 12);
    double next = e10 + 1 >= 0 ? p10[e10 + 1] : n10[e10 + 8];
    if (x >= next)
        e10++;
    int k = 14 - e10; /* m = x * 10^k has 15 digits */
    if (k < 0 || k > 22)
        return 0;
    double y = x * p10[k];
    if (!(y < 1e15))
        return 0;
    uint64_t m = (uint64_t)(y + 0.5);
    if ((double)m / p10[k] != x || m == 0)
        return 0;
    int z = 0; /* trailing zeros dropped */
    if (m % 100000000 == 0)
        m /= 100000000, z += 8;
    if (m % 10000 == 0)
        m /= 10000, z += 4;
    if (m % 100 == 0)
        m /= 100, z += 2;
    if (m % 10 == 0)
        m /= 10, z += 1;
    int n = (int)et_u64_to_chars(digits, m);
    *point = n + z - k;
    return n;
}

/* Python repr(float): the shortest string that reads back as x (the closest
 * one when several have that length; libdouble-conversion's shortest mode,
 * dtoa.h); fixed notation when the decimal exponent e satisfies
 * -4 <= e < 16 ("8338.0", "0.0001"), otherwise "d.ddde+XX" ("1e-05",
 * "1e+16"); "nan", "inf", "-inf", "-0.0".  Writes into buf (ET_PYFMT_BUFSZ
 * bytes) and returns the length. */
size_t et_pyfmt_repr(double x, char *buf)
{
    char *p = buf;
    decimal d;

    if (!isfinite(x))
        return nonfinite(x, buf);
    if (signbit(x)) {
        *p++ = '-';
        x = -x;
    }
    if (x == 0) {
        memcpy(p, "0.0", 4);
        return (size_t)(p - buf) + 3;
    }
    int point;
    d.ndig = short_decimal(x, d.dig, &point);
    if (!d.ndig)
        d.ndig = et_dtoa_shortest(x, d.dig, &point);
    d.exp = point - 1;
    p = (d.exp < -4 || d.exp >= 16) ? put_sci(p, &d) : put_fixed(p, &d, 1);
    *p = '\0';
    return (size_t)(p - buf);
}

/* Python format(x, "g"): 6 significant digits, trailing zeros (and a bare
 * point) removed, scientific iff the exponent is < -4 or >= 6, as C's "%g";
 * but NaN is always "nan" (glibc would print "-nan" for a negative NaN).
 * Writes into buf (ET_PYFMT_BUFSZ bytes) and returns the length. */
size_t et_pyfmt_g(double x, char *buf)
{
    char tmp[48], *p = buf;
    decimal d;

    if (!isfinite(x))
        return nonfinite(x, buf);
    if (signbit(x)) {
        *p++ = '-';
        x = -x;
    }
    snprintf(tmp, sizeof tmp, "%.5e", x);
    split_e(tmp, &d);
    p = (d.exp < -4 || d.exp >= 6) ? put_sci(p, &d) : put_fixed(p, &d, 0);
    *p = '\0';
    return (size_t)(p - buf);
}

double et_py_round(double x, int ndigits)
{
    static const double p10[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    if (!isfinite(x) || x == 0 || ndigits < 0 || ndigits > 15)
        return x;
    double s = p10[ndigits];
    double y = x * s;
    /* below 2^38 the product's rounding error is at most 2^-15, so when y
     * is more than 1e-4 away from a tie, nearbyint(y) is the integer the
     * exact x * 10^ndigits rounds to, and r / s (both exact) is correctly
     * rounded to the nearest double of that decimal */
    if (fabs(y) < 0x1p38) {
        double r = nearbyint(y);
        if (fabs(y - r) < 0.4999)
            return r / s;
    }
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", ndigits, x);
    return strtod(buf, NULL);
}
