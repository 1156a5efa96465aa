/* model.c - ETDump -> EventBlocks; see model.h and spec §3-§4. */
#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
#include "model/model.h"
#include "model/model_int.h"

#include "model/link.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "base/parallel.h"
#include "base/stats.h"
#include "base/strbuf.h"

/* ------------------------------------------------------------------ */
/* Small helpers */

/* Grow *p (elements of `size` bytes, capacity *cap) to hold `need`. */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
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

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
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

static uint64_t hash_u64(uint64_t h, uint64_t v)
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

static void sig_from_event(const et_raw_event *e, sig_part *s)
{
    static const char empty[1] = "";
    s->name = e->name.p ? e->name : (et_str){empty, 0};
    s->has_instr = e->instruction_id != -1;
    s->instr = e->instruction_id;
    s->has_did = e->delegate_debug_id_int != -1;
    s->did = e->delegate_debug_id_int;
    s->dstr = (e->delegate_debug_id_str.p && e->delegate_debug_id_str.n) ? e->delegate_debug_id_str
                                                                         : (et_str){NULL, 0};
}

static uint64_t hash_part(uint64_t h, const sig_part *s)
{
    h = hash_bytes(h, s->name.p, s->name.n);
    h = hash_u64(h, ((uint64_t)s->has_instr << 33) | (uint32_t)s->instr);
    h = hash_u64(h, ((uint64_t)s->has_did << 33) | (uint32_t)s->did);
    if (s->dstr.p)
        h = hash_bytes(h ^ 0x5a, s->dstr.p, s->dstr.n);
    return h;
}

static inline bool part_eq(const sig_part *a, const sig_part *b)
{
    /* integers first: they differ far more often than names do */
    return a->has_instr == b->has_instr && (!a->has_instr || a->instr == b->instr) &&
           a->has_did == b->has_did && (!a->has_did || a->did == b->did) &&
           str_eq(a->name, b->name) && str_eq(a->dstr, b->dstr);
}

/* Equality of EventSignatures, hash not considered. */
static bool esig_same(const esig *a, const esig *b)
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

static int idtable_init(idtable *t, size_t cap)
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
static int idtable_grow(idtable *t, uint64_t (*hash_of)(const void *, uint32_t), const void *ctx)
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

static uint64_t esig_hash_of(const void *set, uint32_t id)
{
    return ((const esig_set *)set)->v[id].hash;
}

static uint64_t esig_hash(const esig *s)
{
    uint64_t h = hash_u64(0x1234, (uint32_t)s->instr_raw);
    h = hash_u64(h, (uint64_t)s->has_p << 1 | s->has_d);
    if (s->has_p)
        h = hash_part(h, &s->p);
    if (s->has_d)
        h = hash_part(h ^ 0xd, &s->d);
    return h;
}

/* Intern an EventSignature (its hash set); returns its id or -1 on out of
 * memory. */
static long intern_esig(esig_set *set, const esig *s)
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
 *   inspector's, so blocks come out in order of first appearance; every
 *   array of a block is allocated once at its final size, the samples of
 *   all blocks in one arena.
 *  pass 2, in parallel: each worker turns its runs' ticks into durations
 *   and start times in the event-major sample arrays (a transposition in
 *   tiles; the dump is not read again), with their debug entries, outputs
 *   and allocations.  With a delegate
 *   time-scale converter (a host callback) this pass runs on the calling
 *   thread, run by run, as the converter expects.
 *  statistics, in parallel per event; then names, warnings and the debug
 *   data comparisons on the calling thread. */

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

/* A group of runs with one RunSignature, as one worker saw it. */
typedef struct lgroup {
    et_str name;
    int32_t bii;
    uint32_t seq_first, seq_len; /* the worker's EventSignature ids, in its seq pool */
    uint64_t hash;
    bool has_debug;              /* some EventSignature has a debug part */
    size_t n_runs;
    uint32_t *runs; size_t runs_cap;
    /* per (run, event), run-major (r * seq_len + k); freed after pass 2 */
    const et_ticks *tbase;                   /* the worker's ticks */
    size_t *row; size_t row_cap;             /* per run: its ProfileEvents' start and
                                                end ticks at tbase + row[r], in slot order */
    uint32_t *pos0;                          /* per event: its first run's ProfileEvent */
    et_meta_at *meta; size_t n_meta, meta_cap; /* non-empty delegate_debug_metadata */
    uint32_t *dbg_first; size_t dbg_first_cap;
    uint32_t *dbg_count; size_t dbg_count_cap;
    uint8_t *any_meta;           /* per event: some run has non-empty metadata */
    /* values, run outputs and allocations, per run */
    uint32_t *values; size_t n_values, values_cap;
    uint32_t *out_first, *out_count; size_t out_first_cap, out_count_cap;
    et_allocation *allocs; size_t n_allocs, allocs_cap;
    uint32_t *alloc_first, *alloc_count; size_t alloc_first_cap, alloc_count_cap;
    uint32_t first_run;          /* RunData index of its first run */
    /* set by the merge */
    uint32_t global;             /* the block */
    size_t run_offset;           /* its first run's place among the block's runs */
    size_t value_shift, alloc_shift;
} lgroup;

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
    idtable group_tab;
    uint32_t *seq; size_t n_seq, seq_cap; /* pool of EventSignature id sequences */
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
    int32_t bii;
    uint32_t seq_first, seq_len; /* the builder's EventSignature ids */
    uint64_t hash;
    bool has_debug;
    uint32_t first_run;
    size_t n_runs, n_values, n_allocs;
    uint8_t *any_meta;
    bool *delegated;             /* per event: a delegated profile event */
    uint32_t pe_first;           /* run 0's ProfileEvent per event: in pe0 */
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

typedef struct builder {
    et_inspector *insp;
    et_error *err;
    esig_set es;
    ggroup *groups; size_t n_groups, groups_cap;
    idtable group_tab;
    uint32_t *seq; size_t n_seq, seq_cap;
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

static int nomem(et_error *err)
{
    return et_fail(err, ET_ERR_NOMEM, "out of memory while building the event model");
}

int et_inspector_warn(et_inspector *insp, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **w = realloc(insp->warnings, (insp->n_warnings + 1) * sizeof *w);
    if (!w)
        return -1;
    insp->warnings = w;
    size_t n = strlen(buf) + 1;
    if (!(w[insp->n_warnings] = malloc(n)))
        return -1;
    memcpy(w[insp->n_warnings], buf, n);
    insp->n_warnings++;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Pass 1, step A: collate one run's events (w->ev) into InstructionEvents. */

static int collate_run(worker *w, const et_run *run)
{
    uint32_t n = run->events.count;
    /* hash table for this run's InstructionEvents, cleared by stamping */
    size_t want = 64;
    while (want < (size_t)n * 2)
        want *= 2;
    if (want > w->ie_slots_cap) {
        free(w->ie_slots);
        free(w->ie_stamp);
        w->ie_slots = calloc(want, sizeof *w->ie_slots);
        w->ie_stamp = calloc(want, sizeof *w->ie_stamp);
        if (!w->ie_slots || !w->ie_stamp)
            return nomem(&w->err);
        w->ie_slots_cap = want;
        w->ie_mask = want - 1;
    }
    w->n_ies = 0;
    uint32_t stamp = ++w->run_stamp;
    for (uint32_t j = 0; j < n; j++) {
        et_raw_event *e = &w->ev[j];
        w->next[j] = -1;
        if (e->kind == ET_EV_EMPTY) {
            w->empty_events++;
            continue;
        }
        if (e->kind == ET_EV_ALLOCATION)
            continue;
        uint64_t h = hash_u64(0x77, (uint32_t)e->instruction_id);
        h = hash_u64(h, e->chain_value ^ ((uint64_t)e->chain_neg << 63));
        h = hash_u64(h, (uint32_t)e->delegate_debug_id_int);
        if (e->delegate_debug_id_str.p)
            h = hash_bytes(h ^ 0x3c, e->delegate_debug_id_str.p, e->delegate_debug_id_str.n);
        size_t i = h & w->ie_mask;
        ievent *ie = NULL;
        while (w->ie_stamp[i] == stamp) {
            ievent *c = &w->ies[w->ie_slots[i]];
            if (c->hash == h && c->instr == e->instruction_id && c->chain == e->chain_value &&
                c->chain_neg == e->chain_neg && c->did == e->delegate_debug_id_int &&
                str_eq(c->dstr, e->delegate_debug_id_str)) {
                ie = c;
                break;
            }
            i = (i + 1) & w->ie_mask;
        }
        if (!ie) {
            if (GROW(w->ies, w->ies_cap, w->n_ies + 1) != 0)
                return nomem(&w->err);
            ie = &w->ies[w->n_ies];
            *ie = (ievent){e->instruction_id, e->chain_value, e->chain_neg,
                           e->delegate_debug_id_int, e->delegate_debug_id_str, h, -1, -1, -1, -1,
                           0, UINT32_MAX};
            w->ie_stamp[i] = stamp;
            w->ie_slots[i] = (uint32_t)w->n_ies;
            w->n_ies++;
        }
        if (e->kind == ET_EV_PROFILE) {
            if (ie->p_tail >= 0)
                w->next[ie->p_tail] = (int32_t)j;
            else
                ie->p_head = (int32_t)j;
            ie->p_tail = (int32_t)j;
        } else if (!e->is_output) {
            /* program outputs are not stored with their instruction (spec §3.1) */
            if (ie->d_tail >= 0)
                w->next[ie->d_tail] = (int32_t)j;
            else
                ie->d_head = (int32_t)j;
            ie->d_tail = (int32_t)j;
            ie->d_count++;
        }
    }
    return 0;
}

/* A large allocation: from 4 MB on mapped, with huge pages (fewer page
 * faults and TLB misses), else malloc'ed; *mapped says which (big_free). */
static void *big_alloc(size_t bytes, bool *mapped)
{
    *mapped = false;
#if defined(MADV_HUGEPAGE)
    if (bytes >= ((size_t)4 << 20)) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            madvise(p, bytes, MADV_HUGEPAGE);
            *mapped = true;
            return p;
        }
    }
#endif
    return malloc(bytes ? bytes : 1);
}

