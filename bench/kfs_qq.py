#!/usr/bin/env python3
"""kfs_qq.py — the fit of the kernel-fs replay's page-cache read's FUSE
part and stretch (pipeline/hosts.lua's replay_fuse_ra_ns and
replay_fuse_stretch; traces/README.md, "The page-cache read's stretch").

For each pair of a block-mode trace (tiersim disk mount --trace, with the
request clock's issue items) and a FUSE recording of the same job, in
text form (tiersim trace dump), the distance from a read's completion to
the job's next request: in block mode from the latest modeled completion
before the loop device's issue to that issue, through FUSE from the latest
completion at tierfs before its receipt to that receipt. FUSE's
quantiles (10th, 20th ... 70th, 75th percentile) are fitted against block
mode's as one line, FUSE = A + S x block (least squares): S is the
stretch, A less the host's replay_fuse_size_ns the FUSE part.

usage: kfs_qq.py BLOCK.txt FUSE.txt [BLOCK.txt FUSE.txt ...]"""
import bisect, sys

PS = (.1, .2, .3, .4, .5, .6, .7, .75)


def block(fn):
    ev = []
    for line in open(fn):
        if line.startswith("issue "):
            d = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
            ev.append((int(d["issue_ns"]), int(d["end_ns"])))
    return ev


def fuse(fn):
    ev = []
    for line in open(fn):
        f = line.split()
        if len(f) >= 11 and f[0].isdigit() and f[2] == "read":
            ev.append((int(f[0]), int(f[1])))
    return ev


def dist(ev):
    ev.sort()
    ends = sorted(e for _, e in ev)
    out = []
    for s, _ in ev[1:]:
        k = bisect.bisect_right(ends, s)
        if k:
            out.append(s - ends[k - 1])
    return sorted(out)


def q(xs, p):
    return xs[int(p * len(xs))] / 1e3


args = sys.argv[1:]
if len(args) < 2 or len(args) % 2:
    sys.exit(__doc__.split("usage: ")[1])
for k in range(0, len(args), 2):
    b, f = dist(block(args[k])), dist(fuse(args[k + 1]))
    xs, ys = [q(b, p) for p in PS], [q(f, p) for p in PS]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    s = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - s * mx
    res = max(abs(y - (a + s * x)) for x, y in zip(xs, ys))
    print("%s / %s: n %d / %d; FUSE = %.1f + %.3f x block (us), residual at most %.1f us; "
          "FUSE less block at p10..p75: %s" % (args[k], args[k + 1], len(b), len(f), a, s, res,
                                              " ".join("%.0f" % (y - x) for x, y in zip(xs, ys))))
