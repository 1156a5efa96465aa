/* pass1.c - pass 1 of the model's build: a worker's runs verified,
 * decoded, collated into InstructionEvents (spec §3.1), their
 * EventSignatures (§3.2) and groups of runs (§3.3) found, their ticks noted,
 * the pages behind them given back; and the verification alone for a
 * deferred model.  See builder_int.h and builder.c. */
#define _DEFAULT_SOURCE /* madvise */
#include "model/builder_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "base/strbuf.h"


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
    size_t need = w->n_seq + w->n_slots;
    if (w->n_groups + 1 > UINT32_MAX / 2 || GROW(w->groups, w->groups_cap, w->n_groups + 1) != 0 ||
        GROW(w->seq, w->seq_cap, need) != 0 || GROW(w->pos0, w->pos0_cap, need) != 0 ||
        GROW(w->any_meta, w->any_meta_cap, need) != 0)
        return -1;
    if (w->n_slots) {
        memset(w->pos0 + w->n_seq, 0, w->n_slots * sizeof *w->pos0);
        memset(w->any_meta + w->n_seq, 0, w->n_slots);
    }
    lgroup *g = &w->groups[w->n_groups];
    memset(g, 0, sizeof *g);
    g->name = run->name;
    g->bii = run->bundled_input_index;
    g->hash = h;
    g->name_hash = hash_bytes(0xabc, run->name.p, run->name.n);
    g->seq_first = (uint32_t)w->n_seq;
    g->seq_len = (uint32_t)w->n_slots;
    g->first_run = run_index;
    g->n_allocators = run->allocators.count;
    for (size_t k = 0; k < w->n_slots; k++) {
        w->seq[w->n_seq++] = w->slots[k].esig;
        if (w->es.v[w->slots[k].esig].has_d)
            g->has_debug = true;
    }
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

/* The side table of group g (lgroup_more), allocated on first need; NULL
 * out of memory. */
static lgroup_more *more_of(lgroup *g)
{
    if (!g->more)
        g->more = calloc(1, sizeof *g->more);
    return g->more;
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
    if (GROW(g->rr, g->rr_cap, r + 1) != 0)
        return nomem(&w->err);
    lgroup_more *x = g->more;
    if (g->has_debug && (!(x = more_of(g)) || GROW(x->dbg_first, x->dbg_first_cap, need) != 0 ||
                         GROW(x->dbg_count, x->dbg_count_cap, need) != 0))
        return nomem(&w->err);
    lrun *lr = &g->rr[r];
    lr->run = run_index;
    lr->row = w->ticks_n;
    et_ticks *tk = w->ticks + w->ticks_n;
    w->ticks_n += E;
    for (size_t k = 0; k < E; k++) {
        const rslot *sl = &w->slots[k];
        if (sl->pe >= 0) {
            const et_raw_event *e = &w->ev[sl->pe];
            uint64_t ticks;
            bool wrapped = false;
            bool dlg = e->delegate_debug_id_int != -1 || e->delegate_debug_id_str.n;
            /* a delegated event's times are converted before the reference's
             * wrap-around rule (spec §3.7): with the default converter it
             * raises only when a converted time passes 4294967295, and
             * otherwise gives (4294967295 - start) + end in target units
             * (builder.c's duration) */
            if (e->start_time > e->end_time &&
                !et_elapsed_ticks(e->start_time, e->end_time, &ticks, &wrapped) &&
                !(dlg && (double)e->start_time / w->insp->scale_factor <= 4294967295.0))
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
            if (dlg) {
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
                w->pos0[g->seq_first + k] = e->pos;
            if (e->metadata.n > 0) {
                if (!(x = more_of(g)) || GROW(x->meta, x->meta_cap, x->n_meta + 1) != 0)
                    return nomem(&w->err);
                x->meta[x->n_meta++] = (et_meta_at){(uint32_t)r, (uint32_t)k, e->metadata};
                w->any_meta[g->seq_first + k] = 1;
            }
        } else {
            tk[k] = (et_ticks){0, 0};
        }
        if (g->has_debug) {
            ievent *ie = &w->ies[sl->ie];
            if (ie->pool_first == UINT32_MAX) {
                if (GROW(x->values, x->values_cap, g->n_values + ie->d_count) != 0)
                    return nomem(&w->err);
                ie->pool_first = (uint32_t)g->n_values;
                for (int32_t j = ie->d_head; j >= 0; j = w->next[j])
                    x->values[g->n_values++] = w->ev[j].value_pos;
            }
            x->dbg_first[r * E + k] = ie->pool_first;
            x->dbg_count[r * E + k] = ie->d_count;
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
    if ((w->n_outs || w->n_allocs) &&
        (!(x = more_of(g)) || GROW(x->values, x->values_cap, g->n_values + w->n_outs) != 0 ||
         GROW(x->allocs, x->allocs_cap, g->n_allocs + w->n_allocs) != 0))
        return nomem(&w->err);
    lr = &g->rr[r]; /* values and allocs grew, not g->rr: still valid */
    lr->out_first = (uint32_t)g->n_values;
    lr->out_count = (uint32_t)w->n_outs;
    if (w->n_outs) /* memcpy from/to NULL is undefined even for 0 bytes */
        memcpy(x->values + g->n_values, w->outs, w->n_outs * sizeof *w->outs);
    g->n_values += w->n_outs;
    lr->alloc_first = (uint32_t)g->n_allocs;
    lr->alloc_count = (uint32_t)w->n_allocs;
    if (w->n_allocs)
        memcpy(x->allocs + g->n_allocs, w->allocs, w->n_allocs * sizeof *w->allocs);
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
    if (!insp->etdump_file.data || insp->etdump_file.in_memory ||
        et_insp_cint(insp)->keep_pages || hi <= lo)
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

void et_build_pass1(void *ctx, size_t k)
{
    worker *w = &((builder *)ctx)->w[k];
    if (!each_run(w, pass1_run))
        return;
    if (w->have_tpl)
        release_behind(w, w->tpl_lo, w->tpl_hi);
    release_pages(w, w->rel_lo, w->rel_hi);
}

/* The verification alone, for a deferred model (et_model_verify_runs): run i of
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

void et_build_verify_pass(void *ctx, size_t k)
{
    worker *w = &((builder *)ctx)->w[k];
    if (each_run(w, verify_one))
        release_pages(w, w->rel_lo, w->rel_hi);
}

