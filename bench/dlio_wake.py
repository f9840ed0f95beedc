#!/usr/bin/env python3
"""dlio_wake.py — each wake-up of a real side's readers, from the wake-up to
the reader back on a CPU, and what the CPUs were doing then.

    bench/dlio_wake.py SAMPLES OUT/SIDE.cpu.json OUT/SIDE.sched [--daemon] [--json FILE]

bench/dlio_peer.sh --wake keeps, beside each real side, the host's
sched_switch and sched_wakeup events (a tracefs instance, every CPU, the
mono clock) in SIDE.sched, and --cpu-split the side's threads and groups in
SIDE.cpu.json. The readers are the main threads of DLIO's DataLoader
workers (the 'workers' group's threads whose id is their process's; without
workers, the rank's threads that read). Over the reading span (cpu.json's
rule: the first to the last tick in which both the daemon and the readers
ran), each wake-up of a reader that slept (switched out in S or D), to its
next switch onto a CPU, is a wake-up delay; it is split by the CPUs' state
at the wake-up (the last switch on each CPU names what ran there, pid 0 the
idle task): the target CPU idle; the target busy and another idle; all
busy. Also by the waker (the thread in whose context the wake-up ran: the
tierfs daemon, a reader, DLIO's main process, anything else, or an
interrupt on an idle CPU), the readers' preemptions (switched out runnable,
back on later), and the host's steal over the span (/proc/stat, cpu.json).
SAMPLES (files x epochs) gives the figures per sample. Times in us.
--daemon: the same for the tierfs daemon's threads instead of the readers
(woken by a reader's request: the daemon's pick-up).

A trace that lost events is incomplete: its wake-ups, switches and CPU
states have gaps. dlio_peer.sh --wake keeps beside SIDE.sched the instance's
overrun counts of each CPU (SIDE.sched.overrun, "overrun: N" and "commit
overrun: N" lines); where they add up to more than 0 the figures are still
printed, marked as from an incomplete trace, a warning line names the file
and the count, and the exit status is 1, as for bad input (the JSON has
dropped_events and incomplete). Without that file nothing is checked.
The trace itself marks where a CPU's buffer lost events: tracefs writes
"CPU:N [LOST M EVENTS]" (or "CPU:N [LOST EVENTS]" where the count is not
known) before that CPU's next event. Each such line, and a comment line
naming LOST, makes the figures incomplete the same way: marked, a warning
line naming the trace with its LOST lines and the events they count, exit
status 1 (the JSON has lost_lines; lost_events, the events those lines
count, a floor; and incomplete).
"""
import json
import re
import sys
from collections import defaultdict

HDR = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\S+):\s*(.*)$')
SW = re.compile(r'prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=.* next_pid=(\d+)')
WK = re.compile(r' pid=(\d+) .*target_cpu=(\d+)')
LOST = re.compile(r'^\s*CPU:(\d+) \[LOST (?:(\d+) )?EVENTS\]\s*$')


def q(xs, p):
    if not xs:
        return float('nan')
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def dropped(path):
    """The events the trace at PATH lost: the sum of the counts in
    PATH.overrun (dlio_peer.sh --wake), None where there is no such file."""
    f = path + '.overrun'
    try:
        lines = open(f).read().splitlines()
    except FileNotFoundError:
        return f, None
    n = 0
    for i, line in enumerate(lines, 1):
        m = re.match(r'^\s*(?:commit )?overrun:\s*(\d+)\s*$', line)
        if not m:
            sys.exit('dlio_wake.py: %s: line %d is not "overrun: N" (%r)' % (f, i, line))
        n += int(m.group(1))
    return f, n


def reading_ticks(j):
    """cpu.json's reading span (dlio_peer.sh's cpu_split): the first and the
    last tick in which both the daemon and the readers ran, and the readers'
    group (the DataLoader workers, or without any the rank's busiest other
    thread)."""
    s = j['series']
    rg = 'workers' if 'workers' in j['groups'] else \
        max((g for g in j['groups'] if g.startswith('thread:')), key=lambda g: s[-1][2][g], default='daemon')
    up = lambda g, i: s[i][2].get(g, 0) > s[i - 1][2].get(g, 0)
    grow = [i for i in range(1, len(s)) if up('daemon', i) and up(rg, i)]
    a, b = (grow[0] - 1, grow[-1]) if grow else (0, len(s) - 1)
    return a, b, rg


