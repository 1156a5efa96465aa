/* sort.c - stable multi-key sort and grouping of rows (table.h). */
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- keys */

/* An order-preserving unsigned key of a present cell (kinds F64, I64,
 * BOOL; STR through its pool's ranks). */
static inline uint64_t order_key(const et_column *c, size_t i, const uint32_t *ranks)
{
    switch (c->kind) {
    case ET_COL_F64: {
        double d = et_col_f64(c, i);
        if (d == 0)
            d = 0; /* -0.0 ties with 0.0, as Lua's < */
        uint64_t u;
        memcpy(&u, &d, 8);
        return (u >> 63) ? ~u : u ^ (1ULL << 63);
    }
    case ET_COL_I64: return (uint64_t)et_col_i64(c, i) ^ (1ULL << 63);
    case ET_COL_BOOL: return et_col_bool(c, i);
    case ET_COL_STR: return ranks[et_col_str(c, i)];
    default: return 0;
    }
}

static bool sortable(const et_column *c)
{
    return c->kind == ET_COL_F64 || c->kind == ET_COL_I64 || c->kind == ET_COL_BOOL ||
           c->kind == ET_COL_STR;
}

/* Stable LSD radix sort of (key[i], idx[i]) by key, 8 bits a pass, passes
 * whose byte is the same everywhere skipped. */
static void radix(uint64_t *key, size_t *idx, uint64_t *k2, size_t *i2, size_t n)
{
    size_t (*cnt)[256] = calloc(8, sizeof *cnt);
    if (!cnt)
        return; /* caller checked memory before; cannot happen in practice */
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key[i];
        for (int b = 0; b < 8; b++)
            cnt[b][(k >> (8 * b)) & 0xff]++;
    }
    for (int b = 0; b < 8; b++) {
        size_t *c = cnt[b];
        bool trivial = false;
        for (int v = 0; v < 256; v++)
            if (c[v] == n) {
                trivial = true;
                break;
            }
        if (trivial)
            continue;
        size_t pos = 0;
        for (int v = 0; v < 256; v++) {
            size_t t = c[v];
            c[v] = pos;
            pos += t;
        }
        for (size_t i = 0; i < n; i++) {
            size_t p = c[(key[i] >> (8 * b)) & 0xff]++;
            k2[p] = key[i];
            i2[p] = idx[i];
        }
        memcpy(key, k2, n * sizeof *key);
        memcpy(idx, i2, n * sizeof *idx);
    }
    free(cnt);
}

int et_tab_sort(et_column *const *keys, const bool *desc, size_t nk, bool na_first, size_t *idx,
                size_t n)
{
    for (size_t k = 0; k < nk; k++)
        if (!sortable(keys[k]))
            return ET_TAB_UNSUPPORTED;
    if (n < 2)
        return ET_TAB_OK;
    uint64_t *key = malloc(n * sizeof *key), *k2 = malloc(n * sizeof *k2);
    size_t *i2 = malloc(n * sizeof *i2);
    if (!key || !k2 || !i2) {
        free(key), free(k2), free(i2);
        return ET_TAB_NOMEM;
    }
    int rc = ET_TAB_OK;
    /* least significant key first: each pass a stable sort of everything */
    for (size_t kk = nk; kk-- > 0;) {
        et_column *c = keys[kk];
        const uint32_t *ranks = NULL;
        if (c->kind == ET_COL_STR && !(ranks = et_strpool_ranks(c->pool))) {
            rc = ET_TAB_NOMEM;
            break;
        }
        /* present rows first (in order), missing ones after them */
        size_t np = 0, nm = 0;
        for (size_t i = 0; i < n; i++)
            if (!et_col_missing(c, idx[i]))
                np++;
        size_t *miss = i2 + np; /* missing rows, in order, parked in i2's tail */
        size_t p = 0;
        for (size_t i = 0; i < n; i++) {
            size_t r = idx[i];
            if (et_col_missing(c, r)) {
                miss[nm++] = r;
            } else {
                uint64_t u = order_key(c, r, ranks);
                key[p] = desc[kk] ? ~u : u;
                idx[p++] = r;
            }
        }
        size_t *missing = malloc((nm ? nm : 1) * sizeof *missing);
        if (!missing) {
            rc = ET_TAB_NOMEM;
            break;
        }
        memcpy(missing, miss, nm * sizeof *missing);
        radix(key, idx, k2, i2, np);
        if (na_first) {
            memmove(idx + nm, idx, np * sizeof *idx);
            memcpy(idx, missing, nm * sizeof *idx);
        } else {
            memcpy(idx + np, missing, nm * sizeof *idx);
        }
        free(missing);
    }
    free(key), free(k2), free(i2);
    return rc;
}

