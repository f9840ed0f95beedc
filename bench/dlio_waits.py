#!/usr/bin/env python3
# dlio_waits.py — the waiting in a DLIO-like run that is neither a
# request's service nor CPU, from a tierfs trace (the text of `tiersim
# trace dump TRACE` on stdin).
#
# Each reading thread (one that opened files) makes one synchronous
# request at a time: between a request's reply and its next request it
# runs (its own CPU), waits for a core (runnable), or waits for nothing the
# trace sees (the kernel handing the request to the FUSE daemon, a sleeping
# vCPU woken). tierfs samples the thread's schedstat clocks (on a CPU,
# runnable) at its requests, so over a stretch between two sampled
# requests of one thread
#     wait = sum of the gaps (reply to next request) - time on a CPU
#            + tierfs's own lateness in replying (late_ns, inside the spans)
# is what the thread waited outside the tier's modeled service. Stretches
# with a gap over 50 ms (a worker idle between its batches) are left out.
# Each stretch goes to a bucket by how many reading threads made a request
# within 10 ms of its middle: "1-2" (an epoch's tail, the host's cores
# idle), "3-5", "6+".
#
# Prints per bucket: opened files, charged requests per file (opens and
# reads: what virtual time submits), and per file and per charged
# request, us: the wait, its runnable part (runq), the rest.
#   --json: one JSON object instead, the buckets as keys.
#   --slices N: also "1-2" per N equal slices of the trace's span (with N
#   the epochs: each epoch's tail apart), as keys "1-2/1" .. "1-2/N".
import collections
import json
import sys

from dlio_sample_split import Bad, fmt, parse, per, readers_of

try:
    recs = parse(sys.stdin)
except Bad as e:
    sys.exit("dlio_waits.py: stdin: %s" % e)
readers, active = readers_of(recs)

acc = collections.defaultdict(lambda: [0] * 6)  # wait, runq, files, charged, stretches, late
args = sys.argv[1:]
slices = int(args[args.index("--slices") + 1]) if "--slices" in args else 0
t0 = min((r[0] for r in recs), default=0)
span = max((r[1] for r in recs), default=1) - t0 or 1
for rs in readers.values():
    idx = [i for i, r in enumerate(rs) if r[4] is not None]
    for a, b in zip(idx, idx[1:]):
        gaps = [rs[k][0] - rs[k - 1][1] for k in range(a + 1, b + 1)]
        if max(gaps) > 50_000_000:
            continue
        body = rs[a:b]
        on = rs[b][4][0] - rs[a][4][0]
        late = sum(r[5] for r in body)
        k = active((rs[a][0] + rs[b][0]) // 2)
        key = "1-2" if k <= 2 else ("3-5" if k <= 5 else "6+")
        keys = [key, "all"]
        if slices and key == "1-2":
            keys.append("1-2/%d" % (1 + min(slices - 1, (rs[a][0] - t0) * slices // span)))
        for kk in keys:
            x = acc[kk]
            x[0] += sum(max(g, 0) for g in gaps) - on + late
            x[1] += rs[b][4][1] - rs[a][4][1]
            x[2] += sum(r[2] == "open" for r in body)
            x[3] += sum(r[2] in ("open", "read") for r in body)
            x[4] += 1
            x[5] += late
out = {}
for k in ["1-2", "3-5", "6+", "all"] + ["1-2/%d" % (i + 1) for i in range(slices)]:
    if k in acc:
        wt, rq, nf, nc, ns, late = acc[k]
        out[k] = {"files": nf, "charged_per_file": per(nc, nf, 1), "wait_us_per_file": per(wt, nf),
                  "wait_us_per_request": per(wt, nc), "runq_us_per_request": per(rq, nc),
                  "late_us_per_request": per(late, nc)}
if "--json" in args:
    print(json.dumps(out))
else:
    print("%-4s %6s %8s | %10s %10s %9s %9s" % ("open", "files", "req/file", "wait/file", "wait/req",
                                              "runq/req", "late/req"))
    for k, v in out.items():
        print("%-4s %6d %8s | %10s %10s %9s %9s" % (
            k, v["files"], fmt(v["charged_per_file"], 2), fmt(v["wait_us_per_file"], 0),
            fmt(v["wait_us_per_request"], 1), fmt(v["runq_us_per_request"], 1),
            fmt(v["late_us_per_request"], 1)))
