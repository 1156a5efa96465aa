/*
 * failalloc.so - an LD_PRELOAD shim that makes the N-th allocation of a
 * process fail, for tests/e2e/oom.t (issue 25, item 8: every allocation
 * failure ends in "out of memory", exit 1, nothing lost).
 *
 *   LD_PRELOAD=build/tools/failalloc.so ET_FAILALLOC=N [ET_FAILALLOC_MODE=M] CMD...
 *
 * Every call of malloc, calloc, realloc (but realloc(p, 0)), reallocarray,
 * posix_memalign, aligned_alloc, memalign, valloc and pvalloc is one
 * allocation, counted from 1 across all threads; strdup, the stdio buffers
 * and the other allocations inside the C library go through malloc.  The
 * N-th fails with ENOMEM (a NULL result, or ENOMEM from posix_memalign)
 * and, with ET_FAILALLOC_MODE:
 *   after   (the default) every later allocation fails too - the program is
 *           out of memory for good, as under `ulimit -v`;
 *   once    only the N-th fails - the recovery after one failure.
 * Without ET_FAILALLOC (or 0) nothing fails.  ET_FAILALLOC_REPORT=PATH
 * writes the number of allocations made, in decimal, to PATH when the
 * process exits normally (the count a sweep runs up to).
 *
 * The shim never allocates itself: it forwards to the C library's own
 * entry points (__libc_malloc and its kin), so no dlsym bootstrap is
 * needed, and free is the C library's.  Not for a sanitizer build, whose
 * runtime owns the allocator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* not declared by <stdlib.h> in C11 */
void *memalign(size_t align, size_t size);
void *pvalloc(size_t size);

/* the C library's allocator under its exported internal names (glibc) */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

static unsigned long long g_count; /* allocations made so far */
static unsigned long long g_fail;  /* the one to fail (1-based), 0: none */
static int g_once;                 /* fail only g_fail itself */
static int g_init;                 /* 0: environment not read yet */

/* Read the environment once (getenv does not allocate). */
static void init(void)
{
    if (__atomic_load_n(&g_init, __ATOMIC_ACQUIRE))
        return;
    const char *n = getenv("ET_FAILALLOC");
    unsigned long long v = 0;
    if (n)
        for (; *n >= '0' && *n <= '9'; n++)
            v = v * 10 + (unsigned long long)(*n - '0');
    const char *m = getenv("ET_FAILALLOC_MODE");
    g_once = m && strcmp(m, "once") == 0;
    g_fail = v;
    __atomic_store_n(&g_init, 1, __ATOMIC_RELEASE);
}

/* Count one allocation; 1 when it is to fail (errno set to ENOMEM). */
static int should_fail(void)
{
    init();
    unsigned long long k = __atomic_add_fetch(&g_count, 1, __ATOMIC_RELAXED);
    if (g_fail == 0 || k < g_fail || (g_once && k != g_fail))
        return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t size)
{
    return should_fail() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    if (p && size == 0) /* a free, not an allocation */
        return __libc_realloc(p, size);
    return should_fail() ? NULL : __libc_realloc(p, size);
}

void *reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, n * size);
}

void *memalign(size_t align, size_t size)
{
    return should_fail() ? NULL : __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
    return memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    int saved = errno;
    void *p = memalign(align, size);
    if (!p) {
        int e = errno;
        errno = saved;
        return e ? e : ENOMEM;
    }
    *out = p;
    return 0;
}

void *valloc(size_t size)
{
    return memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return memalign(page, (size + page - 1) / page * page);
}

/* ET_FAILALLOC_REPORT: the count, written without allocating. */
__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("ET_FAILALLOC_REPORT");
    if (!path || !*path)
        return;
    char buf[32];
    int i = (int)sizeof buf;
    buf[--i] = '\n';
    unsigned long long c = __atomic_load_n(&g_count, __ATOMIC_RELAXED);
    do
        buf[--i] = (char)('0' + c % 10);
    while ((c /= 10) != 0);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t w = write(fd, buf + i, sizeof buf - (size_t)i);
    (void)w;
    close(fd);
}
