/* parallel.c - see parallel.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

unsigned et_threads(void)
{
    const char *s = getenv("ETINSPECT_THREADS");
    if (s && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end == '\0' && v >= 1 && v <= ET_MAX_THREADS)
            return (unsigned)v;
    }
    long n = 0;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
#endif
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > ET_MAX_THREADS ? ET_MAX_THREADS : (unsigned)n;
}

typedef struct pfor {
    atomic_size_t next;
    size_t n;
    void (*fn)(void *, size_t);
    void *ctx;
} pfor;

static void *pfor_run(void *arg)
{
    pfor *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->n)
            return NULL;
        p->fn(p->ctx, i);
    }
}

void et_parallel_for(unsigned threads, size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
    if (threads > ET_MAX_THREADS)
        threads = ET_MAX_THREADS;
    if (threads <= 1 || n <= 1) {
        for (size_t i = 0; i < n; i++)
            fn(ctx, i);
        return;
    }
    pfor p = {.n = n, .fn = fn, .ctx = ctx};
    atomic_init(&p.next, 0);
    pthread_t tid[ET_MAX_THREADS];
    unsigned started = 0;
    for (unsigned t = 1; t < threads && t < n; t++)
        if (pthread_create(&tid[started], NULL, pfor_run, &p) == 0)
            started++;
    pfor_run(&p);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}
