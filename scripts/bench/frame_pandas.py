#!/usr/bin/python3
"""frame_pandas.py OUTDIR [REPS] - benchmark (make bench, the Frame rows;
scripts/bench/frame.sh): pandas' time for the verbs that
scripts/bench/frame_verbs.lua times, on the same rows (OUTDIR/events.tsv,
OUTDIR/keys.tsv and OUTDIR/threshold, which it wrote).  Each verb is timed
alone, REPS times (default 5), and its median CPU time (time.process_time)
printed as "VERB SECONDS CHECK", CHECK being the digest frame_verbs.lua
prints for the same result.  Reading the files is not timed.  Exit 2 when
pandas is not importable (the bench then skips the pandas rows).
"""
import gc
import statistics
import sys
import time

try:
    import pandas as pd
except ImportError:
    sys.exit(2)

pd.set_option("compute.use_bottleneck", False)
out = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5

df = pd.read_csv(out + "/events.tsv", sep="\t", index_col=0, float_precision="round_trip",
                 keep_default_na=False, na_values=[""])
small = pd.read_csv(out + "/keys.tsv", sep="\t", index_col=0, keep_default_na=False,
                    na_values=[""])
with open(out + "/threshold") as f:
    t = float(f.read())


def timed(fn, digest):
    """fn() -> the verb's result, timed; digest(result) -> CHECK, untimed."""
    times, first = [], None
    for _ in range(reps):
        gc.collect()
        t0 = time.process_time()
        r = fn()
        times.append(time.process_time() - t0)
        if first is None:
            first = r
    return statistics.median_low(times), digest(first)


def digest(col):
    s = 0.0
    for v in col:
        if v == v:
            s += v
    return "%d:%.9g" % (len(col), s)


VERBS = (
    ("groupby", lambda: df.groupby("name")["duration"].agg(["count", "mean", "median"]),
     lambda g: "%s/%s/%s" % (digest(g["count"]), digest(g["mean"]), digest(g["median"]))),
    ("sort", lambda: df.sort_values("duration", ascending=False, kind="stable").head(5),
     lambda h: ",".join("%.17g" % v for v in h["duration"])),
    ("join", lambda: df.merge(small, on="name", how="left"),
     lambda j: "%d:%d" % (len(j), int(j["category"].notna().sum()))),
    ("query", lambda: df.query("duration > @t"), lambda r: str(len(r))),
)

for name, fn, dg in VERBS:
    secs, check = timed(fn, dg)
    print(name, "%.6f" % secs, check)
