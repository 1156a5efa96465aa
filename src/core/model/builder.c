/* builder.c - ETDump -> EventBlocks (spec §3-§4): the workers made, pass 1
 * run (pass1.c), the merge, pass 2, the statistics, the names and
 * warnings; the verification of a deferred model; a legacy profiler dump's
 * blocks.  Its entry points are declared in model_int.h, its types in
 * builder_int.h. */
#include "model/builder_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "base/bigalloc.h"
#include "base/parallel.h"
#include "base/stats.h"

/* Text of an integer delegate id, as Python's str(int). */
static void id_text(int32_t id, char out[12])
{
    snprintf(out, 12, "%" PRId32, id);
}

/* p10, p50, p90, avg, min and max of pd->raw (pd->n >= 1 samples), spec
 * §4; `tmp` has room for pd->n doubles. */
static void perf_stats(et_perf_data *pd, double *tmp)
{
    static const double qs[3] = {10, 50, 90};
    double ps[3];
    size_t R = pd->n;
    const double *raw = pd->raw;
    /* min and max in the copy that selection reorders */
    double lo = raw[0], hi = raw[0];
    for (size_t r = 0; r < R; r++) {
        double v = raw[r];
        tmp[r] = v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    pd->min = lo;
    pd->max = hi;
    pd->avg = et_numpy_mean(raw, R);
    et_percentiles(tmp, R, qs, 3, ps);
    pd->p10 = ps[0];
    pd->p50 = ps[1];
    pd->p90 = ps[2];
}

/* Apply a signature to an event (spec §3.6); `text`: 12 bytes for the
 * decimal text of an integer delegate id (the event's name then). */
static void apply_sig(et_event *ev, const sig_part *p, char *text)
{
    et_str candidate;
    if (p->has_did) {
        ev->delegate_debug_identifier_kind = ET_DID_INT;
        ev->delegate_debug_id_int = p->did;
    } else if (p->dstr.p) {
        ev->delegate_debug_identifier_kind = ET_DID_STR;
        ev->delegate_debug_id_str = p->dstr;
    } else {
        ev->delegate_debug_identifier_kind = ET_DID_NONE;
    }
    ev->is_delegated_op = ev->delegate_debug_identifier_kind != ET_DID_NONE;
    if (ev->delegate_debug_identifier_kind == ET_DID_INT) {
        id_text(p->did, text);
        ev->name_str = (et_str){text, strlen(text)};
        return;
    }
    candidate = ev->is_delegated_op ? p->dstr : p->name;
    if (candidate.n > 0)
        ev->name_str = candidate;
}

/* Python-style equality of two raw Values (spec §3.3-§3.4), comparing
 * tensor bytes when the debug buffer holds them. */

static bool tensor_equal(const et_inspector *insp, const et_raw_value *a, const et_raw_value *b,
                         cmp_budget *budget)
{
    const et_etdump *d = &insp->dump;
    if (a->scalar_type != b->scalar_type || a->sizes.count != b->sizes.count)
        return false;
    uint64_t numel = 1;
    bool valid = true;
    for (uint32_t i = 0; i < a->sizes.count; i++) {
        int64_t x = et_etdump_i64_at(d, &a->sizes, i), y = et_etdump_i64_at(d, &b->sizes, i);
        if (x != y)
            return false;
        if (x < 0 || (x > 0 && numel > UINT64_MAX / (uint64_t)x))
            valid = false;
        else
            numel *= (uint64_t)x;
    }
    if (a->offset == b->offset)
        return true; /* the same bytes, or the same unreadable ones */
    int es = et_scalar_type_size(a->scalar_type);
    if (!valid || es <= 0 || numel > UINT64_MAX / (uint64_t)es)
        return a->offset == b->offset;
    uint64_t nbytes = numel * (uint64_t)es;
    if (nbytes == 0 || insp->debug_buffer.size == 0)
        return true; /* no bytes to compare: equal shapes and dtypes */
    uint64_t size = insp->debug_buffer.size;
    if (a->offset < 0 || b->offset < 0 || (uint64_t)a->offset > size ||
        (uint64_t)b->offset > size || nbytes > size - (uint64_t)a->offset ||
        nbytes > size - (uint64_t)b->offset)
        return a->offset == b->offset;
    if (2 * nbytes > budget->left) {
        budget->exhausted = true;
        return true;
    }
    budget->left -= 2 * nbytes;
    return memcmp(insp->debug_buffer.data + a->offset, insp->debug_buffer.data + b->offset,
                  nbytes) == 0;
}

static bool value_equal(const et_inspector *insp, uint32_t pa, uint32_t pb, cmp_budget *budget)
{
    et_raw_value a, b;
    et_etdump_value(&insp->dump, pa, &a);
    et_etdump_value(&insp->dump, pb, &b);
    if (a.val != b.val)
        return false;
    switch (a.val) {
    case ET_VAL_INT: return a.int_val == b.int_val;
    case ET_VAL_BOOL: return a.bool_val == b.bool_val;
    case ET_VAL_FLOAT: return a.float_val == b.float_val;
    case ET_VAL_DOUBLE: return a.double_val == b.double_val;
    case ET_VAL_TENSOR: return tensor_equal(insp, &a, &b, budget);
    case ET_VAL_TENSOR_LIST:
        if (a.tensors.count != b.tensors.count)
            return false;
        for (uint32_t i = 0; i < a.tensors.count; i++) {
            et_raw_value ta, tb;
            et_etdump_list_tensor(&insp->dump, &a, i, &ta);
            et_etdump_list_tensor(&insp->dump, &b, i, &tb);
            if (!tensor_equal(insp, &ta, &tb, budget))
                return false;
        }
        return true;
    default: return true;
    }
}

static bool lists_equal(const et_inspector *insp, const uint32_t *pool, uint32_t fa, uint32_t na,
                        uint32_t fb, uint32_t nb, cmp_budget *budget)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (pool[fa + i] != pool[fb + i] && !value_equal(insp, pool[fa + i], pool[fb + i], budget))
            return false;
    return true;
}


/* ------------------------------------------------------------------ */
/* Merge: the workers' signatures and groups become the builder's. */

static uint64_t ggroup_hash_of(const void *b, uint32_t id)
{
    return ((const builder *)b)->groups[id].hash;
}

/* The builder's group of worker group `lg` (its seq mapped through
 * b->emap), created when new.  Returns its id, or -1 on out of memory. */
static long merge_group(builder *b, const worker *w, const lgroup *lg)
{
    size_t E = lg->seq_len;
    const uint32_t *ls = E ? w->seq + lg->seq_first : NULL; /* w->seq may be NULL */
    uint64_t h = lg->name_hash; /* the name's bytes stay in the dump's pages */
    h = hash_u64(h, (uint32_t)lg->bii);
    for (size_t k = 0; k < E; k++)
        h = hash_u64(h, b->emap[ls[k]]);
    idtable *t = &b->group_tab;
    size_t i = h & t->mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (!id)
            break;
        ggroup *g = &b->groups[id - 1];
        if (g->hash == h && g->bii == lg->bii && g->seq_len == E && str_eq(g->name, lg->name)) {
            bool same = true;
            for (size_t k = 0; k < E && same; k++)
                same = b->seq[g->seq_first + k] == b->emap[ls[k]];
            if (same)
                return id - 1;
        }
        i = (i + 1) & t->mask;
    }
    if (GROW(b->groups, b->groups_cap, b->n_groups + 1) != 0 ||
        GROW(b->seq, b->seq_cap, b->n_seq + E) != 0 ||
        GROW(b->any_meta, b->any_meta_cap, b->n_seq + E) != 0 ||
        GROW(b->pe0, b->pe0_cap, b->n_pe0 + E) != 0)
        return -1;
    if (E)
        memset(b->any_meta + b->n_seq, 0, E);
    ggroup *g = &b->groups[b->n_groups];
    memset(g, 0, sizeof *g);
    g->name = lg->name;
    g->bii = lg->bii;
    g->hash = h;
    g->seq_first = (uint32_t)b->n_seq;
    g->seq_len = (uint32_t)E;
    g->first_run = lg->first_run;
    g->n_allocators = lg->n_allocators;
    g->pe_first = (uint32_t)b->n_pe0;
    for (size_t k = 0; k < E; k++) {
        const esig *s = &b->es.v[b->emap[ls[k]]];
        b->seq[b->n_seq++] = b->emap[ls[k]];
        b->pe0[b->n_pe0++] = w->pos0[lg->seq_first + k]; /* its first run is lg's first */
        g->has_debug |= s->has_d;
    }
    t->slots[i] = (uint32_t)(b->n_groups + 1);
    b->n_groups++;
    if (++t->used * 2 > t->mask && idtable_grow(t, ggroup_hash_of, b) != 0)
        return -1;
    return (long)(b->n_groups - 1);
}

