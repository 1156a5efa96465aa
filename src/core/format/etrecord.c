/* etrecord.c - see etrecord.h. */
#include "format/etrecord.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "format/graph.h"
#include "base/jarena.h"
#include "format/jsondoc.h"
#include "files/mapfile.h"

/* An entry name and its index, for the sorted name index. */
struct named {
    const char *name;
    size_t i;
};

struct et_etr_impl {
    et_mapped_file mf; /* when opened from a path */
    zip_t *zip;
    et_jarena ar;          /* entries, programs, maps */
    struct named *by_name; /* the entries sorted by name */
    char *label;
    et_graph **graphs;     /* per program: its parsed graph, NULL until asked */
};

/* ------------------------------------------------------------------ */
/* messages                                                            */

/* Write s into dst (capacity cap) between quotes q, escaping q, '\\' and
 * control bytes, clipped after 80 bytes of s with "...". */
static void quoted(char *dst, size_t cap, const char *s, char q)
{
    size_t at = 0;
    if (cap < 8) {
        if (cap)
            dst[0] = '\0';
        return;
    }
    dst[at++] = q;
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        char tmp[8];
        size_t k;
        if (i >= 80) {
            memcpy(tmp, "...", 3);
            k = 3;
        } else if (c == (unsigned char)q || c == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)c;
            k = 2;
        } else if (c < 0x20 || c == 0x7f) {
            k = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", c);
        } else {
            tmp[0] = (char)c;
            k = 1;
        }
        if (at + k + 2 > cap)
            break;
        memcpy(dst + at, tmp, k);
        at += k;
        if (i >= 80)
            break;
    }
    dst[at++] = q;
    dst[at] = '\0';
}

/* Replace control bytes of a finished message by '?'. */
static void scrub(et_error *err)
{
    if (!err)
        return;
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* Fail with "LABEL: entry 'NAME': " + the formatted text. */
static int entry_fail(const et_etrecord *r, const char *entry, et_error *err,
                      et_error_kind kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int entry_fail(const et_etrecord *r, const char *entry, et_error *err,
                      et_error_kind kind, const char *fmt, ...)
{
    if (!err)
        return -1;
    char text[900], q[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    quoted(q, sizeof q, entry, '\'');
    et_fail(err, kind, "%s: entry %s: %s", r->label, q, text);
    scrub(err);
    return -1;
}

/* libzip's text for error code `code` into dst. */
static void zip_reason(char *dst, size_t cap, int code)
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    snprintf(dst, cap, "%s", zip_error_strerror(&ze));
    zip_error_fini(&ze);
}

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Reading entry `entry` failed with libzip's error `ze`: out of memory
 * (ET_ERR_NOMEM) when that is libzip's reason, else a read error.
 * Returns -1. */
static int zip_read_fail(const et_etrecord *r, const char *entry, et_error *err, zip_error_t *ze)
{
    if (zip_error_code_zip(ze) == ZIP_ER_MEMORY)
        return entry_fail(r, entry, err, ET_ERR_NOMEM, "cannot read: out of memory");
    return entry_fail(r, entry, err, ET_ERR_FORMAT, "cannot read: libzip: %s", zip_error_strerror(ze));
}

/* libzip could not open the archive: say why, from its error code and a
 * look at the end-of-central-directory record.  Returns -1. */
static int open_failed(const char *label, const uint8_t *p, size_t n, int code, et_error *err)
{
    char why[200];
    zip_reason(why, sizeof why, code);
    if (code == ZIP_ER_MEMORY)
        return et_fail(err, ET_ERR_NOMEM, "%s: out of memory opening the ZIP archive", label);
    if (code == ZIP_ER_EXISTS)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: invalid ETRecord file: two entries of the ZIP archive have the same "
                       "name (libzip: %s)",
                       label, why);
    /* the end-of-central-directory record: 22 bytes + a comment of up to
     * 65535 bytes, ending the file (a torch.save archive stored inside an
     * ETRecord has its own, which does not) */
    size_t eocd = SIZE_MAX;
    if (n >= 22) {
        size_t lo = n - 22 > 65535 ? n - 22 - 65535 : 0;
        for (size_t e = n - 22 + 1; e-- > lo;) {
            if (memcmp(p + e, "PK\5\6", 4) == 0 && e + 22 + rd_u16(p + e + 20) == n) {
                eocd = e;
                break;
            }
        }
    }
    bool local_first = n >= 4 && memcmp(p, "PK\3\4", 4) == 0;
    if (eocd == SIZE_MAX) {
        if (local_first)
            return et_fail(err, ET_ERR_FORMAT,
                           "%s: invalid ETRecord file: truncated ZIP archive: it starts like one "
                           "but has no end-of-central-directory record (the file, %zu bytes, may "
                           "have been cut short) (libzip: %s)",
                           label, n, why);
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: invalid ETRecord file: not a ZIP archive (libzip: %s)", label, why);
    }
    uint32_t cd_size = rd_u32(p + eocd + 12), cd_off = rd_u32(p + eocd + 16);
    if (cd_size != UINT32_MAX && cd_off != UINT32_MAX &&
        (uint64_t)cd_off + cd_size > (uint64_t)eocd)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: invalid ETRecord file: truncated central directory: the end record at "
                       "byte %zu puts %" PRIu32 " bytes of central directory at byte %" PRIu32
                       ", running past it to byte %" PRIu64 " (libzip: %s)",
                       label, eocd, cd_size, cd_off, (uint64_t)cd_off + cd_size, why);
    if (cd_size != UINT32_MAX && cd_off != UINT32_MAX && cd_size > 0 &&
        memcmp(p + cd_off, "PK\1\2", 4) != 0)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: invalid ETRecord file: damaged central directory: no central "
                       "directory header at byte %" PRIu32 " (libzip: %s)",
                       label, cd_off, why);
    return et_fail(err, ET_ERR_FORMAT, "%s: invalid ETRecord file: damaged ZIP archive (libzip: %s)",
                   label, why);
}

/* ------------------------------------------------------------------ */
/* names                                                               */

