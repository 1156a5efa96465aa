/*
 * dtoa.h - shortest round-trip decimal digits of a double, from Debian's
 * libdouble-conversion (Grisu3 with its exact bignum fallback).  This is the
 * one place C++ is compiled (dtoa.cc); callers stay C11.
 */
#ifndef ET_DTOA_H
#define ET_DTOA_H

#ifdef __cplusplus
extern "C" {
#endif

/* The shortest digit string that reads back as `x` (the closest to x when
 * several have that length), for a finite x > 0: writes the significant
 * digits (no leading or trailing zeros, no NUL) into `digits` (room for 18
 * bytes), sets *point so that x == 0.DIGITS * 10^*point, and returns the
 * number of digits (1..17).  For x == 0 it writes "0" with *point 1. */
int et_dtoa_shortest(double x, char *digits, int *point);

#ifdef __cplusplus
}
#endif

#endif
