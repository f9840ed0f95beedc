#!/usr/bin/env python3
# dlio_track.py — the host's speed from the ticks of the tracker
# (workloads/dlio_measure.py track), as bench/dlio_peer.sh --track reads it.
#
#   dlio_track.py f BASE TRK FROM TO [SET]
#       prints "F FSET N": each set's CPU per file in TRK's ticks begun from
#       FROM to TO (ns since the epoch, as the ticks' WALL_NS) over its CPU
#       per file in all of BASE's ticks; F the mean of those ratios over the
#       sets both have, FSET SET's own ratio ("-" without SET or its ticks),
#       N the fewest ticks of a set in the window. No tick in the window, or
#       no set in both: one line on stderr, exit 1.
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


def per_file(path, a=None, b=None):
    cpu, files, n = {}, {}, {}
    for s, k, c in ticks(path, a, b):
        cpu[s] = cpu.get(s, 0) + c
        files[s] = files.get(s, 0) + k
        n[s] = n.get(s, 0) + 1
    return {s: cpu[s] / files[s] for s in cpu if files[s]}, n


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
    elif len(argv) == 5 and argv[1] == "cores":
        a, b = int(argv[3]), int(argv[4])
        c = sum(c for _, _, c in ticks(argv[2], a, b))
        print("%.3f" % (c / max(b - a, 1)))
    else:
        sys.exit("usage: dlio_track.py f BASE TRK FROM TO [SET] | cores TRK FROM TO")


if __name__ == "__main__":
    main(sys.argv)
