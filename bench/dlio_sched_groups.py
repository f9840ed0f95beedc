#!/usr/bin/env python3
"""dlio_sched_groups.py SAMPLES CPU.JSON... -- from bench/dlio_peer.sh
--cpu-split's OUT/SIDE.cpu.json ('sched': each thread's schedstat first and
last seen), per group over the run (DLIO's DataLoader workers, the rank's
main process and its other threads, the tierfs daemon, the launcher): CPU,
run-queue wait and times on a core, per sample read (SAMPLES: files x
epochs), and the wait over the CPU."""
import collections
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n = float(sys.argv[1])
    for path in sys.argv[2:]:
        j = json.load(open(path))
        g = collections.defaultdict(lambda: [0, 0, 0, 0])
        for grp, _comm, r0, w0, c0, r1, w1, c1 in j['sched'].values():
            grp = 'main+threads' if grp == 'main' or grp.startswith('thread:') else grp
            if grp == 'workers':  # born in the run: counted from their start
                r0 = w0 = c0 = 0
            x = g[grp]
            x[0] += r1 - r0
            x[1] += w1 - w0
            x[2] += c1 - c0
            x[3] += 1
        print(path)
        for grp, (r, w, c, t) in sorted(g.items()):
            print('  %-13s %3d threads: cpu %7.1f us/sample, wait %7.1f, wait/cpu %.2f, '
                  '%6.2f times on a core/sample, %6.1f us each' %
                  (grp, t, r / n / 1e3, w / n / 1e3, w / max(r, 1), c / n, r / max(c, 1) / 1e3))


if __name__ == '__main__':
    main()