/* The first error in run order, as one thread would have met it.  Each
 * worker verified its runs with the whole remaining table budget; here the
 * budget is spent in run order, and the run where it (or a worker) failed
 * is verified again with exactly what was left.  Returns 0 when no run
 * failed, else -1 with b->err set. */
static int first_error(builder *b)
{
    et_etdump *d = &b->insp->dump;
    const worker *fw = NULL;
    for (unsigned k = 0; k < b->nw && !fw; k++)
        if (b->w[k].failed)
            fw = &b->w[k];
    uint32_t end = fw ? fw->fail_run : et_etdump_num_runs(d);
    uint64_t left = d->tables_left;
    uint32_t x = end;
    for (uint32_t i = 0; i < end; i++) {
        if (b->run_cost[i] > left) {
            x = i;
            break;
        }
        left -= b->run_cost[i];
    }
    if (x == end && !fw) {
        d->tables_left = left;
        return 0;
    }
    /* verify run x again with the budget one thread would have had */
    et_run run;
    et_etdump_run(d, x, &run);
    et_raw_event *ev = malloc((run.events.count ? run.events.count : 1) * sizeof *ev);
    if (!ev)
        return nomem(b->err);
    et_etdump copy = *d;
    copy.tables_left = left;
    bool was_verified = d->runs_verified[x]; /* at open: a deferred model */
    d->runs_verified[x] = 0;
    int rc = et_etdump_verify_run(&copy, x, ev, b->err);
    free(ev);
    if (rc != 0 && was_verified) {
        et_error_prefix(b->err, ET_ETDUMP_CHANGED);
        d->runs_verified[x] = 1; /* a later build says so again */
    }
    if (rc != 0)
        return et_error_prefix(b->err, b->insp->etdump_label);
    if (fw && x == fw->fail_run) {
        *b->err = fw->err;
        return -1;
    }
    /* cannot happen: run x overspent the budget but verified with it */
    return et_fail(b->err, ET_ERR_FORMAT, "%s: run_data[%" PRIu32 "]: table budget exceeded",
                   b->insp->etdump_label, x);
}

/* Sample arena: every block's durations and start times, one allocation
 * (huge pages when large).  The inspector's `samples` owns it. */
static void *arena_alloc(et_inspector *insp, size_t bytes)
{
    et_inspector_int *ii = et_insp_int(insp);
    ii->samples_size = bytes ? bytes : 1;
    return ii->samples = et_big_alloc(ii->samples_size, &ii->samples_mapped);
}

/* The block's five per-run arrays (runs, run_output_first / _count,
 * allocation_first / _count: R uint32 each) as one allocation, owned by
 * blk->runs (et_model_free frees that one): a block of one run costs one
 * allocation, not five.  `zero`: cleared.  Returns 0 or -1. */
static void place_run_arrays(et_block *blk, uint32_t *p, size_t n)
{
    blk->runs = p;
    blk->run_output_first = p + n;
    blk->run_output_count = p + 2 * n;
    blk->allocation_first = p + 3 * n;
    blk->allocation_count = p + 4 * n;
}

static int alloc_run_arrays(et_block *blk, size_t R, bool zero)
{
    size_t n = R ? R : 1;
    if (n > SIZE_MAX / (5 * sizeof(uint32_t)))
        return -1;
    uint32_t *p = zero ? calloc(5 * n, sizeof *p) : malloc(5 * n * sizeof *p);
    if (!p)
        return -1;
    place_run_arrays(blk, p, n);
    return 0;
}

/* The events of every block of the merge, in the inspector's event pool
 * (a block of no event still gets one), from their EventSignatures (spec
 * §3.6: names, ids, delegate ids), with the samples, debug entries and
 * metadata pass 2 wrote for them (b->dest, sdbg, smeta).  Returns 0 or -1
 * (out of memory: nothing was handed over). */
static int init_events(builder *b)
{
    et_inspector_int *ii = et_insp_int(b->insp);
    static const char empty[1] = "";
    size_t ne = 0, nt = 0;
    for (size_t gi = 0; gi < b->n_groups; gi++) {
        const ggroup *g = &b->groups[gi];
        ne += g->seq_len ? g->seq_len : 1;
        for (size_t e = 0; e < g->seq_len; e++) {
            const esig *s = &b->es.v[b->seq[g->seq_first + e]];
            nt += (s->has_p && s->p.has_did) || (s->has_d && s->d.has_did);
        }
    }
    if (!(ii->event_pool = calloc(ne ? ne : 1, sizeof *ii->event_pool)) ||
        !(ii->id_texts = malloc(nt ? nt * 12 : 1)))
        return -1;
    ii->n_event_pool = ne;
    b->events_made = true;
    et_event *ev = ii->event_pool;
    char *text = ii->id_texts; /* names of events with an integer delegate id */
    for (size_t gi = 0; gi < b->n_groups; gi++) {
        const ggroup *g = &b->groups[gi];
        size_t E = g->seq_len, R = g->n_runs;
        char *arena = b->dest[gi].samples;
        b->dest[gi].events = ev;
        for (size_t e = 0; e < E; e++, ev++) {
            size_t at = g->seq_first + e;
            const esig *s = &b->es.v[b->seq[at]];
            ev->name_str = (et_str){empty, 0};
            ev->instruction_id = s->instr_raw;
            ev->num_outputs = 1;
            if (s->has_p) {
                apply_sig(ev, &s->p, text);
                ev->has_perf_data = R > 0;
                ev->perf_data.n = R;
                ev->profile_event_pos_first_run = R ? b->pe0[g->pe_first + e] : 0;
                ev->perf_data.raw = (double *)arena;
                arena += R * sizeof(double);
                ev->start_time = (uint64_t *)arena;
                arena += R * sizeof(uint64_t);
                ev->raw_delegate_debug_metadatas = b->smeta ? b->smeta[at] : NULL;
            }
            if (s->has_d) {
                apply_sig(ev, &s->d, text);
                ev->has_debug_data = true;
                ev->debug_first = b->sdbg[at].first;
                ev->debug_count = b->sdbg[at].count;
            }
            if ((s->has_p && s->p.has_did) || (s->has_d && s->d.has_did))
                text += 12; /* as counted above */
        }
        if (!E)
            ev++;
    }
    return 0;
}

/* The per-event arrays pass 2 fills before the events exist: sdbg and
 * smeta (only when some event has a debug part, or some run metadata).
 * Returns 0 or -1 (out of memory). */