def span(j):
    """cpu.json's reading span as mono seconds (dlio_peer.sh's cpu_split)."""
    s = j['series']
    a, b, rg = reading_ticks(j)
    steal = (s[b][4] - s[a][4]) / j['hz'] / max(s[b][0] - s[a][0], 1e-9)
    idle = (s[b][1] - s[a][1]) / j['hz'] / max(s[b][0] - s[a][0], 1e-9)
    return s[a][3], s[b][3], rg, steal, idle


def main():
    args = sys.argv[1:]
    jout = None
    if '--json' in args:
        i = args.index('--json')
        jout = args[i + 1]
        del args[i:i + 2]
    dmn = '--daemon' in args
    if dmn:
        args.remove('--daemon')
    if len(args) != 3:
        sys.exit(__doc__)
    n = float(args[0])
    ovf, drop = dropped(args[2])
    j = json.load(open(args[1]))
    t0, t1, rg, steal, idle = span(j)
    group = {}
    for k, (g, _comm, _ns) in j['threads'].items():
        p, t = map(int, k.split('/'))
        group[t] = g
    if dmn:
        readers = {int(k.split('/')[1]) for k, v in j['threads'].items() if v[0] == 'daemon'}
    elif rg == 'workers':
        readers = {int(k.split('/')[1]) for k, v in j['threads'].items()
                   if v[0] == 'workers' and k.split('/')[0] == k.split('/')[1]}
    else:
        readers = {int(k.split('/')[1]) for k, v in j['threads'].items() if v[0] == rg}

    rd = {int(k.split('/')[1]) for k, v in j['threads'].items()
          if v[0] == 'workers' and k.split('/')[0] == k.split('/')[1]}

    def gname(tid, cpu_idle=False):
        if tid == 0:
            return 'irq on idle' if cpu_idle else 'idle'
        if tid in rd:
            return 'reader'
        g = group.get(tid)
        if g is None:
            return 'other'
        return 'main' if g == 'main' or g.startswith('thread:') else g

    cur = {}  # cpu -> pid running
    asleep = {}  # reader tid -> True while switched out not runnable
    woken = {}  # reader tid -> (wake time, class, waker, target idle)
    pre = {}  # reader tid -> time switched out runnable
    delays = defaultdict(list)
    by_waker = defaultdict(list)
    preempt = []
    ncpu = 0
    lost = 0  # LOST lines
    lost_ev = 0  # the events they count
    for line in open(args[2], errors='replace'):
        if line.startswith('#'):
            if 'LOST' in line:
                lost += 1
            continue
        m = LOST.match(line)
        if m:
            lost += 1
            lost_ev += int(m.group(2) or 0)
            continue
        m = HDR.match(line)
        if not m:
            continue
        pid, cpu, ts, ev, rest = int(m.group(2)), int(m.group(3)), float(m.group(4)), m.group(5), m.group(6)
        ncpu = max(ncpu, cpu + 1)
        inspan = t0 <= ts <= t1
        if ev == 'sched_switch':
            w = SW.search(rest)
            if not w:
                continue
            prev, state, nxt = int(w.group(1)), w.group(2), int(w.group(3))
            cur[cpu] = nxt
            if prev in readers:
                if state.startswith('R'):
                    pre[prev] = ts
                    asleep.pop(prev, None)
                else:
                    asleep[prev] = True
            if nxt in readers:
                x = woken.pop(nxt, None)
                if x and inspan and t0 <= x[0]:
                    d = (ts - x[0]) * 1e6
                    delays[x[1]].append(d)
                    delays['all'].append(d)
                    by_waker[x[2]].append(d)
                p = pre.pop(nxt, None)
                if p is not None and inspan and t0 <= p:
                    preempt.append((ts - p) * 1e6)
                asleep.pop(nxt, None)
        elif ev == 'sched_wakeup':
            w = WK.search(rest)
            if not w:
                continue
            tid, tgt = int(w.group(1)), int(w.group(2))
            if tid not in readers or not asleep.get(tid):
                continue
            asleep.pop(tid)
            tidle = cur.get(tgt, -1) == 0
            others = [c for c in range(max(ncpu, 2)) if c != tgt]
            oidle = any(cur.get(c, -1) == 0 for c in others)
            cls = 'target idle' if tidle else ('target busy, other idle' if oidle else 'all busy')
            waker = gname(pid, cur.get(cpu, -1) == 0 and pid == 0)
            woken[tid] = (ts, cls, waker, tidle)
    res = {'span_s': t1 - t0, 'samples': n, 'readers': len(readers), 'steal_cores': steal,
           'idle_cores': idle, 'lost_lines': lost, 'lost_events': lost_ev, 'dropped_events': drop,
           'incomplete': bool(drop or lost),
           'wakeups_per_sample': len(delays['all']) / n,
           'classes': {}, 'wakers': {}, 'preempt': {}}

    def row(xs):
        return {'count': len(xs), 'share': len(xs) / max(len(delays['all']), 1),
                'p10': q(xs, .1), 'p50': q(xs, .5), 'p90': q(xs, .9), 'p99': q(xs, .99),
                'mean': sum(xs) / max(len(xs), 1), 'per_sample': sum(xs) / n}
    gaps = (['%d events dropped' % drop] if drop else []) + \
        (['at least %d events lost (%d LOST lines)' % (lost_ev, lost)] if lost else [])
    print('%s%s: span %.1f s, %d threads, %.2f wake-ups/sample, steal %.3f cores, idle %.2f cores%s' %
          (args[2], ' (daemon)' if dmn else '', t1 - t0, len(readers), len(delays['all']) / n, steal, idle,
           '; INCOMPLETE trace, %s: the figures below miss them' % ', '.join(gaps) if gaps else ''))
    print('  %-26s %7s %6s %7s %7s %7s %8s %7s %9s' %
          ('wake-up delay, us', 'count', 'share', 'p10', 'p50', 'p90', 'p99', 'mean', 'us/sample'))
    for k in ['all', 'target idle', 'target busy, other idle', 'all busy']:
        r = row(delays[k])
        res['classes'][k] = r
        print('  %-26s %7d %6.3f %7.1f %7.1f %7.1f %8.1f %7.1f %9.1f' %
              (k, r['count'], r['share'], r['p10'], r['p50'], r['p90'], r['p99'], r['mean'], r['per_sample']))
    for k in sorted(by_waker, key=lambda k: -len(by_waker[k])):
        r = row(by_waker[k])
        res['wakers'][k] = r
        print('  %-26s %7d %6.3f %7.1f %7.1f %7.1f %8.1f %7.1f %9.1f' %
              ('woken by ' + k, r['count'], r['share'], r['p10'], r['p50'], r['p90'], r['p99'], r['mean'],
               r['per_sample']))
    r = row(preempt)
    res['preempt'] = r
    print('  %-26s %7d %6s %7.1f %7.1f %7.1f %8.1f %7.1f %9.1f' %
          ('preempted, back on', r['count'], '', r['p10'], r['p50'], r['p90'], r['p99'], r['mean'],
           r['per_sample']))
    if jout:
        json.dump(res, open(jout, 'w'), indent=1)
    if lost:
        w = ('dlio_wake.py: warning: %s: %d LOST lines, at least %d events lost (a CPU\'s buffer overran): '
             'the figures above are from an incomplete trace' % (args[2], lost, lost_ev))
        if not drop:
            sys.exit(w)
        print(w, file=sys.stderr)
    if drop:
        sys.exit('dlio_wake.py: warning: %s: %d events dropped (the instance\'s buffer overran): the figures '
                 'above are from an incomplete trace' % (ovf, drop))


if __name__ == '__main__':
    main()
