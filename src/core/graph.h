/*
 * graph.h - a serialized exported program (the JSON of an ETRecord's
 * `edge_dialect_exported_program`, `exported_program` or graph_map entries,
 * spec §5.3), read into the operator nodes the Inspector links events to
 * (spec §5.9), without PyTorch.
 *
 * Both layouts ExecuTorch has written are read:
 *  - 2023 (schema_version 1, an integer): nodes have no "name" (a node is
 *    named after its first output, as torch's deserializer names it) and
 *    unions list every variant key, all null but one;
 *  - current (schema_version {"major": 5, "minor": ...}): nodes have a
 *    "name"; unions are one-key objects.
 * `memory.alloc` nodes are skipped (spec §5.5); getitem nodes do not exist
 * in the JSON.  Placeholders and the output node are not nodes of the JSON
 * either (the graph's inputs and outputs are listed separately).
 */
#ifndef ET_GRAPH_H
#define ET_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* One entry of a node's nn_module_stack: key -> (path, type). */
typedef struct et_module_entry {
    char *key;  /* e.g. "L__self___conv1" */
    char *path; /* e.g. "L['self'].conv1" */
    char *type; /* e.g. "torch.nn.modules.conv.Conv2d" */
} et_module_entry;

/* One operator node. Strings are NUL-terminated copies; NULL when absent. */
typedef struct et_graph_node {
    char *name;            /* the node's name (without the Inspector's trailing "_") */
    char *target;          /* e.g. "executorch.exir.dialects.edge.ops.aten.mul.Tensor" */
    char *op;              /* derived as spec §5.9: "aten.mul.Tensor" */
    bool has_debug_handle; /* metadata.debug_handle present and an integer */
    int64_t debug_handle;
    char *stack_trace;     /* metadata.stack_trace */
    bool has_module_stack; /* metadata.nn_module_stack present and well formed */
    size_t n_module_stack;
    et_module_entry *module_stack;
    char *nn_module_stack; /* the raw text, also when malformed */
    char *source_fn_stack; /* raw text: "name,target;..." */
    char *from_node;       /* raw text (JSON of the provenance records) */
    size_t n_inputs;
    char **inputs;         /* names of the tensors it reads, in argument order */
    size_t n_outputs;
    char **outputs;        /* names of the values it produces */
} et_graph_node;

typedef struct et_graph {
    int schema_major, schema_minor; /* 2023 records: 1, 0 */
    size_t n_nodes;
    et_graph_node *nodes;           /* in graph order */
    size_t n_inputs, n_outputs;
    char **inputs, **outputs;       /* the graph's input and output names */
    size_t n_by_handle;
    struct et_graph_handle {
        int64_t handle;
        size_t node;
    } *by_handle;                   /* nodes with a debug handle, sorted by (handle, order) */
} et_graph;

/* Parse the JSON of a serialized exported program (`json`, `len` bytes;
 * `label` names it in messages, e.g. "etrecord.bin:edge_dialect_exported_program").
 * Errors (NULL returned, `err` set): ET_ERR_FORMAT for JSON syntax (with
 * line and column), nesting too deep, or a document of the wrong shape (no
 * graph_module.graph.nodes array, a node that is not an object or has no
 * string target, an unnamed node without an output name), naming the node
 * index and key; ET_ERR_NOMEM.  A malformed nn_module_stack is kept as raw
 * text with has_module_stack false; a debug_handle that is not a decimal
 * integer leaves has_debug_handle false. */
et_graph *et_graph_parse(const char *json, size_t len, const char *label, et_error *err);

/* Free a graph; NULL is accepted. */
void et_graph_free(et_graph *g);

/* The node named `name` (first in graph order), or NULL. */
const et_graph_node *et_graph_find(const et_graph *g, const char *name);

/* The nodes with debug handle `handle`, in graph order: returns their
 * number and sets *first to the first entry of g->by_handle (the others
 * follow it). */
size_t et_graph_by_handle(const et_graph *g, int64_t handle, const struct et_graph_handle **first);

/* The operator name of a target, spec §5.9: the remainder after
 * "executorch.exir.dialects.edge.ops." or "executorch.exir.dialects.backend.ops.",
 * the remainder after "torch.ops.<namespace>.", else the last dotted
 * component.  Returns a pointer into `target`. */
const char *et_graph_op_of_target(const char *target);

#endif
