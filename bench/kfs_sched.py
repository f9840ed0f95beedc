#!/usr/bin/env python3
"""kfs_sched.py — a job thread's epoch from a tracefs sched_switch /
sched_wakeup capture (bench/kfs_sched.sh): the thread that wrote the
"kfs_sched epoch start" marker, between that marker and "... end".

The epoch splits into the thread's sleeps (switched out not runnable, to
its wake-up) and the gaps between them (a wake-up to the next sleep); each
gap into time on a CPU and time runnable (woken or preempted, not yet on
a CPU). Prints the totals, the gaps' count and their quantiles (10th, 50th,
75th, 90th percentile, us) of length, of time on a CPU and of time runnable,
the time on a CPU in the gaps by the gap's length (quartiles of the gaps
sorted by length: does the work itself take longer in longer gaps?), and
which threads held the CPU the thread waited for (the one running there at
its wake-up, or the one that preempted it), by name.

With --procs, every thread of the job's name (the marker writer's comm:
its DataLoader's worker processes too) is followed from its first time on
a CPU in the epoch, and the gaps are split by the sleep before them: after
a D sleep (a page or a FUSE reply in flight) or an S sleep (a queue, a
pipe, a futex); per group (the marker's thread, the others) the same
quantiles of time on a CPU.

usage: kfs_sched.py TRACE [--json OUT]
       kfs_sched.py TRACE --procs"""
import json, re, sys
from collections import defaultdict

LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")
KV = re.compile(r"(\w+)=(\S+)")


def parse(path):
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if m:
            yield m.group(1), int(m.group(2)), int(m.group(3)), float(m.group(4)), m.group(5), m.group(6)


def q(xs, p):
    if not xs:
        return float("nan")
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(p * (len(ys) - 1) + 0.5))]


def procs(path):
    ev = list(parse(path))
    start = next((e for e in ev if e[4] == "tracing_mark_write" and "epoch start" in e[5]), None)
    end = next((e for e in ev if e[4] == "tracing_mark_write" and "epoch end" in e[5]), None)
    if not start or not end:
        sys.exit("kfs_sched.py: %s: no epoch markers" % path)
    main_pid, comm, t0, t1 = start[1], start[0].strip(), start[3], end[3]
    st = {main_pid: ["run", t0, {"t": t0, "cpu": 0.0, "rq": 0.0}, "new"]}  # pid -> [state, since, gap, after]
    gaps = defaultdict(list)  # (group, after) -> [(cpu, rq, len)]
    sleeps = defaultdict(lambda: defaultdict(int))
    pids = defaultdict(set)
    grp = lambda pid: "main" if pid == main_pid else "other"
    for c, pid, cpu, t, name, rest in ev:
        if t < t0 or t > t1:
            continue
        kv = dict(KV.findall(rest.replace(" ==> ", " ")))
        if name == "sched_switch":
            pp, np_ = int(kv["prev_pid"]), int(kv["next_pid"])
            if pp in st and st[pp][0] == "run":
                s_ = st[pp]
                s_[2]["cpu"] += t - s_[1]
                if kv["prev_state"].startswith("R"):
                    s_[0], s_[1] = "rq", t
                else:
                    if s_[3] != "new":
                        g = s_[2]
                        gaps[(grp(pp), s_[3])].append((g["cpu"], g["rq"], t - g["t"]))
                    ps = kv["prev_state"][:1]
                    sleeps[grp(pp)][ps] += 1
                    s_[0], s_[1], s_[3] = "sleep", t, ps
            if kv.get("next_comm") == comm:
                if np_ not in st:
                    st[np_] = ["run", t, {"t": t, "cpu": 0.0, "rq": 0.0}, "new"]
                    pids[grp(np_)].add(np_)
                elif st[np_][0] == "rq":
                    st[np_][2]["rq"] += t - st[np_][1]
                    st[np_][0], st[np_][1] = "run", t
        elif name == "sched_wakeup":
            pid_ = int(kv["pid"])
            if pid_ in st and st[pid_][0] == "sleep":
                st[pid_][0], st[pid_][1] = "rq", t
                st[pid_][2] = {"t": t, "cpu": 0.0, "rq": 0.0}
    us = lambda x: x * 1e6
    print("epoch %.0f us, job %s: threads followed: main 1, other %d" % (us(t1 - t0), comm, len(pids["other"])))
    for g in ("main", "other"):
        print("  %-5s sleeps: %s" % (g, ", ".join("%s %d" % kv for kv in sorted(sleeps[g].items()))))
        for after in ("D", "S"):
            xs = gaps[(g, after)]
            if not xs:
                continue
            cpu = [us(x[0]) for x in xs]
            rq = [us(x[1]) for x in xs]
            print("  %-5s after %s: %5d gaps, on a CPU p10 %7.1f p50 %7.1f p75 %7.1f p90 %7.1f sum %8.0f us; "
                  "runnable p50 %6.1f p90 %6.1f sum %7.0f us" % (
                      g, after, len(xs), q(cpu, .1), q(cpu, .5), q(cpu, .75), q(cpu, .9), sum(cpu),
                      q(rq, .5), q(rq, .9), sum(rq)))


