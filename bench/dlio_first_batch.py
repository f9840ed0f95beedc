#!/usr/bin/env python3
"""dlio_first_batch.py -- when each DLIO rank's first batch is read and when
its first step ends, per epoch, from bench/dlio_peer.sh's outputs
(OUT/ROW-RUN/): where the ranks' first-step skew (the wait at DLIO's
barrier after the first step) arises.

  bench/dlio_first_batch.py [--tiersim BIN] DIR...

From `tiersim trace dump DIR/dlio.trace` (BIN: tiersim, default
build/cli/tiersim): a worker is a thread that opened at least 100 files;
its batches are its requests with no gap over 0.9 s (the i-th batch is in
epoch i: DLIO's workers here read one batch an epoch each); a worker's rank
is its process's parent (the cpu records' ppid), the ranks numbered in the
order of their pids. Its CPU over a batch is the growth of its thread's
run time (on_ns) between its first and last cpu record in the batch. From
DIR/dlio/dlio.log (DLIO 2.0.0), each rank's step 1 end (the log line's UTC
time, on the trace's clock by its header's start_wall_ns).

Per epoch and rank: when the rank's first-started worker (the batch DLIO's
loader hands out first, which the first step waits on) read its last
sample, when the rank's last worker did, the step 1 end, the step's end
after its batch's reads (the compute, 0.224 s for resnet50, is in it, and
the batch's collation and its passage to the rank), and the workers' CPU a
batch (s, least-most).
"""
import collections
import datetime
import os
import re
import sys

import tracedump


def dump(tiersim, trace):
    """(start_wall_s, {tid: [(submit_s, done_s, op)]}, {tid: [(t, on_ns)]},
    {tid: ppid})"""
    start = None
    reqs = collections.defaultdict(list)
    cpu = collections.defaultdict(list)
    ppid = {}
    last = None
    for kind, *x in tracedump.items(tiersim, trace):
        if kind == 'header':
            start = int(x[0]['start_wall_ns']) / 1e9 if 'start_wall_ns' in x[0] else None
        elif kind == 'cpu':
            tid, d = str(x[0]), x[1]
            ppid[tid] = d.get('ppid')
            on = int(d.get('on_ns', 0))
            if on and last is not None:
                cpu[tid].append((last, on))
        elif kind == 'req' and len(x[0].words) > 8:
            r = x[0]
            last = r.complete / 1e9
            reqs[str(r.tid)].append((r.submit / 1e9, last, r.op))
    if start is None:
        sys.exit('dlio_first_batch.py: %s: the dump has no start_wall_ns' % trace)
    return start, reqs, cpu, ppid


def step1_ends(log, start):
    """{(epoch, rank): step 1 end, s on the trace's clock}"""
    out = {}
    ep = 0
    for line in open(log):
        m = re.search(r'Starting epoch (\d+)', line)
        if m:
            ep = int(m.group(1))
        m = re.search(r'(\d{4}-\d\d-\d\dT\S+) Rank (\d+) step 1 processed', line)
        if m:
            t = datetime.datetime.fromisoformat(m.group(1)).replace(
                tzinfo=datetime.timezone.utc).timestamp()
            out[(ep, int(m.group(2)))] = t - start
    return out


def main():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    tiersim = os.path.join(here, '..', 'build', 'cli', 'tiersim')
    dirs = []
    while args:
        a = args.pop(0)
        if a == '--tiersim' and args:
            tiersim = args.pop(0)
        elif a.startswith('-'):
            sys.exit('dlio_first_batch.py: unknown option %s' % a)
        else:
            dirs.append(a)
    if not dirs:
        sys.exit(__doc__)
    for d in dirs:
        start, reqs, cpu, ppid = dump(tiersim, os.path.join(d, 'dlio.trace'))
        st = step1_ends(os.path.join(d, 'dlio', 'dlio.log'), start)
        by = collections.defaultdict(list)  # (epoch, ppid) -> [(first, last, cpu)]
        for tid, v in reqs.items():
            if sum(1 for x in v if x[2] == 'open') < 100:
                continue
            b = [[v[0]]]
            for x in v[1:]:
                if x[0] - b[-1][-1][1] > 0.9:
                    b.append([])
                b[-1].append(x)
            for i, bb in enumerate(b):
                c = [y[1] for y in cpu[tid] if bb[0][0] <= y[0] <= bb[-1][1]]
                by[(i + 1, ppid.get(tid))].append(
                    (bb[0][0], bb[-1][1], (c[-1] - c[0]) / 1e9 if len(c) > 1 else 0.0))
        ranks = sorted({r for _, r in by}, key=lambda r: int(r) if r and r.isdigit() else 0)
        print(os.path.basename(os.path.normpath(d)))
        for ep in sorted({e for e, _ in by}):
            parts = []
            for ri, r in enumerate(ranks):
                w = sorted(by.get((ep, r), []))
                if not w:
                    continue
                s1 = st.get((ep, ri))
                cs = [x[2] for x in w]
                parts.append('rank %d: batch 1 read by %.2f, all by %.2f, step 1 end %s'
                             ' (+%s after its batch), CPU %.2f-%.2f s a batch'
                             % (ri, w[0][1], max(x[1] for x in w),
                                '%.2f' % s1 if s1 is not None else '-',
                                '%.2f' % (s1 - w[0][1]) if s1 is not None else '-',
                                min(cs), max(cs)))
            print('  epoch %d: %s' % (ep, '; '.join(parts)))


if __name__ == '__main__':
    main()
