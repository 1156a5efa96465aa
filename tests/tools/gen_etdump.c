/*
 * gen_etdump - write a synthetic ETDump of any size, for the scaling
 * curve of `make bench` (scripts/bench.sh, docs/performance.md).
 *
 *   gen_etdump [--distinct] OUT EVENTS_PER_RUN RUNS [SEED]
 *
 * A size-prefixed ETDump (as ETDumpGen writes) of RUNS runs named
 * "Execute", each of EVENTS_PER_RUN profile events: instruction ids 0 ..
 * EVENTS_PER_RUN - 1, names cycling through twelve operator names,
 * nanosecond ticks one after another with durations of 300 to 699 ticks
 * drawn from SEED (default 1).  Every run repeats the previous one's
 * events, so all runs make one event block of EVENTS_PER_RUN events - a
 * wide dump with 50,000 events per run, a narrow one with many runs of a
 * few events.  The layout is a writer's: per run its RunData, name and
 * events vector, then per event its Event table, ProfileEvent table and
 * name string, about 60 bytes an event.  Limits: EVENTS_PER_RUN >= 1,
 * RUNS >= 1 and a file below 2 GiB (about 35 million events).
 *
 * With --distinct, run r's instruction ids are r * EVENTS_PER_RUN + 0 ..
 * r * EVENTS_PER_RUN + EVENTS_PER_RUN - 1: no two runs have the same
 * events, so every run is an event block of its own (the memory a block
 * costs: 100,000 one-event runs make 100,000 blocks).
 *
 * Exit status 0; 1 when OUT cannot be written; 2 usage or a dump that
 * would exceed 2 GiB (with a message saying which).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[12] = {
    "aten::add",     "aten::conv2d",     "aten::relu", "aten::mean",
    "aten::mm",      "aten::addmm",      "aten::cat",  "aten::max_pool2d",
    "aten::permute", "aten::mul",        "aten::view", "aten::sigmoid"};

/* The part being written, in memory; positions are file offsets (the
 * reader checks alignment on them: the buffer starts after the 4-byte
 * size prefix). */
typedef struct out {
    uint8_t *p;
    size_t n, cap;
    uint64_t base; /* file offset of p[0] */
} out;

static void need(out *o, size_t k)
{
    if (o->n + k <= o->cap)
        return;
    size_t cap = o->cap ? o->cap : 1 << 16;
    while (cap < o->n + k)
        cap *= 2;
    uint8_t *p = realloc(o->p, cap);
    if (!p) {
        fprintf(stderr, "gen_etdump: out of memory\n");
        exit(1);
    }
    o->p = p;
    o->cap = cap;
}

static uint64_t here(const out *o) { return o->base + o->n; }

static void pad_to(out *o, unsigned a)
{
    while (here(o) % a) {
        need(o, 1);
        o->p[o->n++] = 0;
    }
}

static void put(out *o, const void *v, size_t k)
{
    need(o, k);
    memcpy(o->p + o->n, v, k);
    o->n += k;
}

static void u16(out *o, uint16_t v) { put(o, &v, 2); }
static void u32(out *o, uint32_t v) { put(o, &v, 4); }
static void u64(out *o, uint64_t v) { put(o, &v, 8); }

/* Write at buffer position `at` (inside o) a uoffset to `target`. */
static void link_at(out *o, uint64_t at, uint64_t target)
{
    uint32_t v = (uint32_t)(target - at);
    memcpy(o->p + (at - o->base), &v, 4);
}

/* A string (4-aligned length, bytes, NUL); returns its position. */
static uint64_t string(out *o, const char *s)
{
    pad_to(o, 4);
    uint64_t at = here(o);
    uint32_t n = (uint32_t)strlen(s);
    u32(o, n);
    put(o, s, n + 1);
    return at;
}

static uint64_t rng;

static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

