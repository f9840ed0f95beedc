#!/usr/bin/python3
"""timeline_device.py TIMELINE.json... -- what a row's device did, from a
`tiersim compare --timeline` file: for each row (a process of the
timeline) with tier lanes holding device requests (real time: what the
mount recorded; in block mode the loop device's requests), their count and
sizes, their latency, how many were in flight over time, and how long
after a completion the next request of 128 KiB or more came while one was
left in flight; and, for every row, the reader's per-sample reads inside
the measured steps. A virtual run's tier lane holds one slice per sample,
not device requests: read its reader line. A real-time tier slice's
late_ns (tierfs's reply behind the model's time) splits its latency into
the model's and this host's.

bench/block_study.sh keeps these timelines (BLOCK_STUDY_KEEP=DIR) to
compare block mode's device with the virtual plan's where a row misses
(disk/README.md).
"""
import bisect
import json
import statistics as st
import sys
from collections import Counter

BIG = 131072  # bytes: a readahead window of read_ahead_kb 128


def lanes(ev):
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    return lambda e: names.get((e["pid"], e["tid"]), "")


def row(ev, pid, lane, title):
    xs = [e for e in ev if e.get("ph") == "X" and e["pid"] == pid]
    steps = sorted((e for e in xs if e["name"] == "step"), key=lambda e: e["ts"])
    t0 = steps[0]["ts"] if steps else None
    t1 = steps[-1]["ts"] + steps[-1]["dur"] if steps else None
    dev = sorted((e["ts"], e["ts"] + e["dur"], e["args"].get("bytes", 0)) for e in xs
                 if lane(e).startswith("tier") and e["name"] == "read")
    late = [e["args"]["late_ns"] / 1000 for e in xs if lane(e).startswith("tier") and
            e["name"] == "read" and e["args"].get("bytes", 0) >= BIG and e["args"].get("late_ns", -1) >= 0]
    print(f"{title}:")
    if dev and not title.endswith("virtual time"):
        big = [d for d in dev if d[2] >= BIG]
        lat = [b - a for a, b, _ in big] or [0]
        pts = sorted([(a, 1) for a, _, _ in dev] + [(b, -1) for _, b, _ in dev])
        occ, n, last = Counter(), 0, pts[0][0]
        for t, k in pts:
            occ[n] += t - last
            last, n = t, n + k
        tot = sum(occ.values()) or 1
        print(f"  device: {len(dev)} reads, {len(big)} of >= {BIG // 1024} KiB, their latency "
              f"p50 {st.median(lat):.0f} us mean {st.mean(lat):.0f} us; in flight "
              + ", ".join(f"{k}: {100 * v / tot:.0f}%" for k, v in sorted(occ.items())))
        if late:
            model = sorted(b - a for a, b, _ in big)
            print(f"  tierfs replied late (behind the model's time) p50 {st.median(late):.0f} us mean "
                  f"{st.mean(late):.0f} us: the model's own latency mean {st.mean(model) - st.mean(late):.0f} us")
        ends = sorted(b for _, b, _ in big)
        gaps = []
        for a, _, _ in big:
            i = bisect.bisect_left(ends, a) - 1
            if i >= 0 and a - ends[i] < 2000:  # us: the next window, not a pause
                gaps.append(a - ends[i])
        if gaps:
            print(f"  a completion to the next submit: p50 {st.median(gaps):.0f} us mean "
                  f"{st.mean(gaps):.0f} us ({len(gaps)} of them)")
        if steps:
            inw = [d for d in big if t0 <= d[0] <= t1]
            if inw:
                print(f"  in the steps: {len(inw)} reads of >= {BIG // 1024} KiB in "
                      f"{(t1 - t0) / 1e6:.3f} s, {(t1 - t0) / len(inw):.0f} us each")
                pauses(inw, xs, lane)
    rdr = sorted((e for e in xs if lane(e).startswith("reader") and e["name"] == "read"),
                 key=lambda e: e["ts"])
    if steps and rdr:
        inr = [e for e in rdr if t0 <= e["ts"] <= t1]
        if inr:
            d = [e["dur"] for e in inr]
            by = [e["args"].get("bytes", 0) for e in inr]
            print(f"  reader: {len(inr)} sample reads in {len(steps)} steps ({(t1 - t0) / 1e6:.3f} s), "
                  f"p50 {st.median(d):.0f} us mean {st.mean(d):.0f} us, {st.mean(by):.0f} bytes "
                  f"a sample: {sum(d) / max(sum(by), 1) * BIG:.0f} us a {BIG // 1024} KiB")


PAUSE = 3000  # us: no window for this long (the model's windows: ~0.5-1.2 ms apart)


def pauses(inw, xs, lane):
    """The stretches with no device request in flight for PAUSE us or more
    between two windows of the steps, and how many of them the reader
    spent inside a sample's read (waiting on the block path, not on the
    pipeline); the time a window took without them."""
    rdr = sorted((e["ts"], e["ts"] + e["dur"]) for e in xs
                 if lane(e).startswith("reader") and e["name"] == "read")
    starts = [a for a, _ in rdr]
    idle, inside, done = [], 0, 0
    for (_, e, _), (b, _, _) in zip(inw, inw[1:]):
        done = max(done, e)  # the latest completion of the windows so far
        if b - done >= PAUSE:
            idle.append(b - done)
            i = bisect.bisect_right(starts, done) - 1
            if i >= 0 and rdr[i][1] >= b:
                inside += 1
    span = inw[-1][0] - inw[0][0]
    if idle:
        print(f"  pauses (nothing in flight >= {PAUSE / 1000:.0f} ms): {len(idle)}, "
              f"{sum(idle) / 1e6:.3f} s of {span / 1e6:.3f} s, {inside} of them inside one "
              f"sample's read; a window without them: {(span - sum(idle)) / len(inw):.0f} us")
    else:
        print(f"  pauses (nothing in flight >= {PAUSE / 1000:.0f} ms): none")


def main(paths):
    if not paths:
        sys.exit("usage: bench/timeline_device.py TIMELINE.json...")
    for p in paths:
        try:
            ev = json.load(open(p))["traceEvents"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"timeline_device.py: {p}: not a tiersim timeline ({e})")
        lane = lanes(ev)
        procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
        print(f"== {p}")
        for pid in sorted({e["pid"] for e in ev if e.get("ph") == "X"}):
            row(ev, pid, lane, str(procs.get(pid, pid)))


if __name__ == "__main__":
    main(sys.argv[1:])
