#!/usr/bin/env python3
# dlio_track.py — the host's speed from the ticks of the tracker
# (workloads/dlio_measure.py track), as bench/dlio_peer.sh --track reads it.
#
#   dlio_track.py f BASE TRK FROM TO [SET]
#       prints "F FSET N": each set's CPU per file in TRK's ticks begun from
#       FROM to TO (ns since the epoch, as the ticks' WALL_NS) over its CPU
#       per file in all of BASE's ticks, each the mean of the set's ticks
#       without the TRIM highest and lowest of them (a tick the tracker was
#       preempted in, or an interrupt landed in, is not the host's speed:
#       j50-1-ssd and h50-1-essd runs 31/32, the one tick in ten that took
#       1.5-4x the median); F the mean of those ratios over the
#       sets both have, FSET SET's own ratio ("-" without SET or its ticks),
#       N the fewest ticks of a set in the window. No tick in the window, or
#       no set in both: one line on stderr, exit 1.
#   dlio_track.py span CPU_JSON
#       prints "FROM TO" (ns since the epoch): the span in which a real
#       side's readers read, from bench/dlio_peer.sh --cpu-split's samples
#       (its cpu_split's rule: the first to the last sample in which both
#       the tierfs daemon's and the readers' CPU grew; the readers: the
#       DataLoader workers, or without any the rank's busiest other thread)
#   dlio_track.py cores TRK FROM TO
#       prints the tracker's CPU over the window (the ticks begun in it), in
#       cores: its duty.
# A tick line: tick WALL_NS SET FILES THREAD_CPU_NS; other lines are skipped.
import sys


def ticks(path, a=None, b=None):
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 5 and w[0] == "tick" and (a is None or a <= int(w[1]) <= b):
                yield w[2], int(w[3]), int(w[4])


# the share of a set's ticks left out at each end
TRIM = 0.2


def per_file(path, a=None, b=None):
    per, n = {}, {}
    for s, k, c in ticks(path, a, b):
        if k:
            per.setdefault(s, []).append(c / k)
    for s, v in per.items():
        v.sort()
        t = int(len(v) * TRIM)
        n[s] = len(v)
        per[s] = sum(v[t:len(v) - t]) / (len(v) - 2 * t)
    return per, n


def span(path):
    import json
    with open(path) as f:
        j = json.load(f)
    s = j["series"]
    rg = "workers" if "workers" in j["groups"] else \
        max((g for g in j["groups"] if g.startswith("thread:")), key=lambda g: s[-1][2][g],
            default="daemon")

    def up(g, i):
        return s[i][2].get(g, 0) > s[i - 1][2].get(g, 0)

    grow = [i for i in range(1, len(s)) if up("daemon", i) and up(rg, i)]
    if not grow:
        sys.exit("dlio_track.py: %s: no sample in which the daemon and the readers ran" % path)
    print("%d %d" % (s[grow[0] - 1][0] * 1e9, s[grow[-1]][0] * 1e9))


def main(argv):
    if len(argv) in (6, 7) and argv[1] == "f":
        base, _ = per_file(argv[2])
        now, n = per_file(argv[3], int(argv[4]), int(argv[5]))
        r = {s: now[s] / base[s] for s in now if base.get(s)}
        if not r:
            sys.exit("dlio_track.py: %s: no tick from %s to %s of a set %s has" % (argv[3], argv[4], argv[5], argv[2]))
        one = argv[6] if len(argv) == 7 else ""
        print("%.4f %s %d" % (sum(r.values()) / len(r), "%.4f" % r[one] if one in r else "-",
                              min(n[s] for s in r)))
    elif len(argv) == 3 and argv[1] == "span":
        span(argv[2])
    elif len(argv) == 5 and argv[1] == "cores":
        a, b = int(argv[3]), int(argv[4])
        c = sum(c for _, _, c in ticks(argv[2], a, b))
        print("%.3f" % (c / max(b - a, 1)))
    else:
        sys.exit("usage: dlio_track.py f BASE TRK FROM TO [SET] | span CPU_JSON | cores TRK FROM TO")


if __name__ == "__main__":
    main(sys.argv)
