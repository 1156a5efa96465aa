/*
 * tensor.h - a tensor view: scalar type, shape and strides over bytes
 * that live elsewhere (the memory-mapped debug buffer of an ETDump, or a
 * BundledProgram's inline tensor data), with every element access checked
 * against those bytes (spec §2.3-§2.5).
 *
 * Strides are honoured (the reference reinterprets the bytes as contiguous
 * and ignores them), so a transposed tensor reads correctly.  Elements are
 * addressed in logical row-major order (flat index 0 .. numel-1).
 *
 * (Contract written by the lead; tensor.c implements it.)
 */
#ifndef ET_TENSOR_H
#define ET_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Dimensions a tensor may have; more is an error (hostile input). */
#define ET_TENSOR_MAX_DIM 16

typedef struct et_tensor {
    int scalar_type;                    /* ExecuTorch ScalarType code (spec §2.3) */
    int elem_size;                      /* bytes per element (et_scalar_type_size);
                                           0 when the type cannot be read */
    uint32_t ndim;                      /* <= ET_TENSOR_MAX_DIM; 0 for a scalar */
    int64_t sizes[ET_TENSOR_MAX_DIM];
    int64_t strides[ET_TENSOR_MAX_DIM]; /* in elements */
    uint64_t numel;                     /* product of sizes (1 for ndim 0) */
    const uint8_t *data;                /* element [0,...,0], or NULL when there are
                                           no bytes to read (no debug buffer, an
                                           empty tensor) */
    uint64_t span;                      /* bytes at `data` the view may touch */
} et_tensor;

/* Make a view.  `sizes`/`strides` have `ndim` entries (strides NULL:
 * contiguous row-major).  `base`/`base_size` are the bytes the tensor lives
 * in (NULL, 0: none available - the view then knows its shape and dtype
 * but has no data); `offset` is the byte offset of element 0 in them (-1
 * with numel 0: an empty tensor; spec §2.5).  Checks, with `err` set
 * (ET_ERR_FORMAT) and -1 returned: ndim above ET_TENSOR_MAX_DIM, negative
 * sizes or strides, numel or the byte span overflowing 64 bits, an offset
 * or offset + span past base_size ("offset 4100 + 64 bytes runs past the
 * end of the debug buffer (4184 bytes)").  An unknown or unreadable scalar
 * type is not an error here: elem_size is 0 and reads fail.  `what` names
 * the tensor in messages (e.g. "run_data[1].events[3].debug_event"). */
int et_tensor_init(et_tensor *t, int scalar_type, uint32_t ndim, const int64_t *sizes,
                   const int64_t *strides, const uint8_t *base, uint64_t base_size,
                   int64_t offset, const char *what, et_error *err);

/* Whether the elements can be read (data present and a readable type). */
bool et_tensor_readable(const et_tensor *t);

/* Element `flat` (logical row-major) as a double (bool 0/1, integers
 * converted, HALF/BFLOAT16/FLOAT8 decoded).  Returns 0, or -1 (not
 * readable, index out of range). */
int et_tensor_get_f64(const et_tensor *t, uint64_t flat, double *out);

/* Element `flat` as an int64 when the type is an integer or bool type;
 * returns 0, or -1 (not an integer type, not readable, out of range). */
int et_tensor_get_i64(const et_tensor *t, uint64_t flat, int64_t *out);

#endif
