/*
 * htmldata.c - the numbers behind the HTML report's charts (htmldata.h).
 */
#include "output/htmldata.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "output/timeline.h"

#define TWO31 ((uint64_t)1 << 31)
#define TWO32 ((uint64_t)1 << 32)

/* The cost of keeping `runs` runs of a block, in samples (a run of a block
 * without events costs one: its origin and index are written). */
static size_t block_cost(const et_block *blk, size_t runs)
{
    size_t r = runs < blk->n_runs ? runs : blk->n_runs;
    size_t per = blk->n_events ? blk->n_events : 1;
    if (r && per > SIZE_MAX / r)
        return SIZE_MAX;
    return r * per;
}

/* The cost of keeping K runs of every block (saturating). */
static size_t cost_all(const et_inspector *insp, size_t k)
{
    size_t total = 0;
    for (size_t b = 0; b < insp->n_blocks; b++) {
        size_t c = block_cost(&insp->blocks[b], k);
        if (c > SIZE_MAX - total)
            return SIZE_MAX;
        total += c;
    }
    return total;
}

void et_html_plan_free(et_html_plan *plan)
{
    if (!plan)
        return;
    free(plan->runs);
    free(plan->offset);
    memset(plan, 0, sizeof *plan);
}

int et_html_plan_make(const et_inspector *insp, size_t max_samples, et_html_plan *plan,
                      et_error *err)
{
    memset(plan, 0, sizeof *plan);
    size_t nb = insp->n_blocks;
    plan->n_blocks = nb;
    plan->runs = calloc(nb ? nb : 1, sizeof *plan->runs);
    plan->offset = calloc(nb ? nb : 1, sizeof *plan->offset);
    if (!plan->runs || !plan->offset) {
        et_html_plan_free(plan);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    size_t most = 0;
    for (size_t b = 0; b < nb; b++)
        if (insp->blocks[b].n_runs > most)
            most = insp->blocks[b].n_runs;
    size_t limit = max_samples ? max_samples : SIZE_MAX;
    /* the largest K with cost_all(K) <= limit (cost_all grows with K) */
    size_t lo = 0, hi = most;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (cost_all(insp, mid) <= limit)
            lo = mid;
        else
            hi = mid - 1;
    }
    size_t used = cost_all(insp, lo);
    for (size_t b = 0; b < nb; b++) {
        const et_block *blk = &insp->blocks[b];
        size_t r = lo < blk->n_runs ? lo : blk->n_runs;
        if (r < blk->n_runs) {
            size_t extra = block_cost(blk, r + 1) - block_cost(blk, r);
            if (extra <= limit - used) {
                used += extra;
                r++;
            }
        }
        plan->runs[b] = r;
    }
    size_t off = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t r = plan->runs[b], e = insp->blocks[b].n_events;
        plan->offset[b] = off;
        /* r * e <= the samples the model holds, so these products fit */
        size_t bytes = r * 12 + r * e * 8;
        bytes = (bytes + 7) & ~(size_t)7;
        if (bytes > SIZE_MAX / 2 - off) {
            et_html_plan_free(plan);
            return et_fail(err, ET_ERR_VALUE, "the report's data would be too large");
        }
        off += bytes;
        plan->samples += r * e;
    }
    plan->bytes = off;
    return 0;
}

/* base64 text written in pieces ---------------------------------------- */

/* Raw bytes are collected in `in` (a multiple of 3 and of 8 bytes, so no
 * 4- or 8-byte value straddles a flush) and encoded when it is full. */
typedef struct b64_writer {
    unsigned char in[3 * 4096];
    size_t n;
    char out[4 * 4096];
    et_html_write_fn write;
    void *ud;
    bool failed;
} b64_writer;

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The two characters of every 12-bit value, made once. */
static char B64_PAIRS[4096][2];

static void b64_init_pairs(void)
{
    if (B64_PAIRS[0][0])
        return;
    for (int v = 0; v < 4096; v++) {
        B64_PAIRS[v][0] = B64[v >> 6];
        B64_PAIRS[v][1] = B64[v & 63];
    }
}

