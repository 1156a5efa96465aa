#!/usr/bin/python3
"""Expected values for tests/lua/frame.t and tests/lua/delegate_data.t,
computed with pandas and tabulate from the reference's outputs in the shared
corpus (ref/NAME.json: every event as the reference Inspector built it).

    /usr/bin/python3 tests/lua/gen_frame_cases.py [SHARED_DIR]

needs Debian 12's python3-pandas (1.5.3) and python3-tabulate (0.8.9), the
versions the reference ran with (corpus README).  It writes

  tests/lua/frame_cases.lua           pandas' numbers for the Frame verbs on
                                      medium.etdp (and small.etdp)
  tests/fixtures/delegate_data/       what the reference's print_data_tabular
                                      and save_data_to_tsv print with
                                      include_delegate_debug_data=True:
                                      NAME.PARSER.tsv / .print.txt for small
                                      and debug (lenient), and SHA256SUMS for
                                      those and for medium (too big to keep);
                                      PARSER: raw (none), mixed, num, flag

The reference's frames are rebuilt from the events as its code builds them
(Event.asdict, EventBlock.to_dataframe, Inspector.to_dataframe,
_prepare_dataframe); without delegate data the result must equal the
corpus's ref/NAME.tsv and ref/NAME.print.txt byte for byte, which this
script checks before it writes anything.  pandas runs without bottleneck,
so sums, means and standard deviations are NumPy's pairwise sums, as
etinspect computes them.
"""
import hashlib
import io
import json
import math
import os
import sys

import numpy as np
import pandas as pd
from tabulate import tabulate

pd.set_option("compute.use_bottleneck", False)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "..", "shared")
REF = os.path.join(SHARED, "corpus", "ref")
STATS = ["p10", "p50", "p90", "avg", "min", "max"]


# ---------------------------------------------------------------- the reference's frames

def load(name):
    with open(os.path.join(REF, name + ".json")) as f:
        return json.load(f)


def raw_metadatas(e):
    """Event._delegate_debug_metadatas: bytes per run ("" where a run has
    none), or [] when every run's is empty."""
    lst = [bytes.fromhex(h) if h else "" for h in e.get("raw_delegate_debug_metadatas_hex") or []]
    return lst if any(lst) else []


def asdict(e, units):
    """Event.asdict(_units): one row; list values wrapped in one-element lists."""
    p = e["perf_data"]
    ops = e["op_types"]
    if len(ops) >= 5:
        ops = f"['{ops[0]}', '{ops[1]}' ... '{ops[-1]}'] ({len(ops)} total)"
    row = {"event_name": e["name"], "raw": [p["raw"] if p else None]}
    for s in STATS:
        row[s + units] = p[s] if p else None
    row.update({
        "op_types": [ops],
        "delegate_debug_identifier": e["delegate_debug_identifier"],
        "stack_traces": [e["stack_traces"]],
        "module_hierarchy": [e["module_hierarchy"]],
        "is_delegated_op": e["is_delegated_op"],
        "delegate_backend_name": e["delegate_backend_name"],
        "debug_data": [[]],
        "start_time": [e["start_time"]],
    })
    return row


def block_frame(b, units, include_dd, parser):
    events = b["events"]
    df = pd.concat([pd.DataFrame(asdict(e, units)) for e in events], ignore_index=True)
    df.insert(0, "event_block_name", np.asarray([b["name"] for _ in events]), allow_duplicates=True)
    if include_dd:
        data = []
        for e in events:
            md = raw_metadatas(e)
            if e["is_delegated_op"] and parser is not None:
                md = parser(md)
            if md is not None and len(md) > 0:
                if isinstance(md, list):
                    data.append(pd.Series([md], index=["delegate_debug_metadata"], dtype=object))
                elif isinstance(md, dict):
                    data.append(pd.Series(md))
                else:
                    raise ValueError(f"Unexpected type for delegate_debug_metadata: {type(md)}")
            else:
                data.append(pd.Series(dtype="float64"))
        if any(not s.empty for s in data):
            df = pd.concat([df, pd.DataFrame(data)], axis=1)
    return df


