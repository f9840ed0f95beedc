#!/usr/bin/env python3
"""dlio_au_split.py -- where DLIO 2.0.0's AU points go, per epoch and rank,
from bench/dlio_peer.sh's outputs (OUT/ROW-RUN/).

  bench/dlio_au_split.py [--json] DIR...

DLIO 2.0.0 (utils/statscounter.py, compute_metrics_train) takes a rank's
AU of an epoch as its compute of steps 2..N over the block's time less the
rank's first step's own time (t0 to the end of its compute): the first
step is excluded, but not the barrier after it, nor the loader's start
before it. From each DIR/dlio/RANK_output.json (proc, compute, au per
epoch), per epoch and rank:
  first  the first step's own time (s)
  steps  steps 2..N beyond their compute (s): the batches' waits and the
         compute's own overrun
  rest   the block's time less the first step and steps 2..N (s): the
         barriers' waits (above all the one after the first step, where
         the faster rank waits for the slower) and the loader's start
  AU     DLIO's own figure, and the points it loses to steps and to rest
         (100 - AU split in proportion to the two).
Then per run: the mean over epochs and ranks (DLIO's summary AU is the mean
over ranks, then epochs), the points lost to each part.
"""
import argparse
import json
import os
import statistics
import sys


def epochs(d):
    """{(epoch, rank): (first, steps, rest, au, compute)} of DIR."""
    out = {}
    rank = 0
    while True:
        p = os.path.join(d, 'dlio', '%d_output.json' % rank)
        if not os.path.exists(p):
            break
        o = json.load(open(p))
        for k, v in o.items():
            if not k.isdigit() or 'proc' not in v:
                continue
            proc = v['proc']['block1']
            comp = v['compute']['block1']
            au = v['au']['block1']
            c = sum(comp[1:])
            total = c / (au / 100.0) if au > 0 else float('nan')
            steps = sum(proc[1:]) - c
            rest = total - sum(proc[1:])
            out[(int(k), rank)] = (proc[0], steps, rest, au, c)
        rank += 1
    if not out:
        sys.exit('dlio_au_split.py: %s: no dlio/0_output.json with epochs' % d)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--json', action='store_true', help='one JSON line per run')
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    for d in a.dirs:
        e = epochs(d)
        name = os.path.basename(os.path.normpath(d))
        rows = []
        for (ep, rk), (first, steps, rest, au, c) in sorted(e.items()):
            lost = 100.0 - au
            tot = steps + rest
            ls = lost * steps / tot if tot > 0 else 0.0
            rows.append(dict(epoch=ep, rank=rk, first=first, steps=steps, rest=rest,
                             au=au, lost_steps=ls, lost_rest=lost - ls))
        au = statistics.mean(r['au'] for r in rows)
        ls = statistics.mean(r['lost_steps'] for r in rows)
        lr = statistics.mean(r['lost_rest'] for r in rows)
        if a.json:
            print(json.dumps(dict(run=name, au=au, lost_steps=ls, lost_rest=lr, rows=rows)))
            continue
        print('%s: AU %.1f, lost to steps 2..N %.1f, to rest (barriers, loader start) %.1f'
              % (name, au, ls, lr))
        for r in rows:
            print('  epoch %d rank %d: first %.3f s, steps +%.3f s, rest %.3f s, AU %.1f'
                  ' (-%.1f steps, -%.1f rest)' % (r['epoch'], r['rank'], r['first'], r['steps'],
                                                  r['rest'], r['au'], r['lost_steps'], r['lost_rest']))


if __name__ == '__main__':
    main()
