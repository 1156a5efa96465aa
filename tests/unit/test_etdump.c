/*
 * test_etdump.c - every input is hostile: the ETDump reader (etdump.c, fb.c)
 * and the model built on it (builder.c, pass1.c) against truncated, patched and
 * hand-built malformed buffers (TAP output).
 *
 * Environment:
 *   ET_BUILD   the build directory; $ET_BUILD/fixtures/sample.etdp (built by
 *              flatc from tests/fixtures/sample.json) is the main base
 *              (default "build")
 *   ET_SHARED  the shared directory; $ET_SHARED/corpus/etdump holds the real
 *              corpus (default "../shared").  Tests that need it are skipped
 *              when it is absent.
 *
 * Every buffer handed to the reader is a heap block of exactly its length,
 * so that ASan reports a read one byte past the end.  Each case says what it
 * mutates; positions are found by walking the buffer with the fb.h
 * accessors, or come from the small front-to-back builder below (which
 * records where every table, vtable and field went).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/etdump.h"
#include "format/fb.h"
#include "files/mapfile.h"
#include "model/model.h"
#include "../tools/etwalk.h"
#include "tap.h"

/* ------------------------------------------------------------- helpers */

typedef tap_bytes bytes;


/* A heap copy of p[0..n) in a block of exactly n bytes (1 byte when n is 0,
 * so that the pointer is never NULL).  Exits on out of memory. */
static uint8_t *copy_exact(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    if (!q) {
        perror("malloc");
        exit(2);
    }
    if (n)
        memcpy(q, p, n);
    return q;
}

/* Store v little-endian at p[at..at+2).  (put32, put64: 4 and 8 bytes.) */
static void put16(uint8_t *p, uint32_t at, uint16_t v)
{
    p[at] = (uint8_t)v;
    p[at + 1] = (uint8_t)(v >> 8);
}
/* Store v little-endian at p[at..at+4). */
static void put32(uint8_t *p, uint32_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[at + i] = (uint8_t)(v >> (8 * i));
}
/* Store v little-endian at p[at..at+8). */
static void put64(uint8_t *p, uint32_t at, uint64_t v)
{
    put32(p, at, (uint32_t)v);
    put32(p, at + 4, (uint32_t)(v >> 32));
}

static volatile uint64_t sink; /* keeps walk() results alive */

/* Open p[0..n) and verify every run; on success also walk it.
 * d: receives the dump (closed again before returning); err: the error.
 * Returns 0 when accepted, 1 when et_etdump_open failed, 2 when
 * et_etdump_verify_all failed. */
static int open_verify(const uint8_t *p, size_t n, et_error *err)
{
    et_etdump d;
    int rc = 0;
    et_error_clear(err);
    if (et_etdump_open(&d, p, n, err) != 0)
        rc = 1;
    else if (et_etdump_verify_all(&d, err) != 0)
        rc = 2;
    else
        sink += walk(&d, NULL);
    et_etdump_close(&d);
    return rc;
}

/* Build the whole model from p[0..n) (ns -> ms) and free it.
 * err: the error.  Returns 0 when accepted, -1 when refused. */
static int open_model(const uint8_t *p, size_t n, et_error *err)
{
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_data = p;
    o.etdump_size = n;
    et_error_clear(err);
    et_inspector *insp = et_inspector_open(&o, err);
    if (!insp)
        return -1;
    et_inspector_free(insp);
    return 0;
}

/* The plain layout of the size-prefixed dump s[0..n) with every object at
 * the same file position: bytes 0..3 become the root offset (counted from
 * byte 0), 4..7 the identifier "ED00", 8..11 zero; the rest is unchanged.
 * Returns a heap block of exactly n (>= 12) bytes. */
static uint8_t *make_plain(const uint8_t *s, size_t n)
{
    uint8_t *p = copy_exact(s, n);
    put32(p, 0, 4u + fb_ld_u32(s + 4));
    memcpy(p + 4, "ED00", 4);
    memset(p + 8, 0, 4);
    return p;
}

enum { AT_OPEN = 1, AT_VERIFY = 2, AT_ANY = 3 };

/* One test: the buffer p[0..n) (a heap block, freed here) must be refused
 * by the reader in phase `at` (AT_OPEN: et_etdump_open; AT_VERIFY: open
 * succeeds and et_etdump_verify_all fails; AT_ANY: either) with a message
 * holding `want` and, when not NULL, `want2`; the model must refuse it too,
 * with the same message after "<etdump_data>: ".  what: the mutation.
 * Returns 1 when the test passed. */
static int rejects(uint8_t *p, size_t n, int at, const char *want, const char *want2,
                   const char *what)
{
    et_error err, merr;
    int rc = open_verify(p, n, &err);
    int mrc = open_model(p, n, &merr);
    char expect_m[1100];
    snprintf(expect_m, sizeof expect_m, "<etdump_data>: %s", err.msg);
    int pass = rc != 0 && (rc & at) && err.kind == ET_ERR_FORMAT && strstr(err.msg, want) &&
               (!want2 || strstr(err.msg, want2)) && mrc != 0 &&
               strcmp(merr.msg, expect_m) == 0;
    ok(pass, "%s", what);
    if (!pass) {
        diag("reader: %s (phase %d, kind %d): %s", rc ? "refused" : "accepted", rc,
             (int)err.kind, err.msg);
        diag("model:  %s: %s", mrc ? "refused" : "accepted", merr.msg);
        diag("wanted: \"%s\"%s%s%s", want, want2 ? " and \"" : "", want2 ? want2 : "",
             want2 ? "\"" : "");
    }
    free(p);
    return pass;
}

/* One test: p[0..n) (a heap block, freed here) must be accepted by the
 * reader (open, verify, walk) and the model.  what: the case.
 * Returns 1 when the test passed. */
static int accepts(uint8_t *p, size_t n, const char *what)
{
    et_error err, merr;
    int rc = open_verify(p, n, &err);
    int mrc = open_model(p, n, &merr);
    int pass = ok(rc == 0 && mrc == 0, "%s", what);
    if (!pass)
        diag("reader: %s / model: %s", rc ? err.msg : "accepted", mrc ? merr.msg : "accepted");
    free(p);
    return pass;
}

/* ------------------------------------------ truncation at every length */

/* Cut `data` (size bytes, a size-prefixed ETDump) at every length
 * 0..size-1, each cut in a heap block of exactly that length:
 *  - as is: the reader and the model must refuse every cut, with "empty
 *    file" (0), "too short" (1..7), "not an ETDump" (8..11, the identifier
 *    is cut off) or "truncated" (12 and more: the size prefix promises more);
 *  - with the size prefix rewritten to the cut length, and in the plain
 *    layout (make_plain): the verifier walks the cut buffer; it may only
 *    accept a cut that removed trailing zero padding, and the model must
 *    accept exactly the cuts the reader accepts.
 * label: names the file in test descriptions. */
