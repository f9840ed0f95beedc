#!/usr/bin/env python3
"""dlio_offcpu.py — where a real side of bench/dlio_peer.sh --cpu-split
sleeps, and what the host's idle cores wait on.

    bench/dlio_offcpu.py OUT/SIDE.cpu.json OUT/SIDE.perf.data [--json]

--cpu-split records, beside each real side, the kernel's scheduler
switches and wake-ups of the whole host (perf record -e
sched:sched_switch -e sched:sched_wakeup -a, the kernel's call chain of
each switch: where the thread that left the CPU stopped) into
SIDE.perf.data, and the side's threads and their groups into
SIDE.cpu.json (each tick's CLOCK_MONOTONIC time too, perf's clock). This
reads both over the side's reading span (cpu.json's rule: from the first
to the last tick in which both the daemon and the readers ran) and, apart,
over the ticks in which the readers held one core or more ("together"),
and prints for each part of the side (the readers: DLIO's DataLoader
workers' main threads or tiersim's reading threads; the workers' other
threads; the daemon; the rank's main thread) the mean number of its threads
running, waiting for a CPU (runnable: preempted, or woken and not yet on
one) and asleep, by where in the kernel they slept (the first function of
the call chain that is not the scheduler's, and the system call), and the
host's idle cores over the same span, each idle moment shared among the
readers that slept then by their reasons (and "runnable" where a reader
was woken and not yet running: a wake-up's latency).
"""
import json
import re
import subprocess
import sys
from collections import defaultdict

GENERIC = {
    '__schedule', 'schedule', 'schedule_timeout', 'schedule_hrtimeout_range_clock',
    'schedule_hrtimeout_range', 'io_schedule', 'io_schedule_timeout', 'preempt_schedule',
    'preempt_schedule_common', 'preempt_schedule_irq', '__cond_resched', '_cond_resched',
    'schedule_preempt_disabled', 'do_syscall_64', 'entry_SYSCALL_64_after_hwframe',
    'x64_sys_call', 'raw_irqentry_exit_cond_resched', 'irqentry_exit',
    'asm_sysvec_apic_timer_interrupt', 'asm_sysvec_reschedule_ipi', 'preempt_schedule_thunk',
    'schedule_timeout_interruptible', 'schedule_timeout_killable', 'schedule_timeout_uninterruptible',
    'freezable_schedule', 'do_wait_for_common', '__wait_for_common', 'wait_for_completion',
    'wait_for_completion_killable', 'wait_for_completion_interruptible',
}
HDR = re.compile(r'^\s*(.*?)\s+(-?\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')
SW = re.compile(r'prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=.* next_pid=(\d+)')
WK = re.compile(r' pid=(\d+) ')


def reason(stack):
    """A sleep's key: the first call the scheduler did not make, and the
    system call (or page fault) it was in."""
    first, call = None, None
    for f in stack:
        if first is None and f not in GENERIC and not f.startswith('[unknown]'):
            first = f
        m = re.match(r'__(?:x64|ia32)_sys_(\w+)|__do_sys_(\w+)|ksys_(\w+)', f)
        if m and call is None:
            call = m.group(1) or m.group(2) or m.group(3)
        if f in ('exc_page_fault', 'asm_exc_page_fault') and call is None:
            call = 'page fault'
    return '%s (%s)' % (first or '?', call or 'no syscall')


def events(perf_data):
    """perf script's text of @perf_data, parsed (parse)."""
    p = subprocess.Popen(['perf', 'script', '-i', perf_data, '-F',
                          'comm,tid,cpu,time,event,trace,ip,sym'],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         bufsize=1 << 20)
    yield from parse(p.stdout)
    p.wait()


def parse(lines):
    """perf script's lines (-F comm,tid,cpu,time,event,trace,ip,sym) as
    (time s, cpu, kind, fields), in their order: kind 'switch' with (prev,
    state, next, reason; None for a thread left runnable), 'wakeup' with
    (pid,)."""
    cur, stack = None, []

    def flush():
        if cur is None:
            return None
        t, cpu, ev, tr = cur
        if ev.endswith('sched_switch'):
            m = SW.search(tr)
            if m:
                st = m.group(2)
                return (t, cpu, 'switch', (int(m.group(1)), st, int(m.group(3)),
                                           reason(stack) if not st.startswith('R') else None))
        elif ev.endswith('sched_wakeup'):
            m = WK.search(' ' + tr.split('comm=', 1)[-1].split(' ', 1)[-1] + ' ')
            if m:
                return (t, cpu, 'wakeup', (int(m.group(1)),))
        return None

    for line in lines:
        m = HDR.match(line)
        if m:
            e = flush()
            if e:
                yield e
            cur, stack = (float(m.group(4)), int(m.group(3)), m.group(5), m.group(6)), []
            continue
        w = line.split(None, 1)
        if cur is not None and len(w) == 2:
            stack.append(w[1].strip().split('+')[0])
    e = flush()
    if e:
        yield e


