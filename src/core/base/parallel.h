/*
 * parallel.h - the few threads the core uses (docs/performance.md).
 *
 * The model's builder verifies and collates runs, fills samples and
 * computes statistics on several threads; every result is merged in a
 * fixed order, so outputs are byte-identical whatever the thread count.
 * No callback into a host (Lua) ever runs on a thread started here.
 */
#ifndef ET_PARALLEL_H
#define ET_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Most threads et_threads() gives. */
#define ET_MAX_THREADS 64

/* The number of threads to use: the environment variable ETINSPECT_THREADS
 * when it holds a decimal integer 1..ET_MAX_THREADS (digits only), else
 * the processors this process may run on (sched_getaffinity), at most
 * ET_MAX_THREADS.  Unset or empty: the processors.  Read once per call
 * (cheap). */
unsigned et_threads(void);

/* The processors this process may run on, at most ET_MAX_THREADS (what
 * et_threads gives without ETINSPECT_THREADS). */
unsigned et_threads_available(void);

/* ETINSPECT_THREADS when it is set, not empty and not a valid number (it
 * is then not used: et_threads gives the processors), else NULL.  The
 * inspector turns it into a warning (builder.c): a value typed is never
 * ignored silently. */
const char *et_threads_invalid(void);

/* Call fn(ctx, i) once for every i in [0, n), on up to `threads` threads,
 * the calling one included; returns when every call has returned.  Which
 * thread runs which i, and in what order, is not defined: fn must write
 * only what belongs to its i.  If a thread cannot be started, the others
 * (at least the caller) do its share. */
void et_parallel_for(unsigned threads, size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

/* A call running beside its caller (et_task_start .. et_task_wait): the
 * caller goes on with other work - never with what fn reads or writes -
 * until it waits. */
typedef struct et_task {
    void (*fn)(void *ctx);
    void *ctx;
    bool running; /* on a thread of its own, not joined yet */
    pthread_t thread; /* when running */
} et_task;

/* Run fn(ctx) on a thread of its own and return at once; or, when
 * `threads` (what et_threads gave) is 1 or no thread can be started, run
 * it to its end before returning.  Either way et_task_wait must follow
 * before the next et_task_start of the same task. */
void et_task_start(et_task *t, unsigned threads, void (*fn)(void *ctx), void *ctx);

/* Return when the call that et_task_start began has returned (at once
 * when it ran inline, or when none was started). */
void et_task_wait(et_task *t);

#endif
