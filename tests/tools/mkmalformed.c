/*
 * mkmalformed.c - write the malformed ETDump corpus (tests/malformed/).
 *
 * Usage: mkmalformed OUT_DIR SAMPLE_ETDP
 *
 * Each defect starts from SAMPLE_ETDP (build/fixtures/sample.etdp: a
 * size-prefixed ETDump with 4 runs of profile events) and patches bytes
 * found by walking it with the fb.h accessors; a few append new tables at
 * the end (every uoffset points forward, so appended tables can be linked
 * from anywhere before them) to reach debug events and tensors, which the
 * sample lacks.  For each defect NAME it writes OUT_DIR/NAME.etdp and
 * OUT_DIR/NAME.expect (one line: a substring of the error the CLI prints),
 * then OUT_DIR/README.md with a table of them all.
 *
 * Before writing, every file is loaded through et_inspector_open() and the
 * error must contain its expected text, so the corpus cannot drift from the
 * reader silently.  Exit status: 0 done, 1 a defect did not fail as
 * expected or a file could not be written, 2 usage or unreadable sample.
 *
 * Regenerate with:
 *   make build/tools/mkmalformed build/fixtures/sample.etdp
 *   build/tools/mkmalformed tests/malformed build/fixtures/sample.etdp
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/etdump.h"
#include "format/fb.h"
#include "model/model.h"

/* A growing byte buffer: the file being made. */
typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

/* Append k zero bytes.  Returns the position of the first.  Exits on out
 * of memory. */
static uint32_t zeros(buf *b, size_t k)
{
    if (b->n + k > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + k)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            perror("mkmalformed: realloc");
            exit(2);
        }
        b->p = p;
        b->cap = cap;
    }
    memset(b->p + b->n, 0, k);
    uint32_t at = (uint32_t)b->n;
    b->n += k;
    return at;
}

/* Pad with zeros to a multiple of `a` (a power of two). */
static void align(buf *b, unsigned a)
{
    while (b->n % a)
        zeros(b, 1);
}

/* Store v little-endian at position `at` of b (2 bytes). */
static void put16(buf *b, uint32_t at, uint16_t v)
{
    b->p[at] = (uint8_t)v;
    b->p[at + 1] = (uint8_t)(v >> 8);
}
/* Store v little-endian at position `at` of b (4 bytes). */
static void put32(buf *b, uint32_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[at + i] = (uint8_t)(v >> (8 * i));
}

/* Store at `at` the uoffset to `target` (target > at). */
static void link_to(buf *b, uint32_t at, uint32_t target)
{
    put32(b, at, target - at);
}

/* Append a vtable and an 8-aligned table with `nslots` slots of the given
 * byte sizes (0 = absent), fields in slot order aligned to their size.
 * f receives each field's position (0 when absent).  Returns the table. */
static uint32_t table(buf *b, unsigned nslots, const unsigned char *sizes, uint32_t *f)
{
    uint16_t off[8] = {0};
    unsigned o = 4;
    for (unsigned i = 0; i < nslots; i++)
        if (sizes[i]) {
            o = (o + sizes[i] - 1) & ~(sizes[i] - 1u);
            off[i] = (uint16_t)o;
            o += sizes[i];
        }
    o = (o + 3) & ~3u;
    align(b, 2);
    uint32_t vt = zeros(b, 4 + 2 * nslots);
    put16(b, vt, (uint16_t)(4 + 2 * nslots));
    put16(b, vt + 2, (uint16_t)o);
    for (unsigned i = 0; i < nslots; i++)
        put16(b, vt + 4 + 2 * i, off[i]);
    align(b, 8);
    uint32_t pos = zeros(b, o);
    put32(b, pos, pos - vt);
    for (unsigned i = 0; i < nslots; i++)
        f[i] = off[i] ? pos + off[i] : 0;
    return pos;
}

/* Append a NUL-terminated string.  Returns its position. */
static uint32_t string(buf *b, const char *s)
{
    size_t n = strlen(s);
    align(b, 4);
    uint32_t at = zeros(b, 4 + n + 1);
    put32(b, at, (uint32_t)n);
    memcpy(b->p + at + 4, s, n);
    return at;
}