static void truncation_sweep(const char *label, const uint8_t *data, size_t size)
{
    size_t accepted = 0, bad_empty = 0, bad_short = 0, bad_ident = 0, bad_trunc = 0;
    size_t model_accepted = 0, model_bad = 0;
    size_t deep_bad = 0, deep_model_differs = 0, deep_accepted = 0, deep_tested = 0;
    int shown = 0;
    for (size_t len = 0; len < size; len++) {
        uint8_t *p = copy_exact(data, len);
        et_error err, merr;
        int rc = open_verify(p, len, &err);
        int mrc = open_model(p, len, &merr);
        if (rc == 0)
            accepted++;
        const char *want = len == 0 ? "empty file" : len < 8 ? "too short" : len < 12
                                                       ? "not an ETDump"
                                                       : "truncated";
        size_t *bad = len == 0 ? &bad_empty : len < 8 ? &bad_short : len < 12 ? &bad_ident
                                                                               : &bad_trunc;
        if (rc != 0 && !strstr(err.msg, want)) {
            ++*bad;
            if (shown++ < 3)
                diag("%s cut at %zu: \"%s\" lacks \"%s\"", label, len, err.msg, want);
        }
        if (mrc == 0)
            model_accepted++;
        else if (strncmp(merr.msg, "<etdump_data>: ", 15) != 0 || !strstr(merr.msg, want))
            model_bad++;
        free(p);
    }
    ok(accepted == 0, "%s: every one of the %zu cuts (0..%zu bytes) is refused", label, size,
       size - 1);
    ok(bad_empty == 0, "%s: the 0-byte cut says \"empty file\"", label);
    ok(bad_short == 0, "%s: cuts of 1..7 bytes say \"too short\"", label);
    ok(bad_ident == 0, "%s: cuts of 8..11 bytes (identifier cut off) say \"not an ETDump\"",
       label);
    ok(bad_trunc == 0, "%s: cuts of 12..%zu bytes say \"truncated\"", label, size - 1);
    ok(model_accepted == 0 && model_bad == 0,
       "%s: et_inspector_open refuses every cut with the reader's message", label);
    if (model_accepted || model_bad)
        diag("model accepted %zu cuts, %zu messages differ", model_accepted, model_bad);

    /* deep: prefix rewritten (start 4) and plain layout (start 0) */
    for (int plain = 0; plain <= 1; plain++) {
        shown = 0;
        for (size_t len = 12; len < size; len++) {
            size_t n = len;
            uint8_t *p = plain ? make_plain(data, len) : copy_exact(data, len);
            if (!plain)
                put32(p, 0, (uint32_t)(len - 4));
            et_error err, merr;
            int rc = open_verify(p, n, &err);
            int mrc = open_model(p, n, &merr);
            deep_tested++;
            if (rc == 0) {
                deep_accepted++;
                for (size_t k = len; k < size; k++)
                    if (data[k] != 0) {
                        deep_bad++;
                        if (shown++ < 3)
                            diag("%s %s cut at %zu accepted but byte %zu is 0x%02x", label,
                                 plain ? "plain" : "re-prefixed", len, k, data[k]);
                        break;
                    }
            } else if (err.kind != ET_ERR_FORMAT || !strstr(err.msg, "byte ")) {
                deep_bad++;
                if (shown++ < 3)
                    diag("%s cut at %zu: unexpected error: %s", label, len, err.msg);
            }
            if ((rc == 0) != (mrc == 0)) {
                deep_model_differs++;
                if (deep_model_differs < 3)
                    diag("%s cut at %zu: reader %s, model %s", label, len,
                         rc ? err.msg : "accepts", mrc ? merr.msg : "accepts");
            }
            free(p);
        }
    }
    ok(deep_bad == 0,
       "%s: with the size prefix rewritten, and in the plain layout, every cut of 12+ "
       "bytes is refused with a byte offset unless it only drops trailing zero padding "
       "(%zu of %zu accepted)",
       label, deep_accepted, deep_tested);
    ok(deep_model_differs == 0, "%s: the model accepts exactly the re-prefixed cuts the "
       "reader accepts", label);
}

/* --------------------------------------------- locating parts of sample */

/* Positions inside a flatc-built multi-run dump such as sample.etdp, found
 * with the fb.h accessors. */
typedef struct loc {
    fb_table root;          /* the ETDump table */
    uint32_t run_data_at;   /* its run_data uoffset field */
    fb_vec runs;            /* run_data elements */
    fb_table run0, run1;    /* RunData 0 and 1 */
    uint32_t run0_name;     /* RunData 0's name string (its length word) */
    uint32_t run1_events_at;/* RunData 1's events uoffset field */
    fb_vec events1;         /* RunData 1's events */
    fb_table ev0, pe;       /* run 1, event 0 and its ProfileEvent */
    uint32_t pe_name_at;    /* the ProfileEvent's name uoffset field */
    uint32_t pe_name;       /* its string */
    fb_table pe1;           /* the ProfileEvent of run 1, event 1 */
    uint32_t pe1_name;      /* its name string */
} loc;

/* Fill `l` for the size-prefixed dump p[0..n).  Returns 0, or -1 when the
 * dump lacks a part (fewer than two runs, no events in run 1, no name). */
static int locate(const uint8_t *p, size_t n, loc *l)
{
    fb_buf b = {p, 4, (uint32_t)n};
    memset(l, 0, sizeof *l);
    if (n < 12 || !fb_table_at(&b, 4u + fb_ld_u32(p + 4), &l->root))
        return -1;
    l->run_data_at = fb_field(&b, &l->root, ETD_ETDUMP_RUN_DATA, 4);
    if (!fb_get_vector(&b, &l->root, ETD_ETDUMP_RUN_DATA, 4, &l->runs) || l->runs.count < 2 ||
        !fb_vec_table(&b, &l->runs, 0, &l->run0) || !fb_vec_table(&b, &l->runs, 1, &l->run1))
        return -1;
    l->run0_name = fb_deref(&b, fb_field(&b, &l->run0, ETD_RUN_NAME, 4));
    l->run1_events_at = fb_field(&b, &l->run1, ETD_RUN_EVENTS, 4);
    if (!fb_get_vector(&b, &l->run1, ETD_RUN_EVENTS, 4, &l->events1) || !l->events1.count ||
        !fb_vec_table(&b, &l->events1, 0, &l->ev0) ||
        !fb_get_table(&b, &l->ev0, ETD_EVENT_PROFILE, &l->pe))
        return -1;
    l->pe_name_at = fb_field(&b, &l->pe, ETD_PE_NAME, 4);
    l->pe_name = l->pe_name_at ? fb_deref(&b, l->pe_name_at) : 0;
    fb_table ev1;
    if (l->events1.count < 2 || !fb_vec_table(&b, &l->events1, 1, &ev1) ||
        !fb_get_table(&b, &ev1, ETD_EVENT_PROFILE, &l->pe1))
        return -1;
    l->pe1_name = fb_deref(&b, fb_field(&b, &l->pe1, ETD_PE_NAME, 4));
    return l->run_data_at && l->run0_name && l->run1_events_at && l->pe_name && l->pe1_name
               ? 0
               : -1;
}

/* --------------------------------- a tiny front-to-back FlatBuffer builder */

/* A growing buffer.  Objects are appended in parent-before-child order, so
 * every uoffset (always forward) can be filled in once its target exists. */
typedef struct gb {
    uint8_t *p;
    size_t n, cap;
} gb;

/* Append k zero bytes.  Returns the position of the first.  Exits on out
 * of memory. */
static uint32_t gb_zeros(gb *g, size_t k)
{
    if (g->n + k > g->cap) {
        size_t cap = g->cap ? g->cap : 256;
        while (cap < g->n + k)
            cap *= 2;
        uint8_t *p = realloc(g->p, cap);
        if (!p) {
            perror("realloc");
            exit(2);
        }
        g->p = p;
        g->cap = cap;
    }
    memset(g->p + g->n, 0, k);
    uint32_t at = (uint32_t)g->n;
    g->n += k;
    return at;
}

/* Pad with zeros to a multiple of `a` (a power of two). */
static void gb_align(gb *g, unsigned a)
{
    while (g->n % a)
        gb_zeros(g, 1);
}

/* Store the byte v at position `at` of the builder. */
static void gb_put8(gb *g, uint32_t at, uint8_t v) { g->p[at] = v; }
/* Store v little-endian at position `at` of the builder (4 bytes). */
static void gb_put32(gb *g, uint32_t at, uint32_t v) { put32(g->p, at, v); }
/* Store v little-endian at position `at` of the builder (8 bytes). */
static void gb_put64(gb *g, uint32_t at, uint64_t v) { put64(g->p, at, v); }

/* Store at `at` the uoffset that points at `target` (> at). */
static void gb_link(gb *g, uint32_t at, uint32_t target)
{
    put32(g->p, at, target - at);
}

/* A table appended by gb_table: where it went. */
typedef struct gtab {
    uint32_t pos;   /* the table (its soffset) */
    uint32_t vt;    /* its own vtable, just before it */
    uint16_t tsize; /* inline size */
    uint32_t f[8];  /* absolute position of each field, 0 when absent */
} gtab;

/* Append a vtable and then a table (8-aligned) with `nslots` slots;
 * sizes[i] is the byte size of field i (1, 4 or 8) or 0 when absent.
 * Fields are laid out in slot order, each aligned to its size, zeroed.
 * Returns the layout. */
static gtab gb_table(gb *g, unsigned nslots, const unsigned char *sizes)
{
    gtab t;
    uint16_t off[8] = {0};
    unsigned o = 4;
    memset(&t, 0, sizeof t);
    for (unsigned i = 0; i < nslots; i++)
        if (sizes[i]) {
            o = (o + sizes[i] - 1) & ~(sizes[i] - 1u);
            off[i] = (uint16_t)o;
            o += sizes[i];
        }
    o = (o + 3) & ~3u;
    gb_align(g, 2);
    t.vt = gb_zeros(g, 4 + 2 * nslots);
    put16(g->p, t.vt, (uint16_t)(4 + 2 * nslots));
    put16(g->p, t.vt + 2, (uint16_t)o);
    for (unsigned i = 0; i < nslots; i++)
        put16(g->p, t.vt + 4 + 2 * i, off[i]);
    gb_align(g, 8);
    t.pos = gb_zeros(g, o);
    gb_put32(g, t.pos, t.pos - t.vt);
    for (unsigned i = 0; i < nslots; i++)
        t.f[i] = off[i] ? t.pos + off[i] : 0;
    t.tsize = (uint16_t)o;
    return t;
}

