/*
 * trace.h - the timeline of an inspector as Chrome Trace Event JSON
 * (users-and-peers §5.1), which Perfetto UI and chrome://tracing open.
 * docs/trace.md describes the output for users; this is the contract.
 *
 * Document: {"displayTimeUnit": "ms", "traceEvents": [...], "otherData":
 * {...}}, one event per line.  otherData names the dump (file name only),
 * the time scales, cycles_hz, the raw tick of ts 0, the options and
 * counts (slices, counter samples, synthetic starts, clamped, overlap and
 * dropped slices).
 *
 * Layout: one process ("pid") per event block, pid = block index + 1 -
 * or, with runs_apart, one per run, pid = RunData index + 1 - named after
 * the block ("process_name"; "NAME (run R)" with runs_apart) and sorted by
 * pid ("process_sort_index").  In it one thread ("tid") per track, named
 * ("thread_name") and sorted ("thread_sort_index") in this order:
 * "framework" (non-delegated events named Method::* or Program::*:
 * Method::init, Program::load_method, Method::execute), "operators" (every
 * other non-delegated event: OPERATOR_CALL, native_call_*, DELEGATE_CALL,
 * JF_CALL ...), then per delegate backend of the block, in first-seen
 * order, "delegate: NAME" (the ETRecord's delegate_backend_name; "delegate"
 * when unknown) for delegated events, and "delegate: NAME (synthetic
 * starts)" for those given a synthetic start (below).  tid = pid * 1000 +
 * the track's sort index.  Process and thread names are written just
 * before their first event, so a window leaves out empty ones.
 *
 * Slices: every profiled sample (event, run) is a complete event ("ph":
 * "X", "cat" "framework", "operator" or "delegate") with "ts" and "dur" in
 * microseconds, rounded to the nanosecond (at most 3 decimals, trailing
 * zeros dropped: Perfetto's resolution).  ts 0 is the earliest start of a
 * non-delegated event in the whole dump (whatever the selection).  Slices
 * nest on their track (OPERATOR_CALL around its native_call_*): one that
 * ends at most 1 ns after the slice it starts in is clamped to it
 * (rounding); one that overlaps more goes to an overlap track (" (overlap
 * 1)" .. " (overlap 3)" after the track's name), as Perfetto would; beyond
 * three, it is clamped ("args.clamped": true) or, if it cannot be, dropped
 * (counted in otherData).
 *
 * Times: a start tick converts with the source time scale (ns, us, ms, s;
 * cycles need cycles_hz, else an error); a duration is the event's sample
 * (perf_data.raw: the target time scale, or what the delegate time-scale
 * converter returned) converted from the target time scale.  A 32-bit clock
 * (every tick of the dump below 2^32) that wraps around is unwrapped: inside
 * a run where a non-delegated event ends before it starts, and between runs
 * when a run starts more than 2^31 ticks before the previous one.
 *
 * Synthetic starts: a delegated event whose start tick is 0 (backends that
 * log durations only, e.g. QNN), or whose start lies outside its
 * DELEGATE_CALL (the same run's non-delegated DELEGATE_CALL event with the
 * same instruction id), is laid out inside that DELEGATE_CALL - or, without
 * one, from the run's first start - one after another in the block's event
 * order, with "args.synthetic_start": true; a duration that does not fit
 * is cut at the DELEGATE_CALL's end ("args.logged_dur_us" keeps it).
 *
 * args: "run" (the RunData index), "instruction_id" (unless -1),
 * "delegate_debug_identifier" (delegated events), and with an ETRecord
 * "debug_handles", "op_types" and "module" (the innermost nn_module_stack
 * path of the first linked node that has one); "delegate_metadata" is the
 * metadata callback's JSON, embedded as it is.
 *
 * Allocation events become counter events ("ph": "C", "name": "allocated
 * bytes", no tid) of their process: one series per allocator of the block
 * (its name; "allocator ID" when unnamed or unknown; " (ID)" appended to a
 * repeated name), every series in every sample, each the cumulative bytes
 * allocated in the process so far - never decreasing.  The dump does not
 * time allocations: each is placed at the end of the non-delegated profile
 * event logged before it in the run (the earliest time it can have
 * happened), or at the run's first start; allocations at one time make one
 * sample.
 */
#ifndef ET_TRACE_H
#define ET_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "model/model.h"