/* Append an empty-element vector of `count` elements of `elem` bytes
 * (8-byte elements aligned to 8).  Returns the count's position. */
static uint32_t vector(buf *b, uint32_t count, unsigned elem)
{
    align(b, 4);
    if (elem == 8 && (b->n + 4) % 8 != 0)
        zeros(b, 4);
    uint32_t at = zeros(b, 4 + (size_t)count * elem);
    put32(b, at, count);
    return at;
}

/* Where the parts of the sample are (see locate()). */
typedef struct loc {
    fb_table root;          /* the ETDump table */
    uint32_t run_data_at;   /* its run_data uoffset field */
    fb_vec runs;            /* run_data elements */
    fb_table run0, run1;    /* RunData 0 and 1 */
    uint32_t run0_name;     /* RunData 0's name string */
    fb_vec events1;         /* RunData 1's events */
    fb_table pe;            /* the ProfileEvent of run 1, event 0 */
    uint32_t pe_name;       /* its name string */
    uint32_t pe_name_nul;   /* the NUL that ends it */
    uint16_t pe_start_mis;  /* a start_time field offset at 4 mod 8 in that table */
} loc;

/* Find the parts of the size-prefixed dump p[0..n) that the defects patch.
 * Returns 0, or -1 when the dump does not have them. */
static int locate(const uint8_t *p, size_t n, loc *l)
{
    fb_buf b = {p, 4, (uint32_t)n};
    fb_table ev;
    memset(l, 0, sizeof *l);
    if (n < 12 || !fb_table_at(&b, 4u + fb_ld_u32(p + 4), &l->root))
        return -1;
    l->run_data_at = fb_field(&b, &l->root, ETD_ETDUMP_RUN_DATA, 4);
    if (!fb_get_vector(&b, &l->root, ETD_ETDUMP_RUN_DATA, 4, &l->runs) || l->runs.count < 2 ||
        !fb_vec_table(&b, &l->runs, 0, &l->run0) || !fb_vec_table(&b, &l->runs, 1, &l->run1))
        return -1;
    l->run0_name = fb_deref(&b, fb_field(&b, &l->run0, ETD_RUN_NAME, 4));
    if (!fb_get_vector(&b, &l->run1, ETD_RUN_EVENTS, 4, &l->events1) || !l->events1.count ||
        !fb_vec_table(&b, &l->events1, 0, &ev) || !fb_get_table(&b, &ev, ETD_EVENT_PROFILE, &l->pe))
        return -1;
    uint32_t at = fb_field(&b, &l->pe, ETD_PE_NAME, 4);
    l->pe_name = at ? fb_deref(&b, at) : 0;
    l->pe_name_nul = l->pe_name ? l->pe_name + 4 + fb_ld_u32(p + l->pe_name) : 0;
    for (uint16_t o = 4; o + 8 <= l->pe.tsize && !l->pe_start_mis; o += 4)
        if ((l->pe.pos + o) % 8 == 4)
            l->pe_start_mis = o;
    return l->run_data_at && l->run0_name && l->pe_name && l->pe_start_mis ? 0 : -1;
}

/* Set the size prefix to the buffer's length after appending. */
static void resize_prefix(buf *b)
{
    align(b, 8);
    put32(b, 0, (uint32_t)(b->n - 4));
}

/* Append an Event whose DebugEvent's Value (type Tensor) holds a Tensor
 * with the given slots present (1 = sizes, 2 = strides), or, when
 * `no_entry`, a DebugEvent without debug_entry; make run 1's first event
 * point at it. */
