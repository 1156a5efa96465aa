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
#define CHUNKS 16384 /* 1,048,576 inputs in use at once */

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
static size_t free_hint; /* no free slot below this index (under the lock) */

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
    /* from the first slot that may be free: registering n inputs costs n
     * steps, not n^2 / 2 (a fleet of 70,000 dumps) */
    for (int c = (int)(free_hint / SLOTS); c < CHUNKS; c++) {
        input_slot *ch = atomic_load(&chunks[c]);
        if (!ch) {
            ch = calloc(SLOTS, sizeof *ch);
            if (!ch)
                break;
            atomic_store(&chunks[c], ch);
        }
        for (int s = c == (int)(free_hint / SLOTS) ? (int)(free_hint % SLOTS) : 0; s < SLOTS;
             s++) {
            input_slot *sl = &ch[s];
            if (atomic_load(&sl->used))
                continue;
            free_hint = (size_t)c * SLOTS + (size_t)s + 1;
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
        if ((size_t)(id - 1) < free_hint)
            free_hint = (size_t)(id - 1);
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

/* Inputs mapped now, and how many may be (et_map_budget). */
static atomic_size_t maps_live;
static atomic_size_t maps_cap; /* 0: not computed yet */

/* The budget as stored: SIZE_MAX stands for 0 (0 is "not computed"). */
static size_t budget_stored(void)
{
    size_t cap = atomic_load(&maps_cap);
    if (cap)
        return cap;
    const char *env = getenv("ETINSPECT_MAX_MAPPINGS");
    char *end = NULL;
    unsigned long long v = env && *env ? strtoull(env, &end, 10) : 0;
    if (env && *env && end && !*end) {
        /* 0: every input is read into memory */
        cap = v < SIZE_MAX - 1 ? (size_t)v : SIZE_MAX - 1;
    } else {
        /* the kernel's limit on mappings, less room for everything else
         * a process maps (libraries, thread stacks, large allocations) */
        unsigned long long max = 65530;
        FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
        if (f) {
            if (fscanf(f, "%llu", &max) != 1)
                max = 65530;
            fclose(f);
        }
        cap = (size_t)(max > 8192 ? max - 4096 : max / 2);
    }
    cap = cap ? cap : SIZE_MAX;
    atomic_store(&maps_cap, cap);
    return cap;
}

size_t et_map_budget(void)
{
    size_t cap = budget_stored();
    return cap == SIZE_MAX ? 0 : cap;
}

size_t et_maps_live(void)
{
    return atomic_load(&maps_live);
}

/* Read the `size` bytes of `fd` into memory; returns them, or NULL with
 * `err` set. */
static uint8_t *read_whole(int fd, size_t room, size_t size, const char *path, et_error *err)
{
    uint8_t *p = malloc(room);
    if (!p) {
        et_fail(err, ET_ERR_NOMEM, "%s: out of memory (reading %zu bytes)", path, size);
        return NULL;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t k = pread(fd, p + got, size - got, (off_t)got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k < 0)
                et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(errno));
            else
                et_fail(err, ET_ERR_IO, "%s: the file shrank while it was being read (was it "
                        "truncated or rewritten by another process?)", path);
            free(p);
            return NULL;
        }
        got += (size_t)k;
    }
    return p;
}

int et_open_regular(const char *path, struct stat *st, et_error *err)
{
    /* without blocking: opening a FIFO (or some devices) would wait for a
     * writer before the check below could refuse it; reads of a regular
     * file are not affected by O_NONBLOCK */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    int e = errno;
    if (fd >= 0 && fstat(fd, st) != 0) {
        e = errno;
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        if (S_ISDIR(st->st_mode))
            et_fail(err, ET_ERR_IO, "%s: is a directory, expected a file", path);
        else
            et_fail(err, ET_ERR_IO, "%s: not a regular file", path);
        errno = 0;
        return -1;
    }
    return fd;
}

char *et_read_regular(const char *path, size_t *size, et_error *err)
{
    struct stat st;
    int fd = et_open_regular(path, &st, err);
    if (fd < 0)
        return NULL;
    if ((uintmax_t)st.st_size >= SIZE_MAX) {
        close(fd);
        et_fail(err, ET_ERR_NOMEM, "%s: out of memory (reading %jd bytes)", path,
                (intmax_t)st.st_size);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    /* one byte more, so that an empty file is a valid buffer too */
    uint8_t *p = read_whole(fd, n + 1, n, path, err);
    close(fd);
    if (!p)
        return NULL;
    p[n] = '\0';
    *size = n;
    return (char *)p;
}

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
    struct stat st;
    int fd = et_open_regular(path, &st, err);
    if (fd < 0)
        return -1;
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
    bool in_memory = false;
    if (size > 0) {
        /* a mapping while the budget lasts (the kernel limits a process's
         * mappings: vm.max_map_count), else the bytes read into memory */
        p = MAP_FAILED;
        int e = 0; /* mmap's error; 0: not tried */
        if (atomic_fetch_add(&maps_live, 1) < et_map_budget()) {
            int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
            if (o->populate)
                flags |= MAP_POPULATE; /* the whole file is read: fault it in at once */
#endif
            p = mmap(NULL, size, PROT_READ, flags, fd, 0);
            if (p == MAP_FAILED)
                e = errno;
        }
        if (p == MAP_FAILED) {
            atomic_fetch_sub(&maps_live, 1);
            /* over the budget, or the kernel's limit reached early (ENOMEM) */
            if (e != 0 && e != ENOMEM) {
                close(fd);
                return et_fail(err, ET_ERR_IO, "%s: cannot map file: %s", path, strerror(e));
            }
            p = read_whole(fd, size, size, path, err);
            if (!p) {
                close(fd);
                return -1;
            }
            in_memory = true;
        }
    }
    close(fd);
    int id = reg_add((uint64_t)st.st_dev, (uint64_t)st.st_ino, !o->unguarded, path,
                     in_memory ? NULL : p, size, err);
    if (id < 0) {
        if (in_memory) {
            free(p);
        } else if (p) {
            munmap(p, size);
            atomic_fetch_sub(&maps_live, 1);
        }
        return -1;
    }
    mf->data = p;
    mf->size = size;
    mf->input_id = id;
    mf->in_memory = in_memory;
    return 0;
}

void et_map_drop_pages(const et_mapped_file *mf)
{
    if (!mf || !mf->data || mf->in_memory)
        return;
    uintptr_t a = (uintptr_t)mf->data & ~(uintptr_t)4095; /* a mapping starts on a page */
    uintptr_t z = ((uintptr_t)mf->data + mf->size) & ~(uintptr_t)4095;
    if (z > a)
        madvise((void *)a, z - a, MADV_DONTNEED);
}

void et_unmap_file(et_mapped_file *mf)
{
    /* unregister first: the SIGBUS lookup must never name a dead mapping */
    et_input_release(mf->input_id);
    if (mf->in_memory) {
        free((void *)mf->data);
    } else if (mf->data) {
        munmap((void *)mf->data, mf->size);
        atomic_fetch_sub(&maps_live, 1);
    }
    memset(mf, 0, sizeof *mf);
}
