/*
 * model.h - the Inspector's event model: EventBlocks of Events with PerfData
 * (spec §3 and §4), built from an ETDump in one pass.
 *
 * How a dump becomes blocks (spec §3.1-§3.5):
 *  - each RunData's events are collated into InstructionEvents keyed by
 *    (instruction_id, chain_index, delegate_debug_id_int, delegate_debug_id_str);
 *  - every profile event of an InstructionEvent gives one EventSignature
 *    (a debug-only InstructionEvent gives one), in first-seen order, a later
 *    duplicate replacing an earlier one;
 *  - runs with equal (name, EventSignatures, bundled_input_index) form one
 *    EventBlock; each Event of a block has one sample per run.
 *
 * Differences from the reference (docs/differences.md):
 *  - allocation events do not fail the load: they and the allocators are
 *    kept per block and per run, outside the profiling events;
 *  - repeated runs whose debug data differ are accepted (one warning); the
 *    first run's entries are the event's debug_data, every run's are kept;
 *  - a 32-bit clock wrap-around gives the true modular difference
 *    (2^32 - start + end); for delegated events the end time is unwrapped
 *    (end + 2^32) before conversion instead of applying the rule to
 *    converted values;
 *  - an Event table with no member set is skipped with a warning instead
 *    of failing the load;
 *  - reference outputs come from a BundledProgram (options
 *    .bundled_program_path) and go only to blocks whose bundled_input_index
 *    names a test case: -1 means none, where the reference (§5.6 step 4)
 *    indexes its list with -1 and gives every block the last test case.
 *
 * Memory: an et_inspector owns everything below it; events refer to names
 * and metadata bytes inside the mapped ETDump (no copies), but for the
 * decimal text of an integer delegate id, which the inspector holds.
 */
#ifndef ET_MODEL_H
#define ET_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/bundled.h"
#include "base/error.h"
#include "format/etdump.h"
#include "format/etrecord.h"
#include "format/graph.h"
#include "format/legacy.h"
#include "files/mapfile.h"
#include "base/timescale.h"
#include "base/warnings.h"

/* Statistics of one event over the runs of its block (spec §4); every
 * value is in the inspector's target time scale (or what the delegate
 * time-scale converter returns, for delegated events). */
typedef struct et_perf_data {
    size_t n;      /* samples, one per run of the block (>= 1) */
    double *raw;   /* n durations in run order */
    double p10, p50, p90, avg, min, max;
} et_perf_data;

/* Kind of a delegate debug identifier. */
typedef enum { ET_DID_NONE = 0, ET_DID_INT, ET_DID_STR } et_did_kind;

/* One Event of an EventBlock (spec §1.5).  Fields are ordered by size, so
 * that an event costs no padding (192 bytes): a dump of many one-event
 * blocks pays that per block (docs/performance.md, "Memory"). */
typedef struct et_event {
    et_str name_str;               /* the name (spec §3.6): for an integer delegate
                                      id its decimal text, owned by the inspector */
    et_perf_data perf_data;
    uint64_t *start_time;          /* perf_data.n raw start ticks (unconverted), or NULL */
    et_str delegate_debug_id_str;  /* when kind == ET_DID_STR */
    et_str *raw_delegate_debug_metadatas; /* one per run ("" when absent), or NULL
                                             when every run's metadata is empty */
    int64_t num_outputs;           /* from the ETRecord's num-outs map; 1 by default */
    /* debug events (raw Value positions in the ETDump), per run */
    uint32_t *debug_first;         /* per run: first index into the block's value pool */
    uint32_t *debug_count;         /* per run: number of entries */
    /* ETRecord linkage (link.h; spec §3.10, §5.6); all unset without one */
    const int64_t *debug_handles;  /* owned by the ETRecord */
    const char *delegate_backend_name; /* NULL: None; owned by the ETRecord */
    int32_t instruction_id;        /* raw: -1 when the writer left it unset */
    et_did_kind delegate_debug_identifier_kind;
    int32_t delegate_debug_id_int; /* when kind == ET_DID_INT */
    int32_t chain_index;           /* legacy profiler events: their chain_idx
                                      (-1: outside any chain) */
    uint32_t n_debug_handles;
    uint32_t node_first, node_count; /* the event's entries of insp->link_nodes */
    /* where it came from */
    uint32_t profile_event_pos_first_run; /* ProfileEvent table of run 0 (0 if none) */
    bool has_perf_data;            /* false for debug-only events */
    bool is_delegated_op;
    bool has_chain_index;          /* legacy profiler events only */
    bool has_debug_data;
    bool has_debug_handles;        /* false: the reference's None */
    bool debug_handles_is_list;    /* a list (delegate calls, delegated events),
                                      else a single int */
} et_event;

