/*
 * model_int.h - what the Inspector's own files share and no reader of the
 * model sees (in the manner of SQLite's *Int.h headers): the inspector's
 * bookkeeping around the public et_inspector, and the builder's entry
 * points that the Inspector's public life (inspector.c) calls.
 *
 *   inspector.c  options, open, ready, free, the reference case of a block
 *   builder.c    workers, merge, pass 2, statistics, the build, the
 *                verification of a deferred model, legacy dump -> blocks
 *   pass1.c      pass 1: a worker's runs verified, collated, grouped
 *   builder_int.h  the builder's types and small helpers (builder.c, pass1.c)
 */
#ifndef ET_MODEL_INT_H
#define ET_MODEL_INT_H

#include "model/model.h"

/* An inspector as the model's files see it: the public et_inspector first,
 * so that a pointer to one is a pointer to the other (et_insp_int), then
 * its bookkeeping. */
typedef struct et_inspector_int {
    et_inspector pub;
    bool keep_pages;              /* et_inspector_options.keep_pages */
    unsigned threads;             /* et_inspector_options.threads (0: et_threads()) */
    bool model_pending;           /* defer_model: the event blocks are not built yet
                                   * (n_blocks 0, blocks NULL until et_inspector_ready) */
    bool model_deferred;          /* defer_model took effect: open gave the warnings
                                   * about the dump itself (threads, trailing bytes) */
    bool stats_pending;           /* defer_stats: perf data statistics not computed yet */
    struct builder *samples_pending; /* defer_stats: the builder that fills the
                                      * samples with the statistics, or NULL */
    /* the samples (perf_data.raw, start_time) of every ETDump event, one
     * arena; NULL for a legacy dump, whose events own theirs */
    void *samples;
    size_t samples_size;
    bool samples_mapped;          /* mmap()ed (huge pages), else malloc()ed */
    /* et_inspector_drop_samples: the statistics stay, the samples were given
     * back (every perf_data.raw and start_time NULL); et_inspector_ready
     * builds them again from the dump */
    bool samples_dropped;
    bool samples_rebuildable;     /* an ETDump without a converter: a second
                                   * build gives the same samples, bit for bit */
    /* an ETDump's blocks' events and per-run arrays, one allocation each for
     * all blocks (a dump of many small blocks pays no allocation per
     * block); NULL for a legacy dump, whose blocks own theirs */
    et_event *event_pool;
    size_t n_event_pool;          /* its events (every block's, one for a block of none) */
    char *id_texts;               /* the names of its events with an integer delegate
                                   * id: 12 bytes each (et_event.name_str) */
    uint32_t *run_pool;
    bool owns_etrecord;           /* opened from options.etrecord_path, not disowned */
} et_inspector_int;

/* The private view of an inspector (every et_inspector is allocated as an
 * et_inspector_int by et_inspector_open). */
static inline et_inspector_int *et_insp_int(et_inspector *insp)
{
    return (et_inspector_int *)insp;
}

static inline const et_inspector_int *et_insp_cint(const et_inspector *insp)
{
    return (const et_inspector_int *)insp;
}

/* The builder's entry points (builder.c), for inspector.c.  Each
 * returns 0, or -1 with `err` set (ET_ERR_NOMEM unless said otherwise). */

/* Build the event blocks of insp->dump (passes 1 and 2, in parallel; with
 * o->converter pass 2 runs on the calling thread), their statistics unless
 * o->defer_stats, and append the build's warnings to insp->warnings.  Only
 * o->converter, o->converter_ud and o->defer_stats are read.  Errors: the
 * dump's first in run order (ET_ERR_FORMAT, ET_ERR_VALUE for a profile
 * event that ends before it starts), ET_ERR_NOMEM.  On failure what was
 * built stays for et_model_free. */
int et_model_build(et_inspector *insp, const et_inspector_options *o, et_error *err);

/* Open's part of a deferred model: every run of insp->dump verified (its
 * first error in run order, as et_model_build reports it), the dump's event
 * counters summed, the warning about ETINSPECT_THREADS given.  *ends_early:
 * some profile event ends before it starts, so the caller must build at
 * open (only the build tells a wrap-around from an error). */
int et_model_verify_runs(et_inspector *insp, bool *ends_early, et_error *err);

/* Append the warning about the bytes after a size-prefixed dump, if any.
 * Returns 0, or -1 out of memory (no error set). */
int et_model_warn_trailing(et_inspector *insp);

/* The blocks of the legacy profiler dump insp->legacy (spec §9), with
 * their samples and statistics. */
int et_model_from_legacy(et_inspector *insp, et_error *err);

/* Fill the samples defer_stats left pending, then compute every event's
 * statistics (on et_threads() threads). */
int et_model_stats(et_inspector *insp, et_error *err);

/* Fill the samples defer_stats left pending (the statistics stay pending):
 * for et_inspector_ready_samples, which wants the samples alone. */
void et_model_fill_samples(et_inspector *insp);

/* Free the model: the blocks, the sample arena, run_ticks and a builder
 * kept for the samples; the inspector is left with no block (n_blocks 0). */
void et_model_free(et_inspector *insp);

#endif
