/*
 * test_graph.c - unit tests for graph.c: serialized exported programs in
 * the 2023 and current layouts (spec §5.3, §5.9), the names torch.fx gives
 * nodes without a "name", lookup by name, module groups (source_fn_stack,
 * nn_module_stack), a 20 000-node graph, malformed documents, the seeds of
 * tests/graph/ ($ET_SRC, else the current directory; skipped when absent)
 * and the programs of the corpus's 2023 ETRecord read through etrecord.c
 * ($ET_SHARED/corpus/etdump/repo_example_etrecord_v0_2023.bin; skipped
 * when absent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/etrecord.h"
#include "format/graph.h"
#include "tap.h"

/* A 2023 node (schema_version 1): no "name", unions listing every
 * variant, as in the corpus's repo_example_etrecord_v0_2023.bin. */
static const char doc2023[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"arg0_1\"}, \"as_int\": null},"
    "             {\"as_none\": null, \"as_tensor\": {\"name\": \"arg1_1\"}, \"as_int\": null}],"
    "\"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"aten_mul_tensor\"}}],"
    "\"nodes\": [{\"target\": \"executorch.exir.dialects.edge.ops.aten.mul.Tensor\","
    "  \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": "
    "\"arg0_1\"}, \"as_tensors\": null}},"
    "             {\"name\": \"other\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": "
    "\"arg1_1\"}, \"as_tensors\": null}}],"
    "  \"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"aten_mul_tensor\"}, "
    "\"as_tensors\": null}],"
    "  \"metadata\": {\"stack_trace\": \"  File \\\"model.py\\\", line 18, in forward\\n    "
    "return input * other\\n\", \"source_fn_stack\": \"mul,_operator.mul\", \"debug_handle\": "
    "\"2\"}}]}},"
    "\"schema_version\": 1}";

/* The current layout: named nodes, one-key unions, module stacks,
 * memory.alloc, a delegate call, a multi-output node, shared handles. */
static const char doc5[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}],"
    "\"outputs\": [{\"as_tensor\": {\"name\": \"relu\"}}],"
    "\"nodes\": ["
    " {\"name\": \"alloc\", \"target\": \"memory.alloc\", \"inputs\": [], \"outputs\": "
    "[{\"as_tensor\": {\"name\": \"alloc\"}}], \"metadata\": {}},"
    " {\"name\": \"aten_convolution_default\", \"target\": "
    "\"executorch.exir.dialects.edge.ops.aten.convolution.default\","
    "  \"inputs\": [{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
    "             {\"name\": \"stride\", \"arg\": {\"as_ints\": [1, 1]}},"
    "             {\"name\": \"bias\", \"arg\": {\"as_none\": []}}],"
    "  \"outputs\": [{\"as_tensor\": {\"name\": \"aten_convolution_default\"}}],"
    "  \"metadata\": {\"debug_handle\": \"1\", \"stack_trace\": \"conv trace\","
    "   \"nn_module_stack\": \"L__self__,L['self'],torch.nn.Module;L__self___conv1,"
    "L['self'].conv1,torch.nn.modules.conv.Conv2d\","
    "   \"source_fn_stack\": \"conv1,torch.nn.modules.conv.Conv2d\"}},"
    " {\"name\": \"split\", \"target\": \"torch.ops.aten.split_with_sizes.default\","
    "  \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": "
    "\"aten_convolution_default\"}}}],"
    "  \"outputs\": [{\"as_tensors\": [{\"name\": \"getitem\"}, {\"name\": \"split_unused_1\"}]}],"
    "  \"metadata\": {\"debug_handle\": \"1\", \"nn_module_stack\": \"a,(b,c),[d;e]\"}},"
    " {\"name\": \"executorch_call_delegate\", \"target\": "
    "\"torch.ops.higher_order.executorch_call_delegate\","
    "  \"inputs\": [{\"name\": \"lowered\", \"arg\": {\"as_string\": \"...\"}},"
    "             {\"name\": \"x\", \"arg\": {\"as_optional_tensors\": [{\"as_tensor\": {\"name\": "
    "\"getitem\"}}, {\"as_none\": []}]}}],"
    "  \"outputs\": [{\"as_tensor\": {\"name\": \"relu\"}}],"
    "  \"metadata\": {\"debug_handle\": \"7\", \"nn_module_stack\": \"only,two\"}},"
    " {\"name\": \"plain\", \"target\": \"my_op\", \"inputs\": [], \"outputs\": [], "
    "\"metadata\": {\"debug_handle\": \"x3\"}}"
    "]}},"
    "\"schema_version\": {\"major\": 5, \"minor\": 4}}";

