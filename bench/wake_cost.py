#!/usr/bin/env python3
"""wake_cost.py BUILD_DIR DIR FAST [TIER...] -- fit a host's replay_wake_cost_ns.

The replay's wake-up rule (traces/README.md, traces/replay/rules.c's
wake_up()): the gap after a moved request -- a block-mode request a thread
of the command slept in, from its completion at tierfs to that thread's
next request reaching tierfs -- changes by the host's wake cost times
ln((t' + rt) / (t + rt)), t and t' the request's time at tierfs as recorded
and as replayed, rt the recording's round trip. This fits that cost on real
recordings of the same job on a fast tier and on slower ones (DIR/TIER.rN.trace
with its wake file, as bench/wake_cost.sh makes them; bench/pytorch_replay.sh's
kept block-mode recordings, TS_KEEP=1 TS_FS=ext4, are CONFIG.TIER.trace for
round 1 and CONFIG.TIER.rN.trace after: linked under these names, they fit
the same way):

- each recording's moved requests and the thread each moved to are the
  replay's own (tiersim replay --virtual --ops on its own tier: the records
  marked "moved"); the gap after one is the distance from its recorded
  completion to the recorded issue of its thread's next op, kept where that
  op is a request (moved or io): a gap ending at a wake holds the wait for
  another thread, which no tier's request time sets;
- a request is the same request in two runs by its offset and length in
  the image (block mode: every request is the image file's), its first
  occurrence in each run, where it was moved in both;
- for each run on a slower tier, against each run on FAST, every such pair
  gives x = ln((t + rt) / (t_fast + rt)) and y = gap - gap_fast (rt: the
  FAST run's round trip, the trace's floor plus its loop hop, as the replay
  takes it, traces/replay/setup.c); the run's fit is the least-squares
  slope through the origin over its pairs with all FAST runs, sum(xy) /
  sum(x^2);
- the figure is the median of the slower runs' fits; low and high their
  range (the label's form, pipeline/hosts.lua).

Prints per run its pairs, its fit, the same fit over the pairs whose gaps
differ by less than 200 us (a check on how much the long gaps -- a worker
that waited for its index queue, with no wake tied -- weigh on the fit),
the median of its pairs' y/x, of t - t_fast and of y; per tier the median
fit, and the figure. The figure is a cost, never below 0: a median fit
below 0 (the gaps did not grow with the request's time) prints as 0, with
the fits' own range.
"""
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

import tracedump

# the second fit's cut: only pairs whose gaps differ by less (a wake-up's
# share, not a wait the thread's next request followed)
TRIM_NS = 200e3


def dump(tiersim, trace):
    """(rt_ns, {record time key: (offset, length)}) from `tiersim trace dump`."""
    rt = 0
    recs = []
    for kind, *x in tracedump.items(tiersim, trace):
        if kind == "header":
            rt = int(x[0].get("floor_ns", 0)) + int(x[0].get("loop_hop_ns", 0))
        elif kind == "req" and len(x[0].words) == 11:
            r = x[0]
            recs.append((r.submit, max(r.submit, r.complete), r.offset, r.length))
    return rt, recs


