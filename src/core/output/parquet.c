/* parquet.c - inspectors as a Parquet dataset; see parquet.h (the layout
 * and the columns) and docs/fleet.md.  Facts of the format are from the
 * Apache Parquet specification (parquet-format: parquet.thrift,
 * Encodings.md). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "output/parquet.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "base/parallel.h"
#include "base/thrift.h"
#include "base/timescale.h"
#include "base/version.h"
#include "files/mapfile.h"
#include "files/outfile.h"
#include "output/pqrows.h"
#include "output/sqlexport.h"

/* ------------------------------------------------------------------ */
/* The format's numbers (parquet.thrift) */

enum { PT_BOOLEAN = 0, PT_INT64 = 2, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6 };     /* Type */
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };                                  /* FieldRepetitionType */
enum { CT_UTF8 = 0, CT_UINT_64 = 14 };                                        /* ConvertedType */
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };                  /* Encoding */
enum { CODEC_ZSTD = 6 };                                                      /* CompressionCodec */
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };                                  /* PageType */

/* ZSTD's level: its fastest regular level; strings are dictionary-encoded
 * and numbers repeat, so the higher levels gain little. */
#define ZSTD_LEVEL 1
/* Dumps whose files are committed together (et_outfile_commit_all: one
 * journal commit for all, not two per file). */
#define PENDING_DUMPS 8
/* Integer keys below this are looked up in a table, not hashed (indices,
 * runs). */
#define SMALL_KEYS 4096
/* Strings longer than this get no min/max statistics (readers prune by
 * them; a long JSON list would only bloat the footer). */
#define STAT_MAX_STRING 256

const char *const et_parquet_tables[] = {"blocks", "events", "samples", "allocations", "dumps",
                                         NULL};

/* ------------------------------------------------------------------ */
/* Encodings */

static void put_le32(char *o, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        o[i] = (char)(v >> (8 * i));
}

static void put_le64(char *o, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(o, &v, 8);
#else
    for (int i = 0; i < 8; i++)
        o[i] = (char)(v >> (8 * i));
#endif
}

static void add_varint(et_strbuf *sb, uint64_t v)
{
    char b[10];
    et_sb_add(sb, b, (size_t)(et_thrift_put_varint(b, v) - b));
}

/* `groups` groups of 8 values from v[at] (past n: zeros), `w` bits each,
 * least significant bit first. */
static void bit_pack(et_strbuf *sb, const uint32_t *v, size_t n, size_t at, size_t groups, int w)
{
    char *o = et_sb_room(sb, groups * (size_t)w);
    if (!o)
        return;
    for (size_t g = 0; g < groups; g++) {
        const uint32_t *x = v + at + 8 * g;
        uint32_t pad[8] = {0};
        if (at + 8 * g + 8 > n) { /* the last group: zeros past n */
            for (size_t k = 0; at + 8 * g + k < n; k++)
                pad[k] = x[k];
            x = pad;
        }
        /* 8 values are w bytes: 32 bits out whenever 32 are in */
        uint64_t acc = 0;
        int bits = 0;
        for (int k = 0; k < 8; k++) {
            acc |= (uint64_t)x[k] << bits;
            bits += w;
            if (bits >= 32) {
                put_le32(o, (uint32_t)acc);
                o += 4;
                acc >>= 32;
                bits -= 32;
            }
        }
        for (; bits > 0; bits -= 8, acc >>= 8)
            *o++ = (char)acc;
    }
    et_sb_setlen(sb, o);
}

static void flush_packed(et_strbuf *sb, const uint32_t *v, size_t n, size_t at, size_t groups,
                         int w)
{
    if (groups == 0)
        return;
    add_varint(sb, (uint64_t)groups << 1 | 1);
    bit_pack(sb, v, n, at, groups, w);
}

void et_parquet_rle(et_strbuf *sb, const uint32_t *v, size_t n, int bit_width)
{
    size_t i = 0, at = 0, groups = 0;
    int vbytes = (bit_width + 7) / 8;
    while (i < n) {
        size_t r = 1;
        while (i + r < n && v[i + r] == v[i])
            r++;
        if (r >= 8) {
            flush_packed(sb, v, n, at, groups, bit_width);
            groups = 0;
            add_varint(sb, (uint64_t)r << 1);
            char b[4];
            put_le32(b, v[i]);
            et_sb_add(sb, b, (size_t)vbytes);
            i += r;
            continue;
        }
        if (groups == 0)
            at = i;
        groups++;
        i += 8;
        if (groups == 63) {
            flush_packed(sb, v, n, at, groups, bit_width);
            groups = 0;
        }
    }
    flush_packed(sb, v, n, at, groups, bit_width);
}

static int bits_for(uint32_t max)
{
    int w = 1;
    while (w < 32 && (max >> w) != 0)
        w++;
    return w;
}

/* ------------------------------------------------------------------ */
/* The writer */

/* A string dictionary: entry i is bytes[off[i] .. off[i] + len[i]). */
typedef struct dict {
    et_strbuf bytes;
    size_t *off;
    uint32_t *len;
    size_t n, cap;
    uint32_t *slot; /* open addressing: entry + 1, 0 empty */
    size_t nslot;
} dict;

/* What the footer says of one column chunk. */
typedef struct chunk {
    int64_t dict_offset; /* -1: none */
    int64_t data_offset;
    int64_t uncompressed, compressed;
    int64_t nulls;
    bool has_minmax;
    char min[STAT_MAX_STRING], max[STAT_MAX_STRING];
    size_t min_n, max_n;
} chunk;

/* An input that no file written may be. */
typedef struct input_id {
    dev_t dev;
    ino_t ino;
    const char *path;
} input_id;

/* A slot of an integer dictionary's hash table: the key beside its index
 * (one memory access a probe). */
typedef struct islot_t {
    uint64_t key;
    uint32_t val; /* index + 1, 0 empty */
} islot_t;

/* A column encoder: one per thread encoding a dump's columns (of every
 * table, side by side when the dump is large: write_files), each column's
 * pages into its own buffer, each file written from them in column order -
 * the same bytes whatever the number of threads. */
typedef struct colenc {
    ZSTD_CCtx *zc;
    et_strbuf page, levels, head, zbuf;
    uint32_t *idx;  /* a dictionary column's indices, per non-null row */
    char *vals;     /* a PLAIN page's values (ET_PQ_PAGE_ROWS * 8 bytes) */
    uint64_t *ikeys; /* an integer column's dictionary */
    islot_t *islot;  /* its hash table */
    size_t in, icap, inbig, inslot; /* entries, room, entries in islot, slots */
    uint32_t small[SMALL_KEYS]; /* the dictionary's keys below SMALL_KEYS: index + 1 */
    uint8_t *defs;  /* definition levels of the rows */
    size_t cap_rows;
    dict d;
    chunk *ch;      /* the chunks of the column's table (et_parquet.ch[t]) */
    et_strbuf *outs; /* their bytes (et_parquet.colout[t]) */
    et_strbuf *cur; /* the column being encoded: its bytes */
    cursor c;       /* its own pass over the table */
    et_strbuf fix;  /* a string made valid UTF-8 */
    const char *path;
    et_error *err, own_err;
    int rc;
} colenc;

/* Encoders at most (threads encoding a dump's columns). */
#define MAX_ENC 4

/* A dump given to the dataset (et_parquet_give). */
typedef struct given_item {
    et_inspector *insp;
    char *name;
    char id[33]; /* its ID, hashed on the caller's thread */
} given_item;

/* Dumps given and waiting for the writer's thread at most, besides the one
 * it writes: the caller goes on building while the writer is slow on a
 * dump, and the writer goes on while the caller is slow (three models at
 * most in memory, the caller's included). */
