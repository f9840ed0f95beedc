#!/usr/bin/env python3
"""dlio_cfs_wait.py -- what Linux's fair class makes N workers wait for a
core on this host's C cores, each doing what a DLIO DataLoader worker does
between its requests: sleep (a request's latency) then a piece of CPU.

  bench/dlio_cfs_wait.py [--seconds S] [--rounds R] [--slices Q,Q...] [CONFIG...]

CONFIG: N:PIECE_US:SLEEP_US[:served] (default: 1, 2, 4 and 8 workers with
pieces of 200 us, DLIO's png reader's CPU a sample in six shares, and of
500 us, in two pieces as its reader spends it, each after a sleep of 1,000
us, with and without served). Each worker is a process of its own (fork,
as DataLoader's); it sleeps (nanosleep; served: it asks a server process
of its own through a pipe and blocks on the answer, which the server
sends after sleeping, so the worker is woken from another process as a
FUSE daemon's reply wakes a reader) then spins on its thread's CPU clock
until it has run the piece, for S seconds (default 3); the configs run one after another, R
rounds (default 2) interleaved. From each worker's schedstat (run time,
run-queue wait, times it went on a core) over its loop: the wait per
piece (us), the CPU per piece, the wall per cycle, and the times a piece
went on a core and its CPU per time (us): beyond the 1-worker config's
count (the wake-ups and the pipe's own switches), each more time is a
preemption, so a piece of CPU P that went on a core 1 + e times more than
alone ran in slices of P / (1 + e): the slice the fair class gave it. Beside it, the same closed system of N
workers on C cores (os.cpu_count()) simulated two ways, with the wait of
the N=1 config of the same piece (the host's wake-up, no contention)
added per piece in each: FIFO (first come first served, a piece under
the 1.5 ms slice holding its core to its end: tiersim's virtual cores,
workloads/dlio_loader.c struct cores, until 2026-12-07), RR 50 (the same
in round-robin slices of 50 us: those cores since; --slices: RR at each
Q us instead), processor sharing (k
runnable pieces on C cores each run at min(1, C/k) of a core: the fair
class's limit) and per-CPU (a run queue per core; a woken piece goes to a
core idle then, its last one first, else queues on its last one, as
select_idle_sibling keeps the previous CPU when none is idle). Each
model's sleeps are drawn uniformly over [0.5, 1.5] x SLEEP_US (fixed seed).
Prints a line per config and round and the medians; --json for them as
JSON.
"""
import heapq
import json
import os
import random
import statistics
import sys
import time


def schedstat():
    with open("/proc/thread-self/schedstat") as f:
        run, wait, n = f.read().split()
    return int(run), int(wait), int(n)


def server(sleep_s, req, rep):
    """A request's server (a file system's daemon): it sleeps the request's
    latency and answers, so the worker is woken from another process, as
    a FUSE daemon's reply wakes a reader, not by its own timer."""
    while os.read(req, 1):
        time.sleep(sleep_s)
        os.write(rep, b"x")
    os._exit(0)


def worker(piece_ns, sleep_s, until, fd, served):
    if served:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        if os.fork() == 0:
            os.close(req_w)
            os.close(rep_r)
            server(sleep_s, req_r, rep_w)
        os.close(req_r)
        os.close(rep_w)
    r0, w0, n0 = schedstat()
    pieces = 0
    t0 = time.monotonic_ns()
    while time.monotonic() < until:
        if served:
            os.write(req_w, b"r")
            os.read(rep_r, 1)
        else:
            time.sleep(sleep_s)
        end = time.thread_time_ns() + piece_ns
        while time.thread_time_ns() < end:
            pass
        pieces += 1
    t1 = time.monotonic_ns()
    r1, w1, n1 = schedstat()
    os.write(fd, (json.dumps({"run": r1 - r0, "wait": w1 - w0, "pieces": pieces,
                              "wall": t1 - t0, "slices": n1 - n0}) + "\n").encode())
    if served:
        os.close(req_w)
        os.wait()
    os._exit(0)


