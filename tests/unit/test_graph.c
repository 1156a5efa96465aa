/*
 * test_graph.c - unit tests for graph.c: serialized exported programs in
 * the 2023 and current layouts (spec §5.3, §5.9), malformed documents, and
 * the programs of the corpus's 2023 ETRecord read through etrecord.c
 * ($ET_SHARED/corpus/etdump/repo_example_etrecord_v0_2023.bin; skipped
 * when absent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etrecord.h"
#include "graph.h"
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
    bad("{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"outputs\": []}]}}}",
        "nodes[0] (t): no \"name\" and no output to name it after", "unnamed node without output");
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

int main(void)
{
    test_2023();
    test_current();
    test_targets();
    test_malformed();
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
