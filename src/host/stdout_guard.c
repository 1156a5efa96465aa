/* stdout_guard.c - see stdout_guard.h. */
#define _POSIX_C_SOURCE 200809L
#include "stdout_guard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_status = -1; /* -1: not set (exit() from elsewhere) */

/* Why a write to stdout failed: the errno of flushing what the stream
 * still holds (a failed write leaves its bytes in the buffer: flushing
 * them again fails the same way), else of a write of nothing to the
 * descriptor (which changes nothing; /dev/full and a closed descriptor
 * answer, a regular file may not), else 0. */
static int why_failed(void)
{
    clearerr(stdout);
    if (fflush(stdout) != 0)
        return errno;
    if (write(STDOUT_FILENO, "", 0) < 0)
        return errno;
    return 0;
}

static void say_failed(int e)
{
    if (e == ENOMEM)
        fputs("etinspect: error: out of memory (writing standard output)\n", stderr);
    else if (e)
        fprintf(stderr, "etinspect: error: standard output: write failed: %s\n", strerror(e));
    else
        fputs("etinspect: error: standard output: write failed\n", stderr);
}

int et_stdout_guard_report(void)
{
    /* the writer's own failure may have been an allocation (a table is
     * rendered in memory first): the stream then has nothing to say */
    int writer = errno, e = why_failed();
    say_failed(e ? e : writer == ENOMEM ? ENOMEM : 0);
    return 1;
}

/* At exit: flush and close stdout, and fail the run if any write to it
 * failed. */
static void check_at_exit(void)
{
    int failed = ferror(stdout) != 0, e = 0;
    if (failed) {
        e = why_failed();
    } else if (fflush(stdout) != 0) {
        failed = 1;
        e = errno;
    }
    if (fclose(stdout) != 0 && !failed && errno != EBADF) { /* EBADF: >&-, nothing written */
        failed = 1;
        e = errno;
    }
    if (!failed || run_status > 0)
        return;
    say_failed(e);
    fflush(NULL); /* what exit() would still flush: the other open streams */
    _exit(1);
}

void et_stdout_guard_install(void)
{
    atexit(check_at_exit);
}

int et_stdout_guard_status(int status)
{
    run_status = status;
    return status;
}
