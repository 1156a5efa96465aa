/*
 * benchrun - run a command N times; print its best and median wall time and
 * its peak resident memory; or, with --vs, pair every run with a run of a
 * floor program and print the median of the ratios.
 *
 *   benchrun N [--per COUNT] [--fresh PATH] COMMAND [ARG...]
 *   benchrun N [--per COUNT] [--fresh PATH] --vs FLOOR FLOOR_ARG COMMAND [ARG...]
 *
 * Output, one line:
 *   "best 0.231 s  median 0.262 s  peak_rss 103.2 MiB  (N runs)"
 *   "median 0.052 s  floor 0.040 s  ratio 1.31x  peak_rss 80.1 MiB  (N pairs)"
 * where ratio is the median over the pairs of COMMAND's time / FLOOR's (the
 * two run in turn, so a drift of the machine's speed affects both), and
 * peak_rss is COMMAND's largest.  With --per COUNT (the events of the
 * input, say) the line ends with the median time and the peak RSS per
 * item: "  52 ns, 84 B per item".  The commands' stdout and stderr are
 * discarded; a run that fails stops the benchmark with exit 1.  With
 * --fresh PATH, PATH is removed before each run of COMMAND, outside the
 * time: the run writes a new file instead of replacing the last run's
 * (whose blocks the file system frees inside the replacing rename).
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Run argv once; returns its wall time in seconds (-1: failed) and its
 * peak RSS in KiB in *rss. */
static double run_once(char **argv, long *rss)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return -1;
    }
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("wait4");
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "benchrun: %s failed (status %d)\n", argv[0], status);
        return -1;
    }
    *rss = ru.ru_maxrss;
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
    int a = 2;
    double per = 0;
    const char *fresh = NULL;
    int bad = 0;
    for (;;) {
        if (argc >= a + 2 && strcmp(argv[a], "--per") == 0) {
            per = strtod(argv[a + 1], NULL);
            bad |= !(per > 0);
            a += 2;
        } else if (argc >= a + 2 && strcmp(argv[a], "--fresh") == 0) {
            fresh = argv[a + 1];
            a += 2;
        } else {
            break;
        }
    }
    int vs = argc > a && strcmp(argv[a], "--vs") == 0;
    if (bad || argc <= a || atoi(argv[1]) < 1 || (vs && argc < a + 4)) {
        fprintf(stderr, "usage: benchrun N [--per COUNT] [--fresh PATH] [--vs FLOOR FLOOR_ARG] "
                        "COMMAND [ARG...]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    char **cmd = argv + (vs ? a + 3 : a);
    char *floor_argv[3] = {vs ? argv[a + 1] : NULL, vs ? argv[a + 2] : NULL, NULL};
    double *t = calloc((size_t)n, sizeof *t), *f = calloc((size_t)n, sizeof *f),
           *q = calloc((size_t)n, sizeof *q);
    long peak_kb = 0, rss;
    if (!t || !f || !q)
        return 2;
    for (int i = 0; i < n; i++) {
        if (vs && (f[i] = run_once(floor_argv, &rss)) < 0)
            return 1;
        if (fresh)
            unlink(fresh); /* untimed: a new output, not one replacing the last */
        if ((t[i] = run_once(cmd, &rss)) < 0)
            return 1;
        if (rss > peak_kb)
            peak_kb = rss;
        if (vs)
            q[i] = t[i] / f[i];
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    if (vs) {
        qsort(f, (size_t)n, sizeof *f, cmp);
        qsort(q, (size_t)n, sizeof *q, cmp);
        printf("median %.3f s  floor %.3f s  ratio %.2fx  peak_rss %.1f MiB  (%d pairs)",
               t[n / 2], f[n / 2], q[n / 2], (double)peak_kb / 1024.0, n);
    } else {
        printf("best %.3f s  median %.3f s  peak_rss %.1f MiB  (%d runs)", t[0], t[n / 2],
               (double)peak_kb / 1024.0, n);
    }
    if (per > 0)
        printf("  %.0f ns, %.0f B per item", t[n / 2] / per * 1e9, (double)peak_kb * 1024.0 / per);
    printf("\n");
    free(t);
    free(f);
    free(q);
    return 0;
}
