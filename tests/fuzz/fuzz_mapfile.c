/*
 * fuzz_mapfile.c - libFuzzer target: inputs as files - mapping, size
 * limits checked before mapping, sparse giants, the registry of inputs in
 * use and the output guard (mapfile.h, outfile.h).
 *
 * Input: u8 mode, u8 growth, u64le limit, then the file's content.  The
 * content is written to a scratch file; growth 1..127 appends that many
 * 4 KiB pages of zeros, 128..255 makes the file sparse, (growth - 127) x
 * 256 MiB long (up to 32 GiB; for an ETDump and a legacy dump, which are
 * read in full, the sparse sizes start above their 2 GiB and 4 GiB limits).  Then, by mode % 7:
 *   0  et_map_file_ex with max_size = limit >> 1 (0: none), populate =
 *      limit & 1 (for files up to 64 MiB: populating reads the whole file);
 *   1  an Inspector over it as etdump_path;
 *   2  et_bundled_open_path;
 *   3  et_npy_open (elements of arrays up to 4 MiB read);
 *   4  an Inspector over build/fixtures/tensors.etdp with the file as its
 *      debug_buffer_path, every tensor's statistics;
 *   5  an Inspector over it as profile_results_path (a legacy dump);
 *   6  et_etrecord_open_path on it.
 * While the file is open, writing an output onto it must be refused (by
 * device and inode, also through another spelling), and an output beside
 * it must succeed.  Invariants, checked with __builtin_trap(): errors have
 * messages; a mapping's bytes are the file's; et_input_at names it; the
 * guard refuses it while open and not after; nothing stays registered
 * after a close.  The RSS limit (fuzz_mapfile.options) is what the lazy
 * mapping promises: a sparse 32 GiB file costs the pages read, not its size.
 *
 * Seeds: tests/fuzz/seeds/fuzz_mapfile/ (fuzz_mapfile.seeds); make fuzz.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/bundled.h"
#include "format/etrecord.h"
#include "files/mapfile.h"
#include "model/model.h"
#include "format/npy.h"
#include "files/outfile.h"
#include "model/values.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[] = "/tmp/fuzz_mapfile-XXXXXX";
static char file[sizeof scratch + 16], other[sizeof scratch + 16], beside[sizeof scratch + 16];
static char fixture[4096];
static volatile double sink;

/* At exit: the scratch directory goes. */
static void cleanup(void)
{
    unlink(file);
    unlink(beside);
    rmdir(scratch);
}

/* The guard refuses `file` (both spellings) while it is open. */
static void guarded(void)
{
    et_error err;
    et_error_clear(&err);
    if (et_outfile_guard(file, NULL, &err) != -1 || !strstr(err.msg, "refusing to overwrite"))
        __builtin_trap();
    et_outfile of;
    if (et_outfile_open(&of, other, NULL, &err) != -1)
        __builtin_trap();
    if (et_outfile_open(&of, beside, NULL, &err) != 0)
        __builtin_trap();
    fputs("beside", of.fp);
    if (et_outfile_commit(&of, &err) != 0)
        __builtin_trap();
}

static void read_tensor(const et_tensor *t)
{
    if (!et_tensor_readable(t) || t->numel * (uint64_t)t->elem_size > ((uint64_t)4 << 20))
        return; /* larger arrays are read the same way, only slower */
    et_tensor_stats s;
    if (et_tensor_stats_compute(t, &s) != 0)
        __builtin_trap();
    sink += s.sum;
}

static void open_inspector(et_inspector_options *o)
{
    et_error err;
    et_error_clear(&err);
    et_inspector *insp = et_inspector_open(o, &err);
    if (!insp) {
        if (!err.msg[0])
            __builtin_trap();
        return;
    }
    guarded();
    et_value_buffer vb = et_inspector_value_buffer(insp);
    char what[400];
    for (size_t bi = 0; bi < insp->n_blocks; bi++) {
        const et_block *b = &insp->blocks[bi];
        for (size_t e = 0; e < b->n_events && b->n_runs; e++) {
            if (!b->events[e].has_debug_data)
                continue;
            for (uint32_t k = 0; k < b->events[e].debug_count[0]; k++) {
                uint32_t pos = b->value_pool[b->events[e].debug_first[0] + k];
                et_value_label(what, sizeof what, insp, bi, 0, e, k, pos);
                et_value v;
                if (et_value_decode(&insp->dump, pos, vb, what, &v, &err) == 0 &&
                    v.type == ET_VAL_TENSOR)
                    read_tensor(&v.tensor);
            }
        }
    }
    et_inspector_free(insp);
}