/* Append a string (4-aligned, NUL-terminated).  Returns its position. */
static uint32_t gb_string(gb *g, const char *s)
{
    size_t n = strlen(s);
    gb_align(g, 4);
    uint32_t at = gb_zeros(g, 4 + n + 1);
    gb_put32(g, at, (uint32_t)n);
    memcpy(g->p + at + 4, s, n);
    return at;
}

/* Append a vector of `count` zeroed elements of `elem` bytes.  8-byte
 * elements are aligned to 8, or deliberately to 4 mod 8 when `misalign`.
 * Returns the position of the count (elements follow it). */
static uint32_t gb_vector(gb *g, uint32_t count, unsigned elem, int misalign)
{
    gb_align(g, 4);
    if (elem == 8 && (((g->n + 4) % 8) == 0) == (misalign != 0))
        gb_zeros(g, 4);
    uint32_t at = gb_zeros(g, 4 + (size_t)count * elem);
    gb_put32(g, at, count);
    return at;
}

/* Start a size-prefixed ETDump: prefix, root uoffset, "ED00". */
static void gb_header(gb *g)
{
    gb_zeros(g, 12);
    memcpy(g->p + 8, "ED00", 4);
}

/* Finish: pad to 8 and store the size prefix.  Returns a heap copy of
 * exactly the buffer's length (the caller frees it) and frees the builder. */
static uint8_t *gb_finish(gb *g, size_t *n)
{
    gb_align(g, 8);
    gb_put32(g, 0, (uint32_t)(g->n - 4));
    uint8_t *p = copy_exact(g->p, g->n);
    *n = g->n;
    free(g->p);
    memset(g, 0, sizeof *g);
    return p;
}

/* Slot layouts (byte size per slot, schema/etdump.fbs). */
static const unsigned char L_ETDUMP[] = {0, 4};
static const unsigned char L_RUN[] = {4, 4, 4, 4};
static const unsigned char L_ONE_OFFSET[] = {4}; /* Allocator, TensorList, Event.profile */
static const unsigned char L_EVENT_DEBUG[] = {0, 0, 4};
static const unsigned char L_EVENT_ALLOC[] = {0, 4};
static const unsigned char L_PE[] = {4, 4, 4, 4, 4, 4, 8, 8};
static const unsigned char L_PE_NAMED[] = {4, 0, 4, 4, 0, 0, 8, 8}; /* no strings but name */
static const unsigned char L_DE[] = {8, 4, 4, 4, 0, 4};
static const unsigned char L_TENSOR[] = {1, 4, 4, 8};
static const unsigned char L_AE[] = {4, 8};
static const unsigned char L_8[] = {8}, L_4[] = {4}, L_1[] = {1};

/* Where the interesting parts of the mini dump went. */
typedef struct mini {
    gtab root, run, alloc, pe, de_tensor, value_tensor, tensor, tl, int_tab, bool_tab;
    uint32_t tl_vec;   /* the TensorList's tensors vector (count position) */
    uint32_t sizes;    /* the first tensor's sizes vector */
} mini;

enum { MINI_MISALIGN_SIZES = 1 };

/* Append a Tensor table with the given scalar type, sizes, strides and
 * offset; `misalign` puts the sizes elements at 4 mod 8.  s_at receives the
 * sizes vector's position when not NULL.  Returns the table layout. */
static gtab mini_tensor(gb *g, int8_t st, const int64_t *sizes, const int64_t *strides,
                        uint32_t rank, int64_t offset, int misalign, uint32_t *s_at)
{
    gtab t = gb_table(g, 4, L_TENSOR);
    gb_put8(g, t.f[0], (uint8_t)st);
    gb_put64(g, t.f[3], (uint64_t)offset);
    uint32_t v = gb_vector(g, rank, 8, misalign);
    gb_link(g, t.f[1], v);
    for (uint32_t i = 0; i < rank; i++)
        gb_put64(g, v + 4 + 8 * i, (uint64_t)sizes[i]);
    if (s_at)
        *s_at = v;
    v = gb_vector(g, rank, 8, 0);
    gb_link(g, t.f[2], v);
    for (uint32_t i = 0; i < rank; i++)
        gb_put64(g, v + 4 + 8 * i, (uint64_t)strides[i]);
    return t;
}

/* Append a debug Event (linked from the events vector element at `elem`)
 * whose DebugEvent has chain 7, instruction 5 and name "dbg", and whose
 * Value has type `val` and one member in slot `member` (1..6; the caller
 * links it via value->f[member]); with `output`, Value.output is set to a
 * Bool true.  de receives the DebugEvent, value the Value. */