#define GIVE_QUEUE 1

struct et_parquet {
    char *dir;
    input_id *ins; /* the `inputs` of et_parquet_begin that exist */
    size_t nins;
    colenc encs[MAX_ENC];
    unsigned nenc;
    et_strbuf meta;
    chunk ch[PQ_N_TABLES][PQ_MAX_COLS];          /* each table's column chunks */
    et_strbuf colout[PQ_N_TABLES][PQ_MAX_COLS];  /* and their bytes */
    /* the files written and not yet committed (PENDING_DUMPS dumps' at
     * most), the last one the file being written */
    et_outfile pend[PENDING_DUMPS * 5];
    size_t npend, pend_dumps;
    et_outfile *of;
    const char *path;
    int64_t offset;
    bool io_failed; /* a write to of.fp failed (its errno tells why) */
    et_error *err;
    /* the dumps given (et_parquet_give): written in order on `task`, a
     * thread that runs while some are queued; under `gmu` (made at the
     * first give) */
    et_task task;
    unsigned given_threads; /* the encoders it may use */
    pthread_mutex_t gmu;
    pthread_cond_t gcv;
    bool gmade;             /* gmu and gcv made */
    bool running;           /* the thread is taking dumps from the queue */
    given_item q[GIVE_QUEUE]; /* given, not taken yet, oldest first */
    size_t qn;
    given_item done[GIVE_QUEUE + 1]; /* taken and written (or failed) */
    size_t ndone;
    int given_rc;           /* the first failure: later dumps are not written */
    et_error given_err;
};

/* Out of memory, into the error of `p` (an et_parquet or an enc). */
#define NOMEM(p) et_fail((p)->err, ET_ERR_NOMEM, "out of memory")

static int out(et_parquet *p, const void *b, size_t n)
{
    if (n && fwrite(b, 1, n, p->of->fp) != n) {
        p->io_failed = true;
        return -1;
    }
    p->offset += (int64_t)n;
    return 0;
}

static void dict_clear(dict *d)
{
    et_sb_reset(&d->bytes);
    d->n = 0;
    if (d->slot)
        memset(d->slot, 0, d->nslot * sizeof *d->slot);
}

static void dict_free(dict *d)
{
    et_sb_free(&d->bytes);
    free(d->off);
    free(d->len);
    free(d->slot);
    memset(d, 0, sizeof *d);
}

static int dict_grow(dict *d)
{
    size_t nslot = d->nslot ? 2 * d->nslot : 1024;
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < d->n; i++) {
        uint64_t h = XXH3_64bits(d->bytes.p + d->off[i], d->len[i]);
        size_t j = (size_t)h & (nslot - 1);
        while (slot[j])
            j = (j + 1) & (nslot - 1);
        slot[j] = (uint32_t)i + 1;
    }
    free(d->slot);
    d->slot = slot;
    d->nslot = nslot;
    return 0;
}

/* The index of string s (added when new); -1 when out of memory or the
 * dictionary is full (2^32 - 2 entries, 4 GiB of bytes). */
static int64_t dict_index(dict *d, const char *s, size_t n)
{
    if (2 * (d->n + 1) > d->nslot && dict_grow(d) != 0)
        return -1;
    uint64_t h = XXH3_64bits(s, n);
    size_t j = (size_t)h & (d->nslot - 1);
    while (d->slot[j]) {
        size_t i = d->slot[j] - 1;
        if (d->len[i] == n && memcmp(d->bytes.p + d->off[i], s, n) == 0)
            return (int64_t)i;
        j = (j + 1) & (d->nslot - 1);
    }
    if (n > UINT32_MAX || d->n >= UINT32_MAX - 1)
        return -1;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 256;
        size_t *off = realloc(d->off, cap * sizeof *off);
        if (!off)
            return -1;
        d->off = off;
        uint32_t *len = realloc(d->len, cap * sizeof *len);
        if (!len)
            return -1;
        d->len = len;
        d->cap = cap;
    }
    d->off[d->n] = d->bytes.n;
    d->len[d->n] = (uint32_t)n;
    et_sb_add(&d->bytes, s, n);
    if (d->bytes.failed)
        return -1;
    d->slot[j] = (uint32_t)d->n + 1;
    return (int64_t)d->n++;
}

/* Room for `rows` rows of definition levels and indices. */
static int reserve_rows(colenc *p, size_t rows)
{
    if (rows <= p->cap_rows)
        return 0;
    size_t cap = p->cap_rows ? p->cap_rows : 1024;
    while (cap < rows)
        cap *= 2;
    uint32_t *idx = realloc(p->idx, cap * sizeof *idx);
    if (!idx)
        return -1;
    p->idx = idx;
    uint8_t *defs = realloc(p->defs, cap);
    if (!defs)
        return -1;
    p->defs = defs;
    p->cap_rows = cap;
    return 0;
}

static int too_big(colenc *p, const char *col, size_t n)
{
    return et_fail(p->err, ET_ERR_VALUE, "%s: column %s: %zu bytes is more than a Parquet page holds",
                   p->path, col, n);
}

/* Compress `body` and write it as a page: a PageHeader, then the bytes.
 * `type` PAGE_DATA (`nvalues` rows, values in `enc`) or PAGE_DICTIONARY
 * (`nvalues` entries, PLAIN). */
static int write_page(colenc *p, chunk *ch, const char *col, int type, et_strbuf *body,
                      size_t nvalues, int enc)
{
    if (body->failed)
        return NOMEM(p);
    size_t bound = ZSTD_compressBound(body->n);
    et_sb_reset(&p->zbuf);
    char *z = et_sb_room(&p->zbuf, bound);
    if (!z)
        return NOMEM(p);
    size_t zn = ZSTD_compressCCtx(p->zc, z, bound, body->p ? body->p : "", body->n, ZSTD_LEVEL);
    if (ZSTD_isError(zn) && ZSTD_getErrorCode(zn) == ZSTD_error_memory_allocation)
        return NOMEM(p); /* its workspace, made as it goes */
    if (ZSTD_isError(zn))
        return et_fail(p->err, ET_ERR_VALUE, "%s: column %s: zstd: %s", p->path, col,
                       ZSTD_getErrorName(zn));
    if (body->n > INT32_MAX || zn > INT32_MAX || nvalues > INT32_MAX)
        return too_big(p, col, body->n);
    et_sb_reset(&p->head);
    et_thrift t;
    et_thrift_init(&t, &p->head);
    et_thrift_field_i32(&t, 1, type);
    et_thrift_field_i32(&t, 2, (int32_t)body->n);
    et_thrift_field_i32(&t, 3, (int32_t)zn);
    if (type == PAGE_DATA) {
        et_thrift_field_struct(&t, 5); /* DataPageHeader */
        et_thrift_field_i32(&t, 1, (int32_t)nvalues);
        et_thrift_field_i32(&t, 2, enc);
        et_thrift_field_i32(&t, 3, ENC_RLE); /* definition levels */
        et_thrift_field_i32(&t, 4, ENC_RLE); /* repetition levels (none: flat) */
        et_thrift_end(&t);
    } else {
        et_thrift_field_struct(&t, 7); /* DictionaryPageHeader */
        et_thrift_field_i32(&t, 1, (int32_t)nvalues);
        et_thrift_field_i32(&t, 2, ENC_PLAIN);
        et_thrift_end(&t);
    }
    et_thrift_end(&t);
    if (p->head.failed)
        return NOMEM(p);
    /* offsets within the column chunk until the file is written */
    if (type == PAGE_DICTIONARY)
        ch->dict_offset = (int64_t)p->cur->n;
    else if (ch->data_offset < 0)
        ch->data_offset = (int64_t)p->cur->n;
    ch->uncompressed += (int64_t)(p->head.n + body->n);
    ch->compressed += (int64_t)(p->head.n + zn);
    et_sb_add(p->cur, p->head.p, p->head.n);
    et_sb_add(p->cur, z, zn);
    return p->cur->failed ? NOMEM(p) : 0;
}