def display_frame(doc, include_dd=False, parser=None):
    units = " (" + doc["inputs"]["target_time_scale"] + ")"
    df = pd.concat([block_frame(b, units, include_dd, parser) for b in doc["event_blocks"]],
                   ignore_index=True)
    df = df.drop(columns=["raw", "delegate_debug_identifier", "stack_traces", "module_hierarchy",
                          "debug_data"])
    df = df[~df["event_name"].str.contains("OPERATOR_CALL")]
    df.reset_index(drop=True, inplace=True)
    return df


def tsv_text(df):
    buf = io.StringIO()
    df.to_csv(buf, sep="\t")
    return buf.getvalue()


def print_text(df):
    return tabulate(df, headers="keys", tablefmt="fancy_grid") + "\n"


def mixed_parser(lst):
    """The test parser (tests/lua/delegate_data.t has the same in Lua): a
    dict of ints, a float, a bool and a str for JSON metadata, a list of
    sizes for binary metadata, nothing when every run is empty."""
    first = lst[0] if lst else b""
    if len(first) == 0:
        return {}
    if first[:1] == b"{":
        return {"size": len(first), "runs": len(lst), "share": len(first) / 3,
                "json": True, "head": first[:4].decode("ascii")}
    return [len(x) for x in lst]


def num_parser(lst):
    """Numbers only: an int and a float per event with metadata."""
    first = lst[0] if lst else b""
    return {"size": len(first), "ratio": len(first) / 4} if first else {}


def flag_parser(lst):
    """A bool per event with metadata."""
    first = lst[0] if lst else b""
    return {"is_json": first[:1] == b"{"} if first else {}


PARSERS = [("raw", None), ("mixed", mixed_parser), ("num", num_parser), ("flag", flag_parser)]


# ---------------------------------------------------------------- Lua literals

def lua(v):
    if isinstance(v, (np.generic,)):
        v = v.item()
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "0/0"
        if math.isinf(v):
            return "math.huge" if v > 0 else "-math.huge"
        return repr(v)
    if isinstance(v, str):
        return '"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else
                             "\\" + c if c in '"\\' else "\\%d" % ord(c) for c in v) + '"'
    if isinstance(v, bytes):
        return '"' + "".join(chr(c) if 32 <= c < 127 and chr(c) not in '"\\' else
                             "\\" + chr(c) if chr(c) in '"\\' else "\\%03d" % c for c in v) + '"'
    if isinstance(v, (list, tuple)):
        return "{" + ", ".join(lua(x) for x in v) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join("[" + lua(k) + "] = " + lua(x) for k, x in v.items()) + "}"
    raise TypeError(type(v))


# ---------------------------------------------------------------- the Frame verbs