/* Encode the first `n` bytes of w->in (n a multiple of 3, or the last
 * piece) and hand the text to the callback. */
static void b64_flush(b64_writer *w, size_t n)
{
    size_t i = 0, o = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)w->in[i] << 16 | (uint32_t)w->in[i + 1] << 8 | w->in[i + 2];
        memcpy(w->out + o, B64_PAIRS[v >> 12], 2);
        memcpy(w->out + o + 2, B64_PAIRS[v & 4095], 2);
        o += 4;
    }
    if (i < n) {
        uint32_t v = (uint32_t)w->in[i] << 16 | (i + 1 < n ? (uint32_t)w->in[i + 1] << 8 : 0);
        w->out[o++] = B64[v >> 18];
        w->out[o++] = B64[(v >> 12) & 63];
        w->out[o++] = i + 1 < n ? B64[(v >> 6) & 63] : '=';
        w->out[o++] = '=';
    }
    if (!w->failed && o && w->write(w->ud, w->out, o) != 0)
        w->failed = true;
    w->n = 0;
}

/* Room for `k` more bytes (k divides the buffer size). */
static inline unsigned char *b64_room(b64_writer *w, size_t k)
{
    if (w->n + k > sizeof w->in)
        b64_flush(w, w->n);
    unsigned char *p = w->in + w->n;
    w->n += k;
    return p;
}

static inline void put_u32(b64_writer *w, uint32_t v)
{
    unsigned char *p = b64_room(w, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 4);
#else
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
#endif
}

static inline void put_f32(b64_writer *w, float f)
{
    uint32_t v;
    memcpy(&v, &f, sizeof v);
    put_u32(w, v);
}

static inline void put_f64(b64_writer *w, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

/* the data of one block ------------------------------------------------- */

/* Does event `ev` have a start and a duration in its runs? */
static bool timed(const et_event *ev)
{
    return et_tl_timed(ev);
}

/* The origins of runs k0 .. k0+R-1 of `blk` (htmldata.h): lo[i] the
 * origin tick of run k0+i (unwrapped inside the run), mode[i] bit 0 a
 * non-delegated timed event seen, bit 1 any timed event seen (else lo[i]
 * is meaningless), bit 2 the run's 32-bit clock wrapped.  `hi` is scratch.
 * Returns whether the block's clock is a 32-bit one (every tick seen below
 * 2^32). */
static bool run_origins(const et_block *blk, size_t k0, size_t R, uint64_t *lo, uint64_t *hi,
                        unsigned char *mode)
{
    const size_t E = blk->n_events;
    memset(mode, 0, R);
    uint64_t top = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t e = 0; e < E; e++) {
            const et_event *ev = &blk->events[e];
            if (!timed(ev) || (pass == 0) == ev->is_delegated_op)
                continue;
            for (size_t i = 0; i < R; i++) {
                uint64_t t = ev->start_time[k0 + i];
                if (t > top)
                    top = t;
                if (pass == 1 && (mode[i] & 1))
                    continue; /* delegated events do not place a run with others */
                if (!(mode[i] & 2)) {
                    lo[i] = hi[i] = t;
                    mode[i] |= (unsigned char)(pass == 0 ? 3 : 2);
                } else {
                    if (t < lo[i])
                        lo[i] = t;
                    if (t > hi[i])
                        hi[i] = t;
                }
            }
        }
    const bool clock32 = top < TWO32;
    bool any_wrapped = false;
    for (size_t i = 0; i < R; i++)
        if (clock32 && (mode[i] & 2) && hi[i] - lo[i] > TWO31) {
            mode[i] |= 4;
            any_wrapped = true;
            lo[i] = UINT64_MAX;
        }
    if (any_wrapped) /* the origin of a wrapped run among its unwrapped ticks */
        for (size_t e = 0; e < E; e++) {
            const et_event *ev = &blk->events[e];
            if (!timed(ev))
                continue;
            for (size_t i = 0; i < R; i++) {
                if (!(mode[i] & 4) || (ev->is_delegated_op && (mode[i] & 1)))
                    continue;
                uint64_t t = ev->start_time[k0 + i];
                if (t < TWO31)
                    t += TWO32;
                if (t < lo[i])
                    lo[i] = t;
            }
        }
    return clock32;
}

