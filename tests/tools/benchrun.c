/*
 * benchrun - run a command N times; print its best and median wall time and
 * its peak resident memory.
 *
 *   benchrun N COMMAND [ARG...]
 *
 * Output, one line: "best 0.231 s  median 0.262 s  peak_rss 103.2 MB  (N runs)".
 * The command's stdout and stderr are discarded; a run that fails stops the
 * benchmark with exit 1.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: benchrun N COMMAND [ARG...]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    double *t = calloc((size_t)n, sizeof *t);
    long peak_kb = 0;
    if (!t)
        return 2;
    for (int i = 0; i < n; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int status;
        struct rusage ru;
        if (waitpid(pid, &status, 0) < 0) {
            perror("waitpid");
            return 2;
        }
        /* the largest peak of any child waited for so far */
        getrusage(RUSAGE_CHILDREN, &ru);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "benchrun: %s failed (status %d)\n", argv[2], status);
            return 1;
        }
        t[i] = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        if (ru.ru_maxrss > peak_kb)
            peak_kb = ru.ru_maxrss;
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("best %.3f s  median %.3f s  peak_rss %.1f MB  (%d runs)\n", t[0], t[n / 2],
           (double)peak_kb / 1024.0, n);
    free(t);
    return 0;
}
