/*
 * ptydrive - run a command on a pseudo-terminal and drive it like a person
 * at a keyboard (a small expect).
 *
 *   ptydrive [-s ROWSxCOLS] [-t TERM] SCRIPT COMMAND [ARG...]
 *
 * The terminal is ROWS x COLS (default 24x80) and the child gets
 * TERM=dumb unless -t says otherwise.  SCRIPT has one step per line:
 *   send TEXT       type TEXT; escapes: \n (Enter), \t (Tab), \e (Escape),
 *                   \x03 (Ctrl-C) and any \xNN, \\ (backslash)
 *   expect TEXT     wait (up to 10 s) until TEXT appears in the output
 *                   since the previous match (same escapes)
 *   sleep MS        wait MS milliseconds
 *   pause MS        wait MS milliseconds without reading the output (a
 *                   slow terminal: the child's writes block once it is full)
 *   mark            remember this point of the output (the end of the last match)
 *   save FILE       write the output from the mark to the last match into
 *                   FILE (terminal line ends "\r\n" left as they are)
 *   # ...           a comment
 * Exit 0 when every expectation was met; otherwise 1, printing the step
 * that failed and the output seen.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static char seen[1 << 20];
static size_t seen_len, seen_from, mark, scanned; /* scanned: searched up to here */

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

/* Read what the child wrote, for up to `ms` milliseconds; returns the
 * number of bytes read. */
static ssize_t pump(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    ssize_t r = 0;
    if (poll(&p, 1, ms) > 0) {
        char buf[4096];
        r = read(fd, buf, sizeof buf);
        if (r > 0) {
            if (seen_len + (size_t)r >= sizeof seen) { /* keep the tail */
                size_t drop = seen_len / 2;
                memmove(seen, seen + drop, seen_len - drop);
                seen_len -= drop;
                seen_from = seen_from > drop ? seen_from - drop : 0;
                mark = mark > drop ? mark - drop : 0;
                scanned = scanned > drop ? scanned - drop : 0;
            }
            memcpy(seen + seen_len, buf, (size_t)r);
            seen_len += (size_t)r;
            seen[seen_len] = '\0';
        }
    }
    return r;
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
    struct winsize ws = {24, 80, 0, 0};
    const char *term = "dumb";
    int a = 1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (strcmp(argv[a], "-s") == 0) {
            unsigned r, c;
            if (sscanf(argv[a + 1], "%ux%u", &r, &c) != 2 || !r || !c || r > 999 || c > 999) {
                fprintf(stderr, "ptydrive: -s expects ROWSxCOLS, got '%s'\n", argv[a + 1]);
                return 2;
            }
            ws.ws_row = (unsigned short)r;
            ws.ws_col = (unsigned short)c;
        } else if (strcmp(argv[a], "-t") == 0) {
            term = argv[a + 1];
        } else {
            break;
        }
    }
    if (argc - a < 2) {
        fprintf(stderr, "usage: ptydrive [-s ROWSxCOLS] [-t TERM] SCRIPT COMMAND [ARG...]\n");
        return 2;
    }
    FILE *script = fopen(argv[a], "r");
    if (!script) {
        perror(argv[a]);
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
        ioctl(slave, TIOCSWINSZ, &ws);
        dup2(slave, 0);
        dup2(slave, 1);
        dup2(slave, 2);
        if (slave > 2)
            close(slave);
        setenv("TERM", term, 1);
        execvp(argv[a + 1], argv + a + 1);
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
            scanned = seen_from;
            for (;;) {
                if (scanned < seen_from)
                    scanned = seen_from;
                if ((hit = find(seen + scanned, seen_len - scanned, text, n)) || now() >= until)
                    break;
                /* a match may still start in the last n - 1 bytes */
                if (seen_len >= scanned + n)
                    scanned = seen_len - n + 1;
                pump(master, 100);
            }
            if (hit) {
                seen_from = (size_t)(hit - seen) + n;
            } else {
                fprintf(stderr, "ptydrive: line %d: did not see \"%s\"; output since the last match:\n%s\n",
                        lineno, line + 7, seen + seen_from);
                rc = 1;
            }
        } else if (strcmp(line, "mark") == 0) {
            mark = seen_from;
        } else if (strncmp(line, "save ", 5) == 0) {
            FILE *out = fopen(line + 5, "wb");
            size_t from = mark < seen_from ? mark : seen_from;
            if (!out || fwrite(seen + from, 1, seen_from - from, out) != seen_from - from) {
                perror(line + 5);
                rc = 2;
            }
            if (out)
                fclose(out);
        } else if (strncmp(line, "pause ", 6) == 0) {
            long ms = atol(line + 6);
            struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
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
    /* let the child finish (a sanitizer's report at exit included), then
     * reap it: a child that does not exit by itself, or exits with an
     * error, fails the run */
    int status = 0, exited = 0;
    double until = now() + 10;
    while (!exited && now() < until) {
        exited = waitpid(pid, &status, WNOHANG) == pid;
        if (!exited && pump(master, 50) <= 0) {
            struct timespec ts = {0, 20000000L}; /* the terminal closed: just wait */
            nanosleep(&ts, NULL);
        }
    }
    while (pump(master, 50) > 0)
        ;
    if (!exited) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fprintf(stderr, "ptydrive: the command did not exit after the last step\n");
        rc = rc ? rc : 1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "ptydrive: the command ended with %s %d; its last output:\n%s\n",
                WIFEXITED(status) ? "status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                seen + (seen_len > 2000 ? seen_len - 2000 : 0));
        rc = rc ? rc : 1;
    }
    close(master);
    return rc;
}