/* The name of an event (spec §3.6). */
static inline et_str et_event_name(const et_event *e)
{
    return e->name_str;
}

/* One allocation event (spec §2.4): allocator_id names allocators[id-1]. */
typedef struct et_allocation {
    int32_t allocator_id;
    uint64_t allocation_size; /* bytes */
} et_allocation;

/* One EventBlock (spec §1.4, §3.5).  Fields are ordered by size (136
 * bytes, no padding). */
typedef struct et_block {
    et_str name;
    size_t n_runs;
    uint32_t *runs;                /* the RunData indices merged here, in order */
    size_t n_events;
    et_event *events;
    /* values: debug entries and run outputs, as Value table positions */
    uint32_t *value_pool;
    uint32_t *run_output_first;    /* per run */
    uint32_t *run_output_count;    /* per run */
    size_t run_output_run;         /* the run whose outputs are block.run_output:
                                      the first that logged any (0 when none
                                      did), as the reference keeps the first
                                      non-empty list (spec §3.3) */
    /* memory (not in the reference) */
    size_t n_allocators;
    et_str *allocators;            /* names, from the block's first run */
    et_allocation *allocations;    /* pool */
    uint32_t *allocation_first;    /* per run */
    uint32_t *allocation_count;    /* per run */
    /* ETRecord linkage (link.h) */
    const char *method;            /* the record's method linked to, or NULL */
    const et_graph *graph;         /* its reference graph (owned by the record),
                                      or NULL: node indices of link_nodes refer
                                      to its nodes */
    int32_t bundled_input_index;   /* -1 when the runs carried none */
    /* BundledProgram (bundled.h): the test case of suite insp->bundled_suite
     * whose expected outputs are the block's reference output - the one
     * its bundled_input_index names - or -1: none (no BundledProgram,
     * bundled_input_index -1, or an index that names no test case) */
    int32_t reference_case;
} et_block;

/* Called for each timestamp of a delegated profile event (spec §3.8):
 * `name` is the event's name (the delegate identifier as text), `ticks` a
 * raw start or end time.  Returns 0 with *out set to the time in target
 * units, or -1 to fall back to the default conversion (ticks / factor); the
 * callee reports its own error (e.g. a Lua warning naming the event). */
typedef int (*et_time_converter)(void *ud, const char *name, size_t name_len, uint64_t ticks,
                                 double *out);

