/* model.c - ETDump -> EventBlocks; see model.h and spec §3-§4. */
#include "model.h"

#include "link.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

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

/* ------------------------------------------------------------------ */
/* Per-run scratch: InstructionEvents (spec §3.1) */

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
    uint32_t pool_first;    /* where its debug list went in the block pool (UINT32_MAX: not yet) */
} ievent;

/* An (EventSignature -> InstructionEvent, profile event) entry of one run. */
typedef struct rslot {
    uint32_t esig;
    uint32_t ie;
    int32_t pe; /* index of the profile event in the run, or -1 */
} rslot;

/* A group of runs with one RunSignature, before it becomes a block. */
typedef struct group {
    et_str name;
    int32_t bii;
    uint32_t seq_first, seq_len; /* EventSignature ids in the builder's seq pool */
    uint64_t hash;
    bool has_debug;              /* some EventSignature has a debug part */
    size_t n_runs;
    uint32_t *runs; size_t runs_cap;
    /* per (run, event) data, run-major: index r * seq_len + e */
    double *dur; size_t dur_cap;
    uint64_t *start; size_t start_cap;
    uint32_t *pe_pos; size_t pe_pos_cap;
    uint32_t *dbg_first; size_t dbg_first_cap;
    uint32_t *dbg_count; size_t dbg_count_cap;
    uint8_t *any_meta;           /* per event: some run has non-empty metadata */
    /* values, run outputs and allocations, per run */
    uint32_t *values; size_t n_values, values_cap;
    uint32_t *out_first, *out_count; size_t out_first_cap, out_count_cap;
    et_allocation *allocs; size_t n_allocs, allocs_cap;
    uint32_t *alloc_first, *alloc_count; size_t alloc_first_cap, alloc_count_cap;
    uint32_t first_run;          /* RunData index of the first run (allocator names) */
    bool debug_differs_warned;
} group;

typedef struct builder {
    et_inspector *insp;
    et_error *err;
    /* EventSignatures */
    esig *esigs; size_t n_esigs, esigs_cap;
    idtable esig_tab;
    /* RunSignatures -> groups */
    group *groups; size_t n_groups, groups_cap;
    idtable group_tab;
    uint32_t *seq; size_t n_seq, seq_cap; /* pool of EventSignature id sequences */
    /* per-run scratch */
    et_raw_event *ev; size_t ev_cap;
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
    et_time_converter converter;
    void *converter_ud;
    double *tmp; size_t tmp_cap;          /* sort buffer */
    /* counters for warnings */
    uint64_t empty_events, repeated_events, debug_differs_blocks, bad_allocator_ids;
    uint64_t wrapped_events;
    bool tensor_values;                   /* some debug event holds a tensor */
} builder;

/* Hash of interned EventSignature / group `id`, for idtable_grow. */
static uint64_t esig_hash(const builder *b, uint32_t id) { return b->esigs[id].hash; }
static uint64_t group_hash(const builder *b, uint32_t id) { return b->groups[id].hash; }

/* Double the capacity of `t`, re-placing every id by hash_of(b, id). */
static int idtable_grow(idtable *t, uint64_t (*hash_of)(const builder *, uint32_t),
                        const builder *b)
{
    idtable n;
    if (idtable_init(&n, t->mask + 1) != 0)
        return -1;
    for (size_t k = 0; k <= t->mask; k++)
        if (t->slots[k]) {
            size_t j = hash_of(b, t->slots[k] - 1) & n.mask;
            while (n.slots[j])
                j = (j + 1) & n.mask;
            n.slots[j] = t->slots[k];
        }
    n.used = t->used;
    free(t->slots);
    *t = n;
    return 0;
}

