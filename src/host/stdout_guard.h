/*
 * stdout_guard.h - standard output checked at the end of every run.
 *
 * Everything the program prints goes through C stdio's stdout: the
 * command line's tables, --help and --version, --list-scripts and
 * --help NAME, the bundled scripts, -e code and the REPL (Lua's print and
 * io.write in the host write to stdout).  Rather than each writer
 * checking each write, the host checks the stream once at exit: a write
 * that failed earlier (the stream's error flag) or a final flush or close
 * that fails - a full disk, /dev/full, a file over its size limit -
 * ends the run with "etinspect: error: standard output: write failed:
 * REASON" on stderr and exit status 1.  The check runs at exit(), so
 * os.exit in a script is covered too.  A closed stdout that nothing was
 * written to is no error.
 */
#ifndef ET_STDOUT_GUARD_H
#define ET_STDOUT_GUARD_H

/* Check standard output at exit (atexit; call once, early in main).  A
 * failure when the run's status (et_stdout_guard_status) is 0, or was
 * never set (exit() from os.exit), prints the error and ends the process
 * with status 1 (_exit); after a failing run (status > 0), whose error
 * was reported, the status is kept and nothing more is said. */
void et_stdout_guard_install(void);

/* For a part that checks its own writes to stdout (the command line's
 * tables, to stop before writing its files): print the same error,
 * "etinspect: error: standard output: write failed: REASON", and return
 * the exit status 1.  When the stream has no error to give and errno
 * (as the failing writer left it) is ENOMEM -- the table is rendered in
 * memory before it is written -- the message is "out of memory (writing
 * standard output)" instead.  Its ferror is cleared (the check at exit then sees
 * only later failures, and says nothing after a failing run). */
int et_stdout_guard_report(void);

/* The status main() is about to return (exit with); returns it. */
int et_stdout_guard_status(int status);

#endif