static void test_2023(void)
{
    et_error err;
    et_graph *g = et_graph_parse(doc2023, strlen(doc2023), "2023", &err);
    if (!ok(g != NULL, "2023 layout parses")) {
        diag("%s", err.msg);
        return;
    }
    is_int(g->schema_major, 1, "2023: schema_version 1");
    is_int((long long)g->n_nodes, 1, "2023: one node");
    const et_graph_node *n = &g->nodes[0];
    is_str(n->name, "aten_mul_tensor", "2023: a node without a name is named after its output");
    is_str(n->op, "aten.mul.Tensor", "2023: op from the edge target");
    ok(n->has_debug_handle && n->debug_handle == 2, "2023: debug handle 2");
    ok(n->stack_trace && strstr(n->stack_trace, "return input * other\n") != NULL,
       "2023: the stack trace ends in 'return input * other'");
    is_str(n->source_fn_stack, "mul,_operator.mul", "2023: source_fn_stack kept");
    ok(!n->has_module_stack && n->nn_module_stack == NULL, "2023: no nn_module_stack");
    ok(n->n_inputs == 2 && strcmp(n->inputs[0], "arg0_1") == 0 &&
           strcmp(n->inputs[1], "arg1_1") == 0,
       "2023: input names from all-variant unions");
    ok(g->n_inputs == 2 && g->n_outputs == 1 && strcmp(g->outputs[0], "aten_mul_tensor") == 0,
       "2023: graph inputs and outputs");
    const struct et_graph_handle *h;
    ok(et_graph_by_handle(g, 2, &h) == 1 && h->node == 0, "2023: lookup by debug handle");
    ok(et_graph_find(g, "aten_mul_tensor") == n, "2023: lookup by name");
    ok(n->source_fn_name && strcmp(n->source_fn_name, "mul") == 0 && n->source_fn_type &&
           strcmp(n->source_fn_type, "_operator.mul") == 0,
       "2023: source_fn name and type");
    ok(n->module_group == -1 && g->n_module_groups == 0,
       "2023: a source_fn without nn_module_stack is in no module group");
    et_graph_free(g);
}

static void test_current(void)
{
    et_error err;
    et_graph *g = et_graph_parse(doc5, strlen(doc5), "v5", &err);
    if (!ok(g != NULL, "current layout parses")) {
        diag("%s", err.msg);
        return;
    }
    ok(g->schema_major == 5 && g->schema_minor == 4, "schema version 5.4");
    is_int((long long)g->n_nodes, 4, "memory.alloc is skipped: four nodes");
    const et_graph_node *c = et_graph_find(g, "aten_convolution_default");
    ok(c && strcmp(c->op, "aten.convolution.default") == 0, "edge op name");
    ok(c && c->n_inputs == 1 && strcmp(c->inputs[0], "x") == 0,
       "constants (ints, none) are not input names");
    ok(c && c->has_module_stack && c->n_module_stack == 2, "nn_module_stack: two entries");
    if (c && c->n_module_stack == 2) {
        is_str(c->module_stack[1].key, "L__self___conv1", "nn_module_stack: key");
        is_str(c->module_stack[1].path, "L['self'].conv1", "nn_module_stack: path");
        is_str(c->module_stack[1].type, "torch.nn.modules.conv.Conv2d", "nn_module_stack: type");
    }
    const et_graph_node *s = et_graph_find(g, "split");
    ok(s && strcmp(s->op, "split_with_sizes.default") == 0,
       "torch.ops.<namespace>.: the remainder after the namespace");
    ok(s && s->n_outputs == 2 && strcmp(s->outputs[1], "split_unused_1") == 0,
       "a multi-output node lists each output");
    ok(s && s->has_module_stack && s->n_module_stack == 1 &&
           strcmp(s->module_stack[0].path, "(b,c)") == 0 &&
           strcmp(s->module_stack[0].type, "[d;e]") == 0,
       "nn_module_stack: commas and semicolons inside () and [] do not split");
    const et_graph_node *d = et_graph_find(g, "executorch_call_delegate");
    ok(d && strcmp(d->op, "executorch_call_delegate") == 0, "delegate call op");
    ok(d && d->n_inputs == 1 && strcmp(d->inputs[0], "getitem") == 0,
       "optional tensors: the present ones");
    ok(d && !d->has_module_stack && d->nn_module_stack &&
           strcmp(d->nn_module_stack, "only,two") == 0,
       "a malformed nn_module_stack is kept as raw text only");
    const et_graph_node *p = et_graph_find(g, "plain");
    ok(p && strcmp(p->op, "my_op") == 0 && !p->has_debug_handle,
       "a non-integer debug handle is no debug handle; a bare target is its own op");
    const struct et_graph_handle *h;
    size_t k = et_graph_by_handle(g, 1, &h);
    ok(k == 2 && strcmp(g->nodes[h[0].node].name, "aten_convolution_default") == 0 &&
           strcmp(g->nodes[h[1].node].name, "split") == 0,
       "two nodes share handle 1, in graph order");
    ok(et_graph_by_handle(g, 5, &h) == 0, "an unknown handle has no node");
    ok(c && c->module_group == 0 && s && s->module_group == -1 && d && d->module_group == -1 &&
           g->n_module_groups == 1,
       "one module group: the convolution's (conv1, Conv2d); nodes without source_fn: -1");
    ok(c && c->source_fn_name && strcmp(c->source_fn_name, "conv1") == 0 && c->source_fn_type &&
           strcmp(c->source_fn_type, "torch.nn.modules.conv.Conv2d") == 0,
       "the convolution's source_fn name and type");
    ok(et_graph_find(g, "alloc") == NULL, "memory.alloc is not found by name");
    et_graph_free(g);
}

