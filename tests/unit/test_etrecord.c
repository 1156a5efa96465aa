/*
 * test_etrecord.c - the ETRecord reader's first layer (src/core/format/etrecord.h):
 * the ZIP container, entry classification (spec §5.4), companions, the JSON
 * maps, and every way a record can be malformed.
 *
 * Records are built in memory with libzip (stored and deflated), some then
 * patched byte by byte (declared sizes, names, compression methods) to make
 * archives libzip would never write.  Every expected value below is the
 * input written in the test, read back.
 *
 * Environment:
 *   ET_SHARED  the shared directory; $ET_SHARED/corpus/etdump holds the real
 *              2023 ETRecord (repo_example_etrecord_v0_2023.bin); its tests
 *              are skipped, saying so, when it is absent.
 *   ET_BUILD   the build directory (default build); $ET_BUILD/tools/mkzip is
 *              tested when it is there.
 *   TMPDIR     for the files the path tests write (default /tmp).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zip.h>

#include "format/etrecord.h"
#include "tap.h"

typedef tap_bytes bytes;


/* ------------------------------------------------------------------ */
/* building archives                                                   */

/* A source of `size` bytes made on the fly (a ZIP bomb's content): zeros,
 * or `head`, then `unit` repeated, then `tail` (size = their lengths with
 * the repeats). */
typedef struct zeros {
    uint64_t size, pos;
    const char *head, *unit, *tail;
    zip_error_t error;
} zeros;

/* The byte at `pos` of a patterned source. */
static char pattern_at(const zeros *z, uint64_t pos)
{
    size_t hl = strlen(z->head), ul = strlen(z->unit), tl = strlen(z->tail);
    if (pos < hl)
        return z->head[pos];
    if (pos >= z->size - tl)
        return z->tail[pos - (z->size - tl)];
    return z->unit[(pos - hl) % ul];
}