static int alloc_event_arrays(builder *b)
{
    bool any_d = false, any_m = false;
    for (size_t gi = 0; gi < b->n_groups; gi++)
        any_d |= b->groups[gi].has_debug;
    for (size_t i = 0; i < b->n_seq && !any_m; i++)
        any_m = b->any_meta[i];
    if ((any_d && !(b->sdbg = calloc(b->n_seq, sizeof *b->sdbg))) ||
        (any_m && !(b->smeta = calloc(b->n_seq, sizeof *b->smeta))))
        return -1;
    for (size_t gi = 0; gi < b->n_groups; gi++) {
        const ggroup *g = &b->groups[gi];
        size_t R = g->n_runs;
        for (size_t e = 0; e < g->seq_len; e++) {
            size_t at = g->seq_first + e;
            const esig *s = &b->es.v[b->seq[at]];
            if (s->has_p && b->any_meta[at] && !(b->smeta[at] = calloc(R, sizeof(et_str))))
                return -1;
            if (s->has_d && (!(b->sdbg[at].first = malloc(R * sizeof(uint32_t))) ||
                             !(b->sdbg[at].count = malloc(R * sizeof(uint32_t)))))
                return -1;
        }
    }
    return 0;
}

/* sdbg and smeta, and their arrays unless the events took them. */
static void free_event_arrays(builder *b)
{
    for (size_t i = 0; !b->events_made && i < b->n_seq; i++) {
        if (b->sdbg) {
            free(b->sdbg[i].first);
            free(b->sdbg[i].count);
        }
        if (b->smeta)
            free(b->smeta[i]);
    }
    free(b->sdbg);
    free(b->smeta);
    b->sdbg = NULL;
    b->smeta = NULL;
}

/* Where pass 2 writes each group's data (b->dest): its samples in the
 * arena, its per-run arrays in the run pool, its value and allocation
 * pools.  Returns 0 or -1 (out of memory). */
static int alloc_dests(builder *b, char *arena)
{
    et_inspector_int *ii = et_insp_int(b->insp);
    size_t nr = 0;
    for (size_t gi = 0; gi < b->n_groups; gi++)
        nr += b->groups[gi].n_runs ? b->groups[gi].n_runs : 1;
    if (nr > SIZE_MAX / (5 * sizeof(uint32_t)))
        return -1;
    ii->run_pool = malloc((nr ? 5 * nr : 1) * sizeof *ii->run_pool);
    b->dest = calloc(b->n_groups ? b->n_groups : 1, sizeof *b->dest);
    if (!ii->run_pool || !b->dest)
        return -1;
    size_t run_at = 0;
    for (size_t gi = 0; gi < b->n_groups; gi++) {
        const ggroup *g = &b->groups[gi];
        gdest *d = &b->dest[gi];
        d->samples = arena;
        for (size_t e = 0; e < g->seq_len; e++)
            if (b->es.v[b->seq[g->seq_first + e]].has_p)
                arena += g->n_runs * (sizeof(double) + sizeof(uint64_t));
        d->runs = ii->run_pool + run_at;
        run_at += 5 * (g->n_runs ? g->n_runs : 1);
        if ((g->n_values && !(d->value_pool = malloc(g->n_values * sizeof *d->value_pool))) ||
            (g->n_allocs && !(d->allocations = malloc(g->n_allocs * sizeof *d->allocations))))
            return -1;
    }
    return 0;
}

/* The destinations' pools, when no block took them (out of memory). */
static void free_dests(builder *b)
{
    for (size_t gi = 0; b->dest && gi < b->n_groups; gi++) {
        free(b->dest[gi].value_pool);
        free(b->dest[gi].allocations);
    }
    free(b->dest);
    b->dest = NULL;
}

/* Block `gi` from its group and its destination (which it takes over:
 * events, per-run arrays, value and allocation pools); cannot fail. */
static void make_block(builder *b, size_t gi)
{
    const ggroup *g = &b->groups[gi];
    gdest *d = &b->dest[gi];
    et_block *blk = &b->insp->blocks[gi];
    size_t R = g->n_runs;
    blk->name = g->name;
    blk->bundled_input_index = g->bii;
    blk->n_runs = R;
    blk->n_events = g->seq_len;
    blk->events = d->events;
    place_run_arrays(blk, d->runs, R ? R : 1);
    blk->value_pool = d->value_pool;
    blk->allocations = d->allocations;
    d->value_pool = NULL;
    d->allocations = NULL;
}

/* Block gi's allocators: the names of its first run's (read again only
 * when it has some: a dump of many blocks does not fault its pages in
 * once more).  Returns 0 or -1 (out of memory). */
