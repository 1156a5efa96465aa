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

#include "base/error.h"

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

/* The default broadcast budget: the most elements a view may have when
 * zero strides repeat its bytes (docs/user-guide.md "Limits"). */
#define ET_TENSOR_MAX_BROADCAST ((uint64_t)1 << 20)

/* Make a view.  `sizes`/`strides` have `ndim` entries (strides NULL:
 * contiguous row-major).  `base`/`base_size` are the bytes the tensor lives
 * in (NULL, 0: none available - the view then knows its shape and dtype
 * but has no data); `offset` is the byte offset of element 0 in them (-1
 * with numel 0: an empty tensor; spec §2.5).  Checks, with `err` set
 * (ET_ERR_FORMAT) and -1 returned: ndim above ET_TENSOR_MAX_DIM, negative
 * sizes or strides, numel, numel * element size or the byte span above
 * INT64_MAX ("N elements of 8 bytes overflow 64 bits": byte counts are
 * int64, so nbytes is never negative), an offset or offset + span past
 * base_size ("offset 4100 + 64 bytes runs past the end of the debug buffer
 * (4184 bytes)").  Work stays proportional to the bytes: a view with data
 * may name more elements than the bytes from `offset` hold only through
 * broadcasting (size > 1, stride 0; its other dimensions must fit in the
 * bytes) and only up to et_tensor_max_broadcast() elements ("sizes [N]
 * with strides [0] broadcast N elements from 4 bytes, more than the
 * broadcast budget of 1048576 elements ..."); overlapping non-zero strides
 * that repeat elements beyond the bytes are refused ("... only a zero
 * stride may repeat elements").  So every element loop over a readable
 * view runs at most max(base_size / elem_size, the budget) times.  An
 * unknown or unreadable scalar type is not an error here: elem_size is 0
 * and reads fail.  `what` names the tensor in messages (e.g.
 * "run_data[1].events[3].debug_event"). */
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

/* ---- additions (tensor.c) ---------------------------------------------- */

/* ScalarType codes (spec §2.3). */
enum {
    ET_ST_BYTE = 0, ET_ST_CHAR = 1, ET_ST_SHORT = 2, ET_ST_INT = 3, ET_ST_LONG = 4,
    ET_ST_HALF = 5, ET_ST_FLOAT = 6, ET_ST_DOUBLE = 7, ET_ST_BOOL = 11, ET_ST_QINT8 = 12,
    ET_ST_QUINT8 = 13, ET_ST_QINT32 = 14, ET_ST_BFLOAT16 = 15, ET_ST_QUINT4X2 = 16,
    ET_ST_QUINT2X4 = 17, ET_ST_BITS16 = 22, ET_ST_FLOAT8E5M2 = 23, ET_ST_FLOAT8E4M3FN = 24,
    ET_ST_FLOAT8E5M2FNUZ = 25, ET_ST_FLOAT8E4M3FNUZ = 26, ET_ST_UINT16 = 27,
    ET_ST_UINT32 = 28, ET_ST_UINT64 = 29
};

/* Kind of element a readable ScalarType holds. */
typedef enum {
    ET_ELEM_NONE = 0, /* unknown or not byte-addressable: cannot be read */
    ET_ELEM_BOOL,     /* BOOL: one byte, non-zero is true */
    ET_ELEM_SIGNED,   /* CHAR SHORT INT LONG, QINT8 QINT32 (their stored integers) */
    ET_ELEM_UNSIGNED, /* BYTE UINT16 UINT32 UINT64 BITS16, QUINT8 */
    ET_ELEM_FLOAT     /* HALF FLOAT DOUBLE BFLOAT16 FLOAT8* */
} et_elem_kind;

/* The element kind of a ScalarType (ET_ELEM_NONE when unreadable). */
et_elem_kind et_scalar_type_kind(int st);

/* The ScalarType named `name`: a NumPy dtype name ("float32", "int64",
 * "bool", "float16", "bfloat16", "uint16" -> UINT16 ...) or a ScalarType
 * name ("FLOAT", "QINT8", "FLOAT8E4M3FN", "QUINT4x2" ...).  Returns the code,
 * or -1 when the name is unknown. */
int et_scalar_type_from_name(const char *name);

/* A printable name for a ScalarType: its NumPy dtype name, else its
 * ScalarType name, else "scalar_type_N".  `buf` (>= 24 bytes) receives it
 * when the type is undefined; the result points to `buf` or static text. */