static zip_int64_t zeros_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    zeros *z = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        z->pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        uint64_t k = z->size - z->pos;
        if (k > len)
            k = len;
        if (!z->unit) {
            memset(data, 0, (size_t)k);
        } else {
            /* byte by byte at the ends, whole units copied in the middle */
            char *out = data;
            size_t hl = strlen(z->head), ul = strlen(z->unit), tl = strlen(z->tail);
            for (uint64_t i = 0; i < k;) {
                uint64_t p = z->pos + i;
                if (p >= hl && p < z->size - tl && (p - hl) % ul == 0 && p + ul <= z->size - tl &&
                    i + ul <= k) {
                    memcpy(out + i, z->unit, ul);
                    i += ul;
                } else {
                    out[i++] = pattern_at(z, p);
                }
            }
        }
        z->pos += k;
        return (zip_int64_t)k;
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE:
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->size = z->size;
        st->mtime = 1698068682;
        st->valid |= ZIP_STAT_SIZE | ZIP_STAT_MTIME;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&z->error, data, len);
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              -1);
    default:
        zip_error_set(&z->error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* One entry to write: `data` (NULL: "") of `n` bytes (SIZE_MAX: strlen),
 * or, when zeros > 0 and data is NULL, that many zero bytes, or when zeros
 * > 0 and data is "HEAD\1UNIT\1TAIL", HEAD + `zeros` repeats of UNIT +
 * TAIL; deflated when `deflate`. */
typedef struct zent {
    const char *name;
    const char *data;
    size_t n;
    int deflate;
    uint64_t zeros;
} zent;

#define E(name, data) {name, data, SIZE_MAX, -1, 0}

/* Build a ZIP archive in memory.  deflate_all: the compression of entries
 * whose .deflate is -1.  Returns the bytes (exits on failure: the test
 * cannot go on). */
static bytes zbuild(const zent *es, size_t n, int deflate_all)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *out = zip_source_buffer_create(NULL, 0, 0, &ze);
    zip_t *z = out ? zip_open_from_source(out, ZIP_TRUNCATE, &ze) : NULL;
    if (!z) {
        fprintf(stderr, "zbuild: %s\n", zip_error_strerror(&ze));
        exit(2);
    }
    zip_source_keep(out);
    zeros *zs = calloc(n ? n : 1, sizeof *zs);
    for (size_t i = 0; i < n; i++) {
        zip_source_t *src;
        if (es[i].zeros) {
            zs[i].size = es[i].zeros;
            if (es[i].data) { /* "HEAD\1UNIT\1TAIL", split in a copy */
                char *h = strdup(es[i].data), *u = h ? strchr(h, '\1') : NULL,
                     *t = u ? strchr(u + 1, '\1') : NULL;
                if (!t) {
                    fprintf(stderr, "zbuild: %s: a pattern is HEAD\\1UNIT\\1TAIL\n", es[i].name);
                    exit(2);
                }
                *u++ = 0;
                *t++ = 0;
                zs[i].head = h;
                zs[i].unit = u;
                zs[i].tail = t;
                zs[i].size = strlen(h) + es[i].zeros * strlen(u) + strlen(t);
            }
            zip_error_init(&zs[i].error);
            src = zip_source_function(z, zeros_cb, &zs[i]);
        } else {
            const char *d = es[i].data ? es[i].data : "";
            size_t len = es[i].n == SIZE_MAX ? strlen(d) : es[i].n;
            src = zip_source_buffer(z, d, len, 0);
        }
        zip_int64_t idx = src ? zip_file_add(z, es[i].name, src, 0) : -1;
        int deflate = es[i].deflate < 0 ? deflate_all : es[i].deflate;
        if (idx < 0 ||
            zip_set_file_compression(z, (zip_uint64_t)idx, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                     deflate && es[i].zeros ? 1 : 0) != 0 ||
            zip_file_set_mtime(z, (zip_uint64_t)idx, 1698068682, 0) != 0) {
            fprintf(stderr, "zbuild: %s: %s\n", es[i].name, zip_strerror(z));
            exit(2);
        }
    }
    if (zip_close(z) != 0) {
        fprintf(stderr, "zbuild: close: %s\n", zip_strerror(z));
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        if (es[i].zeros) {
            zip_error_fini(&zs[i].error);
            free((char *)zs[i].head);
        }
    free(zs);
    bytes b = {.p = NULL, .n = 0};
    zip_stat_t st;
    if (zip_source_stat(out, &st) != 0 || zip_source_open(out) != 0) {
        fprintf(stderr, "zbuild: cannot read back\n");
        exit(2);
    }
    b.n = (size_t)st.size;
    b.p = malloc(b.n ? b.n : 1);
    if (!b.p || zip_source_read(out, b.p, b.n) != (zip_int64_t)b.n) {
        fprintf(stderr, "zbuild: cannot read back\n");
        exit(2);
    }
    zip_source_close(out);
    zip_source_free(out);
    return b;
}

static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Where entry `name` is: its central directory header (*cd) and local
 * header (*lh) offsets.  The archive has no comment (libzip writes none).
 * Returns 0, or -1 when there is no such entry. */
static int zlocate(const bytes *b, const char *name, size_t *cd, size_t *lh)
{
    const uint8_t *e = b->p + b->n - 22;
    size_t at = u32(e + 16), count = u16(e + 10);
    for (size_t i = 0; i < count; i++) {
        size_t ln = u16(b->p + at + 28), lx = u16(b->p + at + 30), lc = u16(b->p + at + 32);
        if (ln == strlen(name) && memcmp(b->p + at + 46, name, ln) == 0) {
            *cd = at;
            *lh = u32(b->p + at + 42);
            return 0;
        }
        at += 46 + ln + lx + lc;
    }
    return -1;
}

/* Fields patched in both headers (offsets in the central / local header). */
enum { F_METHOD, F_CRC, F_COMP_SIZE, F_SIZE, F_NAME };
static const size_t cd_off[] = {10, 16, 20, 24, 46}, lh_off[] = {8, 14, 18, 22, 30};

/* Set field f of entry `name` to v in both headers (F_METHOD: 16 bits;
 * F_NAME: the name's first byte). */
static void zpatch(bytes *b, const char *name, int f, uint32_t v)
{
    size_t cd, lh;
    if (zlocate(b, name, &cd, &lh) != 0) {
        fprintf(stderr, "zpatch: no entry %s\n", name);
        exit(2);
    }
    if (f == F_METHOD) {
        b->p[cd + cd_off[f]] = (uint8_t)v;
        b->p[cd + cd_off[f] + 1] = (uint8_t)(v >> 8);
        b->p[lh + lh_off[f]] = (uint8_t)v;
        b->p[lh + lh_off[f] + 1] = (uint8_t)(v >> 8);
    } else if (f == F_NAME) {
        b->p[cd + cd_off[f] + strlen(name) - 1] = (uint8_t)v;
        b->p[lh + lh_off[f] + strlen(name) - 1] = (uint8_t)v;
    } else {
        put32(b->p + cd + cd_off[f], v);
        put32(b->p + lh + lh_off[f], v);
    }
}

/* The data offset of entry `name` (after its local header). */
static size_t zdata(const bytes *b, const char *name)
{
    size_t cd, lh;
    if (zlocate(b, name, &cd, &lh) != 0)
        exit(2);
    return lh + 30 + u16(b->p + lh + 26) + u16(b->p + lh + 28);
}

/* ------------------------------------------------------------------ */
/* assertions                                                          */

/* Open b with caps (0: default); the record or NULL with *err. */
static et_etrecord *open_b(const bytes *b, uint64_t max_entry, uint64_t max_total, et_error *err)
{
    et_etrecord_options o;
    et_etrecord_options_init(&o);
    o.data = b->p;
    o.size = b->n;
    o.label = "rec.bin";
    o.max_entry_size = max_entry;
    o.max_total_size = max_total;
    return et_etrecord_open(&o, err);
}

/* The open of b fails with a format error whose message holds every
 * non-NULL key (up to three). */
static void rejects_caps(const bytes *b, uint64_t max_entry, uint64_t max_total, const char *k1,
                         const char *k2, const char *k3, const char *what)
{
    et_error err;
    et_error_clear(&err);
    et_etrecord *r = open_b(b, max_entry, max_total, &err);
    int pass = !r && err.kind == ET_ERR_FORMAT && strncmp(err.msg, "rec.bin: ", 9) == 0 &&
               (!k1 || strstr(err.msg, k1)) && (!k2 || strstr(err.msg, k2)) &&
               (!k3 || strstr(err.msg, k3));
    ok(pass, "%s", what);
    if (!pass)
        diag("got (kind %d): %s", err.kind, r ? "(opened)" : err.msg);
    else
        diag("  %s", err.msg);
    et_etrecord_free(r);
}

static void rejects(const bytes *b, const char *k1, const char *k2, const char *k3,
                    const char *what)
{
    rejects_caps(b, 0, 0, k1, k2, k3, what);
}

static bool handles_are(const et_etr_handles *h, bool is_list, size_t n, const int64_t *v)
{
    if (!h || h->is_list != is_list || h->n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (h->v[i] != v[i])
            return false;
    return true;
}

static bool ids_are(const et_etr_delegate_id *d, const char *key, bool is_int, int64_t int_id,
                    bool is_list, size_t n, const int64_t *v)
{
    if (!d || strcmp(d->key, key) != 0 || d->is_int != is_int || (is_int && d->int_id != int_id) ||
        d->is_list != is_list || d->n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (d->handles[i] != v[i])
            return false;
    return true;
}

/* Entry i is `name` of kind k (companion c, method m, program p). */
static void entry_is(const et_etrecord *r, size_t i, const char *name, et_etr_kind k,
                     et_etr_companion c, const char *m, ptrdiff_t p, const char *ctx)
{
    const et_etr_entry *e = i < r->n_entries ? &r->entries[i] : NULL;
    int pass = e && strcmp(e->name, name) == 0 && e->kind == k && e->companion == c &&
               ((!m && !e->method) || (m && e->method && strcmp(e->method, m) == 0)) &&
               e->program == p;
    ok(pass, "%s: entry %zu '%s' is %s%s%s%s%s, program %td", ctx, i, name, et_etr_kind_name(k),
       c ? " " : "", et_etr_companion_name(c), m ? " method " : "", m ? m : "", p);
    if (!pass && e)
        diag("got '%s' %s %s method %s program %td", e->name, et_etr_kind_name(e->kind),
             et_etr_companion_name(e->companion), e->method ? e->method : "-", e->program);
}

/* Read entry `name` and compare with want. */
static void read_is(et_etrecord *r, const char *name, const char *want, const char *ctx)
{
    ptrdiff_t i = et_etrecord_find_entry(r, name);
    uint8_t *p = NULL;
    size_t n = 0;
    et_error err;
    if (i < 0 || et_etrecord_read(r, (size_t)i, &p, &n, &err) != 0) {
        ok(0, "%s: read '%s'", ctx, name);
        diag("%s", i < 0 ? "no such entry" : err.msg);
        return;
    }
    ok(n == strlen(want) && memcmp(p, want, n) == 0 && p[n] == '\0',
       "%s: read '%s' gives its %zu bytes, NUL-terminated", ctx, name, strlen(want));
    free(p);
}

/* ------------------------------------------------------------------ */
/* the current layout, everything present                              */

static const char *DHM =
    "{\"forward\": {\"0\": 1, \"1\": 2, \"3\": [3, 4, 5], \"10\": 7, \"2\": []},\n"
    " \"encode\": {\"0\": 9, \"4\": [11]}}";
static const char *DM =
    "{\"forward\": {\"3\": {\"name\": \"XnnpackBackend\", \"delegate_map\": "
    "{\"0\": [10, 11], \"1\": [11, 12], \"fused_op_1_2_3\": [11, 12, 15], \"-1\": 5, \"07\": [1]}}},"
    " \"encode\": {\"4\": {\"name\": \"VulkanBackend\", \"delegate_map\": {}},"
    " \"0\": {\"delegate_map\": null}}}";
static const char *NOM = "{\"forward\": {\"3\": 2, \"10\": 1}, \"encode\": {\"4\": 3}}";

static void test_current_layout(int deflate)
{
    const char *ctx = deflate ? "current layout, deflated" : "current layout, stored";
    const zent es[] = {
        E("ETRECORD_V0", ""),
        E("exported_program", "{\"aten\": true}"),
        E("exported_program_state_dict", "SD-aten"),
        E("exported_program_constants", "C-aten"),
        E("exported_program_example_inputs", ""),
        E("export_graph_id", "140234567890123"),
        E("edge_dialect_exported_program/forward", "{\"edge\": \"forward\"}"),
        E("edge_dialect_exported_program/forward_state_dict", "SD-fwd"),
        E("edge_dialect_exported_program/forward_constants", "C-fwd"),
        E("edge_dialect_exported_program/forward_example_inputs", "EI-fwd"),
        E("edge_dialect_exported_program/encode", "{\"edge\": \"encode\"}"),
        E("edge_dialect_exported_program/encode_state_dict", "SD-enc"),
        E("edge_dialect_exported_program/encode_constants", "C-enc"),
        E("aten_dialect_output/forward", "{\"graph_map\": 1}"),
        E("aten_dialect_output/forward_state_dict", "SD-gm"),
        E("aten_dialect_output/forward_constants", "C-gm"),
        E("aten_dialect_output/forward_example_inputs", "EI-gm"),
        E("et_dialect_graph_module/forward", "{}"),
        E("debug_handle_map", DHM),
        E("delegate_map", DM),
        E("instruction_id_to_num_outs_map", NOM),
        E("reference_outputs", "PK-torch-save-outputs"),
        E("representative_inputs", "PK-torch-save-inputs"),
        /* the plain suffix test (QUIRK): no underscore, no program */
        E("xstate_dict", "q"),
        E("mymodule/forwardconstants", "q"),
        /* rule 4 wants the underscore: this is the edge program of method
         * "fwdstate_dict" */
        E("edge_dialect_exported_program/fwdstate_dict", "{}"),
    };
    size_t n = sizeof es / sizeof es[0];
    bytes b = zbuild(es, n, deflate);
    et_error err;
    et_etrecord *r = open_b(&b, 0, 0, &err);
    if (!ok(r != NULL, "%s: opens", ctx)) {
        diag("%s", err.msg);
        free(b.p);
        return;
    }
    is_int((long long)r->n_entries, (long long)n, "%s: %zu entries", ctx, n);
    bool sizes = true, order = true;
    for (size_t i = 0; i < n && i < r->n_entries; i++) {
        order &= strcmp(r->entries[i].name, es[i].name) == 0 && r->entries[i].index == i;
        sizes &= r->entries[i].size == strlen(es[i].data);
        sizes &= r->entries[i].compression == (deflate ? 8 : 0);
        sizes &= !r->entries[i].encrypted;
    }
    ok(order, "%s: entries in archive order, with libzip's indices", ctx);
    ok(sizes, "%s: every entry's declared size and compression (%s)", ctx,
       deflate ? "deflated" : "stored");

    /* programs: in entry order */
    entry_is(r, 0, "ETRECORD_V0", ET_ETR_MARKER, 0, NULL, -1, ctx);
    entry_is(r, 1, "exported_program", ET_ETR_EXPORTED_PROGRAM, 0, NULL, 0, ctx);
    entry_is(r, 2, "exported_program_state_dict", ET_ETR_COMPANION, ET_ETR_STATE_DICT, NULL, 0, ctx);
    entry_is(r, 3, "exported_program_constants", ET_ETR_COMPANION, ET_ETR_CONSTANTS, NULL, 0, ctx);
    entry_is(r, 4, "exported_program_example_inputs", ET_ETR_COMPANION, ET_ETR_EXAMPLE_INPUTS,
             NULL, 0, ctx);
    entry_is(r, 5, "export_graph_id", ET_ETR_EXPORT_GRAPH_ID, 0, NULL, -1, ctx);
    entry_is(r, 6, "edge_dialect_exported_program/forward", ET_ETR_EDGE_PROGRAM_METHOD, 0,
             "forward", 1, ctx);
    entry_is(r, 7, "edge_dialect_exported_program/forward_state_dict", ET_ETR_COMPANION,
             ET_ETR_STATE_DICT, NULL, 1, ctx);
    entry_is(r, 8, "edge_dialect_exported_program/forward_constants", ET_ETR_COMPANION,
             ET_ETR_CONSTANTS, NULL, 1, ctx);
    entry_is(r, 9, "edge_dialect_exported_program/forward_example_inputs", ET_ETR_COMPANION,
             ET_ETR_EXAMPLE_INPUTS, NULL, 1, ctx);
    entry_is(r, 10, "edge_dialect_exported_program/encode", ET_ETR_EDGE_PROGRAM_METHOD, 0,
             "encode", 2, ctx);
    entry_is(r, 11, "edge_dialect_exported_program/encode_state_dict", ET_ETR_COMPANION,
             ET_ETR_STATE_DICT, NULL, 2, ctx);
    entry_is(r, 12, "edge_dialect_exported_program/encode_constants", ET_ETR_COMPANION,
             ET_ETR_CONSTANTS, NULL, 2, ctx);
    entry_is(r, 13, "aten_dialect_output/forward", ET_ETR_GRAPH_MAP_PROGRAM, 0, NULL, 3, ctx);
    entry_is(r, 14, "aten_dialect_output/forward_state_dict", ET_ETR_COMPANION, ET_ETR_STATE_DICT,
             NULL, 3, ctx);
    entry_is(r, 15, "aten_dialect_output/forward_constants", ET_ETR_COMPANION, ET_ETR_CONSTANTS,
             NULL, 3, ctx);
    entry_is(r, 16, "aten_dialect_output/forward_example_inputs", ET_ETR_COMPANION,
             ET_ETR_EXAMPLE_INPUTS, NULL, 3, ctx);
    entry_is(r, 17, "et_dialect_graph_module/forward", ET_ETR_GRAPH_MAP_PROGRAM, 0, NULL, 4, ctx);
    entry_is(r, 18, "debug_handle_map", ET_ETR_DEBUG_HANDLE_MAP, 0, NULL, -1, ctx);
    entry_is(r, 19, "delegate_map", ET_ETR_DELEGATE_MAP, 0, NULL, -1, ctx);
    entry_is(r, 20, "instruction_id_to_num_outs_map", ET_ETR_NUM_OUTS_MAP, 0, NULL, -1, ctx);
    entry_is(r, 21, "reference_outputs", ET_ETR_REFERENCE_OUTPUTS, 0, NULL, -1, ctx);
    entry_is(r, 22, "representative_inputs", ET_ETR_REPRESENTATIVE_INPUTS, 0, NULL, -1, ctx);
    entry_is(r, 23, "xstate_dict", ET_ETR_COMPANION, ET_ETR_STATE_DICT, NULL, -1, ctx);
    entry_is(r, 24, "mymodule/forwardconstants", ET_ETR_COMPANION, ET_ETR_CONSTANTS, NULL, -1,
             ctx);
    entry_is(r, 25, "edge_dialect_exported_program/fwdstate_dict", ET_ETR_EDGE_PROGRAM_METHOD, 0,
             "fwdstate_dict", 5, ctx);

    is_int((long long)r->n_programs, 6, "%s: 6 programs", ctx);
    struct {
        et_etr_program_kind kind;
        const char *key;
        size_t entry;
        ptrdiff_t sd, c, ei;
    } want[] = {
        {ET_ETR_PROG_EXPORTED, "exported_program", 1, 2, 3, 4},
        {ET_ETR_PROG_EDGE, "forward", 6, 7, 8, 9},
        {ET_ETR_PROG_EDGE, "encode", 10, 11, 12, -1},
        {ET_ETR_PROG_GRAPH_MAP, "aten_dialect_output/forward", 13, 14, 15, 16},
        {ET_ETR_PROG_GRAPH_MAP, "et_dialect_graph_module/forward", 17, -1, -1, -1},
        {ET_ETR_PROG_EDGE, "fwdstate_dict", 25, -1, -1, -1},
    };
    for (size_t i = 0; i < 6 && i < r->n_programs; i++) {
        const et_etr_program *p = &r->programs[i];
        ok(p->kind == want[i].kind && strcmp(p->key, want[i].key) == 0 &&
               p->entry == want[i].entry && p->state_dict == want[i].sd &&
               p->constants == want[i].c && p->example_inputs == want[i].ei,
           "%s: program %zu: '%s' at entry %zu, companions %td %td %td", ctx, i, want[i].key,
           want[i].entry, want[i].sd, want[i].c, want[i].ei);
    }
    is_int(r->exported_program, 0, "%s: the ATen program is programs[0]", ctx);
    is_int((long long)r->n_edge_programs, 3, "%s: 3 edge programs", ctx);
    ok(!r->edge_single_layout, "%s: not the single-program layout", ctx);
    is_int(r->reference_outputs, 21, "%s: reference_outputs is entry 21", ctx);
    is_int(r->representative_inputs, 22, "%s: representative_inputs is entry 22", ctx);
    ok(et_etrecord_edge_program(r, "forward") == &r->programs[1] &&
           et_etrecord_edge_program(r, "encode") == &r->programs[2] &&
           et_etrecord_edge_program(r, "decode") == NULL,
       "%s: edge program by method: forward, encode; none for decode", ctx);
    ok(et_etrecord_program(r, ET_ETR_PROG_GRAPH_MAP, "aten_dialect_output/forward") ==
               &r->programs[3] &&
           et_etrecord_program(r, ET_ETR_PROG_EXPORTED, "exported_program") == &r->programs[0] &&
           et_etrecord_program(r, ET_ETR_PROG_GRAPH_MAP, "forward") == NULL,
       "%s: programs by kind and key", ctx);
    is_int(et_etrecord_find_entry(r, "delegate_map"), 19, "%s: find_entry(delegate_map)", ctx);
    is_int(et_etrecord_find_entry(r, "delegate"), -1, "%s: find_entry(delegate): none", ctx);

    read_is(r, "edge_dialect_exported_program/forward", "{\"edge\": \"forward\"}", ctx);
    read_is(r, "aten_dialect_output/forward_state_dict", "SD-gm", ctx);
    read_is(r, "reference_outputs", "PK-torch-save-outputs", ctx);
    read_is(r, "ETRECORD_V0", "", ctx);

    ok(r->has_export_graph_id && r->export_graph_id == 140234567890123LL,
       "%s: export_graph_id 140234567890123", ctx);

    /* debug_handle_map: two methods, in JSON order; instructions sorted */
    const et_etr_map *m = &r->debug_handle_map;
    ok(m->present && m->entry == 18 && m->n_methods == 2 &&
           strcmp(m->methods[0].name, "forward") == 0 &&
           strcmp(m->methods[1].name, "encode") == 0,
       "%s: debug_handle_map: methods forward, encode", ctx);
    const et_etr_method *fw = et_etr_map_method(m, "forward");
    bool sorted = fw && fw->n == 5 && fw->handles && !fw->delegates && !fw->num_outs;
    const int64_t order_want[] = {0, 1, 2, 3, 10};
    for (size_t i = 0; sorted && i < 5; i++)
        sorted = fw->handles[i].iid == order_want[i];
    ok(sorted, "%s: debug_handle_map[forward]: 5 instructions sorted 0 1 2 3 10", ctx);
    const int64_t h1[] = {1}, h2[] = {2}, h345[] = {3, 4, 5}, h7[] = {7}, h9[] = {9}, h11[] = {11};
    ok(handles_are(et_etrecord_debug_handles(r, "forward", 0), false, 1, h1) &&
           handles_are(et_etrecord_debug_handles(r, "forward", 1), false, 1, h2) &&
           handles_are(et_etrecord_debug_handles(r, "forward", 2), true, 0, NULL) &&
           handles_are(et_etrecord_debug_handles(r, "forward", 3), true, 3, h345) &&
           handles_are(et_etrecord_debug_handles(r, "forward", 10), false, 1, h7),
       "%s: debug_handle_map[forward]: 0->1, 1->2, 2->[], 3->[3, 4, 5], 10->7", ctx);
    ok(handles_are(et_etrecord_debug_handles(r, "encode", 0), false, 1, h9) &&
           handles_are(et_etrecord_debug_handles(r, "encode", 4), true, 1, h11),
       "%s: debug_handle_map[encode]: 0->9, 4->[11]", ctx);
    ok(!et_etrecord_debug_handles(r, "forward", 4) && !et_etrecord_debug_handles(r, "forward", -1) &&
           !et_etrecord_debug_handles(r, "forward", 11) &&
           !et_etrecord_debug_handles(r, "decode", 0),
       "%s: debug_handle_map: absent instructions and methods give NULL", ctx);

    /* delegate_map */
    const et_etr_delegate *d = et_etrecord_delegate(r, "forward", 3);
    const int64_t d0[] = {10, 11}, d1[] = {11, 12}, dfused[] = {11, 12, 15}, dm1[] = {5},
                  d07[] = {1};
    ok(d && d->iid == 3 && d->name && strcmp(d->name, "XnnpackBackend") == 0 && d->n_ids == 5,
       "%s: delegate_map[forward][3]: XnnpackBackend, 5 identifiers", ctx);
    if (d && d->n_ids == 5) {
        ok(ids_are(&d->ids[0], "0", true, 0, true, 2, d0) &&
               ids_are(&d->ids[1], "1", true, 1, true, 2, d1) &&
               ids_are(&d->ids[2], "fused_op_1_2_3", false, 0, true, 3, dfused) &&
               ids_are(&d->ids[3], "-1", true, -1, false, 1, dm1) &&
               ids_are(&d->ids[4], "07", false, 0, true, 1, d07),
           "%s: delegate identifiers in JSON order: 0 [10, 11], 1 [11, 12], fused_op_1_2_3 "
           "[11, 12, 15], -1 5, \"07\" (a string) [1]",
           ctx);
        ok(et_etr_delegate_find(d, "fused_op_1_2_3") == &d->ids[2] &&
               et_etr_delegate_find(d, "1") == &d->ids[1] && !et_etr_delegate_find(d, "fused"),
           "%s: delegate identifier by exact key", ctx);
    } else {
        skip_n(2, "delegate_map[forward][3] not as expected");
    }
    const et_etr_delegate *e4 = et_etrecord_delegate(r, "encode", 4),
                          *e0 = et_etrecord_delegate(r, "encode", 0);
    ok(e4 && e4->name && strcmp(e4->name, "VulkanBackend") == 0 && e4->n_ids == 0,
       "%s: delegate_map[encode][4]: VulkanBackend, empty delegate_map", ctx);
    ok(e0 && e0->name == NULL && e0->n_ids == 0,
       "%s: delegate_map[encode][0]: no name, delegate_map null", ctx);
    const et_etr_method *enc = et_etr_map_method(&r->delegate_map, "encode");
    ok(enc && enc->n == 2 && enc->delegates[0].iid == 0 && enc->delegates[1].iid == 4,
       "%s: delegate_map[encode] sorted: 0, 4", ctx);
    ok(!et_etrecord_delegate(r, "forward", 0), "%s: delegate_map[forward][0]: absent", ctx);

    /* instruction_id_to_num_outs_map */
    int64_t no = -7;
    ok(et_etrecord_num_outs(r, "forward", 3, &no) && no == 2, "%s: num_outs[forward][3] = 2",
       ctx);
    ok(et_etrecord_num_outs(r, "forward", 10, &no) && no == 1, "%s: num_outs[forward][10] = 1",
       ctx);
    ok(et_etrecord_num_outs(r, "encode", 4, &no) && no == 3, "%s: num_outs[encode][4] = 3", ctx);
    no = -7;
    ok(!et_etrecord_num_outs(r, "forward", 0, &no) && no == -7 &&
           !et_etrecord_num_outs(r, "decode", 3, &no),
       "%s: num_outs: absent instruction or method -> false, untouched", ctx);
    et_etrecord_free(r);
    free(b.p);
}

/* ------------------------------------------------------------------ */
/* the single-program layout (2023 - 2026-02)                          */

static void test_single_layout(int deflate)
{
    const char *ctx = deflate ? "single layout, deflated" : "single layout, stored";
    const zent es[] = {
        E("ETRECORD_V0", ""),
        E("aten_dialect_output/forward", "{\"aten\": 1}"),
        E("aten_dialect_output/forward_state_dict", "SD1"),
        E("edge_dialect_exported_program", "{\"edge\": 1}"),
        E("edge_dialect_exported_program_state_dict", "SD2"),
        E("debug_handle_map", "{\"forward\": {\"0\": 1, \"1\": 2}}"),
        E("delegate_map", "{}"),
    };
    bytes b = zbuild(es, sizeof es / sizeof es[0], deflate);
    et_error err;
    et_etrecord *r = open_b(&b, 0, 0, &err);
    if (!ok(r != NULL, "%s: opens without _constants and _example_inputs", ctx)) {
        diag("%s", err.msg);
        free(b.p);
        return;
    }
    entry_is(r, 1, "aten_dialect_output/forward", ET_ETR_GRAPH_MAP_PROGRAM, 0, NULL, 0, ctx);
    entry_is(r, 2, "aten_dialect_output/forward_state_dict", ET_ETR_COMPANION, ET_ETR_STATE_DICT,
             NULL, 0, ctx);
    entry_is(r, 3, "edge_dialect_exported_program", ET_ETR_EDGE_PROGRAM_SINGLE, 0, "forward", 1,
             ctx);
    entry_is(r, 4, "edge_dialect_exported_program_state_dict", ET_ETR_COMPANION,
             ET_ETR_STATE_DICT, NULL, 1, ctx);
    const et_etr_program *p = et_etrecord_edge_program(r, "forward");
    ok(r->edge_single_layout && r->n_edge_programs == 1 && p == &r->programs[1] && p->entry == 3 &&
           p->state_dict == 4 && p->constants == -1 && p->example_inputs == -1,
       "%s: the edge program is method forward, state dict only", ctx);
    const int64_t h1[] = {1}, h2[] = {2};
    ok(handles_are(et_etrecord_debug_handles(r, "forward", 0), false, 1, h1) &&
           handles_are(et_etrecord_debug_handles(r, "forward", 1), false, 1, h2),
       "%s: debug_handle_map[forward]: 0->1, 1->2", ctx);
    ok(r->delegate_map.present && r->delegate_map.n_methods == 0,
       "%s: delegate_map present and empty", ctx);
    int64_t no;
    ok(!r->num_outs_map.present && r->num_outs_map.entry == -1 &&
           !et_etrecord_num_outs(r, "forward", 0, &no),
       "%s: no instruction_id_to_num_outs_map: absent, not an error", ctx);
    ok(!r->has_export_graph_id && r->export_graph_id == 0 && r->exported_program == -1 &&
           r->reference_outputs == -1 && r->representative_inputs == -1,
       "%s: no export_graph_id (0), no ATen program, no payloads", ctx);
    et_etrecord_free(r);
    free(b.p);

    /* both layouts at once: the method layout wins the lookup */
    const zent both[] = {
        E("ETRECORD_V0", ""),
        E("edge_dialect_exported_program", "{}"),
        E("edge_dialect_exported_program/forward", "{}"),
    };
    b = zbuild(both, 3, deflate);
    r = open_b(&b, 0, 0, &err);
    ok(r && r->n_edge_programs == 2 && r->edge_single_layout &&
           et_etrecord_edge_program(r, "forward") == &r->programs[1],
       "%s: with both layouts, edge_program(forward) is the /forward entry", ctx);
    et_etrecord_free(r);
    free(b.p);
}

/* ------------------------------------------------------------------ */
/* the real 2023 record                                                */

static void test_corpus(const char *path)
{
    const char *ctx = "2023 corpus record";
    et_error err;
    et_etrecord *r = et_etrecord_open_path(path, &err);
    if (!ok(r != NULL, "%s: opens (et_etrecord_open_path)", ctx)) {
        diag("%s", err.msg);
        return;
    }
    ok(strcmp(r->label, path) == 0, "%s: labelled by its path", ctx);
    static const struct {
        const char *name;
        uint64_t size;
    } want[] = {
        {"ETRECORD_V0", 0},
        {"aten_dialect_output/forward", 6559},
        {"aten_dialect_output/forward_state_dict", 864},
        {"edge_dialect_exported_program", 6652},
        {"edge_dialect_exported_program_state_dict", 864},
        {"debug_handle_map", 2},
        {"delegate_map", 2},
    };
    bool same = r->n_entries == 7;
    for (size_t i = 0; same && i < 7; i++)
        same = strcmp(r->entries[i].name, want[i].name) == 0 &&
               r->entries[i].size == want[i].size && r->entries[i].comp_size == want[i].size &&
               r->entries[i].compression == 0;
    ok(same, "%s: 7 stored entries with their names and sizes (unzip -l)", ctx);
    entry_is(r, 0, "ETRECORD_V0", ET_ETR_MARKER, 0, NULL, -1, ctx);
    entry_is(r, 1, "aten_dialect_output/forward", ET_ETR_GRAPH_MAP_PROGRAM, 0, NULL, 0, ctx);
    entry_is(r, 2, "aten_dialect_output/forward_state_dict", ET_ETR_COMPANION, ET_ETR_STATE_DICT,
             NULL, 0, ctx);
    entry_is(r, 3, "edge_dialect_exported_program", ET_ETR_EDGE_PROGRAM_SINGLE, 0, "forward", 1,
             ctx);
    entry_is(r, 4, "edge_dialect_exported_program_state_dict", ET_ETR_COMPANION,
             ET_ETR_STATE_DICT, NULL, 1, ctx);
    entry_is(r, 5, "debug_handle_map", ET_ETR_DEBUG_HANDLE_MAP, 0, NULL, -1, ctx);
    entry_is(r, 6, "delegate_map", ET_ETR_DELEGATE_MAP, 0, NULL, -1, ctx);
    ok(r->n_programs == 2 && r->programs[0].kind == ET_ETR_PROG_GRAPH_MAP &&
           strcmp(r->programs[0].key, "aten_dialect_output/forward") == 0 &&
           r->programs[0].state_dict == 2 && r->programs[0].constants == -1 &&
           r->programs[0].example_inputs == -1 && r->programs[1].kind == ET_ETR_PROG_EDGE &&
           strcmp(r->programs[1].key, "forward") == 0 && r->programs[1].state_dict == 4 &&
           r->programs[1].constants == -1 && r->programs[1].example_inputs == -1,
       "%s: graph_map aten_dialect_output/forward and the edge program, state dicts only", ctx);
    ok(r->debug_handle_map.present && r->debug_handle_map.n_methods == 0 &&
           r->delegate_map.present && r->delegate_map.n_methods == 0 && !r->num_outs_map.present,
       "%s: debug_handle_map {} and delegate_map {}, no num-outs map", ctx);
    ok(!r->has_export_graph_id && r->export_graph_id == 0 && r->exported_program == -1 &&
           r->reference_outputs == -1 && r->representative_inputs == -1,
       "%s: no export_graph_id, ATen program, reference outputs or inputs", ctx);
    uint8_t *p;
    size_t n;
    int rc = et_etrecord_read(r, 3, &p, &n, &err);
    ok(rc == 0 && n == 6652 && memcmp(p, "{\"graph_module\": {\"graph\": {\"inputs\": ", 38) == 0 &&
           p[n - 1] == '}',
       "%s: the edge program's 6652 bytes of JSON are readable", ctx);
    if (rc == 0)
        free(p);
    rc = et_etrecord_read(r, 2, &p, &n, &err);
    ok(rc == 0 && n == 864 && memcmp(p, "PK\3\4", 4) == 0,
       "%s: its state dict is a torch.save ZIP (864 bytes, listed, not decoded)", ctx);
    if (rc == 0)
        free(p);
    et_etrecord_free(r);

    /* every cut of the file fails cleanly */
    bytes f = tap_read_file(path);
    if (!f.p)
        return;
    size_t bad = 0, tried = 0;
    for (size_t cut = 0; cut < f.n; cut += cut + 700 < f.n ? 37 : 1) {
        uint8_t *q = malloc(cut ? cut : 1);
        memcpy(q, f.p, cut);
        et_etrecord *t = et_etrecord_open_mem(q, cut, "cut", &err);
        tried++;
        if (t || err.kind != ET_ERR_FORMAT || !strstr(err.msg, "invalid ETRecord file")) {
            if (bad++ < 3)
                diag("cut at %zu: %s", cut, t ? "opened" : err.msg);
        }
        et_etrecord_free(t);
        free(q);
    }
    ok(bad == 0, "%s: %zu truncations (every byte of the last 700) all fail as invalid files",
       ctx, tried);
    bytes cut = {.p = f.p, .n = f.n - 100};
    rejects(&cut, "invalid ETRecord file: truncated ZIP archive", "no end-of-central-directory",
            "cut short", "cut 100 bytes before the end (in the central directory)");
    /* keep the end record, drop most of the central directory */
    uint32_t cd = u32(f.p + f.n - 22 + 16);
    bytes kept = {.p = malloc(cd + 200 + 22), .n = cd + 200 + 22};
    memcpy(kept.p, f.p, cd + 200);
    memcpy(kept.p + cd + 200, f.p + f.n - 22, 22);
    rejects(&kept, "invalid ETRecord file: truncated central directory", "495 bytes", "15326",
            "central directory cut, end record kept");
    free(kept.p);
    free(f.p);
}

/* ------------------------------------------------------------------ */
/* containers that are not ETRecords                                   */

static void test_container(void)
{
    bytes text = {.p = (uint8_t *)"this is not a zip archive, just some text\n", .n = 42};
    rejects(&text, "invalid ETRecord file: not a ZIP archive", "libzip: Not a zip archive", NULL,
            "text: not a ZIP archive, with libzip's reason");
    bytes empty = {.p = (uint8_t *)"", .n = 0};
    rejects(&empty, "invalid ETRecord file: empty file", NULL, NULL, "empty input");

    const zent nomarker[] = {E("debug_handle_map", "{}"), E("ETRECORD_V1", "")};
    bytes b = zbuild(nomarker, 2, 0);
    rejects(&b, "ETRecord identifier missing", "no 'ETRECORD_V0' entry", "corrupt",
            "no ETRECORD_V0 entry");
    free(b.p);

    /* two entries named debug_handle_map (the second renamed from ..._maq) */
    const zent dup[] = {E("ETRECORD_V0", ""), E("debug_handle_map", "{}"),
                        E("debug_handle_maq", "{}")};
    b = zbuild(dup, 3, 0);
    zpatch(&b, "debug_handle_maq", F_NAME, 'p');
    rejects(&b, "invalid ETRecord file", "same name", NULL, "two entries with the same name");
    free(b.p);

    /* the marker alone is a (useless) valid record */
    const zent alone[] = {E("ETRECORD_V0", "")};
    b = zbuild(alone, 1, 0);
    et_error err;
    et_etrecord *r = open_b(&b, 0, 0, &err);
    ok(r && r->n_entries == 1 && r->n_programs == 0 && !r->debug_handle_map.present &&
           !r->delegate_map.present && et_etrecord_edge_program(r, "forward") == NULL &&
           !et_etrecord_debug_handles(r, "forward", 0),
       "marker only: opens, nothing in it");
    et_etrecord_free(r);
    free(b.p);

    /* a damaged local header (consistency checks on) */
    const zent two[] = {E("ETRECORD_V0", ""), E("delegate_map", "{}")};
    b = zbuild(two, 2, 0);
    size_t cdp, lh;
    zlocate(&b, "delegate_map", &cdp, &lh);
    b.p[lh + 1] = 'X';
    rejects(&b, "invalid ETRecord file", "libzip", NULL, "a local header signature damaged");
    free(b.p);

    /* a flipped data byte: CRC error, naming the entry */
    b = zbuild(two, 2, 0);
    b.p[zdata(&b, "delegate_map")] = '[';
    rejects(&b, "entry 'delegate_map'", "cannot read", "CRC", "a data byte changed: CRC error");
    free(b.p);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

/* A record of the marker plus `name` = `json`. */
static bytes with_entry(const char *name, const char *json)
{
    zent es[] = {E("ETRECORD_V0", ""), E(name, json)};
    return zbuild(es, 2, 0);
}

static void json_rejects(const char *name, const char *json, const char *k1, const char *k2,
                         const char *what)
{
    bytes b = with_entry(name, json);
    char entry[200];
    snprintf(entry, sizeof entry, "entry '%s': ", name);
    rejects(&b, entry, k1, k2, what);
    free(b.p);
}

static void test_json(void)
{
    json_rejects("debug_handle_map", "{\"forward\": {\"0\": 1,\n  \"1\": }}",
                 "invalid JSON at line 2, column 8", "unallowed token",
                 "syntax error: entry, line and column");
    json_rejects("delegate_map", "", "invalid JSON at line 1, column 0", NULL,
                 "empty delegate_map: invalid JSON");
    json_rejects("instruction_id_to_num_outs_map", "{\"forward\": {}} x",
                 "invalid JSON at line 1, column 17", "trailing garbage",
                 "trailing garbage after the map");
    json_rejects("debug_handle_map", "{\"forward\": {\"0\": 99999999999999999999}}",
                 "invalid JSON", "too big integer", "a handle beyond 64 bits");

    /* 100 000 '[' and the same under a method and an instruction */
    size_t deep = 100000;
    char *s = malloc(deep + 64);
    memset(s, '[', deep);
    s[deep] = '\0';
    json_rejects("debug_handle_map", s, "invalid JSON at line 1, column 2049",
                 "maximum parsing depth reached", "100 000 '[': refused at depth 2049");
    strcpy(s, "{\"forward\": {\"0\": ");
    size_t k = strlen(s);
    memset(s + k, '[', deep);
    s[k + deep] = '\0';
    json_rejects("delegate_map", s, "invalid JSON", "maximum parsing depth reached",
                 "100 000 '[' inside a delegate_map entry");
    free(s);
    /* nesting jansson accepts but the shape does not */
    json_rejects("debug_handle_map", "{\"forward\": {\"0\": [[[[1]]]]}}",
                 "debug_handle_map[\"forward\"][\"0\"][0]: expected an integer, found a list", NULL,
                 "a nested list as a handle");

    /* shapes: debug_handle_map */
    json_rejects("debug_handle_map", "[1, 2]",
                 "debug_handle_map: expected an object {method: {instruction id: handles}}, "
                 "found a list",
                 NULL, "debug_handle_map: a list at the top");
    json_rejects("debug_handle_map", "null", "debug_handle_map: expected an object", "found null",
                 "debug_handle_map: null");
    json_rejects("debug_handle_map", "{\"forward\": [1, 2]}",
                 "debug_handle_map[\"forward\"]: expected an object {instruction id: handles}, "
                 "found a list",
                 NULL, "debug_handle_map: a method holding a list");
    json_rejects("debug_handle_map", "{\"forward\": {\"3\": \"7\"}}",
                 "debug_handle_map[\"forward\"][\"3\"]: expected an integer or a list of "
                 "integers, found a string",
                 NULL, "debug_handle_map: a string handle");
    json_rejects("debug_handle_map", "{\"forward\": {\"3\": [1, 2.5]}}",
                 "debug_handle_map[\"forward\"][\"3\"][1]: expected an integer, found a real "
                 "number",
                 NULL, "debug_handle_map: a real number in a handle list");
    json_rejects("debug_handle_map", "{\"forward\": {\"3\": true}}",
                 "debug_handle_map[\"forward\"][\"3\"]: expected an integer or a list of "
                 "integers, found true",
                 NULL, "debug_handle_map: true as a handle");
    json_rejects("debug_handle_map", "{\"forward\": {\"0\": 1}, \"encode\": {\"x3\": 1}}",
                 "debug_handle_map[\"encode\"]: key \"x3\" is not an instruction id", NULL,
                 "debug_handle_map: key x3 in the second method");
    json_rejects("debug_handle_map", "{\"forward\": {\"01\": 1}}",
                 "debug_handle_map[\"forward\"]: key \"01\" is not an instruction id",
                 "leading zeros", "debug_handle_map: key 01");
    json_rejects("debug_handle_map", "{\"forward\": {\"-1\": 1}}",
                 "key \"-1\" is not an instruction id", NULL, "debug_handle_map: key -1");
    json_rejects("debug_handle_map", "{\"forward\": {\"9223372036854775808\": 1}}",
                 "key \"9223372036854775808\" is not an instruction id", NULL,
                 "debug_handle_map: key beyond int64");
    json_rejects("debug_handle_map", "{\"forward\": {\"\": 1}}", "key \"\" is not an instruction id",
                 NULL, "debug_handle_map: empty key");
    json_rejects("debug_handle_map", "{\"a\\\"b\\n\": 1}",
                 "debug_handle_map[\"a\\\"b\\x0a\"]: expected an object", NULL,
                 "a method name with a quote and a newline is escaped in the message");

    /* delegate_map */
    json_rejects("delegate_map", "{\"forward\": {\"2\": 5}}",
                 "delegate_map[\"forward\"][\"2\"]: expected an object {\"name\": backend, "
                 "\"delegate_map\": {identifier: handles}}, found an integer",
                 NULL, "delegate_map: an integer entry");
    json_rejects("delegate_map", "{\"forward\": {\"2\": {\"name\": 7}}}",
                 "delegate_map[\"forward\"][\"2\"][\"name\"]: expected a string, found an integer",
                 NULL, "delegate_map: an integer name");
    json_rejects("delegate_map",
                 "{\"forward\": {\"2\": {\"name\": \"X\", \"delegate_map\": [[0, 1]]}}}",
                 "delegate_map[\"forward\"][\"2\"][\"delegate_map\"]: expected an object "
                 "{delegate identifier: handles}, found a list",
                 NULL, "delegate_map: an inner list");
    json_rejects("delegate_map",
                 "{\"forward\": {\"2\": {\"name\": \"X\", \"delegate_map\": {\"0\": \"a\"}}}}",
                 "delegate_map[\"forward\"][\"2\"][\"delegate_map\"][\"0\"]: expected an integer "
                 "or a list of integers, found a string",
                 NULL, "delegate_map: a string handle list");
    json_rejects("delegate_map",
                 "{\"forward\": {\"2\": {\"delegate_map\": {\"op\": [1, {}]}}}}",
                 "delegate_map[\"forward\"][\"2\"][\"delegate_map\"][\"op\"][1]: expected an "
                 "integer, found an object",
                 NULL, "delegate_map: an object in a handle list");
    json_rejects("delegate_map", "{\"forward\": {\"two\": {}}}",
                 "delegate_map[\"forward\"]: key \"two\" is not an instruction id", NULL,
                 "delegate_map: key two");
    json_rejects("delegate_map", "\"forward\"",
                 "delegate_map: expected an object {method: {instruction id: delegate}}, found a "
                 "string",
                 NULL, "delegate_map: a string");

    /* instruction_id_to_num_outs_map */
    json_rejects("instruction_id_to_num_outs_map", "{\"forward\": {\"1\": [1]}}",
                 "instruction_id_to_num_outs_map[\"forward\"][\"1\"]: expected an integer (the "
                 "number of outputs), found a list",
                 NULL, "num_outs: a list");
    json_rejects("instruction_id_to_num_outs_map", "{\"forward\": 3}",
                 "instruction_id_to_num_outs_map[\"forward\"]: expected an object {instruction "
                 "id: number of outputs}, found an integer",
                 NULL, "num_outs: a method holding an integer");
    json_rejects("instruction_id_to_num_outs_map", "{\"forward\": {\"1.0\": 1}}",
                 "key \"1.0\" is not an instruction id", NULL, "num_outs: key 1.0");

    /* export_graph_id */
    json_rejects("export_graph_id", "\"140234567890123\"",
                 "expected a JSON integer, found a string", NULL, "export_graph_id: a string");
    json_rejects("export_graph_id", "1.5", "expected a JSON integer, found a real number", NULL,
                 "export_graph_id: a real number");
    json_rejects("export_graph_id", "", "invalid JSON at line 1", NULL, "export_graph_id: empty");
    bytes b = with_entry("export_graph_id", " -12\n");
    et_error err;
    et_etrecord *r = open_b(&b, 0, 0, &err);
    ok(r && r->has_export_graph_id && r->export_graph_id == -12,
       "export_graph_id: \" -12\\n\" reads -12");
    et_etrecord_free(r);
    free(b.p);

    /* duplicate JSON keys: the last wins, as in Python */
    b = with_entry("debug_handle_map", "{\"forward\": {\"1\": 5, \"1\": [6]}}");
    r = open_b(&b, 0, 0, &err);
    const int64_t h6[] = {6};
    ok(r && r->debug_handle_map.methods[0].n == 1 &&
           handles_are(et_etrecord_debug_handles(r, "forward", 1), true, 1, h6),
       "duplicate instruction keys: the last value wins (as Python's json)");
    et_etrecord_free(r);
    free(b.p);

    /* other keys of a delegate entry are ignored; an absent delegate_map is empty */
    b = with_entry("delegate_map", "{\"forward\": {\"5\": {\"name\": \"B\", \"extra\": [1]}}}");
    r = open_b(&b, 0, 0, &err);
    const et_etr_delegate *d = r ? et_etrecord_delegate(r, "forward", 5) : NULL;
    ok(d && strcmp(d->name, "B") == 0 && d->n_ids == 0,
       "delegate entry with an unknown key and no delegate_map: name B, no identifiers");
    et_etrecord_free(r);
    free(b.p);
}

/* ------------------------------------------------------------------ */
/* caps and lying sizes                                                */

static void test_caps(void)
{
    char msg[200];
    /* declared 300 MiB on a 21-byte map (the sizes patched in both headers) */
    const zent small[] = {E("ETRECORD_V0", ""), E("debug_handle_map", "{\"forward\": {\"0\": 1}}")};
    bytes b = zbuild(small, 2, 1);
    zpatch(&b, "debug_handle_map", F_SIZE, 300u << 20);
    rejects(&b, "entry 'debug_handle_map': declares 314572800 bytes uncompressed",
            "above the cap of 128000000 bytes per entry (raise it with --etrecord_json_budget", NULL,
            "declared size 300 MiB (real 21 bytes): refused before inflating");
    free(b.p);

    /* a real bomb: 300 MiB of zeros, deflated */
    zent bomb[] = {E("ETRECORD_V0", ""), {"debug_handle_map", NULL, 0, 1, (uint64_t)300 << 20}};
    b = zbuild(bomb, 2, 0);
    diag("300 MiB of zeros deflate to %zu bytes", b.n);
    ok(b.n < (4u << 20), "the bomb is small (%zu bytes)", b.n);
    rejects(&b, "entry 'debug_handle_map': declares 314572800 bytes uncompressed",
            "above the cap of 128000000 bytes per entry (raise it with --etrecord_json_budget", NULL,
            "deflated bomb of 300 MiB: refused by its declared size");
    /* the same bomb declaring 1000 bytes: inflation stops after 1001 */
    zpatch(&b, "debug_handle_map", F_SIZE, 1000);
    rejects(&b, "entry 'debug_handle_map'", "inflates to more than its declared 1000 bytes",
            "ZIP bomb", "the bomb declaring 1000 bytes: stopped at byte 1001");
    free(b.p);

    /* lowered caps (options): 2 MiB of zeros in a graph_map program */
    zent two_mib[] = {E("ETRECORD_V0", ""), {"big/forward", NULL, 0, 1, 2u << 20},
                      {"big/forward_state_dict", NULL, 0, 1, 2u << 20}};
    b = zbuild(two_mib, 3, 0);
    rejects_caps(&b, 1u << 20, 0, "entry 'big/forward': declares 2097152 bytes uncompressed",
                 "above the cap of 1048576 bytes per entry", NULL,
                 "cap lowered to 1 MiB: a 2 MiB program refused at open");
    /* a big companion is only listed; reading it is capped */
    const zent comp[] = {E("ETRECORD_V0", ""), E("big/forward", "{}"),
                         {"big/forward_state_dict", NULL, 0, 1, 2u << 20}};
    free(b.p);
    b = zbuild(comp, 3, 0);
    et_error err;
    et_etrecord *r = open_b(&b, 1u << 20, 0, &err);
    ok(r != NULL, "cap 1 MiB: a 2 MiB state dict is listed, the record opens");
    if (r) {
        uint8_t *p = (uint8_t *)"x";
        size_t n = 5;
        int rc = et_etrecord_read(r, 2, &p, &n, &err);
        ok(rc != 0 && p == NULL && n == 0 && err.kind == ET_ERR_FORMAT &&
               strstr(err.msg, "rec.bin: entry 'big/forward_state_dict': declares 2097152 bytes "
                               "uncompressed, above the cap of 1048576 bytes per entry"),
           "reading the 2 MiB state dict under a 1 MiB cap fails");
        diag("  %s", err.msg);
        et_etrecord_free(r);
    }
    r = open_b(&b, 0, 0, &err);
    if (r) {
        uint8_t *p;
        size_t n;
        bool zero = et_etrecord_read(r, 2, &p, &n, &err) == 0 && n == (2u << 20);
        for (size_t i = 0; zero && i < n; i++)
            zero = p[i] == 0;
        ok(zero, "default cap: the 2 MiB deflated state dict reads back as 2 MiB of zeros");
        if (n == (2u << 20))
            free(p);
        et_etrecord_free(r);
    } else {
        ok(0, "default cap: opens");
    }
    free(b.p);

    /* the total cap on JSON entries */
    const zent tot[] = {E("ETRECORD_V0", ""), E("a/forward", "0123456789012345678901234567890"),
                        E("b/forward", "0123456789012345678901234567890"),
                        E("a/forward_state_dict", "0123456789012345678901234567890")};
    b = zbuild(tot, 4, 0);
    rejects_caps(&b, 0, 40, "entry 'b/forward': with it, the JSON entries",
                 "declare more than the cap of 40 bytes together", NULL,
                 "total cap 40 bytes: two 31-byte programs refused at the second");
    r = open_b(&b, 0, 62, &err);
    ok(r != NULL, "total cap 62 bytes: the two programs fit (the state dict does not count)");
    et_etrecord_free(r);
    /* raised caps: two programs declaring 4 GiB each exceed 5 GiB together */
    zpatch(&b, "a/forward", F_SIZE, 0xFFFFFFF0u);
    zpatch(&b, "b/forward", F_SIZE, 0xFFFFFFF0u);
    rejects_caps(&b, UINT64_MAX, (uint64_t)5 << 30, "entry 'b/forward': with it",
                 "cap of 5368709120 bytes together", NULL,
                 "caps raised to 2^64-1 / 5 GiB: two programs declaring 4 GiB each refused");
    free(b.p);

    /* a stored entry declaring more (and then fewer) bytes than it holds */
    const zent lie[] = {E("ETRECORD_V0", ""), E("delegate_map", "{\"forward\": {}}"),
                        E("x/forward", "{}")};
    b = zbuild(lie, 3, 1);
    zpatch(&b, "delegate_map", F_SIZE, 40);
    rejects(&b, "entry 'delegate_map'", NULL, NULL, "deflated map declaring 40 of its 15 bytes");
    free(b.p);
    b = zbuild(lie, 3, 1);
    zpatch(&b, "delegate_map", F_SIZE, 5);
    snprintf(msg, sizeof msg, "inflates to more than its declared 5 bytes");
    rejects(&b, "entry 'delegate_map'", msg, NULL, "deflated map declaring 5 of its 15 bytes");
    free(b.p);

    /* compression methods other than stored and deflated are listed, not read */
    b = zbuild(lie, 3, 0);
    zpatch(&b, "x/forward", F_METHOD, 12);
    r = open_b(&b, 0, 0, &err);
    ok(r && r->entries[2].compression == 12 &&
           strcmp(et_etr_compression_name(r->entries[2].compression), "bzip2") == 0,
       "an entry marked bzip2 is listed with compression 12 (bzip2)");
    if (r) {
        uint8_t *p;
        size_t n;
        ok(et_etrecord_read(r, 2, &p, &n, &err) != 0 &&
               strstr(err.msg, "entry 'x/forward': compression method 12 (bzip2) is not "
                               "supported (stored and deflated are)"),
           "reading it: compression method 12 (bzip2) is not supported");
        diag("  %s", err.msg);
        ok(et_etrecord_read(r, 99, &p, &n, &err) != 0 && err.kind == ET_ERR_USAGE &&
               strstr(err.msg, "no entry 99"),
           "reading entry 99 of 3: usage error");
        et_etrecord_free(r);
    }
    zpatch(&b, "delegate_map", F_METHOD, 14);
    rejects(&b, "entry 'delegate_map': compression method 14 (lzma) is not supported", NULL, NULL,
            "a map marked lzma fails the open");
    free(b.p);
}

/* ------------------------------------------------------------------ */
/* the JSON budget and zip bombs                                       */

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static et_etrecord *open_budget(const bytes *b, uint64_t budget, et_error *err)
{
    et_etrecord_options o;
    et_etrecord_options_init(&o);
    o.data = b->p;
    o.size = b->n;
    o.label = "rec.bin";
    o.json_budget = budget;
    return et_etrecord_open(&o, err);
}

/* What a child process reports: its peak resident memory and the message
 * of the open or parse that was to fail. */
typedef struct child_report {
    long maxrss_kb;
    double seconds; /* reported, never asserted */
    char msg[1024];
} child_report;

/* Open `b` under the default budget and, when `program` is set, parse the
 * graph of that edge program method; in a child process, so that its peak
 * resident memory (getrusage) is the work's alone.  Returns 0 and fills
 * *rep, or -1 when the child could not be run. */
static int bomb_in_child(const bytes *b, const char *program, child_report *rep)
{
    int fds[2];
    memset(rep, 0, sizeof *rep);
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        child_report out;
        memset(&out, 0, sizeof out);
        et_error err;
        et_error_clear(&err);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        et_etrecord *r = open_budget(b, 0, &err);
        if (r && program) {
            const et_etr_program *p = et_etrecord_edge_program(r, program);
            if (p && !et_etrecord_graph(r, p, &err))
                snprintf(out.msg, sizeof out.msg, "%s", err.msg);
        } else if (!r) {
            snprintf(out.msg, sizeof out.msg, "%s", err.msg);
        }
        et_etrecord_free(r);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        out.seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        out.maxrss_kb = ru.ru_maxrss;
        ssize_t w = write(fds[1], &out, sizeof out);
        _exit(w == (ssize_t)sizeof out ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof *rep) {
        ssize_t k = read(fds[0], (char *)rep + got, sizeof *rep - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == sizeof *rep && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The bomb's error and the child's peak memory: under 300 MB (not checked
 * under AddressSanitizer, whose shadow memory and quarantine count). */
static void bomb_fails(const bytes *b, const char *program, const char *k1, const char *k2,
                       const char *what)
{
    child_report rep;
    if (bomb_in_child(b, program, &rep) != 0) {
        ok(0, "%s: the child ran", what);
        return;
    }
    ok(strstr(rep.msg, k1) && (!k2 || strstr(rep.msg, k2)), "%s: %s", what, k1);
    diag("  %s", rep.msg);
    diag("  peak resident memory %.1f MB, %.2f s", rep.maxrss_kb / 1024.0, rep.seconds);
#ifdef UNDER_ASAN
    skip_n(1, "peak memory under AddressSanitizer is not the product's");
#else
    ok(rep.maxrss_kb < 300 * 1000, "%s: peak resident memory %.1f MB < 300 MB", what,
       rep.maxrss_kb / 1024.0);
#endif
}

/* A node of a current-layout program: 42 values and keys in 453 bytes,
 * like the nodes ExecuTorch writes. */
#define BOMB_NODE                                                                                \
    "{\"name\": \"add_1\", \"target\": \"executorch.exir.dialects.edge.ops.aten.add.Tensor\", " \
    "\"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}}, "          \
    "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}}], "                       \
    "\"outputs\": [{\"as_tensor\": {\"name\": \"add_1\"}}], \"metadata\": {\"debug_handle\": "   \
    "\"1\", \"stack_trace\": \"File \\\"model.py\\\", line 1, in forward\", "                    \
    "\"nn_module_stack\": \"L__self__,,torch.nn.modules.container.Sequential\", "                \
    "\"source_fn_stack\": \"add,operator.add\"}}, "

static void test_budget(void)
{
    et_error err;
    /* the defaults: one budget, the caps from it */
    const zent one[] = {E("ETRECORD_V0", ""), E("debug_handle_map", "{\"forward\": {\"0\": [1, 2]}}")};
    bytes b = zbuild(one, 2, 0);
    et_etrecord *r = open_budget(&b, 0, &err);
    ok(r && r->json_budget == 8000000 && r->max_entry_size == 128000000 &&
           r->max_total_size == 512000000,
       "defaults: 8,000,000 values per JSON entry, 128,000,000 bytes per entry, 512,000,000 in all");
    et_etrecord_free(r);
    /* {"forward": {"0": [1, 2]}} is 7 values and keys */
    r = open_budget(&b, 7, &err);
    ok(r && r->max_entry_size == 112 && r->max_total_size == 448 &&
           et_etrecord_debug_handles(r, "forward", 0) != NULL,
       "a 7-node map under a budget of 7: read; caps 112 and 448 bytes");
    et_etrecord_free(r);
    r = open_budget(&b, 6, &err);
    ok(!r && strcmp(err.msg, "rec.bin: entry 'debug_handle_map': JSON larger than the 6-node "
                             "budget (raise it with --etrecord_json_budget or the Lua option "
                             "etrecord_json_budget)") == 0,
       "... over a budget of 6: refused, naming the entry, the budget and how to raise it");
    diag("  %s", err.msg);
    et_etrecord_free(r);
    r = open_budget(&b, 1, &err);
    ok(!r && strstr(err.msg, "entry 'debug_handle_map': declares 26 bytes uncompressed, above the "
                             "cap of 16 bytes per entry (raise it with --etrecord_json_budget"),
       "a budget of 1: the 26-byte map is above the 16-byte cap, refused before inflating");
    et_etrecord_free(r);
    free(b.p);

    /* a program over the budget: refused when its graph is asked for */
    const zent prog[] = {E("ETRECORD_V0", ""),
                         E("edge_dialect_exported_program/forward",
                           "{\"graph_module\": {\"graph\": {\"nodes\": [" BOMB_NODE
                           "{\"target\": \"x\"}]}}}")};
    b = zbuild(prog, 2, 1);
    r = open_budget(&b, 51, &err);
    const et_etr_program *p = r ? et_etrecord_edge_program(r, "forward") : NULL;
    ok(p && !et_etrecord_graph(r, p, &err) &&
           strcmp(err.msg, "rec.bin: entry 'edge_dialect_exported_program/forward': JSON larger "
                           "than the 51-node budget (raise it with --etrecord_json_budget or the "
                           "Lua option etrecord_json_budget)") == 0,
       "a 52-node program under a budget of 51: its graph is refused");
    diag("  %s", err.msg);
    et_etrecord_free(r);
    r = open_budget(&b, 52, &err);
    p = r ? et_etrecord_edge_program(r, "forward") : NULL;
    const et_graph *g = p ? et_etrecord_graph(r, p, &err) : NULL;
    ok(g && g->n_nodes == 2 && strcmp(g->nodes[0].name, "add_1") == 0,
       "... under a budget of 52: 2 nodes");
    et_etrecord_free(r);
    /* declaring 256 MiB: refused when the record is opened */
    zpatch(&b, "edge_dialect_exported_program/forward", F_SIZE, 256u << 20);
    rejects(&b, "entry 'edge_dialect_exported_program/forward': declares 268435456 bytes "
                "uncompressed, above the cap of 128000000 bytes per entry",
            NULL, NULL, "a program declaring 256 MiB: refused at open, before inflating");
    free(b.p);

    /* duplicate methods and delegate identifiers: first place, last value */
    const zent dup[] = {
        E("ETRECORD_V0", ""),
        E("debug_handle_map", "{\"forward\": {\"0\": 1}, \"encode\": {\"0\": 9}, \"forward\": "
                              "{\"1\": 2, \"0\": 3}}"),
        E("delegate_map", "{\"forward\": {\"0\": {\"name\": \"B\", \"delegate_map\": {\"b\": 1, "
                          "\"a\": 2, \"b\": [3]}}}}")};
    b = zbuild(dup, 3, 0);
    r = open_budget(&b, 0, &err);
    const int64_t h3[] = {3}, h2[] = {2};
    const et_etr_delegate *d = r ? et_etrecord_delegate(r, "forward", 0) : NULL;
    ok(r && r->debug_handle_map.n_methods == 2 &&
           strcmp(r->debug_handle_map.methods[0].name, "forward") == 0 &&
           strcmp(r->debug_handle_map.methods[1].name, "encode") == 0 &&
           r->debug_handle_map.methods[0].n == 2 &&
           handles_are(et_etrecord_debug_handles(r, "forward", 0), false, 1, h3) &&
           handles_are(et_etrecord_debug_handles(r, "forward", 1), false, 1, h2),
       "a method twice: one method, in the first's place, with the last's instructions");
    ok(d && d->n_ids == 2 && ids_are(&d->ids[0], "b", false, 0, true, 1, h3) &&
           strcmp(d->ids[1].key, "a") == 0,
       "a delegate identifier twice: first place, last value");
    et_etrecord_free(r);
    free(b.p);

    /* zip bombs within the byte cap, over the node budget: a wide
     * debug_handle_map (60,000,001 handles, 120 MB) and a large exported
     * program (280,000 nodes, 127 MB); each must fail with the budget's
     * message in well under 300 MB */
    zent mapbomb[] = {E("ETRECORD_V0", ""),
                      {"debug_handle_map", "{\"forward\": {\"0\": [\0011,\0011]}}", 0, 1, 60000000}};
    b = zbuild(mapbomb, 2, 0);
    diag("a 120,000,021-byte debug_handle_map deflates to %zu bytes", b.n);
    bomb_fails(&b, NULL,
               "rec.bin: entry 'debug_handle_map': JSON larger than the 8,000,000-node budget "
               "(raise it with --etrecord_json_budget or the Lua option etrecord_json_budget)",
               NULL, "map bomb");
    free(b.p);
    zent progbomb[] = {E("ETRECORD_V0", ""),
                       {"edge_dialect_exported_program/forward",
                        "{\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], "
                        "\"nodes\": [\001" BOMB_NODE "\001{\"target\": \"x\"}]}}}",
                        0, 1, 280000}};
    b = zbuild(progbomb, 2, 0);
    diag("a %.0f-byte exported program deflates to %zu bytes", 280000.0 * strlen(BOMB_NODE), b.n);
    bomb_fails(&b, "forward",
               "rec.bin: entry 'edge_dialect_exported_program/forward': JSON larger than the "
               "8,000,000-node budget",
               NULL, "program bomb");
    free(b.p);
}

/* ------------------------------------------------------------------ */
/* the API around opening                                              */

static void test_api(void)
{
    et_error err;
    et_etrecord_options o;
    et_etrecord_options_init(&o);
    ok(et_etrecord_open(&o, &err) == NULL && err.kind == ET_ERR_USAGE &&
           strstr(err.msg, "exactly one of path or data"),
       "neither path nor data: usage error");
    o.path = "x";
    o.data = (const uint8_t *)"x";
    ok(et_etrecord_open(&o, &err) == NULL && err.kind == ET_ERR_USAGE,
       "both path and data: usage error");
    et_etrecord_free(NULL);

    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600], missing[600];
    snprintf(dir, sizeof dir, "%s/test_etrecord.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp %s: %s", dir, strerror(errno));
        return;
    }
    snprintf(missing, sizeof missing, "%s/missing.bin", dir);
    et_etrecord *r = et_etrecord_open_path(missing, &err);
    char want[700];
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    ok(!r && err.kind == ET_ERR_IO && strcmp(err.msg, want) == 0,
       "a missing file: \"PATH: No such file or directory\"");
    r = et_etrecord_open_path(dir, &err);
    ok(!r && err.kind == ET_ERR_IO && strstr(err.msg, "is a directory"), "a directory: IO error");

    snprintf(path, sizeof path, "%s/empty.bin", dir);
    FILE *fp = fopen(path, "wb");
    if (fp)
        fclose(fp);
    r = et_etrecord_open_path(path, &err);
    snprintf(want, sizeof want, "%s: invalid ETRecord file: empty file", path);
    ok(!r && err.kind == ET_ERR_FORMAT && strncmp(err.msg, want, strlen(want)) == 0,
       "an empty file: \"PATH: invalid ETRecord file: empty file, not a ZIP archive\"");
    remove(path);

    const zent es[] = {E("ETRECORD_V0", ""), E("debug_handle_map", "{\"forward\": {\"2\": 1}}")};
    bytes b = zbuild(es, 2, 1);
    snprintf(path, sizeof path, "%s/rec.bin", dir);
    fp = fopen(path, "wb");
    if (fp) {
        fwrite(b.p, 1, b.n, fp);
        fclose(fp);
    }
    r = et_etrecord_open_path(path, &err);
    const int64_t h1[] = {1};
    ok(r && strcmp(r->label, path) == 0 &&
           handles_are(et_etrecord_debug_handles(r, "forward", 2), false, 1, h1),
       "a deflated record from a file: maps read");
    et_etrecord_free(r);
    remove(path);
    r = et_etrecord_open_mem(b.p, b.n, NULL, &err);
    ok(r && strcmp(r->label, "<etrecord_data>") == 0, "in memory, no label: \"<etrecord_data>\"");
    et_etrecord_free(r);
    bytes bad = with_entry("debug_handle_map", "[");
    r = et_etrecord_open_mem(bad.p, bad.n, NULL, &err);
    ok(!r && strncmp(err.msg, "<etrecord_data>: entry 'debug_handle_map': invalid JSON", 55) == 0,
       "errors of unlabelled data start with \"<etrecord_data>: entry '...'\"");
    free(bad.p);
    free(b.p);
    rmdir(dir);

    ok(strcmp(et_etr_kind_name(ET_ETR_GRAPH_MAP_PROGRAM), "graph_map_program") == 0 &&
           strcmp(et_etr_kind_name(ET_ETR_EDGE_PROGRAM_SINGLE), "edge_program_single") == 0 &&
           strcmp(et_etr_companion_name(ET_ETR_EXAMPLE_INPUTS), "example_inputs") == 0 &&
           strcmp(et_etr_companion_name(ET_ETR_NOT_COMPANION), "") == 0 &&
           strcmp(et_etr_compression_name(0), "stored") == 0 &&
           strcmp(et_etr_compression_name(8), "deflated") == 0 &&
           strcmp(et_etr_compression_name(77), "unknown") == 0,
       "kind, companion and compression names");
}

/* tests/tools/mkzip (built into $ET_BUILD/tools): an ETRecord from
 * literals and a file, stored then deflated, read back. */
static void test_mkzip(const char *build)
{
    char tool[1024], dir[512], cmd[4096], rec[600], json[600];
    struct stat st;
    snprintf(tool, sizeof tool, "%s/tools/mkzip", build);
    if (stat(tool, &st) != 0) {
        skip_n(3, "no mkzip tool ($ET_BUILD/tools/mkzip): make it first");
        return;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_etrecord_mkzip.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp %s: %s", dir, strerror(errno));
        return;
    }
    snprintf(rec, sizeof rec, "%s/rec.bin", dir);
    snprintf(json, sizeof json, "%s/ep.json", dir);
    FILE *fp = fopen(json, "wb");
    if (fp) {
        fputs("{\"graph_module\": {}}\n", fp);
        fclose(fp);
    }
    snprintf(cmd, sizeof cmd,
             "'%s' '%s' ETRECORD_V0=@ 'edge_dialect_exported_program=%s' "
             "edge_dialect_exported_program_state_dict=@ -d "
             "'debug_handle_map=@{\"forward\": {\"0\": 1, \"1\": [2, 3]}}' "
             "'delegate_map=@{}' -s export_graph_id=@42",
             tool, rec, json);
    int rc = system(cmd);
    ok(rc == 0, "mkzip writes a record (exit status %d)", rc);
    et_error err;
    et_etrecord *r = et_etrecord_open_path(rec, &err);
    const int64_t h1[] = {1}, h23[] = {2, 3};
    ok(r && r->n_entries == 6 && r->entries[1].kind == ET_ETR_EDGE_PROGRAM_SINGLE &&
           r->entries[1].size == 21 && r->entries[1].compression == 0 &&
           r->entries[3].compression == 8 && r->entries[4].compression == 8 &&
           r->entries[5].compression == 0 && r->programs[0].state_dict == 2 &&
           handles_are(et_etrecord_debug_handles(r, "forward", 0), false, 1, h1) &&
           handles_are(et_etrecord_debug_handles(r, "forward", 1), true, 2, h23) &&
           r->export_graph_id == 42,
       "the mkzip record: 6 entries in order, -d / -s switch compression, maps read");
    if (!r)
        diag("%s", err.msg);
    et_etrecord_free(r);
    snprintf(cmd, sizeof cmd, "'%s' '%s' noequals 2>/dev/null", tool, rec);
    rc = system(cmd);
    ok(rc != 0, "mkzip: an argument without '=' is a usage error");
    remove(rec);
    remove(json);
    rmdir(dir);
}

/* Run every group; the shared corpus is optional.  Returns 0 when every
 * test passed. */
int main(void)
{
    const char *shared = getenv("ET_SHARED"), *build = getenv("ET_BUILD");
    if (!shared || !*shared)
        shared = "../shared";
    if (!build || !*build)
        build = "build";
    test_current_layout(0);
    test_current_layout(1);
    test_single_layout(0);
    test_single_layout(1);
    test_container();
    test_json();
    test_caps();
    test_budget();
    test_api();
    test_mkzip(build);

    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/corpus/etdump/repo_example_etrecord_v0_2023.bin", shared);
    if (stat(path, &st) != 0)
        skip_n(1, "no shared corpus ($ET_SHARED/corpus/etdump/repo_example_etrecord_v0_2023.bin): "
                  "the 2023 ETRecord is not tested");
    else
        test_corpus(path);
    return done_testing();
}