/* The start of timed event `ev` in run `k` relative to the run's origin
 * `lo` (target units), or NaN (htmldata.h). */
static double start_of(const et_event *ev, size_t k, uint64_t lo, unsigned char mode, double factor)
{
    uint64_t t = ev->start_time[k];
    if (ev->is_delegated_op && t == 0 && lo > 0)
        return NAN; /* a backend that logs durations only */
    if ((mode & 4) && t < TWO31)
        t += TWO32;
    return (double)(int64_t)(t - lo) / factor;
}

/* Scratch for placing the runs of one block (timeline.h). */
typedef struct placer {
    int32_t *parent;    /* per event: its DELEGATE_CALL */
    et_tl_dc *dcs;      /* et_tl_parents' scratch */
    et_tl_slot *slot;   /* per event, one run */
} placer;

static void placer_free(placer *pl)
{
    free(pl->parent), free(pl->dcs), free(pl->slot);
    memset(pl, 0, sizeof *pl);
}

static int placer_init(placer *pl, const et_block *blk)
{
    size_t n = blk->n_events ? blk->n_events : 1;
    pl->parent = malloc(n * sizeof *pl->parent);
    pl->dcs = malloc(n * sizeof *pl->dcs);
    pl->slot = malloc(n * sizeof *pl->slot);
    if (!pl->parent || !pl->dcs || !pl->slot) {
        placer_free(pl);
        return -1;
    }
    et_tl_parents(blk, pl->parent, pl->dcs);
    return 0;
}

/* Place run k of `blk` as the trace does (timeline.h): pl->slot[e].ts is
 * event e's start relative to the run's origin `lo` (target units) where
 * ET_TL_TIMED is set - its logged start, or for a delegated event logged
 * with tick 0 or outside its DELEGATE_CALL a synthetic one inside it. */
static void place_run(placer *pl, const et_block *blk, size_t k, uint64_t lo, unsigned char mode,
                      double factor)
{
    for (size_t e = 0; e < blk->n_events; e++) {
        const et_event *ev = &blk->events[e];
        et_tl_slot *s = &pl->slot[e];
        s->flags = 0;
        double d = timed(ev) && k < ev->perf_data.n ? ev->perf_data.raw[k] : NAN;
        if (!(mode & 2) || !isfinite(d))
            continue;
        uint64_t t = ev->start_time[k];
        bool tick0 = ev->is_delegated_op && t == 0;
        if ((mode & 4) && t < TWO31)
            t += TWO32;
        s->ts = tick0 ? 0 : (double)(int64_t)(t - lo) / factor;
        s->dur = d;
        s->flags = (uint8_t)(ET_TL_TIMED | (tick0 ? ET_TL_TICK0 : 0));
    }
    et_tl_place(blk, pl->parent, pl->slot, 0);
}

/* The start of event e in run k after place_run (NaN: none). */
static double placed_start(const placer *pl, const et_block *blk, size_t e, size_t k, uint64_t lo,
                           unsigned char mode, double factor)
{
    if (pl->slot[e].flags & ET_TL_TIMED)
        return pl->slot[e].ts;
    const et_event *ev = &blk->events[e];
    return timed(ev) ? start_of(ev, k, lo, mode, factor) : NAN;
}

/* The factor ticks are divided by (1 when the inspector's is unusable). */
static double tick_factor(const et_inspector *insp)
{
    double factor = insp->scale_factor;
    return factor > 0 && isfinite(factor) ? factor : 1;
}

/* Write block `blk`'s data for its first `R` runs (htmldata.h).  `lo`,
 * `hi` and `mode` are scratch arrays of R entries.  The starts of
 * delegated events are placed run by run first (place_run), 4 bytes per
 * delegated sample; returns -1 when that memory is not there. */
