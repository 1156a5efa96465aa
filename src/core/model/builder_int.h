/*
 * builder_int.h - the builder's types and small helpers, shared by its two
 * files and seen by no one else (see model_int.h for the layout):
 * builder.c (workers, merge, pass 2, statistics, the build) and pass1.c
 * (pass 1 and the verification alone).  The helpers are static inline so
 * that each file keeps its own inlined copy on its hot paths.
 */
#ifndef ET_BUILDER_INT_H
#define ET_BUILDER_INT_H

#include "model/model_int.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small helpers */

/* Grow *p (elements of `size` bytes, capacity *cap) to hold `need`: the
 * capacity doubles from `need` itself, so an array that stays small (a
 * group of one run: a dump of many one-run blocks) costs what it holds. */
static inline int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : need;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / size)
        return -1;
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}
#define GROW(ptr, cap, need) grow((void **)&(ptr), &(cap), (need), sizeof *(ptr))

static inline uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
    /* 8 bytes at a time, multiply-xorshift mixing; names are short */
    const uint8_t *p = data;
    const uint64_t m = UINT64_C(0x9e3779b97f4a7c15);
    h ^= n * m;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)p[i] << (8 * i);
    h = (h ^ w) * m;
    return h ^ (h >> 32);
}

static inline uint64_t hash_u64(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    return h * UINT64_C(0xff51afd7ed558ccd);
}

static inline bool str_eq(et_str a, et_str b)
{
    if ((a.p == NULL) != (b.p == NULL) || a.n != b.n)
        return false;
    return a.n == 0 || memcmp(a.p, b.p, a.n) == 0;
}

/* ------------------------------------------------------------------ */
/* Signatures (spec §3.2-§3.3) */

/* A ProfileEventSignature or DebugEventSignature: name ("" when absent),
 * then instruction id, delegate int id and delegate str id with "unset"
 * (-1, -1, "" or absent) normalised to None. */
typedef struct sig_part {
    et_str name;      /* never NULL-p: absent is "" */
    bool has_instr;
    int32_t instr;
    bool has_did;
    int32_t did;
    et_str dstr;      /* p NULL = None */
} sig_part;

typedef struct esig {
    int32_t instr_raw; /* InstructionEventSignature's raw instruction id */
    bool has_p, has_d;
    sig_part p, d;
    uint64_t hash;
} esig;
static inline bool part_eq(const sig_part *a, const sig_part *b)
{
    /* integers first: they differ far more often than names do */
    return a->has_instr == b->has_instr && (!a->has_instr || a->instr == b->instr) &&
           a->has_did == b->has_did && (!a->has_did || a->did == b->did) &&
           str_eq(a->name, b->name) && str_eq(a->dstr, b->dstr);
}

/* Equality of EventSignatures, hash not considered. */
static inline bool esig_same(const esig *a, const esig *b)
{
    return a->instr_raw == b->instr_raw && a->has_p == b->has_p &&
           a->has_d == b->has_d && (!a->has_p || part_eq(&a->p, &b->p)) &&
           (!a->has_d || part_eq(&a->d, &b->d));
}

/* Open-addressing set of uint32 ids (stored +1; 0 = empty). */
typedef struct idtable {
    uint32_t *slots;
    size_t mask; /* capacity - 1 (power of two) */
    size_t used;
} idtable;

static inline int idtable_init(idtable *t, size_t cap)
{
    size_t n = 64;
    while (n < cap * 2)
        n *= 2;
    t->slots = calloc(n, sizeof *t->slots);
    t->mask = n - 1;
    t->used = 0;
    return t->slots ? 0 : -1;
}

/* Double the capacity of `t`, re-placing every id by hash_of(ctx, id). */
static inline int idtable_grow(idtable *t, uint64_t (*hash_of)(const void *, uint32_t), const void *ctx)
{
    idtable n;
    if (idtable_init(&n, t->mask + 1) != 0)
        return -1;
    for (size_t k = 0; k <= t->mask; k++)
        if (t->slots[k]) {
            size_t j = hash_of(ctx, t->slots[k] - 1) & n.mask;
            while (n.slots[j])
                j = (j + 1) & n.mask;
            n.slots[j] = t->slots[k];
        }
    n.used = t->used;
    free(t->slots);
    *t = n;
    return 0;
}

/* Interned EventSignatures: an id per distinct signature. */
typedef struct esig_set {
    esig *v;
    size_t n, cap;
    idtable tab;
} esig_set;

static inline uint64_t esig_hash_of(const void *set, uint32_t id)
{
    return ((const esig_set *)set)->v[id].hash;
}

/* Intern an EventSignature (its hash set); returns its id or -1 on out of
 * memory. */
