/* stdout_guard.c - see stdout_guard.h. */
#define _POSIX_C_SOURCE 200809L
#include "stdout_guard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_status = -1; /* -1: not set (exit() from elsewhere) */

/* At exit: flush and close stdout, and fail the run if any write to it
 * failed. */
static void check_at_exit(void)
{
    int failed = ferror(stdout) != 0, e = 0;
    /* a failed write leaves its bytes in the buffer: flushing them again
     * fails the same way and tells why (errno) */
    clearerr(stdout);
    if (fflush(stdout) != 0) {
        failed = 1;
        e = errno;
    }
    if (fclose(stdout) != 0 && !failed && errno != EBADF) { /* EBADF: >&-, nothing written */
        failed = 1;
        e = errno;
    }
    if (!failed || run_status > 0)
        return;
    if (e)
        fprintf(stderr, "etinspect: error: standard output: write failed: %s\n", strerror(e));
    else
        fputs("etinspect: error: standard output: write failed\n", stderr);
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
