/*
 * table.h - the Frame engine's verbs over typed columns (issue 24): stable
 * multi-key sort, grouping, the aggregators, hash joins, gathers with
 * missing cells.  The Lua binding (src/lua/l_table.c) composes frames from
 * their results; docs/lua-api.md "Frame" gives the semantics, which are
 * those of lua/etinspect/frame.lua before the engine (kept as the test
 * oracle tests/lua/frame_oracle.lua):
 *
 *  - order of present values (Frame.compare): numbers numerically, booleans
 *    as 0/1, text by bytes (memcmp, then length); a column holds one kind,
 *    so kinds never meet in a column (OBJ and LIST columns have no C order:
 *    the verbs return ET_TAB_UNSUPPORTED and the caller takes the Lua path);
 *  - missing cells (et_col_missing: nil, NaN, ET_NAN) sort last (or first),
 *    are one group key, and match each other in joins;
 *  - group and join keys are equal as frame.lua's group_key makes them:
 *    numbers by their double value (an int64 as the double it rounds to),
 *    -0.0 apart from 0.0; text by bytes.
 *
 * Row indices are size_t; ET_NO_ROW in a gather vector is a missing cell
 * (ET_NAN).  Functions return 0, ET_TAB_NOMEM or ET_TAB_UNSUPPORTED, and
 * leave their outputs unset on failure.
 */
#ifndef ET_TABLE_TABLE_H
#define ET_TABLE_TABLE_H

#include "table/column.h"

#define ET_NO_ROW ((size_t)-1)

enum { ET_TAB_OK = 0, ET_TAB_NOMEM = -1, ET_TAB_UNSUPPORTED = -2, ET_TAB_NOT_NUMBERS = -3 };

/* Sort idx[0..n) (row indices of the key columns) stably by the keys
 * (keys[k] descending when desc[k]); missing cells last, or first when
 * na_first. */
int et_tab_sort(et_column *const *keys, const bool *desc, size_t nk, bool na_first, size_t *idx,
                size_t n);

/* Groups of rows with equal keys. */
typedef struct et_groups {
    size_t n;        /* groups */
    size_t *first;   /* per group: its first row */
    size_t *offsets; /* n + 1: the group's rows are rows[offsets[g], offsets[g+1]) */
    size_t *rows;    /* ascending within a group */
} et_groups;

/* Group the `nrows` rows of the key columns.  dropna: rows with a missing
 * key are left out; else they form groups (sorted last).  sort: groups in
 * the order of their keys (ties: first seen), else in first-seen order.
 * nil_apart: an absent cell (nil) is a key of its own, apart from NaN
 * (Frame:unique). */
int et_tab_group(et_column *const *keys, size_t nk, size_t nrows, bool dropna, bool sort,
                 bool nil_apart, et_groups *out);
void et_groups_free(et_groups *g);

/* The aggregators (frame.lua's, same kernels as _core.agg's g* kinds). */
typedef enum {
    ET_AGG_COUNT,
    ET_AGG_SUM,
    ET_AGG_MEAN,
    ET_AGG_MEDIAN,
    ET_AGG_STD,
    ET_AGG_VAR,
    ET_AGG_QUANTILE,
    ET_AGG_MIN,
    ET_AGG_MAX,
    ET_AGG_FIRST,
    ET_AGG_LAST,
} et_agg;

/* One aggregate per group of column c: *out, a new column of g->n cells.
 * count: I64; sum: I64 over I64 and BOOL (wrapping, as Lua's integers),
 * else F64 (Kahan); mean, median, std, var (ddof 1), quantile(q): F64;
 * min, max: c's kind (ET_NAN where a group has no value); first, last:
 * c's kind (absent where none).  ET_TAB_NOT_NUMBERS (with *bad, a row whose
 * cell is not a number) for a numeric aggregator over text;
 * ET_TAB_UNSUPPORTED for LIST and OBJ columns. */
int et_tab_agg(const et_column *c, const et_groups *g, et_agg what, double q, et_column **out,
               size_t *bad);

/* A column's statistics for describe (numbers of an F64 or I64 column,
 * missing skipped): count, mean, std (pandas' Series: pairwise sums), min,
 * the percentiles q[0..nq) (0..1, NumPy's linear method) and max, into
 * out[0..nq+5). */
int et_tab_describe(const et_column *c, const double *q, size_t nq, double *out);

/* Join: the rows of a frame with key columns lk (ln rows) and one with rk
 * (rn rows); how 0 inner, 1 left, 2 right, 3 outer, with frame.lua's row
 * order.  *li, *ri (malloc'd, *nout each): the left and right row of each
 * output row, ET_NO_ROW where that side has none.  Key kinds must match
 * pairwise (F64 with I64 allowed) else ET_TAB_UNSUPPORTED. */
int et_tab_join(et_column *const *lk, size_t ln, et_column *const *rk, size_t rn, size_t nk,
                int how, size_t **li, size_t **ri, size_t *nout);

/* The cells of cols[0..k) one after the other: a new column of their kind
 * (all of one kind; text of several pools interned into a new one).  NULL
 * on exhausted memory or kinds that differ (or LIST, OBJ). */
et_column *et_col_concat(et_column *const *cols, size_t k);

/* A new column of the cells idx[0..k) of c, ET_NAN where idx is ET_NO_ROW. */
et_column *et_col_gather(const et_column *c, const size_t *idx, size_t k);

/* The key column of a right or outer join: a's cell ia[i] when it is a
 * row, else b's cell ib[i] (a nil or false cell of b becomes ET_NAN, as
 * frame.lua's row_of did).  a and b of one kind (F64/I64 mixed: NULL,
 * unsupported); text of two pools is interned into a new one.  NULL on
 * exhausted memory or unsupported kinds. */
et_column *et_col_coalesce(const et_column *a, const size_t *ia, const et_column *b,
                           const size_t *ib, size_t k);

#endif