static inline long intern_esig(esig_set *set, const esig *s)
{
    idtable *t = &set->tab;
    size_t i = s->hash & t->mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (!id)
            break;
        if (set->v[id - 1].hash == s->hash && esig_same(&set->v[id - 1], s))
            return id - 1;
        i = (i + 1) & t->mask;
    }
    if (set->n + 1 > UINT32_MAX / 2 || GROW(set->v, set->cap, set->n + 1) != 0)
        return -1;
    set->v[set->n] = *s;
    t->slots[i] = (uint32_t)(set->n + 1);
    set->n++;
    if (++t->used * 2 > t->mask && idtable_grow(t, esig_hash_of, set) != 0)
        return -1;
    return (long)(set->n - 1);
}

/* ------------------------------------------------------------------ */
/* How the model is built (docs/architecture.md, docs/performance.md):
 *
 *  pass 1, one worker per contiguous range of runs, in parallel: verify and
 *   decode a run, collate it (spec §3.1), find its EventSignatures (§3.2)
 *   and its group of runs (§3.3) - all in the worker's own tables - and
 *   note per (run, event) its ProfileEvent's start and end ticks, read in
 *   the same visit (run-major, 16 bytes); the pages of the mapped dump
 *   behind it are given back.  A run whose events
 *   repeat the previous run's one for one (same kinds, names and ids) takes
 *   the previous run's collation as it is.  Errors stop a worker; the first
 *   in run order is reported, exactly as one thread would report it.
 *  merge, in run order: the workers' signatures and groups become the
 *   builder's, so blocks come out in order of first appearance; each
 *   worker's groups become pgroups and its pass-1 tables are freed.  Every
 *   array of a block is allocated once at its final size (gdest), the
 *   samples of all blocks in one arena.
 *  pass 2, in parallel: each worker turns its runs' ticks into durations
 *   and start times in the event-major sample arrays (a transposition in
 *   tiles; the dump is not read again), with their debug entries, outputs
 *   and allocations, before the events and blocks exist.  With a delegate
 *   time-scale converter (a host callback) this pass runs on the calling
 *   thread, run by run, as the converter expects.  The pgroups go.
 *  events (init_events) from the signatures, which go; then the blocks,
 *   which take the destinations over; then the groups go.
 *  statistics, in parallel per event; then warnings and the debug data
 *   comparisons on the calling thread. */

typedef struct ievent {
    int32_t instr;
    uint64_t chain;
    bool chain_neg;
    int32_t did;
    et_str dstr; /* raw: absent (p NULL) and "" differ here */
    uint64_t hash;
    int32_t p_head, p_tail; /* profile events: indices into the run's events */
    int32_t d_head, d_tail; /* debug (non-output) events */
    uint32_t d_count;
    uint32_t pool_first;    /* where its debug list went in the group's pool (UINT32_MAX: not yet) */
} ievent;

/* An (EventSignature -> InstructionEvent, profile event) entry of one run. */
typedef struct rslot {
    uint32_t esig;
    uint32_t ie;
    int32_t pe; /* index of the profile event in the run, or -1 */
} rslot;

/* A ProfileEvent's start and end ticks, as pass 1 read them. */
typedef struct et_ticks {
    uint64_t start, end;
} et_ticks;

/* A ProfileEvent's delegate_debug_metadata, when not empty. */
typedef struct et_meta_at {
    uint32_t run, event; /* the group's run (local) and event */
    et_str m;
} et_meta_at;

/* One run of a worker's group: where pass 1 put what pass 2 reads. */
typedef struct lrun {
    size_t row;         /* its ProfileEvents' start and end ticks at tbase + row,
                           in slot order */
    uint32_t run;       /* its RunData index */
    uint32_t out_first, out_count;     /* its outputs, in the group's values */
    uint32_t alloc_first, alloc_count; /* its allocations, in the group's allocs */
} lrun;

/* What a group of runs may hold besides its runs' ticks: debug entries,
 * values, allocations, delegate metadata.  Most groups of a dump of many
 * blocks have none of them, so they live here, allocated on first need,
 * not in every lgroup. */
typedef struct lgroup_more {
    et_meta_at *meta; size_t n_meta, meta_cap; /* non-empty delegate_debug_metadata */
    uint32_t *dbg_first; size_t dbg_first_cap;
    uint32_t *dbg_count; size_t dbg_count_cap;
    /* values (run outputs) and allocations of its runs (lgroup.n_values,
     * lgroup.n_allocs of each) */
    uint32_t *values; size_t values_cap;
    et_allocation *allocs; size_t allocs_cap;
    size_t n_values, n_allocs;   /* lgroup.n_values and n_allocs, copied there by
                                    the merge (pgroup) */
} lgroup_more;