/* A 2023-layout output union with variant `kind` set to `value`. */
#define OUT23(kind, value)                                                                   \
    "{\"as_none\": null, \"as_tensor\": null, \"as_tensors\": null, \"" kind "\": " value "}"

/* Nodes without a "name" in the 2023 layout (unions listing every variant):
 * named after their one tensor output, else generated from the target as
 * torch.fx does, suffixed against the graph inputs and earlier nodes. */
static const char doc_unnamed[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [" OUT23("as_tensor", "{\"name\": \"arg0_1\"}") ","
    "             " OUT23("as_tensor", "{\"name\": \"my_op\"}") "],"
    "\"outputs\": [],"
    "\"nodes\": ["
    /* 0, 1: two multi-output nodes with the same target */
    " {\"target\": \"executorch.exir.dialects.edge.ops.aten.max_pool2d_with_indices.default\","
    "  \"outputs\": [" OUT23("as_tensors", "[{\"name\": \"getitem\"}, {\"name\": \"getitem_1\"}]")
    "], \"metadata\": {}},"
    " {\"target\": \"executorch.exir.dialects.edge.ops.aten.max_pool2d_with_indices.default\","
    "  \"outputs\": [" OUT23("as_tensors", "[{\"name\": \"getitem_2\"}, {\"name\": \"getitem_3\"}]")
    "]},"
    /* 2: one tensor output: its name */
    " {\"target\": \"executorch.exir.dialects.edge.ops.aten.relu.default\","
    "  \"outputs\": [" OUT23("as_tensor", "{\"name\": \"aten_relu_default\"}") "]},"
    /* 3, 4: a bare target clashing with graph input my_op: no outputs, as_none */
    " {\"target\": \"my_op\", \"outputs\": []},"
    " {\"target\": \"my_op\", \"outputs\": [" OUT23("as_none", "[]") "]},"
    /* 5: a delegate call with two tensor outputs */
    " {\"target\": \"torch.ops.higher_order.executorch_call_delegate\","
    "  \"outputs\": [" OUT23("as_tensor", "{\"name\": \"d0\"}") ", "
    OUT23("as_tensor", "{\"name\": \"d1\"}") "]},"
    /* 6: one output that is a tensor list of one */
    " {\"target\": \"torch.ops.aten.split.Tensor\","
    "  \"outputs\": [" OUT23("as_tensors", "[{\"name\": \"s0\"}]") "]},"
    /* 7: snake case */
    " {\"target\": \"torch.ops.my_ns.MyOp.default\", \"outputs\": []},"
    /* 8: an ATen target without the edge prefix */
    " {\"target\": \"torch.ops.aten.max_pool2d_with_indices.default\", \"outputs\": []},"
    /* 9: a leading digit, a run of illegal characters */
    " {\"target\": \"1x::Weird\", \"outputs\": []},"
    /* 10: nothing left of the target */
    " {\"target\": \"foo.\", \"outputs\": []},"
    /* 11: an as_tensor without a name */
    " {\"target\": \"my_op\", \"outputs\": [" OUT23("as_tensor", "{}") "]},"
    /* 12: the third max_pool */
    " {\"target\": \"executorch.exir.dialects.edge.ops.aten.max_pool2d_with_indices.default\","
    "  \"outputs\": []}"
    "]}},"
    "\"schema_version\": 1}";

static void test_unnamed(void)
{
    static const char *const want[] = {"aten_max_pool2d_with_indices_default",
                                       "aten_max_pool2d_with_indices_default_1",
                                       "aten_relu_default",
                                       "my_op_1",
                                       "my_op_2",
                                       "executorch_call_delegate",
                                       "split_tensor",
                                       "my_op_default",
                                       "max_pool2d_with_indices_default",
                                       "_1x_weird",
                                       "_unnamed",
                                       "my_op_3",
                                       "aten_max_pool2d_with_indices_default_2"};
    static const char *const why[] = {
        "unnamed multi-output node: generated from its target",
        "the same target again: suffixed _1",
        "unnamed single tensor output: named after it",
        "no outputs, generated name clashes with graph input my_op: my_op_1",
        "as_none output: generated, my_op_2",
        "two tensor outputs: generated from the delegate target",
        "one as_tensors output: generated (split.Tensor snake-cased)",
        "snake case: MyOp -> my_op",
        "torch.ops.aten target: the part after the namespace",
        "a leading digit is prefixed with _, a run of :: is one _",
        "an empty op: _unnamed",
        "an as_tensor without a name: generated, my_op_3",
        "a third max_pool: _2"};
    et_error err;
    et_graph *g = et_graph_parse(doc_unnamed, strlen(doc_unnamed), "unnamed", &err);
    if (!ok(g != NULL, "unnamed nodes: parses")) {
        diag("%s", err.msg);
        return;
    }
    size_t nw = sizeof want / sizeof *want;
    if (!is_int((long long)g->n_nodes, (long long)nw, "unnamed nodes: %zu nodes", nw))
        nw = g->n_nodes < nw ? g->n_nodes : nw;
    for (size_t i = 0; i < nw; i++) {
        is_str(g->nodes[i].name, want[i], "unnamed node %zu: %s", i, why[i]);
        ok(et_graph_find(g, want[i]) == &g->nodes[i], "unnamed node %zu: found by its name", i);
    }
    ok(et_graph_find(g, "getitem") == NULL && et_graph_find(g, "my_op") == NULL &&
           et_graph_find(g, "d0") == NULL,
       "output names of multi-output nodes and graph input names are not node names");
    et_graph_free(g);
}

/* Current-layout nodes: names kept as they are (duplicates too), torch.fx's
 * numeric suffixes of generated names, lookup of duplicates. */
static const char doc_names[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"in_3\"}}], \"outputs\": [],"
    "\"nodes\": ["
    " {\"name\": \"zz\", \"target\": \"t\", \"outputs\": []},"
    " {\"name\": \"dup\", \"target\": \"first\", \"outputs\": []},"
    " {\"name\": \"aa\", \"target\": \"t\", \"outputs\": []},"
    " {\"name\": \"dup\", \"target\": \"second\", \"outputs\": []},"
    " {\"name\": \"my_op_2\", \"target\": \"t\", \"outputs\": "
    "[{\"as_tensor\": {\"name\": \"other\"}}]},"
    " {\"target\": \"my_op\", \"outputs\": []},"
    " {\"target\": \"op_7\", \"outputs\": []},"
    " {\"target\": \"op_7\", \"outputs\": []},"
    " {\"target\": \"in\", \"outputs\": []},"
    " {\"target\": \"in\", \"outputs\": []},"
    " {\"target\": \"dup\", \"outputs\": [{\"as_tensor\": {\"name\": \"dup\"}}]}"
    "]}}, \"schema_version\": {\"major\": 8, \"minor\": 1}}";

static void test_names(void)
{
    et_error err;
    et_graph *g = et_graph_parse(doc_names, strlen(doc_names), "names", &err);
    if (!ok(g != NULL, "names: parses")) {
        diag("%s", err.msg);
        return;
    }
    if (!is_int((long long)g->n_nodes, 11, "names: 11 nodes")) {
        et_graph_free(g);
        return;
    }
    const et_graph_node *nd = g->nodes;
    ok(strcmp(nd[1].name, "dup") == 0 && strcmp(nd[3].name, "dup") == 0 &&
           strcmp(nd[10].name, "dup") == 0,
       "a JSON name or a single output's name is kept, even when it is a duplicate");
    is_str(nd[4].name, "my_op_2", "a JSON name is used rather than the output's name");
    is_str(nd[5].name, "my_op", "generated my_op: free, although my_op_2 is used");
    is_str(nd[6].name, "op_7", "a generated name ending in _<digits>: itself when free");
    is_str(nd[7].name, "op_8", "... then the next number of its base (torch.fx)");
    is_str(nd[8].name, "in", "generated in: free");
    is_str(nd[9].name, "in_4", "generated in again: after input in_3's number (torch.fx)");
    ok(et_graph_find(g, "dup") == &nd[1], "find by name: the first of duplicates");
    ok(et_graph_find(g, "zz") == &nd[0] && et_graph_find(g, "aa") == &nd[2],
       "find by name: the last and the first in sorted order");
    ok(et_graph_find(g, "a") == NULL && et_graph_find(g, "zzz") == NULL &&
           et_graph_find(g, "dupe") == NULL && et_graph_find(g, "") == NULL &&
           et_graph_find(g, "other") == NULL,
       "find by name: names before, after and between those present are absent");
    int sorted = 1;
    for (size_t k = 1; k < g->n_nodes; k++) {
        int c = strcmp(nd[g->by_name[k - 1]].name, nd[g->by_name[k]].name);
        sorted &= c < 0 || (c == 0 && g->by_name[k - 1] < g->by_name[k]);
    }
    ok(sorted, "by_name: sorted by name, then graph order");
    et_graph_free(g);

    static const char empty[] = "{\"graph_module\": {\"graph\": {\"nodes\": []}}}";
    g = et_graph_parse(empty, strlen(empty), "empty", &err);
    ok(g && g->n_nodes == 0 && et_graph_find(g, "x") == NULL && g->n_module_groups == 0,
       "an empty graph: no node found by name, no module group");
    et_graph_free(g);
}

/* torch.fx's per-base counter goes back with an explicit name of lower
 * number; the next generated name then searches up from there.  With
 * 10 000 such pairs the search must not be quadratic. */
static void test_counters(void)
{
    static const char small[] =
        "{\"graph_module\": {\"graph\": {\"nodes\": ["
        " {\"name\": \"x_3\", \"target\": \"t\"}, {\"target\": \"x\"},"
        " {\"name\": \"x_2\", \"target\": \"t\"}, {\"target\": \"x\"},"
        " {\"name\": \"x_1\", \"target\": \"t\"}, {\"target\": \"x\"}, {\"target\": \"x\"},"
        " {\"target\": \"x_2\"}, {\"target\": \"x_007\"}, {\"target\": \"x_007\"}]}}}";
    static const char *const want[] = {"x_3", "x", "x_2", "x_4", "x_1", "x_5",
                                       "x_6", "x_7", "x_8", "x_9"};
    et_error err;
    et_graph *g = et_graph_parse(small, strlen(small), "counters", &err);
    int same = g && g->n_nodes == 10;
    for (size_t i = 0; same && i < 10; i++)
        same = strcmp(g->nodes[i].name, want[i]) == 0;
    ok(same, "counters: x_3 x x_2 x_4 x_1 x_5 x_6 x_7 x_8 x_9 (generated x_2 and x_007 "
             "search up from the counter)");
    if (!same && g)
        for (size_t i = 0; i < g->n_nodes; i++)
            diag("node %zu: %s", i, g->nodes[i].name);
    et_graph_free(g);

    enum { N = 10000 };
    size_t cap = (size_t)N * 80 + 128, len = 0;
    char *doc = malloc(cap);
    if (!doc) {
        ok(0, "counters: out of memory");
        return;
    }
    len += (size_t)snprintf(doc, cap, "{\"graph_module\": {\"graph\": {\"nodes\": [");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(doc + len, cap - len,
                                "%s{\"name\": \"x_%d\", \"target\": \"t\"}, {\"target\": \"x\"}",
                                i ? "," : "", N - i);
    len += (size_t)snprintf(doc + len, cap - len, "]}}}");
    g = et_graph_parse(doc, len, "counters", &err);
    free(doc);
    ok(g && g->n_nodes == 2 * N && strcmp(g->nodes[1].name, "x") == 0 &&
           strcmp(g->nodes[3].name, "x_10001") == 0 &&
           strcmp(g->nodes[2 * N - 1].name, "x_19999") == 0,
       "counters: 10 000 explicit names counting down, each followed by a generated x: "
       "x, x_10001, ..., x_19999");
    et_graph_free(g);
}

/* A node with source_fn_stack `sf` and nn_module_stack `ms` (NULL: absent). */
#define META_NODE(name, sf, ms)                                                               \
    " {\"name\": \"" name "\", \"target\": \"t\", \"outputs\": [], \"metadata\": {"           \
    "\"source_fn_stack\": \"" sf "\"" ms "}}"
#define MS_KEY "\"nn_module_stack\": \"L__self__,L['self'],torch.nn.Module\""
#define MS ", " MS_KEY

static const char doc_groups[] =
    "{\"graph_module\": {\"graph\": {\"nodes\": ["
    META_NODE("a", "zeta,Z", MS) ","
    META_NODE("b", "alpha,A", MS) ","
    META_NODE("c", "zeta,Z", ", \"nn_module_stack\": \"only,two\"") ","
    META_NODE("d", "zeta,Z", "") ","
    META_NODE("e", "a,b;x,(y,z)", MS) ","
    META_NODE("f", "a,b,c", MS) ","
    META_NODE("g", "a,b;", MS) ","
    META_NODE("h", "alpha,AX", MS) ","
    META_NODE("i", "alpha,A", MS) ","
    " {\"name\": \"j\", \"target\": \"t\", \"outputs\": [], \"metadata\": {" MS_KEY "}},"
    META_NODE("k", "x,(y,z)", ", \"nn_module_stack\": \"\"")
    "]}}}";

static void test_groups(void)
{
    et_error err;
    et_graph *g = et_graph_parse(doc_groups, strlen(doc_groups), "groups", &err);
    if (!ok(g != NULL, "groups: parses")) {
        diag("%s", err.msg);
        return;
    }
    if (!is_int((long long)g->n_nodes, 11, "groups: 11 nodes")) {
        et_graph_free(g);
        return;
    }
    const et_graph_node *nd = g->nodes;
    is_int(nd[0].module_group, 0, "(zeta, Z) seen first: group 0");
    is_int(nd[1].module_group, 1, "(alpha, A) seen second: group 1, not sorted first");
    is_int(nd[2].module_group, 0, "(zeta, Z) again, malformed nn_module_stack: group 0");
    ok(nd[3].module_group == -1 && nd[3].source_fn_name &&
           strcmp(nd[3].source_fn_name, "zeta") == 0,
       "source_fn but no nn_module_stack: -1 (source_fn still read)");
    ok(nd[4].source_fn_name && strcmp(nd[4].source_fn_name, "x") == 0 && nd[4].source_fn_type &&
           strcmp(nd[4].source_fn_type, "(y,z)") == 0,
       "the last entry of source_fn_stack, split outside ()");
    is_int(nd[4].module_group, 2, "(x, (y,z)): group 2");
    ok(nd[5].source_fn_name == NULL && nd[5].source_fn_type == NULL && nd[5].module_group == -1,
       "a last entry of three parts: no source_fn, -1");
    ok(nd[6].source_fn_name == NULL && nd[6].source_fn_type == NULL && nd[6].module_group == -1,
       "an empty last entry: no source_fn, -1");
    is_int(nd[7].module_group, 3, "same name, other type: a new group 3");
    is_int(nd[8].module_group, 1, "(alpha, A) again: group 1");
    ok(nd[9].source_fn_name == NULL && nd[9].module_group == -1,
       "nn_module_stack without source_fn_stack: -1");
    is_int(nd[10].module_group, 2, "an empty nn_module_stack string counts: group 2");
    is_int((long long)g->n_module_groups, 4, "four module groups");
    et_graph_free(g);
}

/* 20 000 unnamed multi-output nodes of one target (2023 layout), in 100
 * module groups: names base, base_1, ..., found by name; built in well
 * under a second (no quadratic naming, lookup or grouping). */
static void test_large(void)
{
    enum { N = 20000, GROUPS = 100 };
    static const char head[] = "{\"graph_module\": {\"graph\": {\"inputs\": [], \"nodes\": [";
    static const char node[] =
        "%s{\"target\": \"executorch.exir.dialects.edge.ops.aten.max_pool2d_with_indices.default\","
        " \"outputs\": [{\"as_none\": null, \"as_tensor\": null, \"as_tensors\": "
        "[{\"name\": \"getitem_%d\"}, {\"name\": \"getitem_%d_b\"}]}],"
        " \"metadata\": {\"debug_handle\": \"%d\", \"source_fn_stack\": \"m%d,torch.nn.M%d\","
        " \"nn_module_stack\": \"L__self__,L['self'],torch.nn.Module\"}}";
    size_t cap = sizeof head + (size_t)N * (sizeof node + 64) + 64, len = 0;
    char *doc = malloc(cap);
    if (!doc) {
        ok(0, "large: out of memory");
        return;
    }
    len += (size_t)snprintf(doc + len, cap - len, "%s", head);
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(doc + len, cap - len, node, i ? "," : "", i, i, i,
                                (GROUPS - 1) - i % GROUPS, i % GROUPS);
    len += (size_t)snprintf(doc + len, cap - len, "]}}, \"schema_version\": 1}");
    et_error err;
    et_graph *g = et_graph_parse(doc, len, "large", &err);
    free(doc);
    if (!ok(g != NULL, "large: 20 000 nodes parse")) {
        diag("%s", err.msg);
        return;
    }
    is_int((long long)g->n_nodes, N, "large: 20 000 nodes");
    is_str(g->nodes[0].name, "aten_max_pool2d_with_indices_default", "large: the first name");
    is_str(g->nodes[N - 1].name, "aten_max_pool2d_with_indices_default_19999",
           "large: the last name is suffixed _19999");
    int found = 1, grouped = 1;
    char name[64];
    for (int i = 1; i < N; i++) {
        snprintf(name, sizeof name, "aten_max_pool2d_with_indices_default_%d", i);
        found &= et_graph_find(g, name) == &g->nodes[i];
        grouped &= g->nodes[i].module_group == i % GROUPS;
    }
    ok(found, "large: each node found by its name");
    ok(grouped && g->n_module_groups == GROUPS,
       "large: 100 module groups numbered in first-seen order");
    et_graph_free(g);
}

static void test_targets(void)
{
    is_str(et_graph_op_of_target("executorch.exir.dialects.backend.ops.foo.bar"), "foo.bar",
           "backend op");
    is_str(et_graph_op_of_target("torch.ops.aten.add.Tensor"), "add.Tensor", "ATen op");
    is_str(et_graph_op_of_target("_operator.getitem"), "getitem", "last dotted component");
}

static void bad(const char *doc, const char *want, const char *desc)
{
    et_error err;
    err.msg[0] = 0;
    et_graph *g = et_graph_parse(doc, strlen(doc), "rec:prog", &err);
    ok(g == NULL && strstr(err.msg, want) != NULL, "%s", desc);
    if (g || !strstr(err.msg, want))
        diag("got: %s", g ? "a graph" : err.msg);
    et_graph_free(g);
}

static void test_malformed(void)
{
    bad("{\"graph_module\": ", "rec:prog: invalid JSON at line 1, column 17", "truncated JSON");
    bad("{\n \"a\": [1,,2]}", "invalid JSON at line 2, column 10", "syntax error: line and column");
    bad("{\"graph_module\": {\"graph\": {\"nodes\": {}}}}",
        "expected an array at graph_module.graph.nodes", "nodes not an array");
    bad("[]", "not a serialized exported program", "not an object");
    bad("{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": 3}]}}}",
        "graph_module.graph.nodes[0]: expected an object with a string \"target\"",
        "target not a string");
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    if (deep) {
        memset(deep, '[', depth);
        memset(deep + depth, ']', depth);
        deep[2 * depth] = 0;
        bad(deep, "invalid JSON", "100 000 nested arrays: an error, not a stack overflow");
        free(deep);
    }
}