static void mini_debug_event(gb *g, uint32_t elem, uint8_t val, unsigned member, int output,
                             gtab *de, gtab *value)
{
    unsigned char lv[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    if (output)
        lv[ETD_VALUE_OUTPUT] = 4;
    gtab ev = gb_table(g, 3, L_EVENT_DEBUG);
    gb_link(g, elem, ev.pos);
    *de = gb_table(g, 6, L_DE);
    gb_link(g, ev.f[2], de->pos);
    gb_put64(g, de->f[0], 7);
    gb_put32(g, de->f[1], 5);
    gb_put32(g, de->f[3], (uint32_t)-1);
    gb_link(g, de->f[5], gb_string(g, "dbg"));
    lv[member] = 4;
    *value = gb_table(g, 8, lv);
    gb_link(g, de->f[2], value->pos);
    gb_put8(g, value->f[0], val);
    if (output) {
        gtab b = gb_table(g, 1, L_1);
        gb_link(g, value->f[ETD_VALUE_OUTPUT], b.pos);
        gb_put8(g, b.f[0], 1);
    }
}

/* Build the mini dump: one RunData "Execute" (bundled_input_index 7,
 * allocator "planned") with 8 events:
 *   0 ProfileEvent "op" chain 3, instr 5, did 9, did_str "d", metadata
 *     {1,2,3}, start 100, end 250
 *   1 DebugEvent: Tensor FLOAT sizes [2,3] strides [3,1] offset 16, output
 *   2 DebugEvent: TensorList [INT [4]/[1] offset 0, FLOAT []/[] offset -1]
 *   3 DebugEvent: Int 42      4 DebugEvent: Double 2.5
 *   5 DebugEvent: Bool true   6 DebugEvent: Float 1.5
 *   7 AllocationEvent allocator 1, 4096 bytes
 * flags: MINI_MISALIGN_SIZES.  m receives the positions; *n the length.
 * Returns the buffer (heap, exactly *n bytes). */
static uint8_t *build_mini(unsigned flags, mini *m, size_t *n)
{
    gb g = {NULL, 0, 0};
    gtab t, v;
    memset(m, 0, sizeof *m);
    gb_header(&g);
    m->root = gb_table(&g, 2, L_ETDUMP);
    gb_link(&g, 4, m->root.pos);
    uint32_t runs = gb_vector(&g, 1, 4, 0);
    gb_link(&g, m->root.f[1], runs);
    m->run = gb_table(&g, 4, L_RUN);
    gb_link(&g, runs + 4, m->run.pos);
    gb_link(&g, m->run.f[0], gb_string(&g, "Execute"));
    gb_put32(&g, m->run.f[1], 7);
    uint32_t allocs = gb_vector(&g, 1, 4, 0);
    gb_link(&g, m->run.f[2], allocs);
    m->alloc = gb_table(&g, 1, L_ONE_OFFSET);
    gb_link(&g, allocs + 4, m->alloc.pos);
    gb_link(&g, m->alloc.f[0], gb_string(&g, "planned"));
    uint32_t evs = gb_vector(&g, 8, 4, 0);
    gb_link(&g, m->run.f[3], evs);

    /* 0: profile event */
    t = gb_table(&g, 1, L_ONE_OFFSET);
    gb_link(&g, evs + 4, t.pos);
    m->pe = gb_table(&g, 8, L_PE);
    gb_link(&g, t.f[0], m->pe.pos);
    gb_link(&g, m->pe.f[0], gb_string(&g, "op"));
    gb_put32(&g, m->pe.f[1], 3);
    gb_put32(&g, m->pe.f[2], 5);
    gb_put32(&g, m->pe.f[3], 9);
    gb_link(&g, m->pe.f[4], gb_string(&g, "d"));
    uint32_t md = gb_vector(&g, 3, 1, 0);
    gb_link(&g, m->pe.f[5], md);
    memcpy(g.p + md + 4, "\1\2\3", 3);
    gb_put64(&g, m->pe.f[6], 100);
    gb_put64(&g, m->pe.f[7], 250);

    /* 1: tensor, marked as an output */
    static const int64_t sz1[] = {2, 3}, st1[] = {3, 1}, sz2[] = {4}, st2[] = {1};
    mini_debug_event(&g, evs + 8, ET_VAL_TENSOR, 1, 1, &m->de_tensor, &m->value_tensor);
    m->tensor = mini_tensor(&g, 6, sz1, st1, 2, 16, flags & MINI_MISALIGN_SIZES, &m->sizes);
    gb_link(&g, m->value_tensor.f[1], m->tensor.pos);

    /* 2: tensor list */
    mini_debug_event(&g, evs + 12, ET_VAL_TENSOR_LIST, 2, 0, &t, &v);
    m->tl = gb_table(&g, 1, L_ONE_OFFSET);
    gb_link(&g, v.f[2], m->tl.pos);
    m->tl_vec = gb_vector(&g, 2, 4, 0);
    gb_link(&g, m->tl.f[0], m->tl_vec);
    t = mini_tensor(&g, 3, sz2, st2, 1, 0, 0, NULL);
    gb_link(&g, m->tl_vec + 4, t.pos);
    t = mini_tensor(&g, 6, NULL, NULL, 0, -1, 0, NULL);
    gb_link(&g, m->tl_vec + 8, t.pos);

    /* 3: Int 42 */
    mini_debug_event(&g, evs + 16, ET_VAL_INT, 3, 0, &t, &v);
    m->int_tab = gb_table(&g, 1, L_8);
    gb_link(&g, v.f[3], m->int_tab.pos);
    gb_put64(&g, m->int_tab.f[0], 42);
    /* 4: Double 2.5 */
    mini_debug_event(&g, evs + 20, ET_VAL_DOUBLE, 5, 0, &t, &v);
    t = gb_table(&g, 1, L_8);
    gb_link(&g, v.f[5], t.pos);
    double dv = 2.5;
    uint64_t dbits;
    memcpy(&dbits, &dv, sizeof dbits);
    gb_put64(&g, t.f[0], dbits);
    /* 5: Bool true */
    mini_debug_event(&g, evs + 24, ET_VAL_BOOL, 6, 0, &t, &v);
    m->bool_tab = gb_table(&g, 1, L_1);
    gb_link(&g, v.f[6], m->bool_tab.pos);
    gb_put8(&g, m->bool_tab.f[0], 1);
    /* 6: Float 1.5 */
    mini_debug_event(&g, evs + 28, ET_VAL_FLOAT, 4, 0, &t, &v);
    t = gb_table(&g, 1, L_4);
    gb_link(&g, v.f[4], t.pos);
    float fv = 1.5f;
    uint32_t fbits;
    memcpy(&fbits, &fv, sizeof fbits);
    gb_put32(&g, t.f[0], fbits);
    /* 7: allocation event */
    t = gb_table(&g, 2, L_EVENT_ALLOC);
    gb_link(&g, evs + 32, t.pos);
    v = gb_table(&g, 2, L_AE);
    gb_link(&g, t.f[1], v.pos);
    gb_put32(&g, v.f[0], 1);
    gb_put64(&g, v.f[1], 4096);
    return gb_finish(&g, n);
}

/* Build a dump whose offsets are shared: run_data has `nruns` elements that
 * all name one RunData "R"; that RunData has `nalloc` allocators that all
 * name one Allocator "a", and `nev` events that all name one Event with one
 * ProfileEvent (start 1, end 2).  *n receives the length.  Returns the
 * buffer (heap, exactly *n bytes). */
static uint8_t *build_shared(uint32_t nruns, uint32_t nalloc, uint32_t nev, size_t *n)
{
    gb g = {NULL, 0, 0};
    gb_header(&g);
    gtab root = gb_table(&g, 2, L_ETDUMP);
    gb_link(&g, 4, root.pos);
    uint32_t runs = gb_vector(&g, nruns, 4, 0);
    gb_link(&g, root.f[1], runs);
    gtab run = gb_table(&g, 4, L_RUN);
    for (uint32_t i = 0; i < nruns; i++)
        gb_link(&g, runs + 4 + 4 * i, run.pos);
    gb_link(&g, run.f[0], gb_string(&g, "R"));
    gb_put32(&g, run.f[1], (uint32_t)-1);
    uint32_t allocs = gb_vector(&g, nalloc, 4, 0);
    gb_link(&g, run.f[2], allocs);
    gtab alloc = gb_table(&g, 1, L_ONE_OFFSET);
    for (uint32_t i = 0; i < nalloc; i++)
        gb_link(&g, allocs + 4 + 4 * i, alloc.pos);
    gb_link(&g, alloc.f[0], gb_string(&g, "a"));
    uint32_t evs = gb_vector(&g, nev, 4, 0);
    gb_link(&g, run.f[3], evs);
    gtab ev = gb_table(&g, 1, L_ONE_OFFSET);
    for (uint32_t i = 0; i < nev; i++)
        gb_link(&g, evs + 4 + 4 * i, ev.pos);
    gtab pe = gb_table(&g, 8, L_PE_NAMED);
    gb_link(&g, ev.f[0], pe.pos);
    gb_link(&g, pe.f[0], gb_string(&g, "op"));
    gb_put32(&g, pe.f[2], 0);
    gb_put32(&g, pe.f[3], (uint32_t)-1);
    gb_put64(&g, pe.f[6], 1);
    gb_put64(&g, pe.f[7], 2);
    return gb_finish(&g, n);
}

/* ------------------------------------------------------------- the tests */

/* The sample's own reading, as a baseline for the mutations. */
static void test_sample_baseline(const bytes *s)
{
    et_etdump d;
    et_error err;
    int rc = et_etdump_open(&d, s->p, s->n, &err);
    ok(rc == 0, "sample.etdp opens");
    if (rc != 0) {
        diag("%s", err.msg);
        return;
    }
    ok(et_etdump_verify_all(&d, &err) == 0, "sample.etdp verifies");
    ok(d.size_prefixed && d.trailing_bytes == 0, "sample.etdp is size-prefixed, no trailing bytes");
    is_int(et_etdump_num_runs(&d), 4, "sample.etdp has 4 runs");
    is_int((long long)d.num_profile_events, 26, "sample.etdp has 26 profile events");
    et_etdump_close(&d);
}

/* Layout detection: identifier, plain layout, size prefix. */
static void test_layout(const bytes *s)
{
    uint8_t *p;
    et_error err;
    et_etdump d;

    p = copy_exact(s->p, s->n);
    memcpy(p + 8, "XD00", 4);
    rejects(p, s->n, AT_OPEN, "not an ETDump", "found \"XD00\" and \"\\x10\\x00\\x00\\x00\"",
            "identifier \"ED00\" -> \"XD00\": not an ETDump, both candidates shown");

    p = copy_exact(s->p, s->n);
    memcpy(p + 8, "\0\xff\"\\", 4);
    rejects(p, s->n, AT_OPEN, "not an ETDump", "found \"\\x00\\xff\\x22\\x5c\"",
            "identifier bytes 00 ff '\"' '\\\\' are shown escaped");

    p = copy_exact((const uint8_t *)"\x08\0\0\0XYZW\0\0", 10);
    rejects(p, 10, AT_OPEN, "not an ETDump", "at byte 4, found \"XYZW\"",
            "10-byte file without \"ED00\": names byte 4 only");

    /* plain layout.  Dropping the 4-byte size prefix keeps every uoffset
     * valid (they are relative) but moves each object 4 bytes, so the int64
     * fields of the ProfileEvents land at 4 mod 8: the verifier measures
     * alignment from the start of the file, as FlatBuffers' own verifier
     * does, and refuses.  make_plain() keeps every object in place. */
    p = copy_exact(s->p + 4, s->n - 4);
    rejects(p, s->n - 4, AT_VERIFY, "profile_event: byte", "8-byte field is not aligned to 8 bytes",
            "size prefix dropped: int64 fields now at 4 mod 8, refused naming the field");
    p = make_plain(s->p, s->n);
    int rc = et_etdump_open(&d, p, s->n, &err);
    ok(rc == 0 && !d.size_prefixed && et_etdump_verify_all(&d, &err) == 0 &&
           et_etdump_num_runs(&d) == 4 && d.num_profile_events == 26,
       "plain layout (root offset at 0, \"ED00\" at 4, objects in place): 4 runs, 26 events");
    if (rc != 0)
        diag("%s", err.msg);
    et_etdump_close(&d);
    accepts(p, s->n, "plain layout: the model accepts it too");
    {
        size_t n;
        uint8_t *q = build_shared(1, 1, 0, &n);
        p = copy_exact(q + 4, n - 4);
        free(q);
        accepts(p, n - 4, "size prefix dropped from a dump without int64 fields: accepted");
    }

    /* size prefix larger than the file */
    p = copy_exact(s->p, s->n);
    put32(p, 0, (uint32_t)(s->n - 3));
    char want[128];
    snprintf(want, sizeof want, "says %zu bytes follow, but the file has only %zu", s->n - 3,
             s->n - 4);
    rejects(p, s->n, AT_OPEN, "byte 0: truncated ETDump", want,
            "size prefix one larger than the file: truncated, both sizes named");
    p = copy_exact(s->p, s->n);
    put32(p, 0, 0xffffffffu);
    rejects(p, s->n, AT_OPEN, "truncated ETDump", "4294967295 bytes follow",
            "size prefix 0xffffffff: truncated");
    p = copy_exact(s->p, s->n);
    put32(p, 0, 7);
    rejects(p, s->n, AT_OPEN, "size prefix 7 is too small", NULL,
            "size prefix 7 (cannot hold root offset + identifier)");

    /* size prefix smaller than the file: 13 junk bytes appended */
    p = malloc(s->n + 13);
    if (!p)
        exit(2);
    memcpy(p, s->p, s->n);
    memset(p + s->n, 0xA5, 13);
    rc = et_etdump_open(&d, p, s->n + 13, &err);
    ok(rc == 0 && d.size_prefixed && d.trailing_bytes == 13 &&
           et_etdump_verify_all(&d, &err) == 0,
       "13 junk bytes after the sized buffer are accepted and counted in trailing_bytes");
    if (rc != 0)
        diag("%s", err.msg);
    et_etdump_close(&d);
    accepts(p, s->n + 13, "trailing bytes: the model accepts it too");
}

/* Patches of sample.etdp: offsets, vtables, strings, required fields. */
static void test_sample_mutations(const bytes *s, const loc *l)
{
    uint8_t *p;
    char want[160];
    const size_t n = s->n;

    /* ---- the root offset */
    p = copy_exact(s->p, n);
    put32(p, 4, 0x7ffffff0u);
    rejects(p, n, AT_OPEN, "byte 4: root offset 2147483632 points outside the buffer", NULL,
            "root offset 0x7ffffff0 (past the end)");
    p = copy_exact(s->p, n);
    put32(p, 4, (uint32_t)n - 4);
    rejects(p, n, AT_OPEN, "points outside the buffer", NULL,
            "root offset = buffer length (table would start at the end)");
    p = copy_exact(s->p, n);
    put32(p, 4, 0);
    rejects(p, n, AT_OPEN, "invalid root offset 0", NULL, "root offset 0");
    p = copy_exact(s->p, n);
    put32(p, 4, fb_ld_u32(s->p + 4) + 2);
    rejects(p, n, AT_OPEN, "ETDump: table is not aligned to 4 bytes", NULL,
            "root offset + 2 (misaligned root table)");

    /* ---- the root table's vtable (not shared with any other table) */
    uint32_t vt = l->root.vt;
    p = copy_exact(s->p, n);
    put32(p, l->root.pos, 0x7fffffffu);
    rejects(p, n, AT_OPEN, "ETDump: vtable offset 2147483647 points outside the buffer", NULL,
            "root soffset 0x7fffffff (vtable before the start of the file)");
    p = copy_exact(s->p, n);
    put32(p, l->root.pos, (uint32_t)-(int32_t)n);
    rejects(p, n, AT_OPEN, "vtable offset", "points outside the buffer",
            "root soffset -length (vtable past the end)");
    p = copy_exact(s->p, n);
    put32(p, l->root.pos, l->root.pos);
    rejects(p, n, AT_OPEN, "points outside the buffer (to byte 0)", NULL,
            "root soffset = its position (vtable in the size prefix, outside the FlatBuffer)");
    p = copy_exact(s->p, n);
    put32(p, l->root.pos, (uint32_t)((int32_t)(l->root.pos - vt) + 1));
    rejects(p, n, AT_OPEN, "ETDump: vtable is not aligned to 2 bytes", NULL,
            "root soffset + 1 (odd vtable position)");
    p = copy_exact(s->p, n);
    put16(p, vt, 7);
    rejects(p, n, AT_OPEN, "vtable size 7 is invalid", NULL, "vtable size 8 -> 7 (odd)");
    p = copy_exact(s->p, n);
    put16(p, vt, 2);
    rejects(p, n, AT_OPEN, "vtable size 2 is invalid", NULL, "vtable size 8 -> 2 (< 4)");
    p = copy_exact(s->p, n);
    put16(p, vt, 0xfffe);
    rejects(p, n, AT_OPEN, "vtable of 65534 bytes runs past the end", NULL,
            "vtable size 0xfffe (runs past the end)");
    p = copy_exact(s->p, n);
    put16(p, vt + 2, 2);
    rejects(p, n, AT_OPEN, "table size 2 is invalid", NULL, "root table size -> 2 (< 4)");
    p = copy_exact(s->p, n);
    put16(p, vt + 2, 0xffff);
    rejects(p, n, AT_OPEN, "table of 65535 bytes runs past the end of the buffer", NULL,
            "root table size 0xffff (past the end)");
    p = copy_exact(s->p, n);
    put16(p, vt + 6, l->root.tsize);
    snprintf(want, sizeof want, "field slot 1 has offset %u outside the table's %u bytes",
             l->root.tsize, l->root.tsize);
    rejects(p, n, AT_OPEN, want, NULL, "root vtable: run_data's field offset = table size");
    p = copy_exact(s->p, n);
    put16(p, vt + 6, 2);
    rejects(p, n, AT_OPEN, "field slot 1 has offset 2", NULL,
            "root vtable: run_data's field offset 2 (overlaps the soffset)");
    p = copy_exact(s->p, n);
    put16(p, vt + 6, 0);
    rejects(p, n, AT_OPEN, "ETDump: required field 'run_data' is absent", NULL,
            "root vtable: run_data's slot zeroed");

    /* ---- the run_data uoffset and vector */
    p = copy_exact(s->p, n);
    put32(p, l->run_data_at, 0);
    rejects(p, n, AT_OPEN, "run_data: invalid offset 0", NULL, "run_data uoffset 0");
    p = copy_exact(s->p, n);
    put32(p, l->run_data_at, 0x80000000u);
    rejects(p, n, AT_OPEN, "run_data: invalid offset 2147483648", NULL,
            "run_data uoffset 0x80000000 (> INT32_MAX)");
    p = copy_exact(s->p, n);
    put32(p, l->run_data_at, (uint32_t)n);
    rejects(p, n, AT_OPEN, "run_data: offset", "points past the end of the buffer",
            "run_data uoffset = file length");
    p = copy_exact(s->p, n);
    put32(p, l->run_data_at, fb_ld_u32(s->p + l->run_data_at) + 2);
    rejects(p, n, AT_OPEN, "run_data: vector is not aligned to 4 bytes", NULL,
            "run_data uoffset + 2 (misaligned vector)");
    p = copy_exact(s->p, n);
    put32(p, l->runs.pos - 4, 0x7fffffffu);
    rejects(p, n, AT_OPEN, "vector of 2147483647 elements of 4 bytes does not fit", NULL,
            "run_data count 0x7fffffff");
    p = copy_exact(s->p, n);
    put32(p, l->runs.pos - 4, 0xffffffffu);
    rejects(p, n, AT_OPEN, "vector of 4294967295 elements", NULL,
            "run_data count 0xffffffff (count * 4 overflows 32 bits)");
    p = copy_exact(s->p, n);
    put32(p, l->runs.pos - 4, l->runs.count + 1);
    rejects(p, n, AT_OPEN, "run_data[", NULL,
            "run_data count + 1 (the extra element reads a neighbour as an offset)");

    /* ---- run_data elements */
    p = copy_exact(s->p, n);
    put32(p, l->runs.pos, 0);
    rejects(p, n, AT_OPEN, "RunData: invalid offset 0", NULL, "run_data[0] uoffset 0");
    p = copy_exact(s->p, n);
    put32(p, l->runs.pos + 4, 0x10000);
    rejects(p, n, AT_OPEN, "run_data[1]: byte", "RunData: offset 65536 points past the end",
            "run_data[1] uoffset 0x10000 (past the end)");
    p = copy_exact(s->p, n);
    put32(p, l->runs.pos, fb_ld_u32(s->p + l->runs.pos) + 2);
    rejects(p, n, AT_OPEN, "run_data[0]: byte", "RunData: table is not aligned to 4 bytes",
            "run_data[0] uoffset + 2 (misaligned table)");

    /* ---- RunData 0's name string and the shared RunData vtable */
    p = copy_exact(s->p, n);
    put32(p, l->run0_name, 0x7fffffffu);
    rejects(p, n, AT_OPEN, "run_data[0].name: byte",
            "string of 2147483647 bytes runs past the end", "run_data[0].name length 0x7fffffff");
    p = copy_exact(s->p, n);
    put32(p, l->run0_name, 0xffffffffu);
    rejects(p, n, AT_OPEN, "string of 4294967295 bytes runs past the end", NULL,
            "run_data[0].name length 0xffffffff (length + NUL overflows 32 bits)");
    p = copy_exact(s->p, n);
    p[l->run0_name + 4 + fb_ld_u32(s->p + l->run0_name)] = 'X';
    rejects(p, n, AT_OPEN, "run_data[0].name", "string is not NUL-terminated",
            "run_data[0].name: NUL terminator replaced by 'X'");
    p = copy_exact(s->p, n);
    put16(p, l->run0.vt + 4, 0);
    snprintf(want, sizeof want, "run_data[0]: byte %u: RunData: required field 'name' is absent",
             l->run0.pos);
    rejects(p, n, AT_OPEN, want, NULL, "RunData vtable: name slot zeroed (required field)");
    p = copy_exact(s->p, n);
    {
        uint32_t at = l->run0.pos + fb_slot(&(fb_buf){s->p, 4, (uint32_t)n}, &l->run0, 0);
        put32(p, at, fb_ld_u32(s->p + at) + 1);
    }
    rejects(p, n, AT_OPEN, "run_data[0].name", "string is not aligned to 4 bytes",
            "run_data[0].name uoffset + 1 (misaligned string)");

    /* ---- run 1's events */
    p = copy_exact(s->p, n);
    put32(p, l->events1.pos - 4, 0x7fffffffu);
    rejects(p, n, AT_OPEN, "run_data[1].events: byte",
            "vector of 2147483647 elements of 4 bytes does not fit",
            "run_data[1].events count 0x7fffffff");
    p = copy_exact(s->p, n);
    put32(p, l->run1_events_at, fb_ld_u32(s->p + l->run1_events_at) + 2);
    rejects(p, n, AT_OPEN, "run_data[1].events", "vector is not aligned to 4 bytes",
            "run_data[1].events uoffset + 2 (misaligned vector)");
    p = copy_exact(s->p, n);
    put32(p, l->events1.pos, 0);
    rejects(p, n, AT_VERIFY, "run_data[1].events[0]: byte", "Event: invalid offset 0",
            "run_data[1].events[0] uoffset 0 (found by verify, not open)");
    p = copy_exact(s->p, n);
    put32(p, l->pe_name, 0x7fffffffu);
    rejects(p, n, AT_VERIFY, "run_data[1].events[0].profile_event.name: byte",
            "string of 2147483647 bytes", "profile event name length 0x7fffffff");
    p = copy_exact(s->p, n);
    put32(p, l->pe_name_at, fb_ld_u32(s->p + l->pe_name_at) + 1);
    rejects(p, n, AT_VERIFY, "profile_event.name", "string is not aligned",
            "profile event name uoffset + 1 (misaligned string)");
    p = copy_exact(s->p, n);
    p[l->pe_name + 4 + fb_ld_u32(s->p + l->pe_name)] = '!';
    rejects(p, n, AT_VERIFY, "profile_event.name", "string is not NUL-terminated",
            "profile event name: NUL terminator replaced by '!'");

    /* ---- event 1 of run 1 has the same Event and ProfileEvent vtables as
     * event 0, so the verifier's fast path sees it first: its defects must
     * still be found and worded by the general path */
    p = copy_exact(s->p, n);
    p[l->pe1_name + 4 + fb_ld_u32(s->p + l->pe1_name)] = '!';
    rejects(p, n, AT_VERIFY, "run_data[1].events[1].profile_event.name: byte",
            "string is not NUL-terminated", "events[1] (fast path): name's NUL -> '!'");
    p = copy_exact(s->p, n);
    put32(p, l->pe1_name, (uint32_t)n);
    rejects(p, n, AT_VERIFY, "run_data[1].events[1].profile_event.name: byte",
            "string of", "events[1] (fast path): name length = file length");
    p = copy_exact(s->p, n);
    put32(p, l->events1.pos + 4, 0);
    rejects(p, n, AT_VERIFY, "run_data[1].events[1]: byte", "Event: invalid offset 0",
            "events[1] (fast path): uoffset 0");
    p = copy_exact(s->p, n);
    put32(p, l->events1.pos + 4, fb_ld_u32(s->p + l->events1.pos + 4) + 2);
    rejects(p, n, AT_VERIFY, "run_data[1].events[1]: byte", "Event: table is not aligned",
            "events[1] (fast path): uoffset + 2 (misaligned Event)");

    /* ---- the ProfileEvent's vtable: start_time (slot 6, 8 bytes) */
    uint16_t tsize = l->pe.tsize;
    p = copy_exact(s->p, n);
    put16(p, l->pe.vt + 4 + 2 * ETD_PE_START, (uint16_t)(tsize - 4));
    snprintf(want, sizeof want, "8-byte field at offset %u does not fit in the table's %u bytes",
             tsize - 4u, tsize);
    rejects(p, n, AT_VERIFY, "profile_event: byte", want,
            "ProfileEvent vtable: start_time at table size - 4 (does not fit)");
    uint16_t mis = 0;
    for (uint16_t o = 4; o + 8 <= tsize; o += 4)
        if ((l->pe.pos + o) % 8 == 4) {
            mis = o;
            break;
        }
    p = copy_exact(s->p, n);
    put16(p, l->pe.vt + 4 + 2 * ETD_PE_START, mis);
    rejects(p, n, AT_VERIFY, "start_time: 8-byte field is not aligned to 8 bytes", NULL,
            "ProfileEvent vtable: start_time moved to 4 mod 8 (misaligned)");

    /* ---- an Event table in the last 4 bytes: its soffset names the shared
     * Event vtable, whose inline size (8) runs past the end.  events[0] is
     * the run's first Event (vtable not yet checked in this run: the full
     * vtable check); events[1] comes after a good Event with the same
     * vtable (the verifier's vtable cache and the fast path). */
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t end = (uint32_t)n, elem = l->events1.pos + 4 * k;
        p = malloc(n + 4);
        if (!p)
            exit(2);
        memcpy(p, s->p, n);
        put32(p, 0, end);                  /* size prefix: n + 4 - 4 */
        put32(p, end, end - l->ev0.vt);    /* soffset to the Event vtable */
        put32(p, elem, end - elem);        /* events[k] -> the new table */
        /* the same wording whether or not the vtable was verified before */
        snprintf(want, sizeof want, "table of %u bytes runs past the end of the buffer (%u)",
                 l->ev0.tsize, end + 4);
        char where[64], what[160];
        snprintf(where, sizeof where, "run_data[1].events[%u]: byte %u: Event: ", k, end);
        snprintf(what, sizeof what, "run_data[1].events[%u] -> an Event in the last 4 bytes "
                 "(%s vtable runs past the end)", k, k ? "cached" : "first use of the");
        rejects(p, n + 4, AT_VERIFY, where, want, what);
    }

    /* ---- shared offsets that stay within budget: legitimately accepted */
    p = copy_exact(s->p, n);
    for (uint32_t i = 1; i < l->runs.count; i++)
        put32(p, l->runs.pos + 4 * i, l->run0.pos - (l->runs.pos + 4 * i));
    {
        et_etdump d;
        et_error err;
        int rc = et_etdump_open(&d, p, n, &err);
        ok(rc == 0 && et_etdump_verify_all(&d, &err) == 0 && d.num_profile_events == 8,
           "every run_data element names RunData 0: accepted, 4 x 2 events");
        if (rc != 0)
            diag("%s", err.msg);
        et_etdump_close(&d);
    }
    accepts(p, n, "every run_data element names RunData 0: the model accepts it");
    p = copy_exact(s->p, n);
    for (uint32_t i = 1; i < l->events1.count; i++)
        put32(p, l->events1.pos + 4 * i, l->ev0.pos - (l->events1.pos + 4 * i));
    accepts(p, n, "every event of run 1 names event 0: accepted by reader and model");
}