static void big_free(void *p, size_t bytes, bool mapped)
{
    if (mapped)
        munmap(p, bytes);
    else
        free(p);
}

/* Make esig_slot / esig_stamp cover every interned EventSignature. */
static int ensure_esig_maps(worker *w)
{
    if (w->es.n <= w->esig_slot_cap)
        return 0;
    size_t old = w->esig_slot_cap, cap = old;
    if (GROW(w->esig_slot, cap, w->es.n) != 0)
        return -1;
    uint32_t *st = realloc(w->esig_stamp, cap * sizeof *st);
    if (!st)
        return -1;
    memset(st + old, 0, (cap - old) * sizeof *st);
    w->esig_stamp = st;
    w->esig_slot_cap = cap;
    return 0;
}

/* Step B: EventSignatures of the run, in order, later duplicates replacing
 * earlier ones in place.  Counts the replaced ones in *repeated. */
static int signatures_of_run(worker *w, uint64_t *repeated)
{
    w->n_slots = 0;
    uint32_t stamp = w->run_stamp;
    for (size_t k = 0; k < w->n_ies; k++) {
        ievent *ie = &w->ies[k];
        if (ie->p_head < 0 && ie->d_head < 0)
            continue; /* program outputs only */
        esig s;
        memset(&s, 0, sizeof s);
        s.instr_raw = ie->instr;
        if (ie->d_head >= 0) {
            s.has_d = true;
            sig_from_event(&w->ev[ie->d_head], &s.d);
        }
        int32_t pe = ie->p_head;
        do {
            if (pe >= 0) {
                s.has_p = true;
                sig_from_event(&w->ev[pe], &s.p);
            }
            /* runs usually repeat the previous run: try the signature at
             * the same position of its group before hashing */
            long id = -1;
            if (w->last_group >= 0) {
                const lgroup *lg = &w->groups[w->last_group];
                if (w->n_slots < lg->seq_len) {
                    uint32_t pred = w->seq[lg->seq_first + w->n_slots];
                    if (esig_same(&w->es.v[pred], &s))
                        id = pred;
                }
            }
            if (id < 0) {
                s.hash = esig_hash(&s);
                id = intern_esig(&w->es, &s);
            }
            if (id < 0 || ensure_esig_maps(w) != 0)
                return nomem(&w->err);
            if (w->esig_stamp[id] == stamp) {
                rslot *r = &w->slots[w->esig_slot[id]];
                r->ie = (uint32_t)k;
                r->pe = pe;
                (*repeated)++;
            } else {
                if (GROW(w->slots, w->slots_cap, w->n_slots + 1) != 0)
                    return nomem(&w->err);
                w->esig_stamp[id] = stamp;
                w->esig_slot[id] = (uint32_t)w->n_slots;
                w->slots[w->n_slots++] = (rslot){(uint32_t)id, (uint32_t)k, pe};
            }
            if (pe >= 0)
                pe = w->next[pe];
        } while (pe >= 0);
    }
    return 0;
}

static uint64_t lgroup_hash_of(const void *w, uint32_t id)
{
    return ((const worker *)w)->groups[id].hash;
}

/* Step C: find (or create) the worker's group of this run's RunSignature. */
static long group_of_run(worker *w, const et_run *run, uint32_t run_index)
{
    uint64_t h = hash_bytes(0xabc, run->name.p, run->name.n);
    h = hash_u64(h, (uint32_t)run->bundled_input_index);
    for (size_t k = 0; k < w->n_slots; k++)
        h = hash_u64(h, w->slots[k].esig);
    idtable *t = &w->group_tab;
    size_t i = h & t->mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (!id)
            break;
        lgroup *g = &w->groups[id - 1];
        if (g->hash == h && g->bii == run->bundled_input_index && g->seq_len == w->n_slots &&
            str_eq(g->name, run->name)) {
            bool same = true;
            for (size_t k = 0; k < w->n_slots && same; k++)
                same = w->seq[g->seq_first + k] == w->slots[k].esig;
            if (same)
                return id - 1;
        }
        i = (i + 1) & t->mask;
    }
    if (w->n_groups + 1 > UINT32_MAX / 2 || GROW(w->groups, w->groups_cap, w->n_groups + 1) != 0 ||
        GROW(w->seq, w->seq_cap, w->n_seq + w->n_slots) != 0)
        return -1;
    lgroup *g = &w->groups[w->n_groups];
    memset(g, 0, sizeof *g);
    g->name = run->name;
    g->bii = run->bundled_input_index;
    g->hash = h;
    g->seq_first = (uint32_t)w->n_seq;
    g->seq_len = (uint32_t)w->n_slots;
    g->first_run = run_index;
    for (size_t k = 0; k < w->n_slots; k++) {
        w->seq[w->n_seq++] = w->slots[k].esig;
        if (w->es.v[w->slots[k].esig].has_d)
            g->has_debug = true;
    }
    g->any_meta = calloc(w->n_slots ? w->n_slots : 1, 1);
    if (!g->any_meta)
        return -1;
    t->slots[i] = (uint32_t)(w->n_groups + 1);
    w->n_groups++;
    if (++t->used * 2 > t->mask && idtable_grow(t, lgroup_hash_of, w) != 0)
        return -1;
    return (long)(w->n_groups - 1);
}

/* Does the run just decoded (w->ev, n events) repeat the template (the
 * previous run) event for event, in everything collation and signatures
 * read?  Then its InstructionEvents, slots and group are the template's. */
static bool same_as_template(const worker *w, const et_run *run, uint32_t n)
{
    if (!w->have_tpl || w->tev_n != n || w->tpl_bii != run->bundled_input_index ||
        !str_eq(w->tpl_name, run->name))
        return false;
    const et_raw_event *a = w->ev, *b = w->tev;
    for (uint32_t j = 0; j < n; j++, a++, b++) {
        if (a->kind != b->kind)
            return false;
        if (a->kind != ET_EV_PROFILE && a->kind != ET_EV_DEBUG)
            continue;
        if (a->instruction_id != b->instruction_id ||
            a->delegate_debug_id_int != b->delegate_debug_id_int ||
            a->chain_value != b->chain_value || a->chain_neg != b->chain_neg ||
            a->name.n != b->name.n || (a->name.p == NULL) != (b->name.p == NULL) ||
            !str_eq(a->delegate_debug_id_str, b->delegate_debug_id_str) ||
            (a->kind == ET_EV_DEBUG && a->is_output != b->is_output) ||
            (a->name.p != b->name.p && !et_bytes_equal(a->name.p, b->name.p, a->name.n)))
            return false;
    }
    return true;
}

