/*
 * modelexplorer.h - the ETRecord's graphs, and the times linked to their
 * nodes, as files Google's Model Explorer opens as they are
 * (docs/model-explorer.md).
 *
 * A directory DIR receives:
 *   graph.json               a GraphCollection {"label", "graphs": [Graph]}:
 *                            one Graph per method of the record (its edge
 *                            program, graph id = the method's name), one
 *                            GraphNode per operator node: id = the FX node
 *                            name, label = the operator (et_graph_op_of_target
 *                            of the target), namespace = the nn_module_stack
 *                            paths joined with '/', incomingEdges from the
 *                            node's inputs that are other nodes' outputs,
 *                            attrs: target, op, debug_handle, stack_trace,
 *                            delegate_backend (when an event linked to the
 *                            node is delegated) and the event names;
 *   node_data_latency.json   ModelNodeData: per graph, per node, the p50
 *                            time in the inspector's target unit;
 *   node_data_share.json     ... the node's p50 as a percentage of the p50
 *                            of the block's Method::execute event;
 *   node_data_delegated.json ... 1 for a node that a delegated event or a
 *                            delegate call ran, else 0;
 *   node_data_ratio.json     (only with a baseline) ... the node's p50 over
 *                            the baseline's p50 for the node of the same
 *                            method and name (B/A).
 * Node data holds the nodes that linked events with perf data reach.  The
 * even split: an event linked to k distinct nodes (a delegate call, a
 * fused kernel) gives each node p50 / k; a node's value is the sum over
 * its events.  Nested events are counted once, by the inner ones: an
 * OPERATOR_CALL whose instruction has a kernel event (native_call_*)
 * reaching nodes, and a delegate call whose instruction has delegated
 * events, are not counted.  A graph's data comes from the first block
 * linked to it whose events reach nodes (blocks linked to another
 * reference graph give none).
 */
#ifndef ET_MODELEXPLORER_H
#define ET_MODELEXPLORER_H

#include "base/error.h"
#include "model/model.h"

/* The names of the files written, NULL-terminated (ratio last). */
extern const char *const et_mx_files[];

/* May `dir` receive the files: a directory or nothing there (its parent
 * must then exist), and each file may be written (et_outfile_check, with
 * `inputs` NULL-terminated or NULL).  Returns 0, or -1 with `err` set:
 * ET_ERR_USAGE (empty path, an input), ET_ERR_IO ("DIR: not a
 * directory", "DIR: cannot create it: REASON", the checks' errors). */
int et_mx_check_dir(const char *dir, const char *const *inputs, et_error *err);

/* Write the files into `dir` (created with mode 0777 & ~umask when
 * absent; each file through a temporary file, synced and renamed, never
 * over an input or one of `inputs`).  `insp` must have been opened with an
 * ETRecord; `baseline` (NULL: none) is another inspector with one, whose
 * node times divide insp's in node_data_ratio.json.  Returns 0, or -1 with
 * `err` set: ET_ERR_USAGE (no ETRecord: "Model Explorer files need an
 * ETRecord"; a baseline without one), the errors of et_mx_check_dir and
 * outfile.h, ET_ERR_FORMAT (a graph of the record that cannot be read),
 * ET_ERR_NOMEM. */
int et_mx_write_dir(et_inspector *insp, const et_inspector *baseline, const char *dir,
                    const char *const *inputs, et_error *err);

#endif