static int nomem(builder *b)
{
    return et_fail(b->err, ET_ERR_NOMEM, "out of memory while building the event model");
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

/* Intern an EventSignature; returns its id or -1 on out of memory. */
static long intern_esig(builder *b, esig *s)
{
    uint64_t h = hash_u64(0x1234, (uint32_t)s->instr_raw);
    h = hash_u64(h, (uint64_t)s->has_p << 1 | s->has_d);
    if (s->has_p)
        h = hash_part(h, &s->p);
    if (s->has_d)
        h = hash_part(h ^ 0xd, &s->d);
    s->hash = h;
    idtable *t = &b->esig_tab;
    size_t i = h & t->mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (!id)
            break;
        if (b->esigs[id - 1].hash == h && esig_same(&b->esigs[id - 1], s))
            return id - 1;
        i = (i + 1) & t->mask;
    }
    if (GROW(b->esigs, b->esigs_cap, b->n_esigs + 1) != 0)
        return -1;
    b->esigs[b->n_esigs] = *s;
    t->slots[i] = (uint32_t)(b->n_esigs + 1);
    b->n_esigs++;
    if (++t->used * 2 > t->mask && idtable_grow(t, esig_hash, b) != 0)
        return -1;
    return (long)(b->n_esigs - 1);
}

/* ------------------------------------------------------------------ */
/* Step A: collate one run's events into InstructionEvents. */

static int collate_run(builder *b, const et_run *run, uint32_t run_index)
{
    uint32_t n = run->events.count;
    if (GROW(b->ev, b->ev_cap, n) != 0 || GROW(b->next, b->next_cap, n) != 0)
        return nomem(b);
    /* verify the run's events and decode them in the same visit */
    if (et_etdump_verify_run(&b->insp->dump, run_index, b->ev, b->err) != 0)
        return et_error_prefix(b->err, b->insp->etdump_label);
    /* hash table for this run's InstructionEvents, cleared by stamping */
    size_t want = 64;
    while (want < (size_t)n * 2)
        want *= 2;
    if (want > b->ie_slots_cap) {
        free(b->ie_slots);
        free(b->ie_stamp);
        b->ie_slots = calloc(want, sizeof *b->ie_slots);
        b->ie_stamp = calloc(want, sizeof *b->ie_stamp);
        if (!b->ie_slots || !b->ie_stamp)
            return nomem(b);
        b->ie_slots_cap = want;
        b->ie_mask = want - 1;
    }
    b->n_ies = 0;
    b->n_outs = 0;
    b->n_allocs = 0;
    uint32_t stamp = ++b->run_stamp;
    for (uint32_t j = 0; j < n; j++) {
        et_raw_event *e = &b->ev[j];
        b->next[j] = -1;
        if (e->kind == ET_EV_EMPTY) {
            b->empty_events++;
            continue;
        }
        if (e->kind == ET_EV_ALLOCATION) {
            if (GROW(b->allocs, b->allocs_cap, b->n_allocs + 1) != 0)
                return nomem(b);
            b->allocs[b->n_allocs++] = (et_allocation){e->allocator_id, e->allocation_size};
            if (e->allocator_id < 1 || (uint32_t)e->allocator_id > run->allocators.count)
                b->bad_allocator_ids++;
            continue;
        }
        uint64_t h = hash_u64(0x77, (uint32_t)e->instruction_id);
        h = hash_u64(h, e->chain_value ^ ((uint64_t)e->chain_neg << 63));
        h = hash_u64(h, (uint32_t)e->delegate_debug_id_int);
        if (e->delegate_debug_id_str.p)
            h = hash_bytes(h ^ 0x3c, e->delegate_debug_id_str.p, e->delegate_debug_id_str.n);
        size_t i = h & b->ie_mask;
        ievent *ie = NULL;
        while (b->ie_stamp[i] == stamp) {
            ievent *c = &b->ies[b->ie_slots[i]];
            if (c->hash == h && c->instr == e->instruction_id && c->chain == e->chain_value &&
                c->chain_neg == e->chain_neg && c->did == e->delegate_debug_id_int &&
                str_eq(c->dstr, e->delegate_debug_id_str)) {
                ie = c;
                break;
            }
            i = (i + 1) & b->ie_mask;
        }
        if (!ie) {
            if (GROW(b->ies, b->ies_cap, b->n_ies + 1) != 0)
                return nomem(b);
            ie = &b->ies[b->n_ies];
            *ie = (ievent){e->instruction_id, e->chain_value, e->chain_neg,
                           e->delegate_debug_id_int, e->delegate_debug_id_str, h, -1, -1, -1, -1,
                           0, UINT32_MAX};
            b->ie_stamp[i] = stamp;
            b->ie_slots[i] = (uint32_t)b->n_ies;
            b->n_ies++;
        }
        if (e->kind == ET_EV_PROFILE) {
            if (ie->p_tail >= 0)
                b->next[ie->p_tail] = (int32_t)j;
            else
                ie->p_head = (int32_t)j;
            ie->p_tail = (int32_t)j;
            continue;
        }
        if (!b->tensor_values) {
            et_value_type vt = et_etdump_value_type(&b->insp->dump, e->value_pos);
            b->tensor_values = vt == ET_VAL_TENSOR || vt == ET_VAL_TENSOR_LIST;
        }
        if (e->is_output) {
            /* program outputs are not stored with their instruction (spec §3.1) */
            if (GROW(b->outs, b->outs_cap, b->n_outs + 1) != 0)
                return nomem(b);
            b->outs[b->n_outs++] = e->value_pos;
        } else {
            if (ie->d_tail >= 0)
                b->next[ie->d_tail] = (int32_t)j;
            else
                ie->d_head = (int32_t)j;
            ie->d_tail = (int32_t)j;
            ie->d_count++;
        }
    }
    return 0;
}

