#!/usr/bin/env python3
"""release_order.py — which throttle explains the tails of the validation
corpus's capped runs (validation/README.md, "Tails").

Closed-loop fio jobs at a binding IOPS cap, in virtual time (standard
library only; one seed, so the output is the same on every run):

  pl1     the 80 GiB ESSD PL1 at QD128 (5,800 IOPS, 10 ms windows, 58
          I/Os a window; device time 0.2 ms), with the held requests
          released in three orders: arrival order (tier/rate.c's), a
          uniformly random pick among those held, and four queues each
          with a quarter of the budget, a request routed to one at random
          and each queue in arrival order.
  ultra1m the 80 GiB ultra disk's 1 MiB sequential reads at QD64
          (alicloud-ultra-80g-read-1m-qd64's run: 112 MB/s, 10.68 MiB a
          100 ms window, were the bandwidth cap released in the
          ultra-cloud-2024 tier's windows) in arrival order and in a random
          pick, beside the run's percentiles.
  pl1qd1  the same disk read by two QD1 jobs (the readers of
          alicloud-essd-pl1-80g-randread-4k-qd1x2) under one window budget
          and under the four queues' split budgets: the IOPS each gives.
  gp      16 psync jobs at 3,000 IOPS with aws-gp2's read latency (a
          lognormal of p50 353 us, p99 816 us), the cap spaced evenly
          (tier/rate.c's GCRA) or released in windows of 0.25-2 ms in
          arrival order (rate.c's window_admit and window_charge).

Each row prints the completion latency's percentiles (ms for pl1, us for
gp) beside the measured ones the sources publish (fio's clat percentiles;
fio reports the value of its histogram bin, at most 1.6% wide).

usage: release_order.py [pl1|ultra1m|pl1qd1|gp]...   (default: all four)
"""
import heapq
import math
import random
import sys

PS = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9)


def pct(lats):
    lats.sort()
    return [lats[min(len(lats) - 1, int(p / 100 * len(lats)))] for p in PS]


def show(name, row, fmt):
    print(name.ljust(14), " ".join(fmt % x for x in row))


# -- the PL1 at QD128 ----------------------------------------------------------
# JustHumanz/justhumanz.github.io _posts/cache-device/2022-06-12-bcache-on-
# public-cloud.md @ 50e88d7e, 'SSD' (vdd, 80 GiB PL1): fio 3.16 libaio 4 KiB
# QD128, 1 GiB; the 1st-99.9th percentiles of the reads and of the writes.
PL1_READ = [1.287, 9.503, 9.765, 10.028, 11.207, 19.792, 20.055, 20.317, 29.230, 30.016, 39.584,
            40.109, 60.031, 69.731, 80.217]
PL1_WRITE = [1.352, 9.372, 9.765, 10.028, 10.683, 19.792, 20.055, 20.317, 29.492, 30.016, 39.584,
             40.109, 60.031, 69.731, 80.217]

# The same post, 'Sequential read throughput', 'HDD' (vde, the 80 GiB ultra
# disk): fio 1 MiB sequential reads at QD64, 1 GiB in 9.0 s (114 MiB/s).
ULTRA_1M_READ = [24, 292, 397, 401, 506, 592, 600, 600, 609, 693, 701, 793, 1183, 1200, 1200]


def pl1(order, qd=128, budget=58, win=10.0, dev=0.2, n=262144, seed=1, queues=4):
    """Closed loop of @qd requests; every window releases @budget held ones
    (all arrive within the window before: a completion is re-issued at once
    and the window's budget is spent at its start)."""
    rnd = random.Random(seed)
    if order == "queues":
        held = [[] for _ in range(queues)]
        for _ in range(qd):
            held[rnd.randrange(queues)].append(0.0)
    else:
        held = [0.0] * qd
    lats, k = [], 0
    while len(lats) < n:
        ws = k * win
        m = int((k + 1) * budget) - int(k * budget)  # a fractional budget alternates
        if order == "fifo":
            out, held = held[:m], held[m:]
        elif order == "random":
            rnd.shuffle(held)
            out, held = held[:m], held[m:]
        else:  # each queue a quarter of the budget (14 or 15), what it leaves lost
            out, b = [], budget / queues
            for q in range(queues):
                m = int((k + 1) * b) - int(k * b)
                out += held[q][:m]
                held[q] = held[q][m:]
        for a in out:
            lats.append(ws + dev - a)
            if order == "queues":
                held[rnd.randrange(queues)].append(ws + dev)
            else:
                held.append(ws + dev)
        k += 1
    return pct(lats), len(lats) / (k * win / 1000.0)


