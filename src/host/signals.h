/*
 * signals.h - what the etinspect program does when a signal arrives.
 *
 * SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT: the temporary files of the
 * outputs being written (outfile.h) are removed, then the signal's default
 * action runs (the process dies of that signal, as before).  An SQLite
 * export in progress (sqlexport.h, et_sqlite_interrupt) first stops and
 * rolls its transaction back - the database is as it was, without a
 * journal beside it - then the process dies of the signal; a second
 * signal in the meantime kills it at once.  The REPL replaces the SIGINT handler while it is interactive
 * (an interrupt stops the statement, not the program).
 *
 * SIGBUS inside the mapping of an input (mapfile.h): another process made
 * the file shorter while it was being read.  The program prints
 * "etinspect: error: PATH: the file shrank while it was being read (was it
 * truncated or rewritten by another process?)", removes its temporary
 * files and exits with status 1.  Any other SIGBUS keeps its default
 * action.
 *
 * SIGXFSZ (a file grew past `ulimit -f`) is ignored: the write fails with
 * "PATH: write failed: File too large" and the output is not replaced.
 *
 * Only the program installs handlers: a library (etinspect.so loaded by a
 * stock lua5.4) leaves the host's signal dispositions alone.
 */
#ifndef ET_SIGNALS_H
#define ET_SIGNALS_H

/* Install the handlers above (idempotent).  Call once, early in main. */
void et_signals_install(void);

#endif