/* Make esig_slot / esig_stamp cover every interned EventSignature. */
static int ensure_esig_maps(builder *b)
{
    if (b->n_esigs <= b->esig_slot_cap)
        return 0;
    size_t old = b->esig_slot_cap, cap = old;
    if (GROW(b->esig_slot, cap, b->n_esigs) != 0)
        return -1;
    uint32_t *st = realloc(b->esig_stamp, cap * sizeof *st);
    if (!st)
        return -1;
    memset(st + old, 0, (cap - old) * sizeof *st);
    b->esig_stamp = st;
    b->esig_slot_cap = cap;
    return 0;
}

/* Step B: EventSignatures of the run, in order, later duplicates replacing
 * earlier ones in place. */
static int signatures_of_run(builder *b)
{
    b->n_slots = 0;
    uint32_t stamp = b->run_stamp;
    for (size_t k = 0; k < b->n_ies; k++) {
        ievent *ie = &b->ies[k];
        if (ie->p_head < 0 && ie->d_head < 0)
            continue; /* program outputs only */
        esig s;
        memset(&s, 0, sizeof s);
        s.instr_raw = ie->instr;
        if (ie->d_head >= 0) {
            s.has_d = true;
            sig_from_event(&b->ev[ie->d_head], &s.d);
        }
        int32_t pe = ie->p_head;
        do {
            if (pe >= 0) {
                s.has_p = true;
                sig_from_event(&b->ev[pe], &s.p);
            }
            /* runs usually repeat the previous run: try the signature at
             * the same position of its group before hashing */
            long id = -1;
            if (b->last_group >= 0) {
                const group *lg = &b->groups[b->last_group];
                if (b->n_slots < lg->seq_len) {
                    uint32_t pred = b->seq[lg->seq_first + b->n_slots];
                    if (esig_same(&b->esigs[pred], &s))
                        id = pred;
                }
            }
            if (id < 0)
                id = intern_esig(b, &s);
            if (id < 0 || ensure_esig_maps(b) != 0)
                return nomem(b);
            if (b->esig_stamp[id] == stamp) {
                rslot *r = &b->slots[b->esig_slot[id]];
                r->ie = (uint32_t)k;
                r->pe = pe;
                b->repeated_events++;
            } else {
                if (GROW(b->slots, b->slots_cap, b->n_slots + 1) != 0)
                    return nomem(b);
                b->esig_stamp[id] = stamp;
                b->esig_slot[id] = (uint32_t)b->n_slots;
                b->slots[b->n_slots++] = (rslot){(uint32_t)id, (uint32_t)k, pe};
            }
            if (pe >= 0)
                pe = b->next[pe];
        } while (pe >= 0);
    }
    return 0;
}

