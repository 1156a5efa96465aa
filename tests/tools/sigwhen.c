/*
 * sigwhen - send a signal to a command as soon as a file appears.
 *
 *   sigwhen DIR PREFIX SIGNAL COMMAND [ARG...]
 *
 * Runs COMMAND (stdout and stderr pass through) and polls DIR every 200 us
 * for an entry whose name starts with PREFIX (e.g. "out.json." - the
 * temporary file of an output being written).  When one appears, it sends
 * signal number SIGNAL to the command and waits for it.  Prints one line:
 *   "signalled NAME; exit signal S"   (killed by signal S)
 *   "signalled NAME; exit status N"   (it exited after the signal)
 *   "finished first; exit status N"   (the entry never appeared)
 * and exits 0, or 2 on usage errors.  Used by tests/e2e/limits.t (issue 14:
 * SIGTERM during a large JSON write leaves no temporary file).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The first entry of `dir` starting with `prefix`, into name; 1 if found. */
static int find(const char *dir, const char *prefix, char *name, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(name, cap, "%s", e->d_name);
            found = 1;
        }
    closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 5 || atoi(argv[3]) <= 0) {
        fprintf(stderr, "usage: sigwhen DIR PREFIX SIGNAL COMMAND [ARG...]\n");
        return 2;
    }
    const char *dir = argv[1], *prefix = argv[2];
    int sig = atoi(argv[3]);
    pid_t pid = fork();
    if (pid < 0) {
        perror("sigwhen: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[4], argv + 4);
        perror("sigwhen: exec");
        _exit(127);
    }
    char name[256];
    int st;
    const struct timespec nap = {0, 200000};
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) {
            printf("finished first; exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            return 0;
        }
        if (find(dir, prefix, name, sizeof name)) {
            kill(pid, sig);
            break;
        }
        nanosleep(&nap, NULL);
    }
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        printf("signalled %s; exit signal %d\n", name, WTERMSIG(st));
    else
        printf("signalled %s; exit status %d\n", name, WEXITSTATUS(st));
    return 0;
}
