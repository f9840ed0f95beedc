#!/usr/bin/env python3
"""dlio_first_step.py -- where DLIO 2.0.0's AU goes on a row of more than
one rank, epoch by epoch, from bench/dlio_peer.sh's outputs (OUT/ROW-RUN/).

  bench/dlio_first_step.py [--tiersim BUILD] DIR...

DLIO 2.0.0's AU of a rank and epoch is the computation of steps 2..N over
the block's time less the first step's own time (statscounter.py,
compute_metrics_train), and the run's AU is the mean over the ranks
(end_run: allreduce / size). A step's time runs from after the barrier of
the step before to the end of its computation (main.py, _train), so the
wait at the barrier after the first step is inside the AU: the rank whose
first batch came first loses the other's lateness. For each epoch this
prints, from DIR/dlio/N_output.json and DIR/dlio/dlio.log:

  au        each rank's AU, and the run's (their mean)
  first     each rank's first step (DLIO's proc[0]) and how far apart the
            ranks' first steps end (the skew: the barrier's wait)
  rest      each rank's steps 2..N (their computation and load)

and from DIR/dlio.trace (the tierfs trace of DLIO's run, when there), the
first batch's worker of each rank (the rank's first worker forked: the
lowest pid among the processes whose parent is the rank's):

  req       its first request after the loader started (the iterator's
            start: the workers' fork in epoch 1, their resumption later)
  read      its last request's end after the loader started
  after     from there to the first step's end: the batch's collation and
            hand-over, then the step's computation
  skew      how far apart the ranks' first workers end reading, against
            the first steps' skew: the part of the barrier's wait that
            arose while they read, and the part after

Which of the trace's ranks is DLIO's rank 0 is not known from the trace;
the figures that need it (after) are given for both pairings where they
differ: the columns follow the trace's ranks by pid.
"""
import argparse
import collections
import datetime
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dlio_rank_spread import dump_requests, epochs, worker_batches  # noqa: E402

STEP = re.compile(r"\[INFO\] (\S+) Rank (\d+) step (\d+) processed \d+ samples in (\S+) s")


def utc(s):
    return datetime.datetime.fromisoformat(s).replace(tzinfo=datetime.timezone.utc).timestamp()


def dlio_epochs(d):
    """{epoch: {rank: (au, proc list)}} from DLIO's per-rank outputs and
    {epoch: {rank: the first step's end (UTC s)}} from its log."""
    outs = {}
    for f in glob.glob(os.path.join(d, "dlio", "*_output.json")):
        rank = int(os.path.basename(f).split("_")[0])
        o = json.load(open(f))
        for e, v in o.items():
            if e.isdigit() and "block1" in v.get("au", {}):
                outs.setdefault(int(e), {})[rank] = (v["au"]["block1"], v["proc"]["block1"])
    ends, ep = collections.defaultdict(dict), collections.Counter()
    with open(os.path.join(d, "dlio", "dlio.log")) as f:
        for line in f:
            m = STEP.search(line)
            if m and m.group(3) == "1":
                r = int(m.group(2))
                ep[r] += 1
                ends[ep[r]][r] = utc(m.group(1))
    return outs, ends


def trace_workers(tiersim, path):
    """(start_wall_s, [{rank pid: (first request, last end) of its first
    worker}] per epoch), from the tierfs trace; times in wall seconds."""
    header, ppid, per = dump_requests(tiersim, path)
    wall0 = int(header["start_wall_ns"]) / 1e9 if "start_wall_ns" in header else None
    if wall0 is None:
        return None, []
    # a worker's batch: its requests with no gap over 0.9 s; an epoch: the
    # batches starting within 2.5 s of its first
    eps = epochs(worker_batches(per, 0.9e9), 2.5e9)
    res = []
    for ep in eps:
        full = max(b[2] for b in ep)
        first = {}
        for b in ep:
            r = ppid.get(b[3])
            if b[2] == full and r is not None and (r not in first or b[3] < first[r][2]):
                first[r] = (wall0 + b[0] / 1e9, wall0 + b[1] / 1e9, b[3])
        res.append({r: v[:2] for r, v in first.items()})
    return wall0, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiersim", default="build", help="the build directory (default build)")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    tiersim = os.path.join(args.tiersim, "cli", "tiersim")
    tot = collections.defaultdict(list)
    for d in args.dirs:
        if not os.path.isfile(os.path.join(d, "dlio", "dlio.log")):
            sys.exit("dlio_first_step.py: %s: no dlio/dlio.log" % d)
        outs, ends = dlio_epochs(d)
        tw = []
        tpath = os.path.join(d, "dlio.trace")
        if os.path.isfile(tpath) and os.access(tiersim, os.X_OK):
            _, tw = trace_workers(tiersim, tpath)
        print(d)
        for e in sorted(outs):
            ranks = sorted(outs[e])
            if len(ranks) < 2:
                continue
            aus = [outs[e][r][0] for r in ranks]
            p0 = [outs[e][r][1][0] for r in ranks]
            rest = [sum(outs[e][r][1][1:]) for r in ranks]
            fe = [ends[e].get(r) for r in ranks]
            skew = max(fe) - min(fe) if None not in fe else float("nan")
            t0 = statistics.mean(fe[i] - p0[i] for i in range(len(ranks))) if None not in fe else None
            line = "  epoch %d: au %s (run %.1f); first %s s, skew %.3f s; rest %s s" % (
                e, " ".join("%.1f" % a for a in aus), statistics.mean(aus),
                " ".join("%.3f" % p for p in p0), skew, " ".join("%.3f" % x for x in rest))
            tot["au"].append(statistics.mean(aus))
            tot["skew"].append(skew)
            if t0 is not None and e - 1 < len(tw) and len(tw[e - 1]) == len(ranks):
                ws = [tw[e - 1][r] for r in sorted(tw[e - 1])]
                rs = [w[1] for w in ws]
                rskew = max(rs) - min(rs)
                line += "; trace: req %s, read %s, after %s s; skew reading %.3f, after %.3f" % (
                    " ".join("%+.3f" % (w[0] - t0) for w in ws),
                    " ".join("%.3f" % (w[1] - t0) for w in ws),
                    " ".join("%.3f" % (max(fe) - w[1]) for w in ws), rskew, skew - rskew)
                tot["read"].append(rskew)
                tot["after_skew"].append(skew - rskew)
                tot["after_e%d" % e].extend(min(fe) - w[1] for w in ws)
            print(line)
    if tot["skew"]:
        print("over %d epochs: run AU mean %.1f; skew mean %.3f s (median %.3f)" % (
            len(tot["skew"]), statistics.mean(tot["au"]), statistics.mean(tot["skew"]),
            statistics.median(tot["skew"])))
    if tot["read"]:
        print("  of it while reading: mean %.3f s; after the reads: mean %.3f s" % (
            statistics.mean(tot["read"]), statistics.mean(tot["after_skew"])))
        for k in sorted(x for x in tot if x.startswith("after_e")):
            print("  epoch %s: first worker's last read to the first rank's first step end, "
                  "median %.3f s (least %.3f, most %.3f)" % (
                      k[7:], statistics.median(tot[k]), min(tot[k]), max(tot[k])))


if __name__ == "__main__":
    main()