static int block_data(b64_writer *w, const et_block *blk, size_t R, double factor, uint64_t *lo,
                      uint64_t *hi, unsigned char *mode)
{
    const size_t E = blk->n_events;
    const bool clock32 = run_origins(blk, 0, R, lo, hi, mode);
    /* origins: unwrapped between runs too; hi[] now holds them */
    uint64_t shift = 0, prev = 0, first = 0;
    bool have_first = false;
    for (size_t k = 0; k < R; k++) {
        if (!(mode[k] & 2))
            continue;
        uint64_t o = lo[k] + shift;
        if (clock32 && have_first && o + TWO31 < prev) {
            shift += TWO32;
            o += TWO32;
        }
        if (!have_first) {
            first = o;
            have_first = true;
        }
        hi[k] = o;
        prev = o;
    }
    for (size_t k = 0; k < R; k++)
        put_f64(w, (mode[k] & 2) ? (double)(int64_t)(hi[k] - first) / factor : NAN);
    for (size_t k = 0; k < R; k++)
        put_u32(w, blk->runs ? blk->runs[k] : (uint32_t)k);
    /* the delegated events' starts, placed run by run: dstart[d * R + k]
     * for the d-th timed delegated event */
    size_t D = 0;
    for (size_t e = 0; e < E; e++)
        D += blk->events[e].is_delegated_op && timed(&blk->events[e]);
    placer pl = {0};
    float *dstart = NULL;
    if (D) {
        dstart = D <= SIZE_MAX / sizeof *dstart / R ? malloc(D * R * sizeof *dstart) : NULL;
        if (!dstart || placer_init(&pl, blk) != 0) {
            free(dstart);
            return -1;
        }
        for (size_t k = 0; k < R; k++) {
            place_run(&pl, blk, k, lo[k], mode[k], factor);
            for (size_t e = 0, d = 0; e < E; e++)
                if (blk->events[e].is_delegated_op && timed(&blk->events[e]))
                    dstart[d++ * R + k] = (float)placed_start(&pl, blk, e, k, lo[k], mode[k], factor);
        }
    }
    for (size_t e = 0, d = 0; e < E; e++) {
        const et_event *ev = &blk->events[e];
        if (!timed(ev)) {
            for (size_t k = 0; k < R; k++)
                put_f32(w, NAN);
            continue;
        }
        if (ev->is_delegated_op) {
            for (size_t k = 0; k < R; k++)
                put_f32(w, dstart[d * R + k]);
            d++;
            continue;
        }
        for (size_t k = 0; k < R; k++)
            put_f32(w, (float)start_of(ev, k, lo[k], mode[k], factor));
    }
    free(dstart);
    placer_free(&pl);
    for (size_t e = 0; e < E; e++) {
        const et_event *ev = &blk->events[e];
        const double *raw = ev->has_perf_data ? ev->perf_data.raw : NULL;
        for (size_t k = 0; k < R; k++)
            put_f32(w, raw && k < ev->perf_data.n ? (float)raw[k] : NAN);
    }
    size_t bytes = R * 12 + R * E * 8;
    for (; bytes % 8; bytes += 4)
        put_u32(w, 0);
    return 0;
}

int et_html_run_starts(const et_inspector *insp, size_t block, size_t run, double *start,
                       uint64_t *origin, et_error *err)
{
    if (block >= insp->n_blocks)
        return et_fail(err, ET_ERR_USAGE, "block %zu is not a block (there are %zu)", block + 1,
                       insp->n_blocks);
    const et_block *blk = &insp->blocks[block];
    if (run >= blk->n_runs)
        return et_fail(err, ET_ERR_USAGE, "run %zu is not a run of block %zu (it has %zu)",
                       run + 1, block + 1, blk->n_runs);
    uint64_t lo, hi;
    unsigned char mode;
    run_origins(blk, run, 1, &lo, &hi, &mode);
    double factor = tick_factor(insp);
    placer pl;
    if (placer_init(&pl, blk) != 0)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    place_run(&pl, blk, run, lo, mode, factor);
    for (size_t e = 0; e < blk->n_events; e++)
        start[e] = placed_start(&pl, blk, e, run, lo, mode, factor);
    placer_free(&pl);
    *origin = (mode & 2) ? lo : 0;
    return 0;
}

