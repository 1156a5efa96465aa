/*
 * legacy_tables.h - the tables the legacy profiler parser prints for a
 * legacy profiler dump (spec §9.3).
 */
#ifndef ET_LEGACY_TABLES_H
#define ET_LEGACY_TABLES_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"

/* For an inspector opened on a legacy profiler dump (insp->legacy): print
 * the legacy parser's three kinds of tables in PrettyTable's layout (spec
 * §9.3) - per block, its events with one column per iteration (titled with
 * the block's name; Frame always None); per block that has one, its
 * framework tax ("NAME framework tax calculations"); per block, its memory
 * per allocator.  Durations in ms (integers for ms and cycles dumps).
 * Each block's table has as many iteration columns as that block has
 * iterations (the reference reuses the largest count so far and fails).
 * With `shown` (the tables go to a terminal) the names of the dump in
 * cells and titles have their control characters escaped (base/shown.h),
 * so that no escape sequence among them reaches the terminal; without, a
 * file or a pipe gets them as they are, as the reference prints them.
 * Returns 0, or -1 on a write error or out of memory (or no legacy dump). */
int et_report_write_legacy_tables(const et_inspector *insp, FILE *out, bool shown);

#endif
