/* fromrun.c - the raw-event columns from an inspector's runs; see fromrun.h. */
#include "table/fromrun.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigalloc.h"
#include "base/parallel.h"
#include "base/strbuf.h"
#include "base/timescale.h"
#include "format/etdump.h"
#include "model/model.h"

const char *const et_raw_column_names[ET_RAW_NCOLS] = {
    "run",        "block",          "name",           "kind",
    "start_time", "end_time",       "duration",       "instruction_id",
    "chain_index", "delegate_debug_id_int", "delegate_debug_id_str",
};

static const char *const kind_names[4] = {"empty", "profile", "debug", "allocation"};

/* The pool behind a direct-mapped cache keyed by the length and the last
 * 8 bytes (names differ near their end: "native_call_add.out"), checked by
 * one comparison, inline (et_bytes_equal: a call to memcmp per event cost
 * as much as the rest of the lookup), against the bytes of the name that filled the slot: a dump holds a handful of distinct
 * names and up to millions of events, each with its own copy of its name
 * or sharing one, so a lookup costs a comparison instead of a hash of
 * every byte and a probe of the pool. */
#define RECENT 256
typedef struct interner {
    et_strpool *pool;
    struct {
        const char *p; /* the bytes in the dump; NULL: slot empty */
        uint32_t n, id;
    } recent[RECENT];
} interner;