/* Step C: find (or create) the group of this run's RunSignature. */
static long group_of_run(builder *b, const et_run *run, uint32_t run_index)
{
    uint64_t h = hash_bytes(0xabc, run->name.p, run->name.n);
    h = hash_u64(h, (uint32_t)run->bundled_input_index);
    for (size_t k = 0; k < b->n_slots; k++)
        h = hash_u64(h, b->slots[k].esig);
    idtable *t = &b->group_tab;
    size_t i = h & t->mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (!id)
            break;
        group *g = &b->groups[id - 1];
        if (g->hash == h && g->bii == run->bundled_input_index && g->seq_len == b->n_slots &&
            str_eq(g->name, run->name)) {
            bool same = true;
            for (size_t k = 0; k < b->n_slots && same; k++)
                same = b->seq[g->seq_first + k] == b->slots[k].esig;
            if (same)
                return id - 1;
        }
        i = (i + 1) & t->mask;
    }
    if (b->n_groups + 1 > UINT32_MAX / 2 || GROW(b->groups, b->groups_cap, b->n_groups + 1) != 0 ||
        GROW(b->seq, b->seq_cap, b->n_seq + b->n_slots) != 0)
        return -1;
    group *g = &b->groups[b->n_groups];
    memset(g, 0, sizeof *g);
    g->name = run->name;
    g->bii = run->bundled_input_index;
    g->hash = h;
    g->seq_first = (uint32_t)b->n_seq;
    g->seq_len = (uint32_t)b->n_slots;
    g->first_run = run_index;
    for (size_t k = 0; k < b->n_slots; k++) {
        b->seq[b->n_seq++] = b->slots[k].esig;
        if (b->esigs[b->slots[k].esig].has_d)
            g->has_debug = true;
    }
    g->any_meta = calloc(b->n_slots ? b->n_slots : 1, 1);
    if (!g->any_meta)
        return -1;
    t->slots[i] = (uint32_t)(b->n_groups + 1);
    b->n_groups++;
    if (++t->used * 2 > t->mask && idtable_grow(t, group_hash, b) != 0)
        return -1;
    return (long)(b->n_groups - 1);
}

/* Text of an integer delegate id, as Python's str(int). */
static void id_text(int32_t id, char out[12])
{
    snprintf(out, 12, "%" PRId32, id);
}

/* Duration of one profile event in target units (spec §3.7-§3.8, with the
 * wrap-around correction).  Returns 0, or -1 with the error set. */
static int duration_of(builder *b, const esig *s, const et_raw_event *e, uint32_t run_index,
                       double *out)
{
    et_inspector *insp = b->insp;
    uint64_t ticks;
    bool wrapped;
    if (!et_elapsed_ticks(e->start_time, e->end_time, &ticks, &wrapped))
        return et_fail(b->err, ET_ERR_VALUE,
                       "%s: run_data[%" PRIu32 "]: profile event at byte %" PRIu32
                       " ends before it starts (start_time %" PRIu64 ", end_time %" PRIu64
                       ") and is not a 32-bit wrap-around: expected start_time and end_time "
                       "to be less than 4294967295 for cases where there is wrap-around of "
                       "time values",
                       insp->etdump_label, run_index, e->pos, e->start_time, e->end_time);
    if (wrapped)
        b->wrapped_events++;
    bool delegated = s->p.has_did || s->p.dstr.p;
    if (!delegated) {
        *out = (double)ticks / insp->scale_factor;
        return 0;
    }
    /* delegated: convert both timestamps, then subtract (end unwrapped).
     * The default converter is ticks / factor; for a non-wrapped event the
     * reference subtracts the converted values (and so do we, to agree to
     * the last bit), for a wrapped one it has no sound answer and we give
     * the exact ticks / factor. */
    if (wrapped && !b->converter) {
        *out = (double)ticks / insp->scale_factor;
        return 0;
    }
    uint64_t end = wrapped ? e->end_time + (UINT64_C(1) << 32) : e->end_time;
    double cs = (double)e->start_time / insp->scale_factor;
    double ce = (double)end / insp->scale_factor;
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
        if (b->converter(b->converter_ud, name, len, e->start_time, &v) == 0)
            cs = v;
        if (b->converter(b->converter_ud, name, len, end, &v) == 0)
            ce = v;
    }
    *out = ce - cs;
    return 0;
}