/* A group of runs with one RunSignature, as one worker saw it (its
 * ProfileEvents' ticks are the worker's: lrun.row into worker.ticks).
 * Small: a dump of one-run blocks has one per block. */
typedef struct lgroup {
    et_str name;
    int32_t bii;
    uint32_t seq_first, seq_len; /* the worker's EventSignature ids, in its seq pool */
    bool has_debug;              /* some EventSignature has a debug part */
    uint64_t hash;
    size_t n_runs;
    lrun *rr; size_t rr_cap;     /* per run, one array (a group of one run: one
                                    allocation) */
    lgroup_more *more;           /* NULL until the group needs it */
    size_t n_values, n_allocs;   /* in more->values, more->allocs */
    uint32_t first_run;          /* RunData index of its first run */
    uint32_t n_allocators;       /* its first run's allocators */
    uint64_t name_hash;          /* hash_bytes(0xabc, name): the merge hashes the
                                    name without reading it from the dump again */
    /* set by the merge */
    uint32_t global;             /* the block */
    uint32_t run_offset;         /* its first run's place among the block's runs */
    uint32_t value_shift, alloc_shift; /* its first value's and allocation's place
                                          in the block's pools */
} lgroup;

/* A worker's group as pass 2 reads it once merged: the lgroup cut to its
 * runs, side table and places in its block.  The merge replaces the
 * worker's lgroups with these (and frees the signatures, sequences and
 * scratch of pass 1), so that a dump of many small blocks does not keep
 * 112 bytes of lgroup per block next to the model. */
typedef struct pgroup {
    lrun *rr;                    /* the lgroup's runs (now owned here), or &one */
    lgroup_more *more;           /* the lgroup's side table (its values and
                                    allocations: more->n_values, n_allocs), or NULL */
    uint32_t n_runs, seq_len;
    uint32_t global, run_offset, value_shift, alloc_shift; /* as in lgroup */
    lrun one;                    /* a group of one run: its run (rr freed) */
} pgroup;

typedef struct worker {
    const et_inspector *insp;
    /* the ticks of its runs' ProfileEvents, run after run (16 bytes per
     * slot; a run has no more slots than events, so the events of its runs
     * bound them): one allocation, huge pages when large */
    et_ticks *ticks;
    size_t ticks_n, ticks_cap, ticks_bytes;
    bool ticks_mapped;
    et_etdump dump;              /* a copy: its own table budget and counters */
    uint32_t r0, r1;             /* its runs */
    uint64_t *run_cost;          /* shared, one entry per run: tables verified */
    et_run_ticks *run_ticks;     /* shared, one entry per run (the inspector's) */
    bool ticks_over_32;
    esig_set es;
    lgroup *groups; size_t n_groups, groups_cap;
    pgroup *pg;                  /* after the merge: n_groups of them, groups NULL */
    idtable group_tab;
    uint32_t *seq; size_t n_seq, seq_cap; /* pool of EventSignature id sequences */
    /* per entry of seq, so per event of a group (lgroup.seq_first + k); a
     * pool, not an allocation per group */
    uint32_t *pos0; size_t pos0_cap;      /* its first run's ProfileEvent */
    uint8_t *any_meta; size_t any_meta_cap; /* some run has non-empty metadata */
    /* per-run scratch */
    et_raw_event *ev; size_t ev_cap;
    et_raw_event *tev; size_t tev_cap;    /* the previous run's events (template) */
    size_t tev_n;
    bool have_tpl;
    et_str tpl_name;
    int32_t tpl_bii;
    long tpl_group;
    uint64_t tpl_repeated, tpl_empty;
    bool tpl_other;                       /* it has debug or allocation events */
    int32_t *next; size_t next_cap;       /* linked lists through ev */
    ievent *ies; size_t n_ies, ies_cap;
    uint32_t *ie_slots; size_t ie_mask;   /* hash: ie index + 1 */
    uint32_t *ie_stamp; size_t ie_slots_cap;
    rslot *slots; size_t n_slots, slots_cap;
    uint32_t *esig_slot; uint32_t *esig_stamp; size_t esig_slot_cap;
    uint32_t *outs; size_t n_outs, outs_cap;
    et_allocation *allocs; size_t n_allocs, allocs_cap;
    uint32_t run_stamp;
    long last_group;                      /* group of the previous run, or -1 */
    uint32_t tpl_lo, tpl_hi;              /* bytes of the template's tables */
    uint32_t rel_lo, rel_hi;              /* bytes read, to give back (release_behind) */
    /* the runs it kept, in order: their group and place in it */
    uint32_t *run_group, *run_local;
    size_t n_done;
    /* counters for warnings */
    uint64_t empty_events, repeated_events, bad_allocator_ids, wrapped_events;
    bool tensor_values;                   /* some debug event holds a tensor */
    /* the first error, which stops the worker */
    bool failed;
    uint32_t fail_run;
    et_error err;
} worker;

