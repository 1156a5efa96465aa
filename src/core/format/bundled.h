/*
 * bundled.h - reading an ExecuTorch BundledProgram (.bpte, file identifier
 * "BP08") in place: its method test suites, their test cases, and each
 * case's inputs and expected outputs as typed values (spec §7.6;
 * schema/bundled_program.fbs; docs/bundled-program.md).
 *
 * et_bundled_open() detects the layout (plain - what ExecuTorch writes -
 * or size-prefixed), checks the identifier and verifies the whole buffer
 * once: every table, vector and string, every Value's union type and
 * member, and every Tensor's shape against its inline bytes.  After that
 * the accessors below read in place; they stay bounds-checked, but a
 * verified buffer never makes them fall back.  The embedded program bytes
 * are bounds-checked and otherwise left alone.
 *
 * Required here (the runtime dereferences them unchecked, so a file
 * without them cannot be used): BundledMethodTestSuite.method_name,
 * Value.val (a member of the union; NONE is refused), Tensor.sizes.
 * Absent vectors read as empty: method_test_suites, test_cases, inputs,
 * expected_outputs, Tensor.data (then the tensor must have no elements)
 * and Tensor.dim_order (then the tensor is contiguous).
 *
 * Errors name the file, the field path and the byte offset, e.g.
 *   "prog.bpte: method_test_suites[0].test_cases[3].expected_outputs[0].val:
 *    byte 1234: Tensor INT[2, 2] needs 16 bytes of data, 'data' has 8"
 */
#ifndef ET_BUNDLED_H
#define ET_BUNDLED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "format/etdump.h" /* et_str, et_scalar_type_* */
#include "format/fb.h"
#include "files/mapfile.h"
#include "format/tensor.h"

/* Field slots (schema/bundled_program.fbs). */
enum {
    ETB_BP_VERSION = 0, ETB_BP_SUITES = 1, ETB_BP_PROGRAM = 2,
    ETB_SUITE_METHOD = 0, ETB_SUITE_CASES = 1,
    ETB_CASE_INPUTS = 0, ETB_CASE_EXPECTED = 1,
    ETB_VALUE_TYPE = 0, ETB_VALUE_VAL = 1,
    ETB_TENSOR_SCALAR_TYPE = 0, ETB_TENSOR_SIZES = 1, ETB_TENSOR_DATA = 2,
    ETB_TENSOR_DIM_ORDER = 3,
    ETB_SCALAR_VAL = 0 /* Int.int_val, Bool.bool_val, Double.double_val */
};

/* Value.val_type (ValueUnion). */
typedef enum {
    ET_BVAL_NONE = 0, ET_BVAL_TENSOR = 1, ET_BVAL_INT = 2, ET_BVAL_BOOL = 3,
    ET_BVAL_DOUBLE = 4
} et_bvalue_kind;

/* An opened, verified BundledProgram. */
typedef struct et_bundled {
    et_mapped_file file;   /* when opened with et_bundled_open_path */
    char *path;            /* that path (owned), or NULL */
    fb_buf buf;
    bool size_prefixed;
    uint32_t version;      /* BundledProgram.version (0 when absent) */
    fb_vec suites;         /* method_test_suites (count 0 when absent) */
    fb_vec program;        /* the embedded program's bytes (count 0 when absent) */
    uint64_t num_values;   /* inputs + expected outputs, over all test cases */
    uint64_t num_tensors;  /* of which Tensors */
} et_bundled;

/* One BundledMethodTestSuite. */
typedef struct et_bundled_suite {
    et_str method_name;    /* always present once verified */
    fb_vec test_cases;     /* count 0 when absent */
} et_bundled_suite;

/* One BundledMethodTestCase. */
typedef struct et_bundled_case {
    fb_vec inputs;           /* Value tables; count 0 when absent */
    fb_vec expected_outputs; /* Value tables; count 0 when absent */
} et_bundled_case;