/* Append the run just collated (w->ev, slots, ies) to group `g`: where its
 * profile events are, its debug entries, outputs and allocations.  Checks
 * every duration (the only error of pass 2, found here so that errors come
 * out in run order).  Returns 0, or -1 with w->err set. */
static int append_run(worker *w, lgroup *g, const et_run *run, uint32_t run_index,
                      bool note)
{
    et_run_ticks rt = {UINT64_MAX, UINT64_MAX, 0, false, false, false};
    uint64_t all = 0;
    size_t E = g->seq_len, r = g->n_runs, need = (r + 1) * E;
    if (E > w->ticks_cap - w->ticks_n)
        return et_fail(&w->err, ET_ERR_VALUE, "run_data[%" PRIu32 "]: more slots than events",
                       run_index); /* cannot happen: every slot holds an event */
    if (GROW(g->runs, g->runs_cap, r + 1) != 0 || GROW(g->row, g->row_cap, r + 1) != 0 ||
        GROW(g->out_first, g->out_first_cap, r + 1) != 0 ||
        GROW(g->out_count, g->out_count_cap, r + 1) != 0 ||
        GROW(g->alloc_first, g->alloc_first_cap, r + 1) != 0 ||
        GROW(g->alloc_count, g->alloc_count_cap, r + 1) != 0)
        return nomem(&w->err);
    if (g->has_debug && (GROW(g->dbg_first, g->dbg_first_cap, need) != 0 ||
                         GROW(g->dbg_count, g->dbg_count_cap, need) != 0))
        return nomem(&w->err);
    if (r == 0 && !(g->pos0 = calloc(E ? E : 1, sizeof *g->pos0)))
        return nomem(&w->err);
    g->runs[r] = run_index;
    g->tbase = w->ticks;
    g->row[r] = w->ticks_n;
    et_ticks *tk = w->ticks + w->ticks_n;
    w->ticks_n += E;
    for (size_t k = 0; k < E; k++) {
        const rslot *sl = &w->slots[k];
        if (sl->pe >= 0) {
            const et_raw_event *e = &w->ev[sl->pe];
            uint64_t ticks;
            bool wrapped = false;
            if (e->start_time > e->end_time &&
                !et_elapsed_ticks(e->start_time, e->end_time, &ticks, &wrapped))
                return et_fail(&w->err, ET_ERR_VALUE,
                               "%s: run_data[%" PRIu32 "]: profile event at byte %" PRIu32
                               " ends before it starts (start_time %" PRIu64 ", end_time %" PRIu64
                               ") and is not a 32-bit wrap-around: expected start_time and "
                               "end_time to be less than 4294967295 for cases where there is "
                               "wrap-around of time values",
                               w->insp->etdump_label, run_index, e->pos, e->start_time,
                               e->end_time);
            w->wrapped_events += wrapped;
            uint64_t s = e->start_time;
            tk[k] = (et_ticks){s, e->end_time};
            all |= s | e->end_time;
            if (e->delegate_debug_id_int != -1 || e->delegate_debug_id_str.n) {
                if (s && (!rt.has_dlo || s < rt.dlo))
                    rt.dlo = s, rt.has_dlo = true;
            } else {
                rt.has_lo = true;
                if (s < (UINT64_C(1) << 31))
                    rt.lo_low = s < rt.lo_low ? s : rt.lo_low;
                else
                    rt.lo_high = s < rt.lo_high ? s : rt.lo_high;
                rt.wrapped |= e->end_time < s;
            }
            if (r == 0)
                g->pos0[k] = e->pos;
            if (e->metadata.n > 0) {
                if (GROW(g->meta, g->meta_cap, g->n_meta + 1) != 0)
                    return nomem(&w->err);
                g->meta[g->n_meta++] = (et_meta_at){(uint32_t)r, (uint32_t)k, e->metadata};
                g->any_meta[k] = 1;
            }
        } else {
            tk[k] = (et_ticks){0, 0};
        }
        if (g->has_debug) {
            ievent *ie = &w->ies[sl->ie];
            if (ie->pool_first == UINT32_MAX) {
                if (GROW(g->values, g->values_cap, g->n_values + ie->d_count) != 0)
                    return nomem(&w->err);
                ie->pool_first = (uint32_t)g->n_values;
                for (int32_t j = ie->d_head; j >= 0; j = w->next[j])
                    g->values[g->n_values++] = w->ev[j].value_pos;
            }
            g->dbg_first[r * E + k] = ie->pool_first;
            g->dbg_count[r * E + k] = ie->d_count;
        }
    }
    /* program outputs, allocations, and the tensor check of debug values
     * (none when the run has only profile and empty events) */
    w->n_outs = w->n_allocs = 0;
    for (uint32_t j = 0; j < (w->tpl_other ? run->events.count : 0); j++) {
        const et_raw_event *e = &w->ev[j];
        if (e->kind == ET_EV_ALLOCATION) {
            if (GROW(w->allocs, w->allocs_cap, w->n_allocs + 1) != 0)
                return nomem(&w->err);
            w->allocs[w->n_allocs++] = (et_allocation){e->allocator_id, e->allocation_size};
            if (e->allocator_id < 1 || (uint32_t)e->allocator_id > run->allocators.count)
                w->bad_allocator_ids++;
        } else if (e->kind == ET_EV_DEBUG) {
            if (!w->tensor_values) {
                et_value_type vt = et_etdump_value_type(&w->dump, e->value_pos);
                w->tensor_values = vt == ET_VAL_TENSOR || vt == ET_VAL_TENSOR_LIST;
            }
            if (e->is_output) {
                if (GROW(w->outs, w->outs_cap, w->n_outs + 1) != 0)
                    return nomem(&w->err);
                w->outs[w->n_outs++] = e->value_pos;
            }
        }
    }
    if (GROW(g->values, g->values_cap, g->n_values + w->n_outs) != 0 ||
        GROW(g->allocs, g->allocs_cap, g->n_allocs + w->n_allocs) != 0)
        return nomem(&w->err);
    g->out_first[r] = (uint32_t)g->n_values;
    g->out_count[r] = (uint32_t)w->n_outs;
    if (w->n_outs) /* memcpy from/to NULL is undefined even for 0 bytes */
        memcpy(g->values + g->n_values, w->outs, w->n_outs * sizeof *w->outs);
    g->n_values += w->n_outs;
    g->alloc_first[r] = (uint32_t)g->n_allocs;
    g->alloc_count[r] = (uint32_t)w->n_allocs;
    if (w->n_allocs)
        memcpy(g->allocs + g->n_allocs, w->allocs, w->n_allocs * sizeof *w->allocs);
    g->n_allocs += w->n_allocs;
    g->n_runs++;
    if (note) {
        w->run_ticks[run_index] = rt;
        w->ticks_over_32 |= (all >> 32) != 0;
    }
    return 0;
}

/* Give back the pages of the mapped ETDump that lie wholly inside bytes
 * [lo, hi) of its buffer: pass 1 has read them and nothing reads them
 * again but names and debug values, which simply fault in again from the
 * page cache.  Never for an ETDump given as bytes (not a mapping), nor
 * when the caller asked to keep the pages (keep_pages). */
static void release_pages(const worker *w, uint32_t lo, uint32_t hi)
{
    const et_inspector *insp = w->insp;
    if (!insp->etdump_file.data || et_insp_cint(insp)->keep_pages || hi <= lo)
        return;
    uintptr_t base = (uintptr_t)insp->dump.buf.data;
    uintptr_t a = (base + lo + 4095) & ~(uintptr_t)4095, z = (base + hi) & ~(uintptr_t)4095;
    if (z > a)
        madvise((void *)a, z - a, MADV_DONTNEED);
}

/* Runs read are given back in spans of RELEASE_SPAN bytes or more: a run
 * may be smaller than a page (narrow dumps). */
#define RELEASE_SPAN (256u << 10)

/* Add bytes [lo, hi), a run read, to the span to give back; give the span
 * back when it is large, or when [lo, hi) is not next to it (runs lie one
 * after another, in either direction, in a writer's layout). */
