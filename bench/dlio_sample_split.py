#!/usr/bin/env python3
# dlio_sample_split.py — where a reading thread's time per sample goes in a
# DLIO-like run, from a tierfs trace (the text of `tiersim trace dump
# TRACE`, in the file DUMP or on stdin), split by how many reading threads were active: the
# figures a virtual run charges each sample (the tier's service, the
# reader's CPU, its wait for a core, the fixed wait per request) to set
# beside it.
#
# The stretches are bench/dlio_waits.py's: for each reading thread (one that
# opened files), from one request whose schedstat clocks tierfs sampled to
# the next, gaps over 50 ms (a worker idle between its batches, or
# collating one) left out; each stretch goes to a bucket by how many
# reading threads made a request within 10 ms of its middle ("1-2", "3-5",
# "6-8", "9+"). Per sample (an open) in each bucket, us:
#     wall   the stretches' time
#     span   the requests' own time, submit to reply (the tier's modeled
#            service and tierfs's lateness, late, inside it)
#     oncpu  the thread on a CPU (its schedstat run time)
#     runq   the thread runnable, not on a CPU (schedstat's wait)
#     rest   wall - span - oncpu - runq: neither served, nor on a CPU nor
#            runnable (the hand-offs through the FUSE device)
# and rest + late per charged request (opens and reads), the part of the
# wait per request that no core's queue holds.
#   --json: one JSON object instead, the buckets as keys.
# Usage: dlio_sample_split.py [--json] [DUMP]. A DUMP that cannot be read,
# or an IO or cpu line that is not the dump's, is one line on stderr naming
# the file (and the line), exit 1.
import bisect
import collections
import json
import sys

NEAR = 10_000_000
IDLE = 50_000_000
BUCKETS = ["1-2", "3-5", "6-8", "9+", "all"]


def bucket(k):
    return "1-2" if k <= 2 else "3-5" if k <= 5 else "6-8" if k <= 8 else "9+"


class Bad(Exception):
    pass


def parse(lines):
    """The IO records: [submit, complete, op, tid, (on, runq) or None, late]."""
    recs, cur = [], None
    for n, line in enumerate(lines, 1):
        w = line.split()
        if not w:
            continue
        try:
            if w[0].isdigit():
                if len(w) != 11:
                    raise ValueError("%d fields, not 11" % len(w))
                cur = [int(w[0]), int(w[1]), w[2], int(w[7]), None, 0]
                recs.append(cur)
            elif w[0] == "cpu":
                if cur is None or len(w) < 2 or w[1] != str(cur[3]):
                    raise ValueError("not right after a record of its thread")
                bad = [x for x in w[2:] if "=" not in x]
                if bad:
                    raise ValueError("%s is not KEY=N" % bad[0])
                kv = dict(x.split("=", 1) for x in w[2:])
                cur[5] = int(kv.get("late_ns", 0))
                if int(kv.get("flags", 0)) == 0 and int(kv.get("pid", 0)) != 0:
                    cur[4] = (int(kv["on_ns"]), int(kv["runq_ns"]))
        except (ValueError, KeyError) as e:
            why = "no %s=" % e.args[0] if isinstance(e, KeyError) else e
            raise Bad("line %d is not a trace dump's %s line (%s): %r"
                      % (n, "cpu" if w[0] == "cpu" else "IO", why, line.rstrip("\n")))
    return recs


def readers_of(recs):
    """The reading threads (those that opened a file), each its records in
    submit order, and active(t): how many of them made a request within
    NEAR of t."""
    by = collections.defaultdict(list)
    for r in recs:
        by[r[3]].append(r)
    readers = {t: sorted(rs) for t, rs in by.items() if any(r[2] == "open" for r in rs)}
    subs = [sorted(r[0] for r in rs) for rs in readers.values()]

    def active(t):
        n = 0
        for s in subs:
            i = bisect.bisect_left(s, t - NEAR)
            n += i < len(s) and s[i] <= t + NEAR
        return n

    return readers, active


def per(x, n, scale=1e3):
    """x / n / scale, None where n is 0 (nothing to share x)"""
    return x / n / scale if n else None


def fmt(v, digits):
    return "-" if v is None else "%.*f" % (digits, v)


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    if len(args) > 1 or args and args[0].startswith("-") and args[0] != "-":
        sys.exit("usage: dlio_sample_split.py [--json] [DUMP]")
    if args == ["-"]:
        args = []
    name = args[0] if args else "<stdin>"
    try:
        if args:
            with open(name) as f:
                recs = parse(f)
        else:
            recs = parse(sys.stdin)
    except OSError as e:
        sys.exit("dlio_sample_split.py: %s: %s" % (name, e.strerror))
    except Bad as e:
        sys.exit("dlio_sample_split.py: %s: %s" % (name, e))
    except UnicodeDecodeError as e:
        sys.exit("dlio_sample_split.py: %s: not text (%s)" % (name, e.reason))
    readers, active = readers_of(recs)
    # wall, span, late, on, runq, opens, charged requests
    acc = collections.defaultdict(lambda: [0] * 7)
    for rs in readers.values():
        idx = [i for i, r in enumerate(rs) if r[4] is not None]
        for a, b in zip(idx, idx[1:]):
            if max(rs[k][0] - rs[k - 1][1] for k in range(a + 1, b + 1)) > IDLE:
                continue
            body = rs[a:b]
            for key in (bucket(active((rs[a][0] + rs[b][0]) // 2)), "all"):
                x = acc[key]
                x[0] += rs[b][0] - rs[a][0]
                x[1] += sum(r[1] - r[0] for r in body)
                x[2] += sum(r[5] for r in body)
                x[3] += rs[b][4][0] - rs[a][4][0]
                x[4] += rs[b][4][1] - rs[a][4][1]
                x[5] += sum(r[2] == "open" for r in body)
                x[6] += sum(r[2] in ("open", "read") for r in body)
    out = {}
    for k in BUCKETS:
        if k not in acc:
            continue
        wall, span, late, on, rq, nf, nc = acc[k]
        rest = wall - span - on - rq
        # a bucket whose spans opened no file has no samples to share
        # them: its figures a sample are None (JSON null, "-"), not x / 1
        out[k] = {"samples": nf, "charged_per_sample": per(nc, nf, 1),
                  "wall_us": per(wall, nf), "span_us": per(span, nf),
                  "late_us": per(late, nf), "oncpu_us": per(on, nf),
                  "runq_us": per(rq, nf), "rest_us": per(rest, nf),
                  "rest_late_us_per_request": per(rest + late, nc)}
    if "--json" in sys.argv[1:]:
        print(json.dumps(out))
        return
    print("%-4s %7s %5s | us a sample: %6s %6s %5s %6s %6s %5s | rest+late/req" %
          ("act", "samples", "req", "wall", "span", "late", "oncpu", "runq", "rest"))
    for k, v in out.items():
        print("%-4s %7d %5s | %19s %6s %5s %6s %6s %5s | %6s" % (
            k, v["samples"], fmt(v["charged_per_sample"], 2), fmt(v["wall_us"], 0), fmt(v["span_us"], 0),
            fmt(v["late_us"], 0), fmt(v["oncpu_us"], 0), fmt(v["runq_us"], 0), fmt(v["rest_us"], 0),
            fmt(v["rest_late_us_per_request"], 1)))


if __name__ == "__main__":
    main()