def verbs(doc):
    """pandas' answers for the verbs of tests/lua/frame.t, on the frame of
    every event: block, name, statistics, is_delegated_op."""
    rows = []
    for b in doc["event_blocks"]:
        for e in b["events"]:
            p = e["perf_data"]
            r = {"event_block_name": b["name"], "event_name": e["name"]}
            for s in STATS:
                r[s + " (ms)"] = p[s] if p else float("nan")
            r["is_delegated_op"] = e["is_delegated_op"]
            rows.append(r)
    F = pd.DataFrame(rows)
    out = {"rows": len(F), "columns": list(F.columns)}

    # group_by on two columns, every aggregator
    g = F.groupby(["event_block_name", "is_delegated_op"])["avg (ms)"]
    aggs = ["count", "sum", "mean", "median", "std", "var", "min", "max", "first", "last"]
    t = g.agg(aggs)
    t["quantile(0.9)"] = g.quantile(0.9)
    out["group2"] = [[k[0], k[1]] + [t.loc[k, a] for a in aggs + ["quantile(0.9)"]] for k in t.index]
    out["group2_aggs"] = aggs + ["quantile(0.9)"]

    # dict form with lists, and a single aggregator
    d = F.groupby("event_name").agg({"avg (ms)": ["sum", "max"], "p50 (ms)": "median"})
    out["dict_form"] = [[k, d.loc[k, ("avg (ms)", "sum")], d.loc[k, ("avg (ms)", "max")],
                         d.loc[k, ("p50 (ms)", "median")]] for k in d.index]

    # named form
    n = F.groupby("is_delegated_op").agg(total=("avg (ms)", "sum"), n=("event_name", "count"),
                                          p90=("p90 (ms)", lambda s: s.quantile(0.9)),
                                          spread=("max (ms)", "std"))
    out["named_form"] = [[k, n.loc[k, "total"], n.loc[k, "n"], n.loc[k, "p90"], n.loc[k, "spread"]]
                         for k in n.index]

    # whole-frame aggregation of the numeric columns
    m = F.groupby("event_block_name").mean(numeric_only=True)
    out["group_mean_cols"] = [c for c in m.columns]
    out["group_mean"] = [[k] + [m.loc[k, c] for c in m.columns] for k in m.index]

    # sort on two columns, per-column direction (stable, as etinspect's)
    s = F.sort_values(["is_delegated_op", "avg (ms)"], ascending=[False, True], kind="stable")
    out["sort2"] = [int(i) for i in s.index]
    s = F.sort_values(["event_name", "p50 (ms)"], ascending=[True, False], kind="stable")
    out["sort_name_p50"] = [int(i) for i in s.index]

    out["head7"] = [int(i) for i in F.head(7).index]
    out["tail4"] = [int(i) for i in F.tail(4).index]
    out["head_neg"] = [int(i) for i in F.head(-(len(F) - 3)).index]
    out["tail_neg"] = [int(i) for i in F.tail(-(len(F) - 2)).index]

    out["unique"] = list(F["event_name"].unique())

    # value_counts: pandas' counts; ties in first-seen order
    vc = F["event_name"].value_counts()
    first = F.groupby("event_name", sort=False).size().sort_values(ascending=False, kind="stable")
    assert dict(vc) == dict(first)
    out["value_counts"] = [[k, int(v)] for k, v in first.items()]
    vc2 = F[["event_block_name", "is_delegated_op"]].value_counts(normalize=True)
    out["value_counts2"] = [[k[0], k[1], v] for k, v in vc2.items()]

    dsc = F[[s + " (ms)" for s in STATS]].describe()
    out["describe_index"] = list(dsc.index)
    out["describe"] = {c: [dsc.loc[i, c] for i in dsc.index] for c in dsc.columns}

    # rename and new columns
    out["mutate"] = list((F["avg (ms)"] * 1000 / F["max (ms)"]).head(6))

    # joins
    right = F.groupby("event_name", as_index=False).agg(n=("event_name", "count"),
                                                       best=("min (ms)", "min"))
    j = F.merge(right, on="event_name", how="inner")
    out["join_inner_rows"] = len(j)
    out["join_inner_cols"] = list(j.columns)
    out["join_inner_head"] = [[r["event_name"], r["n"], r["best"]] for _, r in j.head(8).iterrows()]
    part = F.groupby("event_name", as_index=False)["avg (ms)"].mean()
    part = part[part["event_name"].str.startswith("native")]
    j = F.merge(part, on="event_name", how="left", suffixes=("_a", "_b"))
    out["join_left_cols"] = list(j.columns)
    out["join_left_rows"] = len(j)
    out["join_left_b"] = list(j["avg (ms)_b"].head(12))
    j = F.merge(part, on="event_name", how="right")
    out["join_right_rows"] = len(j)
    out["join_right_head"] = list(j["event_name"].head(5))
    out["join_outer_rows"] = len(F.merge(part, on="event_name", how="outer"))

    out["column_sum"] = F["avg (ms)"].sum()
    out["column_median"] = F["p50 (ms)"].median()
    return out


