/*
 * pqrows.h - the rows of the Parquet dataset's tables (parquet.c): each
 * table's columns (name, Parquet type, NULL allowed) and a cursor over one
 * dump's rows, column by column.  The tables and columns are the SQLite
 * export's (sqlexport.h; docs/fleet.md, "Types"); the values are the
 * model's, as the export gives them (the same helpers: et_sql_*).
 * Private to output/: parquet.c is its one user.
 */
#ifndef ET_PQROWS_H
#define ET_PQROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/model.h"

typedef enum { K_I64, K_U64, K_F64, K_STR, K_BOOL } kind;

typedef struct colspec {
    const char *name;
    kind k;
    bool optional;
    /* a number that differs on nearly every row (a start tick): PLAIN
     * from the start, no dictionary tried */
    bool plain;
} colspec;

typedef struct value {
    bool null;
    union {
        int64_t i;
        uint64_t u;
        double d;
        bool b;
        struct {
            const char *p;
            size_t n;
        } s;
    } v;
} value;

/* A row cursor over one table of one inspector: `next` moves to the next
 * row (the first after `reset`) and returns false past the last; `get`
 * gives column `c` of the current row (strings valid until the next get
 * or next). */
typedef struct cursor cursor;
typedef struct table {
    const char *name;
    const colspec *cols;
    int ncols;
    bool (*next)(cursor *c);
    void (*get)(cursor *c, int col, value *v);
    /* NULL, or a faster way through a large table's numeric columns:
     * the values of up to `max` rows of column `col` from the cursor's
     * position on (after a reset: the first row), as 64 bits each in
     * u[] (an INT64's two's complement, a DOUBLE's bits), def[j] 1 for
     * a value and 0 for a NULL (u[j] then 0); 0 past the last row */
    size_t (*fill64)(cursor *c, int col, uint64_t *u, uint8_t *def, size_t max);
    /* NULL, or the column whose values column `col` has on every row of
     * the cursor's dump (it is then written as a copy of it; it must come
     * before `col`), or -1 */
    int (*same)(const cursor *c, int col);
} table;

struct cursor {
    const et_inspector *insp;
    const char *dump, *dump_id;
    /* the dumps row */
    const char *realpath_, *exported_at;
    uint64_t n_events, n_samples, n_allocs;
    et_strbuf warnings;
    /* position */
    bool started;
    size_t b, e, r, k;
    et_strbuf sb; /* a string cell */
};

/* The tables, in the order of et_parquet_tables (blocks, events, samples,
 * allocations, dumps). */
#define PQ_N_TABLES 5
extern const table pq_tables[PQ_N_TABLES];

/* Columns of a table at most. */
#define PQ_MAX_COLS 24

/* Column `col` (0: dump, 1: dump_id) of every table's rows: the same on
 * every row of the cursor's dump.  True when `col` is one of them (*v
 * set). */
bool pq_common(cursor *c, int col, value *v);

#endif
