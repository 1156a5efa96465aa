/*
 * legacy.c - reading and post-processing legacy profiler dumps (spec §9).
 * See legacy.h for the format and the semantics.
 */
#include "format/legacy.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pyfmt.h"
#include "base/shown.h"

/* One block of the file, as found by the first pass. */
typedef struct raw_block {
    uint64_t offset;
    const uint8_t *name;   /* 32 bytes */
    uint32_t max_prof, prof, max_alloc, alloc, max_mem, mem;
    uint64_t ev_off, al_off, mem_off; /* absolute offsets of the regions */
    size_t group;
} raw_block;

typedef struct reader {
    const uint8_t *data;
    size_t size;
    const char *label;
    bool be;
    et_error *err;
    et_legacy *lg;
    raw_block *raw;
    size_t n_raw;
} reader;

static uint32_t ld32(const reader *r, uint64_t off)
{
    const uint8_t *p = r->data + off;
    if (r->be)
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t ld64(const reader *r, uint64_t off)
{
    uint64_t a = ld32(r, off), b = ld32(r, off + 4);
    return r->be ? (a << 32 | b) : (b << 32 | a);
}

static int nomem(reader *r)
{
    return et_fail(r->err, ET_ERR_NOMEM, "out of memory");
}

/* A name field for messages: NULs removed, quoted by the caller. */
static void name_text(const uint8_t *field, char out[ET_PROF_NAME_MAX_LEN + 1])
{
    size_t n = 0;
    for (size_t i = 0; i < ET_PROF_NAME_MAX_LEN; i++)
        if (field[i])
            out[n++] = (char)field[i];
    out[n] = 0;
}

/* A name field as a message shows it: without its NUL bytes, control
 * characters escaped (base/shown.h), NUL-terminated. */
#define SHOWN_NAME_SIZE (4 * ET_PROF_NAME_MAX_LEN + 1)
static void name_shown(const uint8_t *field, char out[SHOWN_NAME_SIZE])
{
    char nm[ET_PROF_NAME_MAX_LEN + 1];
    name_text(field, nm);
    et_shown_copy(out, SHOWN_NAME_SIZE, nm, strlen(nm));
}

/* A block's name as an error message shows it, in `buf` (control
 * characters escaped); returns buf. */
static const char *shown_name(const char *name, char *buf)
{
    et_shown_copy(buf, SHOWN_NAME_SIZE, name, strlen(name));
    return buf;
}

/* A name field without its NUL bytes (the reference removes every NUL,
 * not only the padding), copied and NUL-terminated; *len gets its length. */
static char *strip_name(const uint8_t *field, size_t *len)
{
    char *s = malloc(ET_PROF_NAME_MAX_LEN + 1);
    if (s) {
        name_text(field, s);
        *len = strlen(s);
    }
    return s;
}

/* Whether two name fields are equal once their NULs are removed. */
static bool names_equal(const uint8_t *a, const uint8_t *b)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < ET_PROF_NAME_MAX_LEN && !a[i])
            i++;
        while (j < ET_PROF_NAME_MAX_LEN && !b[j])
            j++;
        if (i == ET_PROF_NAME_MAX_LEN || j == ET_PROF_NAME_MAX_LEN)
            return i == ET_PROF_NAME_MAX_LEN && j == ET_PROF_NAME_MAX_LEN;
        if (a[i++] != b[j++])
            return false;
    }
}

/* Append a warning (printf format) to lg->warnings, clipped to 511 bytes
 * as a legacy dump's warnings always were.  Returns 0, or -1 out of
 * memory. */