/* The definition levels of rows [from, to) of an OPTIONAL column, as
 * data page v1 puts them: a 4-byte length, then RLE (bit width 1). */
static void put_levels(colenc *p, size_t from, size_t to)
{
    /* the levels are 0/1 bytes; the encoder takes 32-bit values */
    uint32_t buf[512];
    et_strbuf *sb = &p->page;
    size_t at = sb->n;
    et_sb_add(sb, "\0\0\0\0", 4);
    if (to > from && !memchr(p->defs + from, 0, to - from)) {
        /* no NULL: one RLE run of 1s */
        add_varint(sb, (uint64_t)(to - from) << 1);
        et_sb_addc(sb, 1);
        to = from;
    }
    /* encode in chunks whose length is a multiple of 8, so that only the
     * last chunk is padded */
    for (size_t i = from; i < to; i += 512) {
        size_t m = to - i < 512 ? to - i : 512;
        for (size_t k = 0; k < m; k++)
            buf[k] = p->defs[i + k];
        et_parquet_rle(sb, buf, m, 1);
    }
    if (!sb->failed)
        put_le32(sb->p + at, (uint32_t)(sb->n - at - 4));
}

static void stat_str(chunk *ch, const char *s, size_t n, bool *first)
{
    if (n > STAT_MAX_STRING) {
        ch->has_minmax = false;
        *first = false;
        return;
    }
    if (*first) {
        memcpy(ch->min, s, n), ch->min_n = n;
        memcpy(ch->max, s, n), ch->max_n = n;
        ch->has_minmax = true;
        *first = false;
        return;
    }
    if (!ch->has_minmax)
        return;
    size_t m = n < ch->min_n ? n : ch->min_n;
    int c = memcmp(s, ch->min, m);
    if (c < 0 || (c == 0 && n < ch->min_n))
        memcpy(ch->min, s, n), ch->min_n = n;
    m = n < ch->max_n ? n : ch->max_n;
    c = memcmp(s, ch->max, m);
    if (c > 0 || (c == 0 && n > ch->max_n))
        memcpy(ch->max, s, n), ch->max_n = n;
}

/* The length of the longest prefix of s[0..n) that is valid UTF-8 (RFC
 * 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            k = 1;
        else if (c >= 0xe0 && c <= 0xef)
            k = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        else if (c >= 0xf0 && c <= 0xf4)
            k = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        else
            return i;
        if (n - i <= k || s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t j = 2; j <= k; j++)
            if (s[i + j] < 0x80 || s[i + j] > 0xbf)
                return i;
        i += k + 1;
    }
    return n;
}

/* s[0..n) into `sb` (reset) with every byte that does not start or
 * continue a valid UTF-8 sequence replaced by U+FFFD: Parquet's STRING
 * holds UTF-8 only (the SQLite export keeps the bytes). */
static void utf8_fix(et_strbuf *sb, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    et_sb_reset(sb);
    size_t i = 0;
    while (i < n) {
        size_t ok = utf8_valid(u + i, n - i);
        et_sb_add(sb, s + i, ok);
        i += ok;
        if (i < n) {
            et_sb_add(sb, "\xef\xbf\xbd", 3);
            i++;
        }
    }
}

/* The slot of key `key` in a table of `nslot` slots (a power of 2): the
 * product's high bits folded onto its low ones, so that keys differing
 * only in their high bits (doubles of different exponents) spread too. */
static size_t ikey_slot(uint64_t key, size_t nslot)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ h >> 29) & (nslot - 1);
}

/* Integer dictionary: key -> index.  Keys below SMALL_KEYS (indices,
 * runs) are looked up in p->small; the others in an open-addressing table
 * (p->islot, at most a quarter full).  Doubles are keyed by their bits:
 * the dictionary keeps every value exactly (-0.0 and each NaN their own
 * entry).  -1: out of memory. */
static int64_t idict_index(colenc *p, uint64_t key)
{
    if (key < SMALL_KEYS && p->small[key])
        return (int64_t)p->small[key] - 1;
    if (p->in == p->icap) {
        size_t cap = p->icap ? 2 * p->icap : 1024;
        uint64_t *keys = realloc(p->ikeys, cap * sizeof *keys);
        if (!keys || p->in >= UINT32_MAX - 1)
            return -1;
        p->ikeys = keys;
        p->icap = cap;
    }
    if (key < SMALL_KEYS) {
        p->ikeys[p->in] = key;
        p->small[key] = (uint32_t)p->in + 1;
        return (int64_t)p->in++;
    }
    if (4 * (p->inbig + 1) > p->inslot) {
        size_t nslot = p->inslot ? 2 * p->inslot : 1024;
        islot_t *slot = calloc(nslot, sizeof *slot);
        if (!slot)
            return -1;
        for (size_t i = 0; i < p->in; i++) {
            if (p->ikeys[i] < SMALL_KEYS)
                continue;
            size_t j = ikey_slot(p->ikeys[i], nslot);
            while (slot[j].val)
                j = (j + 1) & (nslot - 1);
            slot[j] = (islot_t){p->ikeys[i], (uint32_t)i + 1};
        }
        free(p->islot);
        p->islot = slot;
        p->inslot = nslot;
    }
    size_t j = ikey_slot(key, p->inslot);
    while (p->islot[j].val) {
        if (p->islot[j].key == key)
            return (int64_t)p->islot[j].val - 1;
        j = (j + 1) & (p->inslot - 1);
    }
    p->ikeys[p->in] = key;
    p->islot[j] = (islot_t){key, (uint32_t)p->in + 1};
    p->inbig++;
    return (int64_t)p->in++;
}

/* Empty the integer dictionary (its tables cleared for what was in). */
static void idict_clear(colenc *p)
{
    for (size_t i = 0; i < p->in; i++)
        if (p->ikeys[i] < SMALL_KEYS)
            p->small[p->ikeys[i]] = 0;
    if (p->inbig > 0)
        memset(p->islot, 0, p->inslot * sizeof *p->islot);
    p->in = p->inbig = 0;
}

/* A numeric column's min and max so far, as their 64 bits. */
typedef struct minmax {
    bool any;
    uint64_t lo, hi;
} minmax;

/* Take value u (the 64 bits of a `k`: INT64, UINT64 or DOUBLE) into the
 * min and max of *m: integers compare by their kind's order, doubles as
 * numbers with NaN left out (the specification's order for DOUBLE). */
static void stat_u64(kind k, uint64_t u, minmax *m)
{
    if (k == K_F64) {
        double d, lo, hi;
        memcpy(&d, &u, 8);
        if (d != d)
            return;
        memcpy(&lo, &m->lo, 8), memcpy(&hi, &m->hi, 8);
        if (!m->any || d < lo)
            m->lo = u;
        if (!m->any || d > hi)
            m->hi = u;
    } else if (k == K_I64) {
        if (!m->any || (int64_t)u < (int64_t)m->lo)
            m->lo = u;
        if (!m->any || (int64_t)u > (int64_t)m->hi)
            m->hi = u;
    } else {
        if (!m->any || u < m->lo)
            m->lo = u;
        if (!m->any || u > m->hi)
            m->hi = u;
    }
    m->any = true;
}

/* An integer column leaves its dictionary for PLAIN when it has more than
 * this many distinct values, or more than half as many as rows past the
 * first 4096 rows. */