/* Hand-built dumps: values, tensors, required fields, misalignment,
 * and the table budget. */
static void test_built(void)
{
    mini m;
    size_t n;
    uint8_t *p = build_mini(0, &m, &n);
    et_etdump d;
    et_error err;

    /* positive control: the builder makes what the reader expects */
    int rc = et_etdump_open(&d, p, n, &err);
    ok(rc == 0 && et_etdump_verify_all(&d, &err) == 0, "mini dump (%zu bytes) verifies", n);
    if (rc != 0) {
        diag("%s", err.msg);
    } else {
        et_run r;
        et_raw_event e;
        et_raw_value v, t;
        et_etdump_run(&d, 0, &r);
        ok(r.name.n == 7 && memcmp(r.name.p, "Execute", 7) == 0 && r.bundled_input_index == 7 &&
               r.events.count == 8 && r.allocators.count == 1,
           "mini: run \"Execute\", bundled_input_index 7, 8 events, 1 allocator");
        et_str an = et_etdump_allocator_name(&d, &r, 0);
        ok(an.n == 7 && memcmp(an.p, "planned", 7) == 0, "mini: allocator name \"planned\"");
        ok(d.num_profile_events == 1 && d.num_debug_events == 6 && d.num_allocation_events == 1,
           "mini: 1 profile, 6 debug, 1 allocation event counted");
        et_etdump_event(&d, &r, 0, &e);
        ok(e.kind == ET_EV_PROFILE && e.name.n == 2 && e.chain_value == 3 &&
               e.instruction_id == 5 && e.delegate_debug_id_int == 9 &&
               e.delegate_debug_id_str.n == 1 && e.metadata.n == 3 && e.metadata.p[2] == 3 &&
               e.start_time == 100 && e.end_time == 250,
           "mini: the profile event decodes");
        et_etdump_event(&d, &r, 1, &e);
        et_etdump_value(&d, e.value_pos, &v);
        ok(e.kind == ET_EV_DEBUG && e.chain_value == 7 && e.is_output && v.is_output &&
               v.val == ET_VAL_TENSOR &&
               v.has_tensor && v.scalar_type == 6 && v.sizes.count == 2 &&
               et_etdump_i64_at(&d, &v.sizes, 1) == 3 &&
               et_etdump_i64_at(&d, &v.strides, 0) == 3 && v.offset == 16,
           "mini: the tensor value decodes (FLOAT [2,3] strides [3,1] offset 16, output)");
        et_etdump_event(&d, &r, 2, &e);
        et_etdump_value(&d, e.value_pos, &v);
        et_etdump_list_tensor(&d, &v, 1, &t);
        ok(v.has_tensor_list && v.tensors.count == 2 && t.has_tensor && t.offset == -1 &&
               t.sizes.count == 0,
           "mini: the tensor list decodes (2 tensors, the second empty, offset -1)");
        et_etdump_event(&d, &r, 3, &e);
        et_etdump_value(&d, e.value_pos, &v);
        ok(v.val == ET_VAL_INT && v.has_int && v.int_val == 42, "mini: Int 42");
        et_etdump_event(&d, &r, 4, &e);
        et_etdump_value(&d, e.value_pos, &v);
        ok(v.val == ET_VAL_DOUBLE && v.has_double && v.double_val == 2.5, "mini: Double 2.5");
        et_etdump_event(&d, &r, 5, &e);
        et_etdump_value(&d, e.value_pos, &v);
        ok(v.val == ET_VAL_BOOL && v.has_bool && v.bool_val, "mini: Bool true");
        et_etdump_event(&d, &r, 6, &e);
        et_etdump_value(&d, e.value_pos, &v);
        ok(v.val == ET_VAL_FLOAT && v.has_float && v.float_val == 1.5f, "mini: Float 1.5");
        et_etdump_event(&d, &r, 7, &e);
        ok(e.kind == ET_EV_ALLOCATION && e.allocator_id == 1 && e.allocation_size == 4096,
           "mini: allocation event 1:4096");
    }
    et_etdump_close(&d);
    free(p);

    /* required fields absent (slots zeroed in the table's own vtable) */
    p = build_mini(0, &m, &n);
    put16(p, m.alloc.vt + 4, 0);
    rejects(p, n, AT_OPEN, "run_data[0].allocators[0]: byte",
            "Allocator: required field 'name' is absent", "Allocator.name slot zeroed");
    p = build_mini(0, &m, &n);
    put16(p, m.de_tensor.vt + 4 + 2 * ETD_DE_ENTRY, 0);
    rejects(p, n, AT_VERIFY, "run_data[0].events[1].debug_event: byte",
            "DebugEvent: required field 'debug_entry' is absent",
            "DebugEvent.debug_entry slot zeroed");
    p = build_mini(0, &m, &n);
    put16(p, m.tensor.vt + 4 + 2 * ETD_TENSOR_SIZES, 0);
    rejects(p, n, AT_VERIFY, "events[1].debug_event.debug_entry.tensor: byte",
            "Tensor: required field 'sizes' is absent", "Tensor.sizes slot zeroed");
    p = build_mini(0, &m, &n);
    put16(p, m.tensor.vt + 4 + 2 * ETD_TENSOR_STRIDES, 0);
    rejects(p, n, AT_VERIFY, "Tensor: required field 'strides' is absent", NULL,
            "Tensor.strides slot zeroed");
    p = build_mini(0, &m, &n);
    put16(p, m.tl.vt + 4, 0);
    rejects(p, n, AT_VERIFY, "events[2].debug_event.debug_entry.tensor_list: byte",
            "TensorList: required field 'tensors' is absent", "TensorList.tensors slot zeroed");

    /* offsets and sizes below the Value */
    p = build_mini(0, &m, &n);
    put32(p, m.tl_vec + 8, 0);
    rejects(p, n, AT_VERIFY, "tensor_list.tensors[1]: byte", "Tensor: invalid offset 0",
            "TensorList.tensors[1] uoffset 0");
    p = build_mini(0, &m, &n);
    put32(p, m.tl_vec, 0x40000000u);
    rejects(p, n, AT_VERIFY, "tensor_list.tensors: byte", "vector of 1073741824 elements",
            "TensorList.tensors count 0x40000000");
    p = build_mini(0, &m, &n);
    put32(p, m.sizes, 0x20000000u);
    rejects(p, n, AT_VERIFY, "tensor.sizes: byte",
            "vector of 536870912 elements of 8 bytes does not fit",
            "Tensor.sizes count 0x20000000 (count * 8 = 4 GiB)");
    p = build_mini(MINI_MISALIGN_SIZES, &m, &n);
    rejects(p, n, AT_VERIFY, "sizes: elements are not aligned to 8 bytes", NULL,
            "Tensor.sizes elements at 4 mod 8 (int64 vector misaligned)");
    p = build_mini(0, &m, &n);
    put16(p, m.int_tab.vt + 4, 4);
    rejects(p, n, AT_VERIFY, "debug_entry.int_value: byte",
            "value: 8-byte field is not aligned to 8 bytes",
            "Int.int_val field offset 8 -> 4 (misaligned int64)");
    p = build_mini(0, &m, &n);
    put16(p, m.int_tab.vt + 2, 12);
    rejects(p, n, AT_VERIFY, "int_value",
            "8-byte field at offset 8 does not fit in the table's 12 bytes",
            "Int table size 16 -> 12 (int_val sticks out)");
    p = build_mini(0, &m, &n);
    put16(p, m.bool_tab.vt + 4, m.bool_tab.tsize);
    rejects(p, n, AT_VERIFY, "bool_value: byte", "field slot 0 has offset 8 outside",
            "Bool.bool_val field offset = table size");
    p = build_mini(0, &m, &n);
    put32(p, m.value_tensor.f[1], 0x7ffffff0u);
    rejects(p, n, AT_VERIFY, "debug_entry.tensor: byte",
            "offset to table: offset 2147483632 points past the end",
            "Value.tensor uoffset 0x7ffffff0");
    p = build_mini(0, &m, &n);
    put32(p, m.value_tensor.pos, (uint32_t)(m.value_tensor.pos + 64));
    rejects(p, n, AT_VERIFY, "debug_entry", "vtable offset", "Value soffset -> before the file");

    /* vtable placed in bytes after the sized buffer (outside it) */
    p = build_mini(0, &m, &n);
    {
        uint8_t *q = malloc(n + 8);
        if (!q)
            exit(2);
        memcpy(q, p, n);
        memcpy(q + n, p + m.root.vt, 8); /* a copy of the root vtable */
        put32(q, m.root.pos, (uint32_t)((int32_t)m.root.pos - (int32_t)n));
        free(p);
        rejects(q, n + 8, AT_OPEN, "ETDump: vtable offset", "points outside the buffer",
                "root vtable moved into the trailing bytes after the sized buffer");
    }

    /* shared offsets: small is fine, a multiplying fan-out exceeds the
     * budget (one table per 4 bytes) */
    p = build_shared(4, 1, 2, &n);
    accepts(p, n, "4 runs sharing one RunData with 2 events sharing one Event: accepted");
    p = build_shared(64, 1, 64, &n);
    {
        char what[128];
        snprintf(what, sizeof what,
                 "64 runs x 64 events all sharing one Event (%zu bytes): table budget", n);
        rejects(p, n, AT_VERIFY, "more tables than the buffer can hold",
                "(offsets are shared or overlapping)", what);
    }
    p = build_shared(64, 64, 1, &n);
    rejects(p, n, AT_OPEN, "allocators[", "more tables than the buffer can hold",
            "64 runs x 64 allocators sharing one Allocator: budget exceeded at open");
    p = build_shared(1024, 1, 1024, &n);
    rejects(p, n, AT_VERIFY, "more tables than the buffer can hold", NULL,
            "1024 runs x 1024 shared events (a million visits from 8 KiB) stops early");
}