int et_html_write_data(const et_inspector *insp, const et_html_plan *plan, et_html_write_fn write,
                       void *ud, et_error *err)
{
    b64_writer *w = malloc(sizeof *w);
    size_t most = 1;
    for (size_t b = 0; b < plan->n_blocks && b < insp->n_blocks; b++)
        if (plan->runs[b] > most)
            most = plan->runs[b];
    uint64_t *lo = malloc(most * sizeof *lo), *hi = malloc(most * sizeof *hi);
    unsigned char *mode = malloc(most);
    if (!w || !lo || !hi || !mode) {
        free(w), free(lo), free(hi), free(mode);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    b64_init_pairs();
    w->n = 0;
    w->write = write;
    w->ud = ud;
    w->failed = false;
    double factor = tick_factor(insp);
    bool nomem = false;
    for (size_t b = 0; b < plan->n_blocks && b < insp->n_blocks && !w->failed && !nomem; b++)
        if (plan->runs[b])
            nomem = block_data(w, &insp->blocks[b], plan->runs[b], factor, lo, hi, mode) != 0;
    if (nomem) {
        free(w), free(lo), free(hi), free(mode);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    b64_flush(w, w->n);
    bool failed = w->failed;
    free(w), free(lo), free(hi), free(mode);
    if (failed)
        return et_fail(err, ET_ERR_IO, "write failed");
    return 0;
}

/* spread of groups of events over runs ----------------------------------- */

int et_html_group_spread(const et_inspector *insp, size_t block, const uint32_t *group_of_event,
                         size_t n_groups, et_html_spread *out, et_error *err)
{
    if (block >= insp->n_blocks)
        return et_fail(err, ET_ERR_USAGE, "block %zu is not a block (there are %zu)", block + 1,
                       insp->n_blocks);
    const et_block *blk = &insp->blocks[block];
    for (size_t e = 0; e < blk->n_events; e++)
        if (group_of_event[e] > n_groups)
            return et_fail(err, ET_ERR_USAGE, "event %zu: group %u is not a group (there are %zu)",
                           e + 1, group_of_event[e], n_groups);
    const size_t R = blk->n_runs;
    for (size_t g = 0; g < n_groups; g++)
        out[g] = (et_html_spread){0, NAN, NAN, NAN, NAN, NAN, NAN};
    if (!n_groups || !R)
        return 0;
    if (n_groups > SIZE_MAX / sizeof(double) / R)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    double *sums = calloc(n_groups * R, sizeof *sums);
    bool *used = calloc(n_groups, sizeof *used);
    if (!sums || !used) {
        free(sums), free(used);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    for (size_t e = 0; e < blk->n_events; e++) {
        const et_event *ev = &blk->events[e];
        uint32_t g = group_of_event[e];
        if (!g || !ev->has_perf_data || !ev->perf_data.raw)
            continue;
        used[g - 1] = true;
        double *s = sums + (size_t)(g - 1) * R;
        size_t n = ev->perf_data.n < R ? ev->perf_data.n : R;
        for (size_t k = 0; k < n; k++)
            if (!isnan(ev->perf_data.raw[k]))
                s[k] += ev->perf_data.raw[k];
    }
    static const double q[] = {0, 25, 50, 75, 100};
    for (size_t g = 0; g < n_groups; g++) {
        if (!used[g])
            continue;
        double *s = sums + g * R, p[5];
        bool nan = false;
        for (size_t k = 0; k < R; k++)
            nan |= isnan(s[k]); /* +inf and -inf durations of one run */
        if (nan)
            continue;
        double mean = et_numpy_mean(s, R);
        et_percentiles(s, R, q, 5, p);
        out[g] = (et_html_spread){R, mean, p[0], p[1], p[2], p[3], p[4]};
    }
    free(sums);
    free(used);
    return 0;
}
