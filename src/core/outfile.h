/*
 * outfile.h - writing an output file without risking what was there.
 *
 * Output goes to a temporary file beside the destination ("DEST.XXXXXX"),
 * which replaces the destination with rename() only after everything was
 * written and flushed.  On any failure the temporary file is removed and the
 * destination is untouched.  A destination that is one of the inputs is
 * refused before anything is written.
 *
 * A destination that exists and is not a regular file (a terminal,
 * /dev/null, /dev/stdout, a FIFO) is written directly: renaming over it
 * would destroy it.  A symbolic link keeps being a link: the file it names
 * is replaced.
 */
#ifndef ET_OUTFILE_H
#define ET_OUTFILE_H

#include <stdio.h>

#include "error.h"

typedef struct et_outfile {
    FILE *fp;          /* write here */
    char *dest;        /* final path */
    char *tmp;         /* temporary path; NULL when writing directly */
} et_outfile;

/* The file that writing `path` should replace: `path` itself, or the
 * target of the symbolic link(s) it is, existing or not (as the shell's >
 * does; a relative target is taken from the link's directory).  Returns 0
 * with a new string in *out (free it), or -1 with `err` set: ET_ERR_IO
 * ("PATH: too many levels of symbolic links", readlink's error),
 * ET_ERR_NOMEM. */
int et_resolve_links(const char *path, char **out, et_error *err);

/* Open a temporary file for `dest`.  `inputs` is a NULL-terminated list of
 * paths (NULL entries inside are not allowed; pass only real inputs) that
 * must not be overwritten.  Returns 0, or -1 with `err` set (ET_ERR_IO or
 * ET_ERR_USAGE when dest is an input). */
int et_outfile_open(et_outfile *of, const char *dest, const char *const *inputs, et_error *err);

/* Flush, close and rename into place.  Returns 0, or -1 with `err` set;
 * on failure the temporary file is removed. */
int et_outfile_commit(et_outfile *of, et_error *err);

/* Close and remove the temporary file (after a failed write). */
void et_outfile_abort(et_outfile *of);

#endif