/* File-level errors: et_map_file and et_inspector_open with etdump_path. */
static void test_files(const char *sample_path)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], missing[600], empty[600];
    snprintf(dir, sizeof dir, "%s/test_etdump.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp %s: %s", dir, strerror(errno));
        return;
    }
    snprintf(missing, sizeof missing, "%s/missing.etdp", dir);
    snprintf(empty, sizeof empty, "%s/empty.etdp", dir);
    FILE *fp = fopen(empty, "wb");
    if (fp)
        fclose(fp);

    et_mapped_file mf;
    et_error err;
    char want[1100];
    int rc = et_map_file(&mf, missing, &err);
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    ok(rc != 0 && err.kind == ET_ERR_IO && strcmp(err.msg, want) == 0,
       "et_map_file: missing file -> \"PATH: No such file or directory\"");
    rc = et_map_file(&mf, dir, &err);
    snprintf(want, sizeof want, "%s: is a directory", dir);
    ok(rc != 0 && err.kind == ET_ERR_IO && strstr(err.msg, want),
       "et_map_file: a directory -> \"PATH: is a directory\"");
    rc = et_map_file(&mf, empty, &err);
    ok(rc == 0 && mf.size == 0 && mf.data == NULL, "et_map_file: empty file maps to 0 bytes");
    et_etdump d;
    ok(et_etdump_open(&d, mf.data, mf.size, &err) != 0 && strstr(err.msg, "empty file"),
       "et_etdump_open of the empty mapping: \"empty file\"");
    et_etdump_close(&d);
    et_unmap_file(&mf);

    struct {
        const char *path, *want;
        et_error_kind kind;
    } cases[] = {
        {missing, "No such file or directory", ET_ERR_IO},
        {dir, "is a directory", ET_ERR_IO},
        {empty, "empty file", ET_ERR_FORMAT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        et_inspector_options o;
        et_inspector_options_init(&o);
        o.etdump_path = cases[i].path;
        et_inspector *insp = et_inspector_open(&o, &err);
        snprintf(want, sizeof want, "%s: ", cases[i].path);
        ok(!insp && err.kind == cases[i].kind && strncmp(err.msg, want, strlen(want)) == 0 &&
               strstr(err.msg, cases[i].want),
           "et_inspector_open(etdump_path): %s -> \"PATH: ...%s\"",
           i == 0 ? "missing file" : i == 1 ? "directory" : "empty file", cases[i].want);
        if (insp)
            et_inspector_free(insp);
        else if (!strstr(err.msg, cases[i].want))
            diag("got: %s", err.msg);
    }
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_path = sample_path;
    et_inspector *insp = et_inspector_open(&o, &err);
    ok(insp != NULL, "et_inspector_open(etdump_path = sample.etdp) succeeds");
    et_inspector_free(insp);
    o.etdump_data = (const uint8_t *)"";
    insp = et_inspector_open(&o, &err);
    ok(!insp && err.kind == ET_ERR_USAGE && strstr(err.msg, "Expecting exactly one"),
       "both etdump_path and etdump_data: usage error");
    et_inspector_free(insp);

    remove(empty);
    rmdir(dir);
}

