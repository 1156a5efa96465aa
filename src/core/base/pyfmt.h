/*
 * pyfmt.h - number formatting that matches Python, byte for byte.
 *
 * The reference Inspector's outputs are produced by Python, numpy, pandas
 * and tabulate.  These helpers reproduce the two float formats those use:
 *
 *   repr(x)          shortest string that reads back as the same double;
 *                    fixed notation when the decimal exponent e satisfies
 *                    -4 <= e < 16 (always with a '.' : "8338.0"), otherwise
 *                    "d.ddde+XX" with at least two exponent digits
 *                    ("1e-05", "1.5e+16"); "nan", "inf", "-inf".
 *                    Used by TSV (pandas to_csv) and JSON output.
 *   format(x, "g")   6 significant digits, trailing zeros removed, as C's
 *                    "%g" but with "nan"/"inf"/"-inf" spelt as Python does.
 *                    Used by the box table (tabulate floatfmt "g").
 *
 * Both write a NUL-terminated string into `buf` (at least ET_PYFMT_BUFSZ
 * bytes) and return its length.  They never fail.
 */
#ifndef ET_PYFMT_H
#define ET_PYFMT_H

#include <stddef.h>

#define ET_PYFMT_BUFSZ 40

size_t et_pyfmt_repr(double x, char *buf);
size_t et_pyfmt_g(double x, char *buf);

/* Python's round(x, ndigits) for 0 <= ndigits <= 15: the double nearest to
 * x correctly rounded to ndigits decimals, ties to even on x's exact binary
 * value (so round(2.675, 2) is 2.67 and round(1.00005, 4) is 1.0001).  NaN,
 * infinities and zeros are returned as they are.  Values within 2^38 once
 * scaled take a fast path (a product, nearbyint, a division) unless they are
 * within 1e-4 of a tie; the rest go through "%.*f" and strtod(). */
double et_py_round(double x, int ndigits);

#endif
