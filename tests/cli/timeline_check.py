"""timeline_check.py FILE ITERATIONS WARMUP BATCH QD WORKERS [--tier] [--layout OUT]

Checks a `tiersim run --timeline` file of one row: valid JSON; the tracks
named; one step per iteration (warm-up included) carrying BATCH samples;
every released batch's samples each read once and (WORKERS > 0) decoded
once; at most QD reader lanes and WORKERS decode workers; on every track
but the batch slots no two slices overlap, and slices come in time order
on each track. --tier: tier request tracks must be there. --layout OUT
writes the track kinds and counts, to compare a real and a virtual run.
"""
import json
import re
import sys
from collections import defaultdict

want_tier = "--tier" in sys.argv
layout_out = None
if "--layout" in sys.argv:
    layout_out = sys.argv[sys.argv.index("--layout") + 1]
args = [a for a in sys.argv[1:] if not a.startswith("--") and a != layout_out]
assert len(args) == 6, __doc__
path, iters, warmup, batch, qd, workers = args[0], *map(int, args[1:])

d = json.load(open(path))
ev = d["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["name"] == "process_name"}
assert len(procs) == 1, procs
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["name"] == "thread_name"}
slices = [e for e in ev if e["ph"] == "X"]
assert d["otherData"]["events"] == len(slices), (d["otherData"], len(slices))
assert d["otherData"]["dropped"] == 0


def ns(x):
    return round(x * 1000)


by_kind = defaultdict(list)
by_tid = defaultdict(list)
for e in slices:
    tname = names[(e["pid"], e["tid"])]
    kind = re.sub(r" \d+$", "", tname)
    by_kind[kind].append(e)
    by_tid[tname].append(e)

kinds = set(by_kind)
need = {"engine", "batch slot", "reader lane"}
if workers:
    need.add("decode worker")
if want_tier:
    need.add("tier lane")
assert need <= kinds, (need, kinds)
if not workers:
    assert "decode worker" not in kinds, kinds

steps = by_kind["engine"]
assert len(steps) == iters + warmup, (len(steps), iters, warmup)
assert [s["args"]["step"] for s in steps] == list(range(iters + warmup))
assert all(s["args"]["samples"] == batch for s in steps)
assert sum(s["args"]["warmup"] for s in steps) == warmup

batches = [b for b in by_kind["batch slot"] if b["name"].startswith("batch ")]
released = {b["args"]["seq"]: b["args"]["samples"] for b in batches}
# Every step's batch was released, with the samples the step ran.
assert sorted(released) == sorted(s["args"]["batch"] for s in steps), released
reads = defaultdict(list)
for r in by_kind["reader lane"]:
    assert r["name"] == "read", r
    assert r["args"]["bytes"] > 0, r
    reads[r["args"]["batch"]].append(r["args"]["sample"])
decodes = defaultdict(list)
for r in by_kind.get("decode worker", []):
    assert r["name"] == "decode", r
    decodes[r["args"]["batch"]].append(r["args"]["sample"])
for seq, n in released.items():
    assert n == batch, (seq, n)
    assert len(reads[seq]) == n == len(set(reads[seq])), (seq, reads[seq])
    if workers:
        assert sorted(decodes[seq]) == sorted(reads[seq]), (seq, decodes[seq])

lanes = {k: len({names[(e["pid"], e["tid"])] for e in v}) for k, v in by_kind.items()}
assert lanes["reader lane"] <= qd, lanes
if workers:
    assert lanes["decode worker"] <= workers, lanes

for tname, v in by_tid.items():
    starts = [ns(e["ts"]) for e in v]
    assert starts == sorted(starts), (tname, "not in time order")
    if tname.startswith("batch slot"):
        continue
    for a, b in zip(v, v[1:]):
        assert ns(a["ts"]) + ns(a["dur"]) <= ns(b["ts"]), (tname, a, b)

if layout_out:
    json.dump({"kinds": sorted(kinds), "steps": len(steps), "batches": sorted(released),
               "reads": {str(k): len(v) for k, v in sorted(reads.items()) if k in released},
               "decodes": {str(k): len(v) for k, v in sorted(decodes.items()) if k in released}},
              open(layout_out, "w"), sort_keys=True)
print("timeline ok:", {k: len(v) for k, v in sorted(by_kind.items())}, lanes)
