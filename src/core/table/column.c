/* column.c - see column.h. */
#include "table/column.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- owners */

et_col_owner *et_col_owner_new(void (*release)(void *ctx), void *ctx)
{
    et_col_owner *o = malloc(sizeof *o);
    if (!o)
        return NULL;
    o->refs = 1;
    o->release = release;
    o->ctx = ctx;
    return o;
}

void et_col_owner_retain(et_col_owner *o)
{
    if (o)
        o->refs++;
}

void et_col_owner_release(et_col_owner *o)
{
    if (!o || --o->refs > 0)
        return;
    if (o->release)
        o->release(o->ctx);
    free(o);
}

/* ---------------------------------------------------------------- strings */

struct et_strpool {
    long refs;
    char *bytes; /* each string followed by a NUL */
    size_t used, cap;
    size_t *off; /* per id: offset into bytes */
    uint32_t *len;
    uint32_t count, idcap;
    uint32_t *slots; /* open addressing: id + 1, 0 empty */
    size_t nslots;   /* power of two */
    uint32_t *ranks; /* cached, for ranks_count ids */
    uint32_t ranks_count;
};

et_strpool *et_strpool_new(void)
{
    et_strpool *p = calloc(1, sizeof *p);
    if (p)
        p->refs = 1;
    return p;
}

void et_strpool_retain(et_strpool *p)
{
    if (p)
        p->refs++;
}

void et_strpool_release(et_strpool *p)
{
    if (!p || --p->refs > 0)
        return;
    free(p->bytes);
    free(p->off);
    free(p->len);
    free(p->slots);
    free(p->ranks);
    free(p);
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a, then a final mix */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return h;
}

static int grow_slots(et_strpool *p)
{
    size_t ns = p->nslots ? p->nslots * 2 : 64;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t id = 0; id < p->count; id++) {
        size_t h = (size_t)hash_bytes(p->bytes + p->off[id], p->len[id]) & (ns - 1);
        while (s[h])
            h = (h + 1) & (ns - 1);
        s[h] = id + 1;
    }
    free(p->slots);
    p->slots = s;
    p->nslots = ns;
    return 0;
}

int et_strpool_intern(et_strpool *p, const char *s, size_t len, uint32_t *id)
{
    if (len > UINT32_MAX - 1 || p->count >= UINT32_MAX - 1)
        return -1;
    if ((size_t)p->count * 2 >= p->nslots && grow_slots(p) != 0)
        return -1;
    size_t mask = p->nslots - 1, h = (size_t)hash_bytes(s, len) & mask;
    for (; p->slots[h]; h = (h + 1) & mask) {
        uint32_t k = p->slots[h] - 1;
        if (p->len[k] == len && memcmp(p->bytes + p->off[k], s, len) == 0) {
            *id = k;
            return 0;
        }
    }
    if (p->count == p->idcap) {
        uint32_t nc = p->idcap ? p->idcap * 2 : 64;
        if (nc < p->idcap)
            return -1;
        size_t *no = realloc(p->off, nc * sizeof *no);
        if (!no)
            return -1;
        p->off = no;
        uint32_t *nl = realloc(p->len, nc * sizeof *nl);
        if (!nl)
            return -1;
        p->len = nl;
        p->idcap = nc;
    }
    if (len + 1 > p->cap - p->used) {
        size_t nc = p->cap ? p->cap : 256;
        while (len + 1 > nc - p->used) {
            if (nc > SIZE_MAX / 2)
                return -1;
            nc *= 2;
        }
        char *nb = realloc(p->bytes, nc);
        if (!nb)
            return -1;
        p->bytes = nb;
        p->cap = nc;
    }
    if (len)
        memcpy(p->bytes + p->used, s, len);
    p->bytes[p->used + len] = 0;
    p->off[p->count] = p->used;
    p->len[p->count] = (uint32_t)len;
    p->used += len + 1;
    p->slots[h] = p->count + 1;
    *id = p->count++;
    return 0;
}

int et_strpool_find(const et_strpool *p, const char *s, size_t len, uint32_t *id)
{
    if (!p->nslots)
        return 1;
    size_t mask = p->nslots - 1, h = (size_t)hash_bytes(s, len) & mask;
    for (; p->slots[h]; h = (h + 1) & mask) {
        uint32_t k = p->slots[h] - 1;
        if (p->len[k] == len && memcmp(p->bytes + p->off[k], s, len) == 0) {
            *id = k;
            return 0;
        }
    }
    return 1;
}

const char *et_strpool_get(const et_strpool *p, uint32_t id, size_t *len)
{
    if (len)
        *len = p->len[id];
    return p->bytes + p->off[id];
}

uint32_t et_strpool_count(const et_strpool *p)
{
    return p->count;
}

static const et_strpool *rank_pool; /* qsort has no context argument */

static int cmp_ids(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const et_strpool *p = rank_pool;
    size_t lx = p->len[x], ly = p->len[y];
    int c = memcmp(p->bytes + p->off[x], p->bytes + p->off[y], lx < ly ? lx : ly);
    if (c)
        return c;
    return (lx > ly) - (lx < ly);
}

const uint32_t *et_strpool_ranks(et_strpool *p)
{
    if (p->ranks && p->ranks_count == p->count)
        return p->ranks;
    size_t n = p->count ? p->count : 1;
    uint32_t *order = malloc(n * sizeof *order);
    uint32_t *ranks = malloc(n * sizeof *ranks);
    if (!order || !ranks) {
        free(order);
        free(ranks);
        return NULL;
    }
    for (uint32_t i = 0; i < p->count; i++)
        order[i] = i;
    rank_pool = p;
    qsort(order, p->count, sizeof *order, cmp_ids);
    rank_pool = NULL;
    for (uint32_t i = 0; i < p->count; i++)
        ranks[order[i]] = i;
    free(order);
    free(p->ranks);
    p->ranks = ranks;
    p->ranks_count = p->count;
    return ranks;
}

