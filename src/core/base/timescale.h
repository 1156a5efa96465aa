/*
 * timescale.h - time scales and duration arithmetic (spec §1.2, §3.7, §3.8).
 *
 * A time scale names the unit of a number of ticks.  Conversions divide by
 * a factor: factor(source) / factor(target), with units per second
 * ns 1e9, us 1e6, ms 1e3, s 1 and cycles 1.  Cycles cannot be mixed with
 * time units (both or neither of source and target must be cycles).
 */
#ifndef ET_TIMESCALE_H
#define ET_TIMESCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

typedef enum { ET_TS_NS = 0, ET_TS_US, ET_TS_MS, ET_TS_S, ET_TS_CYCLES } et_time_scale;

/* "ns", "us", "ms", "s", "cycles". */
const char *et_time_scale_name(et_time_scale ts);

/* Parse a name as above (case-sensitive, as the reference CLI's choices).
 * Returns 0, or -1 with `err` set (ET_ERR_USAGE) naming the valid choices. */
int et_time_scale_parse(const char *s, et_time_scale *out, et_error *err);

/* factor(source) / factor(target) as a float64 (true division), e.g.
 * ns->ms = 1000000.0, ms->ns = 1e-06, cycles->cycles = 1.0.  A raw tick
 * count converts to target units as ticks / factor. */
double et_time_scale_factor(et_time_scale source, et_time_scale target);

/* The reference's rule for cycles: returns 0 when the pair is allowed,
 * -1 with `err` (ET_ERR_USAGE) "For TimeScale in cycles both the source and
 * target time scale have to be in cycles." otherwise. */
int et_time_scale_check(et_time_scale source, et_time_scale target, et_error *err);

/* Elapsed ticks from `start` to `end` of a 32-bit or 64-bit clock.
 * start <= end: end - start.  start > end with both below 2^32: the 32-bit
 * counter wrapped, the true modular difference 2^32 - start + end is
 * returned and *wrapped is set (the reference returns one tick less,
 * spec §3.7; etinspect corrects it, see docs/differences.md).
 * Otherwise (start > end and either beyond 32 bits) returns false: the
 * times are inconsistent. */
bool et_elapsed_ticks(uint64_t start, uint64_t end, uint64_t *ticks, bool *wrapped);

#endif
