/*
 * ptable.h - a frame printed as PrettyTable 3.6.0 prints a table.
 *
 * ExecuTorch's legacy profiler parser (profiler/parse_profiler_results.py)
 * prints its profile, framework-tax and memory tables with PrettyTable:
 *
 *     table = PrettyTable()
 *     table.title = name
 *     table.add_rows(rows)
 *     table.field_names = [...]
 *     print(table)
 *
 * et_ptable_write() writes the same bytes for the same table, as Debian 12's
 * python3-prettytable 3.6.0 (with python3-wcwidth 0.2.5, Unicode 15.0.0
 * tables) does with its default style:
 *
 *     +---------------------------+     title rows, when there is a title
 *     |           title           |
 *     +-------+-----------+-------+
 *     |  Name | Iteration | Frame |     header row (the column names)
 *     +-------+-----------+-------+
 *     |   x   |    1.5    |  None |     one line per cell line
 *     +-------+-----------+-------+
 *
 * Every column is centred the way PrettyTable does it (an odd excess puts
 * the extra space on the right of odd-width text, on the left of even-width
 * text); widths are terminal cells as wcwidth.wcswidth() counts them (East
 * Asian wide characters 2, combining marks 0) after removing the ANSI
 * sequences ESC[...m and ESC(B; a title longer than the table widens the
 * columns in proportion, measuring the title with len().  Cells holding
 * "\n" take several lines.  PrettyTable's quirks with control characters
 * (wcswidth() is -1 for a string holding one) are reproduced as well.
 *
 * Differences from PrettyTable, all outside what Python can be given:
 *   - Duplicate column names are printed; PrettyTable refuses them.
 *   - Text that is not valid UTF-8 is measured as Python measures it after
 *     bytes.decode("utf-8", "surrogateescape"): one cell per stray byte.
 *   - The UNICODE_VERSION environment variable, which wcwidth reads, is
 *     ignored: the Unicode 15.0.0 tables are always used.
 *
 * No function here calls exit() or prints to stderr.
 */
#ifndef ET_PTABLE_H
#define ET_PTABLE_H

#include <stdio.h>

#include "output/frame.h"

/* Write `f` to `out` as print(table) prints a PrettyTable 3.6.0 table with
 * default settings.
 *
 *   f      the table: field names are the column names, each cell is
 *          written as Python's str() writes it (NONE "None", TEXT as is,
 *          INT decimal, FLOAT repr() as et_pyfmt_repr(), BOOL "True" or
 *          "False").  A frame without rows prints its title and header.
 *   title  the table's title (NUL-terminated UTF-8), or NULL for none; ""
 *          is no title as well, as for PrettyTable.
 *   out    the stream written to; it is flushed before returning.
 *
 * The output ends with "\n" (the one print() adds).
 *
 * Returns 0 on success, or -1 with errno set:
 *   - out of memory (ENOMEM), nothing written;
 *   - a write or flush error on `out` (errno as set by the failing call;
 *     part of the table may have been written);
 *   - EINVAL, nothing written, where PrettyTable raises instead of
 *     printing: a title on a frame without columns (IndexError), or a cell
 *     line wider than its column after a title shrank that column, which
 *     needs control characters in a column name (textwrap's ValueError). */
int et_ptable_write(const et_frame *f, const char *title, FILE *out);

#endif
