/*
 * graph.h - a serialized exported program (the JSON of an ETRecord's
 * `edge_dialect_exported_program`, `exported_program` or graph_map entries,
 * spec §5.3), read into the operator nodes the Inspector links events to
 * (spec §5.9), without PyTorch.
 *
 * Both layouts ExecuTorch has written are read:
 *  - 2023 (schema_version 1, an integer): nodes have no "name" and unions
 *    list every variant key, all null but one;
 *  - current (schema_version {"major": 5, "minor": ...}): unions are
 *    one-key objects; nodes have a "name" (early-2025 documents may not).
 * A node without a "name" is named as torch.fx's deserializer names it: a
 * node whose "outputs" is exactly one {"as_tensor": {"name": N}} is named N;
 * any other gets a name generated from its target (see et_graph_parse).
 * `memory.alloc` nodes are skipped (spec §5.5); getitem nodes do not exist
 * in the JSON.  Placeholders and the output node are not nodes of the JSON
 * either (the graph's inputs and outputs are listed separately).
 */
#ifndef ET_GRAPH_H
#define ET_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/jarena.h"
#include "format/jsondoc.h"

/* One entry of a node's nn_module_stack: key -> (path, type). */
typedef struct et_module_entry {
    char *key;  /* e.g. "L__self___conv1" */
    char *path; /* e.g. "L['self'].conv1" */
    char *type; /* e.g. "torch.nn.modules.conv.Conv2d" */
} et_module_entry;

/* One operator node.  Strings are NUL-terminated, NULL when absent, and
 * owned by the graph (its JSON strings, or its arena): never free them. */
typedef struct et_graph_node {
    char *name;            /* the node's name (without the Inspector's trailing "_");
                              never NULL */
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
    char *source_fn_name;  /* the last source_fn_stack entry "name,target" split
                              at its top-level ',' (not inside () or []): "name" */
    char *source_fn_type;  /* ... and "target"; both NULL when source_fn_stack is
                              absent or its last entry has not exactly 2 parts */
    int32_t module_group;  /* the Inspector's module subgraph (enable_module_hierarchy):
                              the 0-based index, in first-seen graph order, of the
                              node's (source_fn_name, source_fn_type) pair among the
                              nodes that have both that pair and an nn_module_stack
                              string (well formed or not); -1 for any other node */
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
    size_t *by_name;                /* n_nodes node indices sorted by (name as strcmp
                                       orders it, graph order) */
    size_t n_module_groups;         /* distinct module_group values (0..n-1) */
    /* storage (internal): the JSON's strings, which the node strings point
     * into, and an arena for lists, module stacks and generated names */
    char *strings;
    size_t strings_bytes;
    et_jarena arena;
} et_graph;

/* Parse the JSON of a serialized exported program (`json`, `len` bytes;
 * `label` names it in messages, e.g. "etrecord.bin:edge_dialect_exported_program").
 * Returns a graph to free with et_graph_free: its nodes in graph order
 * (memory.alloc nodes skipped), the graph's input and output names, and the
 * by_handle and by_name indexes.
 *
 * Node names: a node's JSON "name" when it is a string; else, as torch.fx's
 * deserializer does, N when the node's "outputs" array has exactly one entry
 * and it is {"as_tensor": {"name": N}}; else a name generated from the
 * target the way torch.fx's namespace does: et_graph_op_of_target(target),
 * "_" inserted before each uppercase letter that follows a lowercase one,
 * lowercased, each run of characters other than [A-Za-z0-9_] replaced by
 * one "_" ("_unnamed" if empty, "_" prefixed if it starts with a digit) -
 * e.g. "aten_max_pool2d_with_indices_default".  A generated name already
 * used by a graph input or an earlier node takes the suffix "_1", "_2", ...:
 * the first free one after the base's counter, as torch.fx's namespace
 * keeps it (the last number given to the base, or taken by an input or
 * earlier node named "<base>_<N>"; a generated name that already ends in
 * "_<digits>" has the part before as its base and is tried first as it is).
 * Graph output names and the outputs of multi-output nodes are not node
 * names.  Names read from the JSON (node names, single tensor outputs,
 * graph inputs) are never changed, so duplicates among them are kept.
 *
 * The JSON is read with jsondoc.h (no budget but its ceilings; a record's
 * programs are parsed under the record's budget by et_etrecord_graph).
 *
 * Errors (NULL returned, `err` set): ET_ERR_FORMAT for JSON syntax (with
 * line and column), nesting too deep, or a document of the wrong shape (no
 * graph_module.graph.nodes array, a node that is not an object or has no
 * string target), naming the node index and key; ET_ERR_NOMEM.  A malformed
 * nn_module_stack is kept as raw text with has_module_stack false; a
 * debug_handle that is not a decimal integer leaves has_debug_handle false. */
et_graph *et_graph_parse(const char *json, size_t len, const char *label, et_error *err);

/* The graph of a parsed document (jsondoc.h), as et_graph_parse builds it
 * (same nodes, names, indexes and shape errors, labelled `label`).  The
 * graph takes the document's strings (et_jsondoc_take_strings): free the
 * document with et_jsondoc_free afterwards, whatever the result.  Memory:
 * the strings, plus about 180 bytes per node and 8 per name listed.
 * Returns the graph, or NULL with `err` set. */
et_graph *et_graph_from_doc(et_jsondoc *d, const char *label, et_error *err);

/* Free a graph and everything it owns (node strings, lists, indexes);
 * NULL is accepted. */
void et_graph_free(et_graph *g);

/* The node named `name` (the first in graph order when several share it),
 * or NULL when none is; O(log n) through g->by_name.  `g` and `name` must
 * not be NULL. */
const et_graph_node *et_graph_find(const et_graph *g, const char *name);

/* The nodes with debug handle `handle`, in graph order: returns their
 * number and sets *first to the first entry of g->by_handle (the others
 * follow it); *first may be NULL when the number is 0. */
size_t et_graph_by_handle(const et_graph *g, int64_t handle, const struct et_graph_handle **first);

/* The operator name of a target, spec §5.9: the remainder after
 * "executorch.exir.dialects.edge.ops." or "executorch.exir.dialects.backend.ops.",
 * the remainder after "torch.ops.<namespace>.", else the last dotted
 * component.  Returns a pointer into `target`. */
const char *et_graph_op_of_target(const char *target);

#endif
