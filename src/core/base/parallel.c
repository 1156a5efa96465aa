/* parallel.c - see parallel.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "base/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/* ETINSPECT_THREADS as a number 1..ET_MAX_THREADS, or 0 when unset,
 * empty (*set false) or invalid (*set true). */
static unsigned threads_env(bool *set, const char **val)
{
    const char *s = getenv("ETINSPECT_THREADS");
    *set = s && *s;
    *val = s;
    if (!*set)
        return 0;
    unsigned v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || v > ET_MAX_THREADS)
            return 0;
        v = v * 10 + (unsigned)(*p - '0');
    }
    return v >= 1 && v <= ET_MAX_THREADS ? v : 0;
}

unsigned et_threads_available(void)
{
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

unsigned et_threads(void)
{
    bool set;
    const char *val;
    unsigned v = threads_env(&set, &val);
    return v ? v : et_threads_available();
}

const char *et_threads_invalid(void)
{
    bool set;
    const char *val;
    return threads_env(&set, &val) == 0 && set ? val : NULL;
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

static void *task_run(void *arg)
{
    et_task *t = arg;
    t->fn(t->ctx);
    return NULL;
}

void et_task_start(et_task *t, unsigned threads, void (*fn)(void *ctx), void *ctx)
{
    t->fn = fn;
    t->ctx = ctx;
    t->running = false;
    if (threads > 1 && pthread_create(&t->thread, NULL, task_run, t) == 0) {
        t->running = true;
        return;
    }
    fn(ctx);
}

void et_task_wait(et_task *t)
{
    if (t->running)
        pthread_join(t->thread, NULL);
    t->running = false;
}
