/*
 * outfile.h - writing an output file without risking what was there, or
 * any input.
 *
 * Output goes to a temporary file beside the destination ("DEST.XXXXXX"),
 * which replaces the destination with rename() only after everything was
 * written, flushed and fsync()ed (the directory is fsync()ed after the
 * rename).  On any failure the temporary file is removed and the
 * destination is untouched; temporary files are also registered so that a
 * signal handler can remove them (et_temp_remove_all, src/host/signals.c).
 *
 * The one output guard: a destination that is the same file (device and
 * inode) as an input in use - any file mapped with et_map_file or held
 * with et_input_hold (mapfile.h): ETDumps, debug buffers, ETRecords,
 * BundledPrograms, legacy dumps, .npy files - or as one of the `inputs`
 * paths a caller passes, is refused before anything is written, with a
 * message naming both.
 *
 * Outputs that are not replaced but written in place, as a stream:
 *  - a path naming a descriptor of this process - /dev/stdin, /dev/stdout,
 *    /dev/stderr, /dev/fd/N, /proc/self/fd/N (any path whose directory
 *    resolves to /proc/PID/fd of this process), or a symbolic link to one -
 *    is written through a copy of that descriptor: `--tsv_path /dev/stdout
 *    >> log.txt` appends to log.txt, whose other lines, mode and inode stay;
 *  - a destination that exists and is not a regular file (a terminal,
 *    /dev/null, a FIFO, a character device), or another process's
 *    /proc/PID/fd/N, is opened and written directly: renaming over it would
 *    destroy it.
 * A symbolic link keeps being a link: the file it names is replaced.
 *
 * A replaced file keeps its owner, group and permission bits (the
 * temporary file gets them before the rename; when the owner or group
 * cannot be given, as for another user's file, the output is refused and
 * the file left as it was); a new file gets 0666 & ~umask.  A regular file
 * with other hard links is refused, not replaced: the new file would take
 * one of its names and the others would silently keep the old contents.
 * An empty path is refused (ET_ERR_USAGE "the output path is empty").
 */
#ifndef ET_OUTFILE_H
#define ET_OUTFILE_H

#include <stdio.h>

#include "base/error.h"

typedef struct et_outfile {
    FILE *fp;          /* write here */
    int fd;            /* the temporary file's descriptor (fsync); -1 when writing directly */
    /* the state of fp's stream (outfile.c), which points here: an open
     * et_outfile is used in place, never copied */
    struct {
        unsigned long long written, kicked; /* bytes written; whose writeback was asked for */
    } wb;
    char *dest;        /* final path */
    char *tmp;         /* temporary path; NULL when writing directly */
    int temp_slot;     /* et_temp_track's slot of tmp, -1 for none */
} et_outfile;

/* The file that writing `path` should replace: `path` itself, or the
 * target of the symbolic link(s) it is, existing or not (as the shell's >
 * does; a relative target is taken from the link's directory).  Returns 0
 * with a new string in *out (free it), or -1 with `err` set: ET_ERR_IO
 * ("PATH: too many levels of symbolic links", readlink's error),
 * ET_ERR_NOMEM. */
int et_resolve_links(const char *path, char **out, et_error *err);

/* The output guard alone, for writers that do not use et_outfile (the
 * SQLite export): 0 when `dest` may be written, or -1 with `err` set
 * (ET_ERR_USAGE) when it exists and is an input in use or one of
 * `inputs` (NULL-terminated paths, may be NULL): "DEST: refusing to
 * overwrite an input file with output (the input INPUT)". */
int et_outfile_guard(const char *dest, const char *const *inputs, et_error *err);

/* The descriptor of this process that `path` names (see above: /dev/stdout,
 * /dev/fd/N, /proc/self/fd/N, or a symbolic link to one of those), -2
 * when it names another process's descriptor (/proc/PID/fd/N), or -1. */
int et_outfile_descriptor(const char *path);

