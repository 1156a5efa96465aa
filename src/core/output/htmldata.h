/*
 * htmldata.h - the numbers behind the HTML report's charts
 * (docs/html-report.md, "The data"), taken from the model in one
 * sequential pass per block, written as they are made (nothing per sample
 * is allocated), so a page of a 1M-sample dump costs a few milliseconds.
 *
 * The data is one binary blob, base64-encoded (RFC 4648, with padding) for
 * a <script type="application/octet-stream"> element, that the page's
 * script reads as typed arrays.  All numbers are little-endian.  Per block,
 * at its offset (a multiple of 8), for its R kept runs (the first R) and
 * its E events:
 *
 *   float64 origin[R]     the run's origin (below) in target units,
 *                         relative to the origin of the block's first run
 *   uint32  run_index[R]  the run's RunData index in the dump
 *   float32 start[E * R]  event-major: start[e * R + k] is event e's start
 *                         in run k relative to the run's origin, in target
 *                         units, placed as the trace places it
 *                         (timeline.h: a delegated event logged with start
 *                         tick 0 or outside its DELEGATE_CALL gets a
 *                         synthetic start inside it); NaN when the event
 *                         has no start time or no perf data
 *   float32 dur[E * R]    perf_data.raw[k] of event e (target units, or what
 *                         the delegate time-scale converter returned); NaN
 *                         for events without perf data
 *   zero padding to a multiple of 8 bytes
 *
 * A run's origin is its earliest start tick among its non-delegated timed
 * events (among all its timed events when it has none).  Start ticks
 * convert to target units as ticks / insp->scale_factor (cycles stay
 * ticks).  A 32-bit clock (every start tick of the block below 2^32) that
 * wraps around is unwrapped: inside a run whose ticks spread over more
 * than 2^31 (ticks below 2^31 get 2^32 added), and between runs when a run
 * starts more than 2^31 ticks before the previous one.  The delegated
 * events' placed starts of a block are computed first, run by run (4 bytes
 * per delegated sample).
 */
#ifndef ET_HTMLDATA_H
#define ET_HTMLDATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/model.h"

/* Which runs of which block the blob holds, and where. */
typedef struct et_html_plan {
    size_t n_blocks;
    size_t *runs;   /* per block: the runs kept (the block's first ones) */
    size_t *offset; /* per block: byte offset of its data in the blob */
    size_t bytes;   /* size of the blob before base64 */
    size_t samples; /* samples kept (sum of runs * events) */
} et_html_plan;

/* Plan the blob of `insp` holding at most `max_samples` samples (event x
 * run; 0: no limit).  Runs are kept from the first one on, block by block
 * in step: every block keeps its first K runs (fewer when it has fewer),
 * with K as large as the limit allows, and then blocks in order one more
 * run each while it still fits; a block whose single run is over the limit
 * keeps none.  Returns 0, or -1 with `err` set (ET_ERR_NOMEM; ET_ERR_VALUE
 * when the blob would not fit in memory sizes). */
int et_html_plan_make(const et_inspector *insp, size_t max_samples, et_html_plan *plan,
                      et_error *err);

/* Free the arrays of a plan (not the struct); a zeroed plan is accepted. */
void et_html_plan_free(et_html_plan *plan);

/* Receives the base64 text in pieces; returns 0, or -1 to stop (the
 * callee's error is then reported as ET_ERR_IO "write failed"). */
typedef int (*et_html_write_fn)(void *ud, const char *text, size_t n);

/* Write the blob of `plan` (made for this `insp`) as base64 text through
 * `write` (4 * ceil(plan->bytes / 3) characters, no line breaks).
 * Returns 0, or -1 with `err` set (ET_ERR_IO: "write failed"). */
int et_html_write_data(const et_inspector *insp, const et_html_plan *plan, et_html_write_fn write,
                       void *ud, et_error *err);

/* The starts of the events of run `run` (0-based) of block `block` as the
 * page places them: start[e] (n_events entries) relative to the run's
 * origin in target units, NaN as in the blob; *origin the run's origin
 * tick (unwrapped: it may exceed 2^32 after a wrap-around; 0 when no event
 * of the run is timed).  Returns 0, or -1 with `err` set (ET_ERR_USAGE: a
 * block or run out of range). */
int et_html_run_starts(const et_inspector *insp, size_t block, size_t run, double *start,
                       uint64_t *origin, et_error *err);

/* How the time per run of one group of events spreads over the runs of a
 * block: the group's time in run k is the sum of its events' durations
 * (perf_data.raw[k]; NaN samples count 0) and these are the statistics of
 * those sums over the block's runs (NumPy's mean and linear percentiles). */
typedef struct et_html_spread {
    size_t runs;
    double mean, min, p25, p50, p75, max;
} et_html_spread;

/* The spread of `n_groups` groups of block `block`: `group_of_event` has
 * one entry per event of the block, 1..n_groups, or 0 for an event in no
 * group; events without perf data count in no group.  `out` receives
 * n_groups entries (a group without events gets runs = 0 and NaNs).
 * Returns 0, or -1 with `err` set (ET_ERR_USAGE: a block or group out of
 * range; ET_ERR_NOMEM). */
int et_html_group_spread(const et_inspector *insp, size_t block, const uint32_t *group_of_event,
                         size_t n_groups, et_html_spread *out, et_error *err);

#endif
