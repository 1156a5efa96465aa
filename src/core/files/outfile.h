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
 * A destination that exists and is not a regular file (a terminal,
 * /dev/null, /dev/stdout, a FIFO) is written directly: renaming over it
 * would destroy it.  A symbolic link keeps being a link: the file it names
 * is replaced.
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

/* Open a temporary file for `dest`.  `inputs` is a NULL-terminated list of
 * paths (may be NULL) that must not be overwritten, besides the registered
 * inputs in use.  On Linux with glibc, of->fp is a stream that asks the
 * kernel to start writing each megabyte to disk as soon as it is written
 * (sync_file_range, without waiting), so that the commit's fsync finds
 * little left: 6 ms -> 0.5 ms for large.etdp's TSV; a write error is the
 * stream's, as with any FILE.  Returns 0, or -1 with `err` set:
 * ET_ERR_USAGE when dest is an input (et_outfile_guard), ET_ERR_IO ("DEST:
 * is a directory, expected a file path", "DEST: cannot create a file
 * beside it: REASON", "DEST: REASON"), ET_ERR_NOMEM. */
int et_outfile_open(et_outfile *of, const char *dest, const char *const *inputs, et_error *err);

/* Flush, fsync, close and rename into place (then fsync the directory).
 * Returns 0, or -1 with `err` set (ET_ERR_IO "DEST: write failed:
 * REASON", REASON strerror's text); on failure the temporary file is
 * removed. */
int et_outfile_commit(et_outfile *of, et_error *err);

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
