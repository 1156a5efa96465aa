/* fromrun.c - the raw-event table from an inspector's runs; see fromrun.h. */
#include "table/fromrun.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/timescale.h"
#include "format/etdump.h"

const char *const et_rawtable_kind_names[4] = {"empty", "profile", "debug", "allocation"};

/* ---------------------------------------------------------------- dictionary */

/* An open-addressing set of the distinct strings (by content), with a
 * direct-mapped cache in front keyed by the bytes' address: a dump's
 * events usually share one copy of each name, so most lookups cost one
 * comparison of a pointer and a length. */
typedef struct dict {
    uint32_t *slot;   /* id, 0: empty; capacity cap (a power of two) */
    size_t cap;
    et_str *strings;  /* id k is strings[k - 1] */
    size_t n, scap;
    struct {
        const char *p;
        uint32_t n, id;
    } recent[256];
} dict;

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
    return h ^ (h >> 29);
}

static int dict_grow(dict *d)
{
    size_t cap = d->cap ? d->cap * 2 : 64;
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < d->n; i++) {
        const et_str *s = &d->strings[i];
        size_t k = (size_t)hash_bytes(s->p, s->n) & (cap - 1);
        while (slot[k])
            k = (k + 1) & (cap - 1);
        slot[k] = (uint32_t)(i + 1);
    }
    free(d->slot);
    d->slot = slot;
    d->cap = cap;
    return 0;
}

/* The id of s (0 for an absent or empty string), adding it when new;
 * -1 (as UINT32_MAX) when out of memory. */
static uint32_t dict_id(dict *d, et_str s)
{
    if (!s.p || !s.n)
        return 0;
    size_t r = ((uintptr_t)s.p >> 2 ^ s.n * 31u) & 255u;
    if (d->recent[r].p == s.p && d->recent[r].n == s.n)
        return d->recent[r].id;
    if ((d->n + 1) * 2 > d->cap && dict_grow(d) < 0)
        return UINT32_MAX;
    size_t k = (size_t)hash_bytes(s.p, s.n) & (d->cap - 1);
    uint32_t id;
    for (;;) {
        id = d->slot[k];
        if (!id)
            break;
        const et_str *t = &d->strings[id - 1];
        if (t->n == s.n && memcmp(t->p, s.p, s.n) == 0)
            goto found;
        k = (k + 1) & (d->cap - 1);
    }
    if (d->n == d->scap) {
        size_t scap = d->scap ? d->scap * 2 : 16;
        et_str *ns = realloc(d->strings, scap * sizeof *ns);
        if (!ns)
            return UINT32_MAX;
        d->strings = ns;
        d->scap = scap;
    }
    d->strings[d->n++] = s;
    id = (uint32_t)d->n;
    d->slot[k] = id;
found:
    d->recent[r].p = s.p;
    d->recent[r].n = s.n;
    d->recent[r].id = id;
    return id;
}

/* ---------------------------------------------------------------- build */

/* Duration of a profile event in target units with the default
 * conversion: what the model's builder computes without a converter
 * (builder.c, spec §3.7-§3.8). */
static double duration(double f, bool delegated, uint64_t start, uint64_t end)
{
    if (!delegated && start <= end)
        return (double)(end - start) / f;
    uint64_t ticks;
    bool wrapped;
    if (!et_elapsed_ticks(start, end, &ticks, &wrapped))
        return NAN; /* inconsistent times: the model refused to open them */
    if (!delegated || wrapped)
        return (double)ticks / f;
    return (double)end / f - (double)start / f;
}

void et_rawtable_free(et_rawtable *t)
{
    free(t->run);
    free(t->block);
    free(t->name);
    free(t->kind);
    free(t->start_time);
    free(t->end_time);
    free(t->duration);
    free(t->instruction_id);
    free(t->chain_index);
    free(t->delegate_debug_id_int);
    free(t->delegate_debug_id_str);
    free(t->valid_ticks);
    free(t->valid_ids);
    free(t->valid_did);
    free(t->strings);
    memset(t, 0, sizeof *t);
}

