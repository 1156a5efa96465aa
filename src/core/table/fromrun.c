/* fromrun.c - the raw-event columns from an inspector's runs; see fromrun.h. */
#include "table/fromrun.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/timescale.h"
#include "format/etdump.h"
#include "model/model.h"

const char *const et_raw_column_names[ET_RAW_NCOLS] = {
    "run",        "block",          "name",           "kind",
    "start_time", "end_time",       "duration",       "instruction_id",
    "chain_index", "delegate_debug_id_int", "delegate_debug_id_str",
};

static const char *const kind_names[4] = {"empty", "profile", "debug", "allocation"};

/* The pool in front of a direct-mapped cache keyed by the bytes' address
 * in the dump: a dump's events usually share one copy of each name, so
 * most lookups cost a comparison of a pointer and a length instead of a
 * hash of the bytes. */
#define RECENT 256
typedef struct interner {
    et_strpool *pool;
    struct {
        const char *p;
        uint32_t n, id;
    } recent[RECENT];
} interner;

/* The pool id of s (present: s.p != NULL) into *id; -1 on exhausted memory. */
static int intern(interner *in, et_str s, uint32_t *id)
{
    size_t r = (((uintptr_t)s.p >> 3) ^ ((uintptr_t)s.p >> 11) ^ s.n) & (RECENT - 1);
    if (in->recent[r].p == s.p && in->recent[r].n == s.n) {
        *id = in->recent[r].id;
        return 0;
    }
    if (et_strpool_intern(in->pool, s.n ? s.p : "", s.n, id) != 0)
        return -1;
    in->recent[r].p = s.p;
    in->recent[r].n = s.n;
    in->recent[r].id = *id;
    return 0;
}

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
        return NAN; /* inconsistent times: the model refuses to open them */
    if (!delegated || wrapped)
        return (double)ticks / f;
    return (double)end / f - (double)start / f;
}

void et_rawtable_free(et_rawtable *t)
{
    for (int c = 0; c < ET_RAW_NCOLS; c++)
        et_col_release(t->cols[c]);
    et_strpool_release(t->pool);
    memset(t, 0, sizeof *t);
}

static const et_col_kind col_kinds[ET_RAW_NCOLS] = {
    ET_COL_I64, ET_COL_I64, ET_COL_STR, ET_COL_STR, ET_COL_I64, ET_COL_I64,
    ET_COL_F64, ET_COL_I64, ET_COL_I64, ET_COL_I64, ET_COL_STR,
};
/* which columns carry a validity mask */
static const bool col_masked[ET_RAW_NCOLS] = {
    false, true, true, false, true, true, false, true, true, true, true,
};