/* Append the current run (scratch state) to group `g`. */
static int append_run(builder *b, group *g, uint32_t run_index)
{
    size_t E = g->seq_len, r = g->n_runs, need = (r + 1) * E;
    if (GROW(g->runs, g->runs_cap, r + 1) != 0 || GROW(g->dur, g->dur_cap, need) != 0 ||
        GROW(g->start, g->start_cap, need) != 0 || GROW(g->pe_pos, g->pe_pos_cap, need) != 0 ||
        GROW(g->out_first, g->out_first_cap, r + 1) != 0 ||
        GROW(g->out_count, g->out_count_cap, r + 1) != 0 ||
        GROW(g->alloc_first, g->alloc_first_cap, r + 1) != 0 ||
        GROW(g->alloc_count, g->alloc_count_cap, r + 1) != 0)
        return nomem(b);
    if (g->has_debug && (GROW(g->dbg_first, g->dbg_first_cap, need) != 0 ||
                         GROW(g->dbg_count, g->dbg_count_cap, need) != 0))
        return nomem(b);
    g->runs[r] = run_index;
    for (size_t k = 0; k < E; k++) {
        const rslot *sl = &b->slots[k];
        const esig *s = &b->esigs[sl->esig];
        size_t at = r * E + k;
        if (sl->pe >= 0) {
            const et_raw_event *e = &b->ev[sl->pe];
            if (duration_of(b, s, e, run_index, &g->dur[at]) != 0)
                return -1;
            g->start[at] = e->start_time;
            g->pe_pos[at] = e->pos;
            if (e->metadata.n > 0)
                g->any_meta[k] = 1;
        } else {
            g->dur[at] = 0;
            g->start[at] = 0;
            g->pe_pos[at] = 0;
        }
        if (g->has_debug) {
            ievent *ie = &b->ies[sl->ie];
            if (ie->pool_first == UINT32_MAX) {
                if (GROW(g->values, g->values_cap, g->n_values + ie->d_count) != 0)
                    return nomem(b);
                ie->pool_first = (uint32_t)g->n_values;
                for (int32_t j = ie->d_head; j >= 0; j = b->next[j])
                    g->values[g->n_values++] = b->ev[j].value_pos;
            }
            g->dbg_first[at] = ie->pool_first;
            g->dbg_count[at] = ie->d_count;
        }
    }
    if (GROW(g->values, g->values_cap, g->n_values + b->n_outs) != 0 ||
        GROW(g->allocs, g->allocs_cap, g->n_allocs + b->n_allocs) != 0)
        return nomem(b);
    g->out_first[r] = (uint32_t)g->n_values;
    g->out_count[r] = (uint32_t)b->n_outs;
    if (b->n_outs) /* memcpy from/to NULL is undefined even for 0 bytes */
        memcpy(g->values + g->n_values, b->outs, b->n_outs * sizeof *b->outs);
    g->n_values += b->n_outs;
    g->alloc_first[r] = (uint32_t)g->n_allocs;
    g->alloc_count[r] = (uint32_t)b->n_allocs;
    if (b->n_allocs)
        memcpy(g->allocs + g->n_allocs, b->allocs, b->n_allocs * sizeof *b->allocs);
    g->n_allocs += b->n_allocs;
    g->n_runs++;
    return 0;
}

/* p10, p50, p90, avg, min and max of pd->raw (pd->n >= 1 samples), spec
 * §4; `tmp` has room for pd->n doubles. */