def ops(tiersim, trace, tier):
    """The replay's op lists: [(tid, what, rec_issue, rec_done)] in record order."""
    with tempfile.NamedTemporaryFile("r", suffix=".ops") as f:
        subprocess.run([tiersim, "replay", trace, "--virtual", "--tier", tier, "--ops", f.name,
                        "--json"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        rows = {}
        for line in f:
            if line.startswith("#"):
                continue
            p = line.split()
            if p[0] != tier:
                continue
            rows[int(p[2])] = (int(p[1]), p[3], int(p[4]), int(p[5]))
    return [rows[i] for i in sorted(rows)]


def run(tiersim, trace, tier):
    """One recording: rt and {(offset, length): (t_ns, gap_ns)} of its moved
    requests whose thread's next op is a request."""
    rt, recs = dump(tiersim, trace)
    ol = ops(tiersim, trace, tier)
    reqs = [o for o in ol if o[1] in ("io", "moved")]
    if not reqs:
        return rt, {}
    # the ops' times run from the replay's first record: find that origin
    # among the dump's records (the first request's), checked on all
    have = {}
    for sub, comp, off, ln in recs:
        have.setdefault((sub, comp), (off, ln))
    first = reqs[0]
    t0 = None
    for sub, comp, _, _ in recs[:2000]:
        c = sub - first[2]
        if comp - c != first[3] or c < 0:
            continue
        hit = sum((o[2] + c, o[3] + c) in have for o in reqs[:200])
        if hit >= 0.95 * min(200, len(reqs)):
            t0 = c
            break
    if t0 is None:
        sys.exit(f"wake_cost: {trace}: the replay's records do not match the trace's")
    by_tid = {}
    for o in ol:
        by_tid.setdefault(o[0], []).append(o)
    out = {}
    for tid, lst in by_tid.items():
        lst.sort(key=lambda o: o[2])
        for a, b in zip(lst, lst[1:]):
            if a[1] != "moved" or b[1] not in ("io", "moved") or b[2] < a[3]:
                continue
            key = have.get((a[2] + t0, a[3] + t0))
            if key is None or key in out:
                continue
            out[key] = (a[3] - a[2], b[2] - a[3])
    return rt, out


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: bench/wake_cost.py BUILD_DIR DIR FAST TIER...")
    tiersim = os.path.join(sys.argv[1], "cli", "tiersim")
    d, fast, slow = sys.argv[2], sys.argv[3], sys.argv[4:]

    def runs(tier):
        names = sorted((f for f in os.listdir(d) if re.fullmatch(re.escape(tier) + r"\.r\d+\.trace", f)),
                       key=lambda f: int(f.rsplit(".r", 1)[1].split(".")[0]))
        return [(f, *run(tiersim, os.path.join(d, f), tier)) for f in names]

    base = runs(fast)
    if not base:
        sys.exit(f"wake_cost: no {fast}.rN.trace in {d}")
    for f, rt, m in base:
        print(f"{f}: rt {rt / 1e3:.1f} us, {len(m)} moved requests with a request next")
    fits, per_tier = [], {}
    print(f"{'run':<24} {'pairs':>6} {'fit us':>8} {'<200us':>8} {'med y/x':>8} {'med dt us':>9} "
          f"{'med dgap us':>11}")
    for tier in slow:
        for f, _, m in runs(tier):
            sxy = sxx = txy = txx = 0.0
            ratios, dts, dgaps = [], [], []
            n = 0
            for _, rt, mb in base:
                for k, (t, g) in m.items():
                    if k not in mb:
                        continue
                    tb, gb = mb[k]
                    x = math.log((t + rt) / (tb + rt))
                    y = g - gb
                    sxy += x * y
                    sxx += x * x
                    n += 1
                    if abs(y) < TRIM_NS:
                        txy += x * y
                        txx += x * x
                    dts.append(t - tb)
                    dgaps.append(y)
                    if x:
                        ratios.append(y / x)
            if not n or not sxx:
                print(f"{f:<24} {n:>6} {'-':>8}")
                continue
            k = sxy / sxx
            fits.append(k)
            per_tier.setdefault(tier, []).append(k)
            print(f"{f:<24} {n:>6} {k / 1e3:>8.1f} {txy / txx / 1e3 if txx else 0:>8.1f} {statistics.median(ratios) / 1e3:>8.1f} "
                  f"{statistics.median(dts) / 1e3:>9.1f} {statistics.median(dgaps) / 1e3:>11.1f}")
    if not fits:
        sys.exit("wake_cost: no pairs to fit")
    for tier, v in per_tier.items():
        print(f"{tier}: median fit {statistics.median(v) / 1e3:.1f} us over {len(v)} runs "
              f"[{min(v) / 1e3:.1f}-{max(v) / 1e3:.1f}]")
    med = statistics.median(fits)
    print(f"median of {len(fits)} runs' fits {med:.0f} ns, low {min(fits):.0f}, high {max(fits):.0f}")
    print(f"replay_wake_cost_ns: {max(med, 0):.0f} (low {max(min(fits), 0):.0f}, high {max(max(fits), 0):.0f})")


if __name__ == "__main__":
    main()