def measure(n, piece_us, sleep_us, served, seconds):
    rd, wr = os.pipe()
    until = time.monotonic() + 0.2 + seconds
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            os.close(rd)
            worker(piece_us * 1000, sleep_us / 1e6, until, wr, served)
        pids.append(pid)
    os.close(wr)
    for p in pids:
        os.waitpid(p, 0)
    with os.fdopen(rd) as f:
        res = [json.loads(line) for line in f if line.strip()]
    pieces = sum(r["pieces"] for r in res)
    return {"wait_us": sum(r["wait"] for r in res) / pieces / 1e3,
            "cpu_us": sum(r["run"] for r in res) / pieces / 1e3,
            "cycle_us": sum(r["wall"] for r in res) / pieces / 1e3,
            "stretch_us": sum(r["run"] for r in res) / max(1, sum(r["slices"] for r in res)) / 1e3,
            "stretches": sum(r["slices"] for r in res) / pieces}


def slice_us(n):
    """The fair class's slice on n CPUs as tiersim's cores used it until
    2026-12-07 (0.75 ms x (1 + ilog2(min(n, 8)))), us."""
    f, m = 1, min(n, 8)
    while m > 1:
        f, m = f + 1, m >> 1
    return 750.0 * f


def jitter(rng, sleep):
    """A sleep drawn uniformly over [0.5, 1.5] x its mean: requests' latencies
    vary, and a closed system of equal fixed cycles would fall into step."""
    return sleep * (0.5 + rng.random())


def sim_fifo(n, cores, piece, sleep, base, quantum=None, horizon=4e6):
    """Closed FIFO over the cores as tiersim's virtual cores place work (each
    slice on the core that frees first, from when it is runnable; a piece
    longer than @quantum re-queued slice by slice behind those waiting):
    the mean time a piece waits for a core (us), base added."""
    rng = random.Random(1)
    free = [0.0] * cores
    ev = [(jitter(rng, sleep), i, piece, 0.0) for i in range(n)]
    heapq.heapify(ev)
    waits = []
    while ev:
        t, i, left, w = heapq.heappop(ev)
        if t > horizon:
            break
        c = min(range(cores), key=lambda k: free[k])
        start = max(t, free[c])
        run = min(left, quantum) if quantum else left
        free[c] = start + run
        if left - run > 1e-9:
            heapq.heappush(ev, (free[c], i, left - run, w + start - t))
        else:
            waits.append(w + start - t)
            heapq.heappush(ev, (free[c] + jitter(rng, sleep) + base, i, piece, 0.0))
    return statistics.mean(waits) + base


def sim_percpu(n, cores, piece, sleep, base, horizon=4e6):
    """Closed, one run queue per core as Linux's fair class keeps them: a
    woken piece goes to a core idle at that time (its last core if that
    one is), else queues on its last core (select_idle_sibling finds no
    idle CPU and keeps the previous one), first come first served there:
    the mean time a piece waits for a core (us), base added."""
    rng = random.Random(1)
    free = [0.0] * cores
    last = [i % cores for i in range(n)]
    ev = [(jitter(rng, sleep), i) for i in range(n)]
    heapq.heapify(ev)
    waits = []
    while ev:
        t, i = heapq.heappop(ev)
        if t > horizon:
            break
        idle = [k for k in range(cores) if free[k] <= t]
        c = last[i] if last[i] in idle or not idle else idle[0]
        start = max(t, free[c])
        waits.append(start - t)
        free[c] = start + piece
        last[i] = c
        heapq.heappush(ev, (free[c] + jitter(rng, sleep) + base, i))
    return statistics.mean(waits) + base


def sim_ps(n, cores, piece, sleep, base, horizon=2e6):
    """Closed processor sharing: mean time a piece spends runnable and not
    running (response - piece, us), base added."""
    rng = random.Random(1)
    t = 0.0
    asleep = {i: jitter(rng, sleep) for i in range(n)}  # worker -> wake time
    active = {}  # worker -> [left, arrived]
    waits = []
    while t < horizon:
        k = len(active)
        rate = min(1.0, cores / k) if k else 0.0
        nxt_wake = min(asleep.values()) if asleep else float("inf")
        nxt_done = min(a[0] for a in active.values()) / rate if k else float("inf")
        dt = min(nxt_wake - t, nxt_done)
        t += dt
        for a in active.values():
            a[0] -= dt * rate
        for i in [i for i, a in active.items() if a[0] <= 1e-9]:
            waits.append(t - active[i][1] - piece)
            del active[i]
            asleep[i] = t + jitter(rng, sleep) + base
        for i in [i for i, w in asleep.items() if w <= t + 1e-9]:
            del asleep[i]
            active[i] = [piece, t]
    return statistics.mean(waits) + base


