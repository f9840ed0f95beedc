#!/usr/bin/env python3
"""dlio_read_service.py -- tierfs's read service times in a trace, per
request size, and what is left of them without tierfs's lateness.

  bench/dlio_read_service.py [--tiersim BIN] [--min N] TRACE...

TRACE: a tierfs trace (OUT/ROW-RUN/dlio.trace of bench/dlio_peer.sh); BIN:
tiersim (default build/cli/tiersim). From `tiersim trace dump TRACE`, each
read line (submit_ns complete_ns read file offset length result ...) and
the cpu record that follows it (its late_ns: how far past the model's
completion tierfs woke to answer, fs/timing.c), per request length (sizes
with fewer than N reads, default 100, are left out): the reads, the mean
and median of complete - submit (the traced span, us), the mean lateness,
and the mean span less the lateness (what tierfs realised of the tier
model's own service time, plus FUSE's and tierfs's own costs up to the
request's submit and after its completion).
"""
import os
import statistics
import sys
from collections import defaultdict

import tracedump


def spans(tiersim, trace):
    out = defaultdict(list)  # length -> [(span_ns, late_ns)]
    pend = None
    for kind, *x in tracedump.items(tiersim, trace):
        if kind == 'cpu':
            if pend is not None:
                out[pend[0]].append((pend[1], int(x[1].get('late_ns', 0))))
                pend = None
            continue
        if pend is not None:
            out[pend[0]].append((pend[1], 0))
            pend = None
        if kind == 'req' and x[0].op == 'read':
            pend = (x[0].length, x[0].complete - x[0].submit)
    return out


def main():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    tiersim = os.path.join(here, '..', 'build', 'cli', 'tiersim')
    least = 100
    traces = []
    while args:
        a = args.pop(0)
        if a == '--tiersim' and args:
            tiersim = args.pop(0)
        elif a == '--min' and args:
            least = int(args.pop(0))
        elif a.startswith('-'):
            sys.exit('dlio_read_service.py: unknown option %s' % a)
        else:
            traces.append(a)
    if not traces:
        sys.exit(__doc__)
    for t in traces:
        s = spans(tiersim, t)
        allr = [x for v in s.values() for x in v]
        print('%s: %d reads, span mean %.1f us, lateness mean %.1f us, span less lateness %.1f us'
              % (t, len(allr), statistics.mean(x[0] for x in allr) / 1e3,
                 statistics.mean(x[1] for x in allr) / 1e3,
                 statistics.mean(x[0] - x[1] for x in allr) / 1e3))
        for ln in sorted(s):
            v = s[ln]
            if len(v) < least:
                continue
            sp = [x[0] for x in v]
            print('  %7d B: %6d reads, span mean %7.1f median %7.1f us, late %5.1f us, less late %7.1f us'
                  % (ln, len(v), statistics.mean(sp) / 1e3, statistics.median(sp) / 1e3,
                     statistics.mean(x[1] for x in v) / 1e3,
                     statistics.mean(x[0] - x[1] for x in v) / 1e3))


if __name__ == '__main__':
    main()
