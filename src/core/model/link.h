/*
 * link.h - ETRecord linkage: what an ETRecord says about each event of an
 * inspector (spec §3.10, §5.6, §5.7).
 *
 * For every event block, one method of the record is used (see
 * et_link_options.method and "The method of a block" below).  For every
 * event of the block:
 *  1. debug handles: debug_handle_map[method][instruction id] (an int for a
 *     kernel, a list for a delegate call); num_outputs from
 *     instruction_id_to_num_outs_map (1 when the map or the entry is absent);
 *     a DELEGATE_CALL event gets its delegate_map entry's "name" as
 *     delegate_backend_name;
 *  2. a delegated event (one with a delegate debug identifier) takes its
 *     handles from delegate_map[method][instruction id]["delegate_map"]
 *     [identifier] and the backend name from the entry's "name";
 *  3. graph nodes: unless the event is Method::init, Program::load_method,
 *     Method::execute or Method::execute::<method>, every node of the reference graph whose debug handle
 *     is one of the event's handles is attached, in the reference's order
 *     (handles in order; for one handle, nodes in the operator graph's
 *     depth-first order); they give op_types (one per node, duplicates
 *     kept), stack_traces and module_hierarchy (one per distinct node name,
 *     first seen first).
 *
 * The method of a block (docs/etrecord.md "Which method a block is linked
 * to"): et_link_options.method when set; else, for a block named
 * "Execute::<method>" (the name upstream proposed, pytorch/executorch PR
 * 8033), that method when the record has it; else the method of
 * debug_handle_map named like the block; else it is inferred.  With fewer
 * than two methods in debug_handle_map, or no evidence in the block, the
 * default: "forward" if the map has it, else its only method, else
 * "forward".  Otherwise the evidence is the block's events that have an
 * instruction id and are not framework events; a method covers an event
 * when the event's instruction id is in its debug_handle_map and, for a
 * delegated event, its delegate debug identifier in that instruction's
 * delegate_map entry (a list of handles when there is no entry); a
 * DELEGATE_CALL must be at a delegate call, an OPERATOR_CALL or
 * native_call_* event must not.  Of the methods covering every event, the
 * one whose debug_handle_map has the fewest instructions the block does
 * not show wins; a tie goes to "forward" (else the first in map order)
 * with a warning naming the tied methods.  When no method covers every
 * event, the one covering most wins (ties likewise), with a warning.
 *
 * Differences from the reference (docs/differences.md):
 *  - an exact delegate_map key always wins; the substring match (the last
 *    key, in map order, that is a substring of the identifier's text) is
 *    only a fallback;
 *  - a delegated event without a mapping is left without handles (when its
 *    delegate call has no delegate_map entry: it takes the delegate call's
 *    handles, as the reference does) with one warning per (block,
 *    instruction id) instead of one per event;
 *  - a record without instruction_id_to_num_outs_map still links (every
 *    num_outputs 1) instead of failing with a TypeError;
 *  - every method can be linked, not only "forward", and each block to its
 *    own method;
 *  - Method::execute::<method> events are framework events;
 *  - a record without the method, or without an edge program for it, links
 *    what it can with a warning instead of a KeyError;
 *  - the nodes attached are capped (ET_LINK_MAX_NODES_PER_EVENT, ...), with
 *    one warning, so that a hostile record cannot exhaust memory.
 */
#ifndef ET_LINK_H
#define ET_LINK_H

#include <stdbool.h>

#include "base/error.h"
#include "base/warnings.h"
#include "format/etrecord.h"
#include "model/model.h"

/* The name of the reference graph that is the method's edge program
 * (spec §1.3 reference_graph_name default). */
#define ET_EDGE_GRAPH_NAME "edge_dialect_graph_module"

/* Bits of an entry of et_inspector.link_nodes (the rest is a node index
 * into the block's graph). */
#define ET_LINK_NODE_FIRST 0x80000000u /* first occurrence of the node's name
                                          for this event: a key of
                                          stack_traces / module_hierarchy */
#define ET_LINK_NODE_OP 0x40000000u    /* the node's op is non-empty: one
                                          entry of op_types */
#define ET_LINK_NODE_MASK 0x3fffffffu

/* Caps on attached nodes (a hostile record can name one node from every
 * one of a million handles, on every event): per event, and in all.  The
 * reference has none; real records stay far below (an event's handles
 * are its operators). */
#define ET_LINK_MAX_NODES_PER_EVENT (1u << 20)
#define ET_LINK_MAX_NODES (1u << 24)

/* Cap on the work of inferring the blocks' methods: (evidence event,
 * method) checks over all blocks.  A block beyond it gets the default
 * method with a warning; real dumps need (events x methods) far less. */
#define ET_LINK_INFER_BUDGET (1u << 24)

/* Warnings given per block, of each kind (the block's method; a method
 * debug_handle_map lacks; a method without edge program; delegate calls
 * without delegate_map entries): this many one by one, the rest counted
 * in one last warning per kind ("... and N more ..."). */
#define ET_LINK_MAX_METHOD_WARNINGS 16u

/* The graph node of link entry k (0 <= k < ev->node_count) of event `ev`
 * of block `blk`; *bits gets the entry's ET_LINK_NODE_* flags. */
static inline const et_graph_node *et_link_node(const et_inspector *insp, const et_block *blk,
                                                const et_event *ev, uint32_t k, uint32_t *bits)
{
    uint32_t e = insp->link_nodes[ev->node_first + k];
    *bits = e & ~ET_LINK_NODE_MASK;
    return &blk->graph->nodes[e & ET_LINK_NODE_MASK];
}

typedef struct et_link_options {
    /* The method whose maps link every block.  NULL: per block, as "The
     * method of a block" above says (Execute::<method>, the block's name,
     * inference, default).  A method given here must be in
     * debug_handle_map or have an edge program. */
    const char *method;
    /* "edge_dialect_graph_module" (NULL means it): the method's edge
     * program; or a graph_map entry name such as
     * "aten_dialect_output/forward"; or "exported_program" (the ATen
     * program, not a name the reference accepts). */
    const char *reference_graph_name;
    /* spec §5.7: nodes in module subgraphs come after the flat nodes in
     * the operator graph's order, which changes the order of op_types (and
     * which node name is seen first) among nodes sharing a handle. */
    bool enable_module_hierarchy;
} et_link_options;

/* Link the events of `insp` to record `rec` (not owned; it must outlive
 * the inspector, which points into it).  Sets, per block, `method` and
 * `graph`; per event, the debug handles, num_outputs,
 * delegate_backend_name and node range; appends its warnings to
 * `warnings` (the caller's list: et_inspector_open gives insp->warnings),
 * and calls nothing of the model's for them.  Returns 0, or -1 with `err`
 * set:
 *   ET_ERR_USAGE   o->method is not a method of the record ("ETRecord
 *                  'LABEL' has no method 'M' (methods: a, b)"); the
 *                  reference graph is not in the record ("... has no
 *                  reference graph 'G' (graphs: ...)");
 *   ET_ERR_FORMAT  the reference graph's JSON cannot be read or parsed
 *                  (see et_etrecord_graph);
 *   ET_ERR_NOMEM   out of memory. */
int et_link_etrecord(et_inspector *insp, et_etrecord *rec, const et_link_options *o,
                     et_warnings *warnings, et_error *err);

#endif