static void release_behind(worker *w, uint32_t lo, uint32_t hi)
{
    if (hi <= lo)
        return;
    if (w->rel_hi > w->rel_lo) {
        if ((uint64_t)lo <= (uint64_t)w->rel_hi + 4096 && (uint64_t)hi + 4096 >= w->rel_lo) {
            lo = lo < w->rel_lo ? lo : w->rel_lo;
            hi = hi > w->rel_hi ? hi : w->rel_hi;
        } else {
            release_pages(w, w->rel_lo, w->rel_hi);
        }
    }
    w->rel_lo = lo;
    w->rel_hi = hi;
    if (hi - lo >= RELEASE_SPAN) {
        release_pages(w, lo, hi);
        w->rel_lo = w->rel_hi = 0;
    }
}

/* The ticks of run i's profile events (w->ev, n events) for the trace:
 * insp->run_ticks[i] (model.h).  append_run notes them from the run's
 * slots when no profile event of the run was replaced by a repetition
 * (then the slots hold every one); this loop is for the other runs. */
static void note_ticks(worker *w, uint32_t i, uint32_t n)
{
    const uint64_t two31 = UINT64_C(1) << 31;
    et_run_ticks t = {UINT64_MAX, UINT64_MAX, 0, false, false, false};
    uint64_t all = 0;
    for (uint32_t j = 0; j < n; j++) {
        const et_raw_event *e = &w->ev[j];
        if (e->kind != ET_EV_PROFILE)
            continue;
        uint64_t s = e->start_time;
        all |= s | e->end_time;
        if (e->delegate_debug_id_int != -1 || e->delegate_debug_id_str.n) {
            if (s && (!t.has_dlo || s < t.dlo))
                t.dlo = s, t.has_dlo = true;
            continue;
        }
        t.has_lo = true;
        if (s < two31)
            t.lo_low = s < t.lo_low ? s : t.lo_low;
        else
            t.lo_high = s < t.lo_high ? s : t.lo_high;
        t.wrapped |= e->end_time < s;
    }
    w->run_ticks[i] = t;
    w->ticks_over_32 |= (all >> 32) != 0;
}

/* The bytes [*lo, *hi) of run `run`: its events vector and its events'
 * tables, the first at `a` and the last at `z` (when it has events).  A
 * run's tables lie in order (either way) after its events vector: a
 * writer's layout; were they not, pages given back would only be read in
 * again. */
static void run_span(const et_run *run, uint32_t a, uint32_t z, uint32_t *lo, uint32_t *hi)
{
    uint32_t n = run->events.count;
    *lo = run->events.pos, *hi = run->events.pos + 4 * n;
    if (n) { /* in either order */
        *lo = a < *lo ? a : *lo;
        *lo = z < *lo ? z : *lo;
        *hi = a > *hi ? a : *hi;
        *hi = z > *hi ? z : *hi;
    }
}

/* Pass 1 for run i of worker w.  Returns 0, or -1 with w->err set. */
static int pass1_run(worker *w, uint32_t i)
{
    et_run run;
    et_etdump_run(&w->dump, i, &run);
    if (!run.has_events)
        return 0; /* spec §3.1: a run without an events vector makes no block */
    uint32_t n = run.events.count;
    if (GROW(w->ev, w->ev_cap, n) != 0 || GROW(w->next, w->next_cap, n) != 0)
        return nomem(&w->err);
    /* verify the run's events and decode them in the same visit */
    uint64_t before = w->dump.tables_left;
    if (et_etdump_verify_run(&w->dump, i, w->ev, &w->err) != 0)
        return et_error_prefix(&w->err, w->insp->etdump_label);
    w->run_cost[i] = before - w->dump.tables_left;
    long gi;
    uint64_t repeats;
    if (same_as_template(w, &run, n)) {
        gi = w->tpl_group;
        w->repeated_events += w->tpl_repeated;
        repeats = w->tpl_repeated;
        w->empty_events += w->tpl_empty;
        if (w->groups[gi].has_debug)
            for (size_t k = 0; k < w->n_ies; k++)
                w->ies[k].pool_first = UINT32_MAX;
    } else {
        uint64_t empty0 = w->empty_events, repeated = 0;
        if (collate_run(w, &run) != 0 || signatures_of_run(w, &repeated) != 0)
            return -1;
        if ((gi = group_of_run(w, &run, i)) < 0)
            return nomem(&w->err);
        w->repeated_events += repeated;
        w->tpl_repeated = repeated;
        repeats = repeated;
        w->tpl_empty = w->empty_events - empty0;
        w->tpl_group = gi;
        w->tpl_name = run.name;
        w->tpl_bii = run.bundled_input_index;
        w->tpl_other = false;
        for (uint32_t j = 0; j < n && !w->tpl_other; j++)
            w->tpl_other = w->ev[j].kind == ET_EV_DEBUG || w->ev[j].kind == ET_EV_ALLOCATION;
    }
    lgroup *g = &w->groups[gi];
    w->run_group[w->n_done] = (uint32_t)gi;
    w->run_local[w->n_done] = (uint32_t)g->n_runs;
    if (repeats)
        note_ticks(w, i, n);
    if (append_run(w, g, &run, i, repeats == 0) != 0)
        return -1;
    w->n_done++;
    w->last_group = gi;
    /* this run's events are the next run's template (which reads their
     * names): the pages of the previous template can go */
    uint32_t lo, hi;
    run_span(&run, n ? w->ev[0].pos : 0, n ? w->ev[n - 1].pos : 0, &lo, &hi);
    if (w->have_tpl)
        release_behind(w, w->tpl_lo, w->tpl_hi);
    w->tpl_lo = lo;
    w->tpl_hi = hi;
    et_raw_event *t = w->tev;
    size_t tc = w->tev_cap;
    w->tev = w->ev, w->tev_cap = w->ev_cap;
    w->ev = t, w->ev_cap = tc;
    w->tev_n = n;
    w->have_tpl = true;
    return 0;
}

/* one(w, i) for every run i of worker w, in order.  At the first that
 * fails (-1, w->err set) the worker stops and notes where, for
 * first_error; returns whether every run passed. */
static bool each_run(worker *w, int (*one)(worker *, uint32_t))
{
    for (uint32_t i = w->r0; i < w->r1; i++)
        if (one(w, i) != 0) {
            w->failed = true;
            w->fail_run = i;
            return false;
        }
    return true;
}

static void pass1(void *ctx, size_t k)
{
    worker *w = &((builder *)ctx)->w[k];
    if (!each_run(w, pass1_run))
        return;
    if (w->have_tpl)
        release_behind(w, w->tpl_lo, w->tpl_hi);
    release_pages(w, w->rel_lo, w->rel_hi);
}

/* The verification alone, for a deferred model (verify_runs): run i of
 * worker w checked as pass 1 does (w->dump notes a profile event that ends
 * before it starts), its pages given back behind it (unless kept).
 * Returns 0, or -1 with w->err set. */
static int verify_one(worker *w, uint32_t i)
{
    et_run run;
    et_etdump_run(&w->dump, i, &run);
    if (!run.has_events)
        return 0;
    uint64_t before = w->dump.tables_left;
    if (et_etdump_verify_run(&w->dump, i, NULL, &w->err) != 0)
        return et_error_prefix(&w->err, w->insp->etdump_label);
    w->run_cost[i] = before - w->dump.tables_left;
    /* its first and last event tables */
    uint32_t n = run.events.count, lo, hi;
    const fb_buf *b = &w->dump.buf;
    run_span(&run, n ? fb_deref(b, run.events.pos) : 0,
             n ? fb_deref(b, run.events.pos + 4 * (n - 1)) : 0, &lo, &hi);
    release_behind(w, lo, hi);
    return 0;
}

static void verify_pass(void *ctx, size_t k)
{
    worker *w = &((builder *)ctx)->w[k];
    if (each_run(w, verify_one))
        release_pages(w, w->rel_lo, w->rel_hi);
}

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