def main():
    args = sys.argv[1:]
    seconds, rounds, as_json = 3.0, 2, False
    qs = (50.0,)
    cfgs = []
    while args:
        a = args.pop(0)
        if a == "--seconds":
            seconds = float(args.pop(0))
        elif a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--json":
            as_json = True
        elif a == "--slices":
            qs = tuple(float(x) for x in args.pop(0).split(","))
        else:
            f = a.split(":")
            cfgs.append((int(f[0]), float(f[1]), float(f[2]), len(f) > 3 and f[3] == "served"))
    if not cfgs:
        cfgs = [(n, p, 1000.0, v) for v in (False, True) for p in (200.0, 500.0)
                for n in (1, 2, 4, 8)]
    cores = os.cpu_count()
    got = {c: [] for c in cfgs}
    for r in range(rounds):
        for c in cfgs:
            m = measure(*c, seconds)
            got[c].append(m)
            print("round %d: %d workers, piece %.0f us, sleep %.0f us%s: wait %.1f us a piece, "
                  "CPU %.1f us, cycle %.1f us, %.2f times on a core a piece (%.1f us each)"
                  % (r + 1, c[0], c[1], c[2], " served" if c[3] else "", m["wait_us"], m["cpu_us"],
                     m["cycle_us"], m["stretches"], m["stretch_us"]),
                  flush=True)
    out = []
    print("%d cores; medians over %d rounds, us a piece; each model adds the 1-worker "
          "wait of the same piece (the host's wake-up); FIFO: first come first served, "
          "pieces under %.0f us whole, RR q: the same in slices of q us, PS: processor sharing, "
          "per-CPU: a run queue per core, a woken piece on an idle core or its last one"
          % (cores, rounds, slice_us(cores)))
    print("%7s %6s %6s %6s | %7s | %7s %s %7s %7s | %s" % (
        "workers", "piece", "sleep", "served", "Linux", "FIFO", " ".join("%7s" % ("RR %.0f" % q) for q in qs),
        "PS", "per-CPU", "Linux over FIFO, PS, per-CPU"))
    for c in cfgs:
        n, p, s, v = c
        w = statistics.median(m["wait_us"] for m in got[c])
        cpu = statistics.median(m["cpu_us"] for m in got[c])
        on = statistics.median(m["stretch_us"] for m in got[c])
        k = statistics.median(m["stretches"] for m in got[c])
        one = [k for k in cfgs if k[0] == 1 and k[1:] == c[1:]]
        base = statistics.median(m["wait_us"] for m in got[one[0]]) if one else 0.0
        f = sim_fifo(n, cores, cpu, s, base, slice_us(cores))
        rr = [sim_fifo(n, cores, cpu, s, base, q) for q in qs]
        ps = sim_ps(n, cores, cpu, s, base)
        pc = sim_percpu(n, cores, cpu, s, base)
        out.append({"workers": n, "piece_us": p, "sleep_us": s, "served": v, "cores": cores,
                    "linux_wait_us": w, "cpu_us": cpu, "base_us": base, "fifo_wait_us": f,
                    "rr_wait_us": dict(zip(qs, rr)), "ps_wait_us": ps, "percpu_wait_us": pc,
                    "stretch_us": on, "stretches": k,
                    "rounds": [m["wait_us"] for m in got[c]]})
        print("%7d %6.0f %6.0f %6s | %7.1f | %7.1f %s %7.1f %7.1f | %.2f, %.2f, %.2f | "
              "%.2f on a core a piece, %.1f us each" % (
                  n, p, s, "yes" if v else "no", w, f, " ".join("%7.1f" % x for x in rr), ps, pc,
                  w / f, w / ps, w / pc, k, on))
    if as_json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