/* One Value, decoded. */
typedef struct et_bvalue {
    et_bvalue_kind kind;
    uint32_t pos;          /* the member table (for messages) */
    int64_t int_val;       /* ET_BVAL_INT */
    bool bool_val;         /* ET_BVAL_BOOL */
    double double_val;     /* ET_BVAL_DOUBLE */
    /* ET_BVAL_TENSOR */
    int scalar_type;       /* ScalarType code (BYTE 0 when absent) */
    fb_vec sizes;          /* int32 elements */
    fb_vec data;           /* bytes; count 0 when absent */
    fb_vec dim_order;      /* bytes; count 0 when absent (contiguous) */
} et_bvalue;

/* Open a BundledProgram held in `data` (`size` bytes, which must stay
 * valid while `bp` is used): detect the layout, check the identifier
 * "BP08" and verify everything (see the top of this file).  Returns 0 with
 * `bp` ready, or -1 with `err` set (ET_ERR_FORMAT) to a message naming the
 * field path and byte offset (not the file: the caller prefixes it).
 * Release with et_bundled_close(). */
int et_bundled_open(et_bundled *bp, const uint8_t *data, size_t size, et_error *err);

/* Map the file at `path` read-only and open it as by et_bundled_open.
 * Returns the program (free with et_bundled_free), or NULL with `err` set:
 * ET_ERR_IO (cannot open or map: "PATH: No such file or directory"),
 * ET_ERR_FORMAT ("PATH: method_test_suites[0]...: byte N: ..."), or
 * ET_ERR_NOMEM. */
et_bundled *et_bundled_open_path(const char *path, et_error *err);

/* Release what et_bundled_open allocated (nothing today) and unmap a file
 * mapped by et_bundled_open_path; `bp` becomes empty.  Safe on a zeroed
 * struct. */
void et_bundled_close(et_bundled *bp);

/* Close and free a program from et_bundled_open_path; NULL is accepted. */
void et_bundled_free(et_bundled *bp);

/* Number of method test suites. */
static inline uint32_t et_bundled_num_suites(const et_bundled *bp) { return bp->suites.count; }

/* Suite `i` (< et_bundled_num_suites) into `s` (empty when out of range). */
void et_bundled_suite_at(const et_bundled *bp, uint32_t i, et_bundled_suite *s);

/* Index of the suite whose method_name is `method` (NUL-terminated), or -1. */
int32_t et_bundled_find_suite(const et_bundled *bp, const char *method);

/* The suite whose expected outputs are reference outputs: the one named
 * "forward", else the only suite there is; -1 when there is none (no
 * suites, or several and none is "forward"). */
int32_t et_bundled_reference_suite(const et_bundled *bp);

/* Test case `i` of suite `s` into `c` (empty when out of range). */
void et_bundled_case_at(const et_bundled *bp, const et_bundled_suite *s, uint32_t i,
                        et_bundled_case *c);

/* Value `i` of a vector of Values (a case's inputs or expected_outputs)
 * into `v` (kind ET_BVAL_NONE when out of range). */
void et_bundled_value(const et_bundled *bp, const fb_vec *values, uint32_t i, et_bvalue *v);

/* Dimension `i` of a Tensor value (0 when out of range). */
static inline int32_t et_bundled_size_at(const et_bundled *bp, const et_bvalue *v, uint32_t i)
{
    if (i >= v->sizes.count)
        return 0;
    return (int32_t)fb_ld_u32(bp->buf.data + v->sizes.pos + 4u * i);
}

/* A tensor view (tensor.h) of a Tensor value: its scalar type and sizes,
 * strides derived from dim_order (contiguous when absent), and the
 * elements read from the value's inline `data` bytes inside the mapped
 * file (the view is valid while `bp` is open).  `what` names the value in
 * messages.  Returns 0, or -1 with `err` set (ET_ERR_VALUE: not a Tensor;
 * ET_ERR_FORMAT: what et_tensor_init refuses - never for a verified
 * program). */
int et_bundled_tensor(const et_bundled *bp, const et_bvalue *v, et_tensor *t, const char *what,
                      et_error *err);

#endif