/* One input (see the top of the file).  Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!file[0]) {
        if (!mkdtemp(scratch))
            return 0;
        snprintf(file, sizeof file, "%s/in", scratch);
        snprintf(other, sizeof other, "%s/./in", scratch);
        snprintf(beside, sizeof beside, "%s/out", scratch);
        atexit(cleanup);
        const char *b = getenv("ET_BUILD");
        snprintf(fixture, sizeof fixture, "%s/fixtures/tensors.etdp", b ? b : "build");
    }
    if (size < 10)
        return 0;
    int mode = data[0] % 7, growth = data[1];
    uint64_t limit = 0;
    for (int i = 0; i < 8; i++)
        limit |= (uint64_t)data[2 + i] << (8 * i);
    data += 10;
    size -= 10;
    FILE *f = fopen(file, "w");
    if (!f)
        return 0;
    if (size)
        fwrite(data, 1, size, f);
    off_t len = (off_t)size;
    if (growth >= 128) {
        uint64_t big = (uint64_t)(growth - 127) << 28;
        if (mode == 1) /* read in full when accepted: only sizes it refuses */
            big += (uint64_t)2 << 30;
        if (mode == 5) /* a legacy dump, read in full too: beyond its 4 GiB */
            big += (uint64_t)4 << 30;
        len = (off_t)big;
    } else {
        len += (off_t)growth * 4096;
    }
    if (len > (off_t)size && ftruncate(fileno(f), len) != 0)
        len = (off_t)size;
    fclose(f);
    size_t before = et_inputs_in_use();
    et_error err;
    et_error_clear(&err);

    switch (mode) {
    case 0: {
        /* populate faults the whole file in, as asked: only for files
         * that size can be read in full (the ETDump's case) */
        et_map_options o = {limit >> 1, (limit & 2) ? "larger than allowed" : NULL,
                            (limit & 1) && len <= ((off_t)64 << 20), false};
        et_mapped_file mf;
        if (et_map_file_ex(&mf, file, &o, &err) != 0) {
            if (!err.msg[0] || (o.max_size && (uint64_t)len <= o.max_size && !strstr(err.msg, "map")))
                __builtin_trap();
            break;
        }
        if (mf.size != (size_t)len || (o.max_size && mf.size > o.max_size))
            __builtin_trap();
        if (size && memcmp(mf.data, data, size) != 0)
            __builtin_trap();
        if (mf.size > size && mf.data[mf.size - 1] != 0) /* the last page of a sparse tail */
            __builtin_trap();
        if (mf.size && (!et_input_at(mf.data) || strcmp(et_input_at(mf.data), file) != 0))
            __builtin_trap();
        guarded();
        et_unmap_file(&mf);
        if (et_outfile_guard(file, NULL, &err) != 0)
            __builtin_trap();
        break;
    }
    case 1: {
        et_inspector_options o;
        et_inspector_options_init(&o);
        o.etdump_path = file;
        open_inspector(&o);
        break;
    }
    case 2: {
        et_bundled *bp = et_bundled_open_path(file, &err);
        if (!bp) {
            if (!err.msg[0])
                __builtin_trap();
            break;
        }
        guarded();
        et_bundled_free(bp);
        break;
    }
    case 3: {
        et_npy n;
        if (et_npy_open(&n, file, &err) != 0) {
            if (!err.msg[0])
                __builtin_trap();
            break;
        }
        read_tensor(&n.tensor);
        et_npy_close(&n);
        break;
    }
    case 4: {
        if (access(fixture, R_OK) != 0)
            break;
        et_inspector_options o;
        et_inspector_options_init(&o);
        o.etdump_path = fixture;
        o.debug_buffer_path = file;
        open_inspector(&o);
        break;
    }
    case 5: {
        et_inspector_options o;
        et_inspector_options_init(&o);
        o.profile_results_path = file;
        open_inspector(&o);
        break;
    }
    case 6: {
        et_etrecord *r = et_etrecord_open_path(file, &err);
        if (!r) {
            if (!err.msg[0])
                __builtin_trap();
            break;
        }
        guarded();
        et_etrecord_free(r);
        break;
    }
    }
    if (et_inputs_in_use() != before) /* a registration leaked */
        __builtin_trap();
    unlink(file);
    unlink(beside);
    return 0;
}
