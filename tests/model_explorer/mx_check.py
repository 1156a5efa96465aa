#!/usr/bin/env python3
"""mx_check.py DIR ETRECORD [--ratio]: check the Model Explorer files of DIR
(etinspect --model_explorer_path, docs/model-explorer.md) by building Model
Explorer's own dataclasses (graph_builder.py, node_data_builder.py beside
this script) from them, and the graphs' node ids against the ETRecord's
edge programs, read here from the zip with the standard library alone.

Prints one line per node-data value, "FILE GRAPH NODE VALUE", for the
calling test to compare; exits 1 naming the first problem found."""
import importlib.util
import json
import os
import sys
import types
import zipfile
from dataclasses import asdict, fields

HERE = os.path.dirname(os.path.abspath(__file__))


def load_me():
    """The two files as modules of a package 'me' (node_data_builder does
    `from .utils import remove_none`: a utils module of ours)."""
    pkg = types.ModuleType("me")
    pkg.__path__ = [HERE]
    sys.modules["me"] = pkg
    utils = types.ModuleType("me.utils")

    def drop_none(v):
        if isinstance(v, dict):
            return {k: drop_none(x) for k, x in v.items() if x is not None}
        if isinstance(v, list):
            return [drop_none(x) for x in v if x is not None]
        return v

    utils.remove_none = drop_none
    sys.modules["me.utils"] = utils
    mods = {}
    for name in ("graph_builder", "node_data_builder"):
        spec = importlib.util.spec_from_file_location("me." + name, os.path.join(HERE, name + ".py"))
        m = importlib.util.module_from_spec(spec)
        sys.modules["me." + name] = m
        spec.loader.exec_module(m)
        mods[name] = m
    return mods["graph_builder"], mods["node_data_builder"]


def die(msg):
    print("mx_check: " + msg, file=sys.stderr)
    sys.exit(1)


def strict(cls, d, where):
    """cls(**d), refusing keys the dataclass does not have."""
    if not isinstance(d, dict):
        die("%s: expected an object, found %r" % (where, d))
    known = {f.name for f in fields(cls)}
    extra = set(d) - known
    if extra:
        die("%s: keys Model Explorer's %s does not have: %s" % (where, cls.__name__, sorted(extra)))
    return cls(**d)


def build_graphs(gb, doc):
    graphs = []
    for gi, g in enumerate(doc["graphs"]):
        nodes = []
        for ni, n in enumerate(g["nodes"]):
            w = "graphs[%d].nodes[%d]" % (gi, ni)
            n = dict(n)
            n["attrs"] = [strict(gb.KeyValue, a, w + ".attrs") for a in n.get("attrs", [])]
            n["incomingEdges"] = [strict(gb.IncomingEdge, e, w + ".incomingEdges")
                                  for e in n.get("incomingEdges", [])]
            for a in n["attrs"]:
                if not isinstance(a.value, str):
                    die(w + ": attribute %s is not a string" % a.key)
            nodes.append(strict(gb.GraphNode, n, w))
        g = dict(g)
        g["nodes"] = nodes
        graphs.append(strict(gb.Graph, g, "graphs[%d]" % gi))
    d = dict(doc)
    d["graphs"] = graphs
    return strict(gb.GraphCollection, d, "graph.json")


def build_node_data(nb, doc, where):
    gd = {}
    for gid, v in doc.items():
        v = dict(v)
        v["results"] = {k: strict(nb.NodeDataResult, r, "%s: %s.results.%s" % (where, gid, k))
                        for k, r in v["results"].items()}
        v["gradient"] = [strict(nb.GradientItem, x, "%s: %s.gradient" % (where, gid))
                         for x in v.get("gradient", [])]
        gd[gid] = strict(nb.GraphNodeData, v, "%s: %s" % (where, gid))
    return nb.ModelNodeData(graphsData=gd)


