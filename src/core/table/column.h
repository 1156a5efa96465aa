/*
 * column.h - the typed, immutable, refcounted column of the Frame engine
 * (issue 24; docs/architecture.md "src/core/table/").  Depends on base/ only.
 *
 * A column is N cells of one kind:
 *
 *   ET_COL_F64   double[N]; NaN is pandas' missing value
 *   ET_COL_I64   int64_t[N]
 *   ET_COL_BOOL  uint8_t[N], 0 or 1
 *   ET_COL_STR   uint32_t[N] ids into a string pool (et_strpool, below):
 *                dictionary-encoded text; bytes + length, so NUL and
 *                invalid UTF-8 are cells like any other
 *   ET_COL_LIST  et_list_span[N]: each cell is a view of `len` elements of
 *                one element kind (et_list_elem) at `ptr`, usually memory of
 *                the model; an event's samples (raw durations, start ticks)
 *                are named instead (table/samples.h) and found when the
 *                cell is read; the binding makes a Lua sequence only when a
 *                cell is asked for
 *   ET_COL_OBJ   int64_t[N] opaque handles the owner of the column (the Lua
 *                binding) maps to values it cannot type (tables, functions,
 *                columns that mix kinds: every Lua frame has a column form)
 *
 * Any kind may carry a validity mask (`valid`, one byte per row; NULL: every
 * cell present): ET_VALID (1) present, ET_ABSENT (0) the cell is Lua's nil,
 * ET_NAN (2) the cell is a NaN in a column of another kind (the missing
 * cell a left join or a mutate gives a column of text, as pandas' NaN).
 * For F64 a NaN in `data` is present (missing as pandas counts it, see
 * et_col_missing); an absent cell is nil.
 *
 * Storage is either owned (malloc'd by et_col_new*, freed with the column) or
 * borrowed: `data`/`valid` point into memory an et_col_owner keeps alive
 * (the Inspector's model arrays, a mapped dump).  A borrowed column holds a
 * reference on its owner; the owner's release callback runs when the last
 * column referring to it is freed, so a frame built from an Inspector keeps
 * the model alive through the binding's one lifetime rule (the callback
 * drops the binding's anchor).  `stride` lets a borrowed column read one
 * field of an array of structs without copying it.
 *
 * Columns are immutable once made and shared by reference count: select,
 * drop, rename and head/tail of a whole column keep the same et_column;
 * take (a row index vector) and filter (a mask) make new ones.  Reference
 * counts are not atomic: a column belongs to one thread at a time (the Lua
 * state's), as the Frame userdata does.
 *
 * Errors: the functions that allocate return NULL (or -1) on exhausted
 * memory or an argument out of range and change nothing.
 */
#ifndef ET_TABLE_COLUMN_H
#define ET_TABLE_COLUMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { ET_ABSENT = 0, ET_VALID = 1, ET_NAN = 2 };

typedef enum {
    ET_COL_F64 = 0,
    ET_COL_I64,
    ET_COL_BOOL,
    ET_COL_STR,
    ET_COL_LIST,
    ET_COL_OBJ,
} et_col_kind;

/* ---------------------------------------------------------------- owners */

/* Who keeps borrowed memory alive: `release(ctx)` runs once, when the last
 * reference goes.  Refcounted (et_col_owner_retain/release). */
typedef struct et_col_owner {
    long refs;
    void (*release)(void *ctx);
    void *ctx;
} et_col_owner;

/* A new owner with one reference (the caller's); NULL on exhausted memory
 * (release is then NOT called: the caller still owns ctx). */
et_col_owner *et_col_owner_new(void (*release)(void *ctx), void *ctx);
void et_col_owner_retain(et_col_owner *o);
/* Drop a reference; the last one calls release(ctx) and frees `o`.
 * NULL is allowed (no-op). */
void et_col_owner_release(et_col_owner *o);

/* ---------------------------------------------------------------- strings */

/* A string pool: text interned once, named by dense uint32 ids 0..count-1
 * in order of first intern.  Append-only (an id, once given, keeps its
 * bytes for the pool's life), refcounted, shared by the columns (and frames)
 * that hold ids into it.  Two columns of one pool compare text by id; of two
 * pools, by bytes. */
typedef struct et_strpool et_strpool;

/* A new, empty pool with one reference; NULL on exhausted memory. */
et_strpool *et_strpool_new(void);
void et_strpool_retain(et_strpool *p);
void et_strpool_release(et_strpool *p); /* NULL allowed */

/* The id of `len` bytes at `s` (any bytes, NUL included), adding them when
 * new.  0 and *id set; -1 on exhausted memory or a pool of 2^32-1 strings. */
int et_strpool_intern(et_strpool *p, const char *s, size_t len, uint32_t *id);

/* The id of `len` bytes at `s` if the pool has them: 0 and *id set, else 1
 * (nothing added). */
int et_strpool_find(const et_strpool *p, const char *s, size_t len, uint32_t *id);

/* The bytes of `id` (< et_strpool_count), NUL-terminated for convenience
 * (len excludes it).  Valid as long as the pool lives. */
const char *et_strpool_get(const et_strpool *p, uint32_t id, size_t *len);
uint32_t et_strpool_count(const et_strpool *p);

/* The rank of each id when the pool's strings are sorted by bytes
 * (memcmp, then length), computed once and cached until the pool grows:
 * rank[id] for id < et_strpool_count.  NULL on exhausted memory.  Used to
 * sort and compare string columns by integers. */