/* Apply a signature to an event (spec §3.6). */
static void apply_sig(et_event *ev, const sig_part *p)
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
        ev->name_is_id_text = true;
        id_text(p->did, ev->id_text);
        return;
    }
    candidate = ev->is_delegated_op ? p->dstr : p->name;
    if (candidate.n > 0) {
        ev->name_str = candidate;
        ev->name_is_id_text = false;
    }
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
    uint64_t h = hash_bytes(0xabc, lg->name.p, lg->name.n);
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
        GROW(b->seq, b->seq_cap, b->n_seq + E) != 0 || GROW(b->pe0, b->pe0_cap, b->n_pe0 + E) != 0)
        return -1;
    ggroup *g = &b->groups[b->n_groups];
    memset(g, 0, sizeof *g);
    g->name = lg->name;
    g->bii = lg->bii;
    g->hash = h;
    g->seq_first = (uint32_t)b->n_seq;
    g->seq_len = (uint32_t)E;
    g->first_run = lg->first_run;
    g->pe_first = (uint32_t)b->n_pe0;
    g->any_meta = calloc(E ? E : 1, 1);
    g->delegated = calloc(E ? E : 1, sizeof *g->delegated);
    if (!g->any_meta || !g->delegated)
        return -1;
    for (size_t k = 0; k < E; k++) {
        const esig *s = &b->es.v[b->emap[ls[k]]];
        b->seq[b->n_seq++] = b->emap[ls[k]];
        b->pe0[b->n_pe0++] = lg->pos0 ? lg->pos0[k] : 0; /* its first run is lg's first */
        g->has_debug |= s->has_d;
        g->delegated[k] = s->has_p && (s->p.has_did || s->p.dstr.p);
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
    d->runs_verified[x] = 0;
    int rc = et_etdump_verify_run(&copy, x, ev, b->err);
    free(ev);
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
    return ii->samples = big_alloc(ii->samples_size, &ii->samples_mapped);
}

/* Allocate block `gi` at its final size (events, runs, pools; samples from
 * *arena).  Returns 0 or -1 (out of memory). */