def spans(cj):
    """The reading span (a, b) and the 'together' intervals, CLOCK_MONOTONIC s."""
    s = cj['series']
    groups = cj['groups']
    rg = 'workers' if 'workers' in groups else \
        max((g for g in groups if g.startswith('thread:')), key=lambda g: s[-1][2][g], default='daemon')
    up = lambda g, i: s[i][2].get(g, 0) > s[i - 1][2].get(g, 0)
    grow = [i for i in range(1, len(s)) if up('daemon', i) and up(rg, i)]
    a, b = (grow[0] - 1, grow[-1]) if grow else (0, len(s) - 1)
    tog = [(s[i - 1][3], s[i][3]) for i in range(a + 1, b + 1)
           if (s[i][2].get(rg, 0) - s[i - 1][2].get(rg, 0)) / 1e9 >= (s[i][3] - s[i - 1][3])]
    return rg, (s[a][3], s[b][3]), tog


def analyze(cj, evs):
    """The side's threads' states and the host's idle cores over the
    reading span and the 'together' ticks of @cj (a SIDE.cpu.json's
    content), from the scheduler's events @evs (parse): per window, its
    length s, idle cores, idle cores by the readers' states, and per part
    the mean number of its threads in each state."""
    rg, (t0, t1), tog = spans(cj)
    # the side's threads: tid -> part
    part = {}
    for k, (g, comm, _) in cj['threads'].items():
        pid, tid = map(int, k.split('/'))
        if g == rg:
            part[tid] = 'readers' if (g != 'workers' or pid == tid) else 'workers: ' + comm
        elif g == 'workers':
            part[tid] = 'workers: ' + comm
        else:
            part[tid] = g
    state = {}    # tid -> 'run' | 'runnable' | reason
    idle = {}     # cpu -> whether its idle task runs
    acc = defaultdict(lambda: defaultdict(float))    # window -> (part, state) -> thread-s
    iacc = defaultdict(lambda: defaultdict(float))   # window -> reader state -> idle core-s
    idle_s = defaultdict(float)
    last_t = None
    ti = 0  # the first 'together' interval not yet behind the events

    def windows(a, b):
        """The pieces of [a, b) (a no earlier than any before) in the span
        and in 'together' ticks: (window, s)."""
        nonlocal ti
        out = []
        lo, hi = max(a, t0), min(b, t1)
        if hi > lo:
            out.append(('span', hi - lo))
            while ti < len(tog) and tog[ti][1] <= lo:
                ti += 1
            for x, y in tog[ti:]:
                if x >= hi:
                    break
                d = min(y, hi) - max(x, lo)
                if d > 0:
                    out.append(('together', d))
        return out

    def advance(t):
        nonlocal last_t
        if last_t is None or t <= last_t:
            last_t = t if last_t is None else last_t
            return
        ws = windows(last_t, t)
        if ws:
            nidle = sum(1 for v in idle.values() if v)
            rs = [v for k, v in state.items() if part.get(k) == 'readers' and v != 'run']
            for w, d in ws:
                for tid, st in state.items():
                    acc[w][(part[tid], st)] += d
                if nidle:
                    idle_s[w] += nidle * d
                    for st in rs:
                        iacc[w][st] += nidle * d / len(rs)
                    if not rs:
                        iacc[w]['(every reader running)'] += nidle * d
        last_t = t

    t = t0
    for t, cpu, kind, f in evs:
        advance(t)
        if kind == 'wakeup':
            (pid,) = f
            if pid in part and state.get(pid) not in ('run', None):
                state[pid] = 'runnable'
            continue
        prev, st, nxt, why = f
        idle[cpu] = nxt == 0
        if prev in part:
            state[prev] = 'runnable' if st.startswith('R') else why
        if nxt in part:
            state[nxt] = 'run'
    advance(t1)
    res = {}
    for w in ('span', 'together'):
        dur = (t1 - t0) if w == 'span' else sum(y - x for x, y in tog)
        if dur <= 0:
            continue
        parts = defaultdict(dict)
        for (p, st), v in acc[w].items():
            parts[p][st] = v / dur
        res[w] = {'s': dur, 'idle_cores': idle_s[w] / dur,
                  'idle_by_reader_state': {k: v / dur for k, v in iacc[w].items()},
                  'threads': parts}
    return res


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    as_json = '--json' in sys.argv
    if len(args) != 2:
        sys.exit('usage: dlio_offcpu.py SIDE.cpu.json SIDE.perf.data [--json]')
    cj = json.load(open(args[0]))
    if not cj['series'] or len(cj['series'][0]) < 4:
        sys.exit('dlio_offcpu.py: %s has no monotonic times (an older --cpu-split)' % args[0])
    res = analyze(cj, events(args[1]))
    if as_json:
        json.dump(res, sys.stdout, indent=1)
        print()
        return
    for w, r in res.items():
        print('%s (%.1f s): idle %.3f cores; by what the readers waited on:' % (w, r['s'], r['idle_cores']))
        for k, v in sorted(r['idle_by_reader_state'].items(), key=lambda x: -x[1])[:8]:
            print('    %.3f  %s' % (v, k))
        for p, d in sorted(r['threads'].items()):
            tot = sum(d.values())
            top = sorted(((v, k) for k, v in d.items() if k not in ('run', 'runnable')), reverse=True)[:5]
            print('  %s: %.2f threads: run %.2f, runnable %.2f, asleep %.2f: %s' % (
                p, tot, d.get('run', 0), d.get('runnable', 0), tot - d.get('run', 0) - d.get('runnable', 0),
                '; '.join('%.2f %s' % (v, k) for v, k in top)))


if __name__ == '__main__':
    main()