const char *et_etr_kind_name(et_etr_kind k)
{
    switch (k) {
    case ET_ETR_DEBUG_HANDLE_MAP: return "debug_handle_map";
    case ET_ETR_DELEGATE_MAP: return "delegate_map";
    case ET_ETR_NUM_OUTS_MAP: return "num_outs_map";
    case ET_ETR_MARKER: return "marker";
    case ET_ETR_EDGE_PROGRAM_SINGLE: return "edge_program_single";
    case ET_ETR_EDGE_PROGRAM_METHOD: return "edge_program";
    case ET_ETR_EXPORTED_PROGRAM: return "exported_program";
    case ET_ETR_REFERENCE_OUTPUTS: return "reference_outputs";
    case ET_ETR_REPRESENTATIVE_INPUTS: return "representative_inputs";
    case ET_ETR_EXPORT_GRAPH_ID: return "export_graph_id";
    case ET_ETR_COMPANION: return "companion";
    case ET_ETR_GRAPH_MAP_PROGRAM: return "graph_map_program";
    }
    return "unknown";
}

const char *et_etr_companion_name(et_etr_companion c)
{
    switch (c) {
    case ET_ETR_STATE_DICT: return "state_dict";
    case ET_ETR_CONSTANTS: return "constants";
    case ET_ETR_EXAMPLE_INPUTS: return "example_inputs";
    case ET_ETR_NOT_COMPANION: break;
    }
    return "";
}

const char *et_etr_compression_name(uint16_t method)
{
    switch (method) {
    case ZIP_CM_STORE: return "stored";
    case ZIP_CM_SHRINK: return "shrunk";
    case ZIP_CM_REDUCE_1:
    case ZIP_CM_REDUCE_2:
    case ZIP_CM_REDUCE_3:
    case ZIP_CM_REDUCE_4: return "reduced";
    case ZIP_CM_IMPLODE: return "imploded";
    case ZIP_CM_DEFLATE: return "deflated";
    case ZIP_CM_DEFLATE64: return "deflate64";
    case ZIP_CM_BZIP2: return "bzip2";
    case ZIP_CM_LZMA: return "lzma";
    case ZIP_CM_LZMA2: return "lzma2";
    case 93: return "zstd";
    case ZIP_CM_XZ: return "xz";
    case ZIP_CM_PPMD: return "ppmd";
    }
    return "unknown";
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

#define EDGE_NAME "edge_dialect_exported_program"

/* Classify an entry name by the rules of spec §5.4, in order. */
static et_etr_kind classify(const char *name, et_etr_companion *comp, const char **method)
{
    size_t n = strlen(name);
    *comp = ET_ETR_NOT_COMPANION;
    *method = NULL;
    if (strcmp(name, "debug_handle_map") == 0)
        return ET_ETR_DEBUG_HANDLE_MAP;
    if (strcmp(name, "delegate_map") == 0)
        return ET_ETR_DELEGATE_MAP;
    if (strcmp(name, "instruction_id_to_num_outs_map") == 0)
        return ET_ETR_NUM_OUTS_MAP;
    if (strcmp(name, ET_ETRECORD_MARKER) == 0)
        return ET_ETR_MARKER;
    if (strcmp(name, EDGE_NAME) == 0) {
        *method = "forward";
        return ET_ETR_EDGE_PROGRAM_SINGLE;
    }
    if (strncmp(name, EDGE_NAME "/", sizeof EDGE_NAME) == 0 &&
        !ends_with(name, n, "_state_dict") && !ends_with(name, n, "_constants") &&
        !ends_with(name, n, "_example_inputs")) {
        *method = name + sizeof EDGE_NAME;
        return ET_ETR_EDGE_PROGRAM_METHOD;
    }
    if (strcmp(name, "exported_program") == 0)
        return ET_ETR_EXPORTED_PROGRAM;
    if (strcmp(name, "reference_outputs") == 0)
        return ET_ETR_REFERENCE_OUTPUTS;
    if (strcmp(name, "representative_inputs") == 0)
        return ET_ETR_REPRESENTATIVE_INPUTS;
    if (strcmp(name, "export_graph_id") == 0)
        return ET_ETR_EXPORT_GRAPH_ID;
    /* QUIRK (kept): a plain suffix test, no underscore required */
    if (ends_with(name, n, "state_dict"))
        *comp = ET_ETR_STATE_DICT;
    else if (ends_with(name, n, "constants"))
        *comp = ET_ETR_CONSTANTS;
    else if (ends_with(name, n, "example_inputs"))
        *comp = ET_ETR_EXAMPLE_INPUTS;
    return *comp ? ET_ETR_COMPANION : ET_ETR_GRAPH_MAP_PROGRAM;
}

/* ------------------------------------------------------------------ */
/* reading entries                                                     */

/* Where an entry's bytes go as they are inflated: sink(ctx, bytes, n, err)
 * returns 0, or with err set -1 (the bytes are wrong: the rest is still
 * inflated, so that a CRC error, the likelier cause, is told instead) or
 * -2 (over a budget: the reading stops). */
typedef int (*entry_sink)(void *ctx, const uint8_t *p, size_t n, et_error *err);

#define READ_CHUNK ((size_t)256 << 10)

/* Inflate entry `entry` (checked first: cap, method, encryption) into
 * `sink`, in chunks, never beyond its declared size plus one byte (which
 * tells a lying or bombing entry).  Returns 0 or -1 with err set. */
static int read_entry(et_etrecord *r, size_t entry, entry_sink sink, void *ctx, et_error *err)
{
    if (entry >= r->n_entries)
        return et_fail(err, ET_ERR_USAGE, "%s: no entry %zu (the archive has %zu)", r->label,
                       entry, r->n_entries);
    const et_etr_entry *e = &r->entries[entry];
    if (e->size > r->max_entry_size || e->size >= SIZE_MAX)
        return entry_fail(r, e->name, err, ET_ERR_FORMAT,
                          "declares %" PRIu64 " bytes uncompressed, above the cap of %" PRIu64
                          " bytes per entry (%s)",
                          e->size, r->max_entry_size, ET_ETRECORD_BUDGET_HINT);
    if (e->compression != ZIP_CM_STORE && e->compression != ZIP_CM_DEFLATE)
        return entry_fail(r, e->name, err, ET_ERR_FORMAT,
                          "compression method %u (%s) is not supported (stored and deflated are)",
                          (unsigned)e->compression, et_etr_compression_name(e->compression));
    if (e->encrypted)
        return entry_fail(r, e->name, err, ET_ERR_FORMAT, "is encrypted");

    zip_file_t *f = zip_fopen_index(r->impl->zip, e->index, 0);
    if (!f) {
        zip_read_fail(r, e->name, err, zip_get_error(r->impl->zip));
        zip_error_clear(r->impl->zip);
        return -1;
    }
    size_t want = (size_t)e->size, cap = want < READ_CHUNK ? want + 1 : READ_CHUNK;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        zip_fclose(f);
        return entry_fail(r, e->name, err, ET_ERR_NOMEM, "out of memory");
    }
    size_t got = 0;
    int rc = 0;
    for (;;) {
        /* at most one byte beyond the declared size: the end of the data
         * (and libzip's CRC check), or data that should not be there */
        size_t ask = want - got + 1 < cap ? want - got + 1 : cap;
        zip_int64_t k = zip_fread(f, buf, ask);
        if (k < 0) {
            rc = zip_read_fail(r, e->name, err, zip_file_get_error(f));
            break;
        }
        if (k == 0) {
            if (got < want)
                rc = entry_fail(r, e->name, err, ET_ERR_FORMAT,
                                "ends after %zu of its declared %zu bytes", got, want);
            break;
        }
        if ((size_t)k > want - got) {
            rc = entry_fail(r, e->name, err, ET_ERR_FORMAT,
                            "inflates to more than its declared %zu bytes (a ZIP bomb or a "
                            "corrupt entry)",
                            want);
            break;
        }
        got += (size_t)k;
        if ((rc = sink(ctx, buf, (size_t)k, err)) == -2)
            rc = -1;
        else if (rc != 0) {
            /* never beyond the declared size, like the reading itself */
            for (size_t left = want - got + 1; left > 0 && (k = zip_fread(f, buf, left < cap ? left : cap)) > 0;)
                left -= (size_t)k;
            if (k < 0)
                zip_read_fail(r, e->name, err, zip_file_get_error(f));
        }
        if (rc != 0)
            break;
    }
    free(buf);
    zip_fclose(f);
    return rc;
}