#define IDICT_MAX 65536

/* Write the page of rows [from, to) whose PLAIN values are p->vals (nv
 * bytes): the definition levels (OPTIONAL), then the values. */
static int plain_page(colenc *p, chunk *ch, const colspec *cs, size_t from, size_t to,
                      size_t nv)
{
    et_sb_reset(&p->page);
    if (cs->optional)
        put_levels(p, from, to);
    et_sb_add(&p->page, p->vals, nv);
    return write_page(p, ch, cs->name, PAGE_DATA, &p->page, to - from, ENC_PLAIN);
}

/* Column `col` of table `t`: one pass of the cursor (two when an integer
 * column turns out to have too many distinct values for a dictionary).
 * PLAIN pages are written as they fill; a dictionary column's after its
 * dictionary page, once every row was seen.  *rows gets the number of
 * rows. */
static int write_column(colenc *p, const table *t, cursor *c, int col, size_t *rows)
{
    const colspec *cs = &t->cols[col];
    chunk *ch = &p->ch[col];
    bool use_dict = cs->k != K_BOOL && !cs->plain;
    p->cur = &p->outs[col];
again:
    et_sb_reset(p->cur);
    memset(ch, 0, sizeof *ch);
    ch->dict_offset = ch->data_offset = -1;
    c->started = false;
    c->b = c->e = c->r = c->k = 0;
    dict_clear(&p->d);
    idict_clear(p);
    size_t n = 0, page_from = 0, nonnull = 0, nv = 0;
    minmax mm = {0};
    bool bmin = true, bmax = false;
    int nbits = 0;
    int64_t last_i = -1; /* a string column: the last row's index */
    uint64_t last_u = 0; /* a numeric column: the last row's value */
    if (t->fill64 && col <= 1 && c->n_samples > 0) {
        /* samples' dump or dump_id: the same string on every row, one
         * dictionary entry and its index 0 on each (what the loop below
         * would find, without a look at each row) */
        value cv = {.null = true};
        pq_common(c, col, &cv);
        const char *sp = cv.v.s.p;
        size_t sn = cv.v.s.n;
        if (utf8_valid((const unsigned char *)sp, sn) != sn) {
            utf8_fix(&p->fix, sp, sn);
            if (p->fix.failed)
                return NOMEM(p);
            sp = p->fix.p, sn = p->fix.n;
        }
        n = nonnull = c->n_samples;
        if (reserve_rows(p, n) != 0 || dict_index(&p->d, sp, sn) != 0)
            return NOMEM(p);
        if (cs->optional)
            memset(p->defs, 1, n);
        /* p->idx is not read: one entry, one RLE run a page (below) */
    }
    uint64_t ub[1024]; /* a batch of a numeric column's values (fill64's u) */
    uint8_t db[1024];  /* and whether each is a value, not NULL */
    bool typed = t->fill64 && cs->k != K_STR;
    for (bool scan = n == 0; scan;) {
        size_t want = typed ? sizeof ub / sizeof *ub : 1, nb;
        if (!use_dict && ET_PQ_PAGE_ROWS - (n - page_from) < want)
            want = ET_PQ_PAGE_ROWS - (n - page_from);
        value v = {.null = true};
        if (typed) {
            nb = t->fill64(c, col, ub, db, want);
        } else {
            nb = t->next(c) ? 1 : 0;
            if (nb) {
                t->get(c, col, &v);
                db[0] = !v.null;
                ub[0] = v.null ? 0 : cs->k == K_BOOL ? (uint64_t)v.v.b : v.v.u;
            }
            if (c->sb.failed)
                return NOMEM(p);
        }
        if (nb == 0)
            break;
        if (n + nb > p->cap_rows && reserve_rows(p, n + nb) != 0)
            return NOMEM(p);
        size_t nonnull0 = nonnull;
        if (cs->optional) { /* the definition levels */
            memcpy(p->defs + n, db, nb);
            for (size_t j = 0; j < nb; j++)
                nonnull += db[j];
        } else {
            nonnull += nb;
        }
        ch->nulls += (int64_t)(nb - (nonnull - nonnull0));
        size_t o = nonnull0; /* the next non-null value's place in p->idx */
        if (cs->k == K_STR) {
            if (!v.null) {
                /* the last row's string again (compared with the
                 * dictionary's copy: a cell may be built in c->sb) */
                int64_t i = last_i;
                if (i < 0 || p->d.len[i] != v.v.s.n ||
                    memcmp(p->d.bytes.p + p->d.off[i], v.v.s.p, v.v.s.n) != 0) {
                    const char *sp = v.v.s.p;
                    size_t sn = v.v.s.n;
                    if (utf8_valid((const unsigned char *)sp, sn) != sn) {
                        utf8_fix(&p->fix, sp, sn);
                        if (p->fix.failed)
                            return NOMEM(p);
                        sp = p->fix.p, sn = p->fix.n;
                    }
                    i = dict_index(&p->d, sp, sn);
                }
                if (i < 0)
                    return NOMEM(p);
                last_i = i;
                p->idx[o++] = (uint32_t)i;
            }
        } else if (use_dict) {
            /* INT64 and DOUBLE: the dictionary's index of each value (the
             * last row's again without a lookup); min and max are the
             * dictionary's, once every row was seen */
            uint32_t *idx = p->idx;
            for (size_t j = 0; j < nb; j++) {
                if (!db[j])
                    continue;
                uint64_t u = ub[j];
                uint32_t sk = u < SMALL_KEYS ? p->small[u] : 0; /* a small key seen */
                if (sk) {
                    idx[o++] = sk - 1;
                    continue;
                }
                if (o > 0 && u == last_u) {
                    idx[o] = idx[o - 1];
                    o++;
                    continue;
                }
                int64_t i = idict_index(p, u);
                if (i < 0)
                    return NOMEM(p);
                last_u = u;
                idx[o++] = (uint32_t)i;
            }
            if (p->in > IDICT_MAX || (n >= 4096 && p->in > n / 2)) {
                use_dict = false;
                goto again;
            }
        } else if (cs->k == K_BOOL) {
            for (size_t j = 0; j < nb; j++) {
                if (!db[j])
                    continue;
                bool x = ub[j] != 0;
                if (nbits == 0)
                    p->vals[nv++] = 0;
                p->vals[nv - 1] |= (char)(x << nbits);
                nbits = (nbits + 1) & 7;
                bmin = bmin && x;
                bmax = bmax || x;
            }
        } else {
            /* PLAIN: the values of the rows that have one, 8 bytes each */
            size_t m = nb;
            if (memchr(db, 0, nb)) /* the NULLs out */
                for (size_t j = m = 0; j < nb; j++)
                    if (db[j])
                        ub[m++] = ub[j];
            if (m > 0 && cs->k == K_U64) {
                uint64_t lo = mm.any ? mm.lo : ub[0], hi = mm.any ? mm.hi : ub[0];
                for (size_t j = 0; j < m; j++) {
                    lo = ub[j] < lo ? ub[j] : lo;
                    hi = ub[j] > hi ? ub[j] : hi;
                }
                mm = (minmax){true, lo, hi};
            } else {
                for (size_t j = 0; j < m; j++)
                    stat_u64(cs->k, ub[j], &mm);
            }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            memcpy(p->vals + nv, ub, m * 8);
#else
            for (size_t j = 0; j < m; j++)
                put_le64(p->vals + nv + 8 * j, ub[j]);
#endif
            nv += m * 8;
        }
        n += nb;
        if (!use_dict && n - page_from == ET_PQ_PAGE_ROWS) {
            if (plain_page(p, ch, cs, page_from, n, nv) != 0)
                return -1;
            page_from = n;
            nv = 0;
            nbits = 0;
        }
    }
    if (use_dict && cs->k != K_STR && p->in > n / 2) {
        /* more distinct values than half the rows: PLAIN is smaller */
        use_dict = false;
        goto again;
    }
    *rows = n;
    if (use_dict) {
        /* the dictionary page, then the pages of indices */
        et_sb_reset(&p->page);
        bool sfirst = true;
        size_t nd = cs->k == K_STR ? p->d.n : p->in;
        for (size_t i = 0; i < nd; i++) {
            if (cs->k == K_STR) {
                char b[4];
                put_le32(b, p->d.len[i]);
                et_sb_add(&p->page, b, 4);
                et_sb_add(&p->page, p->d.bytes.p + p->d.off[i], p->d.len[i]);
                stat_str(ch, p->d.bytes.p + p->d.off[i], p->d.len[i], &sfirst);
            } else {
                char b[8];
                put_le64(b, p->ikeys[i]);
                et_sb_add(&p->page, b, 8);
            }
        }
        if (n > 0 && write_page(p, ch, cs->name, PAGE_DICTIONARY, &p->page, nd, ENC_PLAIN) != 0)
            return -1;
        int w = bits_for(nd ? (uint32_t)(nd - 1) : 0);
        size_t ix = 0;
        for (size_t from = 0; from < n; from += ET_PQ_PAGE_ROWS) {
            size_t to = n - from < ET_PQ_PAGE_ROWS ? n : from + ET_PQ_PAGE_ROWS;
            et_sb_reset(&p->page);
            if (cs->optional)
                put_levels(p, from, to);
            size_t m = cs->optional ? 0 : to - from;
            if (cs->optional)
                for (size_t r = from; r < to; r++)
                    m += p->defs[r];
            et_sb_addc(&p->page, (char)w);
            if (nd == 1 && m > 0) {
                /* one value: every index 0, one RLE run */
                add_varint(&p->page, (uint64_t)m << 1);
                et_sb_addc(&p->page, 0);
            } else {
                et_parquet_rle(&p->page, p->idx + ix, m, w);
            }
            ix += m;
            if (write_page(p, ch, cs->name, PAGE_DATA, &p->page, to - from, ENC_RLE_DICTIONARY) != 0)
                return -1;
        }
    } else if (n > page_from && plain_page(p, ch, cs, page_from, n, nv) != 0) {
        return -1;
    }
    /* min and max, PLAIN-encoded */
    if (nonnull > 0) {
        switch (cs->k) {
        case K_I64:
        case K_U64:
        case K_F64:
            if (use_dict) /* the values are the dictionary's */
                for (size_t i = 0; i < p->in; i++)
                    stat_u64(cs->k, p->ikeys[i], &mm);
            if (mm.any) {
                uint64_t lo = mm.lo, hi = mm.hi;
                if (cs->k == K_F64) {
                    /* a zero minimum is written -0.0 and a zero maximum +0.0 */
                    double d;
                    memcpy(&d, &lo, 8);
                    if (d == 0)
                        lo = 0x8000000000000000ull;
                    memcpy(&d, &hi, 8);
                    if (d == 0)
                        hi = 0;
                }
                put_le64(ch->min, lo), put_le64(ch->max, hi);
                ch->min_n = ch->max_n = 8, ch->has_minmax = true;
            }
            break;
        case K_BOOL:
            ch->min[0] = bmin, ch->max[0] = bmax;
            ch->min_n = ch->max_n = 1, ch->has_minmax = true;
            break;
        default:
            break;
        }
    }
    return 0;
}