/* Parsed delegate metadata of event `event` of block `block` in its run
 * `run` (0-based within the block), as a JSON value text (object, array,
 * string ...) in a malloc'd string the writer frees, or NULL for none.
 * Called only for delegated events; the text is embedded without being
 * checked, so it must be valid JSON. */
typedef char *(*et_trace_metadata_fn)(void *ud, size_t block, size_t event, size_t run);

/* The trace's format: Chrome Trace Event JSON, or Perfetto's native
 * TrackEvent protobuf (perfetto.h; docs/trace.md). */
typedef enum et_trace_format { ET_TRACE_JSON = 0, ET_TRACE_PERFETTO = 1 } et_trace_format;

typedef struct et_trace_options {
    et_trace_format format;     /* default ET_TRACE_JSON */
    double cycles_hz;           /* ticks per second when the source time scale is
                                   cycles; 0: none (cycles are then an error);
                                   ignored for other time scales */
    bool runs_apart;            /* one process per run instead of per block */
    const char *runs;           /* which runs, as RunData indices of the dump:
                                   "0-3,7"; NULL or "" for all */
    double window_start_us;     /* keep slices that overlap [start, end) and
                                   counter samples inside it (us, on the trace's
                                   time axis); end <= start: no window */
    double window_end_us;
    et_trace_metadata_fn metadata; /* optional */
    void *metadata_ud;
    size_t *n_slices;           /* optional: receives the number of slices
                                   written (those in the window), so that a
                                   window that selects nothing can say so */
} et_trace_options;

/* Defaults: all runs, no window, one process per block, no cycles_hz. */
void et_trace_options_init(et_trace_options *o);

/* The format a trace path asks for: ET_TRACE_PERFETTO when `path` ends
 * in ".pftrace" or ".perfetto-trace" (any case), else ET_TRACE_JSON. */
et_trace_format et_trace_format_of_path(const char *path);

/* Parse a format name, "json" or "perfetto", into *fmt; NULL keeps *fmt.
 * Returns 0, or -1 with `err` set (ET_ERR_USAGE): "trace format: expected
 * json or perfetto, found 'NAME'". */
int et_trace_parse_format(const char *name, et_trace_format *fmt, et_error *err);

/* Parse a run selection `spec` ("0-3,7": RunData indices and inclusive
 * ranges, separated by commas; blanks around numbers are allowed) for a dump
 * of `n_runs` runs into `selected` (n_runs bytes, each set to 1 when
 * selected, 0 otherwise).  NULL or "" selects every run.  Returns 0, or -1
 * with `err` set (ET_ERR_USAGE): "runs: expected a list like 0-3,7, found
 * 'SPEC'" (syntax, a range whose end is below its start), "runs: run N is
 * not in the dump (its runs are 0-M)". */
int et_trace_parse_runs(const char *spec, size_t n_runs, unsigned char *selected, et_error *err);

/* Write the trace of `insp` to `out` (not closed, not flushed).  With
 * more than one thread (et_threads()), `out` is written by a helper
 * thread, one megabyte at a time, while the next megabyte is formatted:
 * `out` must be a plain stdio stream (no fopencookie() callbacks into a
 * host); the metadata callback always runs on the calling thread.  The
 * bytes are the same either way.  Returns 0, or -1 with `err` set:
 *   ET_ERR_USAGE  cycles without cycles_hz ("the source time scale is
 *                 cycles: give the clock frequency (cycles_hz /
 *                 --cycles_hz) to place events in time"), or a cycles_hz
 *                 that is not a positive finite number; a malformed run
 *                 selection (see et_trace_parse_runs); a legacy profiler
 *                 dump (no timestamps per run);
 *   ET_ERR_IO     a write failed;
 *   ET_ERR_NOMEM  out of memory.
 * Part of the document may have been written when it fails.
 *
 * With format ET_TRACE_PERFETTO the same slices, tracks and counters are
 * written as Perfetto TracePackets instead (perfetto.h): a root track
 * named after the dump, one track per process above under it, the
 * threads' tracks under those; slices as SLICE_BEGIN / SLICE_END pairs
 * with the args above as debug annotations (ts and dur in ns); a flow
 * from each DELEGATE_CALL slice to each delegated slice it ran (both
 * written); one counter track per allocator series ("allocated bytes:
 * NAME", UNIT_SIZE_BYTES); with a cycles source time scale, a "cycles"
 * counter per process (unit_name "cycles": the cycles since ts 0 at each
 * run's first start and last end).  No otherData. */
int et_trace_write(const et_inspector *insp, const et_trace_options *o, FILE *out,
                   et_error *err);

#endif