int et_rawtable_build(const et_inspector *insp, et_rawtable *t, et_error *err)
{
    memset(t, 0, sizeof *t);
    const et_etdump *dump = &insp->dump;
    uint32_t nruns = insp->legacy ? 0 : et_etdump_num_runs(dump);
    /* rows: every run's events */
    size_t n = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        et_run run;
        et_etdump_run(dump, r, &run);
        if (run.has_events)
            n += run.events.count;
    }
    size_t m = n ? n : 1;
    int64_t *run_block = calloc(nruns ? nruns : 1, sizeof *run_block);
    dict d = {0};
    t->run = malloc(m * sizeof *t->run);
    t->block = malloc(m * sizeof *t->block);
    t->name = malloc(m * sizeof *t->name);
    t->kind = malloc(m);
    t->start_time = malloc(m * sizeof *t->start_time);
    t->end_time = malloc(m * sizeof *t->end_time);
    t->duration = malloc(m * sizeof *t->duration);
    t->instruction_id = malloc(m * sizeof *t->instruction_id);
    t->chain_index = malloc(m * sizeof *t->chain_index);
    t->delegate_debug_id_int = malloc(m * sizeof *t->delegate_debug_id_int);
    t->delegate_debug_id_str = malloc(m * sizeof *t->delegate_debug_id_str);
    t->valid_ticks = malloc(m);
    t->valid_ids = malloc(m);
    t->valid_did = malloc(m);
    if (!run_block || !t->run || !t->block || !t->name || !t->kind || !t->start_time ||
        !t->end_time || !t->duration || !t->instruction_id || !t->chain_index ||
        !t->delegate_debug_id_int || !t->delegate_debug_id_str || !t->valid_ticks ||
        !t->valid_ids || !t->valid_did)
        goto nomem;
    for (size_t b = 0; b < insp->n_blocks; b++)
        for (size_t k = 0; k < insp->blocks[b].n_runs; k++) {
            uint32_t r = insp->blocks[b].runs[k];
            if (r < nruns)
                run_block[r] = (int64_t)b + 1;
        }
    double f = insp->scale_factor;
    size_t i = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        et_run run;
        et_etdump_run(dump, r, &run);
        uint32_t ne = run.has_events ? run.events.count : 0;
        et_event_cursor cur;
        et_event_cursor_init(&cur, dump, r, &run);
        for (uint32_t j = 0; j < ne; j++, i++) {
            et_raw_event e;
            et_event_cursor_get(&cur, j, &e);
            t->run[i] = (int64_t)r + 1;
            t->block[i] = run_block[r];
            t->kind[i] = (uint8_t)e.kind;
            bool prof = e.kind == ET_EV_PROFILE, ids = prof || e.kind == ET_EV_DEBUG;
            uint32_t nm = 0, ds = 0;
            if (ids) {
                nm = dict_id(&d, e.name);
                ds = dict_id(&d, e.delegate_debug_id_str);
                if (nm == UINT32_MAX || ds == UINT32_MAX)
                    goto nomem;
            }
            t->name[i] = nm;
            t->delegate_debug_id_str[i] = ds;
            t->valid_ticks[i] = prof;
            t->valid_ids[i] = ids;
            t->valid_did[i] = ids && e.delegate_debug_id_int != -1;
            t->start_time[i] = prof ? (int64_t)e.start_time : 0;
            t->end_time[i] = prof ? (int64_t)e.end_time : 0;
            t->duration[i] = prof ? duration(f, e.delegate_debug_id_int != -1 || ds != 0,
                                             e.start_time, e.end_time)
                                  : NAN;
            t->instruction_id[i] = ids ? e.instruction_id : 0;
            t->chain_index[i] = !ids ? 0 : (int64_t)e.chain_value; /* chain_neg: the bits are
                                                                      the int64 already */
            t->delegate_debug_id_int[i] = ids ? e.delegate_debug_id_int : 0;
        }
    }
    t->n = i;
    free(run_block);
    free(d.slot);
    t->strings = d.strings;
    t->n_strings = d.n;
    return 0;
nomem:
    free(run_block);
    free(d.slot);
    free(d.strings);
    et_rawtable_free(t);
    return et_fail(err, ET_ERR_NOMEM, "raw events table: out of memory (%zu events)", n);
}
