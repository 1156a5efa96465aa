/*
 * samples.h - the list columns of a model's samples (to_dataframe's raw
 * and start_time: docs/lua-api.md, "Lifetimes and contracts"), which name
 * each row's event instead of pointing at its samples: a cell is found
 * when it is read, so the model may give its samples back in between
 * (et_inspector_drop_samples) and build them again on the first read
 * (et_inspector_ready_samples).  Depends on model/ and table/column.h.
 *
 * A cell is a span of len elements whose ptr is an et_sample_ref (element
 * kinds ET_LIST_DURATIONS and ET_LIST_START_TICKS, column.h); take,
 * slice and the concatenation of such columns copy the spans, so they
 * name the same events.  The refs live as long as the column's owner
 * (made here), which holds a reference on the model's owner.
 */
#ifndef ET_TABLE_SAMPLES_H
#define ET_TABLE_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/model.h"
#include "table/column.h"

/* What a cell of a sample column names: an event of a model. */
typedef struct et_sample_ref {
    et_inspector *insp;
    const et_event *ev;
} et_sample_ref;

/* A list column of n cells: cell r names the samples of the event
 * event[r] of block block[r] of `insp` - its durations (perf_data.raw,
 * target units; ET_LIST_DURATIONS) when `durations`, else its raw start
 * ticks (start_time; ET_LIST_START_TICKS) - each perf_data.n long, or is
 * absent (nil) when the event has none (no perf data; for start ticks, no
 * start_time), as the model's samples are (built again first when it gave
 * them back; its statistics must be computed: et_inspector_ready).
 * `model` is the owner that keeps `insp` alive (its ctx), retained by the
 * column's.  One reference; NULL with `err` set on exhausted memory or as
 * et_inspector_ready_samples sets it. */
et_column *et_sample_column(et_inspector *insp, et_col_owner *model, const uint32_t *block,
                            const uint32_t *event, size_t n, bool durations, et_error *err);

/* Whether a list column's cells are sample refs (et_sample_span reads them). */
static inline bool et_col_is_samples(const et_column *c)
{
    return c->kind == ET_COL_LIST &&
           (c->elem == ET_LIST_DURATIONS || c->elem == ET_LIST_START_TICKS);
}

/* The elements of cell i of a sample column (a present cell): *out spans
 * its double durations (ET_LIST_DURATIONS) or uint64_t start ticks in the
 * model, built again first when the model gave them back.  The span is
 * valid until the model drops its samples again (no call here does; the
 * Lua binding's do: et_inspector_drop_samples).  Returns 0, or -1 with
 * `err` set as et_inspector_ready_samples sets it. */
int et_sample_span(const et_column *c, size_t i, et_list_span *out, et_error *err);

#endif
