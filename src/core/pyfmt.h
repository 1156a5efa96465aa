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

#endif