/* What et_outfile_open would refuse, checked without creating or opening
 * anything (for a command line that checks every output before writing
 * any): 0, or -1 with `err` set - ET_ERR_USAGE "the output path is empty",
 * the guard's errors (et_outfile_guard), ET_ERR_IO "DEST: is a directory,
 * expected a file path", "DEST: descriptor N is not open (for writing)",
 * "DEST: the file has N hard links; ...".  The owner is checked only when
 * opening. */
int et_outfile_check(const char *dest, const char *const *inputs, et_error *err);

/* Do the outputs `a` and `b` clash: name one file - the same device and
 * inode when they exist, the same canonical path (links followed,
 * directory resolved) when they do not - that at least one of them would
 * replace?  Two streams written in place (two descriptors, a terminal,
 * a FIFO) do not clash: they are written one after the other.  1 or 0. */
int et_outfile_clash(const char *a, const char *b);

/* Open a temporary file for `dest`.  `inputs` is a NULL-terminated list of
 * paths (may be NULL) that must not be overwritten, besides the registered
 * inputs in use.  On Linux with glibc, of->fp is a stream that asks the
 * kernel to start writing each megabyte to disk as soon as it is written
 * (sync_file_range, without waiting), so that the commit's fsync finds
 * little left: 6 ms -> 0.5 ms for large.etdp's TSV; a write error is the
 * stream's, as with any FILE.  Returns 0, or -1 with `err` set:
 * ET_ERR_USAGE when dest is an input (et_outfile_guard) or empty, ET_ERR_IO
 * ("DEST: is a directory, expected a file path", "DEST: cannot create a
 * file beside it: REASON", "DEST: REASON", the hard-link, owner and
 * descriptor refusals of et_outfile_check and above), ET_ERR_NOMEM.  A
 * destination written in place (above) has no temporary file: of->tmp is
 * NULL. */
int et_outfile_open(et_outfile *of, const char *dest, const char *const *inputs, et_error *err);

/* Flush, fsync, close and rename into place (then fsync the directory).
 * Returns 0, or -1 with `err` set (ET_ERR_IO "DEST: write failed:
 * REASON", REASON strerror's text); on failure the temporary file is
 * removed. */
int et_outfile_commit(et_outfile *of, et_error *err);

/* Commit `n` files written together (the Parquet export's files of
 * several dumps): flush and fsync every one, then rename each into place
 * in the order given, then fsync each of their directories once - what
 * et_outfile_commit does for each, with one journal commit for all
 * instead of two per file.  Every file is on disk before any is renamed.
 * Returns 0, or -1 with `err` set (ET_ERR_IO "DEST: write failed: REASON"
 * for the first that failed): the files renamed before it stay, the
 * others' temporary files are removed.  Every `ofs[i]` is closed either
 * way.  An entry already aborted (et_outfile_abort: nothing open) is
 * skipped. */
int et_outfile_commit_all(et_outfile *ofs, size_t n, et_error *err);

/* After a writer failed on of->fp: remove the temporary file and set `err`
 * (ET_ERR_IO) to "DEST: write failed: REASON" (the stream's errno, e.g.
 * "No space left on device").  Returns -1. */
int et_outfile_fail(et_outfile *of, et_error *err);

/* Close and remove the temporary file (after a failed write). */
void et_outfile_abort(et_outfile *of);

/* ---- temporary files removed on a signal or at exit ------------------------- */

/* Register `path` (not copied: it must stay valid, and may change in place
 * as mkstemp fills it in, until et_temp_untrack) as a temporary file to
 * remove if the process is killed, or exits (exit(), e.g. Lua's os.exit
 * from a callback in the middle of a write: the first registration
 * installs et_temp_remove_all with atexit) before it is committed or
 * aborted.  Returns a slot >= 0, or -1 when the 64 slots are taken (the
 * file is then not removed on a signal or at exit).  Thread-safe. */
int et_temp_track(char *path);

/* Forget slot `slot` (-1: no-op).  Thread-safe. */
void et_temp_untrack(int slot);

/* unlink() every registered temporary file.  Async-signal-safe: for a
 * handler of SIGINT/SIGTERM (src/host/signals.c) that then dies. */
void et_temp_remove_all(void);

#endif