/* The pool id of s (present: s.p != NULL) into *id; -1 on exhausted memory. */
static int intern(interner *in, et_str s, uint32_t *id)
{
    uint64_t tail = 0;
    if (s.n >= 8)
        memcpy(&tail, s.p + s.n - 8, 8);
    else if (s.n)
        memcpy(&tail, s.p, s.n);
    uint64_t h = (tail ^ (uint64_t)s.n * 0x9E3779B97F4A7C15u) * 0x9E3779B97F4A7C15u;
    size_t r = (size_t)(h >> 56) & (RECENT - 1);
    if (in->recent[r].p && in->recent[r].n == s.n &&
        (in->recent[r].p == s.p || et_bytes_equal(in->recent[r].p, s.p, s.n))) {
        *id = in->recent[r].id;
        return 0;
    }
    if (et_strpool_intern(in->pool, s.n ? s.p : "", s.n, id) != 0)
        return -1;
    in->recent[r].p = s.p; /* the dump's bytes: mapped while the table is built
                              (the pool's move when it grows) */
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
    if (!et_elapsed_ticks(start, end, &ticks, &wrapped)) {
        /* start > end past 32 bits: the model refuses a non-delegated
         * event; a delegated one gets the reference's rule on the
         * converted times (spec §3.7), NaN where the reference raises */
        double cs = (double)start / f, ce = (double)end / f;
        if (!delegated || cs > 4294967295.0)
            return NAN;
        return cs <= ce ? ce - cs : (4294967295.0 - cs) + ce;
    }
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

/* A column's cells from 4 MiB on (half a million rows of 8 bytes): an
 * allocation of its own on huge pages (base/bigalloc.h), as the model's
 * large arrays: the columns of a large dump are tens of MB of new memory,
 * whose 4 KiB page faults cost more than filling them.  A column that no
 * cell is written to (delegate ids absent) never touches its pages.
 * Smaller columns are et_col_new's. */
typedef struct big_cells {
    void *p;
    size_t bytes;
    bool mapped;
} big_cells;

static void big_cells_release(void *ctx)
{
    big_cells *m = ctx;
    et_big_free(m->p, m->bytes, m->mapped);
    free(m);
}

/* A zeroed column of n cells of `kind` whose cells the caller writes
 * through *data (et_big_alloc's, freed with the column's last reference,
 * or et_col_new's storage); NULL on exhausted memory. */
static et_column *column_new(et_col_kind kind, size_t n, et_strpool *pool, void **data)
{
    size_t cs = et_col_cell_size(kind);
    et_column *c = NULL;
    if (n >= ET_BIG_ALLOC_MIN / cs && n <= SIZE_MAX / cs) {
        big_cells *m = malloc(sizeof *m);
        bool mapped = false;
        void *p = m ? et_big_alloc(n * cs, &mapped) : NULL;
        et_col_owner *o = NULL;
        if (p) {
            *m = (big_cells){p, n * cs, mapped};
            if ((o = et_col_owner_new(big_cells_release, m)))
                c = et_col_borrow(kind, n, p, cs, NULL, pool, ET_LIST_F64, o);
        }
        if (!o) {
            et_big_free(p, n * cs, mapped);
            free(m);
            return NULL;
        }
        et_col_owner_release(o); /* the column's reference (or, without one, freed) */
        *data = p;
        return c;
    }
    if ((c = et_col_new(kind, n, false, pool)))
        *data = et_col_mut_data(c);
    return c;
}

static const et_col_kind col_kinds[ET_RAW_NCOLS] = {
    ET_COL_I64, ET_COL_I64, ET_COL_STR, ET_COL_STR, ET_COL_I64, ET_COL_I64,
    ET_COL_F64, ET_COL_I64, ET_COL_I64, ET_COL_I64, ET_COL_STR,
};

/* Validity masks made only when a column has an absent cell: the mask of
 * column c over a chunk's rows, zeroed (calloc: pages the kernel maps on
 * first write), is allocated at its first absent row with the rows before
 * it marked present; from then on only present rows are written.  A
 * column with every cell present has no mask; one with none present (a
 * dump without delegate ids) writes neither its mask nor its cells (also
 * zeroed), so its pages are never touched. */
typedef struct masks {
    uint8_t *m[ET_RAW_NCOLS];
    size_t n; /* rows of the chunk */
} masks;

/* Row i (of the chunk) of column c is absent; -1 on exhausted memory. */
static int absent(masks *ms, int c, size_t i)
{
    if (ms->m[c])
        return 0;
    if (!(ms->m[c] = calloc(ms->n ? ms->n : 1, 1)))
        return -1;
    memset(ms->m[c], 1, i);
    return 0;
}

#define PRESENT(ms, c, i)                                                                          \
    do {                                                                                           \
        if ((ms)->m[c])                                                                            \
            (ms)->m[c][i] = 1;                                                                     \
    } while (0)

/* One thread's share: runs [r0, r1), rows [row0, row0 + ms.n), its
 * strings in a pool of its own (merged in order afterwards). */
typedef struct chunk {
    uint32_t r0, r1;
    size_t row0;
    masks ms;
    interner *in;
    bool nomem;
} chunk;

typedef struct build {
    const et_inspector *insp;
    void *data[ET_RAW_NCOLS]; /* the columns' cells, writable */
    const int64_t *run_block;
    et_rawtable *t;
    chunk *chunks;
    uint32_t kind_id[4];
} build;

static void fill_chunk(void *ctx, size_t ci)
{
    build *bd = ctx;
    chunk *ch = &bd->chunks[ci];
    const et_etdump *dump = &bd->insp->dump;
    if (!(ch->in = calloc(1, sizeof *ch->in)) || !(ch->in->pool = et_strpool_new())) {
        ch->nomem = true;
        return;
    }
    int64_t *run = bd->data[ET_RAW_RUN];
    int64_t *block = bd->data[ET_RAW_BLOCK];
    uint32_t *name = bd->data[ET_RAW_NAME];
    uint32_t *kind = bd->data[ET_RAW_KIND];
    int64_t *st = bd->data[ET_RAW_START];
    int64_t *en = bd->data[ET_RAW_END];
    double *dur = bd->data[ET_RAW_DURATION];
    int64_t *ins = bd->data[ET_RAW_INSTRUCTION];
    int64_t *chain = bd->data[ET_RAW_CHAIN];
    int64_t *did = bd->data[ET_RAW_DID_INT];
    uint32_t *dstr = bd->data[ET_RAW_DID_STR];
    double f = bd->insp->scale_factor;
    masks *ms = &ch->ms;
    interner *in = ch->in;
    size_t i = 0; /* the chunk's row */
    for (uint32_t r = ch->r0; r < ch->r1; r++) {
        et_run rd;
        et_etdump_run(dump, r, &rd);
        uint32_t ne = rd.has_events ? rd.events.count : 0;
        et_event_cursor cur;
        et_event_cursor_init(&cur, dump, r, &rd);
        int64_t blk = bd->run_block[r];
        for (uint32_t j = 0; j < ne && i < ms->n; j++, i++) {
            size_t g = ch->row0 + i;
            et_raw_event e;
            et_event_cursor_get(&cur, j, &e);
            run[g] = (int64_t)r + 1;
            if (blk) {
                block[g] = blk;
                PRESENT(ms, ET_RAW_BLOCK, i);
            } else if (absent(ms, ET_RAW_BLOCK, i) != 0) {
                goto nomem;
            }
            kind[g] = bd->kind_id[e.kind & 3];
            bool prof = e.kind == ET_EV_PROFILE, ids = prof || e.kind == ET_EV_DEBUG;
            uint32_t id;
            if (ids && e.name.p) {
                if (intern(in, e.name, &id) != 0)
                    goto nomem;
                name[g] = id;
                PRESENT(ms, ET_RAW_NAME, i);
            } else if (absent(ms, ET_RAW_NAME, i) != 0) {
                goto nomem;
            }
            if (ids && e.delegate_debug_id_str.p) {
                if (intern(in, e.delegate_debug_id_str, &id) != 0)
                    goto nomem;
                dstr[g] = id;
                PRESENT(ms, ET_RAW_DID_STR, i);
            } else if (absent(ms, ET_RAW_DID_STR, i) != 0) {
                goto nomem;
            }
            if (prof) {
                st[g] = (int64_t)e.start_time;
                en[g] = (int64_t)e.end_time;
                PRESENT(ms, ET_RAW_START, i);
                PRESENT(ms, ET_RAW_END, i);
                bool delegated = e.delegate_debug_id_int != -1 ||
                                 (e.delegate_debug_id_str.p && e.delegate_debug_id_str.n);
                dur[g] = duration(f, delegated, e.start_time, e.end_time);
            } else {
                if (absent(ms, ET_RAW_START, i) != 0 || absent(ms, ET_RAW_END, i) != 0)
                    goto nomem;
                dur[g] = NAN;
            }
            if (ids) {
                ins[g] = e.instruction_id;
                /* chain_neg: chain_value's bits are the negative int64 already */
                chain[g] = (int64_t)e.chain_value;
                PRESENT(ms, ET_RAW_INSTRUCTION, i);
                PRESENT(ms, ET_RAW_CHAIN, i);
            } else if (absent(ms, ET_RAW_INSTRUCTION, i) != 0 ||
                       absent(ms, ET_RAW_CHAIN, i) != 0) {
                goto nomem;
            }
            if (ids && e.delegate_debug_id_int != -1) {
                did[g] = e.delegate_debug_id_int;
                PRESENT(ms, ET_RAW_DID_INT, i);
            } else if (absent(ms, ET_RAW_DID_INT, i) != 0) {
                goto nomem;
            }
        }
    }
    return;
nomem:
    ch->nomem = true;
}

/* The chunk's string ids into the table's pool (the chunks' pools merged
 * in chunk order: the ids of a single-threaded build), and its masks into
 * the columns' (made when a chunk has one).  -1 on exhausted memory. */
static int merge_chunk(const build *bd, chunk *ch, size_t n)
{
    et_rawtable *t = bd->t;
    uint32_t cnt = et_strpool_count(ch->in->pool);
    uint32_t *map = malloc((cnt ? cnt : 1) * sizeof *map);
    if (!map)
        return -1;
    for (uint32_t k = 0; k < cnt; k++) {
        size_t len;
        const char *s = et_strpool_get(ch->in->pool, k, &len);
        if (et_strpool_intern(t->pool, s, len, &map[k]) != 0) {
            free(map);
            return -1;
        }
    }
    static const int strcols[2] = {ET_RAW_NAME, ET_RAW_DID_STR};
    for (int k = 0; k < 2; k++) {
        int c = strcols[k];
        uint32_t *ids = bd->data[c];
        const uint8_t *m = ch->ms.m[c];
        for (size_t i = 0; i < ch->ms.n; i++)
            if (!m || m[i])
                ids[ch->row0 + i] = map[ids[ch->row0 + i]];
    }
    free(map);
    for (int c = 0; c < ET_RAW_NCOLS; c++) {
        if (!ch->ms.m[c])
            continue;
        et_column *col = t->cols[c];
        if (!col->own_valid) {
            /* the rows before this chunk's: present */
            uint8_t *v = malloc(n ? n : 1);
            if (!v)
                return -1;
            memset(v, 1, n);
            col->own_valid = v;
            col->valid = v;
        }
        memcpy((uint8_t *)col->own_valid + ch->row0, ch->ms.m[c], ch->ms.n);
    }
    return 0;
}

/* Chunks of whole runs, about equal in events: at most `threads`, none
 * under 16k events (a thread's start costs about that). */
static size_t plan_chunks(const et_etdump *dump, uint32_t nruns, size_t n, unsigned threads,
                          chunk *chunks)
{
    size_t want = threads;
    if (want > n / 16384)
        want = n / 16384;
    if (want < 1)
        want = 1;
    size_t k = 0, rows = 0, row0 = 0;
    uint32_t r0 = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        et_run rd;
        et_etdump_run(dump, r, &rd);
        rows += rd.has_events ? rd.events.count : 0;
        bool last = r + 1 == nruns;
        if (last || (k + 1 < want && rows - row0 >= n / want)) {
            chunks[k].r0 = r0;
            chunks[k].r1 = r + 1;
            chunks[k].row0 = row0;
            chunks[k].ms.n = rows - row0;
            k++;
            r0 = r + 1;
            row0 = rows;
        }
    }
    return k;
}

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
    unsigned threads = et_threads();
    int rc = 0;
    build bd = {.insp = insp, .t = t};
    int64_t *run_block = calloc(nruns ? nruns : 1, sizeof *run_block);
    bd.chunks = calloc(threads ? threads : 1, sizeof *bd.chunks);
    size_t nchunks = 0;
    t->pool = et_strpool_new();
    if (!run_block || !bd.chunks || !t->pool)
        goto nomem;
    bd.run_block = run_block;
    for (int k = 0; k < 4; k++)
        if (et_strpool_intern(t->pool, kind_names[k], strlen(kind_names[k]), &bd.kind_id[k]) != 0)
            goto nomem;
    for (int c = 0; c < ET_RAW_NCOLS; c++) {
        bool str = col_kinds[c] == ET_COL_STR;
        if (!(t->cols[c] = column_new(col_kinds[c], n, str ? t->pool : NULL, &bd.data[c])))
            goto nomem;
    }
    for (size_t b = 0; b < insp->n_blocks; b++)
        for (size_t k = 0; k < insp->blocks[b].n_runs; k++) {
            uint32_t r = insp->blocks[b].runs[k];
            if (r < nruns)
                run_block[r] = (int64_t)b + 1;
        }
    nchunks = nruns ? plan_chunks(dump, nruns, n, threads, bd.chunks) : 0;
    et_parallel_for(threads, nchunks, fill_chunk, &bd);
    for (size_t k = 0; k < nchunks; k++)
        if (bd.chunks[k].nomem || merge_chunk(&bd, &bd.chunks[k], n) != 0)
            goto nomem;
    t->n = n;
    if (0) {
nomem:
        et_rawtable_free(t);
        rc = et_fail(err, ET_ERR_NOMEM, "raw events: out of memory for %zu events", n);
    }
    for (size_t k = 0; bd.chunks && k < nchunks; k++) {
        for (int c = 0; c < ET_RAW_NCOLS; c++)
            free(bd.chunks[k].ms.m[c]);
        if (bd.chunks[k].in)
            et_strpool_release(bd.chunks[k].in->pool);
        free(bd.chunks[k].in);
    }
    free(bd.chunks);
    free(run_block);
    return rc;
}
