/*
 * npy.h - a bounds-checked reader of NumPy's .npy files, giving a tensor
 * view (tensor.h) over the memory-mapped file.
 *
 * The format (numpy/lib/format.py): the magic "\x93NUMPY", a major and a
 * minor version byte, the header length (2 bytes little-endian in version
 * 1.0; 4 bytes in 2.0 and 3.0), the header - a Python dict literal,
 * latin-1 (1.0, 2.0) or UTF-8 (3.0), conventionally ending in '\n' - and
 * then the array's bytes.  The header must hold exactly the keys 'descr'
 * (a dtype string), 'fortran_order' (True or False) and 'shape' (a tuple
 * of non-negative integers), as NumPy requires.
 *
 * Read: descr '<f2' '<f4' '<f8', '<i1'..'<i8', '<u1'..'<u8', '|b1' (or '?')
 * with any byte order ('<', '>', '|', '=' or none: native); a big-endian
 * file on a little-endian host (or the reverse) is byte-swapped into an
 * owned copy, everything else is viewed in place.  fortran_order True is
 * honoured through the view's strides (column-major), so elements read in
 * logical row-major order either way.  At most ET_TENSOR_MAX_DIM
 * dimensions.
 *
 * Refused, with a message naming the problem: a missing or wrong magic,
 * an unknown version, a header running past the end of the file or longer
 * than ET_NPY_MAX_HEADER bytes, a header that is not a dict literal of the
 * three keys (duplicate, missing or extra keys, values of the wrong type,
 * string escapes), structured / object (pickled) / complex / string /
 * datetime dtypes, a negative dimension, an element count or byte size
 * overflowing 64 bits, data shorter than the shape needs.  Trailing bytes
 * after the data are allowed (NumPy ignores them too).
 */
#ifndef ET_NPY_H
#define ET_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "files/mapfile.h"
#include "format/tensor.h"

/* Longest header accepted, in bytes. */
#define ET_NPY_MAX_HEADER 65536

/* Most array bytes copied for byte-swapping (an array in the other byte
 * order is swapped into memory whole; a native one is read in place, page
 * by page): 256 MiB (docs/user-guide.md "Limits"). */
#define ET_NPY_MAX_SWAP ((uint64_t)256 << 20)

typedef struct et_npy {
    et_mapped_file file;   /* when opened with et_npy_open */
    uint8_t *owned;        /* a byte-swapped copy of the data, or NULL */
    et_tensor tensor;      /* the array (valid while the et_npy is open) */
    int major, minor;      /* format version */
    char descr[16];        /* the dtype string as written, e.g. "<f4" */
    bool fortran_order;
    bool byte_swapped;     /* the data was swapped into `owned` */
    uint64_t data_offset;  /* bytes before the array data */
} et_npy;

/* Parse a .npy file held in `data` (`size` bytes, which must stay valid
 * while `n` is used: the view points into them unless the data was
 * byte-swapped).  Returns 0 with `n` ready, or -1 with `err` set
 * (ET_ERR_FORMAT; ET_ERR_NOMEM when a byte-swapped copy cannot be made),
 * e.g. "not a .npy file (no \x93NUMPY magic)", "header: 'shape': expected
 * a tuple of integers, found '3'", "descr '<c8': complex arrays are not
 * supported", "the data needs 24 bytes after the header, the file has 16",
 * "descr '>f4': 536870912 bytes in the other byte order, more than the
 * 268435456 that are byte-swapped in memory (ET_NPY_MAX_SWAP)".
 * Release with et_npy_close(). */
int et_npy_parse(et_npy *n, const uint8_t *data, size_t size, et_error *err);

/* Map the file at `path` and parse it as et_npy_parse does.  Errors are
 * prefixed with the path ("h_3.npy: not a .npy file ..."; ET_ERR_IO when
 * it cannot be opened: "h_3.npy: No such file or directory"). */
int et_npy_open(et_npy *n, const char *path, et_error *err);

/* Free the copy, unmap the file; `n` becomes empty.  Safe on a zeroed
 * struct. */
void et_npy_close(et_npy *n);

/* The NumPy dtype string of a ScalarType, little-endian ("<f4", "|b1",
 * "<u2" ...), for writing .npy files; NULL for types NumPy cannot hold
 * (bfloat16, float8, quantized, sub-byte). */
const char *et_npy_descr(int scalar_type);

#endif