static int alloc_block(builder *b, size_t gi, char **arena)
{
    et_inspector *insp = b->insp;
    const ggroup *g = &b->groups[gi];
    et_block *blk = &insp->blocks[gi];
    size_t E = g->seq_len, R = g->n_runs;
    blk->name = g->name;
    blk->bundled_input_index = g->bii;
    blk->n_runs = R;
    blk->n_events = E;
    blk->runs = malloc(R * sizeof *blk->runs);
    blk->run_output_first = malloc(R * sizeof *blk->run_output_first);
    blk->run_output_count = malloc(R * sizeof *blk->run_output_count);
    blk->allocation_first = malloc(R * sizeof *blk->allocation_first);
    blk->allocation_count = malloc(R * sizeof *blk->allocation_count);
    blk->events = calloc(E ? E : 1, sizeof *blk->events);
    if (!blk->runs || !blk->run_output_first || !blk->run_output_count ||
        !blk->allocation_first || !blk->allocation_count || !blk->events)
        return -1;
    if (g->n_values && !(blk->value_pool = malloc(g->n_values * sizeof *blk->value_pool)))
        return -1;
    if (g->n_allocs && !(blk->allocations = malloc(g->n_allocs * sizeof *blk->allocations)))
        return -1;
    /* allocator names of the first run */
    et_run first;
    et_etdump_run(&insp->dump, g->first_run, &first);
    blk->n_allocators = first.allocators.count;
    if (blk->n_allocators) {
        blk->allocators = calloc(blk->n_allocators, sizeof *blk->allocators);
        if (!blk->allocators)
            return -1;
        for (uint32_t i = 0; i < first.allocators.count; i++)
            blk->allocators[i] = et_etdump_allocator_name(&insp->dump, &first, i);
    }
    for (size_t e = 0; e < E; e++) {
        const esig *s = &b->es.v[b->seq[g->seq_first + e]];
        et_event *ev = &blk->events[e];
        if (s->has_p) {
            ev->perf_data.n = R;
            ev->perf_data.raw = (double *)*arena;
            *arena += R * sizeof(double);
            ev->start_time = (uint64_t *)*arena;
            *arena += R * sizeof(uint64_t);
            if (g->any_meta[e] && !(ev->raw_delegate_debug_metadatas = calloc(R, sizeof(et_str))))
                return -1;
        }
        if (s->has_d && (!(ev->debug_first = malloc(R * sizeof(uint32_t))) ||
                         !(ev->debug_count = malloc(R * sizeof(uint32_t)))))
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Pass 2: samples, debug entries, outputs and allocations in place. */

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
    et_elapsed_ticks(start, end, &ticks, &wrapped);
    if (!delegated || (wrapped && !b->converter))
        return (double)ticks / f;
    /* delegated: convert both timestamps, then subtract (end unwrapped).
     * The default converter is ticks / factor; for a non-wrapped event the
     * reference subtracts the converted values (and so do we, to agree to
     * the last bit), for a wrapped one it has no sound answer and we give
     * the exact ticks / factor. */
    uint64_t e = wrapped ? end + (UINT64_C(1) << 32) : end;
    double cs = (double)start / f, ce = (double)e / f;
    if (b->converter) {
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
            cs = v;
        if (b->converter(b->converter_ud, name, len, e, &v) == 0)
            ce = v;
    }
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
static void fill_runs(const builder *b, const lgroup *lg, size_t r0, size_t r1)
{
    const et_inspector *insp = b->insp;
    const ggroup *g = &b->groups[lg->global];
    et_block *blk = &insp->blocks[lg->global];
    size_t E = lg->seq_len, off = lg->run_offset;
    for (size_t k = 0; k < E; k++) {
        et_event *ev = &blk->events[k];
        /* the tile's rows are read in step, a quarter line per row and
         * event: ask for the line 16 events on */
        if ((b->fill & FILL_SAMPLES) && (k & 3) == 0 && k + 16 < E)
            for (size_t r = r0; r < r1; r++)
                ET_PREFETCH(lg->tbase + lg->row[r] + k + 16);
        if (ev->perf_data.raw && (b->fill & FILL_SAMPLES)) {
            const esig *s = &b->es.v[b->seq[g->seq_first + k]];
            bool delegated = g->delegated[k];
            double *raw = ev->perf_data.raw + off;
            uint64_t *st = ev->start_time + off;
            for (size_t r = r0; r < r1; r++) {
                et_ticks t = lg->tbase[lg->row[r] + k];
                raw[r] = duration(b, s, delegated, t.start, t.end);
                st[r] = t.start;
            }
        }
        if (ev->debug_first && (b->fill & FILL_DEBUG))
            for (size_t r = r0; r < r1; r++) {
                ev->debug_first[off + r] = lg->dbg_first[r * E + k] + (uint32_t)lg->value_shift;
                ev->debug_count[off + r] = lg->dbg_count[r * E + k];
            }
    }
}

/* Everything of worker group lg but its samples into its block. */
static void fill_runs_data(const builder *b, const lgroup *lg)
{
    et_block *blk = &b->insp->blocks[lg->global];
    size_t off = lg->run_offset, n = lg->n_runs;
    memcpy(blk->runs + off, lg->runs, n * sizeof *lg->runs);
    for (size_t r = 0; r < n; r++) {
        blk->run_output_first[off + r] = lg->out_first[r] + (uint32_t)lg->value_shift;
        blk->run_output_count[off + r] = lg->out_count[r];
        blk->allocation_first[off + r] = lg->alloc_first[r] + (uint32_t)lg->alloc_shift;
        blk->allocation_count[off + r] = lg->alloc_count[r];
    }
    if (lg->n_values)
        memcpy(blk->value_pool + lg->value_shift, lg->values, lg->n_values * sizeof *lg->values);
    if (lg->n_allocs)
        memcpy(blk->allocations + lg->alloc_shift, lg->allocs, lg->n_allocs * sizeof *lg->allocs);
    /* delegate_debug_metadata: "" where a run has none, then the others */
    static const char empty[1] = "";
    for (size_t k = 0; k < lg->seq_len; k++) {
        et_str *m = blk->events[k].raw_delegate_debug_metadatas;
        if (m)
            for (size_t r = 0; r < n; r++)
                m[off + r] = (et_str){empty, 0};
    }
    for (size_t i = 0; i < lg->n_meta; i++) {
        const et_meta_at *a = &lg->meta[i];
        blk->events[a->event].raw_delegate_debug_metadatas[off + a->run] = a->m;
    }
}

/* Pass 2 of one worker: what b->fill says of its groups' runs, in tiles
 * of runs. */
static void pass2(void *ctx, size_t k)
{
    const builder *b = ctx;
    const worker *w = &b->w[k];
    for (size_t gi = 0; gi < w->n_groups; gi++) {
        const lgroup *lg = &w->groups[gi];
        if (b->fill & FILL_DATA)
            fill_runs_data(b, lg);
        if (!(b->fill & (FILL_DEBUG | FILL_SAMPLES)))
            continue;
        size_t E = lg->seq_len ? lg->seq_len : 1, tile = 4096 / E;
        tile = tile < 8 ? 8 : tile;
        for (size_t r0 = 0; r0 < lg->n_runs; r0 += tile)
            fill_runs(b, lg, r0, r0 + tile < lg->n_runs ? r0 + tile : lg->n_runs);
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

/* ------------------------------------------------------------------ */
/* Names, signatures' fields and the debug-data comparisons of block gi
 * (calling thread: they may warn). */
static int finish_block(builder *b, size_t gi)
{
    et_inspector *insp = b->insp;
    const ggroup *g = &b->groups[gi];
    et_block *blk = &insp->blocks[gi];
    size_t E = blk->n_events, R = blk->n_runs;
    static const char empty[1] = "";
    bool differs = false; /* one warning per block */
    for (size_t e = 0; e < E; e++) {
        const esig *s = &b->es.v[b->seq[g->seq_first + e]];
        et_event *ev = &blk->events[e];
        ev->name_str = (et_str){empty, 0};
        ev->instruction_id = s->instr_raw;
        ev->num_outputs = 1;
        if (s->has_p) {
            apply_sig(ev, &s->p);
            ev->has_perf_data = R > 0;
            ev->perf_data.n = R;
            ev->profile_event_pos_first_run = R ? b->pe0[g->pe_first + e] : 0;
        }
        if (s->has_d) {
            apply_sig(ev, &s->d);
            ev->has_debug_data = true;
            for (size_t r = 1; r < R && !differs; r++)
                if (!lists_equal(insp, blk->value_pool, ev->debug_first[0], ev->debug_count[0],
                                 ev->debug_first[r], ev->debug_count[r], &b->cmp)) {
                    differs = true;
                    b->debug_differs_blocks++;
                    et_str nm = et_event_name(ev);
                    if (et_inspector_warn(insp,
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
    for (size_t r = 1; r < R && !differs; r++)
        if (!lists_equal(insp, blk->value_pool, blk->run_output_first[0],
                         blk->run_output_count[0], blk->run_output_first[r],
                         blk->run_output_count[r], &b->cmp)) {
            differs = true;
            b->debug_differs_blocks++;
            if (et_inspector_warn(insp,
                            "%s: event_blocks[%zu] '%.*s': the %zu runs merged into it have "
                            "different program outputs (first in run %zu); block.run_output is "
                            "the first run's, every run's are kept",
                            insp->etdump_label, gi + 1, (int)blk->name.n, blk->name.p,
                            R, r + 1) != 0)
                return nomem(b->err);
        }
    return 0;
}

static void free_worker(worker *w)
{
    if (w->ticks)
        big_free(w->ticks, w->ticks_bytes, w->ticks_mapped);
    for (size_t i = 0; i < w->n_groups; i++) {
        lgroup *g = &w->groups[i];
        free(g->runs);
        free(g->row);
        g->row = NULL;
        free(g->pos0);
        free(g->meta);
        free(g->dbg_first);
        free(g->dbg_count);
        free(g->any_meta);
        free(g->values);
        free(g->out_first);
        free(g->out_count);
        free(g->allocs);
        free(g->alloc_first);
        free(g->alloc_count);
    }
    free(w->groups);
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
    for (unsigned k = 0; k < b->nw; k++)
        free_worker(&b->w[k]);
    free(b->w);
    for (size_t i = 0; i < b->n_groups; i++) {
        free(b->groups[i].any_meta);
        free(b->groups[i].delegated);
    }
    free(b->groups);
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
 * the verification alone (verify_runs). */
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
        if (!(w->ticks = big_alloc(w->ticks_bytes, &w->ticks_mapped)))
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

/* The merge (see above): signatures, groups, sizes, counters. */
static int merge(builder *b)
{
    et_inspector *insp = b->insp;
    for (unsigned k = 0; k < b->nw; k++) {
        worker *w = &b->w[k];
        if (GROW(b->emap, b->emap_cap, w->es.n ? w->es.n : 1) != 0)
            return -1;
        for (size_t i = 0; i < w->es.n; i++) {
            long id = intern_esig(&b->es, &w->es.v[i]);
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
            lg->run_offset = g->n_runs;
            lg->value_shift = g->n_values;
            lg->alloc_shift = g->n_allocs;
            g->n_runs += lg->n_runs;
            g->n_values += lg->n_values;
            g->n_allocs += lg->n_allocs;
            for (size_t e = 0; e < lg->seq_len; e++)
                g->any_meta[e] |= lg->any_meta[e];
        }
        add_event_counts(&insp->dump, &w->dump);
        b->empty_events += w->empty_events;
        b->repeated_events += w->repeated_events;
        b->bad_allocator_ids += w->bad_allocator_ids;
        b->wrapped_events += w->wrapped_events;
        b->tensor_values |= w->tensor_values;
        insp->ticks_over_32 |= w->ticks_over_32;
    }
    return 0;
}

/* The threads to build with (et_threads), and when `warn` a warning about
 * an ETINSPECT_THREADS that is not a number of threads (given once per
 * inspector: by a deferred model's open, else by the build).  Returns 0,
 * or -1 out of memory. */
static int build_threads(et_inspector *insp, unsigned *threads, bool warn, et_error *err)
{
    *threads = et_threads();
    const char *bad = et_threads_invalid();
    if (!bad || !warn)
        return 0;
    /* the value as typed, printable and at most 40 bytes */
    char shown[48];
    size_t n = 0;
    for (; bad[n] && n < 40; n++)
        shown[n] = bad[n] >= 0x20 && bad[n] < 0x7f ? bad[n] : '?';
    strcpy(shown + n, bad[n] ? "..." : "");
    if (et_inspector_warn(insp, "ETINSPECT_THREADS='%s' is not a number of threads from 1 "
                          "to %d; using %u (the processors available)", shown, ET_MAX_THREADS,
                          *threads) != 0)
        return nomem(err);
    return 0;
}

/* The warning about the bytes after a size-prefixed dump, or 0. */
static int warn_trailing(et_inspector *insp)
{
    if (!insp->dump.trailing_bytes)
        return 0;
    return et_inspector_warn(insp, "%s: %" PRIu64 " bytes after the end of the size-prefixed "
                             "buffer were ignored", insp->etdump_label, insp->dump.trailing_bytes);
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
static int verify_runs(et_inspector *insp, bool *ends_early, et_error *err)
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
    et_parallel_for(b.threads, b.nw, verify_pass, &b);
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

static int build(et_inspector *insp, const et_inspector_options *o, et_error *err)
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
    et_parallel_for(b.threads, b.nw, pass1, &b);
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
    insp->blocks = calloc(b.n_groups ? b.n_groups : 1, sizeof *insp->blocks);
    char *arena = arena_alloc(insp, bytes);
    if (!insp->blocks || !arena) {
        nomem(err);
        goto out;
    }
    insp->n_blocks = b.n_groups;
    for (size_t gi = 0; gi < b.n_groups; gi++)
        if (alloc_block(&b, gi, &arena) != 0) {
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
                fill_runs_data(&b, &w->groups[gi]);
            for (size_t i = 0; i < w->n_done; i++)
                fill_runs(&b, &w->groups[w->run_group[i]], w->run_local[i], w->run_local[i] + 1);
        }
    }
    for (unsigned k = 0; k < b.nw && !defer_samples; k++) {
        worker *w = &b.w[k];
        for (size_t gi = 0; gi < w->n_groups; gi++) {
            free(w->groups[gi].row);
            w->groups[gi].row = NULL;
        }
        big_free(w->ticks, w->ticks_bytes, w->ticks_mapped);
        w->ticks = NULL;
    }
    if (o->defer_stats)
        ii->stats_pending = true;
    else if (all_stats(insp, b.threads, b.err) != 0)
        goto out;
    b.cmp.left = insp->debug_buffer.size > (UINT64_MAX - CMP_BUDGET_SLACK) / 2
                     ? UINT64_MAX
                     : 2 * insp->debug_buffer.size + CMP_BUDGET_SLACK;
    for (size_t gi = 0; gi < b.n_groups; gi++)
        if (finish_block(&b, gi) != 0)
            goto out;
    const char *lbl = insp->etdump_label;
    if ((b.empty_events &&
         et_inspector_warn(insp, "%s: %" PRIu64 " events had no profile, debug or allocation event "
                           "and were ignored", lbl, b.empty_events) != 0) ||
        (b.repeated_events &&
         et_inspector_warn(insp, "%s: %" PRIu64 " profile or debug events repeated an earlier event "
                           "of the same run (an instruction executed more than once); as the "
                           "reference does, only the last occurrence in each run is kept",
                     lbl, b.repeated_events) != 0) ||
        (b.bad_allocator_ids &&
         et_inspector_warn(insp, "%s: %" PRIu64 " allocation events name an allocator that their "
                           "run does not have (allocator ids are 1-based)",
                     lbl, b.bad_allocator_ids) != 0) ||
        (!ii->model_deferred && warn_trailing(insp) != 0) ||
        (b.cmp.exhausted &&
         et_inspector_warn(insp, "%s: the runs' debug data point at more of the debug buffer than "
                           "twice its size plus 64 MiB; the rest was not compared across runs "
                           "(warnings of runs that logged different debug data may be missing)",
                           lbl) != 0) ||
        (b.tensor_values && insp->debug_buffer.size == 0 &&
         et_inspector_warn(insp, "%s: no debug buffer given; tensor values of debug events are not "
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
    return rc;
}

void et_inspector_options_init(et_inspector_options *o)
{
    memset(o, 0, sizeof *o);
    o->source_time_scale = ET_TS_NS;
    o->target_time_scale = ET_TS_MS;
    o->bundled_test_case = -1;
}

/* The blocks of a legacy profiler dump: one EventBlock per block name, its
 * iterations as runs; the memory events of the (identical) iterations are
 * shared, each allocator once in the block's list, 1-based. */
static int blocks_from_legacy(et_inspector *insp, et_error *err)
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
        blk->runs = calloc(R, sizeof *blk->runs);
        blk->run_output_first = calloc(R, sizeof *blk->run_output_first);
        blk->run_output_count = calloc(R, sizeof *blk->run_output_count);
        blk->allocation_first = calloc(R, sizeof *blk->allocation_first);
        blk->allocation_count = calloc(R, sizeof *blk->allocation_count);
        if (!blk->runs || !blk->run_output_first || !blk->run_output_count ||
            !blk->allocation_first || !blk->allocation_count)
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

static int assign_reference_outputs(et_inspector *insp, et_error *err);

static et_inspector *open_legacy(const et_inspector_options *o, et_error *err)
{
    et_inspector *insp = calloc(1, sizeof(et_inspector_int));
    if (!insp) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    insp->source_time_scale = o->source_time_scale;
    insp->target_time_scale = o->source_time_scale == ET_TS_CYCLES ? ET_TS_CYCLES : ET_TS_MS;
    insp->scale_factor = 1.0;
    const uint8_t *data;
    size_t size;
    if (o->profile_results_path) {
        insp->etdump_label = o->profile_results_path;
        /* read in full, and what is built grows with it (a few words per
         * entry): refused from its size beyond the format's limit */
        static const et_map_options legacy_limit = {
            (uint64_t)UINT32_MAX,
            "larger than a legacy profiler dump can be (4 GiB: prof_result_t's num_bytes is 32-bit)",
            true, false};
        if (et_map_file_ex(&insp->etdump_file, o->profile_results_path, &legacy_limit, err) != 0)
            goto fail;
        data = insp->etdump_file.data;
        size = insp->etdump_file.size;
    } else {
        insp->etdump_label = "<profile_results_data>";
        data = o->profile_results_data;
        size = o->profile_results_size;
    }
    insp->legacy = et_legacy_read(data, size, insp->etdump_label, o->source_time_scale, err);
    if (!insp->legacy || blocks_from_legacy(insp, err) != 0 ||
        assign_reference_outputs(insp, err) != 0)
        goto fail;
    for (size_t i = 0; i < insp->legacy->n_warnings; i++)
        if (et_inspector_warn(insp, "%s", insp->legacy->warnings[i]) != 0) {
            et_fail(err, ET_ERR_NOMEM, "out of memory");
            goto fail;
        }
    return insp;
fail:
    et_inspector_free(insp);
    return NULL;
}

/* Open the ETRecord of the options, if any, into insp (before the ETDump,
 * as the reference parses it first). */
static int open_etrecord(et_inspector *insp, const et_inspector_options *o, et_error *err)
{
    if (o->etrecord_path && o->etrecord)
        return et_fail(err, ET_ERR_USAGE, "Expecting at most one of etrecord_path or etrecord.");
    if (o->etrecord) {
        insp->etrecord = o->etrecord;
    } else if (o->etrecord_path) {
        et_etrecord_options eo;
        et_etrecord_options_init(&eo);
        eo.path = o->etrecord_path;
        eo.json_budget = o->etrecord_json_budget;
        if (!(insp->etrecord = et_etrecord_open(&eo, err)))
            return -1;
        et_insp_int(insp)->owns_etrecord = true;
    }
    insp->enable_module_hierarchy = o->enable_module_hierarchy;
    const char *ref = o->reference_graph_name ? o->reference_graph_name : ET_EDGE_GRAPH_NAME;
    if (!(insp->reference_graph_name = strdup(ref)) ||
        (o->etrecord_method && !(insp->etrecord_method = strdup(o->etrecord_method))))
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    return 0;
}

bool et_block_reference_case(const et_inspector *insp, const et_block *blk, et_bundled_case *c)
{
    memset(c, 0, sizeof *c);
    if (!insp->bundled || insp->bundled_suite < 0 || blk->reference_case < 0)
        return false;
    et_bundled_suite s;
    et_bundled_suite_at(insp->bundled, (uint32_t)insp->bundled_suite, &s);
    if ((uint32_t)blk->reference_case >= s.test_cases.count)
        return false;
    et_bundled_case_at(insp->bundled, &s, (uint32_t)blk->reference_case, c);
    return true;
}

/* Give each block the test case its bundled_input_index names (spec §7.6),
 * with -1 meaning none - unlike the reference, which indexes its list of
 * reference outputs with -1 and so gives every block the last test case
 * (§5.6 step 4).  Warns about indices that name no test case, a program
 * without a usable suite, and a dump whose runs carry no index at all. */
static int assign_reference_outputs(et_inspector *insp, et_error *err)
{
    insp->bundled_suite = -1;
    for (size_t i = 0; i < insp->n_blocks; i++)
        insp->blocks[i].reference_case = -1;
    const et_bundled *bp = insp->bundled;
    if (!bp)
        return 0;
    const char *path = bp->path ? bp->path : "<bundled program>";
    int rc = 0;
    insp->bundled_suite = et_bundled_reference_suite(bp);
    if (insp->bundled_suite < 0) {
        if (et_bundled_num_suites(bp) == 0)
            rc = et_inspector_warn(insp,
                                   "BundledProgram %s has no method test suites: no block has "
                                   "a reference output",
                                   path);
        else
            rc = et_inspector_warn(insp,
                                   "BundledProgram %s has %" PRIu32 " method test suites and "
                                   "none is for method 'forward': no block has a reference "
                                   "output",
                                   path, et_bundled_num_suites(bp));
        return rc == 0 ? 0 : et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    et_bundled_suite s;
    et_bundled_suite_at(bp, (uint32_t)insp->bundled_suite, &s);
    size_t with_index = 0;
    for (size_t i = 0; i < insp->n_blocks && rc == 0; i++) {
        et_block *blk = &insp->blocks[i];
        int32_t bii = blk->bundled_input_index;
        bool has_outputs = blk->n_runs && blk->run_output_count && blk->run_output_count[0] > 0;
        if (bii == -1 && insp->bundled_test_case >= 0 && has_outputs) {
            bii = insp->bundled_test_case; /* the user's choice for runs without an index */
        } else if (bii == -1) {
            continue;
        }
        with_index++;
        if (bii >= 0 && (uint32_t)bii < s.test_cases.count) {
            blk->reference_case = bii;
            continue;
        }
        rc = et_inspector_warn(insp,
                               "event_blocks[%zu] ('%.*s'): bundled_input_index %" PRId32
                               " names no test case of method '%.*s' in BundledProgram %s "
                               "(it has %" PRIu32 "): the block has no reference output",
                               i + 1, (int)blk->name.n, blk->name.p ? blk->name.p : "", bii,
                               (int)s.method_name.n, s.method_name.p, path,
                               s.test_cases.count);
    }
    if (rc == 0 && with_index == 0 && insp->n_blocks > 0)
        rc = et_inspector_warn(insp,
                               "no run of the ETDump carries a bundled_input_index (ETDumpGen "
                               "does not write it: docs/bundled-program.md), so no block has a "
                               "reference output from BundledProgram %s; choose a test case "
                               "with bundled_test_case / --bundled_test_case",
                               path);
    return rc == 0 ? 0 : et_fail(err, ET_ERR_NOMEM, "out of memory");
}

et_inspector *et_inspector_open(const et_inspector_options *o, et_error *err)
{
    int given = (o->etdump_path != NULL) + (o->etdump_data != NULL) +
                (o->profile_results_path != NULL) + (o->profile_results_data != NULL);
    bool legacy = o->profile_results_path || o->profile_results_data;
    if (legacy && (o->etrecord_path || o->etrecord)) {
        et_fail(err, ET_ERR_USAGE,
                "An ETRecord can only be linked to an ETDump, not to a legacy profiler dump.");
        return NULL;
    }
    if (legacy && o->bundled_program_path) {
        et_fail(err, ET_ERR_USAGE,
                "A BundledProgram's reference outputs can only be given to an ETDump's blocks, "
                "not to a legacy profiler dump's.");
        return NULL;
    }
    if (legacy && given == 1)
        return open_legacy(o, err);
    if (!legacy && et_time_scale_check(o->source_time_scale, o->target_time_scale, err) != 0)
        return NULL;
    et_inspector *insp = calloc(1, sizeof(et_inspector_int));
    if (!insp) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (open_etrecord(insp, o, err) != 0)
        goto fail;
    if (given != 1) {
        et_fail(err, ET_ERR_USAGE,
                legacy ? "Expecting exactly one of etdump_path, etdump_data, profile_results_path "
                         "or profile_results_data to be specified."
                       : "Expecting exactly one of etdump_path or etdump_data to be specified.");
        goto fail;
    }
    insp->source_time_scale = o->source_time_scale;
    insp->target_time_scale = o->target_time_scale;
    insp->scale_factor = et_time_scale_factor(o->source_time_scale, o->target_time_scale);
    const uint8_t *data;
    size_t size;
    if (o->etdump_path) {
        insp->etdump_label = o->etdump_path;
        /* refused from its size before mapping; mapped lazily: pass 1 reads
         * it in order and gives the pages back behind it, so the peak holds
         * a window of the dump, not all of it (docs/performance.md) */
        static const et_map_options fb = {(uint64_t)INT32_MAX,
                                          "larger than a FlatBuffer can be (2 GiB)", false, false};
        if (et_map_file_ex(&insp->etdump_file, o->etdump_path, &fb, err) != 0)
            goto fail;
        data = insp->etdump_file.data;
        size = insp->etdump_file.size;
    } else {
        insp->etdump_label = "<etdump_data>";
        data = o->etdump_data;
        size = o->etdump_size;
    }
    /* a file's mapping: the pages opening reads are given back behind it,
     * unless the caller will read them again */
    et_inspector_int *ii = et_insp_int(insp);
    ii->keep_pages = o->keep_pages;
    if ((insp->etdump_file.data && !ii->keep_pages ? et_etdump_open_mapped(&insp->dump, data, size, err)
                                : et_etdump_open(&insp->dump, data, size, err)) != 0) {
        et_error_prefix(err, insp->etdump_label);
        goto fail;
    }
    if (o->debug_buffer_path && et_map_file(&insp->debug_buffer, o->debug_buffer_path, err) != 0)
        goto fail;
    if (o->bundled_program_path &&
        !(insp->bundled = et_bundled_open_path(o->bundled_program_path, err)))
        goto fail;
    insp->bundled_test_case = o->bundled_test_case;
    if (o->defer_model && o->defer_stats && !o->converter && !insp->etrecord &&
        !insp->bundled) {
        /* the dump verified (and its own warnings given) here; the model
         * when first needed, unless its build may fail */
        bool ends_early;
        ii->model_deferred = true;
        if (verify_runs(insp, &ends_early, err) != 0)
            goto fail;
        if (warn_trailing(insp) != 0) {
            et_fail(err, ET_ERR_NOMEM, "out of memory");
            goto fail;
        }
        if (!ends_early) {
            ii->model_pending = ii->stats_pending = true;
            return insp;
        }
    }
    if (build(insp, o, err) != 0 || assign_reference_outputs(insp, err) != 0)
        goto fail;
    if (insp->etrecord) {
        et_link_options lo = {.method = insp->etrecord_method,
                              .reference_graph_name = insp->reference_graph_name,
                              .enable_module_hierarchy = o->enable_module_hierarchy};
        if (et_link_etrecord(insp, insp->etrecord, &lo, err) != 0)
            goto fail;
    }
    return insp;
fail:
    et_inspector_free(insp);
    return NULL;
}

/* Free the model: the blocks, the samples, what the build kept. */
static void free_model(et_inspector *insp)
{
    et_inspector_int *ii = et_insp_int(insp);
    for (size_t i = 0; i < insp->n_blocks; i++) {
        et_block *blk = &insp->blocks[i];
        for (size_t e = 0; e < blk->n_events; e++) {
            et_event *ev = &blk->events[e];
            if (!ii->samples) { /* else they live in the arena */
                free(ev->perf_data.raw);
                free(ev->start_time);
            }
            free(ev->raw_delegate_debug_metadatas);
            free(ev->debug_first);
            free(ev->debug_count);
        }
        free(blk->events);
        free(blk->runs);
        free(blk->value_pool);
        free(blk->run_output_first);
        free(blk->run_output_count);
        free(blk->allocators);
        free(blk->allocations);
        free(blk->allocation_first);
        free(blk->allocation_count);
    }
    free(insp->blocks);
    if (ii->samples_mapped)
        munmap(ii->samples, ii->samples_size);
    else
        free(ii->samples);
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

void et_inspector_free(et_inspector *insp)
{
    if (!insp)
        return;
    free_model(insp);
    for (size_t i = 0; i < insp->n_warnings; i++)
        free(insp->warnings[i]);
    free(insp->warnings);
    et_etdump_close(&insp->dump);
    et_legacy_free(insp->legacy);
    et_unmap_file(&insp->debug_buffer);
    et_unmap_file(&insp->etdump_file);
    free(insp->link_nodes);
    free(insp->reference_graph_name);
    free(insp->etrecord_method);
    if (et_insp_int(insp)->owns_etrecord)
        et_etrecord_free(insp->etrecord);
    et_bundled_free(insp->bundled);
    free(insp);
}

int et_inspector_ready(et_inspector *insp, et_error *err)
{
    et_inspector_int *ii = et_insp_int(insp);
    if (ii->model_pending) {
        /* what et_inspector_open would have built, statistics included */
        et_inspector_options o;
        et_inspector_options_init(&o);
        size_t nw = insp->n_warnings;
        if (build(insp, &o, err) != 0 || assign_reference_outputs(insp, err) != 0) {
            free_model(insp);
            for (size_t i = nw; i < insp->n_warnings; i++)
                free(insp->warnings[i]);
            insp->n_warnings = nw;
            return -1;
        }
        ii->model_pending = ii->stats_pending = false;
        return 0;
    }
    if (!ii->stats_pending)
        return 0;
    fill_pending_samples(insp);
    if (all_stats(insp, et_threads(), err) != 0)
        return -1;
    ii->stats_pending = false;
    return 0;
}

bool et_inspector_model_pending(const et_inspector *insp)
{
    return et_insp_cint(insp)->model_pending;
}

bool et_inspector_stats_pending(const et_inspector *insp)
{
    return et_insp_cint(insp)->stats_pending;
}

bool et_inspector_samples_pending(const et_inspector *insp)
{
    return et_insp_cint(insp)->samples_pending != NULL;
}

bool et_inspector_owns_etrecord(const et_inspector *insp)
{
    return et_insp_cint(insp)->owns_etrecord;
}

void et_inspector_disown_etrecord(et_inspector *insp)
{
    et_insp_int(insp)->owns_etrecord = false;
}