/* A block being built: the merged groups of the workers. */
typedef struct ggroup {
    et_str name;
    uint64_t hash;
    size_t n_values, n_allocs;
    int32_t bii;
    uint32_t seq_first, seq_len; /* the builder's EventSignature ids */
    uint32_t first_run;
    uint32_t n_allocators;       /* its first run's allocators */
    uint32_t n_runs;             /* RunData indices are uint32 */
    uint32_t pe_first;           /* run 0's ProfileEvent per event: in pe0 */
    bool has_debug;
} ggroup;

/* What the debug-data comparisons of one model may still read of the debug
 * buffer: a hostile dump can point every run's tensors at the whole buffer
 * from different offsets, so that comparing them would cost runs x events
 * x the buffer's size.  Past the budget, values are taken as equal (the
 * comparison only decides a warning) and `exhausted` says so. */
typedef struct cmp_budget {
    uint64_t left;  /* bytes of the debug buffer still to compare */
    bool exhausted; /* some tensors were not compared */
} cmp_budget;

/* Twice the debug buffer (each run's tensors compared with the first
 * run's) plus 64 MiB. */
#define CMP_BUDGET_SLACK (UINT64_C(64) << 20)

/* Where pass 2 writes block gi's data before its events and the block
 * itself are allocated (so that the pgroups are freed first): its samples
 * in the arena (its events with a profile part one after another, R
 * durations then R start ticks each), its five per-run arrays in the run
 * pool, its value and allocation pools (owned here until the block takes
 * them); init_events sets `events`. */
typedef struct gdest {
    char *samples;
    et_event *events;
    uint32_t *runs;
    uint32_t *value_pool;
    et_allocation *allocations;
} gdest;

/* An event's per-run debug entries (et_event.debug_first, debug_count),
 * per entry of the builder's seq, until init_events hands them to it. */
typedef struct sdebug {
    uint32_t *first, *count;
} sdebug;

typedef struct builder {
    et_inspector *insp;
    et_error *err;
    esig_set es;
    ggroup *groups; size_t n_groups, groups_cap;
    gdest *dest;                            /* per group, from pass 2 until the blocks */
    sdebug *sdbg;                           /* per entry of seq, or NULL: no debug part */
    et_str **smeta;                         /* per entry of seq: its events'
                                               raw_delegate_debug_metadatas, or NULL */
    bool events_made;                       /* init_events took sdbg's and smeta's arrays */
    idtable group_tab;
    uint32_t *seq; size_t n_seq, seq_cap;
    uint8_t *any_meta; size_t any_meta_cap; /* per entry of seq: some run of the
                                               group has non-empty metadata */
    uint32_t *pe0; size_t n_pe0, pe0_cap;   /* first runs' ProfileEvent positions */
    uint32_t *emap; size_t emap_cap;        /* a worker's esig id -> the builder's */
    worker *w;
    unsigned nw, threads;
    uint64_t *run_cost;
    et_time_converter converter;
    void *converter_ud;
    /* counters for warnings */
    uint64_t empty_events, repeated_events, debug_differs_blocks, bad_allocator_ids;
    uint64_t wrapped_events;
    bool tensor_values;
    cmp_budget cmp; /* the debug-data comparisons' reading budget */
    unsigned fill;  /* what pass 2 fills: FILL_* */
} builder;

/* What pass 2 fills (builder.fill). */
enum {
    FILL_DATA = 1,    /* runs, outputs, allocations, values, metadata */
    FILL_DEBUG = 2,   /* the events' debug entries per run */
    FILL_SAMPLES = 4, /* perf_data.raw and start_time */
    FILL_ALL = 7
};

static inline int nomem(et_error *err)
{
    return et_fail(err, ET_ERR_NOMEM, "out of memory while building the event model");
}

/* Pass 1 (pass1.c), for et_parallel_for over a builder's workers: worker
 * k's runs verified, decoded, collated and grouped (ctx: the builder).  A
 * worker stops at its first error (w->failed, w->fail_run, w->err). */
void et_build_pass1(void *ctx, size_t k);

/* The verification alone, for a deferred model (et_model_verify_runs):
 * worker k's runs verified as pass 1 verifies them, their pages given back
 * behind them (unless kept); errors as et_build_pass1's. */
void et_build_verify_pass(void *ctx, size_t k);

#endif