/* A sink into one buffer of the declared size. */
typedef struct buf_sink {
    uint8_t *p;
    size_t n;
} buf_sink;

static int to_buffer(void *ctx, const uint8_t *p, size_t n, et_error *err)
{
    (void)err;
    buf_sink *b = ctx;
    memcpy(b->p + b->n, p, n); /* read_entry never passes the declared size */
    b->n += n;
    return 0;
}

int et_etrecord_read(et_etrecord *r, size_t entry, uint8_t **out, size_t *size, et_error *err)
{
    *out = NULL;
    *size = 0;
    if (entry < r->n_entries && r->entries[entry].size <= r->max_entry_size &&
        r->entries[entry].size < SIZE_MAX) {
        buf_sink b = {malloc((size_t)r->entries[entry].size + 1), 0};
        if (!b.p)
            return entry_fail(r, r->entries[entry].name, err, ET_ERR_NOMEM,
                              "out of memory for %" PRIu64 " bytes", r->entries[entry].size);
        if (read_entry(r, entry, to_buffer, &b, err) != 0) {
            free(b.p);
            return -1;
        }
        b.p[b.n] = 0;
        *out = b.p;
        *size = b.n;
        return 0;
    }
    return read_entry(r, entry, to_buffer, NULL, err); /* fails before reading */
}

/* An entry's label in messages: "LABEL: entry 'NAME'". */
static void entry_label(const et_etrecord *r, const char *entry, char *dst, size_t cap)
{
    char q[200];
    quoted(q, sizeof q, entry, '\'');
    snprintf(dst, cap, "%s: entry %s", r->label, q);
}

static int to_json(void *ctx, const uint8_t *p, size_t n, et_error *err)
{
    if (et_jsondoc_feed(ctx, (const char *)p, n, err) == 0)
        return 0;
    return et_jsondoc_over_budget(ctx) ? -2 : -1;
}

/* Parse JSON entry `entry` as it is inflated, under the record's budget.
 * Returns the document, or NULL with err set (scrubbed). */
static et_jsondoc *read_json(et_etrecord *r, size_t entry, bool scalar_root, et_error *err)
{
    char label[400];
    entry_label(r, r->entries[entry].name, label, sizeof label);
    et_json_limits lim = {.max_nodes = r->json_budget,
                          .max_bytes = r->max_entry_size,
                          .hint = ET_ETRECORD_BUDGET_HINT,
                          .scalar_root = scalar_root,
                          .size_hint = r->entries[entry].size};
    et_jsondoc *d = et_jsondoc_new(label, &lim, err);
    if (d && (read_entry(r, entry, to_json, d, err) != 0 || et_jsondoc_finish(d, err) != 0)) {
        et_jsondoc_free(d);
        d = NULL;
    }
    if (!d)
        scrub(err);
    return d;
}

/* ------------------------------------------------------------------ */
/* JSON maps                                                           */

/* A key path for messages: debug_handle_map["forward"]["3"][1]. */
typedef struct kpath {
    char s[640];
    size_t n;
} kpath;

static size_t kp_key(kpath *kp, const char *key)
{
    size_t old = kp->n;
    char q[200];
    quoted(q, sizeof q, key, '"');
    int k = snprintf(kp->s + kp->n, sizeof kp->s - kp->n, "[%s]", q);
    if (k > 0)
        kp->n = kp->n + (size_t)k < sizeof kp->s ? kp->n + (size_t)k : sizeof kp->s - 1;
    return old;
}

static size_t kp_idx(kpath *kp, size_t i)
{
    size_t old = kp->n;
    int k = snprintf(kp->s + kp->n, sizeof kp->s - kp->n, "[%zu]", i);
    if (k > 0)
        kp->n = kp->n + (size_t)k < sizeof kp->s ? kp->n + (size_t)k : sizeof kp->s - 1;
    return old;
}

static void kp_pop(kpath *kp, size_t old)
{
    kp->n = old;
    kp->s[old] = '\0';
}

/* What the map walkers share. */
typedef struct walker {
    et_etrecord *r;
    const char *entry;
    et_error *err;
    et_jarena *ar;
    const et_jsondoc *d;
    kpath kp;
} walker;

