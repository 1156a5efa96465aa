/* values.c - typed decoding of ETDump Values; see values.h. */
#include "model/values.h"

#include <stdio.h>
#include <string.h>

static const char *val_name(et_value_type t)
{
    static const char *const n[] = {"Null", "Int", "Bool", "Float", "Double",
                                    "Tensor", "TensorList", "String"};
    return (unsigned)t < 8 ? n[t] : "unknown";
}

/* The Value member table a type needs. */
static const char *member_name(et_value_type t)
{
    static const char *const n[] = {"", "int_value", "bool_value", "float_value",
                                    "double_value", "tensor", "tensor_list", ""};
    return (unsigned)t < 8 ? n[t] : "";
}

/* A tensor view of the tensor fields of `rv`. */
static int raw_tensor(const et_etdump *d, const et_raw_value *rv, et_value_buffer buf,
                      const char *what, et_tensor *t, et_error *err)
{
    int64_t sizes[ET_TENSOR_MAX_DIM], strides[ET_TENSOR_MAX_DIM];
    uint32_t nd = rv->sizes.count, ns = rv->strides.count;
    if (nd > ET_TENSOR_MAX_DIM)
        return et_fail(err, ET_ERR_FORMAT, "%s: %u dimensions (at most %d are supported)", what,
                       nd, ET_TENSOR_MAX_DIM);
    if (ns != 0 && ns != nd)
        return et_fail(err, ET_ERR_FORMAT, "%s: %u strides for %u dimensions", what, ns, nd);
    for (uint32_t i = 0; i < nd; i++) {
        sizes[i] = et_etdump_i64_at(d, &rv->sizes, i);
        if (ns)
            strides[i] = et_etdump_i64_at(d, &rv->strides, i);
    }
    return et_tensor_init(t, rv->scalar_type, nd, sizes, ns ? strides : NULL, buf.data,
                          buf.data ? buf.size : 0, rv->offset, what, err);
}

int et_value_decode(const et_etdump *d, uint32_t pos, et_value_buffer buf, const char *what,
                    et_value *v, et_error *err)
{
    memset(v, 0, sizeof *v);
    v->pos = pos;
    et_etdump_value(d, pos, &v->raw);
    const et_raw_value *r = &v->raw;
    v->type = r->val;
    v->is_output = r->is_output;
    bool present = true;
    switch (r->val) {
    case ET_VAL_NULL:
    case ET_VAL_STRING:
        return 0;
    case ET_VAL_INT:
        present = r->has_int;
        v->int_val = r->int_val;
        break;
    case ET_VAL_BOOL:
        present = r->has_bool;
        v->bool_val = r->bool_val;
        break;
    case ET_VAL_FLOAT:
        present = r->has_float;
        v->float_val = r->float_val;
        break;
    case ET_VAL_DOUBLE:
        present = r->has_double;
        v->float_val = r->double_val;
        break;
    case ET_VAL_TENSOR:
        if (!r->has_tensor)
            return et_fail(err, ET_ERR_FORMAT,
                           "%s: a Value of type Tensor without its tensor table", what);
        return raw_tensor(d, r, buf, what, &v->tensor, err);
    case ET_VAL_TENSOR_LIST:
        present = r->has_tensor_list;
        v->n_tensors = r->tensors.count;
        break;
    default:
        return et_fail(err, ET_ERR_FORMAT, "%s: unknown value type %d", what, (int)r->val);
    }
    if (!present)
        return et_fail(err, ET_ERR_FORMAT, "%s: a Value of type %s without its %s table", what,
                       val_name(r->val), member_name(r->val));
    return 0;
}

int et_value_list_tensor(const et_etdump *d, const et_value *v, uint32_t i, et_value_buffer buf,
                         const char *what, et_tensor *t, et_error *err)
{
    char w[512];
    snprintf(w, sizeof w, "%s[%u]", what, i + 1);
    if (v->type != ET_VAL_TENSOR_LIST || i >= v->n_tensors)
        return et_fail(err, ET_ERR_VALUE, "%s: no such tensor", w);
    et_raw_value rt;
    et_etdump_list_tensor(d, &v->raw, i, &rt);
    if (!rt.has_tensor)
        return et_fail(err, ET_ERR_FORMAT, "%s: missing tensor table", w);
    return raw_tensor(d, &rt, buf, w, t, err);
}

et_value_buffer et_inspector_value_buffer(const et_inspector *insp)
{
    et_value_buffer b = {NULL, 0};
    if (insp->debug_buffer.size) {
        b.data = insp->debug_buffer.data;
        b.size = insp->debug_buffer.size;
    }
    return b;
}

void et_value_label(char *out, size_t cap, const et_inspector *insp, size_t block, size_t run,
                    size_t event, uint32_t index, uint32_t pos)
{
    const et_block *b = &insp->blocks[block];
    uint32_t rd = run < b->n_runs ? b->runs[run] : 0;
    if (event == SIZE_MAX) {
        snprintf(out, cap, "event_blocks[%zu] '%.*s', run %zu, run_output[%u] (run_data[%u], "
                           "Value at byte %u)",
                 block + 1, (int)b->name.n, b->name.p ? b->name.p : "", run + 1, index + 1, rd,
                 pos);
        return;
    }
    const et_event *ev = &b->events[event];
    et_str nm = et_event_name(ev);
    snprintf(out, cap,
             "event_blocks[%zu] '%.*s', run %zu, events[%zu] '%.*s' (instruction %d), "
             "debug_data[%u] (run_data[%u], Value at byte %u)",
             block + 1, (int)b->name.n, b->name.p ? b->name.p : "", run + 1, event + 1,
             (int)nm.n, nm.p ? nm.p : "", (int)ev->instruction_id, index + 1, rd, pos);
}