static void perf_stats(et_perf_data *pd, double *tmp)
{
    static const double qs[3] = {10, 50, 90};
    double ps[3];
    size_t R = pd->n;
    memcpy(tmp, pd->raw, R * sizeof(double));
    et_percentiles(tmp, R, qs, 3, ps);
    pd->p10 = ps[0];
    pd->p50 = ps[1];
    pd->p90 = ps[2];
    pd->avg = et_numpy_mean(pd->raw, R);
    pd->min = pd->max = pd->raw[0];
    for (size_t r = 1; r < R; r++) {
        if (pd->raw[r] < pd->min)
            pd->min = pd->raw[r];
        if (pd->raw[r] > pd->max)
            pd->max = pd->raw[r];
    }
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
static bool tensor_equal(const et_inspector *insp, const et_raw_value *a, const et_raw_value *b)
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
    return memcmp(insp->debug_buffer.data + a->offset, insp->debug_buffer.data + b->offset,
                  nbytes) == 0;
}

static bool value_equal(const et_inspector *insp, uint32_t pa, uint32_t pb)
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
    case ET_VAL_TENSOR: return tensor_equal(insp, &a, &b);
    case ET_VAL_TENSOR_LIST:
        if (a.tensors.count != b.tensors.count)
            return false;
        for (uint32_t i = 0; i < a.tensors.count; i++) {
            et_raw_value ta, tb;
            et_etdump_list_tensor(&insp->dump, &a, i, &ta);
            et_etdump_list_tensor(&insp->dump, &b, i, &tb);
            if (!tensor_equal(insp, &ta, &tb))
                return false;
        }
        return true;
    default: return true;
    }
}

static bool lists_equal(const et_inspector *insp, const uint32_t *pool, uint32_t fa, uint32_t na,
                        uint32_t fb, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (pool[fa + i] != pool[fb + i] && !value_equal(insp, pool[fa + i], pool[fb + i]))
            return false;
    return true;
}