int et_rawtable_build(const et_inspector *insp, et_rawtable *t, et_error *err)
{
    memset(t, 0, sizeof *t);
    const et_etdump *dump = &insp->dump;
    uint32_t nruns = insp->legacy ? 0 : et_etdump_num_runs(dump);
    size_t n = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        et_run run;
        et_etdump_run(dump, r, &run);
        if (run.has_events)
            n += run.events.count;
    }
    int64_t *run_block = calloc(nruns ? nruns : 1, sizeof *run_block);
    interner *in = calloc(1, sizeof *in);
    t->pool = et_strpool_new();
    if (!run_block || !in || !t->pool)
        goto nomem;
    in->pool = t->pool;
    uint32_t kind_id[4];
    for (int k = 0; k < 4; k++)
        if (et_strpool_intern(t->pool, kind_names[k], strlen(kind_names[k]), &kind_id[k]) != 0)
            goto nomem;
    for (int c = 0; c < ET_RAW_NCOLS; c++) {
        bool str = col_kinds[c] == ET_COL_STR;
        if (!(t->cols[c] = et_col_new(col_kinds[c], n, col_masked[c], str ? t->pool : NULL)))
            goto nomem;
    }
    for (size_t b = 0; b < insp->n_blocks; b++)
        for (size_t k = 0; k < insp->blocks[b].n_runs; k++) {
            uint32_t r = insp->blocks[b].runs[k];
            if (r < nruns)
                run_block[r] = (int64_t)b + 1;
        }
    int64_t *run = et_col_mut_data(t->cols[ET_RAW_RUN]);
    int64_t *block = et_col_mut_data(t->cols[ET_RAW_BLOCK]);
    uint8_t *v_block = et_col_mut_valid(t->cols[ET_RAW_BLOCK]);
    uint32_t *name = et_col_mut_data(t->cols[ET_RAW_NAME]);
    uint8_t *v_name = et_col_mut_valid(t->cols[ET_RAW_NAME]);
    uint32_t *kind = et_col_mut_data(t->cols[ET_RAW_KIND]);
    int64_t *st = et_col_mut_data(t->cols[ET_RAW_START]);
    uint8_t *v_st = et_col_mut_valid(t->cols[ET_RAW_START]);
    int64_t *en = et_col_mut_data(t->cols[ET_RAW_END]);
    uint8_t *v_en = et_col_mut_valid(t->cols[ET_RAW_END]);
    double *dur = et_col_mut_data(t->cols[ET_RAW_DURATION]);
    int64_t *ins = et_col_mut_data(t->cols[ET_RAW_INSTRUCTION]);
    uint8_t *v_ins = et_col_mut_valid(t->cols[ET_RAW_INSTRUCTION]);
    int64_t *chain = et_col_mut_data(t->cols[ET_RAW_CHAIN]);
    uint8_t *v_chain = et_col_mut_valid(t->cols[ET_RAW_CHAIN]);
    int64_t *did = et_col_mut_data(t->cols[ET_RAW_DID_INT]);
    uint8_t *v_did = et_col_mut_valid(t->cols[ET_RAW_DID_INT]);
    uint32_t *dstr = et_col_mut_data(t->cols[ET_RAW_DID_STR]);
    uint8_t *v_dstr = et_col_mut_valid(t->cols[ET_RAW_DID_STR]);
    double f = insp->scale_factor;
    size_t i = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        et_run rd;
        et_etdump_run(dump, r, &rd);
        uint32_t ne = rd.has_events ? rd.events.count : 0;
        et_event_cursor cur;
        et_event_cursor_init(&cur, dump, r, &rd);
        for (uint32_t j = 0; j < ne && i < n; j++, i++) {
            et_raw_event e;
            et_event_cursor_get(&cur, j, &e);
            run[i] = (int64_t)r + 1;
            block[i] = run_block[r];
            v_block[i] = run_block[r] != 0;
            kind[i] = kind_id[e.kind & 3];
            bool prof = e.kind == ET_EV_PROFILE, ids = prof || e.kind == ET_EV_DEBUG;
            uint32_t id = 0;
            v_name[i] = ids && e.name.p;
            if (v_name[i] && intern(in, e.name, &id) != 0)
                goto nomem;
            name[i] = id;
            id = 0;
            v_dstr[i] = ids && e.delegate_debug_id_str.p;
            if (v_dstr[i] && intern(in, e.delegate_debug_id_str, &id) != 0)
                goto nomem;
            dstr[i] = id;
            v_st[i] = v_en[i] = prof;
            st[i] = prof ? (int64_t)e.start_time : 0;
            en[i] = prof ? (int64_t)e.end_time : 0;
            bool delegated = e.delegate_debug_id_int != -1 ||
                             (e.delegate_debug_id_str.p && e.delegate_debug_id_str.n);
            dur[i] = prof ? duration(f, delegated, e.start_time, e.end_time) : NAN;
            v_ins[i] = v_chain[i] = ids;
            ins[i] = ids ? e.instruction_id : 0;
            /* chain_neg: chain_value's bits are the negative int64 already */
            chain[i] = ids ? (int64_t)e.chain_value : 0;
            v_did[i] = ids && e.delegate_debug_id_int != -1;
            did[i] = v_did[i] ? e.delegate_debug_id_int : 0;
        }
    }
    t->n = n;
    free(run_block);
    free(in);
    return 0;
nomem:
    free(run_block);
    free(in);
    et_rawtable_free(t);
    return et_fail(err, ET_ERR_NOMEM, "raw events: out of memory for %zu events", n);
}