static void append_debug_event(buf *b, const loc *l, int no_entry, int with_sizes,
                               int with_strides)
{
    static const unsigned char ev_l[] = {0, 0, 4}, de_l[] = {8, 4, 4, 0, 0, 0},
                               de_noentry_l[] = {8, 4, 0, 0, 0, 0},
                               value_l[] = {1, 4, 0, 0, 0, 0, 0, 0};
    unsigned char tensor_l[] = {1, 0, 0, 8};
    uint32_t f[8], g[8], h[8], t[8];
    align(b, 8);
    uint32_t ev = table(b, 3, ev_l, f);
    link_to(b, l->events1.pos, ev);
    uint32_t de = table(b, 6, no_entry ? de_noentry_l : de_l, g);
    link_to(b, f[2], de);
    put32(b, g[1], 0);
    if (!no_entry) {
        uint32_t v = table(b, 8, value_l, h);
        link_to(b, g[2], v);
        b->p[h[0]] = ET_VAL_TENSOR;
        tensor_l[1] = with_sizes ? 4 : 0;
        tensor_l[2] = with_strides ? 4 : 0;
        uint32_t tt = table(b, 4, tensor_l, t);
        link_to(b, h[1], tt);
        b->p[t[0]] = 6; /* FLOAT */
        if (with_sizes) {
            uint32_t s = vector(b, 1, 8);
            link_to(b, t[1], s);
            b->p[s + 4] = 3;
        }
        if (with_strides) {
            uint32_t s = vector(b, 1, 8);
            link_to(b, t[2], s);
            b->p[s + 4] = 1;
        }
    }
    resize_prefix(b);
}

/* ------------------------------------------------------------ defects */

/* One defect: its file name, what is wrong, what the CLI must say, and
 * the patch that makes it (b holds a copy of the sample, l its parts).
 * When `at` is not NULL, `expect` holds one %u: the number at() gives (a
 * byte position or field offset in this sample). */
typedef struct defect {
    const char *name;
    const char *wrong;
    const char *expect;
    void (*make)(buf *b, const loc *l);
    uint32_t (*at)(const loc *l);
} defect;

/* The numbers the expected messages name (see defect.at); each takes the
 * sample's parts.  Returns the number for the root table. */
static uint32_t at_root(const loc *l) { return l->root.pos; }
/* Returns the number for the run_data vector's count. */
static uint32_t at_runs_count(const loc *l) { return l->runs.pos - 4; }
/* Returns the number for the run_data[0] uoffset. */
static uint32_t at_runs0(const loc *l) { return l->runs.pos; }
/* Returns the number for RunData 0. */
static uint32_t at_run0(const loc *l) { return l->run0.pos; }
/* Returns the number for RunData 1 moved by 2. */
static uint32_t at_run1_mis(const loc *l) { return l->run1.pos + 2; }
/* Returns the number for RunData 0's name string. */
static uint32_t at_run0_name(const loc *l) { return l->run0_name; }
/* Returns the number for the NUL after the ProfileEvent's name. */
static uint32_t at_pe_nul(const loc *l) { return l->pe_name_nul; }
/* Returns the number for run 1's events[0] uoffset. */
static uint32_t at_events1(const loc *l) { return l->events1.pos; }
/* Returns the number for the root's bad run_data field offset. */
static uint32_t at_root_field(const loc *l) { return l->root.tsize + 4u; }
/* Returns the number for the ProfileEvent's bad end_time field offset. */
static uint32_t at_pe_end(const loc *l) { return l->pe.tsize - 4u; }
/* Returns the number for the misaligned start_time. */
static uint32_t at_pe_start(const loc *l) { return l->pe.pos + l->pe_start_mis; }

/* The patches, one per defect: each takes b (a copy of the sample, patched
 * in place) and l (its parts).  Patch: keep 5 bytes. */