/* The FileMetaData of a file of table `t` with `rows` rows (the chunks in
 * p->ch), in p->meta. */
static void file_metadata(et_parquet *p, const table *t, const chunk *chs, size_t rows,
                          int64_t first_page)
{
    et_strbuf *sb = &p->meta;
    et_sb_reset(sb);
    et_thrift th, *x = &th;
    et_thrift_init(x, sb);
    et_thrift_field_i32(x, 1, 1); /* version */
    et_thrift_field_list(x, 2, ET_THRIFT_STRUCT, (size_t)t->ncols + 1);
    et_thrift_struct(x); /* the root */
    et_thrift_field_string(x, 4, "schema");
    et_thrift_field_i32(x, 5, t->ncols);
    et_thrift_end(x);
    for (int i = 0; i < t->ncols; i++) {
        const colspec *cs = &t->cols[i];
        static const int ptype[] = {[K_I64] = PT_INT64, [K_U64] = PT_INT64, [K_F64] = PT_DOUBLE,
                                    [K_STR] = PT_BYTE_ARRAY, [K_BOOL] = PT_BOOLEAN};
        et_thrift_struct(x);
        et_thrift_field_i32(x, 1, ptype[cs->k]);
        et_thrift_field_i32(x, 3, cs->optional ? REP_OPTIONAL : REP_REQUIRED);
        et_thrift_field_string(x, 4, cs->name);
        if (cs->k == K_STR) {
            et_thrift_field_i32(x, 6, CT_UTF8);
            et_thrift_field_struct(x, 10); /* LogicalType */
            et_thrift_field_struct(x, 1);  /* STRING */
            et_thrift_end(x);
            et_thrift_end(x);
        } else if (cs->k == K_U64) {
            et_thrift_field_i32(x, 6, CT_UINT_64);
            et_thrift_field_struct(x, 10); /* LogicalType */
            et_thrift_field_struct(x, 10); /* INTEGER */
            et_thrift_field_byte(x, 1, 64);
            et_thrift_field_bool(x, 2, false);
            et_thrift_end(x);
            et_thrift_end(x);
        }
        et_thrift_end(x);
    }
    et_thrift_field_i64(x, 3, (int64_t)rows);
    et_thrift_field_list(x, 4, ET_THRIFT_STRUCT, rows ? 1 : 0);
    if (rows) {
        int64_t unc = 0, comp = 0;
        for (int i = 0; i < t->ncols; i++)
            unc += chs[i].uncompressed, comp += chs[i].compressed;
        et_thrift_struct(x); /* RowGroup */
        et_thrift_field_list(x, 1, ET_THRIFT_STRUCT, (size_t)t->ncols);
        for (int i = 0; i < t->ncols; i++) {
            const colspec *cs = &t->cols[i];
            const chunk *ch = &chs[i];
            static const int ptype[] = {[K_I64] = PT_INT64, [K_U64] = PT_INT64,
                                        [K_F64] = PT_DOUBLE, [K_STR] = PT_BYTE_ARRAY,
                                        [K_BOOL] = PT_BOOLEAN};
            int64_t start = ch->dict_offset >= 0 ? ch->dict_offset : ch->data_offset;
            et_thrift_struct(x); /* ColumnChunk */
            et_thrift_field_i64(x, 2, start);
            et_thrift_field_struct(x, 3); /* ColumnMetaData */
            et_thrift_field_i32(x, 1, ptype[cs->k]);
            if (ch->dict_offset >= 0) {
                /* the dictionary page PLAIN, the levels RLE, the indices */
                et_thrift_field_list(x, 2, ET_THRIFT_I32, 3);
                et_thrift_i32(x, ENC_PLAIN);
                et_thrift_i32(x, ENC_RLE);
                et_thrift_i32(x, ENC_RLE_DICTIONARY);
            } else {
                et_thrift_field_list(x, 2, ET_THRIFT_I32, 2);
                et_thrift_i32(x, ENC_PLAIN);
                et_thrift_i32(x, ENC_RLE);
            }
            et_thrift_field_list(x, 3, ET_THRIFT_BINARY, 1);
            et_thrift_binary(x, cs->name, strlen(cs->name));
            et_thrift_field_i32(x, 4, CODEC_ZSTD);
            et_thrift_field_i64(x, 5, (int64_t)rows);
            et_thrift_field_i64(x, 6, ch->uncompressed);
            et_thrift_field_i64(x, 7, ch->compressed);
            et_thrift_field_i64(x, 9, ch->data_offset);
            if (ch->dict_offset >= 0)
                et_thrift_field_i64(x, 11, ch->dict_offset);
            et_thrift_field_struct(x, 12); /* Statistics */
            et_thrift_field_i64(x, 3, ch->nulls);
            if (ch->has_minmax) {
                et_thrift_field_binary(x, 5, ch->max, ch->max_n);
                et_thrift_field_binary(x, 6, ch->min, ch->min_n);
            }
            et_thrift_end(x);
            et_thrift_end(x); /* ColumnMetaData */
            et_thrift_end(x); /* ColumnChunk */
        }
        et_thrift_field_i64(x, 2, unc);
        et_thrift_field_i64(x, 3, (int64_t)rows);
        et_thrift_field_i64(x, 5, first_page);
        et_thrift_field_i64(x, 6, comp);
        et_thrift_field_i32(x, 7, 0); /* ordinal: an i16 */
        et_thrift_end(x);
    }
    et_thrift_field_string(x, 6, "etinspect version " ETINSPECT_VERSION);
    et_thrift_field_list(x, 7, ET_THRIFT_STRUCT, (size_t)t->ncols);
    for (int i = 0; i < t->ncols; i++) {
        et_thrift_struct(x);          /* ColumnOrder */
        et_thrift_field_struct(x, 1); /* TYPE_ORDER */
        et_thrift_end(x);
        et_thrift_end(x);
    }
    et_thrift_end(x);
}

