/* memsummary.c - memory per block and allocator; see memsummary.h. */
#include "output/memsummary.h"

#include <stdlib.h>
#include <string.h>

static int cmp_mem(const void *a, const void *b)
{
    int32_t x = ((const et_memory_row *)a)->allocator_id;
    int32_t y = ((const et_memory_row *)b)->allocator_id;
    return x < y ? -1 : x > y;
}

long et_block_memory_summary(const et_block *blk, et_memory_row **rows)
{
    *rows = NULL;
    size_t n = 0, cap = 0;
    et_memory_row *v = NULL;
    for (size_t r = 0; r < blk->n_runs; r++) {
        for (uint32_t k = 0; k < blk->allocation_count[r]; k++) {
            const et_allocation *a = &blk->allocations[blk->allocation_first[r] + k];
            size_t i = 0;
            while (i < n && v[i].allocator_id != a->allocator_id) /* few allocators */
                i++;
            if (i == n) {
                if (n == cap) {
                    size_t nc = cap ? 2 * cap : 8;
                    et_memory_row *nv = realloc(v, nc * sizeof *nv);
                    if (!nv) {
                        free(v);
                        return -1;
                    }
                    v = nv;
                    cap = nc;
                }
                memset(&v[n], 0, sizeof v[n]);
                v[n].allocator_id = a->allocator_id;
                if (a->allocator_id >= 1 && (size_t)a->allocator_id <= blk->n_allocators)
                    v[n].allocator = blk->allocators[a->allocator_id - 1];
                n++;
            }
            v[i].allocations++;
            v[i].bytes += a->allocation_size;
            if (a->allocation_size > v[i].largest)
                v[i].largest = a->allocation_size;
        }
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_mem);
    *rows = v;
    return (long)n;
}

et_frame *et_report_memory_frame(const et_inspector *insp, et_error *err)
{
    static const char *const cols[] = {"event_block_name", "allocator_id", "allocator", "runs",
                                       "allocations",      "bytes",        "bytes_per_run",
                                       "largest"};
    et_frame *f = et_frame_new(8, cols);
    if (!f) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        et_memory_row *rows;
        long n = et_block_memory_summary(blk, &rows);
        int rc = n < 0 ? -1 : 0;
        for (long i = 0; i < n && rc == 0; i++) {
            long row = et_frame_add_row(f);
            if (row < 0) {
                rc = -1;
                break;
            }
            size_t r = (size_t)row;
            rc |= et_frame_set_text(f, r, 0, blk->name.p, blk->name.n);
            et_frame_set_int(f, r, 1, rows[i].allocator_id);
            if (rows[i].allocator.p)
                rc |= et_frame_set_text(f, r, 2, rows[i].allocator.p, rows[i].allocator.n);
            et_frame_set_int(f, r, 3, (int64_t)blk->n_runs);
            et_frame_set_int(f, r, 4, (int64_t)rows[i].allocations);
            et_frame_set_int(f, r, 5, (int64_t)rows[i].bytes);
            /* bytes are integers: per run rounded to the byte (half up),
             * never printed as 5.00105e+09 */
            uint64_t runs = blk->n_runs, by = rows[i].bytes;
            et_frame_set_int(f, r, 6, runs ? (int64_t)(by / runs + (by % runs >= runs - by % runs))
                                           : 0);
            et_frame_set_int(f, r, 7, (int64_t)rows[i].largest);
        }
        free(rows);
        if (rc != 0) {
            et_frame_free(f);
            et_fail(err, ET_ERR_NOMEM, "out of memory while building the memory table");
            return NULL;
        }
    }
    return f;
}