/* ---------------------------------------------------------------- groups */

/* A cell as a group key word (table.h: numbers by their double value,
 * -0.0 apart; text by id within the column's pool).  Missing: tag. */
static inline uint64_t group_word(const et_column *c, size_t i)
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
    case ET_COL_STR: return et_col_str(c, i);
    default: return 0;
    }
}

/* 0 present, 1 missing (2 absent, when nil_apart). */
static inline unsigned miss_tag(const et_column *c, size_t i, bool nil_apart)
{
    if (!et_col_missing(c, i))
        return 0;
    if (nil_apart && c->valid && c->valid[i] == ET_ABSENT)
        return 2;
    return 1;
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

int et_tab_group(et_column *const *keys, size_t nk, size_t nrows, bool dropna, bool sort,
                 bool nil_apart, et_groups *out)
{
    for (size_t k = 0; k < nk; k++)
        if (!sortable(keys[k]))
            return ET_TAB_UNSUPPORTED;
    size_t *gid = malloc((nrows ? nrows : 1) * sizeof *gid);
    size_t gcap = 64, ng = 0;
    size_t *first = malloc(gcap * sizeof *first);
    uint64_t *gw = malloc(gcap * nk * sizeof *gw); /* each group's words */
    uint8_t *gm = malloc(gcap * nk);               /* and missing tags */
    uint64_t *wbuf = malloc((nk ? nk : 1) * sizeof *wbuf);
    uint8_t *mbuf = malloc(nk ? nk : 1);
    size_t nslots = 128;
    size_t *slots = calloc(nslots, sizeof *slots); /* group + 1, 0 empty */
    int rc = ET_TAB_NOMEM;
    if (!gid || !first || !gw || !gm || !wbuf || !mbuf || !slots)
        goto fail;
    /* one text key: ids index groups directly */
    size_t *byid = NULL, idn = 0;
    if (nk == 1 && keys[0]->kind == ET_COL_STR) {
        idn = et_strpool_count(keys[0]->pool);
        byid = malloc((idn + 3) * sizeof *byid);
        if (!byid)
            goto fail;
        for (size_t i = 0; i < idn + 3; i++)
            byid[i] = ET_NO_ROW;
    }
    for (size_t r = 0; r < nrows; r++) {
        bool skip = false;
        uint64_t h = 0;
        for (size_t k = 0; k < nk; k++) {
            unsigned t = miss_tag(keys[k], r, nil_apart);
            mbuf[k] = (uint8_t)t;
            wbuf[k] = t ? 0 : group_word(keys[k], r);
            if (t && dropna)
                skip = true;
            h = mix(h, wbuf[k] * 4 + t);
        }
        if (skip) {
            gid[r] = ET_NO_ROW;
            continue;
        }
        size_t *slot = NULL;
        if (byid) {
            slot = &byid[mbuf[0] ? idn + mbuf[0] : wbuf[0]];
            if (*slot != ET_NO_ROW) {
                gid[r] = *slot;
                continue;
            }
        } else {
            size_t mask = nslots - 1, s = (size_t)h & mask;
            for (; slots[s]; s = (s + 1) & mask) {
                size_t g = slots[s] - 1;
                if (memcmp(gw + g * nk, wbuf, nk * sizeof *wbuf) == 0 &&
                    memcmp(gm + g * nk, mbuf, nk) == 0)
                    break;
            }
            if (slots[s]) {
                gid[r] = slots[s] - 1;
                continue;
            }
        }
        /* a new group */
        if (ng == gcap) {
            gcap *= 2;
            size_t *nf = realloc(first, gcap * sizeof *nf);
            if (!nf)
                goto fail_id;
            first = nf;
            uint64_t *nw = realloc(gw, gcap * nk * sizeof *nw);
            if (!nw)
                goto fail_id;
            gw = nw;
            uint8_t *nm = realloc(gm, gcap * nk);
            if (!nm)
                goto fail_id;
            gm = nm;
        }
        first[ng] = r;
        memcpy(gw + ng * nk, wbuf, nk * sizeof *wbuf);
        memcpy(gm + ng * nk, mbuf, nk);
        gid[r] = ng;
        if (byid) {
            *slot = ng;
        } else {
            size_t mask = nslots - 1, s = (size_t)h & mask;
            while (slots[s])
                s = (s + 1) & mask;
            slots[s] = ng + 1;
        }
        ng++;
        if (!byid && ng * 2 > nslots) {
            size_t ns = nslots * 2;
            size_t *nsl = calloc(ns, sizeof *nsl);
            if (!nsl)
                goto fail_id;
            for (size_t g = 0; g < ng; g++) {
                uint64_t hh = 0;
                for (size_t k = 0; k < nk; k++)
                    hh = mix(hh, gw[g * nk + k] * 4 + gm[g * nk + k]);
                size_t s = (size_t)hh & (ns - 1);
                while (nsl[s])
                    s = (s + 1) & (ns - 1);
                nsl[s] = g + 1;
            }
            free(slots);
            slots = nsl;
            nslots = ns;
        }
    }
    free(byid);
    byid = NULL;
    /* the groups' order: rank[g] = output position */
    size_t *order = malloc((ng ? ng : 1) * sizeof *order);
    size_t *rank = malloc((ng ? ng : 1) * sizeof *rank);
    if (!order || !rank) {
        free(order), free(rank);
        goto fail;
    }
    for (size_t g = 0; g < ng; g++)
        order[g] = first[g]; /* ascending: first-seen order */
    if (sort && ng > 1) {
        bool *desc = calloc(nk ? nk : 1, sizeof *desc);
        int src = desc ? et_tab_sort(keys, desc, nk, false, order, ng) : ET_TAB_NOMEM;
        free(desc);
        if (src != ET_TAB_OK) {
            free(order), free(rank);
            rc = src;
            goto fail;
        }
    }
    for (size_t p = 0; p < ng; p++) {
        size_t g = gid[order[p]];
        rank[g] = p;
        first[p] = order[p];
    }
    /* counting sort of the rows by output group */
    size_t *off = calloc(ng + 1, sizeof *off);
    size_t kept = 0;
    for (size_t r = 0; off && r < nrows; r++)
        if (gid[r] != ET_NO_ROW) {
            off[rank[gid[r]] + 1]++;
            kept++;
        }
    size_t *rows = off ? malloc((kept ? kept : 1) * sizeof *rows) : NULL;
    if (!rows) {
        free(off), free(order), free(rank);
        goto fail;
    }
    for (size_t g = 0; g < ng; g++)
        off[g + 1] += off[g];
    for (size_t g = 0; g < ng; g++)
        order[g] = off[g]; /* reused: fill positions */
    for (size_t r = 0; r < nrows; r++)
        if (gid[r] != ET_NO_ROW)
            rows[order[rank[gid[r]]]++] = r;
    free(order), free(rank);
    free(gid), free(gw), free(gm), free(wbuf), free(mbuf), free(slots);
    out->n = ng;
    out->first = first;
    out->offsets = off;
    out->rows = rows;
    return ET_TAB_OK;
fail_id:
    free(byid);
fail:
    free(gid), free(first), free(gw), free(gm), free(wbuf), free(mbuf), free(slots);
    return rc;
}

void et_groups_free(et_groups *g)
{
    free(g->first);
    free(g->offsets);
    free(g->rows);
    g->first = g->offsets = g->rows = NULL;
    g->n = 0;
}

/* ---------------------------------------------------------------- gathers */

et_column *et_col_gather(const et_column *c, const size_t *idx, size_t k)
{
    bool holes = false;
    for (size_t i = 0; i < k && !holes; i++)
        holes = idx[i] == ET_NO_ROW;
    if (!holes)
        return et_col_take(c, idx, k);
    et_column *o = et_col_new(c->kind, k, true, c->pool);
    if (!o)
        return NULL;
    o->elem = c->elem;
    if ((c->kind == ET_COL_LIST || c->kind == ET_COL_OBJ) && c->owner) {
        o->owner = c->owner;
        et_col_owner_retain(o->owner);
    }
    size_t cs = o->stride;
    char *dst = o->own_data;
    uint8_t *v = o->own_valid;
    for (size_t i = 0; i < k; i++) {
        size_t r = idx[i];
        if (r == ET_NO_ROW) {
            v[i] = ET_NAN;
            continue;
        }
        memcpy(dst + i * cs, (const char *)c->data + r * c->stride, cs);
        v[i] = c->valid ? c->valid[r] : ET_VALID;
    }
    return o;
}

et_column *et_col_coalesce(const et_column *a, const size_t *ia, const et_column *b,
                           const size_t *ib, size_t k)
{
    if (a->kind != b->kind || a->kind == ET_COL_LIST || a->kind == ET_COL_OBJ)
        return NULL;
    et_strpool *pool = a->pool;
    bool repool = a->kind == ET_COL_STR && a->pool != b->pool;
    if (repool && !(pool = et_strpool_new()))
        return NULL;
    et_column *o = et_col_new(a->kind, k, true, pool);
    if (repool)
        et_strpool_release(pool); /* o holds it */
    if (!o)
        return NULL;
    size_t cs = o->stride;
    char *dst = o->own_data;
    uint8_t *v = o->own_valid;
    for (size_t i = 0; i < k; i++) {
        const et_column *c = ia[i] != ET_NO_ROW ? a : b;
        size_t r = ia[i] != ET_NO_ROW ? ia[i] : ib[i];
        if (r == ET_NO_ROW) {
            v[i] = ET_NAN;
            continue;
        }
        v[i] = c->valid ? c->valid[r] : ET_VALID;
        if (c == b && (v[i] == ET_ABSENT || (c->kind == ET_COL_BOOL && !et_col_bool(c, r)))) {
            v[i] = ET_NAN; /* frame.lua: `is_key and r[key] or NaN` */
            continue;
        }
        if (repool) {
            size_t len;
            const char *s = et_strpool_get(c->pool, et_col_str(c, r), &len);
            uint32_t id;
            if (et_strpool_intern(o->pool, s, len, &id) != 0) {
                et_col_release(o);
                return NULL;
            }
            memcpy(dst + i * cs, &id, 4);
        } else {
            memcpy(dst + i * cs, (const char *)c->data + r * c->stride, cs);
        }
    }
    return o;
}

et_column *et_col_concat(et_column *const *cols, size_t k)
{
    if (!k)
        return NULL;
    et_col_kind kind = cols[0]->kind;
    size_t n = 0;
    bool holes = false, one_pool = true;
    for (size_t j = 0; j < k; j++) {
        if (cols[j]->kind != kind || kind == ET_COL_LIST || kind == ET_COL_OBJ)
            return NULL;
        n += cols[j]->n;
        holes |= cols[j]->valid != NULL;
        one_pool &= cols[j]->pool == cols[0]->pool;
    }
    et_strpool *pool = cols[0]->pool;
    bool repool = kind == ET_COL_STR && !one_pool;
    if (repool && !(pool = et_strpool_new()))
        return NULL;
    et_column *o = et_col_new(kind, n, holes, pool);
    if (repool)
        et_strpool_release(pool);
    if (!o)
        return NULL;
    size_t cs = o->stride, at = 0;
    char *dst = et_col_mut_data(o);
    uint8_t *v = et_col_mut_valid(o);
    for (size_t j = 0; j < k; j++) {
        const et_column *c = cols[j];
        for (size_t i = 0; i < c->n; i++, at++) {
            if (v)
                v[at] = c->valid ? c->valid[i] : ET_VALID;
            if (repool) {
                size_t len;
                const char *s = et_strpool_get(c->pool, et_col_str(c, i), &len);
                uint32_t id;
                if (et_strpool_intern(o->pool, s, len, &id) != 0) {
                    et_col_release(o);
                    return NULL;
                }
                memcpy(dst + at * cs, &id, 4);
            } else {
                memcpy(dst + at * cs, (const char *)c->data + i * c->stride, cs);
            }
        }
    }
    return o;
}
