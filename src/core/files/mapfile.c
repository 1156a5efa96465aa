/* mapfile.c - see mapfile.h. */
#define _DEFAULT_SOURCE /* MAP_POPULATE (Linux) */
#include "files/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the registry ------------------------------------------------------- */

/* Slots live in chunks that are allocated on demand and never freed (they
 * stay reachable from `chunks`), so a signal handler may walk them at any
 * time without a lock.  Writers take a spin lock (contention is nil: a
 * registration per opened file). */
#define SLOTS 64
#define CHUNKS 1024 /* 65,536 inputs in use at once */

typedef struct input_slot {
    atomic_int used; /* 1 while the fields below describe an input */
    bool guard;      /* protected by the output guard */
    uint64_t dev, ino;
    const uint8_t *base; /* its mapping, or NULL */
    size_t size;
    char *path;
} input_slot;

static input_slot *_Atomic chunks[CHUNKS];
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void reg_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void reg_unlock(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

static input_slot *slot_of(int id)
{
    if (id <= 0 || id > CHUNKS * SLOTS)
        return NULL;
    input_slot *c = atomic_load(&chunks[(id - 1) / SLOTS]);
    return c ? &c[(id - 1) % SLOTS] : NULL;
}

/* Register (dev, ino) with `path` (copied) and the mapping base..size. */
static int reg_add(uint64_t dev, uint64_t ino, bool guard, const char *path, const void *base,
                   size_t size, et_error *err)
{
    char *p = strdup(path);
    if (!p)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    reg_lock();
    for (int c = 0; c < CHUNKS; c++) {
        input_slot *ch = atomic_load(&chunks[c]);
        if (!ch) {
            ch = calloc(SLOTS, sizeof *ch);
            if (!ch)
                break;
            atomic_store(&chunks[c], ch);
        }
        for (int s = 0; s < SLOTS; s++) {
            input_slot *sl = &ch[s];
            if (atomic_load(&sl->used))
                continue;
            sl->guard = guard;
            sl->dev = dev;
            sl->ino = ino;
            sl->base = base;
            sl->size = size;
            sl->path = p;
            atomic_store(&sl->used, 1);
            reg_unlock();
            return c * SLOTS + s + 1;
        }
    }
    reg_unlock();
    free(p);
    return et_fail(err, ET_ERR_NOMEM, "out of memory (too many inputs in use)");
}

int et_input_hold(const char *path, const void *base, size_t size, et_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(errno));
    return reg_add((uint64_t)st.st_dev, (uint64_t)st.st_ino, true, path, base, size, err);
}

void et_input_release(int id)
{
    input_slot *sl = slot_of(id);
    if (!sl)
        return;
    reg_lock();
    char *p = NULL;
    if (atomic_load(&sl->used)) {
        atomic_store(&sl->used, 0);
        p = sl->path;
        sl->path = NULL;
        sl->base = NULL;
        sl->size = 0;
    }
    reg_unlock();
    free(p);
}

int et_input_guard(const char *dest, uint64_t dev, uint64_t ino, et_error *err)
{
    int hit = 0;
    reg_lock();
    for (int c = 0; c < CHUNKS && !hit; c++) {
        input_slot *ch = atomic_load(&chunks[c]);
        if (!ch)
            break;
        for (int s = 0; s < SLOTS; s++) {
            input_slot *sl = &ch[s];
            if (atomic_load(&sl->used) && sl->guard && sl->dev == dev && sl->ino == ino) {
                et_fail(err, ET_ERR_USAGE,
                        "%s: refusing to overwrite an input file with output (the input %s)",
                        dest, sl->path);
                hit = 1;
                break;
            }
        }
    }
    reg_unlock();
    return hit;
}

const char *et_input_at(const void *addr)
{
    const uint8_t *a = addr;
    for (int c = 0; c < CHUNKS; c++) {
        input_slot *ch = atomic_load(&chunks[c]);
        if (!ch)
            return NULL;
        for (int s = 0; s < SLOTS; s++) {
            input_slot *sl = &ch[s];
            if (atomic_load(&sl->used) && sl->base && a >= sl->base &&
                (size_t)(a - sl->base) < sl->size)
                return sl->path;
        }
    }
    return NULL;
}

size_t et_inputs_in_use(void)
{
    size_t n = 0;
    reg_lock();
    for (int c = 0; c < CHUNKS; c++) {
        input_slot *ch = atomic_load(&chunks[c]);
        if (!ch)
            break;
        for (int s = 0; s < SLOTS; s++)
            n += atomic_load(&ch[s].used) != 0;
    }
    reg_unlock();
    return n;
}

/* ---- mapping ------------------------------------------------------------ */

int et_map_file(et_mapped_file *mf, const char *path, et_error *err)
{
    return et_map_file_ex(mf, path, NULL, err);
}

int et_map_file_ex(et_mapped_file *mf, const char *path, const et_map_options *o,
                   et_error *err)
{
    static const et_map_options defaults = {0, NULL, false, false};
    if (!o)
        o = &defaults;
    memset(mf, 0, sizeof *mf);
    /* without blocking: opening a FIFO (or some devices) would wait for a
     * writer before the checks below could refuse it; the fd is used for
     * fstat and mmap alone, on which O_NONBLOCK has no effect */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: is a directory, expected a file", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: not a regular file", path);
    }
    /* check first: a file larger than its format allows is never mapped */
    if (o->max_size && (uintmax_t)st.st_size > o->max_size) {
        close(fd);
        if (o->too_large)
            return et_fail(err, ET_ERR_FORMAT, "%s: file is %jd bytes, %s", path,
                           (intmax_t)st.st_size, o->too_large);
        return et_fail(err, ET_ERR_FORMAT, "%s: file is %jd bytes, larger than the %ju-byte limit",
                       path, (intmax_t)st.st_size, (uintmax_t)o->max_size);
    }
    if ((uintmax_t)st.st_size > SIZE_MAX) {
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: file too large to map", path);
    }
    size_t size = (size_t)st.st_size;
    void *p = NULL;
    if (size > 0) {
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        if (o->populate)
            flags |= MAP_POPULATE; /* the whole file is read: fault it in at once */
#endif
        p = mmap(NULL, size, PROT_READ, flags, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return et_fail(err, ET_ERR_IO, "%s: cannot map file: %s", path, strerror(e));
        }
    }
    close(fd);
    int id = reg_add((uint64_t)st.st_dev, (uint64_t)st.st_ino, !o->unguarded, path, p, size,
                     err);
    if (id < 0) {
        if (p)
            munmap(p, size);
        return -1;
    }
    mf->data = p;
    mf->size = size;
    mf->input_id = id;
    return 0;
}

void et_unmap_file(et_mapped_file *mf)
{
    /* unregister first: the SIGBUS lookup must never name a dead mapping */
    et_input_release(mf->input_id);
    if (mf->data)
        munmap((void *)mf->data, mf->size);
    memset(mf, 0, sizeof *mf);
}