/* The event cursor (the Lua iterator's decoder) against
 * et_etdump_event_verified, event by event over every run of a verified
 * dump; on the sample, the values of run 2's first events as the fixture
 * (tests/fixtures/sample.json) has them.  Returns the events compared. */
static uint64_t test_cursor(const char *label, const bytes *b, bool sample)
{
    et_etdump d;
    et_error err;
    if (!ok(et_etdump_open(&d, b->p, b->n, &err) == 0 && et_etdump_verify_all(&d, &err) == 0,
            "%s: opens and verifies for the cursor", label)) {
        diag("%s", err.msg);
        return 0;
    }
    uint64_t n = 0, bad = 0;
    for (uint32_t ri = 0; ri < et_etdump_num_runs(&d); ri++) {
        et_run r;
        et_etdump_run(&d, ri, &r);
        et_event_cursor c;
        et_event_cursor_init(&c, &d, ri, &r);
        for (uint32_t i = 0; i < r.events.count; i++, n++) {
            et_raw_event a, e;
            memset(&a, 0, sizeof a);
            memset(&e, 0, sizeof e);
            et_event_cursor_get(&c, i, &a);
            et_etdump_event_verified(&d, ri, &r, i, &e);
            bool same = a.kind == e.kind && a.name.n == e.name.n &&
                        (a.name.n == 0 || memcmp(a.name.p, e.name.p, a.name.n) == 0);
            if (a.kind == ET_EV_PROFILE)
                same = same && a.start_time == e.start_time && a.end_time == e.end_time &&
                       a.instruction_id == e.instruction_id &&
                       a.delegate_debug_id_int == e.delegate_debug_id_int &&
                       a.chain_value == e.chain_value && a.chain_neg == e.chain_neg &&
                       a.delegate_debug_id_str.n == e.delegate_debug_id_str.n &&
                       a.metadata.n == e.metadata.n;
            bad += !same;
            if (sample && ri == 1 && i < 3) {
                static const struct {
                    const char *name;
                    uint64_t start, end;
                    int32_t instr, did;
                } want[] = {{"native_call_convolution.out", 100300, 220300, 0, -1},
                            {"OPERATOR_CALL", 100100, 221000, 0, -1},
                            {NULL, 222200, 252200, 1, 0}};
                ok(a.kind == ET_EV_PROFILE && a.start_time == want[i].start &&
                       a.end_time == want[i].end && a.instruction_id == want[i].instr &&
                       a.delegate_debug_id_int == want[i].did &&
                       (want[i].name ? a.name.n == strlen(want[i].name) &&
                                           memcmp(a.name.p, want[i].name, a.name.n) == 0
                                     : a.name.p == NULL),
                   "%s: run 2, event %u through the cursor: %s, %" PRIu64 "..%" PRIu64, label,
                   (unsigned)i + 1, want[i].name ? want[i].name : "(no name)", want[i].start,
                   want[i].end);
            }
        }
    }
    ok(bad == 0, "%s: %" PRIu64 " events through the cursor decode as et_etdump_event_verified "
                 "(%" PRIu64 " differ)", label, n, bad);
    et_etdump_close(&d);
    return n;
}

