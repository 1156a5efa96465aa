/*
 * peakrss - run a command and report its peak resident memory.
 *
 *   peakrss COMMAND [ARG...]
 *
 * The command's stdout and stderr pass through.  When it ends, one line
 * "peak_rss_kb N" goes to standard error (N: getrusage's ru_maxrss of the
 * child, in KiB), and peakrss exits with the command's status (128 + the
 * signal if it was killed, 127 if it could not be run).  Tests assert
 * memory with it, never time (issue 14: a 3 GB sparse file is refused with
 * low RSS).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peakrss COMMAND [ARG...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("peakrss: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("peakrss: exec");
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) {
        perror("peakrss: waitpid");
        return 127;
    }
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    fprintf(stderr, "peak_rss_kb %ld\n", ru.ru_maxrss);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}