static int add_warning(et_legacy *lg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int add_warning(et_legacy *lg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = et_warnings_vaddn(&lg->warnings, 511, fmt, ap);
    va_end(ap);
    return rc;
}

/* ----------------------------------------------------------- first pass */

/* Walk the blocks, checking each header and that its regions fit. */
static int scan_blocks(reader *r)
{
    size_t cap = 0;
    uint64_t off = 0;
    if (r->size >= 40) {
        /* prof_ver is the uint32 after the 32-byte name */
        const uint8_t *v = r->data + 32;
        uint32_t le = (uint32_t)v[3] << 24 | (uint32_t)v[2] << 16 | (uint32_t)v[1] << 8 | v[0];
        uint32_t be = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
        r->be = le != ET_PROF_VER && be == ET_PROF_VER;
    }
    while (off < r->size) {
        size_t idx = r->n_raw;
        uint64_t left = r->size - off;
        if (left < ET_PROF_HEADER_SIZE)
            return et_fail(r->err, ET_ERR_FORMAT,
                           "%s: block %zu at offset %" PRIu64 ": truncated header: %" PRIu64
                           " bytes left, prof_header_t needs %u",
                           r->label, idx, off, left, ET_PROF_HEADER_SIZE);
        raw_block b;
        memset(&b, 0, sizeof b);
        b.offset = off;
        b.name = r->data + off;
        uint32_t ver = ld32(r, off + 32);
        if (ver != ET_PROF_VER) {
            char nm[SHOWN_NAME_SIZE];
            name_shown(b.name, nm);
            return et_fail(r->err, ET_ERR_FORMAT,
                           "%s: block %zu '%s' at offset %" PRIu64 ": prof_ver (offset %" PRIu64
                           ") is %" PRIu32 ", expected %u: not a profiling block, or a version "
                           "this tool does not read (mismatch in version between profile dump "
                           "and post-processing tool)",
                           r->label, idx, nm, off, off + 32, ver, ET_PROF_VER);
        }
        b.max_prof = ld32(r, off + 36);
        b.prof = ld32(r, off + 40);
        b.max_alloc = ld32(r, off + 44);
        b.alloc = ld32(r, off + 48);
        b.max_mem = ld32(r, off + 52);
        b.mem = ld32(r, off + 56);
        static const char *const what[3][2] = {{"prof_entries", "max_prof_entries"},
                                              {"allocator_entries", "max_allocator_entries"},
                                              {"mem_prof_entries", "max_mem_prof_entries"}};
        const uint32_t used[3] = {b.prof, b.alloc, b.mem}, max[3] = {b.max_prof, b.max_alloc,
                                                                     b.max_mem};
        for (int k = 0; k < 3; k++)
            if (used[k] > max[k])
                return et_fail(r->err, ET_ERR_FORMAT,
                               "%s: block %zu at offset %" PRIu64 ": %s (offset %" PRIu64
                               ") is %" PRIu32 ", above %s (%" PRIu32 ")",
                               r->label, idx, off, what[k][0], off + 40 + 8u * (unsigned)k,
                               used[k], what[k][1], max[k]);
        b.ev_off = off + ET_PROF_HEADER_SIZE;
        b.al_off = b.ev_off + (uint64_t)b.max_prof * ET_PROF_EVENT_SIZE;
        b.mem_off = b.al_off + (uint64_t)b.max_alloc * ET_PROF_ALLOCATOR_SIZE;
        uint64_t end = b.mem_off + (uint64_t)b.max_mem * ET_PROF_ALLOCATION_SIZE;
        /* the entries in use end within the last region that has one (each
         * region starts after the previous one's slots) */
        uint64_t used_end = b.ev_off + (uint64_t)b.prof * ET_PROF_EVENT_SIZE;
        if (b.alloc)
            used_end = b.al_off + (uint64_t)b.alloc * ET_PROF_ALLOCATOR_SIZE;
        if (b.mem)
            used_end = b.mem_off + (uint64_t)b.mem * ET_PROF_ALLOCATION_SIZE;
        if (used_end > r->size)
            return et_fail(r->err, ET_ERR_FORMAT,
                           "%s: block %zu at offset %" PRIu64 ": truncated: its entries in use "
                           "(%" PRIu32 " profiling, %" PRIu32 " allocator, %" PRIu32
                           " memory) end at offset %" PRIu64 ", the file at %zu",
                           r->label, idx, off, b.prof, b.alloc, b.mem, used_end, r->size);
        if (end > r->size) {
            /* the legacy parser reads only the entries in use, so a dump
             * cut after them is read; the block is then the last */
            char nm[SHOWN_NAME_SIZE];
            name_shown(b.name, nm);
            if (add_warning(r->lg,
                            "%s: block %zu '%s' at offset %" PRIu64 " is cut short: its %" PRIu32
                            " profiling, %" PRIu32 " allocator and %" PRIu32 " memory slots end "
                            "at offset %" PRIu64 ", the file at %zu; its entries in use end at "
                            "offset %" PRIu64 " and are read, as the legacy parser reads them",
                            r->label, idx, nm, off, b.max_prof, b.max_alloc, b.max_mem, end,
                            r->size, used_end) != 0)
                return nomem(r);
        }
        if (r->n_raw == cap) {
            size_t nc = cap ? cap * 2 : 16;
            raw_block *nr = realloc(r->raw, nc * sizeof *nr);
            if (!nr)
                return nomem(r);
            r->raw = nr;
            cap = nc;
        }
        r->raw[r->n_raw++] = b;
        off = end;
    }
    r->lg->n_raw_blocks = r->n_raw;
    return 0;
}

/* ------------------------------------------------------------ allocators */

/* An id and where it was found, to sort by (id, ord): the allocator table
 * entries (ord: file order, pos: offset) and a block's allocations (ord:
 * position). */
typedef struct id_ent {
    uint64_t id;
    size_t ord;
    uint64_t pos;
} id_ent;

static int cmp_id_ent(const void *a, const void *b)
{
    const id_ent *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* The global allocator table: every block's entries, a later entry with
 * the same id replacing an earlier one; sorted by id for lookups. */
static int read_allocators(reader *r)
{
    et_legacy *lg = r->lg;
    size_t n = 0;
    for (size_t i = 0; i < r->n_raw; i++)
        n += r->raw[i].alloc;
    if (!n)
        return 0;
    id_ent *e = calloc(n, sizeof *e);
    lg->allocators = calloc(n, sizeof *lg->allocators);
    if (!e || !lg->allocators) {
        free(e);
        return nomem(r);
    }
    size_t k = 0;
    for (size_t i = 0; i < r->n_raw; i++) {
        const raw_block *b = &r->raw[i];
        for (uint32_t j = 0; j < b->alloc; j++, k++) {
            e[k].pos = b->al_off + (uint64_t)j * ET_PROF_ALLOCATOR_SIZE;
            e[k].id = ld64(r, e[k].pos + 32);
            e[k].ord = k;
        }
    }
    qsort(e, n, sizeof *e, cmp_id_ent);
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && e[i + 1].id == e[i].id)
            continue; /* a later definition follows */
        et_legacy_allocator *a = &lg->allocators[lg->n_allocators];
        size_t len;
        a->allocator_id = e[i].id;
        if (!(a->name = strip_name(r->data + e[i].pos, &len))) {
            free(e);
            return nomem(r);
        }
        lg->n_allocators++;
    }
    free(e);
    return 0;
}

