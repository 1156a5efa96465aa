/* legacy_tables.c - the legacy parser's tables (spec §9.3); see
 * legacy_tables.h. */
#include "output/legacy_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/shown.h"
#include "output/frame.h"
#include "output/ptable.h"

/* Set a text cell to s[0..n): escaped (base/shown.h) when `shown`, the
 * tables then going to a terminal.  Returns et_frame_set_text's result. */
static int set_name(et_frame *f, size_t row, size_t col, const char *s, size_t n, bool shown)
{
    if (!shown || !et_shown_needed(s, n))
        return et_frame_set_text(f, row, col, s, n);
    et_strbuf sb = {0};
    et_sb_add_shown(&sb, s, n);
    int rc = sb.failed ? -1 : et_frame_set_text(f, row, col, sb.p, sb.n);
    et_sb_free(&sb);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Legacy profiler dumps (spec §9.3) */

/* Set a cell to a legacy value: an integer when the dump is integral. */
static void set_legacy_num(et_frame *f, long row, size_t col, double x, const int64_t *ints,
                           size_t i)
{
    if (ints)
        et_frame_set_int(f, (size_t)row, col, ints[i]);
    else
        et_frame_set_float(f, (size_t)row, col, x);
}

/* A frame with `first` columns named by `names`, then "Iteration 0".. */
static et_frame *iteration_frame(const char *const *names, size_t first, size_t n_iter)
{
    size_t nc = first + n_iter;
    char **cols = calloc(nc, sizeof *cols);
    et_frame *f = NULL;
    if (!cols)
        return NULL;
    for (size_t c = 0; c < nc; c++) {
        if (c < first) {
            cols[c] = strdup(names[c]);
        } else {
            cols[c] = malloc(32);
            if (cols[c])
                snprintf(cols[c], 32, "Iteration %zu", c - first);
        }
        if (!cols[c])
            goto out;
    }
    f = et_frame_new(nc, (const char *const *)cols);
out:
    for (size_t c = 0; c < nc; c++)
        free(cols[c]);
    free(cols);
    return f;
}

static int write_table(et_frame *f, const char *title, FILE *out, bool shown)
{
    char esc[4 * (ET_PROF_NAME_MAX_LEN + 64) + 1];
    if (shown) /* titles are names of the dump (at most 32 bytes) and our words */
        et_shown_copy(esc, sizeof esc, title, strlen(title));
    int rc = f ? et_ptable_write(f, shown ? esc : title, out) : -1;
    et_frame_free(f);
    return rc;
}

int et_report_write_legacy_tables(const et_inspector *insp, FILE *out, bool shown)
{
    const et_legacy *lg = insp->legacy;
    if (!lg)
        return -1;
    static const char *const prof_cols[] = {"Name", "Chain", "Instr", "Frame"};
    for (size_t b = 0; b < lg->n_blocks; b++) {
        const et_legacy_block *lb = &lg->blocks[b];
        et_frame *f = iteration_frame(prof_cols, 4, lb->n_iterations);
        for (size_t e = 0; f && e < lb->n_events; e++) {
            const et_legacy_event *ev = &lb->events[e];
            long row = et_frame_add_row(f);
            if (row < 0 || set_name(f, (size_t)row, 0, ev->name, ev->name_len, shown) != 0) {
                et_frame_free(f);
                return -1;
            }
            et_frame_set_int(f, (size_t)row, 1, ev->chain_idx);
            et_frame_set_int(f, (size_t)row, 2, ev->instruction_idx);
            for (size_t i = 0; i < lb->n_iterations; i++)
                set_legacy_num(f, row, 4 + i, ev->duration[i], ev->duration_int, i);
        }
        if (write_table(f, lb->name, out, shown) != 0)
            return -1;
    }
    static const char *const tax_cols[] = {""};
    for (size_t b = 0; b < lg->n_blocks; b++) {
        const et_legacy_block *lb = &lg->blocks[b];
        if (!lb->has_tax)
            continue;
        et_frame *f = iteration_frame(tax_cols, 1, lb->n_iterations);
        static const char *const rows[3] = {"Model execution time",
                                            "Time spent in kernels and delegates",
                                            "Framework tax (%)"};
        const double *vals[3] = {lb->exec_time, lb->kernel_time, lb->tax_percent};
        const int64_t *ints[3] = {lb->exec_time_int, lb->kernel_time_int, NULL};
        for (int k = 0; f && k < 3; k++) {
            long row = et_frame_add_row(f);
            if (row < 0 || et_frame_set_text(f, (size_t)row, 0, rows[k], strlen(rows[k])) != 0) {
                et_frame_free(f);
                return -1;
            }
            for (size_t i = 0; i < lb->n_iterations; i++)
                set_legacy_num(f, row, 1 + i, vals[k][i], ints[k], i);
        }
        char title[ET_PROF_NAME_MAX_LEN + 64];
        snprintf(title, sizeof title, "%s framework tax calculations", lb->name);
        if (write_table(f, title, out, shown) != 0)
            return -1;
    }
    static const char *const mem_cols[] = {"Allocator name", "Total size of allocations done"};
    for (size_t b = 0; b < lg->n_blocks; b++) {
        const et_legacy_block *lb = &lg->blocks[b];
        et_frame *f = et_frame_new(2, mem_cols);
        for (size_t m = 0; f && m < lb->n_mem; m++) {
            const char *nm = lb->mem[m].allocator_name;
            long row = et_frame_add_row(f);
            if (row < 0 || (nm && set_name(f, (size_t)row, 0, nm, strlen(nm), shown) != 0)) {
                et_frame_free(f);
                return -1;
            }
            et_frame_set_int(f, (size_t)row, 1, (int64_t)lb->mem[m].total);
        }
        if (write_table(f, lb->name, out, shown) != 0)
            return -1;
    }
    return ferror(out) ? -1 : 0;
}
