/*
 * trace.h - the timeline of an inspector as Chrome Trace Event JSON
 * (users-and-peers §5.1), which Perfetto UI and chrome://tracing open.
 *
 * Layout: one process ("pid") per event block — or, with runs_apart, one
 * per run of each block — named after the block; in it one thread
 * ("tid") per track: "framework" (Method::init, Program::load_method,
 * Method::execute), "operators" (OPERATOR_CALL, native_call_*,
 * DELEGATE_CALL and other named events) and one per delegate backend
 * ("delegate: XnnpackBackend", or "delegate" when the backend is unknown)
 * for delegated events.  Every profiled sample is a complete event ("ph":
 * "X") with "ts" and "dur" in microseconds; slices nest on their track
 * (OPERATOR_CALL around its native_call_*).  Allocation events become
 * counter events ("ph": "C", one series per allocator: cumulative bytes,
 * never decreasing) placed at the time of the profiling event they follow.
 * "args" carry the instruction id, the delegate debug identifier, the
 * debug handles, op types and module (with an ETRecord), and the parsed
 * delegate metadata (through the metadata callback).
 *
 * Times: a start tick converts with the source time scale (ns, us, ms, s;
 * cycles need cycles_hz, else an error); a duration is the event's sample
 * converted from the target time scale.  A delegated event whose start is
 * 0 (backends that log durations only, e.g. QNN) is laid out inside its
 * DELEGATE_CALL, one after another, with "args.synthetic_start": true.
 */
#ifndef ET_TRACE_H
#define ET_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "model.h"

/* Parsed delegate metadata of event `event` of block `block` in its run
 * `run` (0-based within the block), as a JSON value text (object, array,
 * string ...) in a malloc'd string the writer frees, or NULL for none. */
typedef char *(*et_trace_metadata_fn)(void *ud, size_t block, size_t event, size_t run);

typedef struct et_trace_options {
    double cycles_hz;           /* ticks per second when the source time scale is
                                   cycles; 0: none (cycles are then an error) */
    bool runs_apart;            /* one process per run instead of per block */
    const char *runs;           /* which runs, as RunData indices of the dump:
                                   "0-3,7"; NULL or "" for all */
    double window_start_us;     /* keep slices that overlap [start, end) (us, on
                                   the trace's time axis); end <= start: no window */
    double window_end_us;
    et_trace_metadata_fn metadata; /* optional */
    void *metadata_ud;
} et_trace_options;

/* Defaults: all runs, no window, one process per block, no cycles_hz. */
void et_trace_options_init(et_trace_options *o);

/* Write the trace of `insp` to `out`.  Returns 0, or -1 with `err` set:
 *   ET_ERR_USAGE  cycles without cycles_hz ("the source time scale is
 *                 cycles: give the clock frequency (cycles_hz /
 *                 --cycles_hz) to place events in time"); a malformed run
 *                 selection ("runs: expected a list like 0-3,7, found ...");
 *                 a legacy profiler dump (no timestamps per run);
 *   ET_ERR_IO     a write failed;
 *   ET_ERR_NOMEM  out of memory. */
int et_trace_write(const et_inspector *insp, const et_trace_options *o, FILE *out,
                   et_error *err);

#endif