const uint32_t *et_strpool_ranks(et_strpool *p);

/* ---------------------------------------------------------------- lists */

/* The kind of a list column's elements. */
typedef enum {
    ET_LIST_F64 = 0, /* double */
    ET_LIST_I64,     /* int64_t */
    ET_LIST_U64,     /* uint64_t (raw ticks; shown as Lua integers) */
    ET_LIST_I32,     /* int32_t */
    ET_LIST_STR,     /* uint32_t ids into the column's pool */
    /* a model event's samples, found when a cell is read (the model may
     * have given them back: table/samples.h): `ptr` is an et_sample_ref,
     * the elements (et_sample_span) are double for ET_LIST_DURATIONS
     * (perf_data.raw), uint64_t raw ticks for ET_LIST_START_TICKS */
    ET_LIST_DURATIONS,
    ET_LIST_START_TICKS,
} et_list_elem;

/* One list cell: `len` elements at `ptr` (NULL when len is 0). */
typedef struct et_list_span {
    const void *ptr;
    uint64_t len;
} et_list_span;

/* ---------------------------------------------------------------- columns */

typedef struct et_column {
    long refs;
    et_col_kind kind;
    size_t n;             /* cells */
    const void *data;     /* cell i at (const char *)data + i * stride */
    size_t stride;        /* bytes between cells (the kind's size when dense) */
    const uint8_t *valid; /* NULL, or n bytes (stride 1): ET_VALID, ET_ABSENT, ET_NAN */
    et_strpool *pool;     /* ET_COL_STR, and ET_COL_LIST of ET_LIST_STR */
    et_list_elem elem;    /* ET_COL_LIST */
    et_col_owner *owner;  /* borrowed data/valid (and list elements), or NULL */
    void *own_data;       /* owned buffers, freed with the column */
    void *own_valid;
} et_column;

/* Size in bytes of a cell of `kind` when dense (8, 8, 1, 4, 16, 8). */
size_t et_col_cell_size(et_col_kind kind);

/* A new column of `n` cells of `kind` with owned, zeroed storage
 * (writable through et_col_mut_data until shared); `with_valid`: an owned
 * validity mask, every cell present (1).  `pool` (retained) for STR and
 * lists of ET_LIST_STR, else NULL.  One reference. */
et_column *et_col_new(et_col_kind kind, size_t n, bool with_valid, et_strpool *pool);

/* A column over borrowed memory: `data` (n cells `stride` bytes apart),
 * `valid` (NULL or n bytes), kept alive by `owner` (retained; may be NULL
 * for static memory).  For lists, `elem` names the elements' kind.  One
 * reference; NULL on exhausted memory. */
et_column *et_col_borrow(et_col_kind kind, size_t n, const void *data, size_t stride,
                         const uint8_t *valid, et_strpool *pool, et_list_elem elem,
                         et_col_owner *owner);

void et_col_retain(et_column *c);
void et_col_release(et_column *c); /* NULL allowed */

/* Writable storage of a column made by et_col_new (owned, dense). */
void *et_col_mut_data(et_column *c);
uint8_t *et_col_mut_valid(et_column *c); /* NULL without a mask */

/* Cell accessors (i < c->n). */
static inline const void *et_col_cell(const et_column *c, size_t i)
{
    return (const char *)c->data + i * c->stride;
}
static inline bool et_col_present(const et_column *c, size_t i)
{
    return !c->valid || c->valid[i] == ET_VALID;
}
static inline double et_col_f64(const et_column *c, size_t i)
{
    return *(const double *)et_col_cell(c, i);
}
static inline int64_t et_col_i64(const et_column *c, size_t i)
{
    return *(const int64_t *)et_col_cell(c, i);
}
static inline bool et_col_bool(const et_column *c, size_t i)
{
    return *(const uint8_t *)et_col_cell(c, i) != 0;
}
static inline uint32_t et_col_str(const et_column *c, size_t i)
{
    return *(const uint32_t *)et_col_cell(c, i);
}
static inline et_list_span et_col_list(const et_column *c, size_t i)
{
    return *(const et_list_span *)et_col_cell(c, i);
}
/* Is cell i missing as pandas counts it: absent, or a NaN of F64? */
static inline bool et_col_missing(const et_column *c, size_t i)
{
    if (!et_col_present(c, i))
        return true;
    if (c->kind == ET_COL_F64) {
        double x = et_col_f64(c, i);
        return x != x;
    }
    return false;
}

/* A new column of the cells idx[0..k-1] (each < c->n) of `c`, in that
 * order: dense owned storage of the same kind, pool and element kind (list
 * cells keep pointing at the same elements and handles keep meaning the
 * same values, so a LIST or OBJ column's take retains c's owner).  NULL on exhausted memory. */
et_column *et_col_take(const et_column *c, const size_t *idx, size_t k);

/* The cells [first, first + k) of `c` (first + k <= c->n): the same column
 * (retained) when that is all of it, else a borrowed view of c's storage
 * that keeps `c` alive (for OBJ, a copy of the handles sharing c's owner:
 * an OBJ column's owner is always its store).  NULL on exhausted memory. */
et_column *et_col_slice(et_column *c, size_t first, size_t k);

/* Row indices i with mask[i] != 0 (mask: n bytes), into *out (malloc'd,
 * *k of them).  -1 on exhausted memory. */
int et_mask_indices(const uint8_t *mask, size_t n, size_t **out, size_t *k);

#endif