/* Turn group `g` into block `blk`, moving its arrays. */
static int build_block(builder *b, group *g, et_block *blk, size_t block_index)
{
    et_inspector *insp = b->insp;
    size_t E = g->seq_len, R = g->n_runs;
    memset(blk, 0, sizeof *blk);
    blk->name = g->name;
    blk->bundled_input_index = g->bii;
    blk->n_runs = R;
    blk->runs = g->runs, g->runs = NULL;
    blk->value_pool = g->values, g->values = NULL;
    blk->run_output_first = g->out_first, g->out_first = NULL;
    blk->run_output_count = g->out_count, g->out_count = NULL;
    blk->allocations = g->allocs, g->allocs = NULL;
    blk->allocation_first = g->alloc_first, g->alloc_first = NULL;
    blk->allocation_count = g->alloc_count, g->alloc_count = NULL;
    blk->n_events = E;
    blk->events = calloc(E ? E : 1, sizeof *blk->events);
    if (!blk->events)
        return nomem(b);
    /* allocator names of the first run */
    et_run first;
    et_etdump_run(&insp->dump, g->first_run, &first);
    blk->n_allocators = first.allocators.count;
    if (blk->n_allocators) {
        blk->allocators = calloc(blk->n_allocators, sizeof *blk->allocators);
        if (!blk->allocators)
            return nomem(b);
        for (uint32_t i = 0; i < first.allocators.count; i++)
            blk->allocators[i] = et_etdump_allocator_name(&insp->dump, &first, i);
    }
    if (GROW(b->tmp, b->tmp_cap, R ? R : 1) != 0)
        return nomem(b);
    static const char empty[1] = "";
    /* allocate every event's samples, then gather them from the run-major
     * arrays in tiles of events, so that each run's row is read in
     * contiguous pieces instead of one page per sample */
    for (size_t e = 0; e < E; e++) {
        if (!b->esigs[b->seq[g->seq_first + e]].has_p)
            continue;
        et_event *ev = &blk->events[e];
        ev->perf_data.raw = malloc((R ? R : 1) * sizeof(double));
        ev->start_time = malloc((R ? R : 1) * sizeof(uint64_t));
        if (!ev->perf_data.raw || !ev->start_time)
            return nomem(b);
    }
    for (size_t e0 = 0; e0 < E; e0 += 64) {
        size_t e1 = e0 + 64 < E ? e0 + 64 : E;
        for (size_t r = 0; r < R; r++)
            for (size_t e = e0; e < e1; e++) {
                et_event *ev = &blk->events[e];
                if (ev->perf_data.raw) {
                    ev->perf_data.raw[r] = g->dur[r * E + e];
                    ev->start_time[r] = g->start[r * E + e];
                }
            }
    }
    bool differs = false; /* one warning per block */
    for (size_t e = 0; e < E; e++) {
        const esig *s = &b->esigs[b->seq[g->seq_first + e]];
        et_event *ev = &blk->events[e];
        ev->name_str = (et_str){empty, 0};
        ev->instruction_id = s->instr_raw;
        ev->num_outputs = 1;
        if (s->has_p) {
            apply_sig(ev, &s->p);
            ev->has_perf_data = R > 0;
            ev->perf_data.n = R;
            ev->profile_event_pos_first_run = R ? g->pe_pos[e] : 0;
            if (R)
                perf_stats(&ev->perf_data, b->tmp);
            if (g->any_meta[e]) {
                ev->raw_delegate_debug_metadatas = calloc(R, sizeof(et_str));
                if (!ev->raw_delegate_debug_metadatas)
                    return nomem(b);
                for (size_t r = 0; r < R; r++) {
                    et_str m = et_etdump_profile_metadata(&insp->dump, g->pe_pos[r * E + e]);
                    ev->raw_delegate_debug_metadatas[r] = m.p ? m : (et_str){empty, 0};
                }
            }
        }
        if (s->has_d) {
            apply_sig(ev, &s->d);
            ev->has_debug_data = true;
            ev->debug_first = malloc((R ? R : 1) * sizeof(uint32_t));
            ev->debug_count = malloc((R ? R : 1) * sizeof(uint32_t));
            if (!ev->debug_first || !ev->debug_count)
                return nomem(b);
            for (size_t r = 0; r < R; r++) {
                ev->debug_first[r] = g->dbg_first[r * E + e];
                ev->debug_count[r] = g->dbg_count[r * E + e];
                if (r > 0 && !differs &&
                    !lists_equal(insp, blk->value_pool, ev->debug_first[0], ev->debug_count[0],
                                 ev->debug_first[r], ev->debug_count[r])) {
                    differs = true;
                    b->debug_differs_blocks++;
                    et_str nm = et_event_name(ev);
                    if (et_inspector_warn(insp,
                                    "%s: event_blocks[%zu] '%.*s': the %zu runs merged into it "
                                    "logged different debug data (first in events[%zu] '%.*s', "
                                    "run %zu); the first run's values are the event's "
                                    "debug_data, every run's are kept",
                                    insp->etdump_label, block_index + 1, (int)blk->name.n,
                                    blk->name.p, R, e + 1, (int)nm.n, nm.p, r + 1) != 0)
                        return nomem(b);
                }
            }
        }
    }
    for (size_t r = 1; r < R && !differs; r++)
        if (!lists_equal(insp, blk->value_pool, blk->run_output_first[0],
                         blk->run_output_count[0], blk->run_output_first[r],
                         blk->run_output_count[r])) {
            differs = true;
            b->debug_differs_blocks++;
            if (et_inspector_warn(insp,
                            "%s: event_blocks[%zu] '%.*s': the %zu runs merged into it have "
                            "different program outputs (first in run %zu); block.run_output is "
                            "the first run's, every run's are kept",
                            insp->etdump_label, block_index + 1, (int)blk->name.n, blk->name.p,
                            R, r + 1) != 0)
                return nomem(b);
        }
    return 0;
}