/* Parse program `prog` of record `r` into a graph (NULL on failure). */
static et_graph *load(et_etrecord *r, const et_etr_program *prog)
{
    uint8_t *bytes;
    size_t n;
    et_error err;
    if (!prog || et_etrecord_read(r, prog->entry, &bytes, &n, &err) != 0)
        return NULL;
    et_graph *g = et_graph_parse((const char *)bytes, n, r->entries[prog->entry].name, &err);
    if (!g)
        diag("%s", err.msg);
    free(bytes);
    return g;
}

/* The 2023 example ETRecord: its edge program's mul node (handle 2, the
 * trace ending in `return input * other`) and aten_dialect_output/forward
 * reachable by name. */
static void test_corpus(const char *path)
{
    et_error err;
    et_etrecord *r = et_etrecord_open_path(path, &err);
    if (!ok(r != NULL, "the 2023 ETRecord opens")) {
        diag("%s", err.msg);
        return;
    }
    et_graph *g = load(r, et_etrecord_edge_program(r, "forward"));
    ok(g != NULL, "2023 record: its edge program parses");
    const struct et_graph_handle *h;
    if (g && et_graph_by_handle(g, 2, &h) == 1) {
        const et_graph_node *n = &g->nodes[h->node];
        ok(strcmp(n->op, "aten.mul.Tensor") == 0 && strcmp(n->name, "aten_mul_tensor") == 0,
           "2023 record: debug handle 2 is the mul node (aten_mul_tensor, aten.mul.Tensor)");
        static const char tail[] = "return input * other\n";
        size_t len = n->stack_trace ? strlen(n->stack_trace) : 0;
        ok(len > strlen(tail) && strcmp(n->stack_trace + len - strlen(tail), tail) == 0,
           "2023 record: its stack trace ends in 'return input * other'");
    } else {
        ok(0, "2023 record: debug handle 2 names one node");
        ok(0, "2023 record: its stack trace");
    }
    et_graph_free(g);
    g = load(r, et_etrecord_program(r, ET_ETR_PROG_GRAPH_MAP, "aten_dialect_output/forward"));
    ok(g != NULL && g->n_nodes == 1 && strcmp(g->nodes[0].name, "mul") == 0 &&
           strcmp(g->nodes[0].op, "mul.Tensor") == 0,
       "2023 record: aten_dialect_output/forward is reachable by name (its node mul, mul.Tensor)");
    et_graph_free(g);
    et_etrecord_free(r);
}