# ---------------------------------------------------------------- generated frames

# Frames made up to reach the edges (tests/lua/frame_edge.t): NaN and
# missing values, an empty frame, one row, strings with NUL and invalid
# UTF-8 (Python bytes: compared, sorted and grouped by bytes, as etinspect
# does), duplicate join keys and a missing join key on both sides.  Every
# frame has the columns i (the row's number, to follow rows through a
# verb), k (text, may be missing), x (float64, may be NaN) and y (int64).
NAN = float("nan")

GEN_FRAMES = {
    "nan": {
        "k": ["a", "b", None, "a", "c", "b", None, "a", "c", "d"],
        "x": [1.5, NAN, 2.0, NAN, 0.25, 3.0, 1.0, 0.5, NAN, NAN],
        "y": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3],
        "right": {"k": ["a", "a", "b", None, "z"], "z": [10, 20, 30, 40, 50]},
    },
    "empty": {"k": [], "x": [], "y": [], "right": {"k": ["a"], "z": [1]}},
    "one": {"k": ["a"], "x": [2.5], "y": [7], "right": {"k": ["a", "a"], "z": [1, 2]}},
    "bytes": {
        "k": [b"a\x00b", b"a", b"\xff\xfe", "\u00e9".encode(), b"a\x00", b"", b"\xff\xfe",
              b"a\x00b"],
        "x": [0.5, 1.0, 2.0, NAN, 4.0, 5.0, 6.0, 7.0],
        "y": [1, 2, 3, 4, 5, 6, 7, 8],
        "right": {"k": [b"a\x00b", b"\xff\xfe", b"\xff\xfe", b"q"], "z": [1, 2, 3, 4]},
    },
    "dupkeys": {
        "k": ["p", "q", "p", "p", "r", "q"],
        "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "y": [0, 0, 1, 1, 2, 2],
        "right": {"k": ["q", "p", "q", "p", "s"], "z": [1, 2, 3, 4, 5]},
    },
}
GEN_AGGS = ["count", "sum", "mean", "median", "min", "max", "std", "var", "first", "last"]


def gen_frame(spec):
    n = len(spec["x"])
    return pd.DataFrame({"i": pd.Series(range(n), dtype="int64"),
                         "k": pd.Series(spec["k"], dtype=object),
                         "x": pd.Series(spec["x"], dtype="float64"),
                         "y": pd.Series(spec["y"], dtype="int64")})


def cell(v):
    """A pandas cell as the Lua value etinspect gives: None for a missing
    text cell, NaN for a missing number."""
    if isinstance(v, np.generic):
        v = v.item()
    if v is None:
        return None
    if isinstance(v, float) and math.isnan(v):
        return NAN
    return v


def table_of(df):
    """A result frame: its columns and its rows as lists of cells (a missing
    cell of a text column is None: etinspect's nil)."""
    text = [df[c].dtype == object for c in df.columns]
    return {"columns": [str(c) for c in df.columns],
            "rows": [[None if t and cell(v) != cell(v) else cell(v) for t, v in zip(text, r)]
                     for r in df.itertuples(index=False)]}


