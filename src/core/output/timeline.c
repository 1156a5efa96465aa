/* timeline.c - where a timeline puts the events of a run (timeline.h). */
#include "output/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool str_is(et_str n, const char *s)
{
    size_t k = strlen(s);
    return n.n == k && memcmp(n.p, s, k) == 0;
}

et_tl_track et_tl_track_of(const et_event *ev)
{
    if (ev->is_delegated_op)
        return ET_TL_DELEGATE;
    et_str n = et_event_name(ev);
    if ((n.n > 8 && memcmp(n.p, "Method::", 8) == 0) ||
        (n.n > 9 && memcmp(n.p, "Program::", 9) == 0))
        return ET_TL_FRAMEWORK;
    return ET_TL_OPERATORS;
}

bool et_tl_timed(const et_event *ev)
{
    return ev->has_perf_data && ev->perf_data.raw && ev->start_time;
}

static int cmp_dc(const void *a, const void *b)
{
    const et_tl_dc *x = a, *y = b;
    if (x->instr != y->instr)
        return x->instr < y->instr ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

/* The DELEGATE_CALL of delegated event e: the first after it with its
 * instruction id, else the first with it; -1 when none. */
static int32_t find_parent(const et_tl_dc *dcs, size_t n_dcs, int32_t instr, size_t e)
{
    size_t lo = 0, hi = n_dcs;
    while (lo < hi) { /* first with (instr, index) >= (instr, e) */
        size_t mid = lo + (hi - lo) / 2;
        const et_tl_dc *m = &dcs[mid];
        if (m->instr < instr || (m->instr == instr && m->e < e))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n_dcs && dcs[lo].instr == instr)
        return (int32_t)dcs[lo].e;
    while (lo > 0 && dcs[lo - 1].instr == instr)
        lo--;
    if (lo < n_dcs && dcs[lo].instr == instr)
        return (int32_t)dcs[lo].e;
    return -1;
}

void et_tl_parents(const et_block *blk, int32_t *parent, et_tl_dc *dcs)
{
    size_t E = blk->n_events, n_dcs = 0;
    for (size_t e = 0; e < E; e++) {
        const et_event *ev = &blk->events[e];
        if (!ev->is_delegated_op && et_tl_timed(ev) && str_is(et_event_name(ev), "DELEGATE_CALL"))
            dcs[n_dcs++] = (et_tl_dc){ev->instruction_id, (uint32_t)e};
    }
    if (n_dcs)
        qsort(dcs, n_dcs, sizeof *dcs, cmp_dc);
    for (size_t e = 0; e < E; e++) {
        const et_event *ev = &blk->events[e];
        parent[e] = ev->is_delegated_op && et_tl_timed(ev)
                        ? find_parent(dcs, n_dcs, ev->instruction_id, e)
                        : -1;
    }
}

void et_tl_place(const et_block *blk, const int32_t *parent, et_tl_slot *slot, double fallback)
{
    size_t E = blk->n_events;
    double lo = INFINITY, hi = -INFINITY;
    /* the non-delegated slices are the containers */
    for (size_t e = 0; e < E; e++) {
        et_tl_slot *s = &slot[e];
        s->flags &= (uint8_t)(ET_TL_TIMED | ET_TL_TICK0);
        if (!(s->flags & ET_TL_TIMED) || blk->events[e].is_delegated_op)
            continue;
        s->cursor = s->ts;
        if (s->ts < lo)
            lo = s->ts;
        if (s->ts + s->dur > hi)
            hi = s->ts + s->dur;
    }
    double run_cur = lo <= hi ? lo : fallback, run_end = lo <= hi ? hi : INFINITY;
    for (size_t e = 0; e < E; e++) {
        et_tl_slot *s = &slot[e];
        if (!(s->flags & ET_TL_TIMED) || !blk->events[e].is_delegated_op)
            continue;
        et_tl_slot *p = parent[e] >= 0 && (slot[parent[e]].flags & ET_TL_TIMED) ? &slot[parent[e]]
                                                                              : NULL;
        if (!(s->flags & ET_TL_TICK0) && !(p && (s->ts < p->ts || s->ts > p->ts + p->dur)))
            continue;
        double *cur = p ? &p->cursor : &run_cur;
        double end = p ? p->ts + p->dur : run_end;
        s->ts = *cur;
        if (end != INFINITY && s->dur > end - s->ts) {
            s->logged = s->dur;
            s->dur = end - s->ts;
            s->flags |= ET_TL_CUT;
        }
        *cur = s->ts + s->dur;
        s->flags |= ET_TL_SYNTH;
    }
}
