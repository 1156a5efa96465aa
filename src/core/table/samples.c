/* samples.c - the list columns of a model's samples; see samples.h. */
#include "table/samples.h"

#include <stdlib.h>

/* The refs of a sample column's cells and the model they point into. */
typedef struct sample_refs {
    et_col_owner *model;
    et_sample_ref ref[];
} sample_refs;

static void refs_release(void *ctx)
{
    sample_refs *s = ctx;
    et_col_owner_release(s->model);
    free(s);
}

et_column *et_sample_column(et_inspector *insp, et_col_owner *model, const uint32_t *block,
                            const uint32_t *event, size_t n, bool durations, et_error *err)
{
    if (et_inspector_ready_samples(insp, err) != 0)
        return NULL;
    if (n > (SIZE_MAX - sizeof(sample_refs)) / sizeof(et_sample_ref)) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    sample_refs *s = malloc(sizeof *s + (n ? n : 1) * sizeof(et_sample_ref));
    et_col_owner *own = s ? et_col_owner_new(refs_release, s) : NULL;
    if (!own) {
        free(s);
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->model = model;
    et_col_owner_retain(model);
    et_column *col = et_col_new(ET_COL_LIST, n, true, NULL);
    if (!col) {
        et_col_owner_release(own);
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    col->elem = durations ? ET_LIST_DURATIONS : ET_LIST_START_TICKS;
    col->owner = own; /* the column's reference */
    et_list_span *sp = et_col_mut_data(col);
    uint8_t *v = et_col_mut_valid(col);
    for (size_t r = 0; r < n; r++) {
        const et_event *ev = &insp->blocks[block[r]].events[event[r]];
        s->ref[r] = (et_sample_ref){insp, ev};
        const void *p = durations ? (ev->has_perf_data ? (const void *)ev->perf_data.raw : NULL)
                                  : (const void *)ev->start_time;
        if (!p) {
            v[r] = ET_ABSENT;
            continue;
        }
        sp[r].ptr = &s->ref[r];
        sp[r].len = ev->perf_data.n;
    }
    return col;
}

int et_sample_span(const et_column *c, size_t i, et_list_span *out, et_error *err)
{
    et_list_span sp = et_col_list(c, i);
    const et_sample_ref *ref = sp.ptr;
    *out = (et_list_span){NULL, 0};
    if (!ref || !sp.len)
        return 0;
    if (et_inspector_samples_dropped(ref->insp) && et_inspector_ready_samples(ref->insp, err) != 0)
        return -1;
    const void *p = c->elem == ET_LIST_DURATIONS ? (const void *)ref->ev->perf_data.raw
                                                 : (const void *)ref->ev->start_time;
    if (!p) /* not dropped, so there: a model of another shape */
        return et_fail(err, ET_ERR_VALUE, "%s: an event's samples are missing",
                       ref->insp->etdump_label);
    *out = (et_list_span){p, sp.len};
    return 0;
}
