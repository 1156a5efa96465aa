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

#endif