static int block_allocators(builder *b, size_t gi)
{
    et_inspector *insp = b->insp;
    const ggroup *g = &b->groups[gi];
    et_block *blk = &insp->blocks[gi];
    blk->n_allocators = g->n_allocators;
    if (blk->n_allocators) {
        et_run first;
        et_etdump_run(&insp->dump, g->first_run, &first);
        blk->allocators = calloc(blk->n_allocators, sizeof *blk->allocators);
        if (!blk->allocators)
            return -1;
        for (uint32_t i = 0; i < first.allocators.count; i++)
            blk->allocators[i] = et_etdump_allocator_name(&insp->dump, &first, i);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Pass 2: samples, debug entries, outputs and allocations in place. */

/* The converted start and end (*cs, *ce) of a delegated event: the host's
 * converter when there is one and it answers, else ticks / factor. */
static void convert_pair(const builder *b, const esig *s, uint64_t start, uint64_t end,
                         double *cs, double *ce)
{
    double f = b->insp->scale_factor;
    *cs = (double)start / f;
    *ce = (double)end / f;
    if (!b->converter)
        return;
    char buf[12];
    const char *name;
    size_t len;
    if (s->p.has_did) {
        id_text(s->p.did, buf);
        name = buf;
        len = strlen(buf);
    } else {
        name = s->p.dstr.p;
        len = s->p.dstr.n;
    }
    double v;
    if (b->converter(b->converter_ud, name, len, start, &v) == 0)
        *cs = v;
    if (b->converter(b->converter_ud, name, len, end, &v) == 0)
        *ce = v;
}

/* Duration of one profile event in target units (spec §3.7-§3.8, with the
 * wrap-around correction); pass 1 has checked that it has one. */
static inline double duration(const builder *b, const esig *s, bool delegated, uint64_t start,
                              uint64_t end)
{
    double f = b->insp->scale_factor;
    if (!delegated && start <= end)
        return (double)(end - start) / f;
    uint64_t ticks;
    bool wrapped;
    double cs, ce;
    if (!et_elapsed_ticks(start, end, &ticks, &wrapped)) {
        /* delegated, start > end past 32 bits (pass 1 let it through): the
         * reference's rule on the converted times, (4294967295 - start) +
         * end, about 4.29e9 ms; NaN where it raises (a converter's times
         * past 4294967295) */
        convert_pair(b, s, start, end, &cs, &ce);
        if (cs <= ce)
            return ce - cs;
        if (cs > 4294967295.0 || ce > 4294967295.0)
            return NAN;
        return (4294967295.0 - cs) + ce;
    }
    if (!delegated || (wrapped && !b->converter))
        return (double)ticks / f;
    /* delegated: convert both timestamps, then subtract (end unwrapped).
     * The default converter is ticks / factor; for a non-wrapped event the
     * reference subtracts the converted values (and so do we, to agree to
     * the last bit), for a wrapped one it has no sound answer and we give
     * the exact ticks / factor. */
    convert_pair(b, s, start, wrapped ? end + (UINT64_C(1) << 32) : end, &cs, &ce);
    return ce - cs;
}

#if defined(__GNUC__) || defined(__clang__)
#define ET_PREFETCH(p) __builtin_prefetch(p)
#else
#define ET_PREFETCH(p) ((void)(p))
#endif

/* Runs [r0, r1) of worker group lg into its block: event by event, so
 * that each event's samples are written contiguously (a transposition of
 * the ticks in tiles of runs). */
static void fill_runs(const builder *b, const et_ticks *tbase, const pgroup *lg, size_t r0,
                      size_t r1)
{
    const ggroup *g = &b->groups[lg->global];
    size_t E = lg->seq_len, off = lg->run_offset, R = g->n_runs;
    char *samples = b->dest[lg->global].samples; /* as init_events lays them out */
    for (size_t k = 0; k < E; k++) {
        size_t at = g->seq_first + k;
        const esig *s = &b->es.v[b->seq[at]];
        /* the tile's rows are read in step, a quarter line per row and
         * event: ask for the line 16 events on */
        if ((b->fill & FILL_SAMPLES) && (k & 3) == 0 && k + 16 < E)
            for (size_t r = r0; r < r1; r++)
                ET_PREFETCH(tbase + lg->rr[r].row + k + 16);
        if (s->has_p) {
            double *raw = (double *)samples + off;
            uint64_t *st = (uint64_t *)(samples + R * sizeof(double)) + off;
            samples += R * (sizeof(double) + sizeof(uint64_t));
            if (b->fill & FILL_SAMPLES) {
                bool delegated = s->p.has_did || s->p.dstr.p;
                for (size_t r = r0; r < r1; r++) {
                    et_ticks t = tbase[lg->rr[r].row + k];
                    raw[r] = duration(b, s, delegated, t.start, t.end);
                    st[r] = t.start;
                }
            }
        }
        if (s->has_d && (b->fill & FILL_DEBUG)) {
            uint32_t *df = b->sdbg[at].first, *dc = b->sdbg[at].count;
            for (size_t r = r0; r < r1; r++) {
                df[off + r] = lg->more->dbg_first[r * E + k] + lg->value_shift;
                dc[off + r] = lg->more->dbg_count[r * E + k];
            }
        }
    }
}

/* Everything of worker group lg but its samples into its block's
 * destination (b->dest: the block is not allocated yet). */
static void fill_runs_data(const builder *b, const pgroup *lg)
{
    const gdest *d = &b->dest[lg->global];
    const ggroup *g = &b->groups[lg->global];
    size_t R = g->n_runs;
    et_block view = {0}, *blk = &view; /* the block's arrays, as it will hold them */
    place_run_arrays(&view, d->runs, R ? R : 1);
    view.value_pool = d->value_pool;
    view.allocations = d->allocations;
    size_t off = lg->run_offset, n = lg->n_runs;
    for (size_t r = 0; r < n; r++) {
        const lrun *lr = &lg->rr[r];
        blk->runs[off + r] = lr->run;
        blk->run_output_first[off + r] = lr->out_first + lg->value_shift;
        blk->run_output_count[off + r] = lr->out_count;
        blk->allocation_first[off + r] = lr->alloc_first + lg->alloc_shift;
        blk->allocation_count[off + r] = lr->alloc_count;
    }
    const lgroup_more *x = lg->more;
    if (x && x->n_values)
        memcpy(blk->value_pool + lg->value_shift, x->values, x->n_values * sizeof *x->values);
    if (x && x->n_allocs)
        memcpy(blk->allocations + lg->alloc_shift, x->allocs, x->n_allocs * sizeof *x->allocs);
    /* delegate_debug_metadata: "" where a run has none, then the others */
    static const char empty[1] = "";
    for (size_t k = 0; b->smeta && k < lg->seq_len; k++) {
        et_str *m = b->smeta[g->seq_first + k];
        if (m)
            for (size_t r = 0; r < n; r++)
                m[off + r] = (et_str){empty, 0};
    }
    for (size_t i = 0; x && i < x->n_meta; i++) {
        const et_meta_at *a = &x->meta[i];
        b->smeta[g->seq_first + a->event][off + a->run] = a->m;
    }
}

/* Pass 2 of one worker: what b->fill says of its groups' runs, in tiles
 * of runs. */
static void pass2(void *ctx, size_t k)
{
    const builder *b = ctx;
    const worker *w = &b->w[k];
    for (size_t gi = 0; gi < w->n_groups; gi++) {
        const pgroup *lg = &w->pg[gi];
        if (b->fill & FILL_DATA)
            fill_runs_data(b, lg);
        if (!(b->fill & (FILL_DEBUG | FILL_SAMPLES)))
            continue;
        size_t E = lg->seq_len ? lg->seq_len : 1, tile = 4096 / E;
        tile = tile < 8 ? 8 : tile;
        for (size_t r0 = 0; r0 < lg->n_runs; r0 += tile)
            fill_runs(b, w->ticks, lg, r0, r0 + tile < lg->n_runs ? r0 + tile : lg->n_runs);
    }
}

/* ------------------------------------------------------------------ */
/* Statistics, per event, in parallel. */

typedef struct stats_task {
    et_block *blk;
    size_t e0, e1;
} stats_task;

typedef struct stats_ctx {
    stats_task *tasks;
    bool *nomem;
} stats_ctx;

static void stats_run(void *ctx, size_t i)
{
    const stats_ctx *c = ctx;
    stats_task *t = &c->tasks[i];
    size_t R = t->blk->n_runs;
    double stack[256], *tmp = R <= 256 ? stack : malloc(R * sizeof *tmp);
    if (!tmp) {
        c->nomem[i] = true;
        return;
    }
    for (size_t e = t->e0; e < t->e1; e++) {
        et_event *ev = &t->blk->events[e];
        if (ev->perf_data.raw && R)
            perf_stats(&ev->perf_data, tmp);
    }
    if (tmp != stack)
        free(tmp);
}

static int all_stats(et_inspector *insp, unsigned threads, et_error *err)
{
    size_t n = 0;
    for (size_t gi = 0; gi < insp->n_blocks; gi++) {
        const et_block *blk = &insp->blocks[gi];
        size_t per = blk->n_runs ? 1 + 65536 / blk->n_runs : 1;
        n += (blk->n_events + per - 1) / per;
    }
    stats_task *tasks = malloc((n ? n : 1) * sizeof *tasks);
    bool *oom = calloc(n ? n : 1, sizeof *oom);
    if (!tasks || !oom) {
        free(tasks);
        free(oom);
        return nomem(err);
    }
    n = 0;
    for (size_t gi = 0; gi < insp->n_blocks; gi++) {
        et_block *blk = &insp->blocks[gi];
        size_t per = blk->n_runs ? 1 + 65536 / blk->n_runs : 1;
        for (size_t e0 = 0; e0 < blk->n_events; e0 += per)
            tasks[n++] = (stats_task){blk, e0, e0 + per < blk->n_events ? e0 + per : blk->n_events};
    }
    stats_ctx c = {tasks, oom};
    et_parallel_for(threads, n, stats_run, &c);
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (oom[i])
            rc = nomem(err);
    free(tasks);
    free(oom);
    return rc;
}

static void free_builder(builder *b);

/* Pass 2's samples part (FILL_SAMPLES), when the rest was done without
 * it. */
static void fill_samples(builder *b)
{
    b->fill = FILL_SAMPLES;
    et_parallel_for(b->threads, b->nw, pass2, b);
}

/* The samples an inspector opened with defer_stats left to fill, from the
 * builder it kept, then the builder freed. */
static void fill_pending_samples(et_inspector *insp)
{
    et_inspector_int *ii = et_insp_int(insp);
    builder *b = ii->samples_pending;
    if (!b)
        return;
    fill_samples(b);
    free_builder(b);
    free(b);
    ii->samples_pending = NULL;
}

/* See model_int.h. */
int et_model_stats(et_inspector *insp, et_error *err)
{
    fill_pending_samples(insp);
    unsigned t = et_insp_cint(insp)->threads;
    return all_stats(insp, t == 0 ? et_threads() : t < ET_MAX_THREADS ? t : ET_MAX_THREADS, err);
}

/* See model_int.h. */
void et_model_fill_samples(et_inspector *insp)
{
    fill_pending_samples(insp);
}

/* ------------------------------------------------------------------ */
/* Names, signatures' fields and the debug-data comparisons of block gi
 * (calling thread: they may warn). */
static int finish_block(builder *b, size_t gi)
{
    et_inspector *insp = b->insp;
    et_block *blk = &insp->blocks[gi];
    size_t E = blk->n_events, R = blk->n_runs;
    bool differs = false; /* one warning per block */
    for (size_t e = 0; e < E; e++) {
        et_event *ev = &blk->events[e];
        if (ev->has_debug_data) {
            for (size_t r = 1; r < R && !differs; r++)
                if (!lists_equal(insp, blk->value_pool, ev->debug_first[0], ev->debug_count[0],
                                 ev->debug_first[r], ev->debug_count[r], &b->cmp)) {
                    differs = true;
                    b->debug_differs_blocks++;
                    et_str nm = et_event_name(ev);
                    if (et_warnings_add(&insp->warnings,
                                    "%s: event_blocks[%zu] '%.*s': the %zu runs merged into it "
                                    "logged different debug data (first in events[%zu] '%.*s', "
                                    "run %zu); the first run's values are the event's "
                                    "debug_data, every run's are kept",
                                    insp->etdump_label, gi + 1, (int)blk->name.n,
                                    blk->name.p, R, e + 1, (int)nm.n, nm.p, r + 1) != 0)
                        return nomem(b->err);
                }
        }
    }
    /* block.run_output: the first run that logged program outputs (the
     * reference extends its empty list with the first non-empty one and
     * compares later runs with it; runs before it logged none) */
    size_t ro = 0;
    while (ro + 1 < R && blk->run_output_count[ro] == 0)
        ro++;
    if (R && blk->run_output_count[ro] == 0)
        ro = 0;
    blk->run_output_run = ro;
    for (size_t r = ro + 1; r < R && !differs; r++)
        if (!lists_equal(insp, blk->value_pool, blk->run_output_first[ro],
                         blk->run_output_count[ro], blk->run_output_first[r],
                         blk->run_output_count[r], &b->cmp)) {
            differs = true;
            b->debug_differs_blocks++;
            if (et_warnings_add(&insp->warnings,
                            "%s: event_blocks[%zu] '%.*s': the %zu runs merged into it have "
                            "different program outputs (first in run %zu); block.run_output is "
                            "run %zu's, every run's are kept",
                            insp->etdump_label, gi + 1, (int)blk->name.n, blk->name.p,
                            R, r + 1, ro + 1) != 0)
                return nomem(b->err);
        }
    return 0;
}

static void free_more(lgroup_more *x)
{
    if (x) {
        free(x->meta);
        free(x->dbg_first);
        free(x->dbg_count);
        free(x->values);
        free(x->allocs);
        free(x);
    }
}

/* What pass 1 built that the merge has read: the worker's signatures,
 * sequences and per-run scratch (its groups are pgroups now). */
static void free_pass1(worker *w)
{
    free(w->pos0);
    free(w->any_meta);
    free(w->es.v);
    free(w->es.tab.slots);
    free(w->group_tab.slots);
    free(w->seq);
    free(w->ev);
    free(w->tev);
    free(w->next);
    free(w->ies);
    free(w->ie_slots);
    free(w->ie_stamp);
    free(w->slots);
    free(w->esig_slot);
    free(w->esig_stamp);
    free(w->outs);
    free(w->allocs);
    w->pos0 = NULL;
    w->any_meta = NULL;
    w->es = (esig_set){0};
    w->group_tab = (idtable){0};
    w->seq = NULL;
    w->ev = w->tev = NULL;
    w->next = NULL;
    w->ies = NULL;
    w->ie_slots = w->ie_stamp = NULL;
    w->slots = NULL;
    w->esig_slot = w->esig_stamp = NULL;
    w->outs = NULL;
    w->allocs = NULL;
    w->n_seq = w->seq_cap = w->pos0_cap = w->any_meta_cap = 0;
    w->ev_cap = w->tev_cap = w->tev_n = w->next_cap = 0;
    w->n_ies = w->ies_cap = w->ie_mask = w->ie_slots_cap = 0;
    w->n_slots = w->slots_cap = w->esig_slot_cap = 0;
    w->n_outs = w->outs_cap = w->n_allocs = w->allocs_cap = 0;
    w->have_tpl = false;
}

/* A worker's pgroups, once pass 2 has read them (and the run-by-run
 * indices of the converter's pass 2). */
static void free_pgroups(worker *w)
{
    for (size_t i = 0; w->pg && i < w->n_groups; i++) {
        if (w->pg[i].rr != &w->pg[i].one)
            free(w->pg[i].rr);
        free_more(w->pg[i].more);
    }
    free(w->pg);
    free(w->run_group);
    free(w->run_local);
    w->pg = NULL;
    w->run_group = w->run_local = NULL;
    w->n_groups = 0;
    w->n_done = 0;
}

static void free_worker(worker *w)
{
    if (w->ticks)
        et_big_free(w->ticks, w->ticks_bytes, w->ticks_mapped);
    for (size_t i = 0; i < w->n_groups; i++) {
        if (w->pg) {
            if (w->pg[i].rr != &w->pg[i].one)
                free(w->pg[i].rr);
            free_more(w->pg[i].more);
        } else {
            free(w->groups[i].rr);
            free_more(w->groups[i].more);
        }
    }
    free(w->groups);
    free(w->pg);
    free(w->pos0);
    free(w->any_meta);
    free(w->es.v);
    free(w->es.tab.slots);
    free(w->group_tab.slots);
    free(w->seq);
    free(w->ev);
    free(w->tev);
    free(w->next);
    free(w->ies);
    free(w->ie_slots);
    free(w->ie_stamp);
    free(w->slots);
    free(w->esig_slot);
    free(w->esig_stamp);
    free(w->outs);
    free(w->allocs);
    free(w->run_group);
    free(w->run_local);
}

static void free_builder(builder *b)
{
    /* counts may have been set before their arrays' allocation failed */
    for (unsigned k = 0; b->w && k < b->nw; k++)
        free_worker(&b->w[k]);
    free(b->w);
    free_dests(b);
    free_event_arrays(b);
    free(b->groups);
    free(b->any_meta);
    free(b->es.v);
    free(b->es.tab.slots);
    free(b->group_tab.slots);
    free(b->seq);
    free(b->pe0);
    free(b->emap);
    free(b->run_cost);
}

/* Split the runs into b->nw workers of about equal numbers of events;
 * `model`: with what a build needs (the ticks, insp->run_ticks), else for
 * the verification alone (et_model_verify_runs). */
static int make_workers(builder *b, bool model)
{
    const et_etdump *d = &b->insp->dump;
    uint32_t nruns = et_etdump_num_runs(d);
    /* event counts as opening the dump noted them (reading the RunData
     * tables again would map a page and its neighbours per run) */
    uint64_t total = 0;
    for (uint32_t i = 0; i < nruns; i++)
        total += d->run_event_counts[i];
    /* threads pay off from a few tens of thousands of events on */
    unsigned nw = b->threads;
    if ((uint64_t)nw * 16384 > total)
        nw = (unsigned)(total / 16384);
    if (nw > nruns)
        nw = nruns;
    if (nw < 1)
        nw = 1;
    b->nw = nw;
    b->w = calloc(nw, sizeof *b->w);
    b->run_cost = calloc(nruns ? nruns : 1, sizeof *b->run_cost);
    et_inspector *insp = b->insp;
    if (!b->w || !b->run_cost)
        return -1;
    if (model) {
        insp->run_ticks = malloc((nruns ? nruns : 1) * sizeof *insp->run_ticks);
        if (!insp->run_ticks)
            return -1;
        for (uint32_t r = 0; r < nruns; r++)
            insp->run_ticks[r] = (et_run_ticks){UINT64_MAX, UINT64_MAX, 0, false, false, false};
    }
    uint64_t acc = 0, w_acc0 = 0;
    uint32_t i = 0;
    for (unsigned k = 0; k < nw; k++) {
        worker *w = &b->w[k];
        w->insp = b->insp;
        w->dump = *d;
        w->dump.num_profile_events = w->dump.num_debug_events = 0;
        w->dump.num_allocation_events = w->dump.num_empty_events = 0;
        w->run_cost = b->run_cost;
        w->run_ticks = b->insp->run_ticks;
        w->last_group = -1;
        w->r0 = i;
        uint64_t goal = total * (k + 1) / nw;
        while (i < nruns && (acc < goal || k + 1 == nw))
            acc += d->run_event_counts[i++];
        w->r1 = i;
        uint64_t events = acc - w_acc0;
        w_acc0 = acc;
        if (!model)
            continue;
        if (events > SIZE_MAX / sizeof *w->ticks)
            return -1;
        w->ticks_cap = (size_t)events;
        w->ticks_bytes = w->ticks_cap * sizeof *w->ticks;
        if (!(w->ticks = et_big_alloc(w->ticks_bytes, &w->ticks_mapped)))
            return -1;
        size_t n = w->r1 - w->r0;
        w->run_group = malloc((n ? n : 1) * sizeof *w->run_group);
        w->run_local = malloc((n ? n : 1) * sizeof *w->run_local);
        if (!w->run_group || !w->run_local || idtable_init(&w->es.tab, 1024) != 0 ||
            idtable_init(&w->group_tab, 16) != 0)
            return -1;
    }
    return 0;
}

/* Add the event counts a worker's copy of the dump verified to the dump's. */
static void add_event_counts(et_etdump *d, const et_etdump *w)
{
    d->num_profile_events += w->num_profile_events;
    d->num_debug_events += w->num_debug_events;
    d->num_allocation_events += w->num_allocation_events;
    d->num_empty_events += w->num_empty_events;
}

/* Worker w's groups, merged, as pgroups (pass 2's part of them); the
 * lgroups and what else pass 1 built are freed.  Returns 0 or -1 (out of
 * memory: the worker is left as it was). */
static int compact_groups(worker *w)
{
    pgroup *pg = malloc((w->n_groups ? w->n_groups : 1) * sizeof *pg);
    if (!pg)
        return -1;
    for (size_t i = 0; i < w->n_groups; i++) {
        const lgroup *lg = &w->groups[i];
        pg[i] = (pgroup){lg->rr, lg->more, (uint32_t)lg->n_runs, lg->seq_len, lg->global,
                         lg->run_offset, lg->value_shift, lg->alloc_shift, {0}};
        if (lg->more) {
            lg->more->n_values = lg->n_values;
            lg->more->n_allocs = lg->n_allocs;
        }
        if (lg->n_runs == 1) { /* its run in place: no allocation per block */
            pg[i].one = lg->rr[0];
            free(lg->rr);
            pg[i].rr = &pg[i].one;
        }
    }
    free(w->groups);
    w->groups = NULL;
    w->groups_cap = 0;
    w->pg = pg;
    free_pass1(w);
    return 0;
}

/* Shrink an array grown by doubling to its `n` elements (a failure keeps
 * it as it is). */
static void trim(void **p, size_t *cap, size_t n, size_t size)
{
    if (*cap > n && n) {
        void *q = realloc(*p, n * size);
        if (q) {
            *p = q;
            *cap = n;
        }
    }
}
#define TRIM(ptr, cap, n) trim((void **)&(ptr), &(cap), (n), sizeof *(ptr))

/* The merge (see above): signatures, groups, sizes, counters.  The
 * builder's arrays are sized once for what the workers hold (at most),
 * then trimmed; each worker's pass-1 tables are freed once merged. */
static int merge(builder *b)
{
    et_inspector *insp = b->insp;
    size_t n_es = 0, n_groups = 0, n_seq = 0;
    for (unsigned k = 0; k < b->nw; k++) {
        n_es += b->w[k].es.n;
        n_groups += b->w[k].n_groups;
        n_seq += b->w[k].n_seq;
    }
    /* the first worker's signatures, interned in order into the empty
     * set, would get their own ids: the set is taken over as it is (one
     * worker: no copy of every signature) */
    worker *w0 = &b->w[0];
    if (b->nw && b->es.n == 0 && w0->es.v && w0->es.tab.slots) {
        free(b->es.v);
        free(b->es.tab.slots);
        b->es = w0->es;
        w0->es = (esig_set){0};
    }
    if (GROW(b->es.v, b->es.cap, n_es ? n_es : 1) != 0 ||
        GROW(b->groups, b->groups_cap, n_groups ? n_groups : 1) != 0 ||
        GROW(b->seq, b->seq_cap, n_seq ? n_seq : 1) != 0 ||
        GROW(b->any_meta, b->any_meta_cap, n_seq ? n_seq : 1) != 0 ||
        GROW(b->pe0, b->pe0_cap, n_seq ? n_seq : 1) != 0)
        return -1;
    for (unsigned k = 0; k < b->nw; k++) {
        worker *w = &b->w[k];
        size_t n = k == 0 && !w->es.v ? b->es.n : w->es.n; /* taken over: its own ids */
        if (GROW(b->emap, b->emap_cap, n ? n : 1) != 0)
            return -1;
        for (size_t i = 0; i < n; i++) {
            long id = w->es.v ? intern_esig(&b->es, &w->es.v[i]) : (long)i;
            if (id < 0)
                return -1;
            b->emap[i] = (uint32_t)id;
        }
        for (size_t i = 0; i < w->n_groups; i++) {
            lgroup *lg = &w->groups[i];
            long gi = merge_group(b, w, lg);
            if (gi < 0)
                return -1;
            ggroup *g = &b->groups[gi];
            lg->global = (uint32_t)gi;
            lg->run_offset = (uint32_t)g->n_runs; /* runs, values and allocations of a */
            lg->value_shift = (uint32_t)g->n_values; /* block: uint32 indices */
            lg->alloc_shift = (uint32_t)g->n_allocs;
            g->n_runs += (uint32_t)lg->n_runs;
            g->n_values += lg->n_values;
            g->n_allocs += lg->n_allocs;
            for (size_t e = 0; e < lg->seq_len; e++)
                b->any_meta[g->seq_first + e] |= w->any_meta[lg->seq_first + e];
        }
        /* the worker's signatures, group index and scratch are merged:
         * pass 2 reads its pgroups (a dump of many blocks has as many of
         * each) */
        if (compact_groups(w) != 0)
            return -1;
        if (!b->converter) { /* only the converter's pass 2 goes run by run */
            free(w->run_group);
            free(w->run_local);
            w->run_group = w->run_local = NULL;
        }
        add_event_counts(&insp->dump, &w->dump);
        b->empty_events += w->empty_events;
        b->repeated_events += w->repeated_events;
        b->bad_allocator_ids += w->bad_allocator_ids;
        b->wrapped_events += w->wrapped_events;
        b->tensor_values |= w->tensor_values;
        insp->ticks_over_32 |= w->ticks_over_32;
    }
    /* nothing is interned after the merge */
    free(b->es.tab.slots);
    free(b->group_tab.slots);
    free(b->emap);
    free(b->run_cost); /* first_error has read it */
    b->es.tab = (idtable){0};
    b->group_tab = (idtable){0};
    b->emap = NULL;
    b->emap_cap = 0;
    b->run_cost = NULL;
    TRIM(b->es.v, b->es.cap, b->es.n);
    TRIM(b->groups, b->groups_cap, b->n_groups);
    TRIM(b->seq, b->seq_cap, b->n_seq);
    TRIM(b->any_meta, b->any_meta_cap, b->n_seq);
    TRIM(b->pe0, b->pe0_cap, b->n_pe0);
    return 0;
}

/* The signatures and sequences, once init_events has read them. */
static void free_signatures(builder *b)
{
    free(b->es.v);
    free(b->seq);
    free(b->any_meta);
    free(b->pe0);
    b->es.v = NULL;
    b->seq = NULL;
    b->any_meta = NULL;
    b->pe0 = NULL;
    b->es.n = b->es.cap = b->n_seq = b->seq_cap = b->any_meta_cap = b->n_pe0 = b->pe0_cap = 0;
}

/* The threads to build with (et_threads), and when `warn` a warning about
 * an ETINSPECT_THREADS that is not a number of threads (given once per
 * inspector: by a deferred model's open, else by the build).  Returns 0,
 * or -1 out of memory. */
static int build_threads(et_inspector *insp, unsigned *threads, bool warn, et_error *err)
{
    unsigned t = et_insp_cint(insp)->threads;
    *threads = t == 0 ? et_threads() : t < ET_MAX_THREADS ? t : ET_MAX_THREADS;
    const char *bad = et_threads_invalid();
    if (!bad || !warn)
        return 0;
    /* the value as typed, printable and at most 40 bytes */
    char shown[48];
    size_t n = 0;
    for (; bad[n] && n < 40; n++)
        shown[n] = bad[n] >= 0x20 && bad[n] < 0x7f ? bad[n] : '?';
    strcpy(shown + n, bad[n] ? "..." : "");
    if (et_warnings_add(&insp->warnings, "ETINSPECT_THREADS='%s' is not a number of threads "
                        "from 1 to %d; using %u (the processors available)", shown,
                        ET_MAX_THREADS, *threads) != 0)
        return nomem(err);
    return 0;
}

/* The warning about the bytes after a size-prefixed dump, or 0. */
int et_model_warn_trailing(et_inspector *insp)
{
    if (!insp->dump.trailing_bytes)
        return 0;
    return et_warnings_add(&insp->warnings, "%s: %" PRIu64 " bytes after the end of the "
                           "size-prefixed buffer were ignored", insp->etdump_label,
                           insp->dump.trailing_bytes);
}

/* Open's part of a deferred model (defer_model): the events of every run
 * verified on the threads pass 1 uses, its first error in run order
 * reported as pass 1 reports it (first_error), the dump's event counters
 * summed.  *ends_early: some profile event ends before it starts - an
 * error or a 32-bit wrap-around, which only the build can tell (it keeps
 * the last of an instruction's repeated events), so the caller builds at
 * open; when verification failed after such an event, the dump is left
 * unverified for that build, whose first error in run order may be the
 * event's.  Returns 0, or -1 with err set. */
int et_model_verify_runs(et_inspector *insp, bool *ends_early, et_error *err)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.insp = insp;
    b.err = err;
    if (build_threads(insp, &b.threads, true, err) != 0)
        return -1;
    int rc = -1;
    if (make_workers(&b, false) != 0) {
        nomem(err);
        goto out;
    }
    et_etdump *d = &insp->dump;
    uint64_t budget = d->tables_left;
    et_parallel_for(b.threads, b.nw, et_build_verify_pass, &b);
    if (first_error(&b) != 0) {
        /* a profile event that ends before it starts, in a run before the
         * one that failed, may be the error the build meets first: the
         * dump is taken back to unverified, and the caller builds it */
        bool early = false;
        for (unsigned k = 0; k < b.nw; k++)
            early |= b.w[k].dump.profile_ends_early;
        if (early) {
            memset(d->runs_verified, 0, d->run_data.count ? d->run_data.count : 1);
            d->tables_left = budget;
            *ends_early = true;
            rc = 0;
        }
        goto out;
    }
    for (unsigned k = 0; k < b.nw; k++) {
        add_event_counts(d, &b.w[k].dump);
        d->profile_ends_early |= b.w[k].dump.profile_ends_early;
    }
    *ends_early = d->profile_ends_early;
    rc = 0;
out:
    free_builder(&b);
    return rc;
}

/* Give the pages of what the build freed back to the system: the builder's
 * tables are many small allocations, on the threads' heaps as much as on
 * this one's, which the allocator would otherwise keep resident next to
 * the model (a dump of many small blocks: megabytes; glibc only). */
static void trim_heap(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

/* The build (see "How the model is built", builder_int.h); model_int.h. */
int et_model_build(et_inspector *insp, const et_inspector_options *o, et_error *err)
{
    et_inspector_int *ii = et_insp_int(insp);
    builder b;
    memset(&b, 0, sizeof b);
    b.insp = insp;
    b.err = err;
    b.converter = o->converter;
    b.converter_ud = o->converter_ud;
    if (build_threads(insp, &b.threads, !ii->model_deferred, err) != 0)
        return -1;
    int rc = -1;
    if (idtable_init(&b.es.tab, 1024) != 0 || idtable_init(&b.group_tab, 16) != 0 ||
        make_workers(&b, true) != 0) {
        nomem(err);
        goto out;
    }
    /* pass 1, then the first error in run order */
    et_parallel_for(b.threads, b.nw, et_build_pass1, &b);
    if (first_error(&b) != 0)
        goto out;
    if (merge(&b) != 0) {
        nomem(err);
        goto out;
    }
    /* every block at its final size; samples in one arena */
    size_t bytes = 0;
    for (size_t gi = 0; gi < b.n_groups; gi++) {
        const ggroup *g = &b.groups[gi];
        for (size_t e = 0; e < g->seq_len; e++)
            if (b.es.v[b.seq[g->seq_first + e]].has_p)
                bytes += g->n_runs * (sizeof(double) + sizeof(uint64_t));
    }
    /* The order keeps a dump of many small blocks from holding the
     * builder's tables and the model at once: pass 2 fills the samples,
     * per-run arrays and pools where they go (dest) and the pgroups are
     * freed; then the events are made from the signatures, which are
     * freed; then the blocks take over, and the groups are freed.  With
     * the samples deferred, the signatures, groups and dest are kept for
     * them (samples_pending). */
    char *arena = arena_alloc(insp, bytes);
    if (!arena || alloc_dests(&b, arena) != 0 || alloc_event_arrays(&b) != 0) {
        nomem(err);
        goto out;
    }
    /* pass 2: in parallel, or run by run on this thread for the converter.
     * With the statistics deferred (and no converter: a host callback is
     * called while the model is built, never later), the samples wait for
     * them too: a script that reads raw runs never fills them, and the
     * builder is kept until then (samples_pending, model_int.h) */
    bool defer_samples = o->defer_stats && !b.converter;
    b.fill = defer_samples ? FILL_DATA | FILL_DEBUG : FILL_ALL;
    if (!b.converter) {
        et_parallel_for(b.threads, b.nw, pass2, &b);
    } else {
        for (unsigned k = 0; k < b.nw; k++) {
            const worker *w = &b.w[k];
            for (size_t gi = 0; gi < w->n_groups; gi++)
                fill_runs_data(&b, &w->pg[gi]);
            for (size_t i = 0; i < w->n_done; i++)
                fill_runs(&b, w->ticks, &w->pg[w->run_group[i]], w->run_local[i],
                          w->run_local[i] + 1);
        }
    }
    for (unsigned k = 0; k < b.nw && !defer_samples; k++) {
        worker *w = &b.w[k];
        et_big_free(w->ticks, w->ticks_bytes, w->ticks_mapped);
        w->ticks = NULL;
        free_pgroups(w); /* pass 2 is done with them */
    }
    trim_heap();
    if (init_events(&b) != 0) {
        nomem(err);
        goto out;
    }
    free_event_arrays(&b); /* the events hold their arrays now */
    if (!defer_samples) {
        free_signatures(&b);
        trim_heap();
    }
    insp->blocks = calloc(b.n_groups ? b.n_groups : 1, sizeof *insp->blocks);
    if (!insp->blocks) {
        nomem(err);
        goto out;
    }
    insp->n_blocks = b.n_groups;
    for (size_t gi = 0; gi < b.n_groups; gi++)
        make_block(&b, gi);
    for (size_t gi = 0; gi < b.n_groups; gi++)
        if (block_allocators(&b, gi) != 0) {
            nomem(err);
            goto out;
        }
    if (!defer_samples) {
        free_dests(&b);
        free(b.groups);
        b.groups = NULL;
        b.groups_cap = 0;
    }
    if (o->defer_stats)
        ii->stats_pending = true;
    else if (all_stats(insp, b.threads, b.err) != 0)
        goto out;
    b.cmp.left = insp->debug_buffer.size > (UINT64_MAX - CMP_BUDGET_SLACK) / 2
                     ? UINT64_MAX
                     : 2 * insp->debug_buffer.size + CMP_BUDGET_SLACK;
    for (size_t gi = 0; gi < insp->n_blocks; gi++)
        if (finish_block(&b, gi) != 0)
            goto out;
    const char *lbl = insp->etdump_label;
    et_warnings *wl = &insp->warnings;
    if ((b.empty_events &&
         et_warnings_add(wl, "%s: %" PRIu64 " events had no profile, debug or allocation event "
                         "and were ignored", lbl, b.empty_events) != 0) ||
        (b.repeated_events &&
         et_warnings_add(wl, "%s: %" PRIu64 " profile or debug events repeated an earlier event "
                         "of the same run (an instruction executed more than once); as the "
                         "reference does, only the last occurrence in each run is kept",
                         lbl, b.repeated_events) != 0) ||
        (b.bad_allocator_ids &&
         et_warnings_add(wl, "%s: %" PRIu64 " allocation events name an allocator that their "
                         "run does not have (allocator ids are 1-based)",
                         lbl, b.bad_allocator_ids) != 0) ||
        (!ii->model_deferred && et_model_warn_trailing(insp) != 0) ||
        (b.cmp.exhausted &&
         et_warnings_add(wl, "%s: the runs' debug data point at more of the debug buffer than "
                         "twice its size plus 64 MiB; the rest was not compared across runs "
                         "(warnings of runs that logged different debug data may be missing)",
                         lbl) != 0) ||
        (b.tensor_values && insp->debug_buffer.size == 0 &&
         et_warnings_add(wl, "%s: no debug buffer given; tensor values of debug events are not "
                         "available", lbl) != 0)) {
        nomem(err);
        goto out;
    }
    rc = 0;
    if (defer_samples) {
        builder *kept = malloc(sizeof *kept);
        if (!kept) {
            fill_samples(&b); /* now: nothing is lost but the time */
        } else {
            *kept = b;
            kept->err = NULL; /* the caller's; filling reports nothing */
            ii->samples_pending = kept;
            return 0;
        }
    }
out:
    free_builder(&b);
    trim_heap();
    return rc;
}

/* The blocks of a legacy profiler dump: one EventBlock per block name, its
 * iterations as runs; the memory events of the (identical) iterations are
 * shared, each allocator once in the block's list, 1-based. */
int et_model_from_legacy(et_inspector *insp, et_error *err)
{
    const et_legacy *lg = insp->legacy;
    insp->blocks = calloc(lg->n_blocks ? lg->n_blocks : 1, sizeof *insp->blocks);
    if (!insp->blocks)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    for (size_t b = 0; b < lg->n_blocks; b++) {
        const et_legacy_block *lb = &lg->blocks[b];
        et_block *blk = &insp->blocks[b];
        size_t R = lb->n_iterations;
        insp->n_blocks = b + 1;
        blk->name = (et_str){lb->name, lb->name_len};
        blk->bundled_input_index = -1;
        blk->n_runs = R;
        if (alloc_run_arrays(blk, R, true) != 0)
            return et_fail(err, ET_ERR_NOMEM, "out of memory");
        for (size_t r = 0; r < R; r++) {
            blk->runs[r] = lb->raw_index[r];
            blk->allocation_count[r] = (uint32_t)lb->n_allocations;
        }
        if (lb->n_mem) {
            blk->allocators = calloc(lb->n_mem, sizeof *blk->allocators);
            if (!blk->allocators)
                return et_fail(err, ET_ERR_NOMEM, "out of memory");
            for (size_t k = 0; k < lb->n_mem; k++) {
                const char *nm = lb->mem[k].allocator_name;
                blk->allocators[k] = nm ? (et_str){nm, strlen(nm)} : (et_str){NULL, 0};
            }
            blk->n_allocators = lb->n_mem;
        }
        if (lb->n_allocations) {
            blk->allocations = calloc(lb->n_allocations, sizeof *blk->allocations);
            if (!blk->allocations)
                return et_fail(err, ET_ERR_NOMEM, "out of memory");
            for (size_t k = 0; k < lb->n_allocations; k++) {
                blk->allocations[k].allocator_id = (int32_t)lb->allocations[k].mem + 1;
                blk->allocations[k].allocation_size = lb->allocations[k].allocation_size;
            }
        }
        blk->n_events = lb->n_events;
        blk->events = calloc(lb->n_events ? lb->n_events : 1, sizeof *blk->events);
        double *tmp = malloc((R ? R : 1) * sizeof *tmp);
        if (!blk->events || !tmp) {
            free(tmp);
            return et_fail(err, ET_ERR_NOMEM, "out of memory");
        }
        for (size_t e = 0; e < lb->n_events; e++) {
            const et_legacy_event *le = &lb->events[e];
            et_event *ev = &blk->events[e];
            ev->name_str = (et_str){le->name, le->name_len};
            ev->instruction_id = (int32_t)le->instruction_idx;
            ev->has_chain_index = true;
            ev->chain_index = le->chain_idx;
            ev->num_outputs = 1;
            ev->has_perf_data = R > 0;
            ev->perf_data.n = R;
            ev->perf_data.raw = malloc(R * sizeof(double));
            ev->start_time = malloc(R * sizeof(uint64_t));
            if (!ev->perf_data.raw || !ev->start_time) {
                free(tmp);
                return et_fail(err, ET_ERR_NOMEM, "out of memory");
            }
            memcpy(ev->perf_data.raw, le->duration, R * sizeof(double));
            memcpy(ev->start_time, le->start_ticks, R * sizeof(uint64_t));
            perf_stats(&ev->perf_data, tmp);
        }
        free(tmp);
    }
    return 0;
}

/* Free the model: the blocks, the samples, what the build kept. */
void et_model_free(et_inspector *insp)
{
    et_inspector_int *ii = et_insp_int(insp);
    /* an ETDump's events, in their pool (the blocks may not be there
     * yet: init_events made them first) */
    for (size_t e = 0; ii->event_pool && e < ii->n_event_pool; e++) {
        et_event *ev = &ii->event_pool[e];
        free(ev->raw_delegate_debug_metadatas);
        free(ev->debug_first);
        free(ev->debug_count);
    }
    for (size_t i = 0; insp->blocks && i < insp->n_blocks; i++) {
        et_block *blk = &insp->blocks[i];
        /* n_events is set before the events' allocation, which may fail */
        for (size_t e = 0; !ii->event_pool && blk->events && e < blk->n_events; e++) {
            et_event *ev = &blk->events[e];
            if (!ii->samples) { /* else they live in the arena */
                free(ev->perf_data.raw);
                free(ev->start_time);
            }
            free(ev->raw_delegate_debug_metadatas);
            free(ev->debug_first);
            free(ev->debug_count);
        }
        if (!ii->event_pool) { /* else they live in the pools */
            free(blk->events);
            free(blk->runs); /* and the other per-run arrays (alloc_run_arrays) */
        }
        free(blk->value_pool);
        free(blk->allocators);
        free(blk->allocations);
    }
    free(insp->blocks);
    free(ii->event_pool);
    free(ii->run_pool);
    free(ii->id_texts);
    ii->id_texts = NULL;
    ii->event_pool = NULL;
    ii->n_event_pool = 0;
    ii->run_pool = NULL;
    et_big_free(ii->samples, ii->samples_size, ii->samples_mapped);
    free(insp->run_ticks);
    if (ii->samples_pending) {
        free_builder(ii->samples_pending);
        free(ii->samples_pending);
    }
    insp->blocks = NULL;
    insp->n_blocks = 0;
    ii->samples = NULL;
    ii->samples_mapped = false;
    insp->run_ticks = NULL;
    ii->samples_pending = NULL;
}

