#!/usr/bin/env python3
"""perfetto_check.py - decode a Perfetto trace written by etinspect with
Perfetto's own perfetto_trace.proto (compiled by protoc into PB2DIR) and
check it against the Chrome JSON trace of the same dump and options:

  perfetto_check.py PB2DIR TRACE.pftrace TRACE.json [--cycles] [--flows N]

Checks: one sequence; the first packet clears the incremental state and
every later one needs it; event names and annotation names interned once
and defined before use; every track's parent defined before it; slices
(SLICE_BEGIN/SLICE_END matched per track in timestamp order) equal the
JSON's complete events one for one - process and track names, name,
ts and dur in ns, nesting depth, args as debug annotations;
every flow goes from a DELEGATE_CALL to a delegated slice of the same
run and instruction id, and every delegated slice inside a written
DELEGATE_CALL it belongs to ends one; allocation counters are
UNIT_SIZE_BYTES tracks with the JSON's samples; a "cycles" counter
exactly when --cycles.  Prints a summary line; exits 1 on a mismatch.
"""
import json
import sys
from collections import defaultdict


def fail(msg):
    print("perfetto_check: " + msg)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    want_cycles = "--cycles" in args
    flows_min = None
    if "--flows" in args:
        flows_min = int(args[args.index("--flows") + 1])
    pos = [a for a in args if not a.startswith("--") and not a.isdigit()]
    pb2dir, pf_path, js_path = pos[:3]
    sys.path.insert(0, pb2dir)
    import perfetto_trace_pb2 as pb

    trace = pb.Trace()
    trace.ParseFromString(open(pf_path, "rb").read())
    TE = pb.TrackEvent
    names, ann_names = {}, {}
    default_track = 0
    tracks = {}  # uuid -> (name, parent, counter descriptor or None)
    events = defaultdict(list)  # track -> [(ts, order, type, event)]
    counters = defaultdict(list)
    for i, p in enumerate(trace.packet):
        if p.trusted_packet_sequence_id != 1:
            fail("packet %d: sequence %d" % (i, p.trusted_packet_sequence_id))
        want = 1 if i == 0 else 2
        if p.sequence_flags != want:
            fail("packet %d: sequence_flags %d, expected %d" % (i, p.sequence_flags, want))
        if p.HasField("interned_data"):
            d = p.interned_data
            for tab, lst in ((names, d.event_names), (ann_names, d.debug_annotation_names)):
                for e in lst:
                    if e.iid in tab:
                        fail("packet %d: iid %d interned twice" % (i, e.iid))
                    tab[e.iid] = e.name
        if p.HasField("track_descriptor"):
            t = p.track_descriptor
            if t.uuid in tracks:
                fail("track %d described twice" % t.uuid)
            if t.parent_uuid and t.parent_uuid not in tracks:
                fail("track %d: parent %d not described before" % (t.uuid, t.parent_uuid))
            tracks[t.uuid] = (t.name, t.parent_uuid, t.counter if t.HasField("counter") else None)
        if p.HasField("trace_packet_defaults"):
            default_track = p.trace_packet_defaults.track_event_defaults.track_uuid
        if p.HasField("track_event"):
            e = p.track_event
            if not e.HasField("track_uuid"):
                e.track_uuid = default_track
            if e.track_uuid not in tracks:
                fail("packet %d: track %d not described before" % (i, e.track_uuid))
            if e.type == TE.TYPE_COUNTER:
                counters[e.track_uuid].append((p.timestamp, e.counter_value))
                continue
            if e.type == TE.TYPE_SLICE_BEGIN:
                if e.name_iid not in names:
                    fail("packet %d: name iid %d not interned before" % (i, e.name_iid))
                for a in e.debug_annotations:
                    if a.name_iid not in ann_names:
                        fail("packet %d: annotation name iid %d not interned" % (i, a.name_iid))
            events[e.track_uuid].append((p.timestamp, i, e.type, e))
    if not trace.packet or 1 not in tracks:
        fail("no root track")

    def ann_value(a):
        if a.array_values:
            return [ann_value(x) for x in a.array_values]
        for f in ("int_value", "string_value", "bool_value", "double_value", "legacy_json_value"):
            if a.HasField(f):
                v = getattr(a, f)
                return json.loads(v) if f == "legacy_json_value" else v
        return None

    # slices, matched per track in timestamp order (stable: file order at ties)
    pf_slices = []
    for uuid, evs in events.items():
        evs.sort(key=lambda x: (x[0], x[1]))
        stack = []
        tname, parent, _ = tracks[uuid]
        pname = tracks[parent][0] if parent in tracks else ""
        for ts, _, typ, e in evs:
            if typ == TE.TYPE_SLICE_BEGIN:
                stack.append((ts, e, len(stack)))
            elif typ == TE.TYPE_SLICE_END:
                if not stack:
                    fail("track %s: an end without a begin at %d" % (tname, ts))
                bts, be, depth = stack.pop()
                args = {ann_names[a.name_iid]: ann_value(a) for a in be.debug_annotations}
                pf_slices.append({"proc": pname, "track": tname, "name": names[be.name_iid],
                                  "ts": bts,
                                  "dur": ts - bts, "depth": depth, "args": args,
                                  "flows": list(be.flow_ids),
                                  "term": list(be.terminating_flow_ids)})
            else:
                fail("track %s: event type %d" % (tname, typ))
        if stack:
            fail("track %s: %d slices never end" % (tname, len(stack)))

    # the JSON trace
    doc = json.load(open(js_path))
    pnames, tnames = {}, {}
    js_slices, js_counters = [], []
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            tnames[(e["pid"], e["tid"])] = e["args"]["name"]
    by_track = defaultdict(list)
    for e in doc["traceEvents"]:
        if e["ph"] == "X":
            by_track[(e["pid"], e["tid"])].append(e)
        elif e["ph"] == "C":
            js_counters.append(e)
    for key, lst in by_track.items():
        lst.sort(key=lambda e: (round(e["ts"] * 1000), -round(e["dur"] * 1000)))
        ends = []
        for e in lst:
            ts, dur = round(e["ts"] * 1000), round(e["dur"] * 1000)
            while ends and ends[-1] <= ts:
                ends.pop()
            js_slices.append({"proc": pnames[key[0]], "track": tnames[key], "name": e["name"],
                              "ts": ts, "dur": dur, "depth": len(ends),
                              "args": e.get("args", {})})
            ends.append(ts + dur)

    def norm(s):
        a = dict(s["args"])
        if "logged_dur_us" in a:
            a["logged_dur_us"] = round(a["logged_dur_us"] * 1000)
        return (s["proc"], s["track"], s["name"], s["ts"], s["dur"],
                s["depth"], json.dumps(a, sort_keys=True))

    a = sorted(norm(s) for s in pf_slices)
    b = sorted(norm(s) for s in js_slices)
    if a != b:
        sa, sb = set(a), set(b)
        only_p = sorted(sa - sb)[:3]
        only_j = sorted(sb - sa)[:3]
        fail("slices differ: %d perfetto, %d json; only in perfetto %s; only in json %s"
             % (len(a), len(b), only_p, only_j))

    # flows
    ends_at = {}
    for s in pf_slices:
        for f in s["term"]:
            if f in ends_at:
                fail("flow %d ends twice" % f)
            ends_at[f] = s
    n_flows = 0
    for s in pf_slices:
        if s["flows"] and s["name"] != "DELEGATE_CALL":
            fail("a flow starts at %s" % s["name"])
        for f in s["flows"]:
            t = ends_at.pop(f, None)
            if t is None:
                fail("flow %d from DELEGATE_CALL ends nowhere" % f)
            if (not t["track"].startswith("delegate") or t["args"].get("run") != s["args"].get("run")
                    or t["args"].get("instruction_id") != s["args"].get("instruction_id")):
                fail("flow %d: DELEGATE_CALL to %s of another run or instruction" % (f, t["name"]))
            n_flows += 1
    if ends_at:
        fail("%d flows end without a start" % len(ends_at))
    if flows_min is not None and n_flows < flows_min:
        fail("%d flows, expected at least %d" % (n_flows, flows_min))

    # counters
    n_samples = 0
    by_name = {}
    for uuid, (tname, parent, cd) in tracks.items():
        if cd is not None:
            by_name[(tracks[parent][0], tname)] = (uuid, cd)
    for e in js_counters:
        for series, v in e["args"].items():
            key = (pnames[e["pid"]], "allocated bytes: " + series)
            if key not in by_name:
                fail("no counter track %s" % (key,))
            uuid, cd = by_name[key]
            if cd.unit != pb.CounterDescriptor.UNIT_SIZE_BYTES:
                fail("counter %s: unit %d" % (key, cd.unit))
            if (round(e["ts"] * 1000), v) not in counters[uuid]:
                fail("counter %s: no sample %s at %s" % (key, v, e["ts"]))
            n_samples += 1
    n_alloc = sum(len(counters[u]) for (p, t), (u, cd) in by_name.items()
                  if t.startswith("allocated bytes: "))
    if n_alloc != n_samples:
        fail("%d allocation samples, the JSON has %d" % (n_alloc, n_samples))
    cyc = [(u, cd) for (p, t), (u, cd) in by_name.items() if t == "cycles"]
    if want_cycles != bool(cyc):
        fail("cycles counters: %d" % len(cyc))
    for u, cd in cyc:
        if cd.unit_name != "cycles" or not counters[u]:
            fail("cycles counter without unit or samples")
    print("perfetto_check: ok: %d slices, %d tracks, %d names, %d flows, %d counter samples"
          ", %d cycles samples" % (len(pf_slices), len(tracks), len(names), n_flows, n_samples,
                                   sum(len(counters[u]) for u, _ in cyc)))


main()