typedef struct et_inspector_options {
    const char *etdump_path;          /* a file to map, or NULL ... */
    const uint8_t *etdump_data;       /* ... bytes owned by the caller */
    size_t etdump_size;
    /* or a legacy profiler dump (spec §9) instead of an ETDump: its ticks
     * are in source_time_scale (ns, us, ms or cycles); times come out in ms,
     * or cycles for cycles, as the legacy tool gives them */
    const char *profile_results_path;
    const uint8_t *profile_results_data;
    size_t profile_results_size;
    const char *debug_buffer_path;    /* optional */
    et_time_scale source_time_scale;  /* default ET_TS_NS */
    et_time_scale target_time_scale;  /* default ET_TS_MS */
    et_time_converter converter;      /* optional delegate time-scale converter */
    void *converter_ud;
    /* optional ETRecord (spec §5, link.h): a path, or an open record that
     * the caller keeps open until the inspector is freed (not both) */
    const char *etrecord_path;
    uint64_t etrecord_json_budget;    /* for etrecord_path: et_etrecord_options.json_budget
                                         (0: the default) */
    et_etrecord *etrecord;
    const char *etrecord_method;      /* et_link_options.method */
    const char *reference_graph_name; /* et_link_options.reference_graph_name */
    bool enable_module_hierarchy;     /* spec §5.7 */
    /* optional BundledProgram (.bpte, identifier BP08): its test sets'
     * expected outputs become the blocks' reference outputs, chosen by
     * bundled_input_index (spec §7.6; bundled.h; et_block.reference_case).
     * The suite used is the one for method "forward", else the only one;
     * a block whose index is -1 gets none, one whose index names no test
     * case gets none and a warning */
    const char *bundled_program_path;
    /* the test case (0-based) for blocks whose runs carry no
     * bundled_input_index (ETDumpGen never writes it); -1 (the default):
     * such blocks get no reference output */
    int32_t bundled_test_case;
    /* optional ExecuTorch program (.pte, identifier ET12; proglink.h):
     * each block's method and each event's instruction (its operator or
     * delegate backend) */
    const char *program_path;
    /* keep the pages of a mapped ETDump resident once read (no
     * MADV_DONTNEED behind the verification and the model): for a caller
     * that reads the raw runs again (the Lua binding: run:events(),
     * insp:run_columns()), which would otherwise fault the whole file in a
     * second time.  Default false: the command line's one-shot outputs
     * give them back (docs/performance.md, "Memory"). */
    bool keep_pages;
    /* the threads to build with (verify, collate, fill, statistics): 0
     * means et_threads().  A caller that keeps other threads busy beside
     * the build (the command line writing the last dump's Parquet files
     * while it builds the next: et_parquet_give) gives the build the
     * rest.  The model is the same whatever the number. */
    unsigned threads;
    /* build the model without the perf data statistics (p10 ... max of
     * every event) and, unless a converter is given, without the samples
     * they are computed from (perf_data.raw, start_time); et_inspector_stats
     * fills and computes them when something first needs them.  For a
     * caller that may only read the raw runs (the Lua binding).  Default
     * false: done while building (the command line, which always prints
     * them). */
    bool defer_stats;
    /* with defer_stats: verify the whole ETDump at open (its errors are
     * raised there, as always), but build the event blocks only when
     * something first needs them (et_inspector_ready): a caller that reads
     * only the raw runs never pays for the model.  The model is built at
     * open all the same when its build calls the host back (a converter),
     * links other inputs (an ETRecord, a BundledProgram) or may fail (a
     * profile event that ends before it starts: the build decides whether
     * that is a 32-bit wrap-around or an error).  The model's warnings are
     * then found when it is built.  Default false. */
    bool defer_model;
} et_inspector_options;

/* Default options: ns -> ms, no converter, no debug buffer. */
void et_inspector_options_init(et_inspector_options *o);

/* What building the model saw of one RunData's profile events' ticks -
 * every raw profile event, repeated ones included - for the trace's time
 * axis (trace.c: origin and 32-bit wrap-arounds, without reading the dump
 * again).  "Delegated": a delegate_debug_id_int other than -1 or a
 * non-empty delegate_debug_id_str. */
typedef struct et_run_ticks {
    uint64_t lo_low;   /* least start below 2^31 of a non-delegated event (UINT64_MAX: none) */
    uint64_t lo_high;  /* least start from 2^31 on of one (UINT64_MAX: none) */
    uint64_t dlo;      /* least non-zero start of a delegated event (has_dlo) */
    bool has_lo;       /* a non-delegated profile event */
    bool has_dlo;
    bool wrapped;      /* a non-delegated event ends before it starts */
} et_run_ticks;

/* The model a reader consumes.  The inspector's own bookkeeping (what
 * defer_model / defer_stats left pending, the sample arena, whether it owns
 * its ETRecord) is private (model_int.h); ask it with the functions below. */