/* ---------------------------------------------------------------- columns */

size_t et_col_cell_size(et_col_kind kind)
{
    switch (kind) {
    case ET_COL_BOOL: return 1;
    case ET_COL_STR: return 4;
    case ET_COL_LIST: return sizeof(et_list_span);
    default: return 8;
    }
}

et_column *et_col_new(et_col_kind kind, size_t n, bool with_valid, et_strpool *pool)
{
    size_t cs = et_col_cell_size(kind);
    if (n > SIZE_MAX / cs - 1)
        return NULL;
    et_column *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->own_data = calloc(n ? n : 1, cs);
    if (with_valid) {
        c->own_valid = malloc(n ? n : 1);
        if (c->own_valid)
            memset(c->own_valid, 1, n);
    }
    if (!c->own_data || (with_valid && !c->own_valid)) {
        free(c->own_data);
        free(c->own_valid);
        free(c);
        return NULL;
    }
    c->refs = 1;
    c->kind = kind;
    c->n = n;
    c->data = c->own_data;
    c->stride = cs;
    c->valid = c->own_valid;
    c->pool = pool;
    et_strpool_retain(pool);
    return c;
}

et_column *et_col_borrow(et_col_kind kind, size_t n, const void *data, size_t stride,
                         const uint8_t *valid, et_strpool *pool, et_list_elem elem,
                         et_col_owner *owner)
{
    et_column *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->refs = 1;
    c->kind = kind;
    c->n = n;
    c->data = data;
    c->stride = stride ? stride : et_col_cell_size(kind);
    c->valid = valid;
    c->pool = pool;
    et_strpool_retain(pool);
    c->elem = elem;
    c->owner = owner;
    et_col_owner_retain(owner);
    return c;
}

void et_col_retain(et_column *c)
{
    if (c)
        c->refs++;
}

void et_col_release(et_column *c)
{
    if (!c || --c->refs > 0)
        return;
    et_strpool_release(c->pool);
    et_col_owner_release(c->owner);
    free(c->own_data);
    free(c->own_valid);
    free(c);
}

void *et_col_mut_data(et_column *c)
{
    return c->own_data;
}

uint8_t *et_col_mut_valid(et_column *c)
{
    return c->own_valid;
}

et_column *et_col_take(const et_column *c, const size_t *idx, size_t k)
{
    et_column *o = et_col_new(c->kind, k, c->valid != NULL, c->pool);
    if (!o)
        return NULL;
    o->elem = c->elem;
    if ((c->kind == ET_COL_LIST || c->kind == ET_COL_OBJ) && c->owner) {
        o->owner = c->owner;
        et_col_owner_retain(o->owner);
    }
    size_t cs = o->stride;
    char *dst = o->own_data;
    const char *src = c->data;
    switch (cs) {
    case 8:
        for (size_t i = 0; i < k; i++)
            memcpy(dst + i * 8, src + idx[i] * c->stride, 8);
        break;
    case 4:
        for (size_t i = 0; i < k; i++)
            memcpy(dst + i * 4, src + idx[i] * c->stride, 4);
        break;
    case 1:
        for (size_t i = 0; i < k; i++)
            dst[i] = src[idx[i] * c->stride];
        break;
    default:
        for (size_t i = 0; i < k; i++)
            memcpy(dst + i * cs, src + idx[i] * c->stride, cs);
    }
    if (c->valid) {
        uint8_t *v = o->own_valid;
        for (size_t i = 0; i < k; i++)
            v[i] = c->valid[idx[i]];
    }
    return o;
}

static void release_column(void *ctx)
{
    et_col_release(ctx);
}

et_column *et_col_slice(et_column *c, size_t first, size_t k)
{
    if (first == 0 && k == c->n) {
        et_col_retain(c);
        return c;
    }
    if (c->kind == ET_COL_OBJ) {
        /* handles mean values only through their owner (the store): a
         * copy that shares it, not a view whose owner is c */
        et_column *s = et_col_new(c->kind, k, c->valid != NULL, NULL);
        if (!s)
            return NULL;
        for (size_t i = 0; i < k; i++)
            memcpy((char *)s->own_data + i * 8, (const char *)c->data + (first + i) * c->stride, 8);
        if (c->valid)
            memcpy(s->own_valid, c->valid + first, k);
        s->owner = c->owner;
        et_col_owner_retain(s->owner);
        return s;
    }
    et_col_owner *o = et_col_owner_new(release_column, c);
    if (!o)
        return NULL;
    et_col_retain(c);
    et_column *s = et_col_borrow(c->kind, k, (const char *)c->data + first * c->stride, c->stride,
                                 c->valid ? c->valid + first : NULL, c->pool, c->elem, o);
    et_col_owner_release(o); /* s holds it now (or, on failure, c is released) */
    return s;
}

int et_mask_indices(const uint8_t *mask, size_t n, size_t **out, size_t *k)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += mask[i] != 0;
    size_t *idx = malloc((m ? m : 1) * sizeof *idx);
    if (!idx)
        return -1;
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (mask[i])
            idx[j++] = i;
    *out = idx;
    *k = m;
    return 0;
}
