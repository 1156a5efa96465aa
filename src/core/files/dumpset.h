/*
 * dumpset.h - several ETDumps as one dataset (docs/fleet.md): the paths a
 * command line or a Lua call names (files, directories, glob patterns)
 * expanded in a deterministic order, and the short names that tell the
 * dumps apart in a `dump` column and in an SQLite database.
 */
#ifndef ET_DUMPSET_H
#define ET_DUMPSET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* A growable list of owned, NUL-terminated paths. */
typedef struct et_pathlist {
    char **v;
    size_t n, cap;
} et_pathlist;

/* Append a copy of `path`.  Returns 0, or -1 with `err` set (ET_ERR_NOMEM). */
int et_pathlist_add(et_pathlist *l, const char *path, et_error *err);

/* Free the paths and the list; leaves it empty.  NULL is accepted. */
void et_pathlist_free(et_pathlist *l);

/* Most paths one expansion adds (a directory or pattern matching more is
 * refused, so a stray "/" or "**" cannot exhaust memory). */
#define ET_DUMPSET_MAX 100000

/* Append to `out` the files `arg` names:
 *   - an existing regular file (or a link to one): `arg` itself;
 *   - an existing directory: its regular files whose content is an ETDump
 *     ("ED00" at byte 4 or 8; other files and subdirectories are left
 *     out; not recursive), as "ARG/NAME", sorted by name (bytewise);
 *   - otherwise, when `arg` holds '*', '?' or '[': the glob(3) pattern's
 *     matches, sorted bytewise (whatever the locale);
 *   - otherwise `arg` itself (opening it reports what is wrong).
 * Returns 0, or -1 with `err` set:
 *   ET_ERR_IO     "DIR: is a directory with no ETDump in it", "PATTERN: no file
 *                 matches this pattern", a directory that cannot be read,
 *                 more than ET_DUMPSET_MAX paths;
 *   ET_ERR_NOMEM  out of memory. */
int et_dumpset_expand(const char *arg, et_pathlist *out, et_error *err);

/* The names of `n` dumps (n >= 1) for a `dump` column: for each path, the
 * shortest tail of its components ("a/model.etdp") that no other path
 * ends with; "." and empty components are ignored.  Names are distinct.
 * Stores a malloc'd array of `n` malloc'd strings in *names (free with
 * et_dumpset_names_free).  Returns 0, or -1 with `err` set:
 *   ET_ERR_USAGE  two paths name the same file (the same components, or
 *                 the same device and inode): "X and Y are the same file";
 *   ET_ERR_NOMEM  out of memory. */
int et_dumpset_names(const char *const *paths, size_t n, char ***names, et_error *err);

/* Free what et_dumpset_names stored. */
void et_dumpset_names_free(char **names, size_t n);

#endif