def main():
    path = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "--procs":
        return procs(path)
    ev = list(parse(path))
    start = next((e for e in ev if e[4] == "tracing_mark_write" and "epoch start" in e[5]), None)
    end = next((e for e in ev if e[4] == "tracing_mark_write" and "epoch end" in e[5]), None)
    if not start or not end:
        sys.exit("kfs_sched.py: %s: no epoch markers" % path)
    job, t0, t1 = start[1], start[3], end[3]
    curr = {}  # cpu -> comm running there
    state, since = "run", t0
    gap = {"t": t0, "cpu": 0.0, "rq": 0.0}
    gaps, sleeps = [], []
    tot = defaultdict(float)
    holder = defaultdict(float)
    waitfor = None
    for comm, pid, cpu, t, name, rest in ev:
        kv = dict(KV.findall(rest.replace(" ==> ", " ")))
        if name == "sched_switch":
            nxt = kv.get("next_comm", "?")
            if t < t0 or t > t1:
                curr[cpu] = nxt
                continue
            if int(kv["prev_pid"]) == job and state == "run":
                gap["cpu"] += t - since
                tot["cpu"] += t - since
                if kv["prev_state"].startswith("R"):
                    state, since, waitfor = "rq", t, nxt
                else:
                    gap["len"] = t - gap["t"]
                    gaps.append(gap)
                    state, since = "sleep", t
                    sleeps.append(kv["prev_state"])
            if int(kv.get("next_pid", -1)) == job and state == "rq":
                gap["rq"] += t - since
                tot["rq"] += t - since
                holder[waitfor] += t - since
                state, since = "run", t
            curr[cpu] = nxt
        elif name == "sched_wakeup" and t0 <= t <= t1 and int(kv["pid"]) == job and state == "sleep":
            tot["sleep"] += t - since
            gap = {"t": t, "cpu": 0.0, "rq": 0.0, "slept": t - since}
            waitfor = curr.get(int(kv.get("target_cpu", cpu)), "?")
            state, since = "rq", t
    tot[{"run": "cpu", "rq": "rq", "sleep": "sleep"}[state]] += t1 - since
    us = lambda x: x * 1e6
    out = {"epoch_us": us(t1 - t0), "cpu_us": us(tot["cpu"]), "runnable_us": us(tot["rq"]),
           "blocked_us": us(tot["sleep"]), "sleeps": len(sleeps),
           "sleeps_D": sum(1 for s in sleeps if s.startswith("D")), "gaps": len(gaps)}
    for key in ("len", "cpu", "rq"):
        xs = [us(g[key]) for g in gaps]
        out["gap_" + key] = {p: round(q(xs, p / 100), 1) for p in (10, 50, 75, 90)}
        out["gap_" + key]["mean"] = round(sum(xs) / len(xs), 1) if xs else 0
    by = sorted(gaps, key=lambda g: g["len"])
    n = len(by)
    out["cpu_by_len_quartile"] = []
    for k in range(4):
        part = by[k * n // 4:(k + 1) * n // 4]
        if part:
            out["cpu_by_len_quartile"].append({
                "len_us": round(us(sum(g["len"] for g in part) / len(part)), 1),
                "cpu_us": round(us(sum(g["cpu"] for g in part) / len(part)), 1),
                "rq_us": round(us(sum(g["rq"] for g in part) / len(part)), 1)})
    out["runnable_behind_us"] = {k: round(us(v), 1) for k, v in sorted(holder.items(), key=lambda kv: -kv[1])[:6]}
    if len(sys.argv) > 3 and sys.argv[2] == "--json":
        json.dump(out, open(sys.argv[3], "w"))
    print("epoch %.0f us: on a CPU %.0f, runnable %.0f, blocked %.0f; %d sleeps (%d D), %d gaps" % (
        out["epoch_us"], out["cpu_us"], out["runnable_us"], out["blocked_us"], out["sleeps"],
        out["sleeps_D"], out["gaps"]))
    for key, what in (("len", "gap length"), ("cpu", "gap on a CPU"), ("rq", "gap runnable")):
        g = out["gap_" + key]
        print("  %-13s p10 %7.1f  p50 %7.1f  p75 %7.1f  p90 %7.1f  mean %7.1f us" % (what, g[10], g[50], g[75], g[90], g["mean"]))
    print("  by length quartile (mean len / on a CPU / runnable us): " +
          ", ".join("%.1f/%.1f/%.1f" % (x["len_us"], x["cpu_us"], x["rq_us"]) for x in out["cpu_by_len_quartile"]))
    print("  runnable behind: " + ", ".join("%s %.0f" % kv for kv in out["runnable_behind_us"].items()))


main()
