#!/usr/bin/env python3
"""page_wake.py — the job's sleeps on a page in flight and the wake-up
after each, from tracefs text (bench/page_wake.sh records it: sched_switch
with the kernel's stack at each switch out, sched_wakeup, block_rq_issue
and block_rq_complete).

usage: page_wake.py [--major N] TRACE...
The job's reader is the python3 thread that slept most in D state. A sleep
is on a page in flight when its stack holds folio_wait_bit_common or
filemap_get_pages; for each, the wake-up is the time from the latest
completion of the loop device (major N, default 7) before the thread's
wake-up to the thread back on a CPU.
"""
import re
import statistics
import sys
from collections import Counter

EV = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\S+?):? (.*)$")


def kv(body):
    return dict(re.findall(r"(\w+)=(\S+)", body))


def events(path):
    evs = []
    for line in open(path):
        if line.startswith("#"):
            continue
        s = line.strip()
        if s.startswith("=>"):
            if evs:
                evs[-1][3].append(s[3:])
            continue
        m = EV.match(line)
        if m and m.group(5) != "<stack":
            evs.append([float(m.group(4)), m.group(5), m.group(6), []])
    return evs


def one(path, major):
    evs = events(path)
    slept = Counter(kv(b).get("prev_pid") for _, n, b, _ in evs
                    if n == "sched_switch" and kv(b).get("prev_comm") == "python3"
                    and "D" in kv(b).get("prev_state", ""))
    if not slept:
        return None
    pid = slept.most_common(1)[0][0]
    done = None
    cur = None
    on_cpu, t_in = 0.0, None
    page, other, wake_run = [], 0, []
    for t, n, b, stack in evs:
        if n == "block_rq_complete" and b.startswith(f"{major},"):
            done = t
        elif n == "sched_wakeup":
            d = kv(b)
            if d.get("pid") == pid and cur and "woke" not in cur:
                cur["woke"], cur["done"] = t, done
        elif n == "sched_switch":
            d = kv(b)
            if d.get("prev_pid") == pid:
                if t_in is not None:
                    on_cpu += t - t_in
                    t_in = None
                if "D" in d.get("prev_state", ""):
                    s = " ".join(stack)
                    cur = {"at": t, "page": "folio_wait_bit_common" in s or "filemap_get_pages" in s}
            if d.get("next_pid") == pid:
                t_in = t
                if cur and "woke" in cur:
                    if cur["page"] and cur["done"] is not None and cur["done"] >= cur["at"]:
                        page.append((t - cur["done"]) * 1e6)
                        wake_run.append((t - cur["woke"]) * 1e6)
                    elif not cur["page"]:
                        other += 1
                    cur = None
    return pid, page, wake_run, other, on_cpu * 1e3


def main():
    args = sys.argv[1:]
    major = 7
    if args[:1] == ["--major"]:
        major, args = int(args[1]), args[2:]
    pooled = []
    print(f"{'trace':24} {'pid':>7} {'page sleeps':>11} {'other D':>7} {'wake mean us':>12} {'median':>7}"
          f" {'p90':>7} {'sum ms':>7} {'woken->run us':>13} {'on CPU ms':>9}")
    for p in args:
        r = one(p, major)
        if not r or not r[1]:
            print(f"{p.split('/')[-1]:24} no sleeps of a python3 thread on a page")
            continue
        pid, page, wake_run, other, cpu = r
        s = sorted(page)
        pooled += page
        print(f"{p.split('/')[-1]:24} {pid:>7} {len(page):11} {other:7} {statistics.mean(page):12.1f}"
              f" {s[len(s) // 2]:7.1f} {s[len(s) * 9 // 10]:7.1f} {sum(page) / 1e3:7.2f}"
              f" {statistics.mean(wake_run):13.1f} {cpu:9.2f}")
    if pooled:
        s = sorted(pooled)
        print(f"pooled: {len(s)} sleeps on a page in flight, from the loop device's completion to the thread"
              f" on a CPU: mean {statistics.mean(s):.1f} us, median {s[len(s) // 2]:.1f},"
              f" p25 {s[len(s) // 4]:.1f}, p75 {s[len(s) * 3 // 4]:.1f}, p90 {s[len(s) * 9 // 10]:.1f}")


if __name__ == "__main__":
    main()
