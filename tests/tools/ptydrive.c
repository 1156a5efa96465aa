/*
 * ptydrive - run a command on a pseudo-terminal and drive it like a person
 * at a keyboard (a small expect).
 *
 *   ptydrive SCRIPT COMMAND [ARG...]
 *
 * SCRIPT has one step per line:
 *   send TEXT       type TEXT; escapes: \n (Enter), \t (Tab), \e (Escape),
 *                   \x03 (Ctrl-C) and any \xNN, \\ (backslash)
 *   expect TEXT     wait (up to 10 s) until TEXT appears in the output
 *                   since the previous match (same escapes)
 *   sleep MS        wait MS milliseconds
 *   # ...           a comment
 * Exit 0 when every expectation was met; otherwise 1, printing the step
 * that failed and the output seen.  The child gets TERM=dumb.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static char seen[1 << 16];
static size_t seen_len, seen_from;

/* Decode the escapes of `in` into `out`; returns the length. */
static size_t unescape(const char *in, char *out)
{
    size_t n = 0;
    for (const char *p = in; *p; p++) {
        if (*p != '\\' || !p[1]) {
            out[n++] = *p;
            continue;
        }
        p++;
        switch (*p) {
        case 'n': out[n++] = '\r'; break; /* Enter on a terminal */
        case 't': out[n++] = '\t'; break;
        case 'e': out[n++] = 27; break;
        case '\\': out[n++] = '\\'; break;
        case 'x': {
            char hex[3] = {p[1], p[1] ? p[2] : 0, 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            p += 2;
            break;
        }
        default: out[n++] = *p;
        }
    }
    out[n] = '\0';
    return n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read what the child wrote, for up to `ms` milliseconds. */
static void pump(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, ms) > 0) {
        char buf[4096];
        ssize_t r = read(fd, buf, sizeof buf);
        if (r > 0) {
            if (seen_len + (size_t)r >= sizeof seen) { /* keep the tail */
                size_t drop = seen_len / 2;
                memmove(seen, seen + drop, seen_len - drop);
                seen_len -= drop;
                seen_from = seen_from > drop ? seen_from - drop : 0;
            }
            memcpy(seen + seen_len, buf, (size_t)r);
            seen_len += (size_t)r;
            seen[seen_len] = '\0';
        }
    }
}

static const char *find(const char *hay, size_t n, const char *needle, size_t m)
{
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return hay + i;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ptydrive SCRIPT COMMAND [ARG...]\n");
        return 2;
    }
    FILE *script = fopen(argv[1], "r");
    if (!script) {
        perror(argv[1]);
        return 2;
    }
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        perror("posix_openpt");
        return 2;
    }
    const char *slave_name = ptsname(master);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        setsid();
        int slave = open(slave_name, O_RDWR);
        if (slave < 0)
            _exit(127);
        dup2(slave, 0);
        dup2(slave, 1);
        dup2(slave, 2);
        if (slave > 2)
            close(slave);
        setenv("TERM", "dumb", 1);
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    char line[4096], text[4096];
    int rc = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, script)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (strncmp(line, "send ", 5) == 0) {
            size_t n = unescape(line + 5, text);
            pump(master, 50);
            if (write(master, text, n) != (ssize_t)n)
                rc = 1;
        } else if (strncmp(line, "expect ", 7) == 0) {
            size_t n = unescape(line + 7, text);
            double until = now() + 10;
            const char *hit = NULL;
            while (!(hit = find(seen + seen_from, seen_len - seen_from, text, n)) && now() < until)
                pump(master, 100);
            if (hit) {
                seen_from = (size_t)(hit - seen) + n;
            } else {
                fprintf(stderr, "ptydrive: line %d: did not see \"%s\"; output since the last match:\n%s\n",
                        lineno, line + 7, seen + seen_from);
                rc = 1;
            }
        } else if (strncmp(line, "sleep ", 6) == 0) {
            double until = now() + atoi(line + 6) / 1000.0;
            while (now() < until)
                pump(master, 20);
        } else {
            fprintf(stderr, "ptydrive: line %d: unknown step '%s'\n", lineno, line);
            rc = 2;
        }
    }
    fclose(script);
    /* let the child finish, then reap it */
    for (int i = 0; i < 20; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            goto done;
        pump(master, 50);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
done:
    close(master);
    return rc;
}
