/*
 * sqlvtab.h - SQL over inspectors in memory, without an export: SQLite
 * virtual tables over the model (docs/sql.md).
 *
 * An in-memory SQLite database (":memory:") whose tables are read-only
 * virtual tables over the given inspectors, with the names, columns,
 * declared types and values of the SQLite export's schema
 * (sqlexport.h, docs/sqlite-schema.md), so that a query written for an
 * exported database runs unchanged:
 *
 *   dumps, blocks, events, sample_data, samples, allocations
 *
 * (the view top_operators and the export-only columns aside: dumps.
 * exported_at is the time of the query).  Rows come in the model's order
 * (dump, block, event, run); a query that needs an order says ORDER BY.
 *
 * Only reading statements run: one SELECT (or WITH ... SELECT, VALUES,
 * EXPLAIN) per query; anything that writes, ATTACHes, changes a PRAGMA
 * or creates is refused by SQLite's authorizer.  The connection is
 * defensive (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema off, no
 * extensions).  Work is bounded: a query stops after ET_SQL_MAX_STEPS
 * virtual-machine instructions, and when the caller's interrupt check
 * (et_sql_options.interrupted) says so; a string or blob has at most
 * 10,000,000 bytes, a query at most 1,000,000.
 */
#ifndef ET_SQLVTAB_H
#define ET_SQLVTAB_H

#include <stddef.h>
#include <sqlite3.h>

#include "base/error.h"
#include "model/model.h"

/* The most SQLite virtual-machine instructions a query may run
 * (some seconds of work). */
#define ET_SQL_MAX_STEPS 1000000000LL

/* An open SQL session over some inspectors. */
typedef struct et_sql et_sql;

typedef struct et_sql_options {
    /* Called about every 10,000 instructions while a query runs (NULL:
     * never): nonzero stops the query ("interrupted"). */
    int (*interrupted)(void *arg);
    void *arg;
    /* The most SQLite virtual-machine instructions a query may run: 0 (or
     * more than ET_SQL_MAX_STEPS) is ET_SQL_MAX_STEPS.  The fuzz target
     * sets a smaller budget. */
    long long max_steps;
} et_sql_options;

/* Open a session over insps[0..n-1], dump k named names[k] (the `dump`
 * column; NULL: the file name of the ETDump's path as given).  The
 * inspectors must stay alive, unchanged, with their samples built
 * (et_inspector_ready_samples), until et_sql_close.  `o` may be NULL.
 * Returns 0 with *out set, or -1 with `err` set (ET_ERR_NOMEM; ET_ERR_IO:
 * SQLite could not open its in-memory database). */
int et_sql_open(et_sql **out, const et_inspector *const *insps, const char *const *names,
                size_t n, const et_sql_options *o, et_error *err);

/* Prepare `query` (one statement; trailing blanks and ';' accepted).
 * Returns 0 with *st set (the caller steps it with et_sql_step and
 * finalizes it with sqlite3_finalize), or -1 with `err` set:
 *   ET_ERR_USAGE  "SQL: <SQLite's message>" (a syntax error, an unknown
 *                 table or column, a statement that is not a query: "not
 *                 authorized"), "SQL: only one statement at a time",
 *                 "SQL: an empty query". */
int et_sql_prepare(et_sql *s, const char *query, sqlite3_stmt **st, et_error *err);

/* Step `st`: 1 for a row, 0 at the end, -1 with `err` set (ET_ERR_USAGE
 * "SQL: <SQLite's message>" for an error of the query at run time, e.g.
 * a bad argument to a function; "SQL: interrupted" when the interrupt
 * check said so or the step budget ran out; ET_ERR_NOMEM). */
int et_sql_step(et_sql *s, sqlite3_stmt *st, et_error *err);

/* Close the session (NULL accepted); finalize its statements first. */
void et_sql_close(et_sql *s);

#endif
