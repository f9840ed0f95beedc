#!/usr/bin/env python3
"""kfs_sched_emul.py — block mode's own emulation CPU beside a job's
workers, from a tracefs capture of bench/kfs_sched.sh with KFS_SCHED_EMUL=1
(sched_switch, sched_wakeup, workqueue_execute_start/end), between the
job's "kfs_sched epoch start" and "... end" markers.

The loop device's worker: the kworker threads that ran a loop work item
(workqueue_execute_start with a function loop_*) in the capture. tierfs:
the threads of comm tierfs. The job: the marker writer's comm; its workers
every thread of that comm other than the marker writer.

Prints, for the epoch: the CPU time of the job's main, of its workers, of
tierfs, of the loop worker, of other kworkers and of the rest; the
workers' runnable time (woken or preempted, not yet on a CPU), split by
what the two CPUs ran meanwhile (a CPU ran the loop worker; else a CPU ran
tierfs; else tiersim; else a thread of the job; else something else), and
the same split for the runnable time of the workers' gaps after a D sleep
(a page, a device read) and after an S sleep (a queue, a pipe); and, where
the capture has the job's openat calls (syscalls/sys_enter_openat), for
the stretches between files: a worker's time from one D sleep to the next
where it opened a file between them (the previous file's last read to the
next file's first one that went to the device).

usage: kfs_sched_emul.py TRACE"""
import re, sys
from collections import defaultdict

LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")
OPEN = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): sys_openat\(")
KV = re.compile(r"(\w+)=(\S+)")
CATS = ("loop", "tierfs", "tiersim", "job", "other")


def main():
    ev = []
    for line in open(sys.argv[1], errors="replace"):
        m = LINE.match(line)
        if m:
            ev.append((m.group(1).strip(), int(m.group(2)), int(m.group(3)), float(m.group(4)),
                       m.group(5), m.group(6)))
        else:
            m = OPEN.match(line)
            if m:
                ev.append((m.group(1).strip(), int(m.group(2)), int(m.group(3)), float(m.group(4)),
                           "openat", ""))
    start = next((e for e in ev if e[4] == "tracing_mark_write" and "epoch start" in e[5]), None)
    end = next((e for e in ev if e[4] == "tracing_mark_write" and "epoch end" in e[5]), None)
    if not start or not end:
        sys.exit("kfs_sched_emul.py: %s: no epoch markers" % sys.argv[1])
    comm, main_pid, t0, t1 = start[0], start[1], start[3], end[3]
    loop = {e[1] for e in ev if e[4] == "workqueue_execute_start" and "function loop_" in e[5]}
    comms = {}
    for c, pid, *_ in ev:
        comms.setdefault(pid, c)

    def cat_of(pid):
        if pid == 0:
            return "idle"
        if pid in loop:
            return "loop"
        c = comms.get(pid, "")
        if c.startswith("tierfs"):
            return "tierfs"
        if c.startswith("tiersim"):
            return "tiersim"
        if c == comm:
            return "main" if pid == main_pid else "workers"
        if c.startswith("kworker"):
            return "kworker"
        return "rest"

    curr = {}  # cpu -> pid running
    cpu_t = defaultdict(float)
    rq = {}  # worker pid -> "D"/"S"/"R": runnable since its last sleep of that kind
    after = {}  # worker pid -> the sleep before its current gap
    behind = defaultdict(float)  # (after, cat) -> s
    seg = defaultdict(lambda: [False, defaultdict(float)])  # worker -> [opened, cat -> s] since its last D sleep
    between = defaultdict(float)  # cat -> s, in segments with an open
    nseg = [0, 0]  # segments with an open, all
    last = t0
    for c, pid, cpu, t, name, rest in ev:
        if name == "sched_switch":
            kv = dict(KV.findall(rest.replace(" ==> ", " ")))
            if cpu not in curr:
                curr[cpu] = int(kv["prev_pid"])
            comms.setdefault(int(kv["next_pid"]), kv.get("next_comm", ""))
        if t0 <= t <= t1:
            dt = t - max(last, t0)
            if dt > 0:
                for p in curr.values():
                    cpu_t[cat_of(p)] += dt
                if rq:
                    cs = {cat_of(p) for p in curr.values()}
                    k = ("loop" if "loop" in cs else "tierfs" if "tierfs" in cs else
                         "tiersim" if "tiersim" in cs else "job" if cs & {"main", "workers"} else "other")
                    for p in rq:
                        behind[(after.get(p, "?"), k)] += dt
                        seg[p][1][k] += dt
            last = t
        if name == "sched_switch":
            pp, np_ = int(kv["prev_pid"]), int(kv["next_pid"])
            if cat_of(pp) == "workers":
                if kv["prev_state"].startswith("R"):
                    rq[pp] = True
                else:
                    after[pp] = kv["prev_state"][:1]
                    if after[pp] == "D" and t0 <= t <= t1:
                        opened, by = seg.pop(pp, [False, {}])
                        nseg[1] += 1
                        if opened:
                            nseg[0] += 1
                            for k, v in by.items():
                                between[k] += v
            rq.pop(np_, None)
            curr[cpu] = np_
        elif name == "openat" and t0 <= t <= t1 and cat_of(pid) == "workers":
            seg[pid][0] = True
        elif name == "sched_wakeup":
            kv = dict(KV.findall(rest))
            p = int(kv["pid"])
            comms.setdefault(p, kv.get("comm", ""))
            if cat_of(p) == "workers" and p not in curr.values():
                rq[p] = True
    ms = lambda x: x * 1e3
    print("epoch %.1f ms; loop worker threads %d; CPU time, ms: %s" % (
        ms(t1 - t0), len(loop), ", ".join("%s %.1f" % (k, ms(cpu_t[k])) for k in
                                          ("main", "workers", "tierfs", "loop", "tiersim", "kworker", "rest", "idle"))))
    for a in ("all", "D", "S"):
        row = {k: sum(v for (aa, kk), v in behind.items() if kk == k and (a == "all" or aa == a)) for k in CATS}
        print("  workers runnable%s %.1f ms: behind loop %.1f, tierfs %.1f, tiersim %.1f, job %.1f, other %.1f" % (
            "" if a == "all" else " after " + a, ms(sum(row.values())), *(ms(row[k]) for k in CATS)))
    if nseg[0]:
        print("  workers runnable between files (%d of %d stretches to a D sleep with an openat) %.1f ms: "
              "behind loop %.1f, tierfs %.1f, tiersim %.1f, job %.1f, other %.1f" % (
                  nseg[0], nseg[1], ms(sum(between.values())), *(ms(between[k]) for k in CATS)))


main()