/* Run every group; the sample is required, the shared corpus optional.
 * Returns 0 when every test passed. */
int main(void)
{
    const char *build = getenv("ET_BUILD");
    const char *shared = getenv("ET_SHARED");
    char path[1024];
    if (!build || !*build)
        build = "build";
    if (!shared || !*shared)
        shared = "../shared";

    snprintf(path, sizeof path, "%s/fixtures/sample.etdp", build);
    bytes s = tap_read_file(path);
    if (!ok(s.p != NULL && s.n > 12, "read %s", path)) {
        diag("build it with: make %s", path);
        skip_n(1, "sample.etdp is missing");
        return done_testing();
    }
    test_sample_baseline(&s);
    loc l;
    if (ok(locate(s.p, s.n, &l) == 0, "located the parts of sample.etdp to patch")) {
        test_layout(&s);
        test_sample_mutations(&s, &l);
    } else {
        skip_n(1, "sample.etdp does not have the expected shape");
    }
    truncation_sweep("sample.etdp", s.p, s.n);
    test_cursor("sample.etdp", &s, true);
    test_built();
    test_files(path);

    char corpus[1024];
    struct stat st;
    snprintf(corpus, sizeof corpus, "%s/corpus", shared);
    snprintf(path, sizeof path, "%s/corpus/etdump/repo_docs_tutorial_etdump.etdp", shared);
    if (stat(corpus, &st) != 0) {
        skip_n(1, "no shared corpus ($ET_SHARED/corpus): tutorial ETDump not tested");
    } else {
        bytes t = tap_read_file(path);
        if (ok(t.p != NULL, "read %s", path)) {
            et_etdump d;
            et_error err;
            int rc = et_etdump_open(&d, t.p, t.n, &err);
            ok(rc == 0 && et_etdump_verify_all(&d, &err) == 0 && et_etdump_num_runs(&d) == 2 &&
                   d.num_profile_events == 31,
               "tutorial ETDump: 2 runs, 31 profile events");
            if (rc != 0)
                diag("%s", err.msg);
            et_etdump_close(&d);
            truncation_sweep("tutorial", t.p, t.n);
        }
        free(t.p);
        static const char *const cursor_dumps[] = {"medium", "multiblock", "debug", "alloc",
                                                   "real_add_x10", "cycles"};
        for (size_t k = 0; k < sizeof cursor_dumps / sizeof cursor_dumps[0]; k++) {
            snprintf(path, sizeof path, "%s/corpus/etdump/%s.etdp", shared, cursor_dumps[k]);
            bytes c = tap_read_file(path);
            if (c.p)
                test_cursor(cursor_dumps[k], &c, false);
            else
                skip_n(1, "a corpus ETDump is missing: its cursor check not run");
            free(c.p);
        }
    }
    free(s.p);
    return done_testing();
}
