/*
 * test_parallel.c - the thread count (ETINSPECT_THREADS: valid values are
 * used, anything else is reported by et_threads_invalid and replaced by the
 * processors available) and et_parallel_for (every index exactly once,
 * whatever the thread count) and et_task (a call beside its caller: on a
 * thread of its own when there are threads, else inline; done when
 * et_task_wait returns).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "tap.h"

static void count_i(void *ctx, size_t i)
{
    atomic_int *hits = ctx;
    atomic_fetch_add(&hits[i], 1);
}

/* A task that, on a thread of its own, waits until the caller says go (on
 * the caller's thread it cannot: it returns at once). */
typedef struct gate {
    atomic_int go, done;
    pthread_t caller;
    atomic_int other_thread;
} gate;

static void gated(void *ctx)
{
    gate *g = ctx;
    atomic_store(&g->other_thread, !pthread_equal(pthread_self(), g->caller));
    while (atomic_load(&g->other_thread) && !atomic_load(&g->go))
        ;
    atomic_store(&g->done, 1);
}

int main(void)
{
    unsigned avail = et_threads_available();
    ok(avail >= 1 && avail <= ET_MAX_THREADS, "processors available: %u, within 1..%d", avail,
       ET_MAX_THREADS);

    unsetenv("ETINSPECT_THREADS");
    ok(et_threads() == avail && !et_threads_invalid(), "unset: the processors available");
    setenv("ETINSPECT_THREADS", "", 1);
    ok(et_threads() == avail && !et_threads_invalid(), "empty: as unset, no complaint");

    static const struct {
        const char *v;
        unsigned n;
    } good[] = {{"1", 1}, {"2", 2}, {"5", 5}, {"64", 64}, {"007", 7}};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        setenv("ETINSPECT_THREADS", good[k].v, 1);
        ok(et_threads() == good[k].n && !et_threads_invalid(), "'%s': %u threads", good[k].v,
           good[k].n);
    }
    static const char *const bad[] = {"0", "-1", "abc", "1000", "65", " 4", "4 ", "+2", "2x",
                                      "99999999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        setenv("ETINSPECT_THREADS", bad[k], 1);
        const char *inv = et_threads_invalid();
        ok(et_threads() == avail && inv && strcmp(inv, bad[k]) == 0,
           "'%s': reported as invalid, the processors available used", bad[k]);
    }
    unsetenv("ETINSPECT_THREADS");

    for (unsigned t = 1; t <= 5; t += 2) {
        enum { N = 1000 };
        atomic_int hits[N];
        for (int i = 0; i < N; i++)
            atomic_init(&hits[i], 0);
        et_parallel_for(t, N, count_i, hits);
        int once = 1;
        for (int i = 0; i < N; i++)
            once &= atomic_load(&hits[i]) == 1;
        ok(once, "et_parallel_for on %u thread(s): every index once", t);
    }

    /* et_task: on 2 threads the call runs beside the caller, which goes on
     * (it is still waiting for `go` when et_task_start has returned) */
    gate g = {.caller = pthread_self()};
    atomic_init(&g.go, 0), atomic_init(&g.done, 0), atomic_init(&g.other_thread, 0);
    et_task t;
    et_task_start(&t, 2, gated, &g);
    int beside = !atomic_load(&g.done);
    atomic_store(&g.go, 1);
    et_task_wait(&t);
    ok(beside && atomic_load(&g.other_thread) && atomic_load(&g.done) && !t.running,
       "et_task on 2 threads: runs on a thread of its own, done when et_task_wait returns");
    et_task_wait(&t);
    ok(!t.running, "et_task_wait again: returns at once");
    /* on 1 thread: inline, done before et_task_start returns */
    gate g1 = {.caller = pthread_self()};
    atomic_init(&g1.go, 0), atomic_init(&g1.done, 0), atomic_init(&g1.other_thread, 1);
    et_task_start(&t, 1, gated, &g1);
    ok(atomic_load(&g1.done) && !atomic_load(&g1.other_thread) && !t.running,
       "et_task on 1 thread: run inline, done when et_task_start returns");
    et_task_wait(&t);
    return done_testing();
}
