/*
 * mapfile.h - read-only memory mapping of an input file, and the
 * process-wide registry of the inputs in use.
 *
 * Inputs (ETDumps, debug buffers, BundledPrograms, ETRecords, .npy files,
 * legacy dumps) are mapped, never copied: the reader works on the bytes in
 * place.  An empty file is valid and maps to data == NULL, size == 0.
 * Directories, devices, FIFOs and other non-regular files are refused
 * with a clear message; they are opened without blocking first (a FIFO
 * with no writer never makes the open wait).
 *
 * Mapping is lazy by default: a page is read from the file when it is
 * first touched, so a 5 GB debug buffer of which 16 bytes are used costs
 * 16 bytes of reading, and a file larger than its format allows is refused
 * from its fstat() size before anything is mapped (et_map_file_ex).
 *
 * The number of files mapped at once is bounded (et_map_budget): the
 * kernel refuses a process more than vm.max_map_count mappings, and a
 * fleet of dumps opened together (etinspect.open_many of 70,000 files)
 * would reach it.  Past the budget, or when the kernel refuses a mapping
 * for want of room (ENOMEM), a file is read into memory instead: the
 * caller sees the same bytes (et_mapped_file.in_memory says which).
 *
 * Every mapped file is registered, by device and inode, until it is
 * unmapped: et_outfile_open (outfile.h) and the SQLite export refuse to
 * write over any registered input, whoever opened it
 * (docs/user-guide.md "Limits").  The registry also lets a SIGBUS handler
 * (src/host/signals.c) name the file that shrank under its mapping.
 */
#ifndef ET_MAPFILE_H
#define ET_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/error.h"

typedef struct et_mapped_file {
    const uint8_t *data; /* NULL when size == 0 */
    size_t size;         /* bytes */
    int input_id;        /* registry entry (et_input_hold), 0 for none */
    bool in_memory;      /* the bytes were read into memory, not mapped (over
                            the mapping budget, et_map_budget): they never
                            change, and must never be given back with
                            madvise */
} et_mapped_file;

/* How to map a file (et_map_file_ex). */
typedef struct et_map_options {
    uint64_t max_size;    /* 0: no limit; a larger file is refused from its
                             fstat() size, before it is mapped */
    const char *too_large; /* how the message ends after "PATH: file is N
                             bytes, ", e.g. "larger than a FlatBuffer can be
                             (2 GiB)"; NULL: "larger than the N-byte limit" */
    bool populate;        /* the whole file will be read at once: fault it
                             in while mapping (MAP_POPULATE) instead of page
                             by page */
    bool unguarded;       /* not an input the output guard protects (a .npy
                             array: replacing the file by rename leaves the
                             mapping intact, and read_npy then write_npy to
                             the same path is a normal round trip); still
                             registered, for the SIGBUS message */
} et_map_options;

/* Open `path` for reading without blocking (a FIFO with no writer, or a
 * device, never makes the open wait), then check with fstat that it is a
 * regular file; `st` receives its status.  Every file the core and the
 * host read goes through here (or et_read_regular, et_map_file).  Returns
 * the descriptor (O_CLOEXEC; the caller closes it), or -1 with `err` set
 * (ET_ERR_IO): "PATH: <strerror>" (errno is open's or fstat's error),
 * "PATH: is a directory, expected a file", "PATH: not a regular file"
 * (errno is 0: the file exists). */
int et_open_regular(const char *path, struct stat *st, et_error *err);

/* Read the regular file `path` whole into memory (et_open_regular, then
 * its fstat size).  Returns a malloc'd buffer of *size bytes followed by a
 * NUL (not counted), which the caller frees; or NULL with `err` set: as
 * et_open_regular, "PATH: the file shrank while it was being read ...",
 * ET_ERR_NOMEM "PATH: out of memory (reading N bytes)". */
char *et_read_regular(const char *path, size_t *size, et_error *err);

/* Map `path` read-only, lazily, without a size limit, into `mf` and
 * register it as an input in use.  Returns 0, or -1 with `err` set
 * (ET_ERR_IO): "PATH: No such file or directory", "PATH: is a directory,
 * expected a file", "PATH: not a regular file", "PATH: cannot map file:
 * ...", ET_ERR_NOMEM "out of memory" (the registry). */
int et_map_file(et_mapped_file *mf, const char *path, et_error *err);

/* The same with options (`o` NULL: et_map_file's defaults).  A file above
 * o->max_size fails with ET_ERR_FORMAT "PATH: file is N bytes, larger than
 * a FlatBuffer can be (2 GiB)" without being mapped or read. */
int et_map_file_ex(et_mapped_file *mf, const char *path, const et_map_options *o,
                   et_error *err);

/* Unmap (or free) and unregister; `mf` becomes empty.  Safe on an empty
 * or zeroed struct. */
void et_unmap_file(et_mapped_file *mf);

/* Give back the resident pages of a mapped file (madvise MADV_DONTNEED on
 * its whole pages: a private read-only mapping faults them in again from
 * the page cache when read).  Does nothing for a file read into memory
 * (in_memory: those bytes are heap memory, which the advice would zero)
 * or an empty one. */
void et_map_drop_pages(const et_mapped_file *mf);

/* How many input files may be mapped at once; the files mapped beyond it
 * are read into memory.  The environment variable ETINSPECT_MAX_MAPPINGS
 * (a decimal count; 0: read every input into memory) sets it, for tests
 * and for a process that maps much else; by default it is the kernel's
 * vm.max_map_count less 4,096 (half of it when that is below 8,192).
 * Read once, at the first call.  Thread-safe. */
size_t et_map_budget(void);

/* The number of input files mapped now (tests). */
size_t et_maps_live(void);

/* ---- the registry of inputs in use ---------------------------------------- */

/* Register the file at `path` (stat()ed now: its device and inode) as an
 * input in use, for inputs that are read without et_map_file.  `base` and
 * `size` name a mapping of it (NULL, 0: none).  Returns an id > 0 for
 * et_input_release, or -1 with `err` set (ET_ERR_IO: stat's error;
 * ET_ERR_NOMEM).  Thread-safe. */
int et_input_hold(const char *path, const void *base, size_t size, et_error *err);

/* Unregister id (0 or a released id: no-op).  Thread-safe. */
void et_input_release(int id);

/* When (dev, ino) is an input in use: 1, with `err` set (ET_ERR_USAGE)
 * "DEST: refusing to overwrite an input file with output (the input
 * INPUT)", INPUT as it was opened; else 0.  `dest` names the output in the message.  Thread-safe. */
int et_input_guard(const char *dest, uint64_t dev, uint64_t ino, et_error *err);

/* The path of the registered mapping holding `addr`, or NULL.  Async-
 * signal-safe (no lock, no allocation): for a SIGBUS handler. */
const char *et_input_at(const void *addr);

/* The number of inputs in use (tests). */
size_t et_inputs_in_use(void);

#endif