static const char *allocator_name(const et_legacy *lg, uint64_t id)
{
    size_t lo = 0, hi = lg->n_allocators;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lg->allocators[mid].allocator_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < lg->n_allocators && lg->allocators[lo].allocator_id == id
               ? lg->allocators[lo].name
               : NULL;
}

/* ------------------------------------------------------------- grouping */

static uint64_t name_hash(const uint8_t *field)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < ET_PROF_NAME_MAX_LEN; i++)
        if (field[i])
            h = (h ^ field[i]) * 1099511628211u;
    return h;
}

/* Group the blocks by name, in first-appearance order (each raw block's
 * `group`); returns the number of groups, or -1 when out of memory. */
static long group_blocks(reader *r)
{
    size_t cap = 16;
    while (cap < 2 * r->n_raw)
        cap *= 2;
    size_t *slot = calloc(cap, sizeof *slot); /* raw index + 1 of a group's first block */
    if (!slot)
        return -1;
    size_t n_groups = 0;
    for (size_t i = 0; i < r->n_raw; i++) {
        size_t k = (size_t)name_hash(r->raw[i].name) & (cap - 1);
        for (;;) {
            if (!slot[k]) {
                slot[k] = i + 1;
                r->raw[i].group = n_groups++;
                break;
            }
            const raw_block *g = &r->raw[slot[k] - 1];
            if (names_equal(g->name, r->raw[i].name)) {
                r->raw[i].group = g->group;
                break;
            }
            k = (k + 1) & (cap - 1);
        }
    }
    free(slot);
    return (long)n_groups;
}