/* Parse file `path` (NULL when it cannot be read or parsed). */
static et_graph *load_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, k;
    char chunk[4096];
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + k > cap) {
            char *nb = realloc(buf, cap = 2 * (len + k));
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + len, chunk, k);
        len += k;
    }
    fclose(f);
    et_error err;
    et_graph *g = et_graph_parse(buf ? buf : "", len, path, &err);
    if (!g)
        diag("%s", err.msg);
    free(buf);
    return g;
}

/* The seeds of tests/graph/: the two 2023 programs keep the names torch
 * gives them (after their single tensor output); the current document its
 * JSON names. */
static void test_seeds(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/graph/edge_2023.json", dir);
    et_graph *g = load_file(path);
    ok(g && g->n_nodes == 1 && strcmp(g->nodes[0].name, "aten_mul_tensor") == 0,
       "tests/graph/edge_2023.json: its node is aten_mul_tensor");
    et_graph_free(g);
    snprintf(path, sizeof path, "%s/tests/graph/aten_2023.json", dir);
    g = load_file(path);
    ok(g && g->n_nodes == 1 && strcmp(g->nodes[0].name, "mul") == 0,
       "tests/graph/aten_2023.json: its node is mul");
    et_graph_free(g);
    snprintf(path, sizeof path, "%s/tests/graph/current.json", dir);
    g = load_file(path);
    ok(g && g->n_nodes == 4 && strcmp(g->nodes[0].name, "aten_convolution_default") == 0 &&
           strcmp(g->nodes[1].name, "split") == 0 &&
           strcmp(g->nodes[2].name, "executorch_call_delegate") == 0 &&
           strcmp(g->nodes[3].name, "plain") == 0,
       "tests/graph/current.json: its JSON names");
    et_graph_free(g);
}

int main(void)
{
    test_2023();
    test_current();
    test_unnamed();
    test_names();
    test_counters();
    test_groups();
    test_large();
    test_targets();
    test_malformed();
    const char *src = getenv("ET_SRC");
    char seed[1024];
    snprintf(seed, sizeof seed, "%s/tests/graph/edge_2023.json", src && *src ? src : ".");
    FILE *sf = fopen(seed, "rb");
    if (sf) {
        fclose(sf);
        test_seeds(src && *src ? src : ".");
    } else {
        skip_n(3, "no tests/graph/ ($ET_SRC/tests/graph/edge_2023.json)");
    }
    const char *shared = getenv("ET_SHARED");
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/etdump/repo_example_etrecord_v0_2023.bin",
             shared && *shared ? shared : "../shared");
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        test_corpus(path);
    } else {
        skip_n(5, "no shared corpus ($ET_SHARED/corpus/etdump/repo_example_etrecord_v0_2023.bin)");
    }
    return done_testing();
}
