/* trace.c - Chrome Trace Event JSON of an inspector; see trace.h.
 *
 * First the time origin and the 32-bit wrap-around offsets, from what the
 * model noted of every run's raw ticks (insp->run_ticks: every run,
 * whatever the selection, so that times do not depend on it).  Then, block by block and run by run, the run's
 * slices are computed into one array (reused: nothing is allocated per
 * event), sorted by (track, ts, -dur), given their level (nesting or
 * overlap track) by one stack per track and level, and written; then the
 * run's counter samples.  The text goes through a strbuf flushed to the
 * FILE every megabyte - by a writer thread when there are several, so
 * that the kernel's copying of one megabyte overlaps the formatting of the
 * next; each event's constant parts (name, category, static args) are
 * rendered once per block. */
#include "output/trace.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/etdump.h"
#include "model/link.h"
#include "files/outfile.h"
#include "output/perfetto.h"
#include "output/timeline.h"
#include "base/parallel.h"
#include "base/pbuf.h"
#include "base/strbuf.h"
#include "base/timescale.h"

#define TWO31 (UINT64_C(1) << 31)
#define TWO32 (UINT64_C(1) << 32)
#define LEVELS 4           /* a track and its overlap tracks */
#define MAX_BACKENDS 100   /* delegate backends per block with their own tracks */
#define ROUNDING_NS 1      /* an overhang this small is rounding: clamped quietly */
#define FLUSH_BYTES (1u << 20)
#define NS_LIMIT 4e18      /* times are kept within +-NS_LIMIT ns */
#define MAX_UNKNOWN_SERIES 64
#define DROPPED 0xff       /* slice.level of a dropped slice */
#define TILE 16            /* runs whose samples are gathered together */

enum { TR_FRAMEWORK = 0, TR_OPERATORS = 1, TR_DELEGATE = 2 }; /* 2+2b, synthetic 3+2b */
enum { SL_SYNTH = 1, SL_CUT = 2, SL_CLAMPED = 4 };

/* What the first pass learned about one RunData. */
typedef struct run_info {
    uint64_t off;     /* added to every tick: wrap-arounds before the run */
    bool wrapped;     /* the clock wrapped inside: ticks below 2^31 get 2^32 */
    bool has_lo;      /* a non-delegated profile event */
    bool has_dlo;     /* a delegated profile event with a non-zero start */
    uint64_t lo_low, lo_high; /* min start below 2^31 / from 2^31 (UINT64_MAX: none) */
    uint64_t dlo;     /* min non-zero delegated start */
} run_info;

/* Per event of the current block. */
typedef struct ev_info {
    int32_t track;    /* base track, -1: no slice */
    uint32_t head, head_n, tail, tail_n; /* its constant texts in tw.fixed
                                            (Perfetto: head = its annotations) */
    uint64_t iid;     /* Perfetto: its name's iid */
} ev_info;

typedef struct slice {
    int64_t ts, dur;  /* ns on the trace's axis */
    int64_t logged;   /* SL_CUT: the duration before the cut */
    uint32_t ev;
    uint16_t track;
    uint8_t level, flags;
} slice;

/* The open slices of one (track, level) of the current process. */
typedef struct level_stack {
    int64_t *ends;
    size_t n, cap;
    int64_t last_ts;  /* start of the last slice placed here */
    bool named;       /* its thread_name has been written */
    uint64_t uuid;    /* Perfetto: its track */
    /* ',"pid":P,"tid":T,"args":{"run":R' of run `mid_gen` (tw.gen) */
    uint64_t mid_gen;
    uint8_t mid_n;
    char mid[96];
} level_stack;

/* The writer thread: it writes `full` while the next buffer is filled. */
typedef struct twriter {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started;
    bool busy;        /* `full` holds text not yet written */
    bool quit;
    bool failed;      /* a write failed */
    int err_no;       /* its errno (errno is the thread's own) */
    et_strbuf full;
    FILE *out;
} twriter;

typedef struct tw {
    const et_inspector *insp;
    const et_trace_options *o;
    FILE *out;
    et_error *err;
    et_strbuf sb;
    twriter wr;
    bool any_event;
    double ns_per_tick, ns_per_unit;
    uint64_t origin;            /* raw (unwrapped) tick of ts 0 */
    size_t n_rundata;
    run_info *runs;
    unsigned char *sel;
    bool window;
    int64_t win_s, win_e;
    size_t n_kept;              /* slices written (et_trace_options.n_slices) */
    /* current block */
    size_t ev_cap;
    ev_info *ev;
    int32_t *slot;              /* event -> its slice in this run, or -1 */
    slice *sl, *sl2;            /* the run's slices; sorting space */
    uint64_t *tile_t;           /* TILE runs' start ticks, run-major (TILE * E) */
    double *tile_d;             /* ... and durations */
    size_t tile_cap;
    size_t tile_r0;             /* block-run of the tile's first row */
    et_tl_dc *dcs;              /* et_tl_parents' scratch */
    int32_t *par;               /* event -> its DELEGATE_CALL (et_tl_parents) */
    et_tl_slot *ts;             /* the run's events for et_tl_place */
    et_strbuf fixed;            /* constant texts of the block's events */
    size_t n_backends;
    const char *backends[MAX_BACKENDS];
    size_t n_tracks;
    level_stack *lv;            /* n_tracks * LEVELS */
    size_t lv_cap;
    /* allocator series of the current block */
    size_t n_series, n_known;   /* series; of them, allocators of the block */
    int32_t *series_of_id;      /* allocator id 1..n_allocators -> series, or -1 */
    size_t series_of_id_cap;
    int32_t *series_id;         /* series -> allocator id */
    uint32_t *key_off, *key_n;  /* series -> its key (a JSON string) in `keys` */
    size_t series_cap;
    et_strbuf keys;
    uint64_t *cum;              /* series -> cumulative bytes in the process */
    /* current process */
    int64_t pid;
    const char *pname;          /* block name */
    uint32_t pname_n;
    int64_t prun;               /* runs_apart: its RunData index, else -1 */
    bool pnamed;
    uint64_t gen;               /* the run being written (do_run calls) */
    /* Perfetto (format ET_TRACE_PERFETTO) */
    bool perfetto;
    et_pf pf;
    uint64_t puuid;             /* the current process's track */
    uint64_t cycles_uuid;       /* its cycles counter, 0: not yet */
    uint64_t *suuid;            /* series -> its counter track, 0: not yet */
    et_strbuf rawkeys;          /* series -> its name, raw */
    uint32_t *raw_off;
    int32_t *fc, *nc;           /* slice -> its first flow child, next sibling */
    uint64_t *fid;              /* slice -> its flow id (delegated), 0: none */
    int64_t *pe;                /* open slice ends per level, LEVELS * ev_cap */
    size_t pe_n[LEVELS];
    /* counts for otherData */
    uint64_t n_slices, n_counters, n_synth, n_clamped, n_overlap, n_dropped;
} tw;

void et_trace_options_init(et_trace_options *o)
{
    memset(o, 0, sizeof *o);
}

static bool ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[n - k + i]) != suffix[i])
            return false;
    return true;
}

et_trace_format et_trace_format_of_path(const char *path)
{
    if (path && (ends_with_ci(path, ".pftrace") || ends_with_ci(path, ".perfetto-trace")))
        return ET_TRACE_PERFETTO;
    return ET_TRACE_JSON;
}