typedef struct et_inspector {
    et_mapped_file etdump_file;   /* when opened from a path */
    et_mapped_file debug_buffer;  /* size 0 when none */
    const char *etdump_label;     /* for messages: the path or "<etdump_data>" */
    et_etdump dump;               /* empty for a legacy profiler dump */
    et_legacy *legacy;            /* a legacy profiler dump, or NULL */
    et_time_scale source_time_scale, target_time_scale;
    double scale_factor;          /* factor(source) / factor(target) */
    size_t n_blocks;
    et_block *blocks;
    et_warnings warnings;         /* one sentence each, in the order found (the
                                     build's, the linkage's, a legacy dump's) */
    et_run_ticks *run_ticks;      /* per RunData; NULL for a legacy dump */
    bool ticks_over_32;           /* a profile event's start or end tick is >= 2^32 */
    /* ETRecord linkage (link.h) */
    et_etrecord *etrecord;        /* NULL without one */
    bool enable_module_hierarchy;
    char *reference_graph_name;   /* as given, or ET_EDGE_GRAPH_NAME */
    char *etrecord_method;        /* options.etrecord_method (copied), or NULL */
    size_t n_link_nodes;
    uint32_t *link_nodes;         /* node index | ET_LINK_NODE_* bits */
    /* BundledProgram (bundled.h) */
    struct et_bundled *bundled;   /* NULL without one */
    int32_t bundled_test_case;    /* options.bundled_test_case */
    int32_t bundled_suite;        /* the method test suite reference outputs come
                                     from ("forward", else the only one:
                                     et_bundled_reference_suite), or -1 */
    /* ExecuTorch program (program.h, proglink.h) */
    struct et_program *program;   /* NULL without one */
    int32_t *program_method;      /* per block: the program's method it runs, or -1;
                                     NULL until linked */
} et_inspector;

/* Open and build an inspector (spec §1.3, steps 1, 4-7), from an ETDump
 * or from a legacy profiler dump (spec §9: one EventBlock per block name,
 * one sample per iteration; see legacy.h).  Errors, with `err` set and NULL
 * returned:
 *   ET_ERR_USAGE  cycles mixed with a time unit; not exactly one of
 *                 etdump_path / etdump_data / profile_results_path /
 *                 profile_results_data given;
 *   ET_ERR_IO     a file cannot be opened or mapped (message names it);
 *   ET_ERR_FORMAT the ETDump is malformed (message names the file, field
 *                 path and byte offset), or the legacy dump is (see
 *                 et_legacy_read);
 *   ET_ERR_VALUE  a profile event's end precedes its start and is not a
 *                 32-bit wrap-around;
 *   (ETRecord)    the errors of et_etrecord_open (a path that is not an
 *                 ETRecord) and of et_link_etrecord; an ETRecord with a
 *                 legacy profiler dump is ET_ERR_USAGE.  As in the
 *                 reference, the record is opened before the ETDump is;
 *   (BundledProgram) the errors of et_bundled_open_path (ET_ERR_IO, or
 *                 ET_ERR_FORMAT naming the file, field path and byte
 *                 offset); opened after the ETDump is verified; with a
 *                 legacy profiler dump ET_ERR_USAGE;
 *   ET_ERR_NOMEM  out of memory. */
et_inspector *et_inspector_open(const et_inspector_options *o, et_error *err);

/* Complete what an inspector opened with defer_model or defer_stats left
 * for later, unless it is already done: build the event blocks (as
 * et_inspector_open does: passes 1 and 2, in parallel; its warnings are
 * appended to insp->warnings), fill the samples (perf_data.raw in target
 * units, start_time in ticks) and compute the perf data statistics
 * (et_perf_data p10, p50, p90, avg, min, max; spec §4) of every event,
 * and build again the samples et_inspector_drop_samples gave back.
 * Every reader of the model calls it first (in the Lua binding:
 * et_lua_insp); the raw runs (et_etdump_run, et_event_cursor) do not need
 * it.  Returns 0, or -1 with ET_ERR_NOMEM: the model stays pending (no
 * block is there, the warnings found are taken back) or the statistics do
 * (the samples are filled); it may be called again. */
int et_inspector_ready(et_inspector *insp, et_error *err);