static void m_short(buf *b, const loc *l) { (void)l; b->n = 5; }
/* Patch: identifier -> "XD00". */
static void m_bad_identifier(buf *b, const loc *l) { (void)l; memcpy(b->p + 8, "XD00", 4); }
/* Patch: cut in half. */
static void m_truncated(buf *b, const loc *l) { (void)l; b->n /= 2; }
/* Patch: size prefix 4. */
static void m_prefix_tiny(buf *b, const loc *l) { (void)l; put32(b, 0, 4); }
/* Patch: root offset 0x7ffffff0. */
static void m_root_past_end(buf *b, const loc *l) { (void)l; put32(b, 4, 0x7ffffff0u); }
/* Patch: root offset 0. */
static void m_root_zero(buf *b, const loc *l) { (void)l; put32(b, 4, 0); }
/* Patch: root soffset 0x7fffffff. */
static void m_vtable_outside(buf *b, const loc *l) { put32(b, l->root.pos, 0x7fffffffu); }
/* Patch: root vtable at byte 0. */
static void m_vtable_in_prefix(buf *b, const loc *l) { put32(b, l->root.pos, l->root.pos); }
/* Patch: root vtable size 7. */
static void m_vtable_size_odd(buf *b, const loc *l) { put16(b, l->root.vt, 7); }
/* Patch: root run_data field offset = inline size + 4. */
static void m_field_outside(buf *b, const loc *l)
{
    put16(b, l->root.vt + 4 + 2 * ETD_ETDUMP_RUN_DATA, (uint16_t)(l->root.tsize + 4));
}
/* Patch: run_data count 0x7fffffff. */
static void m_run_data_huge(buf *b, const loc *l) { put32(b, l->runs.pos - 4, 0x7fffffffu); }
/* Patch: run_data[0] uoffset 0. */
static void m_run_zero_offset(buf *b, const loc *l) { put32(b, l->runs.pos, 0); }
/* Patch: run_data[1] uoffset + 2. */
static void m_run_misaligned(buf *b, const loc *l)
{
    put32(b, l->runs.pos + 4, fb_ld_u32(b->p + l->runs.pos + 4) + 2);
}
/* Patch: run 0 name length 0x7fffffff. */
static void m_string_past_end(buf *b, const loc *l) { put32(b, l->run0_name, 0x7fffffffu); }
/* Patch: the ProfileEvent name's NUL -> '!'. */
static void m_string_no_nul(buf *b, const loc *l)
{
    b->p[l->pe_name_nul] = '!';
}
/* Patch: RunData name slot zeroed. */
static void m_run_name_absent(buf *b, const loc *l) { put16(b, l->run0.vt + 4, 0); }
/* Patch: run 1's events[0] uoffset past the end. */
static void m_event_past_end(buf *b, const loc *l)
{
    put32(b, l->events1.pos, (uint32_t)(b->n - l->events1.pos + 64));
}
/* Patch: start_time at 4 mod 8. */
static void m_time_misaligned(buf *b, const loc *l)
{
    put16(b, l->pe.vt + 4 + 2 * ETD_PE_START, l->pe_start_mis);
}
/* Patch: end_time sticks out of the table. */
static void m_time_outside(buf *b, const loc *l)
{
    put16(b, l->pe.vt + 4 + 2 * ETD_PE_END, (uint16_t)(l->pe.tsize - 4));
}
/* Patch: a DebugEvent without debug_entry. */
static void m_debug_entry_absent(buf *b, const loc *l) { append_debug_event(b, l, 1, 0, 0); }
/* Patch: a Tensor without sizes. */
static void m_tensor_sizes_absent(buf *b, const loc *l) { append_debug_event(b, l, 0, 0, 1); }

/* 64 runs that all name one appended RunData whose 64 events all name one
 * appended Event: 4096 event visits from about 2.7 KiB. */
static void m_shared_budget(buf *b, const loc *l)
{
    static const unsigned char run_l[] = {4, 0, 0, 4}, ev_l[] = {4},
                               pe_l[] = {4, 0, 4, 0, 0, 0, 8, 8};
    uint32_t f[8];
    align(b, 4);
    uint32_t runs = vector(b, 64, 4);
    link_to(b, l->run_data_at, runs);
    uint32_t run = table(b, 4, run_l, f);
    for (uint32_t i = 0; i < 64; i++)
        link_to(b, runs + 4 + 4 * i, run);
    uint32_t events_at = f[3];
    link_to(b, f[0], string(b, "Execute"));
    uint32_t evs = vector(b, 64, 4);
    link_to(b, events_at, evs);
    uint32_t ev = table(b, 1, ev_l, f);
    for (uint32_t i = 0; i < 64; i++)
        link_to(b, evs + 4 + 4 * i, ev);
    uint32_t pe_at = f[0];
    uint32_t pe = table(b, 8, pe_l, f);
    link_to(b, pe_at, pe);
    link_to(b, f[0], string(b, "op"));
    put32(b, f[2], 0);   /* instruction_id 0 */
    b->p[f[7]] = 1;      /* end_time 1 */
    resize_prefix(b);
}

