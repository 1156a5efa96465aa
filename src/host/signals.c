/* signals.c - see signals.h. */
#define _POSIX_C_SOURCE 200809L
#include "signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "files/mapfile.h"
#include "files/outfile.h"
#include "output/sqlexport.h"

/* write(2) a NUL-terminated string; async-signal-safe */
static void say(const char *s)
{
    size_t n = strlen(s); /* strlen is async-signal-safe (POSIX 2016) */
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

static void on_fatal(int sig);

/* Die of `sig`: remove the temporary files, restore the default action,
 * raise it.  After an SQLite export that `sig` interrupted rolled back
 * (et_sqlite_interrupt). */
static void die_of(int sig)
{
    et_temp_remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* SIGINT, SIGTERM, ...: remove the temporary files, then die of the
 * signal (SA_RESETHAND restored the default action; the re-raised signal
 * is delivered when this handler returns).  During an SQLite export the
 * handler returns instead: the export stops, rolls back and calls die_of;
 * a second signal meanwhile dies at once (SQLite then rolls the
 * transaction back when the database is next opened). */
static void on_fatal(int sig)
{
    if (et_sqlite_interrupt(sig, die_of)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sig, &sa, NULL);
        return;
    }
    et_temp_remove_all();
    raise(sig);
}

/* SIGBUS: a mapped input that shrank under us is an error naming it;
 * anything else falls back to the default action (returning re-executes
 * the faulting access, which then dies of SIGBUS). */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *path = si ? et_input_at(si->si_addr) : NULL;
    if (!path) {
        signal(sig, SIG_DFL);
        return;
    }
    say("etinspect: error: ");
    say(path);
    say(": the file shrank while it was being read (was it truncated or rewritten by "
        "another process?)\n");
    et_temp_remove_all();
    _exit(1);
}

void et_signals_install(void)
{
    static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT};
    struct sigaction sa;
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
        struct sigaction old;
        /* a signal ignored by whoever started us stays ignored (nohup) */
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(fatal[i], &sa, NULL);
    }
    /* a file over the size limit (ulimit -f): a write error naming the
     * path ("File too large"), not a silent death */
    signal(SIGXFSZ, SIG_IGN);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &sa, NULL);
}
