#!/usr/bin/env python3
"""export_aot_outputs.py - the AOT side of etinspect's calculate_numeric_gap.

Runs the reference graph of an ETRecord on representative inputs, capturing
the output of every operator node that carries a debug handle, as ExecuTorch's
Inspector.calculate_numeric_gap does (its IntermediateOutputCapturer), and
writes them as an etinspect AOT outputs directory: index.json plus one .npy
file per tensor (docs/numerical-debugging.md). Then, without Python:

    etinspect -e 'local e = require "etinspect"
      local insp = e.Inspector{etdump_path = "run.etdp", debug_buffer_path = "run.bin",
                               etrecord = "model.etrecord"}
      insp:calculate_numeric_gap("aot_dir", "MSE"):print()'

Needs PyTorch, NumPy and ExecuTorch (the version that wrote the ETRecord).

Usage:
    python3 scripts/export_aot_outputs.py ETRECORD OUT_DIR
        [--reference-graph exported_program | edge_dialect_exported_program | NAME]
        [--inputs INPUTS.pt]

ETRECORD must hold representative inputs (an ETRecord generated with a
BundledProgram, or given them with update_representative_inputs), unless
--inputs names a torch.save'd tuple of the model's inputs.
"""
import argparse
import json
import math
import os
import sys

FORMAT = "etinspect-aot-outputs"


def resolve_reference_graph(rec, wanted):
    """(graph module, name) as Inspector._resolve_reference_graph chooses them."""
    if wanted in (None, "exported_program"):
        ok = False
        if getattr(rec, "exported_program", None) is not None:
            from executorch.devtools.inspector._inspector_utils import propagate_back_debug_handle

            ok = propagate_back_debug_handle(
                rec.exported_program, rec.export_graph_id, rec.edge_dialect_program
            )
        if ok:
            return rec.exported_program.module(), "exported_program"
        if wanted is not None:
            sys.exit("cannot use 'exported_program': debug handle back-propagation failed "
                     "or the ETRecord has no exported program")
        print("warning: using 'edge_dialect_exported_program' (no usable ATen program)",
              file=sys.stderr)
        wanted = "edge_dialect_exported_program"
    if wanted == "edge_dialect_exported_program":
        return rec.edge_dialect_program.module(), wanted
    lookup = wanted if "/" in wanted else wanted + "/forward"
    graphs = rec.graph_map or {}
    if lookup not in graphs:
        sys.exit(f"reference graph {lookup!r} not found; graph_map has {sorted(graphs)}")
    return graphs[lookup].module(), lookup


def debug_key(node):
    """The node's debug-handle tuple, or None when the Inspector skips it."""
    h = node.meta.get("debug_handle")
    if h is None or node.op != "call_function" or "getitem" in node.name:
        return None
    return (h,) if isinstance(h, int) else tuple(h)


def capture(graph_module, inputs):
    """{handle tuple: output}: the last node of a handle wins (dict order kept)."""
    import torch

    outputs = {}

    class Capturer(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            key = debug_key(n)
            if key is not None:
                if isinstance(result, torch.Tensor):
                    outputs[key] = result.detach().clone()
                elif isinstance(result, (list, tuple)):
                    outputs[key] = [r.detach().clone() if isinstance(r, torch.Tensor) else r
                                    for r in result]
                else:
                    outputs[key] = result
            return result

    with torch.no_grad():
        Capturer(graph_module).run(*inputs)
    return outputs


def save_value(value, out_dir, stem):
    """The index.json form of an output: a .npy file name, a scalar, null or a list."""
    import numpy as np
    import torch

    if isinstance(value, (list, tuple)):
        return [save_value(v, out_dir, f"{stem}_{i}") for i, v in enumerate(value)]
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        value = torch.tensor(value, dtype=torch.float64)  # JSON has no inf / nan
    if not isinstance(value, torch.Tensor):
        print(f"warning: {stem}: a {type(value).__name__} output is written as null",
              file=sys.stderr)
        return None
    t = value.detach().cpu()
    if t.is_quantized:
        t = t.dequantize()
    if t.dtype in (torch.bfloat16,) or (t.is_floating_point() and t.element_size() == 1):
        t = t.float()  # NumPy has no bfloat16 / float8
    name = stem + ".npy"
    np.save(os.path.join(out_dir, name), t.contiguous().numpy())
    return name


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("etrecord")
    ap.add_argument("out_dir")
    ap.add_argument("--reference-graph", default=None,
                    help="default: exported_program when debug handles propagate back to it, "
                         "else edge_dialect_exported_program")
    ap.add_argument("--inputs", help="a torch.save'd tuple of inputs (default: the "
                                     "ETRecord's representative inputs)")
    args = ap.parse_args(argv)

    import torch
    from executorch.devtools.etrecord import parse_etrecord

    rec = parse_etrecord(args.etrecord)
    inputs = torch.load(args.inputs) if args.inputs else rec._representative_inputs
    if inputs is None:
        sys.exit(f"{args.etrecord}: no representative inputs; give --inputs")
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    graph_module, graph_name = resolve_reference_graph(rec, args.reference_graph)
    outputs = capture(graph_module, inputs)

    op_names, traces = {}, {}
    for node in graph_module.graph.nodes:
        key = debug_key(node)
        if key is not None:
            op_names.setdefault(key, []).append(node.name)
            traces.setdefault(key, {})[node.name] = node.meta.get("stack_trace")

    os.makedirs(args.out_dir, exist_ok=True)
    entries = []
    for key, value in outputs.items():
        stem = "h_" + "_".join(str(h) for h in key)
        entries.append({"debug_handle": list(key),
                        "output": save_value(value, args.out_dir, stem),
                        "op_names": op_names.get(key, []),
                        "stack_traces": traces.get(key, {})})
    index = {"format": FORMAT, "version": 1, "reference_graph": graph_name,
             "method": "forward", "etrecord": os.path.basename(args.etrecord),
             "outputs": entries}
    with open(os.path.join(args.out_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1, allow_nan=False)
        f.write("\n")
    print(f"{args.out_dir}: {len(entries)} outputs of '{graph_name}'")


if __name__ == "__main__":
    main()
