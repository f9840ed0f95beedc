#!/usr/bin/python3
"""window_gap.py NAME SCAN EVENTS DEV [NAME SCAN EVENTS DEV ...] -- the path
from one readahead window's completion to the next window's submit in a
scan through a memory map (bench/window_gap.sh). NAME is MODE.RUN (mode
block, hop, sirq, size, main or tmpfs); SCAN bench/mapped_scan.c's "PAGE
START_NS END_NS" lines;
EVENTS a tracefs trace (trace_clock mono) of the scan thread's
block_bio_queue, sched_wakeup and sched_switch and the loop device's
block_rq_issue and block_rq_complete; DEV `tiersim trace dump` of the
mount's device requests (empty for tmpfs).

block: each time the reader slept (switched out, state D) and was woken,
the request that completed last before its wake-up (k) and the first one
it queued after it ran again (next), before it slept again:
  issue->done   the loop device's request k, issue to completion: the
                device's latency as the kernel sees it (block mode: the
                tier model's time for k, plus what the clock leaves)
  reply->done   tierfs's reply of k to the loop device's completion of k
  done->wake    the completion to the reader's wake-up (sched_wakeup)
  wake->run     the wake-up to the reader on a CPU (sched_switch)
  run->queue    the reader's run through the window, its faults and the
                fault that queues the next window's bio (block_bio_queue)
  queue->issue  the bio to the loop device's request (block_rq_issue)
  issue->recv   the loop worker, FUSE and tierfs's thread: the request to
                tierfs's receipt (the trace's submit_ns)
  reply->recv   the whole gap as tierfs sees it; model->recv the same from
                the model's own end (the reply less its lateness, late_ns)
tmpfs: the reader never waits for long (no wake-up chain); each window
the scan queues is tied to the touch that queued it, and
  per window    the start of one queuing touch to the next one's: the
                reader's run through a window, its faults, the submit
  submit touch  the queuing touch's own time (the fault and readahead)
Medians [p25-p75] per run, then the median of the runs' medians [min-max].
"""
import bisect
import re
import statistics as st
import sys

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$")
RQ = re.compile(r"\d+,\d+ (\S+) (?:\d+ )?\(.*?\) (\d+) \+ (\d+)")
BIO = re.compile(r"\d+,\d+ (\S+) (\d+) \+ (\d+)")


def ns(sec, frac):
    return int(sec) * 1000000000 + int(frac.ljust(9, "0")[:9])


def events(path):
    out = []
    for l in open(path):
        m = LINE.match(l)
        if m:
            out.append((ns(m.group(4), m.group(5)), m.group(6), m.group(7), m.group(1),
                        int(m.group(2))))
    return out