static int shape_fail(walker *w, const char *expected, et_jref found)
{
    return entry_fail(w->r, w->entry, w->err, ET_ERR_FORMAT, "%s: expected %s, found %s",
                      w->kp.s, expected, et_json_kind(w->d, found));
}

static int nomem(walker *w)
{
    return entry_fail(w->r, w->entry, w->err, ET_ERR_NOMEM, "out of memory");
}

/* A decimal integer: digits only (a '-' first when `sign`), no leading
 * zeros, within int64. */
static bool parse_decimal(const char *s, bool sign, int64_t *out)
{
    bool neg = false;
    if (sign && *s == '-') {
        neg = true;
        s++;
    }
    if (!*s || (s[0] == '0' && s[1]) || (neg && s[0] == '0'))
        return false;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (lim - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return true;
}

/* An instruction-id key of a method object. */
static int iid_key(walker *w, const char *key, int64_t *iid)
{
    if (parse_decimal(key, false, iid))
        return 0;
    char q[200];
    quoted(q, sizeof q, key, '"');
    return entry_fail(w->r, w->entry, w->err, ET_ERR_FORMAT,
                      "%s: key %s is not an instruction id (a decimal integer without sign or "
                      "leading zeros)",
                      w->kp.s, q);
}

/* A key of an object while its duplicates are sorted out. */
typedef struct keyed {
    const char *key;
    uint32_t pos; /* among the object's members */
    et_jref ref;  /* the key in the tape */
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The members of object `obj` as Python's dict (and jansson) see them: one
 * per distinct key, at the place of its first occurrence, with the value
 * of its last.  *keys gets the key refs (malloc'd; the value of key k is
 * et_json_value(k)), *n their number.  O(m log m).  Returns 0, or -1 out
 * of memory (err set). */
static int members(walker *w, et_jref obj, et_jref **keys, size_t *n)
{
    size_t m = et_json_count(w->d, obj), k = 0;
    *keys = malloc((m ? m : 1) * sizeof **keys);
    keyed *ks = m > 1 ? malloc(m * sizeof *ks) : NULL;
    if (!*keys || (m > 1 && !ks)) {
        free(*keys);
        free(ks);
        *keys = NULL;
        return nomem(w);
    }
    for (et_jref x = et_json_first(w->d, obj); x != ET_JNONE && k < m;
         x = et_json_next(w->d, obj, x), k++) {
        (*keys)[k] = x;
        if (ks)
            ks[k] = (keyed){et_json_str(w->d, x), (uint32_t)k, x};
    }
    *n = k;
    if (!ks)
        return 0;
    qsort(ks, k, sizeof *ks, cmp_keyed);
    bool dup = false;
    for (size_t a = 0, b; a < k; a = b) {
        for (b = a + 1; b < k && strcmp(ks[a].key, ks[b].key) == 0;)
            b++;
        if (b - a > 1) { /* first place, last value */
            dup = true;
            (*keys)[ks[a].pos] = ks[b - 1].ref;
            for (size_t c = a + 1; c < b; c++)
                (*keys)[ks[c].pos] = ET_JNONE;
        }
    }
    free(ks);
    if (dup) {
        size_t j = 0;
        for (size_t i = 0; i < k; i++)
            if ((*keys)[i] != ET_JNONE)
                (*keys)[j++] = (*keys)[i];
        *n = j;
    }
    return 0;
}

/* Handles: an int, or a list of ints.  Sets *v (arena), *n, *is_list. */
static int handles_value(walker *w, et_jref val, const int64_t **v, size_t *n, bool *is_list)
{
    if (et_json_type(w->d, val) == ET_JINT) {
        int64_t *p = et_jarena_array(w->ar, 1, sizeof *p);
        if (!p)
            return nomem(w);
        *p = et_json_int(w->d, val);
        *v = p;
        *n = 1;
        *is_list = false;
        return 0;
    }
    if (et_json_type(w->d, val) != ET_JARRAY)
        return shape_fail(w, "an integer or a list of integers", val);
    size_t k = et_json_count(w->d, val), i = 0;
    int64_t *p = et_jarena_array(w->ar, k, sizeof *p);
    if (!p)
        return nomem(w);
    for (et_jref x = et_json_first(w->d, val); x != ET_JNONE && i < k;
         x = et_json_next(w->d, val, x), i++) {
        if (et_json_type(w->d, x) != ET_JINT) {
            kp_idx(&w->kp, i);
            return shape_fail(w, "an integer", x);
        }
        p[i] = et_json_int(w->d, x);
    }
    *v = p;
    *n = i;
    *is_list = true;
    return 0;
}

/* Every map entry type starts with its instruction id, so one walker and
 * one comparator serve the three maps. */
_Static_assert(offsetof(et_etr_handles, iid) == 0, "iid first");
_Static_assert(offsetof(et_etr_delegate, iid) == 0, "iid first");
_Static_assert(offsetof(et_etr_num_outs, iid) == 0, "iid first");

static int cmp_iid(const void *a, const void *b)
{
    int64_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return (x > y) - (x < y);
}

/* One delegate entry: {"name": str, "delegate_map": {did: handles}}. */
static int delegate_value(walker *w, et_jref val, et_etr_delegate *d)
{
    if (et_json_type(w->d, val) != ET_JOBJECT)
        return shape_fail(w, "an object {\"name\": backend, \"delegate_map\": {identifier: "
                             "handles}}",
                          val);
    et_jref name = et_json_get(w->d, val, "name");
    if (name != ET_JNONE && et_json_type(w->d, name) != ET_JNULL) {
        if (et_json_type(w->d, name) != ET_JSTRING) {
            kp_key(&w->kp, "name");
            return shape_fail(w, "a string", name);
        }
        if (!(d->name = et_jarena_strdup(w->ar, et_json_str(w->d, name))))
            return nomem(w);
    }
    et_jref inner = et_json_get(w->d, val, "delegate_map");
    if (inner == ET_JNONE || et_json_type(w->d, inner) == ET_JNULL)
        return 0;
    size_t old = kp_key(&w->kp, "delegate_map");
    if (et_json_type(w->d, inner) != ET_JOBJECT)
        return shape_fail(w, "an object {delegate identifier: handles}", inner);
    et_jref *keys;
    size_t k;
    if (members(w, inner, &keys, &k) != 0)
        return -1;
    et_etr_delegate_id *ids = et_jarena_array(w->ar, k, sizeof *ids);
    if (!ids) {
        free(keys);
        return nomem(w);
    }
    for (size_t i = 0; i < k; i++) {
        const char *key = et_json_str(w->d, keys[i]);
        et_etr_delegate_id *id = &ids[i];
        memset(id, 0, sizeof *id);
        if (!(id->key = et_jarena_strdup(w->ar, key))) {
            free(keys);
            return nomem(w);
        }
        id->is_int = parse_decimal(key, true, &id->int_id);
        size_t o2 = kp_key(&w->kp, key);
        if (handles_value(w, et_json_value(keys[i]), &id->handles, &id->n, &id->is_list) != 0) {
            free(keys);
            return -1;
        }
        kp_pop(&w->kp, o2);
    }
    free(keys);
    kp_pop(&w->kp, old);
    d->n_ids = k;
    d->ids = ids;
    return 0;
}

/* The value parser of one map: `x`, the value under an instruction id,
 * into `elem` (the walker's path names the id). */
typedef int (*entry_fn)(walker *w, et_jref x, void *elem);

/* debug_handle_map: an int or a list of ints. */
static int handles_entry(walker *w, et_jref x, void *elem)
{
    et_etr_handles *h = elem;
    return handles_value(w, x, &h->v, &h->n, &h->is_list);
}

/* delegate_map: {"name", "delegate_map"}. */
static int delegate_entry(walker *w, et_jref x, void *elem)
{
    return delegate_value(w, x, elem);
}

/* instruction_id_to_num_outs_map: an integer. */
static int num_outs_entry(walker *w, et_jref x, void *elem)
{
    if (et_json_type(w->d, x) != ET_JINT)
        return shape_fail(w, "an integer (the number of outputs)", x);
    ((et_etr_num_outs *)elem)->num_outs = et_json_int(w->d, x);
    return 0;
}

/* map[method]: {iid: value} into a new array of entries of `size` bytes,
 * each parsed by `fn`, sorted by instruction id; *out and *n get it (the
 * walker's path names the method). */
static int method_entries(walker *w, et_jref obj, size_t size, entry_fn fn, const void **out,
                          size_t *n)
{
    et_jref *keys;
    size_t k;
    if (members(w, obj, &keys, &k) != 0)
        return -1;
    char *v = et_jarena_array(w->ar, k, size);
    if (!v) {
        free(keys);
        return nomem(w);
    }
    bool sorted = true;
    int64_t prev = 0;
    for (size_t i = 0; i < k; i++) {
        const char *key = et_json_str(w->d, keys[i]);
        char *elem = v + i * size;
        memset(elem, 0, size);
        int64_t iid;
        if (iid_key(w, key, &iid) != 0) {
            free(keys);
            return -1;
        }
        size_t old = kp_key(&w->kp, key);
        if (fn(w, et_json_value(keys[i]), elem) != 0) {
            free(keys);
            return -1;
        }
        memcpy(elem, &iid, sizeof iid);
        kp_pop(&w->kp, old);
        sorted = sorted && (i == 0 || iid > prev);
        prev = iid;
    }
    free(keys);
    if (!sorted) /* distinct keys that are decimal integers: distinct iids */
        qsort(v, k, size, cmp_iid);
    *out = v;
    *n = k;
    return 0;
}

/* Parse map entry `e` (index ei, parsed into `d`) into `m`:
 * {method: {iid: value}}, methods in JSON order. */
static int parse_map(et_etrecord *r, const et_etr_entry *e, ptrdiff_t ei, const et_jsondoc *d,
                     et_etr_map *m, et_error *err)
{
    walker w = {.r = r, .entry = e->name, .err = err, .ar = &r->impl->ar, .d = d};
    snprintf(w.kp.s, sizeof w.kp.s, "%s", e->name);
    w.kp.n = strlen(w.kp.s);
    const char *value = e->kind == ET_ETR_DEBUG_HANDLE_MAP ? "handles"
                        : e->kind == ET_ETR_DELEGATE_MAP   ? "delegate"
                                                           : "number of outputs";
    char expected[128];
    et_jref root = et_json_root(d);
    if (et_json_type(d, root) != ET_JOBJECT) {
        snprintf(expected, sizeof expected, "an object {method: {instruction id: %s}}", value);
        return shape_fail(&w, expected, root);
    }
    et_jref *keys;
    size_t nm;
    if (members(&w, root, &keys, &nm) != 0)
        return -1;
    et_etr_method *methods = et_jarena_array(w.ar, nm, sizeof *methods);
    int rc = -1;
    if (!methods) {
        nomem(&w);
        goto out;
    }
    for (size_t mi = 0; mi < nm; mi++) {
        const char *key = et_json_str(d, keys[mi]);
        et_jref x = et_json_value(keys[mi]);
        et_etr_method *mt = &methods[mi];
        memset(mt, 0, sizeof *mt);
        if (!(mt->name = et_jarena_strdup(w.ar, key))) {
            nomem(&w);
            goto out;
        }
        size_t old = kp_key(&w.kp, key);
        if (et_json_type(d, x) != ET_JOBJECT) {
            snprintf(expected, sizeof expected, "an object {instruction id: %s}", value);
            shape_fail(&w, expected, x);
            goto out;
        }
        const void *entries;
        int k = e->kind == ET_ETR_DEBUG_HANDLE_MAP
                    ? method_entries(&w, x, sizeof(et_etr_handles), handles_entry, &entries,
                                     &mt->n)
                : e->kind == ET_ETR_DELEGATE_MAP
                    ? method_entries(&w, x, sizeof(et_etr_delegate), delegate_entry, &entries,
                                     &mt->n)
                    : method_entries(&w, x, sizeof(et_etr_num_outs), num_outs_entry, &entries,
                                     &mt->n);
        if (k != 0)
            goto out;
        if (e->kind == ET_ETR_DEBUG_HANDLE_MAP)
            mt->handles = entries;
        else if (e->kind == ET_ETR_DELEGATE_MAP)
            mt->delegates = entries;
        else
            mt->num_outs = entries;
        kp_pop(&w.kp, old);
    }
    m->present = true;
    m->entry = ei;
    m->n_methods = nm;
    m->methods = methods;
    rc = 0;
out:
    free(keys);
    return rc;
}

static int parse_graph_id(et_etrecord *r, const et_etr_entry *e, const et_jsondoc *d,
                          et_error *err)
{
    et_jref root = et_json_root(d);
    if (et_json_type(d, root) != ET_JINT)
        return entry_fail(r, e->name, err, ET_ERR_FORMAT, "expected a JSON integer, found %s",
                          et_json_kind(d, root));
    r->has_export_graph_id = true;
    r->export_graph_id = et_json_int(d, root);
    return 0;
}

/* ------------------------------------------------------------------ */
/* open                                                                */

void et_etrecord_options_init(et_etrecord_options *o)
{
    memset(o, 0, sizeof *o);
}

static int cmp_by_name(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

ptrdiff_t et_etrecord_find_entry(const et_etrecord *r, const char *name)
{
    size_t lo = 0, hi = r->n_entries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct named *x = &r->impl->by_name[mid];
        int c = strcmp(x->name, name);
        if (c == 0)
            return (ptrdiff_t)x->i;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static bool is_json_entry(et_etr_kind k)
{
    switch (k) {
    case ET_ETR_DEBUG_HANDLE_MAP:
    case ET_ETR_DELEGATE_MAP:
    case ET_ETR_NUM_OUTS_MAP:
    case ET_ETR_EXPORT_GRAPH_ID:
    case ET_ETR_EDGE_PROGRAM_SINGLE:
    case ET_ETR_EDGE_PROGRAM_METHOD:
    case ET_ETR_EXPORTED_PROGRAM:
    case ET_ETR_GRAPH_MAP_PROGRAM: return true;
    default: return false;
    }
}

/* The index of <base>_<suffix> when it exists, else -1. */
static ptrdiff_t find_companion(et_etrecord *r, const char *base, const char *suffix)
{
    size_t lb = strlen(base), ls = strlen(suffix);
    char small[512], *name = lb + ls + 2 <= sizeof small ? small : malloc(lb + ls + 2);
    if (!name)
        return -2;
    memcpy(name, base, lb);
    name[lb] = '_';
    memcpy(name + lb + 1, suffix, ls + 1);
    ptrdiff_t i = et_etrecord_find_entry(r, name);
    if (name != small)
        free(name);
    return i;
}

/* List, classify and link the entries.  Returns 0 or -1 with err set. */
static int list_entries(et_etrecord *r, et_error *err)
{
    struct et_etr_impl *im = r->impl;
    zip_int64_t ne = zip_get_num_entries(im->zip, 0);
    if (ne < 0)
        return et_fail(err, ET_ERR_FORMAT, "%s: invalid ETRecord file: cannot count entries",
                       r->label);
    size_t n = (size_t)ne;
    et_etr_entry *es = et_jarena_array(&im->ar, n, sizeof *es);
    im->by_name = calloc(n ? n : 1, sizeof *im->by_name);
    if (!es || !im->by_name)
        return et_fail(err, ET_ERR_NOMEM, "%s: out of memory listing %zu entries", r->label, n);
    size_t n_programs = 0;
    for (size_t i = 0; i < n; i++) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(im->zip, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) ||
            !st.name) {
            if (zip_error_code_zip(zip_get_error(im->zip)) == ZIP_ER_MEMORY)
                return et_fail(err, ET_ERR_NOMEM, "%s: out of memory listing %zu entries",
                               r->label, n);
            et_fail(err, ET_ERR_FORMAT, "%s: invalid ETRecord file: entry %zu: cannot read its "
                                        "central directory record (libzip: %s)",
                    r->label, i, zip_error_strerror(zip_get_error(im->zip)));
            return -1;
        }
        et_etr_entry *e = &es[i];
        memset(e, 0, sizeof *e);
        if (!(e->name = et_jarena_strdup(&im->ar, st.name)))
            return et_fail(err, ET_ERR_NOMEM, "%s: out of memory", r->label);
        e->index = (uint64_t)i;
        e->size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
        e->comp_size = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
        e->compression = (st.valid & ZIP_STAT_COMP_METHOD) ? st.comp_method : 0;
        e->encrypted = (st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != 0;
        e->kind = classify(e->name, &e->companion, &e->method);
        e->program = -1;
        switch (e->kind) {
        case ET_ETR_EDGE_PROGRAM_SINGLE:
        case ET_ETR_EDGE_PROGRAM_METHOD:
        case ET_ETR_EXPORTED_PROGRAM:
        case ET_ETR_GRAPH_MAP_PROGRAM: n_programs++; break;
        default: break;
        }
        im->by_name[i].name = e->name;
        im->by_name[i].i = i;
    }
    r->entries = es;
    r->n_entries = n;
    qsort(im->by_name, n, sizeof *im->by_name, cmp_by_name);
    for (size_t k = 1; k < n; k++) {
        /* libzip refuses equal names; names cut at a NUL byte could still
         * collide */
        const char *a = im->by_name[k - 1].name, *b = im->by_name[k].name;
        if (strcmp(a, b) == 0) {
            char q[200];
            quoted(q, sizeof q, a, '\'');
            et_fail(err, ET_ERR_FORMAT,
                    "%s: invalid ETRecord file: two entries of the ZIP archive are named %s",
                    r->label, q);
            scrub(err);
            return -1;
        }
    }
    if (et_etrecord_find_entry(r, ET_ETRECORD_MARKER) < 0)
        return et_fail(err, ET_ERR_FORMAT,
                       "%s: ETRecord identifier missing: the archive has no '" ET_ETRECORD_MARKER
                       "' entry (an invalid file was passed in, or the file is corrupt)",
                       r->label);

    et_etr_program *ps = et_jarena_array(&im->ar, n_programs, sizeof *ps);
    if (!ps)
        return et_fail(err, ET_ERR_NOMEM, "%s: out of memory", r->label);
    size_t np = 0;
    r->exported_program = -1;
    r->reference_outputs = -1;
    r->representative_inputs = -1;
    r->debug_handle_map.entry = r->delegate_map.entry = r->num_outs_map.entry = -1;
    for (size_t i = 0; i < n; i++) {
        et_etr_entry *e = &es[i];
        if (e->kind == ET_ETR_REFERENCE_OUTPUTS)
            r->reference_outputs = (ptrdiff_t)i;
        else if (e->kind == ET_ETR_REPRESENTATIVE_INPUTS)
            r->representative_inputs = (ptrdiff_t)i;
        et_etr_program_kind pk;
        const char *key;
        switch (e->kind) {
        case ET_ETR_EDGE_PROGRAM_SINGLE:
            r->edge_single_layout = true;
            /* fall through */
        case ET_ETR_EDGE_PROGRAM_METHOD:
            pk = ET_ETR_PROG_EDGE;
            key = e->method;
            r->n_edge_programs++;
            break;
        case ET_ETR_EXPORTED_PROGRAM:
            pk = ET_ETR_PROG_EXPORTED;
            key = e->name;
            r->exported_program = (ptrdiff_t)np;
            break;
        case ET_ETR_GRAPH_MAP_PROGRAM:
            pk = ET_ETR_PROG_GRAPH_MAP;
            key = e->name;
            break;
        default: continue;
        }
        et_etr_program *p = &ps[np];
        p->kind = pk;
        p->key = key;
        p->entry = i;
        ptrdiff_t *slot[3] = {&p->state_dict, &p->constants, &p->example_inputs};
        static const char *const suffix[3] = {"state_dict", "constants", "example_inputs"};
        for (int s = 0; s < 3; s++) {
            ptrdiff_t c = find_companion(r, e->name, suffix[s]);
            if (c == -2)
                return et_fail(err, ET_ERR_NOMEM, "%s: out of memory", r->label);
            *slot[s] = c;
            if (c >= 0 && es[c].kind == ET_ETR_COMPANION)
                es[c].program = (ptrdiff_t)np;
        }
        e->program = (ptrdiff_t)np;
        np++;
    }
    r->programs = ps;
    r->n_programs = np;
    return 0;
}

/* Check the caps on the JSON entries' declared sizes. */
static int check_caps(et_etrecord *r, et_error *err)
{
    uint64_t total = 0;
    for (size_t i = 0; i < r->n_entries; i++) {
        const et_etr_entry *e = &r->entries[i];
        if (!is_json_entry(e->kind))
            continue;
        if (e->size > r->max_entry_size)
            return entry_fail(r, e->name, err, ET_ERR_FORMAT,
                              "declares %" PRIu64 " bytes uncompressed, above the cap of %" PRIu64
                              " bytes per entry (%s)",
                              e->size, r->max_entry_size, ET_ETRECORD_BUDGET_HINT);
        if (e->size > r->max_total_size - total)
            return entry_fail(r, e->name, err, ET_ERR_FORMAT,
                              "with it, the JSON entries (maps, export_graph_id, programs) "
                              "declare more than the cap of %" PRIu64 " bytes together (%s)",
                              r->max_total_size, ET_ETRECORD_BUDGET_HINT);
        total += e->size; /* <= max_total_size: no overflow */
    }
    return 0;
}

/* Read and parse the maps and export_graph_id. */
static int read_maps(et_etrecord *r, et_error *err)
{
    for (size_t i = 0; i < r->n_entries; i++) {
        const et_etr_entry *e = &r->entries[i];
        et_etr_map *m;
        switch (e->kind) {
        case ET_ETR_DEBUG_HANDLE_MAP: m = &r->debug_handle_map; break;
        case ET_ETR_DELEGATE_MAP: m = &r->delegate_map; break;
        case ET_ETR_NUM_OUTS_MAP: m = &r->num_outs_map; break;
        case ET_ETR_EXPORT_GRAPH_ID: m = NULL; break;
        default: continue;
        }
        et_jsondoc *d = read_json(r, i, true, err);
        if (!d)
            return -1;
        int rc = m ? parse_map(r, e, (ptrdiff_t)i, d, m, err) : parse_graph_id(r, e, d, err);
        et_jsondoc_free(d);
        if (rc != 0)
            return -1;
        if (r->impl->ar.failed)
            return entry_fail(r, e->name, err, ET_ERR_NOMEM, "out of memory");
    }
    return 0;
}

et_etrecord *et_etrecord_open(const et_etrecord_options *o, et_error *err)
{
    if ((o->path != NULL) == (o->data != NULL)) {
        et_fail(err, ET_ERR_USAGE, "Expecting exactly one of path or data for the ETRecord.");
        return NULL;
    }
    et_etrecord *r = calloc(1, sizeof *r);
    struct et_etr_impl *im = calloc(1, sizeof *im);
    const char *label = o->path ? o->path : o->label ? o->label : "<etrecord_data>";
    if (r && im)
        im->label = strdup(label);
    if (!r || !im || !im->label) {
        free(im ? im->label : NULL);
        free(r);
        free(im);
        et_fail(err, ET_ERR_NOMEM, "%s: out of memory", label);
        return NULL;
    }
    r->impl = im;
    r->label = im->label;
    /* the budget, and the caps on inflated sizes that follow from it */
    r->json_budget = o->json_budget ? o->json_budget : ET_ETRECORD_JSON_BUDGET;
    if (r->json_budget > ET_JSON_MAX_NODES)
        r->json_budget = ET_JSON_MAX_NODES;
    r->max_entry_size = o->max_entry_size ? o->max_entry_size
                                          : ET_ETRECORD_BYTES_PER_NODE * r->json_budget;
    if (r->max_entry_size > ET_JSON_MAX_BYTES)
        r->max_entry_size = ET_JSON_MAX_BYTES;
    r->max_total_size = o->max_total_size ? o->max_total_size
                                          : ET_ETRECORD_TOTAL_ENTRIES * r->max_entry_size;
    r->exported_program = r->reference_outputs = r->representative_inputs = -1;
    r->debug_handle_map.entry = r->delegate_map.entry = r->num_outs_map.entry = -1;

    const uint8_t *data = o->data;
    size_t size = o->size;
    if (o->path) {
        if (et_map_file(&im->mf, o->path, err) != 0)
            goto fail;
        data = im->mf.data;
        size = im->mf.size;
    }
    if (size == 0) {
        et_fail(err, ET_ERR_FORMAT, "%s: invalid ETRecord file: empty file, not a ZIP archive",
                r->label);
        goto fail;
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(data, size, 0, &ze);
    if (!src) {
        /* a buffer source fails for want of memory only */
        et_fail(err, ET_ERR_NOMEM, "%s: out of memory opening the ZIP archive", r->label);
        zip_error_fini(&ze);
        goto fail;
    }
    errno = 0;
    im->zip = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!im->zip) {
        int code = zip_error_code_zip(&ze);
        /* libzip reports some failed allocations as a damaged archive;
         * reading from memory, only an allocation sets errno */
        if (errno == ENOMEM)
            code = ZIP_ER_MEMORY;
        zip_source_free(src);
        zip_error_fini(&ze);
        open_failed(r->label, data, size, code, err);
        goto fail;
    }
    zip_error_fini(&ze);
    if (list_entries(r, err) != 0 || check_caps(r, err) != 0 || read_maps(r, err) != 0)
        goto fail;
    if (im->ar.failed) {
        et_fail(err, ET_ERR_NOMEM, "%s: out of memory", r->label);
        goto fail;
    }
    return r;
fail:
    et_etrecord_free(r);
    return NULL;
}

et_etrecord *et_etrecord_open_path(const char *path, et_error *err)
{
    et_etrecord_options o;
    et_etrecord_options_init(&o);
    o.path = path;
    return et_etrecord_open(&o, err);
}

et_etrecord *et_etrecord_open_mem(const uint8_t *data, size_t size, const char *label,
                                  et_error *err)
{
    et_etrecord_options o;
    et_etrecord_options_init(&o);
    o.data = data ? data : (const uint8_t *)"";
    o.size = data ? size : 0;
    o.label = label;
    return et_etrecord_open(&o, err);
}

void et_etrecord_free(et_etrecord *r)
{
    if (!r)
        return;
    struct et_etr_impl *im = r->impl;
    if (im) {
        if (im->zip)
            zip_discard(im->zip);
        et_unmap_file(&im->mf);
        et_jarena_free(&im->ar);
        free(im->by_name);
        free(im->label);
        if (im->graphs)
            for (size_t i = 0; i < r->n_programs; i++)
                et_graph_free(im->graphs[i]);
        free(im->graphs);
        free(im);
    }
    free(r);
}

/* ------------------------------------------------------------------ */
/* lookups                                                             */

const et_etr_method *et_etr_map_method(const et_etr_map *m, const char *method)
{
    for (size_t i = 0; i < m->n_methods; i++)
        if (strcmp(m->methods[i].name, method) == 0)
            return &m->methods[i];
    return NULL;
}

/* Binary search of iid in an array of n structs of size sz whose first
 * member is the int64 iid. */
static const void *find_iid(const void *base, size_t n, size_t sz, int64_t iid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const void *p = (const char *)base + mid * sz;
        int64_t v;
        memcpy(&v, p, sizeof v);
        if (v == iid)
            return p;
        if (v < iid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const et_etr_handles *et_etrecord_debug_handles(const et_etrecord *r, const char *method,
                                                int64_t iid)
{
    const et_etr_method *m = et_etr_map_method(&r->debug_handle_map, method);
    return m && m->handles ? find_iid(m->handles, m->n, sizeof *m->handles, iid) : NULL;
}

const et_etr_delegate *et_etrecord_delegate(const et_etrecord *r, const char *method, int64_t iid)
{
    const et_etr_method *m = et_etr_map_method(&r->delegate_map, method);
    return m && m->delegates ? find_iid(m->delegates, m->n, sizeof *m->delegates, iid) : NULL;
}

const et_etr_delegate_id *et_etr_delegate_find(const et_etr_delegate *d, const char *key)
{
    for (size_t i = 0; i < d->n_ids; i++)
        if (strcmp(d->ids[i].key, key) == 0)
            return &d->ids[i];
    return NULL;
}

bool et_etrecord_num_outs(const et_etrecord *r, const char *method, int64_t iid,
                          int64_t *num_outs)
{
    const et_etr_method *m = et_etr_map_method(&r->num_outs_map, method);
    const et_etr_num_outs *x =
        m && m->num_outs ? find_iid(m->num_outs, m->n, sizeof *m->num_outs, iid) : NULL;
    if (!x)
        return false;
    *num_outs = x->num_outs;
    return true;
}

const et_etr_program *et_etrecord_edge_program(const et_etrecord *r, const char *method)
{
    const et_etr_program *single = NULL;
    for (size_t i = 0; i < r->n_programs; i++) {
        const et_etr_program *p = &r->programs[i];
        if (p->kind != ET_ETR_PROG_EDGE || strcmp(p->key, method) != 0)
            continue;
        if (r->entries[p->entry].kind == ET_ETR_EDGE_PROGRAM_METHOD)
            return p;
        single = p;
    }
    return single;
}

const et_etr_program *et_etrecord_program(const et_etrecord *r, et_etr_program_kind kind,
                                          const char *key)
{
    for (size_t i = 0; i < r->n_programs; i++)
        if (r->programs[i].kind == kind && strcmp(r->programs[i].key, key) == 0)
            return &r->programs[i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* programs' graphs                                                    */

const et_graph *et_etrecord_graph(et_etrecord *r, const et_etr_program *p, et_error *err)
{
    if (!p || p < r->programs || p >= r->programs + r->n_programs) {
        et_fail(err, ET_ERR_USAGE, "%s: not a program of this record", r->label);
        return NULL;
    }
    struct et_etr_impl *im = r->impl;
    size_t k = (size_t)(p - r->programs);
    if (!im->graphs && !(im->graphs = calloc(r->n_programs, sizeof *im->graphs))) {
        et_fail(err, ET_ERR_NOMEM, "%s: out of memory", r->label);
        return NULL;
    }
    if (im->graphs[k])
        return im->graphs[k];
    et_jsondoc *d = read_json(r, p->entry, false, err);
    if (!d)
        return NULL;
    char label[400];
    entry_label(r, r->entries[p->entry].name, label, sizeof label);
    im->graphs[k] = et_graph_from_doc(d, label, err);
    et_jsondoc_free(d);
    return im->graphs[k];
}