static const defect defects[] = {
    {"short", "5 bytes: too short for a root offset and an identifier",
     "file is only 5 bytes, too short for an ETDump", m_short, NULL},
    {"bad_identifier", "identifier \"ED00\" at bytes 8..11 replaced by \"XD00\"",
     "not an ETDump: expected file identifier \"ED00\" at byte 8 (size-prefixed) or byte 4 "
     "(plain), found \"XD00\"",
     m_bad_identifier, NULL},
    {"truncated", "the sample cut in half; the size prefix still gives the full length",
     "byte 0: truncated ETDump: the size prefix says", m_truncated, NULL},
    {"size_prefix_tiny", "size prefix 4: cannot hold the root offset and identifier",
     "byte 0: size prefix 4 is too small to hold the root offset and identifier", m_prefix_tiny,
     NULL},
    {"root_offset_past_end", "root offset 0x7ffffff0",
     "byte 4: root offset 2147483632 points outside the buffer", m_root_past_end, NULL},
    {"root_offset_zero", "root offset 0", "byte 4: invalid root offset 0",
     m_root_zero, NULL},
    {"vtable_outside", "root table's soffset 0x7fffffff: vtable before the start of the file",
     "ETDump: vtable offset 2147483647 points outside the buffer", m_vtable_outside, NULL},
    {"vtable_in_prefix", "root table's vtable placed at byte 0, inside the size prefix",
     "ETDump: vtable offset %u points outside the buffer (to byte 0)", m_vtable_in_prefix,
     at_root},
    {"vtable_size_odd", "root vtable size 8 -> 7",
     "ETDump: vtable size 7 is invalid (expected an even number >= 4)", m_vtable_size_odd, NULL},
    {"field_outside_table", "root vtable: run_data's field offset past the table's inline size",
     "ETDump: field slot 1 has offset %u outside the table's", m_field_outside, at_root_field},
    {"run_data_count_huge", "run_data vector count 0x7fffffff",
     "byte %u: run_data: vector of 2147483647 elements of 4 bytes does not fit", m_run_data_huge,
     at_runs_count},
    {"run_data_zero_offset", "run_data[0] uoffset 0",
     "run_data[0]: byte %u: RunData: invalid offset 0", m_run_zero_offset, at_runs0},
    {"table_misaligned", "run_data[1] uoffset + 2: the RunData table starts at 2 mod 4",
     "run_data[1]: byte %u: RunData: table is not aligned to 4 bytes", m_run_misaligned,
     at_run1_mis},
    {"string_past_end", "run_data[0].name length 0x7fffffff",
     "run_data[0].name: byte %u: string of 2147483647 bytes runs past the end",
     m_string_past_end, at_run0_name},
    {"string_no_nul", "NUL after run 1's first event name replaced by '!'",
     "run_data[1].events[0].profile_event.name: byte %u: string is not NUL-terminated",
     m_string_no_nul, at_pe_nul},
    {"run_name_absent", "RunData vtable: name slot zeroed (a required field)",
     "run_data[0]: byte %u: RunData: required field 'name' is absent", m_run_name_absent,
     at_run0},
    {"event_offset_past_end", "run_data[1].events[0] uoffset points 64 bytes past the end",
     "run_data[1].events[0]: byte %u: Event: offset", m_event_past_end, at_events1},
    {"time_misaligned", "ProfileEvent vtable: start_time moved to 4 mod 8",
     "run_data[1].events[0].profile_event: byte %u: start_time: 8-byte field is not aligned",
     m_time_misaligned, at_pe_start},
    {"time_outside_table", "ProfileEvent vtable: end_time at inline size - 4 (sticks out)",
     "end_time: 8-byte field at offset %u does not fit in the table's", m_time_outside,
     at_pe_end},
    {"debug_entry_absent", "an appended DebugEvent without debug_entry (required)",
     "DebugEvent: required field 'debug_entry' is absent", m_debug_entry_absent, NULL},
    {"tensor_sizes_absent", "an appended debug Tensor without sizes (required)",
     "Tensor: required field 'sizes' is absent", m_tensor_sizes_absent, NULL},
    {"shared_table_budget",
     "64 runs naming one appended RunData whose 64 events name one Event (4096 visits)",
     "more tables than the buffer can hold (offsets are shared or overlapping)",
     m_shared_budget, NULL},
};