/* What the threads encoding a dump's columns share: each encoder takes
 * the next column not taken, of any table, the costliest first (`order`:
 * table index * PQ_MAX_COLS + column); a column whose values are another's
 * (`same`) is not encoded but copied. */
typedef struct encode_job {
    et_parquet *p;
    const cursor *c;
    const char *const *paths; /* by table */
    int nitems;
    atomic_int next;
    int order[PQ_N_TABLES * PQ_MAX_COLS];
    int same[PQ_N_TABLES][PQ_MAX_COLS]; /* -1, or the column it equals */
    size_t rows[PQ_N_TABLES][PQ_MAX_COLS];
} encode_job;

/* How long column `cs` takes to encode, roughly: a PLAIN number (every
 * value through ZSTD), a double (a dictionary of bit patterns), another
 * number, a string (mostly a value repeated); a large table's before a
 * small one's. */
static int column_cost(const colspec *cs)
{
    return cs->plain ? 3 : cs->k == K_F64 ? 2 : cs->k == K_STR ? 0 : 1;
}

static void encode_columns(void *ctx, size_t i)
{
    encode_job *j = ctx;
    colenc *e = &j->p->encs[i];
    et_strbuf sb = e->c.sb; /* the encoder's own cell buffer */
    e->c = *j->c;
    e->c.sb = sb;
    e->rc = 0;
    for (;;) {
        int k = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (k >= j->nitems || e->rc != 0)
            break;
        int ti = j->order[k] / PQ_MAX_COLS, col = j->order[k] % PQ_MAX_COLS;
        if (j->same[ti][col] >= 0)
            continue;
        e->ch = j->p->ch[ti];
        e->outs = j->p->colout[ti];
        e->path = j->paths[ti];
        e->rc = write_column(e, &pq_tables[ti], &e->c, col, &j->rows[ti][col]);
    }
}

/* Open the file of table `t` of the dump: DIR/TABLE/part-ID.parquet, its
 * path into `path`, the outfile p->pend[p->npend] (p->npend counts it). */
static int open_file(et_parquet *p, const table *t, const cursor *c, et_strbuf *path)
{
    et_sb_adds(path, p->dir);
    et_sb_addc(path, '/');
    et_sb_adds(path, t->name);
    et_sb_adds(path, "/part-");
    et_sb_adds(path, c->dump_id);
    et_sb_adds(path, ".parquet");
    if (path->failed)
        return NOMEM(p);
    /* the caller's inputs, stat()ed once at begin (outfile.h checks the
     * inputs in use itself): one stat per file, whatever their number */
    struct stat ds;
    if (stat(path->p, &ds) == 0)
        for (size_t i = 0; i < p->nins; i++)
            if (p->ins[i].dev == ds.st_dev && p->ins[i].ino == ds.st_ino)
                return et_fail(p->err, ET_ERR_USAGE,
                               "%s: refusing to overwrite an input file with output (the input %s)",
                               path->p, p->ins[i].path);
    if (et_outfile_open(&p->pend[p->npend], path->p, NULL, p->err) != 0)
        return -1;
    p->npend++; /* committed with the others (et_parquet_commit) */
    return 0;
}

/* Write the file of table `ti` (its columns encoded) into outfile `of`:
 * "PAR1", the column chunks, the footer. */
static int finish_file(et_parquet *p, size_t ti, size_t rows, et_outfile *of, const char *path)
{
    const table *t = &pq_tables[ti];
    p->of = of;
    p->path = path;
    p->offset = 0;
    p->io_failed = false;
    int rc = out(p, "PAR1", 4);
    for (int col = 0; rc == 0 && col < t->ncols; col++) {
        chunk *ch = &p->ch[ti][col];
        if (ch->dict_offset >= 0)
            ch->dict_offset += p->offset;
        if (ch->data_offset >= 0)
            ch->data_offset += p->offset;
        rc = out(p, p->colout[ti][col].p, p->colout[ti][col].n);
    }
    if (rc == 0) {
        file_metadata(p, t, p->ch[ti], rows, 4);
        if (p->meta.failed || p->meta.n > UINT32_MAX)
            rc = NOMEM(p);
    }
    char len[4];
    if (rc == 0) {
        put_le32(len, (uint32_t)p->meta.n);
        rc = out(p, p->meta.p, p->meta.n);
    }
    if (rc == 0)
        rc = out(p, len, 4);
    if (rc == 0)
        rc = out(p, "PAR1", 4);
    if (rc != 0) {
        if (p->io_failed)
            et_outfile_fail(of, p->err);
    } else if (fflush(of->fp) != 0 || ferror(of->fp)) {
        rc = et_outfile_fail(of, p->err);
    }
    p->of = NULL;
    p->path = NULL;
    return rc;
}

/* The files of the dump of cursor `c`, one per table: all opened, every
 * table's columns encoded (side by side on the encoders when the dump is
 * large), then each file written.  On failure the caller aborts the files
 * opened (p->pend from its first). */