int main(int argc, char **argv)
{
    bool distinct = argc > 1 && strcmp(argv[1], "--distinct") == 0;
    if (distinct) {
        argv++;
        argc--;
    }
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: gen_etdump [--distinct] OUT EVENTS_PER_RUN RUNS [SEED]\n");
        return 2;
    }
    char *end;
    unsigned long long E = strtoull(argv[2], &end, 10);
    if (*end || E < 1 || E > 100000000) {
        fprintf(stderr, "gen_etdump: EVENTS_PER_RUN: expected 1 to 100000000, found '%s'\n",
                argv[2]);
        return 2;
    }
    unsigned long long R = strtoull(argv[3], &end, 10);
    if (*end || R < 1 || R > 100000000) {
        fprintf(stderr, "gen_etdump: RUNS: expected 1 to 100000000, found '%s'\n", argv[3]);
        return 2;
    }
    rng = argc == 5 ? strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15u + 1 : 88172645463325252u;
    if (distinct && E * R > INT32_MAX) {
        fprintf(stderr, "gen_etdump: --distinct: %llu events would need instruction ids above "
                "2^31 - 1\n", E * R);
        return 2;
    }
    if (E * R * 64 + R * 64 > INT32_MAX) {
        fprintf(stderr, "gen_etdump: %llu events would make a dump above 2 GiB\n", E * R);
        return 2;
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    /* header, vtables, root table and the run_data vector (filled last) */
    out o = {.base = 4};
    u32(&o, 0);            /* root uoffset, set below */
    put(&o, "ED00", 4);    /* file identifier */
    uint64_t vt_root = here(&o); /* ETDump: version absent, run_data at 4 */
    u16(&o, 8), u16(&o, 8), u16(&o, 0), u16(&o, 4);
    uint64_t vt_run = here(&o); /* RunData: name 4, events 8 */
    u16(&o, 12), u16(&o, 12), u16(&o, 4), u16(&o, 0), u16(&o, 0), u16(&o, 8);
    uint64_t vt_event = here(&o); /* Event: profile_event 4 */
    u16(&o, 6), u16(&o, 8), u16(&o, 4);
    pad_to(&o, 2);
    /* ProfileEvent: name 4, instruction_id 24, start_time 8, end_time 16 */
    uint64_t vt_pe = here(&o);
    u16(&o, 20), u16(&o, 28);
    u16(&o, 4), u16(&o, 0), u16(&o, 24), u16(&o, 0), u16(&o, 0), u16(&o, 0), u16(&o, 8),
        u16(&o, 16);
    pad_to(&o, 4);
    uint64_t root = here(&o);
    link_at(&o, 4, root);
    u32(&o, (uint32_t)(root - vt_root));
    u32(&o, 4); /* run_data: the vector follows */
    uint64_t runs_vec = here(&o);
    u32(&o, (uint32_t)R);
    uint64_t runs_at = here(&o);
    need(&o, R * 4);
    memset(o.p + o.n, 0, R * 4);
    o.n += R * 4;
    /* the prefix (size, written last), then the header part of the buffer */
    uint32_t zero = 0;
    if (fwrite(&zero, 4, 1, f) != 1 || fwrite(o.p, 1, o.n, f) != o.n) {
        perror(argv[1]);
        return 1;
    }
    uint32_t *run_pos = malloc(R * sizeof *run_pos);
    if (!run_pos) {
        fprintf(stderr, "gen_etdump: out of memory\n");
        return 1;
    }
    o.base += o.n;
    o.n = 0;
    uint64_t tick = 1000;
    for (unsigned long long r = 0; r < R; r++) {
        /* RunData, its name, its events vector */
        pad_to(&o, 4);
        uint64_t rd = here(&o);
        run_pos[r] = (uint32_t)rd;
        u32(&o, (uint32_t)(rd - vt_run));
        u32(&o, 0), u32(&o, 0); /* name, events: linked below */
        uint64_t nm = string(&o, "Execute");
        link_at(&o, rd + 4, nm);
        pad_to(&o, 4);
        uint64_t ev_vec = here(&o);
        link_at(&o, rd + 8, ev_vec);
        u32(&o, (uint32_t)E);
        need(&o, E * 4);
        uint64_t ev_at = here(&o);
        memset(o.p + o.n, 0, E * 4);
        o.n += E * 4;
        for (unsigned long long k = 0; k < E; k++) {
            pad_to(&o, 8);
            uint64_t ev = here(&o); /* Event, then its ProfileEvent (8-aligned) */
            link_at(&o, ev_at + 4 * k, ev);
            u32(&o, (uint32_t)(ev - vt_event));
            u32(&o, 4);
            uint64_t pe = here(&o);
            uint64_t start = tick, dur = 300 + next_rand() % 400;
            tick += dur + 50;
            u32(&o, (uint32_t)(pe - vt_pe));
            u32(&o, 0); /* name: linked below */
            u64(&o, start);
            u64(&o, start + dur);
            u32(&o, (uint32_t)(distinct ? r * E + k : k));
            uint64_t s = string(&o, names[k % 12]);
            link_at(&o, pe + 4, s);
        }
        tick += 100000;
        if (o.n >= (1u << 20) || r + 1 == R) {
            if (fwrite(o.p, 1, o.n, f) != o.n) {
                perror(argv[1]);
                return 1;
            }
            o.base += o.n;
            o.n = 0;
        }
    }
    uint64_t size = o.base - 4;
    if (size > INT32_MAX) {
        fprintf(stderr, "gen_etdump: the dump would be %" PRIu64 " bytes, above 2 GiB\n", size);
        remove(argv[1]);
        return 2;
    }
    /* the run_data vector and the size prefix */
    for (unsigned long long r = 0; r < R; r++)
        run_pos[r] = (uint32_t)(run_pos[r] - (runs_at + 4 * r));
    uint32_t sz = (uint32_t)size;
    if (fseek(f, (long)runs_at, SEEK_SET) != 0 ||
        fwrite(run_pos, 4, R, f) != R || fseek(f, 0, SEEK_SET) != 0 ||
        fwrite(&sz, 4, 1, f) != 1 || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    (void)runs_vec;
    free(run_pos);
    free(o.p);
    return 0;
}