def pl1_qd1(queues, readers=2, budget=58, win=10.0, dev=0.2, t_end=20000.0, seed=3):
    """@readers QD1 jobs; a request goes to one of @queues at random, each
    with budget / queues I/Os a window, and waits for the first window with
    budget left in its queue. Returns IOPS and the share of requests held."""
    rnd = random.Random(seed)
    used, t, n, held = {}, [0.0] * readers, 0, 0
    b = budget / queues
    while min(t) < t_end:
        r = min(range(readers), key=lambda i: t[i])
        a, q, k = t[r], rnd.randrange(queues), int(t[r] // win)
        while used.get((k, q), 0) >= int((k + 1) * b) - int(k * b):
            k += 1
        s = max(a, k * win)
        held += s > a
        used[(k, q)] = used.get((k, q), 0) + 1
        t[r] = s + dev
        n += 1
    return n / (t_end / 1000.0), 100.0 * held / n


# -- gp2/gp3 at 3,000 IOPS with 16 in flight -------------------------------------
# bitofsky/aws-ebs-benchmark readme.md @ 49a4a638: fio 3.16, 16 psync jobs,
# 16 KiB, 180 s, 1 TB gp2 and gp3 of an r5.large (2021-05-07).
GP = {
    "gp2 reads": [2802, 4817, 4948, 5014, 5145, 5211, 5276, 5342, 5407, 5538, 5735, 5932, 6849, 7570,
                  11863],
    "gp2 writes": [2573, 4686, 4817, 5014, 5080, 5145, 5211, 5276, 5342, 5473, 5735, 7767, 8979, 10028,
                   14222],
    "gp3 reads": [2933, 5014, 5145, 5211, 5276, 5276, 5342, 5342, 5407, 5407, 5473, 5604, 5997, 7046,
                  11076],
    "gp3 writes": [2999, 4948, 5080, 5211, 5211, 5276, 5342, 5342, 5407, 5473, 5538, 5669, 7111, 9896,
                   13566],
}


def gp(win_us, cap=3000, jobs=16, p50=353.0, p99=816.0, t_end=60e6, seed=1):
    """16 closed-loop jobs; the cap spaced evenly (win_us 0) or released in
    windows of win_us in arrival order, as tier/rate.c does."""
    rnd = random.Random(seed)
    sig, mu = math.log(p99 / p50) / 2.3263, math.log(p50)
    ev = [(0.0, j) for j in range(jobs)]
    heapq.heapify(ev)
    tat, wstart, wused, lats = 0.0, 0.0, 0.0, []
    budget = cap * win_us / 1e6

    def used_at(ws):
        return wused if ws <= wstart else max(0.0, wused - (ws - wstart) / win_us * budget)

    while True:
        t, j = heapq.heappop(ev)
        if t > t_end:
            break
        if win_us:
            ws = wstart if t < wstart else math.floor(t / win_us) * win_us
            u = used_at(ws)
            if u >= budget:
                ws += math.floor(u / budget) * win_us
            s = max(ws, t)
            ws2 = max(math.floor(s / win_us) * win_us, wstart)
            wused, wstart = used_at(ws2) + 1, ws2
        else:
            s = max(t, tat)
            tat = s + 1e6 / cap
        c = s + math.exp(rnd.gauss(mu, sig))
        lats.append(c - t)
        heapq.heappush(ev, (c, j))
    return pct(lats)


def main(argv):
    parts = argv or ["pl1", "ultra1m", "pl1qd1", "gp"]
    for part in parts:
        if part == "pl1":
            print("PL1 QD128, completion latency (ms) at percentiles", PS)
            show("measured read", PL1_READ, "%6.1f")
            show("measured write", PL1_WRITE, "%6.1f")
            for order in ("fifo", "random", "queues"):
                row, iops = pl1(order)
                show(order, row, "%6.1f")
                print("%14s IOPS %.0f" % ("", iops))
        elif part == "ultra1m":
            print("ultra disk 1 MiB reads at QD64, completion latency (ms) at percentiles", PS)
            show("measured read", ULTRA_1M_READ, "%6.0f")
            for order in ("fifo", "random"):
                row, _ = pl1(order, qd=64, budget=10.68, win=100.0, n=100000)
                show(order, row, "%6.0f")
        elif part == "pl1qd1":
            print("PL1 read by two QD1 jobs (measured: 5,869 IOPS, p50 206 us)")
            for q in (1, 2, 4, 8):
                iops, held = pl1_qd1(q)
                print("  %d queue(s): %.0f IOPS, %.1f%% of requests held" % (q, iops, held))
        elif part == "gp":
            print("16 psync jobs at 3,000 IOPS, completion latency (us) at percentiles", PS)
            for name, row in GP.items():
                show("measured " + name.split()[0] + name.split()[1][0], row, "%6.0f")
            for w in (0, 250, 500, 1000, 2000):
                show("window %d us" % w if w else "even", gp(w), "%6.0f")
        else:
            sys.exit("release_order.py: unknown part '%s' (pl1, ultra1m, pl1qd1, gp)" % part)


if __name__ == "__main__":
    main(sys.argv[1:])