static void free_group(group *g)
{
    free(g->runs);
    free(g->dur);
    free(g->start);
    free(g->pe_pos);
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

static void free_builder(builder *b)
{
    for (size_t i = 0; i < b->n_groups; i++)
        free_group(&b->groups[i]);
    free(b->groups);
    free(b->esigs);
    free(b->esig_tab.slots);
    free(b->group_tab.slots);
    free(b->seq);
    free(b->ev);
    free(b->next);
    free(b->ies);
    free(b->ie_slots);
    free(b->ie_stamp);
    free(b->slots);
    free(b->esig_slot);
    free(b->esig_stamp);
    free(b->outs);
    free(b->allocs);
    free(b->tmp);
}

static int build(et_inspector *insp, const et_inspector_options *o, et_error *err)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.insp = insp;
    b.err = err;
    b.converter = o->converter;
    b.last_group = -1;
    b.converter_ud = o->converter_ud;
    int rc = -1;
    if (idtable_init(&b.esig_tab, 1024) != 0 || idtable_init(&b.group_tab, 16) != 0) {
        nomem(&b);
        goto out;
    }
    uint32_t nruns = et_etdump_num_runs(&insp->dump);
    for (uint32_t i = 0; i < nruns; i++) {
        et_run run;
        et_etdump_run(&insp->dump, i, &run);
        if (!run.has_events)
            continue; /* spec §3.1: a run without an events vector makes no block */
        if (collate_run(&b, &run, i) != 0 || signatures_of_run(&b) != 0)
            goto out;
        long gi = group_of_run(&b, &run, i);
        if (gi < 0) {
            nomem(&b);
            goto out;
        }
        if (append_run(&b, &b.groups[gi], i) != 0)
            goto out;
        b.last_group = gi;
    }
    insp->blocks = calloc(b.n_groups ? b.n_groups : 1, sizeof *insp->blocks);
    if (!insp->blocks) {
        nomem(&b);
        goto out;
    }
    for (size_t gi = 0; gi < b.n_groups; gi++) {
        insp->n_blocks = gi + 1;
        if (build_block(&b, &b.groups[gi], &insp->blocks[gi], gi) != 0)
            goto out;
    }
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
        (insp->dump.trailing_bytes &&
         et_inspector_warn(insp, "%s: %" PRIu64 " bytes after the end of the size-prefixed "
                           "buffer were ignored", lbl, insp->dump.trailing_bytes) != 0) ||
        (b.tensor_values && insp->debug_buffer.size == 0 &&
         et_inspector_warn(insp, "%s: no debug buffer given; tensor values of debug events are not "
                           "available", lbl) != 0)) {
        nomem(&b);
        goto out;
    }
    rc = 0;
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
    et_inspector *insp = calloc(1, sizeof *insp);
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
        if (et_map_file(&insp->etdump_file, o->profile_results_path, err) != 0)
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
        if (!(insp->etrecord = et_etrecord_open_path(o->etrecord_path, err)))
            return -1;
        insp->owns_etrecord = true;
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
    et_inspector *insp = calloc(1, sizeof *insp);
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
        if (et_map_file(&insp->etdump_file, o->etdump_path, err) != 0)
            goto fail;
        data = insp->etdump_file.data;
        size = insp->etdump_file.size;
    } else {
        insp->etdump_label = "<etdump_data>";
        data = o->etdump_data;
        size = o->etdump_size;
    }
    if (et_etdump_open(&insp->dump, data, size, err) != 0) {
        et_error_prefix(err, insp->etdump_label);
        goto fail;
    }
    if (o->debug_buffer_path && et_map_file(&insp->debug_buffer, o->debug_buffer_path, err) != 0)
        goto fail;
    if (o->bundled_program_path &&
        !(insp->bundled = et_bundled_open_path(o->bundled_program_path, err)))
        goto fail;
    insp->bundled_test_case = o->bundled_test_case;
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

void et_inspector_free(et_inspector *insp)
{
    if (!insp)
        return;
    for (size_t i = 0; i < insp->n_blocks; i++) {
        et_block *blk = &insp->blocks[i];
        for (size_t e = 0; e < blk->n_events; e++) {
            et_event *ev = &blk->events[e];
            free(ev->perf_data.raw);
            free(ev->start_time);
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
    if (insp->owns_etrecord)
        et_etrecord_free(insp->etrecord);
    et_bundled_free(insp->bundled);
    free(insp);
}