int et_trace_parse_format(const char *name, et_trace_format *fmt, et_error *err)
{
    if (!name)
        return 0;
    if (strcmp(name, "json") == 0)
        *fmt = ET_TRACE_JSON;
    else if (strcmp(name, "perfetto") == 0)
        *fmt = ET_TRACE_PERFETTO;
    else
        return et_fail(err, ET_ERR_USAGE, "trace format: expected json or perfetto, found '%s'",
                       name);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Run selection */

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A decimal number at *p (at most 18 digits); advances *p. */
static bool parse_index(const char **p, uint64_t *v)
{
    const char *s = skip_blanks(*p);
    if (!isdigit((unsigned char)*s))
        return false;
    uint64_t x = 0;
    int digits = 0;
    while (isdigit((unsigned char)*s)) {
        if (++digits > 18)
            return false;
        x = x * 10 + (uint64_t)(*s++ - '0');
    }
    *p = skip_blanks(s);
    *v = x;
    return true;
}

int et_trace_parse_runs(const char *spec, size_t n_runs, unsigned char *selected, et_error *err)
{
    bool all = !spec || !*skip_blanks(spec);
    if (n_runs)
        memset(selected, all ? 1 : 0, n_runs);
    if (all)
        return 0;
    const char *p = spec;
    for (;;) {
        uint64_t a, b;
        if (!parse_index(&p, &a))
            goto bad;
        b = a;
        if (*p == '-') {
            p++;
            if (!parse_index(&p, &b) || b < a)
                goto bad;
        }
        if (b >= n_runs) {
            if (n_runs == 0)
                return et_fail(err, ET_ERR_USAGE, "runs: run %llu is not in the dump (it has "
                               "no runs)", (unsigned long long)b);
            return et_fail(err, ET_ERR_USAGE, "runs: run %llu is not in the dump (its runs "
                           "are 0-%zu)", (unsigned long long)b, n_runs - 1);
        }
        memset(selected + a, 1, (size_t)(b - a + 1));
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            goto bad;
    }
bad:
    return et_fail(err, ET_ERR_USAGE, "runs: expected a list like 0-3,7, found '%s'", spec);
}

/* ------------------------------------------------------------------ */
/* Numbers */

static int64_t to_ns(double x)
{
    if (!(x == x))
        return 0;
    if (x > NS_LIMIT)
        return (int64_t)NS_LIMIT;
    if (x < -NS_LIMIT)
        return -(int64_t)NS_LIMIT;
    /* llround without the call: below 2^52 the fraction x - trunc(x) is
     * exact, so halves go away from zero exactly as llround rounds them */
    if (x > -0x1p52 && x < 0x1p52) {
        int64_t t = (int64_t)x;
        double f = x - (double)t;
        return t + (f >= 0.5) - (f <= -0.5);
    }
    return (int64_t)llround(x);
}

/* The unwrapped tick of raw tick `t` of run `ri`. */
static uint64_t unwrap(const run_info *ri, uint64_t t)
{
    return t + ri->off + (ri->wrapped && t < TWO31 ? TWO32 : 0);
}

/* Raw tick `t` of run `ri` on the trace's axis (ns). */
static int64_t tick_ns(const tw *w, const run_info *ri, uint64_t t)
{
    uint64_t d = unwrap(ri, t) - w->origin;
    if (w->ns_per_tick == 1.0 && d < (UINT64_C(1) << 52))
        return (int64_t)d; /* what to_ns((double)d) gives, without the doubles */
    if (d < (UINT64_C(1) << 62))
        return to_ns((double)d * w->ns_per_tick);
    if ((int64_t)d < 0 && (int64_t)d > -(INT64_C(1) << 62))
        return to_ns((double)(int64_t)d * w->ns_per_tick);
    return (int64_t)d < 0 ? -(int64_t)NS_LIMIT : (int64_t)NS_LIMIT;
}

/* A duration in target units as ns (never negative). */
static int64_t dur_ns(const tw *w, double v)
{
    int64_t d = to_ns(v * w->ns_per_unit);
    return d < 0 ? 0 : d;
}

/* Decimal digits of v ending just before `end`; returns the first. */
/* v in decimal at o; o has room for 20 bytes (et_u64_to_chars). */
static char *put_u64(char *o, uint64_t v)
{
    return o + et_u64_to_chars(o, v);
}

static char *put_i64(char *o, int64_t v)
{
    if (v < 0) {
        *o++ = '-';
        return put_u64(o, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(o, (uint64_t)v);
}

/* ns as microseconds: "12", "12.5", "0.001" (exact, no trailing zeros).
 * o has room for 26 bytes (4 may be written past the text). */
static char *put_us(char *o, int64_t ns)
{
    uint64_t v = (uint64_t)ns;
    if (ns < 0) {
        *o++ = '-';
        v = (uint64_t)0 - v;
    }
    uint64_t q = v / 1000;
    unsigned f = (unsigned)(v - q * 1000);
    o = put_u64(o, q);
    if (f) {
        unsigned d1 = f * 41 >> 12, r = f - 100 * d1; /* f / 100 for f < 1000 */
        unsigned d2 = r * 103 >> 10, d3 = r - 10 * d2; /* r / 10 for r < 100 */
        o[0] = '.';
        o[1] = (char)('0' + d1);
        o[2] = (char)('0' + d2);
        o[3] = (char)('0' + d3);
        o += 4 - (d3 == 0) - (d3 == 0 && d2 == 0);
    }
    return o;
}

static void sb_us(et_strbuf *sb, int64_t ns)
{
    char b[32];
    et_sb_add(sb, b, (size_t)(put_us(b, ns) - b));
}

static void sb_i64(et_strbuf *sb, int64_t v)
{
    char b[24];
    et_sb_add(sb, b, (size_t)(put_i64(b, v) - b));
}

/* A double for otherData: shortest round-trip text, or null. */
static void sb_num(et_strbuf *sb, double v)
{
    if (isnan(v) || isinf(v))
        et_sb_adds(sb, "null");
    else
        et_sb_add_repr(sb, v);
}

/* ------------------------------------------------------------------ */
/* Output */

/* Start a new event: the separator before it. */
static void begin_event(tw *w)
{
    et_sb_add(&w->sb, w->any_event ? ",\n" : "\n", w->any_event ? 2 : 1);
    w->any_event = true;
}

static void *writer_main(void *arg)
{
    twriter *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->busy && !t->quit)
            pthread_cond_wait(&t->cv, &t->mu);
        if (!t->busy)
            break;
        pthread_mutex_unlock(&t->mu);
        bool ok = fwrite(t->full.p, 1, t->full.n, t->out) == t->full.n;
        int e = errno;
        pthread_mutex_lock(&t->mu);
        if (!ok && !t->failed)
            t->err_no = e;
        t->failed |= !ok;
        t->busy = false;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* Start the writer thread when there are several threads (else the text
 * is written on the calling thread). */
static void writer_start(tw *w)
{
    twriter *t = &w->wr;
    t->out = w->out;
    if (et_threads() < 2 || pthread_mutex_init(&t->mu, NULL) != 0)
        return;
    if (pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        return;
    }
    if (pthread_create(&t->th, NULL, writer_main, t) != 0) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        return;
    }
    t->started = true;
}

/* Wait until the writer has written what it holds; -1 if a write failed.
 * Called with t->mu held. */
static int writer_wait(twriter *t)
{
    while (t->busy)
        pthread_cond_wait(&t->cv, &t->mu);
    return t->failed ? -1 : 0;
}

/* Stop and join the writer (after its last buffer). */
static void writer_stop(twriter *t)
{
    if (!t->started)
        return;
    pthread_mutex_lock(&t->mu);
    t->quit = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->th, NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    t->started = false;
}

/* Write the text so far when it reaches FLUSH_BYTES, or now (`force`: and
 * wait until it is written). */
static int flush(tw *w, bool force)
{
    if (w->sb.failed)
        return et_fail(w->err, ET_ERR_NOMEM, "out of memory while writing the trace");
    if (!force && w->sb.n < FLUSH_BYTES)
        return 0;
    twriter *t = &w->wr;
    if (!t->started) {
        if (w->sb.n && fwrite(w->sb.p, 1, w->sb.n, w->out) != w->sb.n)
            return et_fail(w->err, ET_ERR_IO, "cannot write the trace");
        et_sb_reset(&w->sb);
        return 0;
    }
    pthread_mutex_lock(&t->mu);
    int rc = writer_wait(t);
    if (rc == 0 && w->sb.n) {
        /* hand the text over; fill the buffer just written next */
        et_strbuf full = w->sb;
        w->sb = t->full;
        t->full = full;
        et_sb_reset(&w->sb);
        t->busy = true;
        pthread_cond_broadcast(&t->cv);
        if (force)
            rc = writer_wait(t);
    }
    int e = t->err_no;
    pthread_mutex_unlock(&t->mu);
    if (rc != 0) {
        et_fail(w->err, ET_ERR_IO, "cannot write the trace");
        errno = e; /* the reason, for the caller, as on one thread */
        return -1;
    }
    return 0;
}

/* Append the text built in `t` to `sb` as a JSON string (a failure of
 * either buffer marks `sb` failed), then free `t`. */
static void add_json_buf(et_strbuf *sb, et_strbuf *t)
{
    if (t->failed)
        sb->failed = true;
    else
        et_sb_add_json_str(sb, t->p, t->n);
    et_sb_free(t);
}

/* The process's name and sort index, before its first event. */
static void name_process(tw *w)
{
    if (w->pnamed)
        return;
    w->pnamed = true;
    et_strbuf *sb = &w->sb;
    if (w->perfetto) {
        et_strbuf t = {0};
        et_sb_add(&t, w->pname, w->pname_n);
        if (w->prun >= 0) {
            et_sb_adds(&t, " (run ");
            sb_i64(&t, w->prun);
            et_sb_addc(&t, ')');
        }
        if (t.failed)
            sb->failed = true;
        w->puuid = et_pf_track(&w->pf, sb, 1, t.p ? t.p : "", t.n, (int32_t)w->pid, false, 0, NULL);
        et_sb_free(&t);
        return;
    }
    begin_event(w);
    et_sb_adds(sb, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
    sb_i64(sb, w->pid);
    et_sb_adds(sb, ",\"args\":{\"name\":");
    if (w->prun < 0) {
        et_sb_add_json_str(sb, w->pname, w->pname_n);
    } else {
        /* "NAME (run R)" as one JSON string */
        et_strbuf t = {0};
        et_sb_add(&t, w->pname, w->pname_n);
        et_sb_adds(&t, " (run ");
        sb_i64(&t, w->prun);
        et_sb_addc(&t, ')');
        add_json_buf(sb, &t);
    }
    et_sb_adds(sb, "}}");
    begin_event(w);
    et_sb_adds(sb, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":");
    sb_i64(sb, w->pid);
    et_sb_adds(sb, ",\"args\":{\"sort_index\":");
    sb_i64(sb, w->pid);
    et_sb_adds(sb, "}}");
}

/* The sort index of (track, level), 1-based; tid = pid * 1000 + it. */
static int64_t track_index(unsigned track, unsigned level)
{
    return (int64_t)(track * LEVELS + level + 1);
}

/* The thread's name and sort index, before its first event. */
static void name_thread(tw *w, unsigned track, unsigned level)
{
    level_stack *v = &w->lv[track * LEVELS + level];
    if (v->named)
        return;
    v->named = true;
    name_process(w);
    et_strbuf t = {0};
    if (track == TR_FRAMEWORK) {
        et_sb_adds(&t, "framework");
    } else if (track == TR_OPERATORS) {
        et_sb_adds(&t, "operators");
    } else {
        const char *b = w->backends[(track - TR_DELEGATE) / 2];
        et_sb_adds(&t, "delegate");
        if (b) {
            et_sb_adds(&t, ": ");
            et_sb_adds(&t, b);
        }
        if ((track - TR_DELEGATE) % 2)
            et_sb_adds(&t, " (synthetic starts)");
    }
    if (level) {
        et_sb_adds(&t, " (overlap ");
        sb_i64(&t, level);
        et_sb_addc(&t, ')');
    }
    et_strbuf *sb = &w->sb;
    int64_t idx = track_index(track, level), tid = w->pid * 1000 + idx;
    if (w->perfetto) {
        if (t.failed)
            sb->failed = true;
        v->uuid = et_pf_track(&w->pf, sb, w->puuid, t.p ? t.p : "", t.n, (int32_t)idx, false, 0,
                              NULL);
        if (track == TR_OPERATORS && level == 0)
            et_pf_default_track(&w->pf, sb, v->uuid);
        et_sb_free(&t);
        return;
    }
    begin_event(w);
    et_sb_adds(sb, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
    sb_i64(sb, w->pid);
    et_sb_adds(sb, ",\"tid\":");
    sb_i64(sb, tid);
    et_sb_adds(sb, ",\"args\":{\"name\":");
    add_json_buf(sb, &t);
    et_sb_adds(sb, "}}");
    begin_event(w);
    et_sb_adds(sb, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
    sb_i64(sb, w->pid);
    et_sb_adds(sb, ",\"tid\":");
    sb_i64(sb, tid);
    et_sb_adds(sb, ",\"args\":{\"sort_index\":");
    sb_i64(sb, idx);
    et_sb_adds(sb, "}}");
}

/* ------------------------------------------------------------------ */
/* The first pass: origin and wrap-around */

static bool raw_delegated(const et_raw_event *e)
{
    return e->delegate_debug_id_int != -1 ||
           (e->delegate_debug_id_str.p && e->delegate_debug_id_str.n);
}

static int first_pass(tw *w)
{
    const et_inspector *insp = w->insp;
    size_t N = w->n_rundata;
    bool all32 = !insp->ticks_over_32;
    for (size_t i = 0; i < N; i++) {
        run_info *ri = &w->runs[i];
        const et_run_ticks *t = &insp->run_ticks[i];
        ri->lo_low = t->lo_low;
        ri->lo_high = t->lo_high;
        ri->has_lo = t->has_lo;
        ri->dlo = t->dlo;
        ri->has_dlo = t->has_dlo;
        ri->wrapped = t->wrapped;
    }
    /* offsets, in RunData order; then the origin */
    uint64_t prev_off = 0, prev_abs = 0;
    bool have_prev = false, have_origin = false;
    w->origin = 0;
    for (size_t i = 0; i < N; i++) {
        run_info *ri = &w->runs[i];
        if (!all32) {
            ri->wrapped = false;
            ri->off = 0;
        }
        if (!ri->has_lo && !ri->has_dlo)
            continue;
        uint64_t lo;
        if (!ri->has_lo)
            lo = ri->dlo;
        else if (!ri->wrapped)
            lo = ri->lo_low < ri->lo_high ? ri->lo_low : ri->lo_high;
        else
            lo = ri->lo_high != UINT64_MAX ? ri->lo_high : ri->lo_low + TWO32;
        if (all32) {
            uint64_t off = prev_off;
            if (have_prev && lo + off + TWO31 < prev_abs)
                off += ((prev_abs - lo - off - TWO31) / TWO32 + 1) * TWO32;
            ri->off = off;
            prev_off = off;
            prev_abs = lo + off;
            have_prev = true;
        }
        uint64_t abs_lo = ri->has_lo ? lo + ri->off : unwrap(ri, ri->dlo);
        if (!have_origin || abs_lo < w->origin)
            w->origin = abs_lo, have_origin = true;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Per block: tracks, parents, constant texts, allocator series */

static size_t backend_index(tw *w, const char *name)
{
    for (size_t b = 0; b < w->n_backends; b++)
        if (w->backends[b] == name || (name && w->backends[b] && strcmp(w->backends[b], name) == 0))
            return b;
    if (w->n_backends == MAX_BACKENDS)
        return MAX_BACKENDS - 1; /* the rest share the last backend's tracks */
    w->backends[w->n_backends] = name;
    return w->n_backends++;
}

/* Perfetto: the static args of an event as debug annotations, into
 * w->fixed. */
static void pf_static_args(tw *w, const et_block *blk, const et_event *ev)
{
    et_strbuf *f = &w->fixed;
    if (ev->instruction_id != -1)
        et_pf_ann_int(f, ET_PF_A_INSTRUCTION_ID, ev->instruction_id);
    if (ev->delegate_debug_identifier_kind == ET_DID_INT)
        et_pf_ann_int(f, ET_PF_A_DELEGATE_DEBUG_ID, ev->delegate_debug_id_int);
    else if (ev->delegate_debug_identifier_kind == ET_DID_STR)
        et_pf_ann_str(f, ET_PF_A_DELEGATE_DEBUG_ID, ev->delegate_debug_id_str.p,
                      ev->delegate_debug_id_str.n);
    if (ev->has_debug_handles && ev->n_debug_handles && !ev->debug_handles_is_list)
        et_pf_ann_int(f, ET_PF_A_DEBUG_HANDLES, ev->debug_handles[0]);
    else if (ev->has_debug_handles && ev->debug_handles_is_list)
        et_pf_ann_int_array(f, ET_PF_A_DEBUG_HANDLES, ev->debug_handles, ev->n_debug_handles);
    if (!ev->node_count || !blk->graph)
        return;
    uint32_t bits;
    size_t at = 0;
    bool any = false;
    for (uint32_t k = 0; k < ev->node_count; k++) {
        const et_graph_node *nd = et_link_node(w->insp, blk, ev, k, &bits);
        if (!(bits & ET_LINK_NODE_OP) || !nd->op)
            continue;
        if (!any)
            at = et_pf_ann_array_open(f, ET_PF_A_OP_TYPES);
        et_pf_ann_array_str(f, nd->op, strlen(nd->op));
        any = true;
    }
    if (any)
        et_pb_close(f, at);
    for (uint32_t k = 0; k < ev->node_count; k++) {
        const et_graph_node *nd = et_link_node(w->insp, blk, ev, k, &bits);
        if (nd->has_module_stack && nd->n_module_stack &&
            nd->module_stack[nd->n_module_stack - 1].path) {
            const char *p = nd->module_stack[nd->n_module_stack - 1].path;
            et_pf_ann_str(f, ET_PF_A_MODULE, p, strlen(p));
            break;
        }
    }
}

/* The static args of an event and the end of the event: ",...}}". */
static void static_args(tw *w, const et_block *blk, const et_event *ev)
{
    et_strbuf *f = &w->fixed;
    if (ev->instruction_id != -1) {
        et_sb_adds(f, ",\"instruction_id\":");
        sb_i64(f, ev->instruction_id);
    }
    if (ev->delegate_debug_identifier_kind == ET_DID_INT) {
        et_sb_adds(f, ",\"delegate_debug_identifier\":");
        sb_i64(f, ev->delegate_debug_id_int);
    } else if (ev->delegate_debug_identifier_kind == ET_DID_STR) {
        et_sb_adds(f, ",\"delegate_debug_identifier\":");
        et_sb_add_json_str(f, ev->delegate_debug_id_str.p, ev->delegate_debug_id_str.n);
    }
    if (ev->has_debug_handles && ev->n_debug_handles) {
        et_sb_adds(f, ",\"debug_handles\":");
        if (!ev->debug_handles_is_list) {
            sb_i64(f, ev->debug_handles[0]);
        } else {
            et_sb_addc(f, '[');
            for (uint32_t k = 0; k < ev->n_debug_handles; k++) {
                if (k)
                    et_sb_addc(f, ',');
                sb_i64(f, ev->debug_handles[k]);
            }
            et_sb_addc(f, ']');
        }
    } else if (ev->has_debug_handles && ev->debug_handles_is_list) {
        et_sb_adds(f, ",\"debug_handles\":[]");
    }
    if (ev->node_count && blk->graph) {
        uint32_t bits;
        bool any = false;
        for (uint32_t k = 0; k < ev->node_count; k++) {
            const et_graph_node *nd = et_link_node(w->insp, blk, ev, k, &bits);
            if (!(bits & ET_LINK_NODE_OP) || !nd->op)
                continue;
            et_sb_adds(f, any ? "," : ",\"op_types\":[");
            et_sb_add_json_str(f, nd->op, strlen(nd->op));
            any = true;
        }
        if (any)
            et_sb_addc(f, ']');
        for (uint32_t k = 0; k < ev->node_count; k++) {
            const et_graph_node *nd = et_link_node(w->insp, blk, ev, k, &bits);
            if (nd->has_module_stack && nd->n_module_stack &&
                nd->module_stack[nd->n_module_stack - 1].path) {
                const char *p = nd->module_stack[nd->n_module_stack - 1].path;
                et_sb_adds(f, ",\"module\":");
                et_sb_add_json_str(f, p, strlen(p));
                break;
            }
        }
    }
    et_sb_adds(f, "}}");
}

static int grow(void *pp, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < want) {
        if (n > SIZE_MAX / 2 / size)
            return -1;
        n *= 2;
    }
    void *q = realloc(*(void **)pp, n * size);
    if (!q)
        return -1;
    *(void **)pp = q;
    *cap = n;
    return 0;
}

static int nomem(tw *w)
{
    return et_fail(w->err, ET_ERR_NOMEM, "out of memory while writing the trace");
}

/* A named series and its allocator's name, to find repeated names. */
typedef struct named_series {
    et_str name;
    uint32_t s;
} named_series;

static int cmp_named(const void *a, const void *b)
{
    const named_series *x = a, *y = b;
    size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
    int c = memcmp(x->name.p, y->name.p, n);
    if (c)
        return c;
    if (x->name.n != y->name.n)
        return x->name.n < y->name.n ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* The series of allocator `id` in the current block, or -1. */
static int32_t series_of(const tw *w, const et_block *blk, int32_t id)
{
    if (id >= 1 && (size_t)id <= blk->n_allocators)
        return w->series_of_id[id];
    int32_t other = -1;
    for (size_t s = w->n_known; s < w->n_series; s++) {
        if (w->series_id[s] == id)
            return (int32_t)s;
        if (w->series_id[s] == INT32_MIN)
            other = (int32_t)s;
    }
    return other;
}

static int add_series(tw *w, int32_t id)
{
    if (grow(&w->series_id, &w->series_cap, w->n_series + 1, sizeof *w->series_id) != 0)
        return nomem(w);
    w->series_id[w->n_series++] = id;
    return 0;
}

/* The allocator series of block `blk`: every allocator id its allocations
 * name - known ids in id order, then unknown ones as first seen (beyond
 * MAX_UNKNOWN_SERIES of them, one "other allocators" series) - and their
 * keys. */
static int prep_series(tw *w, const et_block *blk)
{
    w->n_series = w->n_known = 0;
    et_sb_reset(&w->keys);
    size_t A = blk->n_allocators, pool = 0;
    for (size_t r = 0; r < blk->n_runs && blk->allocation_count; r++) {
        size_t end = (size_t)blk->allocation_first[r] + blk->allocation_count[r];
        if (blk->allocation_count[r] && end > pool)
            pool = end;
    }
    if (!pool)
        return 0;
    if (grow(&w->series_of_id, &w->series_of_id_cap, A + 1, sizeof *w->series_of_id) != 0)
        return nomem(w);
    for (size_t i = 0; i <= A; i++)
        w->series_of_id[i] = -1;
    for (size_t k = 0; k < pool; k++) {
        int32_t id = blk->allocations[k].allocator_id;
        if (id >= 1 && (size_t)id <= A)
            w->series_of_id[id] = 0;
    }
    for (size_t id = 1; id <= A; id++) {
        if (w->series_of_id[id] < 0)
            continue;
        w->series_of_id[id] = (int32_t)w->n_series;
        if (add_series(w, (int32_t)id) != 0)
            return -1;
    }
    w->n_known = w->n_series;
    for (size_t k = 0; k < pool; k++) {
        int32_t id = blk->allocations[k].allocator_id;
        if (series_of(w, blk, id) >= 0)
            continue;
        if (add_series(w, w->n_series - w->n_known < MAX_UNKNOWN_SERIES ? id : INT32_MIN) != 0)
            return -1;
    }
    /* keys; a name given to several allocators gets " (ID)" */
    size_t S = w->n_series;
    free(w->key_off);
    free(w->key_n);
    free(w->cum);
    free(w->suuid);
    free(w->raw_off);
    w->suuid = calloc(S + 1, sizeof *w->suuid);
    w->raw_off = malloc((S + 1) * sizeof *w->raw_off);
    et_sb_reset(&w->rawkeys);
    w->key_off = malloc(S * sizeof *w->key_off);
    w->key_n = malloc(S * sizeof *w->key_n);
    w->cum = calloc(S, sizeof *w->cum);
    named_series *ns = malloc(S * sizeof *ns);
    unsigned char *dup = calloc(S, 1);
    if (!w->key_off || !w->key_n || !w->cum || !ns || !dup || !w->suuid || !w->raw_off) {
        free(ns);
        free(dup);
        return nomem(w);
    }
    size_t n_named = 0;
    for (size_t s = 0; s < w->n_known; s++)
        if (blk->allocators[w->series_id[s] - 1].n)
            ns[n_named++] = (named_series){blk->allocators[w->series_id[s] - 1], (uint32_t)s};
    qsort(ns, n_named, sizeof *ns, cmp_named);
    for (size_t i = 1; i < n_named; i++)
        if (ns[i - 1].name.n == ns[i].name.n &&
            memcmp(ns[i - 1].name.p, ns[i].name.p, ns[i].name.n) == 0)
            dup[ns[i - 1].s] = dup[ns[i].s] = 1;
    free(ns);
    for (size_t s = 0; s < S; s++) {
        int32_t id = w->series_id[s];
        et_strbuf t = {0};
        if (s < w->n_known && blk->allocators[id - 1].n) {
            et_sb_add(&t, blk->allocators[id - 1].p, blk->allocators[id - 1].n);
            if (dup[s]) {
                et_sb_adds(&t, " (");
                sb_i64(&t, id);
                et_sb_addc(&t, ')');
            }
        } else if (id == INT32_MIN) {
            et_sb_adds(&t, "other allocators");
        } else {
            et_sb_adds(&t, "allocator ");
            sb_i64(&t, id);
        }
        w->raw_off[s] = (uint32_t)w->rawkeys.n;
        if (!t.failed)
            et_sb_add(&w->rawkeys, t.p, t.n);
        w->key_off[s] = (uint32_t)w->keys.n;
        if (t.failed)
            w->keys.failed = true;
        else
            et_sb_add_json_str(&w->keys, t.p, t.n);
        w->key_n[s] = (uint32_t)(w->keys.n - w->key_off[s]);
        et_sb_free(&t);
    }
    free(dup);
    w->raw_off[S] = (uint32_t)w->rawkeys.n;
    if (w->keys.n > UINT32_MAX / 2 || w->rawkeys.n > UINT32_MAX / 2 || w->rawkeys.failed)
        w->keys.failed = true;
    return w->keys.failed ? nomem(w) : 0;
}

static int prep_block(tw *w, const et_block *blk)
{
    size_t E = blk->n_events;
    if (E > w->ev_cap) {
        size_t cap = w->ev_cap;
        if (grow(&w->ev, &cap, E, sizeof *w->ev) != 0)
            return nomem(w);
        cap = w->ev_cap;
        if (grow(&w->slot, &cap, E, sizeof *w->slot) != 0)
            return nomem(w);
        cap = w->ev_cap;
        if (grow(&w->sl, &cap, E, sizeof *w->sl) != 0)
            return nomem(w);
        cap = w->ev_cap;
        if (grow(&w->sl2, &cap, E, sizeof *w->sl2) != 0)
            return nomem(w);
        cap = w->ev_cap;
        if (grow(&w->dcs, &cap, E, sizeof *w->dcs) != 0)
            return nomem(w);
        cap = w->ev_cap;
        if (grow(&w->par, &cap, E, sizeof *w->par) != 0)
            return nomem(w);
        cap = w->ev_cap;
        if (grow(&w->ts, &cap, E, sizeof *w->ts) != 0)
            return nomem(w);
        if (w->perfetto) {
            free(w->fc), free(w->nc), free(w->fid), free(w->pe);
            w->fc = malloc(cap * sizeof *w->fc);
            w->nc = malloc(cap * sizeof *w->nc);
            w->fid = malloc(cap * sizeof *w->fid);
            w->pe = cap <= SIZE_MAX / LEVELS / sizeof *w->pe ? malloc(LEVELS * cap * sizeof *w->pe)
                                                            : NULL;
            if (!w->fc || !w->nc || !w->fid || !w->pe)
                return nomem(w);
        }
        w->ev_cap = cap;
    }
    et_sb_reset(&w->fixed);
    w->n_backends = 0;
    et_tl_parents(blk, w->par, w->dcs);
    for (size_t e = 0; e < E; e++) {
        const et_event *ev = &blk->events[e];
        ev_info *ei = &w->ev[e];
        ei->track = -1;
        if (!et_tl_timed(ev))
            continue;
        et_str name = et_event_name(ev);
        const char *cat;
        switch (et_tl_track_of(ev)) { /* the timeline's one rule (timeline.h) */
        case ET_TL_DELEGATE:
            ei->track = TR_DELEGATE + 2 * (int32_t)backend_index(w, ev->delegate_backend_name);
            cat = "delegate";
            break;
        case ET_TL_FRAMEWORK:
            ei->track = TR_FRAMEWORK;
            cat = "framework";
            break;
        default:
            ei->track = TR_OPERATORS;
            cat = "operator";
            break;
        }
        et_strbuf *f = &w->fixed;
        ei->head = (uint32_t)f->n;
        if (w->perfetto) {
            ei->iid = et_pf_intern(&w->pf, name.p, name.n);
            et_pb_uint(f, 10, ei->iid); /* TrackEvent.name_iid */
            pf_static_args(w, blk, ev);
            ei->head_n = (uint32_t)(f->n - ei->head);
            if (f->n > UINT32_MAX / 2)
                f->failed = true;
            continue;
        }
        et_sb_adds(f, "{\"name\":");
        et_sb_add_json_str(f, name.p, name.n);
        et_sb_adds(f, ",\"cat\":\"");
        et_sb_adds(f, cat);
        et_sb_adds(f, "\",\"ph\":\"X\",\"ts\":");
        ei->head_n = (uint32_t)(f->n - ei->head);
        ei->tail = (uint32_t)f->n;
        static_args(w, blk, ev);
        ei->tail_n = (uint32_t)(f->n - ei->tail);
        if (f->n > UINT32_MAX / 2)
            f->failed = true;
    }
    if (w->fixed.failed || w->pf.failed)
        return nomem(w);
    if (w->perfetto)
        et_pf_flush_interned(&w->pf, &w->sb);
    size_t T = TR_DELEGATE + 2 * (w->n_backends ? w->n_backends : 1);
    if (grow(&w->lv, &w->lv_cap, T * LEVELS, sizeof *w->lv) != 0)
        return nomem(w);
    for (size_t i = w->n_tracks * LEVELS; i < T * LEVELS; i++)
        w->lv[i] = (level_stack){0};
    if (T > w->n_tracks)
        w->n_tracks = T;
    return prep_series(w, blk);
}

/* ------------------------------------------------------------------ */
/* Per process and per run */

static void begin_process(tw *w, int64_t pid, et_str name, int64_t run)
{
    w->pid = pid;
    w->pname = name.p ? name.p : "";
    w->pname_n = name.n;
    w->prun = run;
    w->pnamed = false;
    for (size_t i = 0; i < w->n_tracks * LEVELS; i++) {
        w->lv[i].n = 0;
        w->lv[i].last_ts = INT64_MIN;
        w->lv[i].named = false;
    }
    if (w->n_series) {
        memset(w->cum, 0, w->n_series * sizeof *w->cum);
        memset(w->suuid, 0, w->n_series * sizeof *w->suuid);
    }
    w->cycles_uuid = 0;
}

static int cmp_slice(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int push_end(tw *w, level_stack *v, int64_t end, int64_t ts)
{
    if (grow(&v->ends, &v->cap, v->n + 1, sizeof *v->ends) != 0)
        return nomem(w);
    v->ends[v->n++] = end;
    v->last_ts = ts;
    return 0;
}

/* Give slice s its level on its track: the first where it nests. */
static int place(tw *w, slice *s)
{
    int64_t end = s->ts + s->dur;
    level_stack *base = &w->lv[(size_t)s->track * LEVELS];
    for (unsigned L = 0; L < LEVELS; L++) {
        level_stack *v = &base[L];
        while (v->n && v->ends[v->n - 1] <= s->ts)
            v->n--;
        if (s->ts < v->last_ts)
            continue; /* before what was placed here (runs out of order) */
        if (v->n && end > v->ends[v->n - 1]) {
            if (end - v->ends[v->n - 1] > ROUNDING_NS)
                continue;
            s->dur = v->ends[v->n - 1] - s->ts; /* rounding */
            end = s->ts + s->dur;
        }
        s->level = (uint8_t)L;
        if (L)
            w->n_overlap++;
        return push_end(w, v, end, s->ts);
    }
    /* no level: clamp into the last one's innermost slice, or drop */
    level_stack *v = &base[LEVELS - 1];
    if (s->ts < v->last_ts || !v->n) {
        s->level = DROPPED;
        w->n_dropped++;
        return 0;
    }
    s->dur = v->ends[v->n - 1] - s->ts;
    s->level = LEVELS - 1;
    s->flags |= SL_CLAMPED;
    w->n_clamped++;
    w->n_overlap++;
    return push_end(w, v, s->ts + s->dur, s->ts);
}

static bool in_window(const tw *w, int64_t ts, int64_t dur)
{
    if (!w->window)
        return true;
    if (ts >= w->win_e)
        return false;
    return dur > 0 ? ts + dur > w->win_s : ts >= w->win_s;
}

static int emit_slice(tw *w, size_t bi, size_t r, uint32_t rd, const slice *s)
{
    w->n_kept++;
    const et_block *blk = &w->insp->blocks[bi];
    const ev_info *ei = &w->ev[s->ev];
    name_thread(w, s->track, s->level);
    level_stack *v = &w->lv[s->track * LEVELS + s->level];
    if (v->mid_gen != w->gen) { /* the same for the run's slices of the track */
        char *m = v->mid;
        memcpy(m, ",\"pid\":", 7), m += 7;
        m = put_i64(m, w->pid);
        memcpy(m, ",\"tid\":", 7), m += 7;
        m = put_i64(m, w->pid * 1000 + track_index(s->track, s->level));
        memcpy(m, ",\"args\":{\"run\":", 15), m += 15;
        m = put_u64(m, rd);
        v->mid_n = (uint8_t)(m - v->mid);
        v->mid_gen = w->gen;
    }
    et_strbuf *sb = &w->sb;
    /* separator, head, two times (<= 26 bytes each), mid, flags, tail */
    char *o = et_sb_room(sb, 2 + ei->head_n + 60 + sizeof v->mid + 90 + ei->tail_n);
    if (!o)
        return nomem(w);
    if (w->any_event)
        *o++ = ',';
    *o++ = '\n';
    w->any_event = true;
    memcpy(o, w->fixed.p + ei->head, ei->head_n);
    o += ei->head_n;
    o = put_us(o, s->ts);
    memcpy(o, ",\"dur\":", 7), o += 7;
    o = put_us(o, s->dur);
    memcpy(o, v->mid, sizeof v->mid); /* the whole array: one fixed-size copy */
    o += v->mid_n;
    if (s->flags & SL_SYNTH)
        memcpy(o, ",\"synthetic_start\":true", 23), o += 23;
    if (s->flags & SL_CUT) {
        memcpy(o, ",\"logged_dur_us\":", 17), o += 17;
        o = put_us(o, s->logged);
    }
    if (s->flags & SL_CLAMPED)
        memcpy(o, ",\"clamped\":true", 15), o += 15;
    if (w->o->metadata && blk->events[s->ev].is_delegated_op) {
        et_sb_setlen(sb, o);
        char *m = w->o->metadata(w->o->metadata_ud, bi, s->ev, r);
        if (m) {
            et_sb_adds(sb, ",\"delegate_metadata\":");
            et_sb_adds(sb, m);
            free(m);
        }
        et_sb_add(sb, w->fixed.p + ei->tail, ei->tail_n);
    } else {
        memcpy(o, w->fixed.p + ei->tail, ei->tail_n);
        et_sb_setlen(sb, o + ei->tail_n);
    }
    w->n_slices++;
    return 0;
}

static void emit_counter(tw *w, int64_t ts)
{
    if (!in_window(w, ts, 0))
        return;
    name_process(w);
    if (w->perfetto) {
        for (size_t s = 0; s < w->n_series; s++) {
            if (!w->suuid[s]) {
                et_strbuf t = {0};
                et_sb_adds(&t, "allocated bytes: ");
                et_sb_add(&t, w->rawkeys.p + w->raw_off[s], w->raw_off[s + 1] - w->raw_off[s]);
                if (t.failed)
                    w->sb.failed = true;
                w->suuid[s] = et_pf_track(&w->pf, &w->sb, w->puuid, t.p ? t.p : "", t.n,
                                          (int32_t)(1000 + s), true, ET_PF_UNIT_SIZE_BYTES, NULL);
                et_sb_free(&t);
            }
            et_pf_counter(&w->pf, &w->sb, ts < 0 ? 0 : (uint64_t)ts, w->suuid[s],
                          w->cum[s] > INT64_MAX ? INT64_MAX : (int64_t)w->cum[s]);
        }
        w->n_counters++;
        return;
    }
    begin_event(w);
    et_strbuf *sb = &w->sb;
    et_sb_adds(sb, "{\"name\":\"allocated bytes\",\"ph\":\"C\",\"ts\":");
    sb_us(sb, ts);
    et_sb_adds(sb, ",\"pid\":");
    sb_i64(sb, w->pid);
    et_sb_adds(sb, ",\"args\":{");
    for (size_t s = 0; s < w->n_series; s++) {
        if (s)
            et_sb_addc(sb, ',');
        et_sb_add(sb, w->keys.p + w->key_off[s], w->key_n[s]);
        et_sb_addc(sb, ':');
        char b[24];
        et_sb_add(sb, b, (size_t)(put_u64(b, w->cum[s]) - b));
    }
    et_sb_adds(sb, "}}");
    w->n_counters++;
}

/* The counter samples of block-run r: each allocation at the end of the
 * non-delegated profile event logged before it, or at `start`. */
static void run_counters(tw *w, const et_block *blk, size_t r, int64_t start)
{
    if (!w->n_series || !blk->allocation_count[r])
        return;
    uint32_t rd = blk->runs[r];
    const run_info *ri = &w->runs[rd];
    const et_etdump *d = &w->insp->dump;
    et_run run;
    et_etdump_run(d, rd, &run);
    int64_t anchor = start, pend_ts = 0;
    bool pending = false;
    et_event_cursor cur;
    et_event_cursor_init(&cur, d, rd, &run);
    for (uint32_t j = 0; j < run.events.count; j++) {
        et_raw_event e;
        et_event_cursor_get(&cur, j, &e);
        if (e.kind == ET_EV_PROFILE && !raw_delegated(&e)) {
            int64_t t = tick_ns(w, ri, e.end_time);
            if (t > anchor)
                anchor = t;
        } else if (e.kind == ET_EV_ALLOCATION) {
            int32_t s = series_of(w, blk, e.allocator_id);
            if (s < 0)
                continue;
            if (pending && anchor != pend_ts)
                emit_counter(w, pend_ts);
            w->cum[s] += e.allocation_size;
            pending = true;
            pend_ts = anchor;
        }
    }
    if (pending)
        emit_counter(w, pend_ts);
}

/* Gather the samples of block-runs r0 .. r0 + TILE - 1 (those that exist)
 * run-major, so that a run reads them contiguously instead of one cache
 * line per event. */
static int fill_tile(tw *w, const et_block *blk, size_t r0)
{
    size_t E = blk->n_events, nb = blk->n_runs - r0 < TILE ? blk->n_runs - r0 : TILE;
    if (E > SIZE_MAX / TILE / sizeof(uint64_t))
        return nomem(w);
    if (TILE * E > w->tile_cap) {
        uint64_t *t = realloc(w->tile_t, TILE * E * sizeof *t);
        if (t)
            w->tile_t = t;
        double *d = realloc(w->tile_d, TILE * E * sizeof *d);
        if (d)
            w->tile_d = d;
        if (!t || !d)
            return nomem(w);
        w->tile_cap = TILE * E;
    }
    for (size_t e = 0; e < E; e++) {
        const et_event *ev = &blk->events[e];
        if (w->ev[e].track < 0)
            continue;
        const uint64_t *st = ev->start_time + r0;
        const double *du = ev->perf_data.raw + r0;
        for (size_t k = 0; k < nb; k++) {
            w->tile_t[k * E + e] = st[k];
            w->tile_d[k * E + e] = du[k];
        }
    }
    w->tile_r0 = r0;
    return 0;
}

/* Order within a track: ts, longest first, event order. */
static bool slice_before(const slice *x, const slice *y)
{
    if (x->ts != y->ts)
        return x->ts < y->ts;
    if (x->dur != y->dur)
        return x->dur > y->dur;
    return x->ev < y->ev;
}

/* Sort the run's n slices by (track, ts, -dur, ev): tracks by counting
 * (stable), then each track by insertion - the events of a block come
 * nearly in time order - falling back to qsort when that turns out to
 * be far from sorted. */
static void sort_slices(tw *w, size_t n)
{
    size_t count[TR_DELEGATE + 2 * MAX_BACKENDS + 1] = {0};
    for (size_t i = 0; i < n; i++)
        count[w->sl[i].track + 1]++;
    for (size_t t = 1; t < sizeof count / sizeof count[0]; t++)
        count[t] += count[t - 1];
    for (size_t i = 0; i < n; i++)
        w->sl2[count[w->sl[i].track]++] = w->sl[i];
    slice *tmp = w->sl;
    w->sl = w->sl2;
    w->sl2 = tmp;
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && w->sl[hi].track == w->sl[lo].track)
            hi++;
        slice *a = w->sl + lo;
        size_t m = hi - lo, budget = 4 * m + 64;
        bool sorted = true;
        for (size_t i = 1; i < m && sorted; i++) {
            slice x = a[i];
            size_t j = i;
            while (j > 0 && slice_before(&x, &a[j - 1])) {
                a[j] = a[j - 1];
                j--;
                if (--budget == 0) {
                    sorted = false;
                    break;
                }
            }
            a[j] = x;
        }
        if (!sorted)
            qsort(a, m, sizeof *a, cmp_slice);
        lo = hi;
    }
}

/* Perfetto: close the open slices of the current track's levels that end
 * at or before `t` (all of them with INT64_MAX): their SLICE_END packets,
 * innermost first. */
static void pf_close(tw *w, unsigned track, int64_t t)
{
    for (unsigned L = 0; L < LEVELS; L++) {
        int64_t *pe = w->pe + (size_t)L * w->ev_cap;
        uint64_t uuid = w->lv[track * LEVELS + L].uuid;
        while (w->pe_n[L] && (t == INT64_MAX || pe[w->pe_n[L] - 1] <= t)) {
            int64_t end = pe[--w->pe_n[L]];
            et_pf_slice_end(&w->pf, &w->sb, end < 0 ? 0 : (uint64_t)end, uuid);
        }
    }
}

/* Perfetto: the run's n placed slices as SLICE_BEGIN / SLICE_END pairs,
 * with flows from each DELEGATE_CALL to the delegated slices it ran. */
static int pf_run(tw *w, size_t bi, size_t r, uint32_t rd, size_t n)
{
    const et_block *blk = &w->insp->blocks[bi];
    et_strbuf *sb = &w->sb;
    for (size_t i = 0; i < n; i++) {
        const slice *s = &w->sl[i];
        w->slot[s->ev] = s->level != DROPPED && in_window(w, s->ts, s->dur) ? (int32_t)i : -1;
        w->n_kept += w->slot[s->ev] >= 0;
        w->fc[i] = -1;
        w->fid[i] = 0;
    }
    for (size_t i = n; i-- > 0;) {
        const slice *s = &w->sl[i];
        int32_t p = w->par[s->ev];
        if (w->slot[s->ev] != (int32_t)i || p < 0 || w->slot[p] < 0)
            continue;
        w->nc[i] = w->fc[w->slot[p]];
        w->fc[w->slot[p]] = (int32_t)i;
        w->fid[i] = ++w->pf.next_flow;
    }
    /* the run's annotation, the same for its slices: DebugAnnotation
     * {name_iid, int_value} in TrackEvent.debug_annotations */
    char run_ann[16], *ra = run_ann;
    *ra++ = 4 << 3 | ET_PB_LEN;
    ra++;
    *ra++ = 1 << 3;
    *ra++ = ET_PF_A_RUN;
    *ra++ = 4 << 3;
    ra = et_pb_put_varint(ra, rd);
    run_ann[1] = (char)(ra - run_ann - 2);
    size_t run_n = (size_t)(ra - run_ann);
    unsigned cur = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        const slice *s = &w->sl[i];
        if (s->track != cur) {
            if (cur != UINT32_MAX)
                pf_close(w, cur, INT64_MAX);
            cur = s->track;
        }
        if (w->slot[s->ev] != (int32_t)i)
            continue;
        name_thread(w, s->track, s->level);
        pf_close(w, cur, s->ts);
        const ev_info *ei = &w->ev[s->ev];
        size_t at = et_pf_event_open(&w->pf, sb, s->ts < 0 ? 0 : (uint64_t)s->ts, ET_PF_SLICE_BEGIN,
                                     w->lv[s->track * LEVELS + s->level].uuid);
        char *o = et_sb_room(sb, ei->head_n + run_n);
        if (!o)
            return nomem(w);
        memcpy(o, w->fixed.p + ei->head, ei->head_n); /* name_iid, static args */
        memcpy(o + ei->head_n, run_ann, run_n);
        et_sb_setlen(sb, o + ei->head_n + run_n);
        if (s->flags & SL_SYNTH)
            et_pf_ann_bool(sb, ET_PF_A_SYNTHETIC_START, true);
        if (s->flags & SL_CUT)
            et_pf_ann_double(sb, ET_PF_A_LOGGED_DUR_US, (double)s->logged / 1000);
        if (s->flags & SL_CLAMPED)
            et_pf_ann_bool(sb, ET_PF_A_CLAMPED, true);
        if (w->o->metadata && blk->events[s->ev].is_delegated_op) {
            char *m = w->o->metadata(w->o->metadata_ud, bi, s->ev, r);
            if (m) {
                et_pf_ann_json(sb, ET_PF_A_DELEGATE_METADATA, m, strlen(m));
                free(m);
            }
        }
        for (int32_t c = w->fc[i]; c >= 0; c = w->nc[c])
            et_pb_fixed64(sb, 47, w->fid[c]); /* flow_ids */
        if (w->fid[i])
            et_pb_fixed64(sb, 48, w->fid[i]); /* terminating_flow_ids */
        et_pf_event_close(sb, at);
        w->pe[(size_t)s->level * w->ev_cap + w->pe_n[s->level]++] = s->ts + s->dur;
        w->n_slices++;
        if (sb->n >= FLUSH_BYTES && flush(w, false) != 0)
            return -1;
    }
    if (cur != UINT32_MAX)
        pf_close(w, cur, INT64_MAX);
    return 0;
}

/* Perfetto, cycles dumps: the process's "cycles" counter at t (ns). */
static void pf_cycles(tw *w, int64_t t)
{
    if (!in_window(w, t, 0))
        return;
    name_process(w);
    if (!w->cycles_uuid)
        w->cycles_uuid = et_pf_track(&w->pf, &w->sb, w->puuid, "cycles", 6, 999, true, 0,
                                     "cycles");
    double c = (double)t * w->o->cycles_hz / 1e9;
    et_pf_counter(&w->pf, &w->sb, t < 0 ? 0 : (uint64_t)t, w->cycles_uuid,
                  c < 9e18 ? (int64_t)llround(c) : INT64_MAX);
}

static int do_run(tw *w, size_t bi, size_t r)
{
    w->gen++;
    const et_block *blk = &w->insp->blocks[bi];
    uint32_t rd = blk->runs[r];
    const run_info *ri = &w->runs[rd];
    size_t E = blk->n_events, n = 0;
    const uint64_t *tile_t = E ? w->tile_t + (r - w->tile_r0) * E : NULL;
    const double *tile_d = E ? w->tile_d + (r - w->tile_r0) * E : NULL;
    int64_t span_lo = INT64_MAX, span_hi = INT64_MIN;
    /* the run's events as the timeline places them (timeline.h): the
     * non-delegated ones at their ticks, the delegated ones too unless
     * their start is made up inside their DELEGATE_CALL */
    et_tl_slot *ts = w->ts;
    for (size_t e = 0; e < E; e++) {
        const et_event *ev = &blk->events[e];
        ts[e].flags = 0;
        if (w->ev[e].track < 0)
            continue;
        ts[e].ts = (double)tick_ns(w, ri, tile_t[e]);
        ts[e].dur = (double)dur_ns(w, tile_d[e]);
        ts[e].flags = (uint8_t)(ET_TL_TIMED | (ev->is_delegated_op && tile_t[e] == 0 ? ET_TL_TICK0 : 0));
        if (!ev->is_delegated_op) {
            int64_t a = tick_ns(w, ri, tile_t[e]), d = dur_ns(w, tile_d[e]);
            if (a < span_lo)
                span_lo = a;
            if (a + d > span_hi)
                span_hi = a + d;
        }
    }
    int64_t run_start = span_lo <= span_hi ? span_lo : ri->has_dlo ? tick_ns(w, ri, ri->dlo) : 0;
    et_tl_place(blk, w->par, ts, (double)run_start);
    /* non-delegated slices first, then the delegated ones, in event order */
    for (int pass = 0; pass < 2; pass++)
        for (size_t e = 0; e < E; e++) {
            const et_event *ev = &blk->events[e];
            if (pass == 0)
                w->slot[e] = -1;
            if (w->ev[e].track < 0 || ev->is_delegated_op != (pass == 1))
                continue;
            slice *s = &w->sl[n];
            *s = (slice){0};
            s->ev = (uint32_t)e;
            s->track = (uint16_t)w->ev[e].track;
            if (ts[e].flags & ET_TL_SYNTH) {
                s->ts = (int64_t)ts[e].ts;
                s->dur = (int64_t)ts[e].dur;
                if (ts[e].flags & ET_TL_CUT) {
                    s->logged = (int64_t)ts[e].logged;
                    s->flags |= SL_CUT;
                }
                s->track++;
                s->flags |= SL_SYNTH;
                w->n_synth++;
            } else {
                s->ts = tick_ns(w, ri, tile_t[e]);
                s->dur = dur_ns(w, tile_d[e]);
            }
            if (pass == 1 && s->ts < 0) /* a delegated event before every other event */
                s->ts = 0;
            w->slot[e] = (int32_t)n++;
        }
    sort_slices(w, n);
    for (size_t i = 0; i < n; i++)
        if (place(w, &w->sl[i]) != 0)
            return -1;
    if (w->perfetto) {
        if (pf_run(w, bi, r, rd, n) != 0)
            return -1;
        if (w->insp->source_time_scale == ET_TS_CYCLES && span_lo <= span_hi) {
            pf_cycles(w, span_lo);
            pf_cycles(w, span_hi);
        }
        run_counters(w, blk, r, run_start);
        return flush(w, false);
    }
    for (size_t i = 0; i < n; i++) {
        const slice *s = &w->sl[i];
        if (s->level != DROPPED && in_window(w, s->ts, s->dur) && emit_slice(w, bi, r, rd, s) != 0)
            return -1;
        if (w->sb.n >= FLUSH_BYTES && flush(w, false) != 0)
            return -1;
    }
    run_counters(w, blk, r, run_start);
    return flush(w, false);
}

/* ------------------------------------------------------------------ */

static void write_other_data(tw *w)
{
    const et_inspector *insp = w->insp;
    const et_trace_options *o = w->o;
    et_strbuf *sb = &w->sb;
    et_sb_adds(sb, "\n],\n\"otherData\":{\"producer\":\"etinspect\",\"etdump\":");
    const char *label = insp->etdump_label ? insp->etdump_label : "";
    const char *base = strrchr(label, '/');
    base = base ? base + 1 : label;
    et_sb_add_json_str(sb, base, strlen(base));
    et_sb_adds(sb, ",\"source_time_scale\":\"");
    et_sb_adds(sb, et_time_scale_name(insp->source_time_scale));
    et_sb_adds(sb, "\",\"target_time_scale\":\"");
    et_sb_adds(sb, et_time_scale_name(insp->target_time_scale));
    et_sb_adds(sb, "\",\"cycles_hz\":");
    if (insp->source_time_scale == ET_TS_CYCLES)
        sb_num(sb, o->cycles_hz);
    else
        et_sb_adds(sb, "null");
    et_sb_adds(sb, ",\"time_origin_tick\":");
    char b[24];
    et_sb_add(sb, b, (size_t)(put_u64(b, w->origin) - b));
    et_sb_adds(sb, ",\"runs\":");
    if (o->runs && *skip_blanks(o->runs))
        et_sb_add_json_str(sb, o->runs, strlen(o->runs));
    else
        et_sb_adds(sb, "null");
    et_sb_adds(sb, ",\"runs_apart\":");
    et_sb_adds(sb, o->runs_apart ? "true" : "false");
    et_sb_adds(sb, ",\"window_us\":");
    if (w->window) {
        et_sb_addc(sb, '[');
        sb_us(sb, w->win_s);
        et_sb_addc(sb, ',');
        sb_us(sb, w->win_e);
        et_sb_addc(sb, ']');
    } else {
        et_sb_adds(sb, "null");
    }
    const struct {
        const char *k;
        uint64_t v;
    } counts[] = {{"slices", w->n_slices},          {"counter_samples", w->n_counters},
                  {"synthetic_starts", w->n_synth}, {"clamped_slices", w->n_clamped},
                  {"overlap_slices", w->n_overlap}, {"dropped_slices", w->n_dropped}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        et_sb_adds(sb, ",\"");
        et_sb_adds(sb, counts[i].k);
        et_sb_adds(sb, "\":");
        et_sb_add(sb, b, (size_t)(put_u64(b, counts[i].v) - b));
    }
    et_sb_adds(sb, "}}\n");
}

static void tw_free(tw *w)
{
    writer_stop(&w->wr);
    et_sb_free(&w->wr.full);
    et_sb_free(&w->sb);
    et_sb_free(&w->fixed);
    et_sb_free(&w->keys);
    et_sb_free(&w->rawkeys);
    et_pf_free(&w->pf);
    free(w->suuid);
    free(w->raw_off);
    free(w->fc);
    free(w->nc);
    free(w->fid);
    free(w->pe);
    free(w->runs);
    free(w->sel);
    free(w->ev);
    free(w->slot);
    free(w->sl);
    free(w->sl2);
    free(w->tile_t);
    free(w->tile_d);
    free(w->dcs);
    free(w->par);
    free(w->ts);
    for (size_t i = 0; i < w->n_tracks * LEVELS; i++)
        free(w->lv[i].ends);
    free(w->lv);
    free(w->series_of_id);
    free(w->series_id);
    free(w->key_off);
    free(w->key_n);
    free(w->cum);
}

static int write_all(tw *w)
{
    const et_inspector *insp = w->insp;
    const et_trace_options *o = w->o;
    if (first_pass(w) != 0)
        return -1;
    if (w->perfetto) {
        const char *label = insp->etdump_label ? insp->etdump_label : "";
        const char *base = strrchr(label, '/');
        base = base ? base + 1 : label;
        et_pf_start(&w->pf, &w->sb, base, strlen(base));
    } else {
        et_sb_adds(&w->sb, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    }
    for (size_t bi = 0; bi < insp->n_blocks; bi++) {
        const et_block *blk = &insp->blocks[bi];
        bool any = false;
        for (size_t r = 0; r < blk->n_runs && !any; r++)
            any = w->sel[blk->runs[r]];
        if (!any)
            continue;
        if (prep_block(w, blk) != 0)
            return -1;
        if (!o->runs_apart)
            begin_process(w, (int64_t)bi + 1, blk->name, -1);
        size_t tile = SIZE_MAX;
        for (size_t r = 0; r < blk->n_runs; r++) {
            if (!w->sel[blk->runs[r]])
                continue;
            if (r / TILE != tile) {
                tile = r / TILE;
                if (fill_tile(w, blk, tile * TILE) != 0)
                    return -1;
            }
            if (o->runs_apart)
                begin_process(w, (int64_t)blk->runs[r] + 1, blk->name, blk->runs[r]);
            if (do_run(w, bi, r) != 0)
                return -1;
        }
    }
    if (!w->perfetto)
        write_other_data(w);
    if (flush(w, true) != 0)
        return -1;
    if (ferror(w->out))
        return et_fail(w->err, ET_ERR_IO, "cannot write the trace");
    return 0;
}

int et_trace_write(const et_inspector *insp, const et_trace_options *o, FILE *out,
                   et_error *err)
{
    if (insp->legacy)
        return et_fail(err, ET_ERR_USAGE, "a legacy profiler dump has no start times per run: "
                       "the trace needs an ETDump");
    tw w = {0};
    w.insp = insp;
    w.o = o;
    w.out = out;
    w.err = err;
    w.perfetto = o->format == ET_TRACE_PERFETTO;
    et_pf_init(&w.pf);
    if (insp->source_time_scale == ET_TS_CYCLES) {
        if (o->cycles_hz == 0)
            return et_fail(err, ET_ERR_USAGE, "the source time scale is cycles: give the clock "
                           "frequency (cycles_hz / --cycles_hz) to place events in time");
        if (!(o->cycles_hz > 0) || isinf(o->cycles_hz))
            return et_fail(err, ET_ERR_USAGE, "cycles_hz: expected a positive frequency in Hz, "
                           "found %g", o->cycles_hz);
        w.ns_per_tick = 1e9 / o->cycles_hz;
    } else {
        w.ns_per_tick = et_time_scale_factor(ET_TS_NS, insp->source_time_scale);
    }
    if (insp->target_time_scale == ET_TS_CYCLES)
        w.ns_per_unit = o->cycles_hz > 0 ? 1e9 / o->cycles_hz : 0;
    else
        w.ns_per_unit = et_time_scale_factor(ET_TS_NS, insp->target_time_scale);
    w.n_rundata = et_etdump_num_runs(&insp->dump);
    w.runs = calloc(w.n_rundata ? w.n_rundata : 1, sizeof *w.runs);
    w.sel = malloc(w.n_rundata ? w.n_rundata : 1);
    if (!w.runs || !w.sel) {
        tw_free(&w);
        return et_fail(err, ET_ERR_NOMEM, "out of memory while writing the trace");
    }
    if (et_trace_parse_runs(o->runs, w.n_rundata, w.sel, err) != 0) {
        tw_free(&w);
        return -1;
    }
    if (o->window_end_us > o->window_start_us) {
        w.window = true;
        w.win_s = to_ns(o->window_start_us * 1000);
        w.win_e = to_ns(o->window_end_us * 1000);
    }
    writer_start(&w);
    int rc = write_all(&w);
    if (rc == 0 && o->n_slices)
        *o->n_slices = w.n_kept;
    tw_free(&w);
    return rc;
}
