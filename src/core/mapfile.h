/*
 * mapfile.h - read-only memory mapping of an input file.
 *
 * Inputs (ETDumps, debug buffers) are mapped, never copied: the reader
 * works on the bytes in place.  An empty file is valid and maps to
 * data == NULL, size == 0.  Directories, devices and other non-regular
 * files are refused with a clear message.
 */
#ifndef ET_MAPFILE_H
#define ET_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct et_mapped_file {
    const uint8_t *data; /* NULL when size == 0 */
    size_t size;         /* bytes */
} et_mapped_file;

/* Map `path` read-only into `mf`.  Returns 0, or -1 with `err` set
 * (ET_ERR_IO): "PATH: No such file or directory", "PATH: is a directory,
 * expected a file", ... */
int et_map_file(et_mapped_file *mf, const char *path, et_error *err);

/* Unmap; `mf` becomes empty.  Safe on an empty or zeroed struct. */
void et_unmap_file(et_mapped_file *mf);

#endif