def gen_answers(spec):
    F = gen_frame(spec)
    R = pd.DataFrame({"k": pd.Series(spec["right"]["k"], dtype=object),
                      "z": pd.Series(spec["right"]["z"], dtype="int64")})
    out = {"frame": table_of(F), "right": table_of(R), "aggs": GEN_AGGS}
    g = F.groupby("k")["x"]
    t = g.agg(GEN_AGGS).reset_index()
    out["group"] = table_of(t)
    t = F.groupby("k", dropna=False, sort=False)["x"].agg(["count", "sum"]).reset_index()
    out["group_nodrop_unsorted"] = table_of(t)
    out["size"] = table_of(F.groupby("k").size().reset_index(name="size"))
    for name, by, asc in [("sort_x", ["x"], [True]), ("sort_x_desc", ["x"], [False]),
                          ("sort_k", ["k"], [True]), ("sort_k_desc", ["k"], [False]),
                          ("sort_k_x", ["k", "x"], [True, False])]:
        out[name] = [int(v) for v in F.sort_values(by, ascending=asc, kind="stable")["i"]]
    out["sort_x_nafirst"] = [int(v) for v in
                             F.sort_values("x", na_position="first", kind="stable")["i"]]
    out["head3"] = [int(v) for v in F.head(3)["i"]]
    out["tail2"] = [int(v) for v in F.tail(2)["i"]]
    out["filter"] = [int(v) for v in F[F["x"] > 0.75]["i"]]
    u = [cell(v) for v in F["k"].unique()]
    out["unique"] = {"n": len(u), "values": u}  # n: the values may hold a missing one
    first = F.groupby("k", sort=False).size().sort_values(ascending=False, kind="stable")
    assert dict(F["k"].value_counts()) == dict(first)
    out["value_counts"] = [[cell(k), int(v)] for k, v in first.items()]
    d = F[["x", "y"]].describe()
    out["describe_index"] = list(d.index)
    out["describe"] = {c: [cell(d.loc[i, c]) for i in d.index] for c in d.columns}
    out["mutate"] = [cell(v) for v in F["x"] * 2 + F["y"]]
    for how in ["inner", "left", "right", "outer"]:
        out["join_" + how] = table_of(F.merge(R, on="k", how=how)[["i", "k", "z"]])
    out["concat"] = [int(v) for v in pd.concat([F, F.head(2)], ignore_index=True)["i"]]
    return out


def generated():
    return {name: gen_answers(spec) for name, spec in GEN_FRAMES.items()}


# ---------------------------------------------------------------- main

def main():
    if not os.path.isdir(REF):
        sys.exit(f"{REF}: no such directory (the shared corpus)")
    # 1. the emulation reproduces the reference's outputs
    for name, ref in [("small", "small"), ("medium", "medium"), ("debug.lenient", "debug.lenient")]:
        df = display_frame(load(name))
        with open(os.path.join(REF, ref + ".tsv")) as f:
            assert tsv_text(df) == f.read(), name + ".tsv differs from the reference's"
        p = os.path.join(REF, ref + ".print.txt")
        if os.path.exists(p):
            with open(p) as f:
                assert print_text(df) == f.read(), name + ".print.txt differs from the reference's"

    # 2. include_delegate_debug_data=True
    outdir = os.path.join(SRC, "tests", "fixtures", "delegate_data")
    os.makedirs(outdir, exist_ok=True)
    sums = []
    for name, out in [("small", "small"), ("debug.lenient", "debug"), ("medium", "medium")]:
        doc = load(name)
        for pname, parser in PARSERS:
            df = display_frame(doc, True, parser)
            for ext, text in [("tsv", tsv_text(df)), ("print.txt", print_text(df))]:
                fn = f"{out}.{pname}.{ext}"
                sums.append(f"{hashlib.sha256(text.encode()).hexdigest()}  {fn}\n")
                if out != "medium":
                    with open(os.path.join(outdir, fn), "w") as f:
                        f.write(text)
    with open(os.path.join(outdir, "SHA256SUMS"), "w") as f:
        f.writelines(sums)

    # 3. the Frame verbs
    cases = {"medium": verbs(load("medium")), "small": verbs(load("small")),
             "generated": generated()}
    with open(os.path.join(HERE, "frame_cases.lua"), "w") as f:
        f.write("-- frame_cases.lua - pandas " + pd.__version__ + "'s answers for tests/lua/frame.t,\n"
                "-- written by tests/lua/gen_frame_cases.py (do not edit).\n")
        f.write("return {\n")
        for dump, vals in cases.items():
            f.write(f"  {dump} = {{\n")
            for k, v in vals.items():
                f.write(f"    {k} = {lua(v)},\n")
            f.write("  },\n")
        f.write("}\n")


if __name__ == "__main__":
    main()