const char *et_scalar_type_label(int st, char *buf);

/* The same as et_tensor_init, with `buffer_name` naming `base` in messages
 * ("debug buffer", "tensor data", ...). */
int et_tensor_init_in(et_tensor *t, int scalar_type, uint32_t ndim, const int64_t *sizes,
                      const int64_t *strides, const uint8_t *base, uint64_t base_size,
                      int64_t offset, const char *what, const char *buffer_name, et_error *err);

/* Why the elements cannot be read: NULL when they can (numel 0 included),
 * "no debug buffer" when there are elements but no bytes, "scalar type X
 * cannot be read" (sub-byte or unknown types). */
const char *et_tensor_unreadable(const et_tensor *t, char *buf, size_t cap);

/* The broadcast budget in force (process-wide; default
 * ET_TENSOR_MAX_BROADCAST): the most elements a view whose zero strides
 * repeat bytes may have (et_tensor_init), and the most element pairs a
 * broadcast of two tensors may expand to (numeric.h). */
uint64_t et_tensor_max_broadcast(void);

/* Set the broadcast budget to `n` elements (0: back to the default).
 * Returns the previous budget.  Views made before keep their shape. */
uint64_t et_tensor_set_max_broadcast(uint64_t n);

/* Whether the view is contiguous row-major (every stride as a contiguous
 * tensor of its sizes would have; size-1 dimensions ignored; an empty
 * view is contiguous).  Overflow-free for any sizes. */
bool et_tensor_is_contiguous(const et_tensor *t);

/* Read `n` elements from flat index `first` (logical row-major) into `out`
 * as doubles / int64s (the same conversions as et_tensor_get_f64 /
 * et_tensor_get_i64; UINT64 values above INT64_MAX keep their bits).
 * Returns 0, or -1 (not readable, range outside 0..numel, or for _i64 a
 * floating type). */
int et_tensor_read_f64(const et_tensor *t, uint64_t first, uint64_t n, double *out);
int et_tensor_read_i64(const et_tensor *t, uint64_t first, uint64_t n, int64_t *out);

/* Copy the elements' bytes in logical row-major order, contiguous, into
 * `out` (numel * elem_size bytes).  Returns 0 or -1 (not readable). */
int et_tensor_copy_bytes(const et_tensor *t, uint8_t *out);

/* Statistics over every element (strides honoured).  NaN propagates to
 * min, max, sum, mean and std as in NumPy; std is the population standard
 * deviation (ddof 0); sums are computed in double precision (compensated)
 * for floating types and exactly in int64 for integer types while they
 * fit.  For an empty tensor count is 0, sum 0, mean/std/min/max NaN. */
typedef struct et_tensor_stats {
    uint64_t count;      /* numel */
    uint64_t nan_count;  /* NaN elements (floating types) */
    uint64_t inf_count;  /* +-Inf elements (floating types) */
    double min, max, sum, mean, std;
    /* integer and bool types: exact values (is_int true) */
    bool is_int;
    bool is_unsigned;    /* UINT64: imin/imax hold uint64 bits */
    int64_t imin, imax;
    bool isum_exact;     /* isum is the exact sum (no int64 overflow) */
    int64_t isum;
} et_tensor_stats;

/* Compute the statistics of a readable view.  Returns 0 or -1 (not
 * readable; out of memory never happens: no allocation). */
int et_tensor_stats_compute(const et_tensor *t, et_tensor_stats *s);

/* Encode `v` as one element of scalar type `st` at `out` (elem_size
 * bytes): floats rounded to nearest even (overflow to inf, or NaN for
 * the FN/FNUZ float8 types that have no infinity), integers must be in
 * range of the type and integral.  Returns 0, or -1 (unreadable type, a
 * value out of range or not integral for an integer type). */
int et_tensor_encode_f64(int st, double v, uint8_t *out);

/* Encode an integer for an integer or bool type (any for floats, converted).
 * Returns 0 or -1 (out of range, unreadable type). */
int et_tensor_encode_i64(int st, int64_t v, uint8_t *out);

/* IEEE half / bfloat16 bits to double, and back (round to nearest even). */
double et_half_to_double(uint16_t h);
uint16_t et_double_to_half(double v);
uint16_t et_double_to_bfloat16(double v);

/* A float8 byte of ScalarType `st` (FLOAT8E5M2 ... FLOAT8E4M3FNUZ) to double. */
double et_float8_to_double(int st, uint8_t b);

#endif