/* Build the event blocks an inspector opened with defer_model left for
 * later, as et_inspector_ready does, but leave their samples and perf data
 * statistics for et_inspector_ready (as defer_stats does: stats and samples
 * pending afterwards); nothing when the blocks are built already.  For a
 * reader of the blocks' structure alone (which block holds which run:
 * et_block.runs, the events' signatures), such as the raw-event columns
 * (table/fromrun.h).  Returns 0, or -1 with ET_ERR_NOMEM as
 * et_inspector_ready (the model stays pending). */
int et_inspector_ready_blocks(et_inspector *insp, et_error *err);

/* Whether the event blocks are still to be built (defer_model): then
 * n_blocks is 0 and blocks NULL until et_inspector_ready. */
bool et_inspector_model_pending(const et_inspector *insp);

/* Whether the perf data statistics are still to be computed (defer_stats,
 * or a pending model) by et_inspector_ready. */
bool et_inspector_stats_pending(const et_inspector *insp);

/* Whether the samples (perf_data.raw, start_time) are still to be filled
 * by et_inspector_ready (defer_stats without a converter, model built). */
bool et_inspector_samples_pending(const et_inspector *insp);

/* Give back the memory of the samples (every event's perf_data.raw and
 * start_time: 16 bytes per sample) of a model whose statistics are
 * computed, for a caller that holds many models at once and reads their
 * samples rarely (the Lua binding's open_many frames: docs/performance.md,
 * "The fleet rows with the samples given back").  The statistics, the
 * events and everything else of the model stay; perf_data.raw and start_time read NULL until et_inspector_ready
 * (or et_inspector_ready_samples) builds the samples again from the dump -
 * the same build, so the same values, bit for bit.  Refused (false,
 * nothing changed) when the samples cannot be built again as they were: a
 * legacy profiler dump, a model built with a delegate time-scale converter
 * (a host callback), or a model or statistics still pending; also false
 * when they are dropped already.  True when dropped. */
bool et_inspector_drop_samples(et_inspector *insp);

/* Whether the samples are given back (et_inspector_drop_samples) and not
 * built again yet: a reader of perf_data.raw or start_time calls
 * et_inspector_ready (or et_inspector_ready_samples) first. */
bool et_inspector_samples_dropped(const et_inspector *insp);

/* Build again the samples et_inspector_drop_samples gave back (a build of
 * the dump's model whose samples are kept, the rest freed: the time of
 * opening the dump, and its model's memory for that time); nothing when
 * they are there.  Every event's perf_data.raw and start_time point into
 * the new samples afterwards (a pointer taken before the drop is stale).
 * Runs no host code (no converter: see et_inspector_drop_samples).
 * Returns 0, or -1 with `err` set and the samples still dropped (it may
 * be called again): ET_ERR_NOMEM, or the dump's build failing where it
 * passed before (ET_ERR_FORMAT, ET_ETDUMP_CHANGED: the file was rewritten
 * under its mapping; ET_ERR_VALUE: a model of another shape). */
int et_inspector_ready_samples(et_inspector *insp, et_error *err);

/* Whether the inspector frees insp->etrecord (it opened it from
 * options.etrecord_path), unless et_inspector_disown_etrecord was called. */
bool et_inspector_owns_etrecord(const et_inspector *insp);

/* Hand the ETRecord the inspector opened to the caller: the inspector keeps
 * reading insp->etrecord but no longer frees it, so the caller must keep it
 * open until the inspector is freed, then free it (et_etrecord_free).  No
 * effect on a record the caller gave (options.etrecord). */
void et_inspector_disown_etrecord(et_inspector *insp);

/* The test case whose expected outputs are block `blk`'s reference output
 * (blk->reference_case of suite insp->bundled_suite): returns true with
 * `c` filled (read its values with et_bundled_value(insp->bundled,
 * &c->expected_outputs, i, ...)), or false with `c` emptied when the block
 * has none. */
bool et_block_reference_case(const et_inspector *insp, const et_block *blk,
                             et_bundled_case *c);

/* Free an inspector and everything it owns; NULL is accepted. */
void et_inspector_free(et_inspector *insp);

#endif
