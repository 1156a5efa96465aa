/* join.c - hash joins with frame.lua's row order (table.h). */
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t *v;
    size_t n, cap;
} vec;

static int push2(vec *a, vec *b, size_t x, size_t y)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 256;
        size_t *na = realloc(a->v, nc * sizeof *na);
        if (!na)
            return -1;
        a->v = na;
        size_t *nb = realloc(b->v, nc * sizeof *nb);
        if (!nb)
            return -1;
        b->v = nb;
        a->cap = b->cap = nc;
    }
    a->v[a->n++] = x;
    b->v[b->n++] = y;
    return 0;
}

static bool numeric(const et_column *c)
{
    return c->kind == ET_COL_F64 || c->kind == ET_COL_I64;
}

/* A key cell's word: numbers by their double's bits, booleans 0/1, text by
 * id (map: b's ids in a's id space). */
static inline uint64_t word(const et_column *c, size_t i, const uint64_t *map)
{
    switch (c->kind) {
    case ET_COL_F64: {
        double d = et_col_f64(c, i);
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    case ET_COL_I64: {
        double d = (double)et_col_i64(c, i);
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    case ET_COL_BOOL: return et_col_bool(c, i);
    default: {
        uint32_t id = et_col_str(c, i);
        return map ? map[id] : id;
    }
    }
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

typedef struct {
    size_t nk, nkeys, cap;
    uint64_t *words; /* per key: nk words, then nk tags */
    size_t *slots, nslots;
} keyset;

/* The key id of row i of cols (adding it). */
static int key_of(keyset *ks, et_column *const *cols, size_t i, uint64_t *const *maps, uint64_t *buf,
                  size_t *out)
{
    size_t nk = ks->nk;
    uint64_t h = 0;
    for (size_t k = 0; k < nk; k++) {
        bool m = et_col_missing(cols[k], i);
        buf[k] = m ? 0 : word(cols[k], i, maps[k]);
        buf[nk + k] = m;
        h = mix(h, buf[k] * 2 + m);
    }
    size_t mask = ks->nslots - 1, s = (size_t)h & mask;
    for (; ks->slots[s]; s = (s + 1) & mask) {
        size_t g = ks->slots[s] - 1;
        if (memcmp(ks->words + g * 2 * nk, buf, 2 * nk * sizeof *buf) == 0) {
            *out = g;
            return 0;
        }
    }
    if (ks->nkeys == ks->cap) {
        size_t nc = ks->cap * 2;
        uint64_t *nw = realloc(ks->words, nc * 2 * nk * sizeof *nw);
        if (!nw)
            return -1;
        ks->words = nw;
        ks->cap = nc;
    }
    size_t g = ks->nkeys++;
    memcpy(ks->words + g * 2 * nk, buf, 2 * nk * sizeof *buf);
    ks->slots[s] = g + 1;
    *out = g;
    if (ks->nkeys * 2 > ks->nslots) {
        size_t ns = ks->nslots * 2;
        size_t *nsl = calloc(ns, sizeof *nsl);
        if (!nsl)
            return -1;
        for (size_t j = 0; j < ks->nkeys; j++) {
            const uint64_t *w = ks->words + j * 2 * nk;
            uint64_t hh = 0;
            for (size_t k = 0; k < nk; k++)
                hh = mix(hh, w[k] * 2 + w[nk + k]);
            size_t t = (size_t)hh & (ns - 1);
            while (nsl[t])
                t = (t + 1) & (ns - 1);
            nsl[t] = j + 1;
        }
        free(ks->slots);
        ks->slots = nsl;
        ks->nslots = ns;
    }
    return 0;
}

/* Rows by key: off (nkeys + 1), rows. */
static int bucket(const size_t *kid, size_t n, size_t nkeys, size_t **off, size_t **rows)
{
    size_t *o = calloc(nkeys + 1, sizeof *o);
    size_t *r = malloc((n ? n : 1) * sizeof *r);
    size_t *pos = malloc((nkeys ? nkeys : 1) * sizeof *pos);
    if (!o || !r || !pos) {
        free(o), free(r), free(pos);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        o[kid[i] + 1]++;
    for (size_t k = 0; k < nkeys; k++)
        o[k + 1] += o[k];
    memcpy(pos, o, nkeys * sizeof *pos);
    for (size_t i = 0; i < n; i++)
        r[pos[kid[i]]++] = i;
    free(pos);
    *off = o;
    *rows = r;
    return 0;
}

int et_tab_join(et_column *const *lk, size_t ln, et_column *const *rk, size_t rn, size_t nk,
                int how, size_t **li, size_t **ri, size_t *nout)
{
    for (size_t k = 0; k < nk; k++) {
        const et_column *a = lk[k], *b = rk[k];
        bool ok = (numeric(a) && numeric(b)) ||
                  (a->kind == b->kind && (a->kind == ET_COL_BOOL || a->kind == ET_COL_STR));
        if (!ok)
            return ET_TAB_UNSUPPORTED;
    }
    int rc = ET_TAB_NOMEM;
    uint64_t **maps = calloc(nk ? nk : 1, sizeof *maps);
    uint64_t *buf = malloc((2 * nk + 1) * sizeof *buf);
    size_t *lkid = malloc((ln ? ln : 1) * sizeof *lkid), *rkid = malloc((rn ? rn : 1) * sizeof *rkid);
    keyset ks = {.nk = nk, .cap = 64, .nslots = 128};
    ks.words = malloc(64 * 2 * (nk ? nk : 1) * sizeof *ks.words);
    ks.slots = calloc(128, sizeof *ks.slots);
    size_t *loff = NULL, *lrows = NULL, *roff = NULL, *rrows = NULL;
    vec L = {0}, R = {0};
    if (!maps || !buf || !lkid || !rkid || !ks.words || !ks.slots)
        goto done;
    for (size_t k = 0; k < nk; k++) {
        if (lk[k]->kind != ET_COL_STR || lk[k]->pool == rk[k]->pool)
            continue;
        uint32_t nb = et_strpool_count(rk[k]->pool), na = et_strpool_count(lk[k]->pool);
        if (!(maps[k] = malloc((nb ? nb : 1) * sizeof *maps[k])))
            goto done;
        for (uint32_t id = 0; id < nb; id++) {
            size_t len;
            const char *s = et_strpool_get(rk[k]->pool, id, &len);
            uint32_t aid;
            maps[k][id] = et_strpool_find(lk[k]->pool, s, len, &aid) == 0 ? aid : (uint64_t)na + id;
        }
    }
    uint64_t **lmaps = calloc(nk ? nk : 1, sizeof *lmaps);
    if (!lmaps)
        goto done;
    for (size_t i = 0; i < ln; i++)
        if (key_of(&ks, lk, i, lmaps, buf, &lkid[i]) != 0) {
            free(lmaps);
            goto done;
        }
    free(lmaps);
    size_t lkeys = ks.nkeys; /* keys 0..lkeys-1: the left's, first-seen order */
    for (size_t i = 0; i < rn; i++)
        if (key_of(&ks, rk, i, maps, buf, &rkid[i]) != 0)
            goto done;
    size_t nkeys = ks.nkeys;
    if (bucket(lkid, ln, nkeys, &loff, &lrows) != 0 || bucket(rkid, rn, nkeys, &roff, &rrows) != 0)
        goto done;
#define EMIT(x, y)                                                                                 \
    do {                                                                                           \
        if (push2(&L, &R, (x), (y)) != 0)                                                          \
            goto done;                                                                             \
    } while (0)
    if (how == 0) {
        for (size_t k = 0; k < lkeys; k++)
            for (size_t a = loff[k]; roff[k + 1] > roff[k] && a < loff[k + 1]; a++)
                for (size_t b = roff[k]; b < roff[k + 1]; b++)
                    EMIT(lrows[a], rrows[b]);
    } else if (how == 1) {
        for (size_t i = 0; i < ln; i++) {
            size_t k = lkid[i];
            if (roff[k + 1] == roff[k])
                EMIT(i, ET_NO_ROW);
            for (size_t b = roff[k]; b < roff[k + 1]; b++)
                EMIT(i, rrows[b]);
        }
    } else if (how == 2) {
        for (size_t j = 0; j < rn; j++) {
            size_t k = rkid[j];
            if (loff[k + 1] == loff[k])
                EMIT(ET_NO_ROW, j);
            for (size_t a = loff[k]; a < loff[k + 1]; a++)
                EMIT(lrows[a], j);
        }
    } else {
        /* pandas 1.5's merge(how="outer", sort=False): the keys in the order
         * they are first seen, the left's rows then the right's (a missing
         * key where it is first seen too) */
        for (size_t k = 0; k < nkeys; k++) {
            bool hl = loff[k + 1] > loff[k], hr = roff[k + 1] > roff[k];
            if (hl && hr) {
                for (size_t a = loff[k]; a < loff[k + 1]; a++)
                    for (size_t b = roff[k]; b < roff[k + 1]; b++)
                        EMIT(lrows[a], rrows[b]);
            } else if (hl) {
                for (size_t a = loff[k]; a < loff[k + 1]; a++)
                    EMIT(lrows[a], ET_NO_ROW);
            } else {
                for (size_t b = roff[k]; b < roff[k + 1]; b++)
                    EMIT(ET_NO_ROW, rrows[b]);
            }
        }
    }
#undef EMIT
    if (!L.v && !(L.v = malloc(sizeof *L.v)))
        goto done;
    if (!R.v && !(R.v = malloc(sizeof *R.v)))
        goto done;
    *li = L.v;
    *ri = R.v;
    *nout = L.n;
    L.v = R.v = NULL;
    rc = ET_TAB_OK;
done:
    for (size_t k = 0; maps && k < nk; k++)
        free(maps[k]);
    free(maps), free(buf), free(lkid), free(rkid), free(ks.words), free(ks.slots);
    free(loff), free(lrows), free(roff), free(rrows);
    free(L.v), free(R.v);
    return rc;
}