/* ---------------------------------------------------------- conversions */

/* Python's round(x, 4) (see et_py_round). */
static double pyround4(double x)
{
    return et_py_round(x, 4);
}

/* Python's int / int true division of exact operands: one rounding for
 * magnitudes up to 2^53 (above, a long double step comes first). */
static double div_u64(uint64_t v, double div)
{
    if (v <= (UINT64_C(1) << 53))
        return (double)v / div;
    return (double)((long double)v / div);
}

static double div_i64(int64_t v, double div)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (mag <= (UINT64_C(1) << 53))
        return (double)v / div;
    return (double)((long double)v / div);
}

/* end - start as a Python int would hold it, when it fits in int64. */
static bool tick_diff(uint64_t start, uint64_t end, int64_t *out)
{
    if (end >= start) {
        uint64_t d = end - start;
        if (d > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)d;
        return true;
    }
    uint64_t d = start - end;
    if (d > (uint64_t)INT64_MAX + 1)
        return false;
    *out = d == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)d;
    return true;
}

static bool add_i64(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return false;
    *out = a + b;
    return true;
}

static bool sub_i64(int64_t a, int64_t b, int64_t *out)
{
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
        return false;
    *out = a - b;
    return true;
}

/* ------------------------------------------------------------ one block */

static double divisor_of(et_time_scale ts)
{
    switch (ts) {
    case ET_TS_NS: return 1000000.0;
    case ET_TS_US: return 1000.0;
    default: return 1.0; /* ms and cycles */
    }
}

/* Check that iteration `it` agrees with iteration `it - 1` (spec §9.3, the
 * reference's sanity_check_prof_outputs). */
static int check_iteration(reader *r, const raw_block *a, const raw_block *b, size_t it)
{
    char nm[SHOWN_NAME_SIZE];
    name_shown(b->name, nm);
    if (a->prof != b->prof)
        return et_fail(r->err, ET_ERR_FORMAT,
                       "%s: block '%s' at offset %" PRIu64 " (iteration %zu) has %" PRIu32
                       " profiling entries, iteration %zu at offset %" PRIu64 " has %" PRIu32
                       ": blocks of the same name must have the same entries",
                       r->label, nm, b->offset, it, b->prof, it - 1, a->offset, a->prof);
    for (uint32_t j = 0; j < a->prof; j++) {
        const uint8_t *na = r->data + a->ev_off + (uint64_t)j * ET_PROF_EVENT_SIZE;
        const uint8_t *nb = r->data + b->ev_off + (uint64_t)j * ET_PROF_EVENT_SIZE;
        if (!names_equal(na, nb)) {
            char x[SHOWN_NAME_SIZE], y[SHOWN_NAME_SIZE];
            name_shown(na, x);
            name_shown(nb, y);
            return et_fail(r->err, ET_ERR_FORMAT,
                           "%s: block '%s' at offset %" PRIu64 " (iteration %zu): entry %" PRIu32
                           " (offset %" PRIu64 ") is '%s', '%s' in iteration %zu: corresponding "
                           "entries in different iterations must match",
                           r->label, nm, b->offset, it, j, (uint64_t)(nb - r->data), y, x, it - 1);
        }
    }
    if (a->mem != b->mem)
        return et_fail(r->err, ET_ERR_FORMAT,
                       "%s: block '%s' at offset %" PRIu64 " (iteration %zu) has %" PRIu32
                       " memory allocation entries, iteration %zu has %" PRIu32
                       ": blocks of the same name must have the same allocations",
                       r->label, nm, b->offset, it, b->mem, it - 1, a->mem);
    for (uint32_t j = 0; j < a->mem; j++) {
        uint64_t pa = a->mem_off + (uint64_t)j * ET_PROF_ALLOCATION_SIZE;
        uint64_t pb = b->mem_off + (uint64_t)j * ET_PROF_ALLOCATION_SIZE;
        uint32_t ida = ld32(r, pa), idb = ld32(r, pb);
        uint32_t sa = ld32(r, pa + 4), sb = ld32(r, pb + 4);
        if (ida != idb)
            return et_fail(r->err, ET_ERR_FORMAT,
                           "%s: block '%s' at offset %" PRIu64 " (iteration %zu): allocation %" PRIu32
                           " (offset %" PRIu64 ") has allocator id %" PRIu32 ", %" PRIu32
                           " in iteration %zu: corresponding allocations must have the same "
                           "allocator id",
                           r->label, nm, b->offset, it, j, pb, idb, ida, it - 1);
        if (sa != sb)
            return et_fail(r->err, ET_ERR_FORMAT,
                           "%s: block '%s' at offset %" PRIu64 " (iteration %zu): allocation %" PRIu32
                           " (offset %" PRIu64 ") has size %" PRIu32 ", %" PRIu32
                           " in iteration %zu: corresponding allocations must have the same size",
                           r->label, nm, b->offset, it, j, pb + 4, sb, sa, it - 1);
    }
    return 0;
}

