/*
 * frame.h - a small typed table ("frame") and its two text renderings.
 *
 * The frame is etinspect's stand-in for the pandas DataFrame that the
 * reference Inspector prints (spec §6.1-§6.4).  Rows are numbered 0..n-1;
 * that number is the index column of both renderings.  Cells are typed so
 * that each writer can format them the way pandas/tabulate would:
 *
 *   ET_CELL_NONE   Python None / NaN      TSV: empty field      grid: empty
 *   ET_CELL_TEXT   str                    TSV: as is (quoted    grid: as is
 *                                         when needed)
 *   ET_CELL_INT    int                    TSV: decimal          grid: decimal
 *   ET_CELL_FLOAT  float (float64)        TSV: Python repr()    grid: format(x, "g")
 *   ET_CELL_BOOL   bool                   TSV: True / False     grid: True / False
 *
 * Lists and dicts are stored as TEXT cells already rendered with Python's
 * str() (see pyfmt.h).  Text is a byte string (UTF-8 expected, not required);
 * it may contain NUL bytes.  All text is copied into the frame.
 *
 * No function here calls exit() or prints to stderr.  Functions that can
 * fail return 0 on success and -1 on failure (out of memory or a write
 * error; errno is left as set by the failing call).
 */
#ifndef ET_FRAME_H
#define ET_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    ET_CELL_NONE = 0,
    ET_CELL_TEXT,
    ET_CELL_INT,
    ET_CELL_FLOAT,
    ET_CELL_BOOL
} et_cell_kind;

typedef struct et_frame et_frame;

/* Create a frame with `ncols` columns named by `names` (NUL-terminated
 * strings, copied).  Returns NULL when out of memory. */
et_frame *et_frame_new(size_t ncols, const char *const *names);

/* Free a frame and everything it owns.  NULL is accepted. */
void et_frame_free(et_frame *f);

/* Number of columns / rows. */
size_t et_frame_ncols(const et_frame *f);
size_t et_frame_nrows(const et_frame *f);

/* Name of column `col` (NUL-terminated, owned by the frame). */
const char *et_frame_colname(const et_frame *f, size_t col);

/* Append an empty row (all cells NONE).  Returns the new row's index, or
 * -1 when out of memory. */
long et_frame_add_row(et_frame *f);

/* Make room for at least `nrows` rows in all (rows are still added with
 * et_frame_add_row): a caller that knows how many rows it will add sizes
 * the frame once, at that size, instead of doubling it (a table of 100,000
 * rows would hold room for 131,072).  Returns 0, or -1 when out of memory
 * (the frame unchanged). */
int et_frame_reserve(et_frame *f, size_t nrows);

/* Set one cell.  `row` and `col` must be in range (checked with assert).
 * set_text copies `len` bytes of `s`; returns -1 when out of memory. */
int et_frame_set_text(et_frame *f, size_t row, size_t col, const char *s, size_t len);
void et_frame_set_int(et_frame *f, size_t row, size_t col, int64_t v);
void et_frame_set_float(et_frame *f, size_t row, size_t col, double v);
void et_frame_set_bool(et_frame *f, size_t row, size_t col, bool v);
void et_frame_set_none(et_frame *f, size_t row, size_t col);

/* Read back one cell.  `len` may be NULL.  For kinds other than the one
 * asked for, get_text returns NULL and the numeric getters return 0.  The
 * text is NUL-terminated and stays valid until the frame is freed. */
et_cell_kind et_frame_kind(const et_frame *f, size_t row, size_t col);
const char *et_frame_get_text(const et_frame *f, size_t row, size_t col, size_t *len);
int64_t et_frame_get_int(const et_frame *f, size_t row, size_t col);
double et_frame_get_float(const et_frame *f, size_t row, size_t col);
bool et_frame_get_bool(const et_frame *f, size_t row, size_t col);

/* For a truncated view (the Lua Frame's display, not the reference's
 * outputs): the grid shows `labels` (nrows values, copied; NULL: the row
 * numbers) in the index column, and row `ellipsis_row` (-1: none) as "..."
 * in every cell, taking no part in the columns' types and alignment.
 * Set it after the rows are added.  Only et_frame_write_grid uses it.
 * Returns 0, or -1 out of memory. */
int et_frame_set_view(et_frame *f, const int64_t *labels, long ellipsis_row);

/* Write the frame as pandas' DataFrame.to_csv(sep="\t") does (spec §6.4):
 * a header line whose first field (the unnamed index) is empty, then one
 * line per row starting with the row number; "\n" line ends; minimal
 * quoting with '"' (a field holding a tab, '"', '\n' or '\r' is quoted and
 * its quotes doubled); NONE and a NaN FLOAT as an empty field; FLOAT as
 * Python repr(); BOOL as True/False.  Returns 0, or -1 on a write error. */
int et_frame_write_tsv(const et_frame *f, FILE *out);
/* The same, with the index or (index false) without it, as pandas'
 * to_csv(sep="\t", index=False): no leading field on any line; a frame
 * without columns is an empty line per row after an empty header. */
int et_frame_write_tsv_index(const et_frame *f, FILE *out, bool index);
/* One part of a TSV written in parts (a table streamed a few rows at a
 * time, rows.h et_report_write_tsv): as et_frame_write_tsv_index, with the
 * header line only when `header`, and the rows numbered from `first_row`
 * (the rows the earlier parts wrote).  The output is flushed; returns 0,
 * or -1 on a write error. */
int et_frame_write_tsv_part(const et_frame *f, FILE *out, bool index, bool header,
                            size_t first_row);

/* Write the frame as tabulate(df, headers="keys", tablefmt="fancy_grid")
 * (tabulate 0.8.9) prints it, followed by one "\n" (spec §6.3): index column
 * with an empty header, column types inferred as tabulate does, numbers
 * right/decimal-aligned, text left-aligned and stripped, floats with "g".
 * Like tabulate, a frame without rows is drawn without the index column.
 * Unlike tabulate (which switches to multi-line cells), control characters
 * in headers and cells are shown as Python escapes ("\n", "\t", "\x01"),
 * so every table row is one line.  Returns 0, or -1 on a write error. */
int et_frame_write_grid(const et_frame *f, FILE *out);

#endif
