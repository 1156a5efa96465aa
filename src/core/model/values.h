/*
 * values.h - typed decoding of ETDump Values (spec §2.3, §2.5): Int,
 * Bool, Float, Double, Tensor and TensorList, with tensors as views
 * (tensor.h) into the memory-mapped debug buffer.
 *
 * Interpretation (inflate_runtime_output, spec §2.5), with these
 * differences from the reference:
 *  - strides are honoured (the reference reads the bytes as contiguous);
 *  - without a debug buffer a tensor has its shape and dtype but no data:
 *    reading it is an error ("no debug buffer") where the reference
 *    silently returns a zero-filled tensor;
 *  - an offset or span past the end of the debug buffer, size x dtype
 *    overflowing, negative sizes/strides or a strides vector whose length
 *    is neither 0 nor that of sizes are errors naming the value (the
 *    reference raises a numpy error or reads garbage); an empty strides
 *    vector means contiguous;
 *  - every ScalarType with whole-byte elements is decoded (HALF, BFLOAT16,
 *    the FLOAT8 variants, UINT16/32/64, BITS16 as uint16; QINT8, QUINT8 and
 *    QINT32 as their stored integers); QUINT4X2, QUINT2X4 and undefined
 *    codes are kept with their shape but cannot be read (the reference
 *    raises RuntimeError "Unsupported scalar type").
 * Null and String values decode to ET_VAL_NULL / ET_VAL_STRING with no
 * payload (the reference's None).  A Value whose `val` names a member
 * table that is absent (val=Tensor without `tensor` ...) is an error, as
 * in the reference ("Tensor cannot be None", "Expected Int value, None
 * provided"); the Lua binding turns it into an invalid Tensor or nil with
 * a warning (l_values.h).
 */
#ifndef ET_VALUES_H
#define ET_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "format/etdump.h"
#include "model/model.h"
#include "format/tensor.h"

/* One decoded Value. */
typedef struct et_value {
    et_value_type type;   /* ET_VAL_NULL and ET_VAL_STRING carry nothing */
    bool is_output;       /* Value.output.bool_val (program outputs) */
    int64_t int_val;      /* ET_VAL_INT */
    bool bool_val;        /* ET_VAL_BOOL */
    double float_val;     /* ET_VAL_FLOAT (widened from float32) and ET_VAL_DOUBLE */
    et_tensor tensor;     /* ET_VAL_TENSOR */
    uint32_t n_tensors;   /* ET_VAL_TENSOR_LIST: tensors, read with et_value_list_tensor */
    et_raw_value raw;     /* the raw decode (positions of sizes, strides, tensors) */
    uint32_t pos;         /* the Value table's byte position in the ETDump */
} et_value;

/* The bytes tensors point into: the debug buffer (data NULL, size 0:
 * none). */
typedef struct et_value_buffer {
    const uint8_t *data;
    uint64_t size;
} et_value_buffer;

/* Decode the Value table at `pos` of dump `d`; tensors are checked against
 * `buf`.  `what` names the value in messages (see et_value_label).
 * Returns 0, or -1 with `err` (ET_ERR_FORMAT) naming `what`: a missing
 * member table, a malformed or out-of-bounds tensor (et_tensor_init). */
int et_value_decode(const et_etdump *d, uint32_t pos, et_value_buffer buf, const char *what,
                    et_value *v, et_error *err);

/* Tensor `i` (< v->n_tensors) of a decoded TensorList, as a view; `what`
 * names the list (the message adds "[i]").  Returns 0 or -1 with `err`. */
int et_value_list_tensor(const et_etdump *d, const et_value *v, uint32_t i, et_value_buffer buf,
                         const char *what, et_tensor *t, et_error *err);

/* The debug buffer of an inspector (size 0: none). */
et_value_buffer et_inspector_value_buffer(const et_inspector *insp);

/* Where a value comes from, for messages, e.g.
 *   "event_blocks[2] 'Execute', run 1, events[3] 'native_call_add.out'
 *    (instruction 0), debug_data[1] (run_data[1], Value at byte 4321)"
 * `block`, `run`, `event` and `index` are 0-based and printed 1-based, as
 * the Lua API indexes them (insp.event_blocks[2].events[3], run r of
 * ev:debug_data_of_run(r)); `event` SIZE_MAX for a run output
 * ("run_output[k]").  run_data[i] is the 0-based RunData index in the
 * file, as in the ETDump verifier's messages.  Writes at most `cap` bytes (NUL-terminated). */
void et_value_label(char *out, size_t cap, const et_inspector *insp, size_t block, size_t run,
                    size_t event, uint32_t index, uint32_t pos);

#endif
