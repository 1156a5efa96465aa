/*
 * fuzz_graph.c - libFuzzer target for the exported-program JSON reader
 * (graph.h, spec §5.3, §5.9).
 *
 * Each input is the JSON text itself, copied into a heap block of exactly
 * its size (jsondoc.h reads it by length, no terminator needed), parsed
 * with no budget but jsondoc's ceilings (an input is at most a few MB).  An
 * accepted graph is walked: every node's strings and module-stack entries
 * are touched, every node is found by its name and by its debug handle.
 * Invariants, checked with __builtin_trap(): a refused input leaves a
 * message; by_handle is sorted and points at nodes with that handle; a
 * lookup by handle returns exactly the nodes with it.
 *
 * Seeds: the .json files of tests/graph/; dictionary:
 * tests/fuzz/fuzz_graph.dict (the exported program's keys and union
 * variants); run with scripts/fuzz.sh (make fuzz).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/graph.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void touch(const char *s)
{
    if (s)
        sink += strlen(s);
}

/* Parse one input and check the graph (see the top of the file).
 * Returns 0 (libFuzzer's convention). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    if (size)
        memcpy(p, data, size);
    et_error err;
    err.msg[0] = 0;
    et_graph *g = et_graph_parse(p, size, "fuzz", &err);
    if (!g) {
        if (!err.msg[0])
            __builtin_trap();
        free(p);
        return 0;
    }
    size_t with_handle = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const et_graph_node *n = &g->nodes[i];
        touch(n->name), touch(n->target), touch(n->op), touch(n->stack_trace);
        touch(n->nn_module_stack), touch(n->source_fn_stack), touch(n->from_node);
        for (size_t k = 0; k < n->n_module_stack; k++)
            touch(n->module_stack[k].key), touch(n->module_stack[k].path),
                touch(n->module_stack[k].type);
        for (size_t k = 0; k < n->n_inputs; k++)
            touch(n->inputs[k]);
        for (size_t k = 0; k < n->n_outputs; k++)
            touch(n->outputs[k]);
        if (!n->name || !et_graph_find(g, n->name))
            __builtin_trap();
        if (n->has_debug_handle) {
            with_handle++;
            const struct et_graph_handle *h;
            size_t c = et_graph_by_handle(g, n->debug_handle, &h);
            size_t k = 0;
            while (k < c && h[k].node != i)
                k++;
            if (k == c)
                __builtin_trap();
        }
    }
    if (with_handle != g->n_by_handle)
        __builtin_trap();
    for (size_t k = 0; k < g->n_by_handle; k++) {
        const struct et_graph_handle *h = &g->by_handle[k];
        if (h->node >= g->n_nodes || !g->nodes[h->node].has_debug_handle ||
            g->nodes[h->node].debug_handle != h->handle ||
            (k && (h[-1].handle > h->handle ||
                   (h[-1].handle == h->handle && h[-1].node >= h->node))))
            __builtin_trap();
    }
    et_graph_free(g);
    free(p);
    return 0;
}