def record_graphs(path):
    """{method: [node names]} of the ETRecord's edge programs, named as
    torch.fx names them (the JSON's "name", else the single as_tensor
    output's name), memory.alloc nodes left out."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name == "edge_dialect_exported_program":
                method = "forward"
            elif name.startswith("edge_dialect_exported_program/") and not name.endswith(
                    ("_state_dict", "_constants", "_example_inputs")):
                method = name.split("/", 1)[1]
            else:
                continue
            doc = json.loads(z.read(name))
            names = []
            for n in doc["graph_module"]["graph"]["nodes"]:
                if n["target"] == "memory.alloc":
                    continue
                nm = n.get("name")
                if not isinstance(nm, str):
                    outs = n.get("outputs") or []
                    if len(outs) == 1 and (outs[0].get("as_tensor") or {}).get("name"):
                        nm = outs[0]["as_tensor"]["name"]
                names.append(nm)
            out[method] = names
    return out


def main():
    if len(sys.argv) < 3:
        die("usage: mx_check.py DIR ETRECORD [--ratio]")
    d, rec = sys.argv[1], sys.argv[2]
    ratio = "--ratio" in sys.argv[3:]
    gb, nb = load_me()
    with open(os.path.join(d, "graph.json")) as f:
        doc = json.load(f)
    gc = build_graphs(gb, doc)
    # what the dataclasses hold is what the file says (nothing dropped)
    back = asdict(gc)
    for gi, g in enumerate(doc["graphs"]):
        for ni, n in enumerate(g["nodes"]):
            for k, v in n.items():
                if back["graphs"][gi]["nodes"][ni][k] != v:
                    die("graphs[%d].nodes[%d].%s differs after the round trip" % (gi, ni, k))
    expect = record_graphs(rec)
    ids = {}
    for g in gc.graphs:
        if g.id not in expect:
            die("graph %r: not a method of the ETRecord (%s)" % (g.id, sorted(expect)))
        got = [n.id for n in g.nodes]
        if got != expect[g.id]:
            die("graph %r: node ids %s, the ETRecord's nodes %s" % (g.id, got, expect[g.id]))
        known = set(got)
        for n in g.nodes:
            for e in n.incomingEdges:
                if e.sourceNodeId not in known:
                    die("graph %r: node %r: edge from unknown node %r" % (g.id, n.id, e.sourceNodeId))
        ids[g.id] = known
        print("graph %s %d" % (g.id, len(got)))
    if sorted(ids) != sorted(expect):
        die("graphs %s, the ETRecord's methods %s" % (sorted(ids), sorted(expect)))
    files = ["node_data_latency.json", "node_data_share.json", "node_data_delegated.json"]
    if ratio:
        files.append("node_data_ratio.json")
    elif os.path.exists(os.path.join(d, "node_data_ratio.json")):
        die("node_data_ratio.json written without a baseline")
    for fn in files:
        with open(os.path.join(d, fn)) as f:
            raw = json.load(f)
        md = build_node_data(nb, raw, fn)
        # Model Explorer's own serialisation reads back as the file
        again = json.loads(md.to_json_string())
        for gid, v in raw.items():
            for k in ("name", "results", "gradient"):
                if again[gid].get(k) != v.get(k):
                    die("%s: %s.%s differs after Model Explorer's own serialisation" % (fn, gid, k))
        for gid, gnd in md.graphsData.items():
            if gid not in ids:
                die("%s: graph %r is not in graph.json" % (fn, gid))
            stops = [x.stop for x in gnd.gradient]
            if not stops or stops[0] != 0 or stops[-1] != 1:
                die("%s: %s: the gradient must run from stop 0 to stop 1" % (fn, gid))
            for nid, r in gnd.results.items():
                if nid not in ids[gid]:
                    die("%s: %s: node %r is not a node of the graph" % (fn, gid, nid))
                if not isinstance(r.value, (int, float)):
                    die("%s: %s: %s: value %r is not a number" % (fn, gid, nid, r.value))
                print("%s %s %s %r" % (fn, gid, nid, r.value))


main()