/* Read a whole file into b.  Returns 0, or -1 when it cannot be read. */
static int read_all(const char *path, buf *b)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    uint8_t chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        uint32_t at = zeros(b, got); /* may move b->p */
        memcpy(b->p + at, chunk, got);
    }
    int bad = ferror(fp);
    fclose(fp);
    return bad ? -1 : 0;
}

/* Write n bytes to dir/name+ext.  Returns 0, or -1 with a message. */
static int write_file(const char *dir, const char *name, const char *ext, const void *p,
                      size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    FILE *fp = fopen(path, "wb");
    if (!fp || (n && fwrite(p, 1, n, fp) != n) || fclose(fp) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* Write every defect of the table into argv[1] from the sample argv[2].
 * Returns the exit status (see the top of the file). */
int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mkmalformed OUT_DIR SAMPLE_ETDP\n");
        return 2;
    }
    buf sample = {NULL, 0, 0};
    loc l;
    if (read_all(argv[2], &sample) != 0 || locate(sample.p, sample.n, &l) != 0) {
        fprintf(stderr, "mkmalformed: %s: cannot read it, or it is not a multi-run ETDump\n",
                argv[2]);
        free(sample.p);
        return 2;
    }
    int rc = 0;
    FILE *readme = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/README.md", argv[1]);
    readme = fopen(path, "w");
    if (!readme) {
        perror(path);
        free(sample.p);
        return 1;
    }
    fputs("# Malformed ETDump corpus\n\n"
          "Each `NAME.etdp` here is `build/fixtures/sample.etdp` with one defect; "
          "`NAME.expect` holds\na substring of the error `etinspect --etdump_path NAME.etdp` "
          "must print on stderr\n(exit status 1). `tests/e2e/malformed.t` runs them all, and "
          "`make fuzz` seeds its corpus\nwith them. Generated by `tests/tools/mkmalformed.c`, "
          "which also checks each expectation\nagainst the reader; regenerate with\n\n"
          "    make build/tools/mkmalformed build/fixtures/sample.etdp\n"
          "    build/tools/mkmalformed tests/malformed build/fixtures/sample.etdp\n\n"
          "RunData, Event and ProfileEvent vtables are shared by many tables in the sample, "
          "so a\npatched vtable breaks every table that uses it; the error names the first one "
          "verified.\n\n"
          "| file | what is wrong | expected message (substring) |\n"
          "|---|---|---|\n",
          readme);
    for (size_t i = 0; i < sizeof defects / sizeof defects[0]; i++) {
        const defect *d = &defects[i];
        buf b = {NULL, 0, 0};
        char expect[512];
        if (d->at)
            snprintf(expect, sizeof expect, d->expect, d->at(&l));
        else
            snprintf(expect, sizeof expect, "%s", d->expect);
        zeros(&b, sample.n);
        memcpy(b.p, sample.p, sample.n);
        d->make(&b, &l);
        /* self-check through the whole model, as the CLI loads it */
        et_inspector_options o;
        et_error err;
        et_inspector_options_init(&o);
        o.etdump_data = b.p;
        o.etdump_size = b.n;
        et_inspector *insp = et_inspector_open(&o, &err);
        if (insp || !strstr(err.msg, expect)) {
            fprintf(stderr, "mkmalformed: %s: expected an error with \"%s\", got: %s\n",
                    d->name, expect, insp ? "success" : err.msg);
            et_inspector_free(insp);
            rc = 1;
        } else {
            char line[sizeof expect + 2];
            snprintf(line, sizeof line, "%s\n", expect);
            if (write_file(argv[1], d->name, ".etdp", b.p, b.n) != 0 ||
                write_file(argv[1], d->name, ".expect", line, strlen(line)) != 0)
                rc = 1;
        }
        fprintf(readme, "| `%s.etdp` (%zu B) | %s | `%s` |\n", d->name, b.n, d->wrong,
                expect);
        free(b.p);
    }
    if (fclose(readme) != 0) {
        perror("README.md");
        rc = 1;
    }
    free(sample.p);
    return rc;
}