def q(xs):
    xs = sorted(xs)
    if not xs:
        return None
    n = len(xs)
    return st.median(xs), xs[n // 4], xs[(3 * n) // 4]


def fmt(v):
    return "-" if v is None else f"{v[0] / 1000:7.1f} [{v[1] / 1000:.1f}-{v[2] / 1000:.1f}]"


def block(scan, ev, dev):
    rq = {}  # start sector -> [issue, complete, sectors]
    bios, wakes, outs, ins = [], [], [], []
    # the reader: the thread that queued most bios (main.lua: one of tiersim's)
    pids = {}
    for e in ev:
        m = BIO.search(e[2]) if e[1] == "block_bio_queue" else None
        if m and "R" in m.group(1) and e[2].startswith("7,"):  # a loop device's read
            pids[e[4]] = pids.get(e[4], 0) + 1
    me = max(pids, key=pids.get) if pids else -1
    for t, name, rest, task, pid in ev:
        if name == "block_bio_queue" and pid != me:
            continue
        if name in ("block_rq_issue", "block_rq_complete"):
            m = RQ.search(rest)
            if not m or "R" not in m.group(1):
                continue
            r = rq.setdefault(int(m.group(2)), [None, None, int(m.group(3))])
            if name == "block_rq_issue" and r[0] is None:
                r[0] = t
            elif name == "block_rq_complete" and r[1] is None:
                r[1] = t
        elif name == "block_bio_queue":
            m = BIO.search(rest)
            if m and "R" in m.group(1):
                bios.append((t, int(m.group(2))))
        elif name == "sched_wakeup":
            if re.search(rf"\bpid={me}\b", rest):
                wakes.append((t, task))
        elif name == "sched_switch":
            if re.search(rf"prev_pid={me}\b", rest) and "prev_state=D" in rest:
                outs.append(t)
            if re.search(rf"next_pid={me}\b", rest):
                ins.append(t)
    tf = {}  # sector -> (receipt, reply, late), on the events' clock
    last, base = None, 0
    for l in open(dev):
        f = l.split()
        if f and f[0] == "header":
            m = re.search(r"start_mono_ns=(\d+)", l)
            base = int(m.group(1)) if m else 0
        elif len(f) > 5 and f[2] == "read":
            last = int(f[4]) // 512
            tf[last] = [base + int(f[0]), base + int(f[1]), 0]
        elif f and f[0] == "cpu" and last is not None:
            for kv in f[2:]:
                if kv.startswith("late_ns="):
                    tf[last][2] = int(kv[8:])
            last = None
    starts = sorted(rq)
    # each request's first bio (the window's queue time)
    qt = {}
    for t, sec in bios:
        i = bisect.bisect_right(starts, sec) - 1
        if i >= 0 and sec < starts[i] + rq[starts[i]][2]:
            s = starts[i]
            qt[s] = min(qt.get(s, t), t)
    comps = sorted((r[1], s) for s, r in rq.items() if r[1] is not None)
    ctimes = [c[0] for c in comps]
    queued = sorted((t, s) for s, t in qt.items())
    qtimes = [x[0] for x in queued]
    outs.sort()
    ins.sort()
    wakes.sort()
    hops = {k: [] for k in ("issue->done", "reply->done", "done->wake", "wake->run", "run->queue", "queue->issue",
                            "issue->recv", "reply->recv", "model->recv")}
    wakers, skipped = {}, 0
    for o in outs:
        i = bisect.bisect_right([w[0] for w in wakes], o)
        if i >= len(wakes):
            continue
        w, waker = wakes[i]
        j = bisect.bisect_left(ins, w)
        if j >= len(ins):
            continue
        s_ = ins[j]
        c = bisect.bisect_right(ctimes, w) - 1
        nq = bisect.bisect_left(qtimes, s_)
        nxt_out = outs[bisect.bisect_right(outs, s_)] if bisect.bisect_right(outs, s_) < len(outs) else None
        if c < 0 or nq >= len(queued) or c_before(ctimes[c], o) or (nxt_out and queued[nq][0] > nxt_out):
            skipped += 1
            continue
        ct, ks = comps[c]
        qt_, ns_ = queued[nq]
        it = rq[ns_][0]
        if ks not in tf or ns_ not in tf or it is None:
            skipped += 1
            continue
        recv_k, reply_k, late_k = tf[ks]
        recv_n = tf[ns_][0]
        wakers[re.sub(r"\d+", "N", waker)] = wakers.get(re.sub(r"\d+", "N", waker), 0) + 1
        if rq[ks][0] is not None:
            hops["issue->done"].append(ct - rq[ks][0])
        hops["reply->done"].append(ct - reply_k)
        hops["done->wake"].append(w - ct)
        hops["wake->run"].append(s_ - w)
        hops["run->queue"].append(qt_ - s_)
        hops["queue->issue"].append(it - qt_)
        hops["issue->recv"].append(recv_n - it)
        hops["reply->recv"].append(recv_n - reply_k)
        hops["model->recv"].append(recv_n - (reply_k - late_k))
    lat = [r - a for a, r, _ in tf.values()]
    late = [x for _, _, x in tf.values()]
    return hops, {"chains": len(hops["reply->recv"]), "skipped": skipped, "sleeps": len(outs),
                  "requests": len(tf), "wakers": wakers, "reply-recv": q(lat), "late": q(late)}


def sizes(ev, dev):
    """the emulator's hops of each request, by its size"""
    rq = {}
    for t, name, rest, task, _ in ev:
        m = RQ.search(rest) if name.startswith("block_rq_") else None
        if not m or "R" not in m.group(1):
            continue
        r = rq.setdefault(int(m.group(2)), [None, None])
        i = 0 if name == "block_rq_issue" else 1
        if r[i] is None:
            r[i] = t
    base, out = 0, {}
    for l in open(dev):
        f = l.split()
        if f and f[0] == "header":
            m = re.search(r"start_mono_ns=(\d+)", l)
            base = int(m.group(1)) if m else 0
        elif len(f) > 5 and f[2] == "read" and int(f[4]) // 512 in rq:
            i, c = rq[int(f[4]) // 512]
            if i is None or c is None:
                continue
            kib = int(f[5]) // 1024
            out.setdefault(f"issue->recv {kib} KiB", []).append(base + int(f[0]) - i)
            out.setdefault(f"reply->done {kib} KiB", []).append(c - base - int(f[1]))
            out.setdefault(f"issue->done {kib} KiB", []).append(c - i)
    return dict(sorted(out.items())), {"requests": sum(len(v) for v in out.values()) // 3}


def c_before(c, o):
    """a completion before the reader went to sleep did not wake it"""
    return c < o


def tmpfs(scan, ev):
    touch = [tuple(int(x) for x in l.split()) for l in open(scan)]
    st_ = [t[1] for t in touch]
    qtouch = []
    sleeps = []
    for t, name, rest, task, _ in ev:
        if name == "block_bio_queue":
            i = bisect.bisect_right(st_, t) - 1
            if i >= 0 and t <= touch[i][2] and (not qtouch or qtouch[-1] != i):
                qtouch.append(i)
        elif name == "sched_switch" and "prev_comm=mapped_scan" in rest:
            sleeps.append(t)  # any switch out: a wait, or a preemption
    sleeps.sort()

    def slept(a, b):
        return bisect.bisect_left(sleeps, a) != bisect.bisect_left(sleeps, b)
    pairs = [(a, b) for a, b in zip(qtouch, qtouch[1:]) if touch[b][0] - touch[a][0] == 32]
    run = [touch[b][1] - touch[a][1] for a, b in pairs if not slept(touch[a][1], touch[b][1])]
    waited = [touch[b][1] - touch[a][1] for a, b in pairs if slept(touch[a][1], touch[b][1])]
    own = [touch[i][2] - touch[i][1] for i in qtouch[1:] if not slept(touch[i][1], touch[i][2])]
    return {"per window": run, "window, slept": waited, "submit touch": own}, {
        "windows": len(qtouch), "switched out": len(sleeps)}


def main(a):
    if len(a) % 4 or not a:
        sys.exit(__doc__)
    res = {}
    for k in range(0, len(a), 4):
        name, scan, ev, dev = a[k:k + 4]
        mode = name.split(".")[0]
        e = events(ev)
        if mode in ("block", "hop", "sirq", "main"):
            hops, info = block(scan, e, dev)
        elif mode == "size":
            hops, info = sizes(e, dev)
        else:
            hops, info = tmpfs(scan, e)
        print(f"{name}: " + ", ".join(f"{k_} {fmt(v) if isinstance(v, tuple) and len(v) == 3 and k_ in ('reply-recv', 'late') else v}" for k_, v in info.items()))
        for h, xs in hops.items():
            print(f"  {h:14s} {fmt(q(xs))} us  (n {len(xs)})")
            if xs:
                res.setdefault(mode, {}).setdefault(h, []).append(st.median(xs))
    for mode, hs in res.items():
        print(f"{mode}: median of the runs' medians [min-max], us")
        for h, m in hs.items():
            print(f"  {h:14s} {st.median(m) / 1000:7.1f} [{min(m) / 1000:.1f}-{max(m) / 1000:.1f}]")


main(sys.argv[1:])