static int write_files(et_parquet *p, cursor *c)
{
    et_strbuf paths[PQ_N_TABLES];
    memset(paths, 0, sizeof paths);
    size_t first = p->npend;
    int rc = 0;
    for (size_t ti = 0; rc == 0 && ti < PQ_N_TABLES; ti++)
        rc = open_file(p, &pq_tables[ti], c, &paths[ti]);
    encode_job *job = rc == 0 ? calloc(1, sizeof *job) : NULL;
    if (rc == 0 && !job)
        rc = NOMEM(p);
    if (rc == 0) {
        job->p = p;
        job->c = c;
        const char *pp[PQ_N_TABLES];
        for (size_t ti = 0; ti < PQ_N_TABLES; ti++)
            pp[ti] = paths[ti].p;
        job->paths = pp;
        atomic_init(&job->next, 0);
        for (int w = 3; w >= 0; w--)
            for (size_t ti = 0; ti < PQ_N_TABLES; ti++)
                for (int col = 0; col < pq_tables[ti].ncols; col++)
                    if (column_cost(&pq_tables[ti].cols[col]) == w)
                        job->order[job->nitems++] = (int)ti * PQ_MAX_COLS + col;
        for (size_t ti = 0; ti < PQ_N_TABLES; ti++)
            for (int col = 0; col < pq_tables[ti].ncols; col++)
                job->same[ti][col] = pq_tables[ti].same ? pq_tables[ti].same(c, col) : -1;
        /* side by side when there is enough to share */
        unsigned nenc = p->given_threads && p->given_threads < p->nenc ? p->given_threads : p->nenc;
        unsigned n = c->n_samples + c->n_events + c->n_allocs >= ET_PQ_PAGE_ROWS ? nenc : 1;
        et_parallel_for(n, n, encode_columns, job);
        for (unsigned i = 0; i < n && rc == 0; i++)
            if (p->encs[i].rc != 0)
                rc = -1, *p->err = p->encs[i].own_err;
        for (size_t ti = 0; rc == 0 && ti < PQ_N_TABLES; ti++)
            for (int col = 0; rc == 0 && col < pq_tables[ti].ncols; col++) {
                int from = job->same[ti][col];
                if (from < 0)
                    continue;
                /* the same pages: offsets are the chunk's own until placed */
                et_strbuf *to = &p->colout[ti][col];
                et_sb_reset(to);
                et_sb_add(to, p->colout[ti][from].p, p->colout[ti][from].n);
                p->ch[ti][col] = p->ch[ti][from];
                job->rows[ti][col] = job->rows[ti][from];
                if (to->failed)
                    rc = NOMEM(p);
            }
        for (size_t ti = 0; rc == 0 && ti < PQ_N_TABLES; ti++)
            rc = finish_file(p, ti, job->rows[ti][0], &p->pend[first + ti], paths[ti].p);
    }
    free(job);
    for (size_t ti = 0; ti < PQ_N_TABLES; ti++)
        et_sb_free(&paths[ti]);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The dump's identity */

void et_parquet_dump_id(const et_inspector *insp, char out_[33])
{
    XXH128_hash_t h;
    if (insp->dump.buf.data && insp->dump.buf.end > 0) {
        h = XXH3_128bits(insp->dump.buf.data, insp->dump.buf.end);
    } else {
        /* a legacy dump: its events' names and durations */
        XXH3_state_t *st = XXH3_createState();
        if (!st) {
            h.low64 = h.high64 = 0;
        } else {
            XXH3_128bits_reset(st);
            for (size_t b = 0; b < insp->n_blocks; b++) {
                const et_block *blk = &insp->blocks[b];
                XXH3_128bits_update(st, blk->name.p ? blk->name.p : "", blk->name.p ? blk->name.n + 0 : 0);
                XXH3_128bits_update(st, "\n", 1);
                for (size_t e = 0; e < blk->n_events; e++) {
                    const et_event *ev = &blk->events[e];
                    et_str name = et_event_name(ev);
                    XXH3_128bits_update(st, name.p ? name.p : "", name.p ? name.n : 0);
                    XXH3_128bits_update(st, "\n", 1);
                    if (ev->has_perf_data)
                        XXH3_128bits_update(st, ev->perf_data.raw,
                                            ev->perf_data.n * sizeof *ev->perf_data.raw);
                }
            }
            h = XXH3_128bits_digest(st);
            XXH3_freeState(st);
        }
    }
    snprintf(out_, 33, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

/* ------------------------------------------------------------------ */
/* The dataset */

/* Make directory `path` unless it is one. */
static int make_dir(const char *path, et_error *err)
{
    struct stat st;
    if (mkdir(path, 0777) == 0)
        return 0;
    int e = errno;
    if (e == EEXIST && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        return et_fail(err, ET_ERR_IO, "%s: not a directory (the Parquet dataset is a directory)",
                       path);
    }
    return et_fail(err, ET_ERR_IO, "%s: cannot create the directory: %s", path, strerror(e));
}

int et_parquet_begin(et_parquet **outp, const char *dir, const char *const *inputs,
                     et_error *err)
{
    *outp = NULL;
    if (!dir || !*dir)
        return et_fail(err, ET_ERR_USAGE, "the output path is empty");
    if (make_dir(dir, err) != 0)
        return -1;
    et_parquet *p = calloc(1, sizeof *p);
    bool ok = p && (p->dir = strdup(dir));
    unsigned threads = et_threads();
    for (unsigned i = 0; ok && i < MAX_ENC && i < (threads ? threads : 1); i++) {
        colenc *e = &p->encs[p->nenc++];
        e->err = &e->own_err;
        ok = (e->zc = ZSTD_createCCtx()) && (e->vals = malloc(ET_PQ_PAGE_ROWS * 8));
    }
    if (!ok) {
        et_parquet_end(p);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    size_t n = 0;
    while (inputs && inputs[n])
        n++;
    if (n && !(p->ins = calloc(n, sizeof *p->ins))) {
        et_parquet_end(p);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(inputs[i], &st) == 0)
            p->ins[p->nins++] = (input_id){st.st_dev, st.st_ino, inputs[i]};
    }
    for (size_t i = 0; et_parquet_tables[i]; i++) {
        et_strbuf sub = {0};
        et_sb_adds(&sub, dir);
        et_sb_addc(&sub, '/');
        et_sb_adds(&sub, et_parquet_tables[i]);
        int rc = sub.failed ? et_fail(err, ET_ERR_NOMEM, "out of memory") : make_dir(sub.p, err);
        et_sb_free(&sub);
        if (rc != 0) {
            et_parquet_end(p);
            return -1;
        }
    }
    *outp = p;
    return 0;
}

static int add_dump(et_parquet *p, const et_inspector *insp, const char *name, const char *id,
                    et_error *err);

/* Free the dumps of `items` (n). */
static void free_items(given_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        et_inspector_free(items[i].insp);
        free(items[i].name);
    }
}

/* The writer's thread: the queue's dumps, oldest first, until it is empty
 * or a dump failed (the rest are then freed unwritten by the caller). */
static void given_run(void *ctx)
{
    et_parquet *p = ctx;
    pthread_mutex_lock(&p->gmu);
    while (p->qn > 0 && p->given_rc == 0) {
        given_item it = p->q[0];
        memmove(p->q, p->q + 1, (p->qn - 1) * sizeof *p->q);
        p->qn--;
        pthread_cond_broadcast(&p->gcv); /* room in the queue */
        pthread_mutex_unlock(&p->gmu);
        et_error e;
        int rc = add_dump(p, it.insp, it.name, it.id, &e);
        pthread_mutex_lock(&p->gmu);
        p->done[p->ndone++] = it;
        if (rc != 0 && p->given_rc == 0) {
            p->given_rc = rc;
            p->given_err = e;
        }
    }
    p->running = false;
    pthread_cond_broadcast(&p->gcv);
    pthread_mutex_unlock(&p->gmu);
}

/* Wait until the writer's thread has written every dump given, free them
 * all; the first failure's result (reported once). */
static int given_wait(et_parquet *p, et_error *err)
{
    if (!p->gmade)
        return 0;
    pthread_mutex_lock(&p->gmu);
    while (p->running)
        pthread_cond_wait(&p->gcv, &p->gmu);
    pthread_mutex_unlock(&p->gmu);
    et_task_wait(&p->task);
    free_items(p->done, p->ndone);
    free_items(p->q, p->qn); /* after a failure: not written */
    p->ndone = p->qn = 0;
    int rc = p->given_rc;
    if (rc != 0 && err)
        *err = p->given_err;
    p->given_rc = 0;
    p->given_threads = 0;
    return rc;
}

unsigned et_parquet_build_threads(void)
{
    unsigned t = et_threads();
    return t - t / 2 > 0 ? t - t / 2 : 1;
}

int et_parquet_give(et_parquet *p, et_inspector *insp, const char *name, et_error *err)
{
    unsigned t = et_threads();
    if (t > 1 && !p->gmade) {
        if (pthread_mutex_init(&p->gmu, NULL) == 0) {
            if (pthread_cond_init(&p->gcv, NULL) == 0)
                p->gmade = true;
            else
                pthread_mutex_destroy(&p->gmu);
        }
    }
    if (!p->gmade || et_inspector_stats_pending(insp) || et_inspector_samples_pending(insp) ||
        et_inspector_samples_dropped(insp)) {
        /* one thread; or what et_parquet_add reads would be built on the
         * writer's thread: written here, after the dumps before it */
        int rc = given_wait(p, err);
        if (rc == 0)
            rc = et_parquet_add(p, insp, name, err);
        et_inspector_free(insp);
        return rc;
    }
    given_item it = {.insp = insp, .name = strdup(name ? name : "")};
    if (!it.name) {
        et_inspector_free(insp);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    et_parquet_dump_id(insp, it.id);
    /* hashed: its file's pages, which the hash read in again, are not kept
     * while it waits (the writer reads back only names) */
    et_map_drop_pages(&insp->etdump_file);
    given_item done[GIVE_QUEUE + 1];
    size_t ndone;
    pthread_mutex_lock(&p->gmu);
    while (p->qn == GIVE_QUEUE && p->given_rc == 0)
        pthread_cond_wait(&p->gcv, &p->gmu);
    int failed = p->given_rc;
    /* the dumps written so far: freed here, on the caller's thread */
    ndone = p->ndone;
    memcpy(done, p->done, ndone * sizeof *done);
    p->ndone = 0;
    bool start = false;
    if (!failed) {
        p->q[p->qn++] = it;
        start = !p->running;
        p->running = true;
    }
    pthread_mutex_unlock(&p->gmu);
    free_items(done, ndone);
    if (failed) {
        free_items(&it, 1);
        return given_wait(p, err);
    }
    if (start) { /* the thread that ran last has ended: joined first */
        et_task_wait(&p->task);
        p->given_threads = t;
        et_task_start(&p->task, t, given_run, p);
    }
    return 0;
}

/* Commit the files pending. */
static int commit_pending(et_parquet *p, et_error *err)
{
    size_t n = p->npend;
    p->npend = p->pend_dumps = 0;
    return n ? et_outfile_commit_all(p->pend, n, err) : 0;
}

int et_parquet_commit(et_parquet *p, et_error *err)
{
    /* the dumps before a failed one given are kept all the same */
    et_error scratch;
    int failed = given_wait(p, err);
    int rc = commit_pending(p, failed ? &scratch : err);
    return failed ? -1 : rc;
}

void et_parquet_end(et_parquet *p)
{
    if (!p)
        return;
    given_wait(p, NULL);
    if (p->gmade) {
        pthread_mutex_destroy(&p->gmu);
        pthread_cond_destroy(&p->gcv);
    }
    while (p->npend > 0)
        et_outfile_abort(&p->pend[--p->npend]);
    free(p->dir);
    free(p->ins);
    for (unsigned i = 0; i < p->nenc; i++) {
        colenc *e = &p->encs[i];
        ZSTD_freeCCtx(e->zc);
        et_sb_free(&e->page);
        et_sb_free(&e->levels);
        et_sb_free(&e->head);
        et_sb_free(&e->zbuf);
        et_sb_free(&e->c.sb);
        et_sb_free(&e->fix);
        free(e->idx);
        free(e->defs);
        free(e->vals);
        free(e->ikeys);
        free(e->islot);
        dict_free(&e->d);
    }
    for (size_t t = 0; t < PQ_N_TABLES; t++)
        for (int i = 0; i < PQ_MAX_COLS; i++)
            et_sb_free(&p->colout[t][i]);
    et_sb_free(&p->meta);
    free(p);
}

static bool from_file(const et_inspector *insp)
{
    const char *l = insp->etdump_label;
    return l && strcmp(l, "<etdump_data>") != 0 && strcmp(l, "<profile_results_data>") != 0;
}

int et_parquet_add(et_parquet *p, const et_inspector *insp, const char *name, et_error *err)
{
    char id[33];
    et_parquet_dump_id(insp, id);
    return add_dump(p, insp, name, id, err);
}

/* et_parquet_add of the dump whose ID is `id`. */
static int add_dump(et_parquet *p, const et_inspector *insp, const char *name, const char *id,
                    et_error *err)
{
    if (!name || !*name)
        return et_fail(err, ET_ERR_USAGE, "%s: the dump's name is empty", p->dir);
    p->err = err;
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
        strcpy(when, "1970-01-01T00:00:00Z");
    cursor c = {.insp = insp, .dump = name, .dump_id = id, .exported_at = when};
    /* NULL: not a file, or one no longer there (moved, removed) - but out
     * of memory is an error, not a NULL in the dataset */
    errno = 0;
    char *rp = from_file(insp) ? realpath(insp->etdump_label, NULL) : NULL;
    if (from_file(insp) && !rp && errno == ENOMEM)
        return NOMEM(p);
    c.realpath_ = rp;
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        c.n_events += blk->n_events;
        for (size_t e = 0; e < blk->n_events; e++)
            if (blk->events[e].has_perf_data)
                c.n_samples += blk->events[e].perf_data.n;
        if (blk->allocation_count && blk->allocation_first)
            for (size_t r = 0; r < blk->n_runs; r++)
                c.n_allocs += blk->allocation_count[r];
    }
    et_sb_addc(&c.warnings, '[');
    for (size_t i = 0; i < insp->warnings.n; i++) {
        if (i)
            et_sb_adds(&c.warnings, ", ");
        et_sql_json_str(&c.warnings, insp->warnings.items[i], strlen(insp->warnings.items[i]));
    }
    et_sb_addc(&c.warnings, ']');
    int rc = c.warnings.failed ? NOMEM(p) : 0;
    size_t first = p->npend;
    if (rc == 0)
        rc = write_files(p, &c);
    if (rc != 0) { /* none of this dump's files */
        while (p->npend > first)
            et_outfile_abort(&p->pend[--p->npend]);
    } else {
        /* an identical dump pending in this batch: its files would be
         * replaced by these at the commit's renames, so they are dropped
         * now (no fsync, no rename for nothing) - the dataset is the same */
        for (size_t i = 0; i < first; i++)
            for (size_t k = first; k < p->npend && p->pend[i].dest; k++)
                if (p->pend[k].dest && strcmp(p->pend[i].dest, p->pend[k].dest) == 0)
                    et_outfile_abort(&p->pend[i]);
    }
    if (rc == 0 && ++p->pend_dumps == PENDING_DUMPS) {
        rc = commit_pending(p, err);
    }
    et_sb_free(&c.warnings);
    et_sb_free(&c.sb);
    free(rp);
    p->err = NULL;
    return rc;
}

int et_parquet_export(const et_inspector *insp, const char *dir, const char *name,
                      et_error *err)
{
    const char *inputs[3] = {insp->etdump_label, insp->etrecord ? insp->etrecord->label : NULL,
                             NULL};
    if (!from_file(insp))
        inputs[0] = inputs[1], inputs[1] = NULL;
    et_parquet *p;
    if (et_parquet_begin(&p, dir, inputs, err) != 0)
        return -1;
    int rc = et_parquet_add(p, insp, name, err);
    if (rc == 0)
        rc = commit_pending(p, err);
    et_parquet_end(p);
    return rc;
}