/* An allocation's allocator id and position (both 32-bit in the format),
 * to sort by (id, position): 8 bytes per allocation. */
typedef struct alloc_ent {
    uint32_t id;
    uint32_t ord;
} alloc_ent;

static int cmp_alloc_ent(const void *a, const void *b)
{
    const alloc_ent *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* A distinct allocator id: the position of its first allocation and its
 * run (index in id order). */
typedef struct run_lead {
    size_t first, run;
} run_lead;

static int cmp_run_lead(const void *a, const void *b)
{
    const run_lead *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The block's memory: allocations of the first iteration summed per
 * allocator, in first-seen order.  Memory: the allocations (16 bytes
 * each, kept) and 8 bytes each while sorting, plus a few words per
 * distinct allocator id: about 3x the allocations' 8 bytes in the file. */
static int memory_of(reader *r, et_legacy_block *blk, const raw_block *first)
{
    size_t n = first->mem;
    blk->n_allocations = n;
    if (!n)
        return 0;
    blk->allocations = calloc(n, sizeof *blk->allocations);
    alloc_ent *e = calloc(n, sizeof *e);
    run_lead *leads = NULL;
    size_t *rank = NULL;
    size_t unnamed = 0; /* allocator ids no allocator table names */
    uint64_t first_unnamed = 0;
    int rc = 0;
    if (!blk->allocations || !e) {
        rc = nomem(r);
        goto out;
    }
    for (size_t j = 0; j < n; j++) {
        uint64_t p = first->mem_off + (uint64_t)j * ET_PROF_ALLOCATION_SIZE;
        blk->allocations[j].allocator_id = ld32(r, p);
        blk->allocations[j].allocation_size = ld32(r, p + 4);
        e[j].id = blk->allocations[j].allocator_id;
        e[j].ord = (uint32_t)j; /* n <= UINT32_MAX: a 32-bit count */
    }
    /* sorted by (id, position): each id's run starts at its first
     * allocation; an allocation's mem is first its run */
    qsort(e, n, sizeof *e, cmp_alloc_ent);
    size_t runs = 0;
    for (size_t j = 0; j < n; j++) {
        if (j == 0 || e[j].id != e[j - 1].id)
            runs++;
        blk->allocations[e[j].ord].mem = runs - 1;
    }
    leads = calloc(runs, sizeof *leads);
    rank = calloc(runs, sizeof *rank);
    blk->mem = calloc(runs, sizeof *blk->mem);
    if (!leads || !rank || !blk->mem) {
        rc = nomem(r);
        goto out;
    }
    for (size_t j = 0, k = 0; j < n; j++)
        if (j == 0 || e[j].id != e[j - 1].id) {
            leads[k].first = e[j].ord;
            leads[k].run = k;
            k++;
        }
    free(e);
    e = NULL;
    /* the allocators in first-seen order */
    qsort(leads, runs, sizeof *leads, cmp_run_lead);
    for (size_t k = 0; k < runs; k++) {
        et_legacy_mem *m = &blk->mem[k];
        rank[leads[k].run] = k;
        m->allocator_id = blk->allocations[leads[k].first].allocator_id;
        m->allocator_name = allocator_name(r->lg, m->allocator_id);
        if (!m->allocator_name && unnamed++ == 0)
            first_unnamed = m->allocator_id;
    }
    blk->n_mem = runs;
    for (size_t j = 0; j < n; j++) {
        et_legacy_allocation *a = &blk->allocations[j];
        a->mem = rank[a->mem];
        blk->mem[a->mem].total += a->allocation_size;
    }
    /* one warning per block, however many ids are unnamed */
    if (unnamed == 1)
        rc = add_warning(r->lg, "%s: block '%s': allocations with allocator id %" PRIu64
                                " which no allocator table names",
                         r->label, blk->name, first_unnamed);
    else if (unnamed > 1)
        rc = add_warning(r->lg, "%s: block '%s': allocations with allocator id %" PRIu64
                                " and %zu other ids which no allocator table names",
                         r->label, blk->name, first_unnamed, unnamed - 1);
    if (rc != 0)
        rc = nomem(r);
out:
    free(e);
    free(leads);
    free(rank);
    return rc;
}

/* Framework tax (spec §9.3): the execution time is the lexicographically
 * largest duration list of the events whose name contains Method::execute;
 * kernels and delegates are the per-iteration sums over native_call and
 * delegate_execute events. */
static int framework_tax(reader *r, et_legacy_block *blk)
{
    const et_legacy *lg = r->lg;
    size_t n = blk->n_iterations;
    const et_legacy_event *exec = NULL;
    bool any_kernel = false;
    for (size_t e = 0; e < blk->n_events; e++) {
        const et_legacy_event *ev = &blk->events[e];
        if (strstr(ev->name, "Method::execute")) {
            bool larger = exec == NULL;
            for (size_t i = 0; !larger && i < n; i++) {
                if (lg->integral ? ev->duration_int[i] != exec->duration_int[i]
                                 : ev->duration[i] != exec->duration[i]) {
                    larger = lg->integral ? ev->duration_int[i] > exec->duration_int[i]
                                          : ev->duration[i] > exec->duration[i];
                    break;
                }
            }
            if (larger)
                exec = ev;
        }
        if (strstr(ev->name, "native_call") || strstr(ev->name, "delegate_execute"))
            any_kernel = true;
    }
    if (!exec || !any_kernel)
        return 0;
    blk->exec_time = calloc(n, sizeof *blk->exec_time);
    blk->kernel_time = calloc(n, sizeof *blk->kernel_time);
    blk->tax_percent = calloc(n, sizeof *blk->tax_percent);
    if (lg->integral) {
        blk->exec_time_int = calloc(n, sizeof *blk->exec_time_int);
        blk->kernel_time_int = calloc(n, sizeof *blk->kernel_time_int);
    }
    if (!blk->exec_time || !blk->kernel_time || !blk->tax_percent ||
        (lg->integral && (!blk->exec_time_int || !blk->kernel_time_int)))
        return nomem(r);
    blk->has_tax = true;
    for (size_t e = 0; e < blk->n_events; e++) {
        const et_legacy_event *ev = &blk->events[e];
        if (!strstr(ev->name, "native_call") && !strstr(ev->name, "delegate_execute"))
            continue;
        for (size_t i = 0; i < n; i++) {
            if (lg->integral) {
                if (!add_i64(blk->kernel_time_int[i], ev->duration_int[i], &blk->kernel_time_int[i]))
                    return et_fail(r->err, ET_ERR_FORMAT,
                                   "%s: block '%s' at offset %" PRIu64 ": the kernel and delegate "
                                   "time of iteration %zu does not fit in 64 bits",
                                   r->label, shown_name(blk->name, (char[SHOWN_NAME_SIZE]){0}), blk->offset[i], i);
            } else {
                blk->kernel_time[i] += ev->duration[i];
            }
        }
    }
    bool warned = false;
    for (size_t i = 0; i < n; i++) {
        double x, k;
        if (lg->integral) {
            int64_t diff;
            blk->exec_time_int[i] = exec->duration_int[i];
            blk->exec_time[i] = (double)exec->duration_int[i];
            blk->kernel_time[i] = (double)blk->kernel_time_int[i];
            if (exec->duration_int[i] == 0) {
                blk->tax_percent[i] = NAN;
            } else if (!sub_i64(exec->duration_int[i], blk->kernel_time_int[i], &diff)) {
                return et_fail(r->err, ET_ERR_FORMAT,
                               "%s: block '%s' at offset %" PRIu64 ": execution minus kernel "
                               "time of iteration %zu does not fit in 64 bits",
                               r->label, shown_name(blk->name, (char[SHOWN_NAME_SIZE]){0}), blk->offset[i], i);
            } else {
                blk->tax_percent[i] =
                    pyround4(div_i64(diff, 1.0) / div_i64(exec->duration_int[i], 1.0)) * 100;
            }
        } else {
            x = blk->exec_time[i] = exec->duration[i];
            k = blk->kernel_time[i];
            blk->tax_percent[i] = x == 0 ? NAN : pyround4((x - k) / x) * 100;
        }
        if (isnan(blk->tax_percent[i]) && !warned) {
            warned = true;
            if (add_warning(r->lg, "%s: block '%s': Method::execute took 0 in iteration %zu: "
                                   "its framework tax is undefined (NaN)",
                            r->label, blk->name, i) != 0)
                return nomem(r);
        }
    }
    return 0;
}

/* Build block `g` from its iterations `its` (raw block indices, n of them). */
static int build_block(reader *r, et_legacy_block *blk, const size_t *its, size_t n)
{
    et_legacy *lg = r->lg;
    const raw_block *first = &r->raw[its[0]];
    double div = divisor_of(lg->time_scale);
    if (!(blk->name = strip_name(first->name, &blk->name_len)))
        return nomem(r);
    blk->n_iterations = n;
    blk->offset = calloc(n, sizeof *blk->offset);
    blk->raw_index = calloc(n, sizeof *blk->raw_index);
    if (!blk->offset || !blk->raw_index)
        return nomem(r);
    for (size_t i = 0; i < n; i++) {
        blk->offset[i] = r->raw[its[i]].offset;
        blk->raw_index[i] = (uint32_t)its[i];
        if (i && check_iteration(r, &r->raw[its[i - 1]], &r->raw[its[i]], i) != 0)
            return -1;
    }
    blk->n_events = first->prof;
    if (blk->n_events && !(blk->events = calloc(blk->n_events, sizeof *blk->events)))
        return nomem(r);
    for (size_t e = 0; e < blk->n_events; e++) {
        et_legacy_event *ev = &blk->events[e];
        uint64_t p0 = first->ev_off + (uint64_t)e * ET_PROF_EVENT_SIZE;
        if (!(ev->name = strip_name(r->data + p0, &ev->name_len)))
            return nomem(r);
        ev->chain_idx = (int32_t)ld32(r, p0 + 32);
        ev->instruction_idx = ld32(r, p0 + 36);
        ev->start_ticks = calloc(n, sizeof *ev->start_ticks);
        ev->end_ticks = calloc(n, sizeof *ev->end_ticks);
        ev->ts = calloc(n, sizeof *ev->ts);
        ev->duration = calloc(n, sizeof *ev->duration);
        if (lg->integral)
            ev->duration_int = calloc(n, sizeof *ev->duration_int);
        if (!ev->start_ticks || !ev->end_ticks || !ev->ts || !ev->duration ||
            (lg->integral && !ev->duration_int))
            return nomem(r);
        for (size_t i = 0; i < n; i++) {
            const raw_block *b = &r->raw[its[i]];
            uint64_t p = b->ev_off + (uint64_t)e * ET_PROF_EVENT_SIZE;
            uint64_t st = ev->start_ticks[i] = ld64(r, p + 40);
            uint64_t en = ev->end_ticks[i] = ld64(r, p + 48);
            int64_t d;
            if (!tick_diff(st, en, &d))
                return et_fail(r->err, ET_ERR_FORMAT,
                               "%s: block '%s' at offset %" PRIu64 ": entry %zu (offset %" PRIu64
                               "): end_time %" PRIu64 " - start_time %" PRIu64
                               " does not fit in 64 bits",
                               r->label, shown_name(blk->name, (char[SHOWN_NAME_SIZE]){0}), b->offset, e, p, en, st);
            if (lg->integral) {
                ev->duration_int[i] = d;
                ev->duration[i] = (double)d;
                ev->ts[i] = (double)st;
            } else {
                ev->duration[i] = pyround4(div_i64(d, div));
                ev->ts[i] = pyround4(div_u64(st, div));
            }
        }
    }
    if (memory_of(r, blk, first) != 0)
        return -1;
    return framework_tax(r, blk);
}

et_legacy *et_legacy_read(const uint8_t *data, size_t size, const char *label, et_time_scale ts,
                          et_error *err)
{
    if (ts == ET_TS_S) {
        et_fail(err, ET_ERR_USAGE, "the legacy profiler's time scales are ns, us, ms and cycles");
        return NULL;
    }
    reader r;
    memset(&r, 0, sizeof r);
    r.data = data;
    r.size = size;
    r.label = label;
    r.err = err;
    et_legacy *lg = r.lg = calloc(1, sizeof *lg);
    size_t *its = NULL, *count = NULL, *start = NULL;
    if (!lg) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    lg->time_scale = ts;
    lg->integral = divisor_of(ts) == 1.0;
    if (size == 0) {
        /* the legacy parser prints nothing for an empty file */
        if (add_warning(lg, "%s: empty file: no profiling blocks", label) != 0) {
            nomem(&r);
            goto fail;
        }
        return lg;
    }
    if (scan_blocks(&r) != 0 || read_allocators(&r) != 0)
        goto fail;
    lg->big_endian = r.be;
    long ng = group_blocks(&r);
    if (ng < 0) {
        nomem(&r);
        goto fail;
    }
    /* iterations of each group, in file order */
    its = malloc(r.n_raw * sizeof *its);
    count = calloc((size_t)ng, sizeof *count);
    start = calloc((size_t)ng, sizeof *start);
    lg->blocks = calloc((size_t)ng, sizeof *lg->blocks);
    if (!its || !count || !start || !lg->blocks) {
        nomem(&r);
        goto fail;
    }
    for (size_t i = 0; i < r.n_raw; i++)
        count[r.raw[i].group]++;
    for (long g = 1; g < ng; g++)
        start[g] = start[g - 1] + count[g - 1];
    memset(count, 0, (size_t)ng * sizeof *count);
    for (size_t i = 0; i < r.n_raw; i++) {
        size_t g = r.raw[i].group;
        its[start[g] + count[g]++] = i;
    }
    for (long g = 0; g < ng; g++) {
        lg->n_blocks = (size_t)g + 1;
        if (build_block(&r, &lg->blocks[g], its + start[g], count[g]) != 0)
            goto fail;
    }
    if (r.be && add_warning(lg, "%s: big-endian dump (prof_ver read in that byte order)", label) != 0) {
        nomem(&r);
        goto fail;
    }
    free(its);
    free(count);
    free(start);
    free(r.raw);
    return lg;
fail:
    free(its);
    free(count);
    free(start);
    free(r.raw);
    et_legacy_free(lg);
    return NULL;
}

void et_legacy_free(et_legacy *lg)
{
    if (!lg)
        return;
    /* a count may have been set before its array's allocation failed */
    for (size_t b = 0; lg->blocks && b < lg->n_blocks; b++) {
        et_legacy_block *blk = &lg->blocks[b];
        for (size_t e = 0; blk->events && e < blk->n_events; e++) {
            et_legacy_event *ev = &blk->events[e];
            free(ev->name);
            free(ev->start_ticks);
            free(ev->end_ticks);
            free(ev->ts);
            free(ev->duration);
            free(ev->duration_int);
        }
        free(blk->name);
        free(blk->offset);
        free(blk->raw_index);
        free(blk->events);
        free(blk->allocations);
        free(blk->mem);
        free(blk->exec_time);
        free(blk->kernel_time);
        free(blk->exec_time_int);
        free(blk->kernel_time_int);
        free(blk->tax_percent);
    }
    free(lg->blocks);
    for (size_t i = 0; lg->allocators && i < lg->n_allocators; i++)
        free(lg->allocators[i].name);
    free(lg->allocators);
    et_warnings_free(&lg->warnings);
    free(lg);
}
