#!/usr/bin/env python3
"""kfs_phase.py — a block-mode run's device requests beside the kernel-fs
prediction's, phase by phase (traces/README.md, "The folder loader's
ratio").

BLOCK.txt: a block-mode trace in text form (tiersim trace dump of
bench/kfs_check.sh's block.TIER.ROUND.trace, KFS_CHECK_BLOCK_TRACE=1):
its reads, each timed by the request clock's issue item (the loop device's
issue to the model's completion), cut into jobs where no request was in
flight for 150 ms (the workloads of one mount, in kfs_check.sh's order;
a job of fewer than 100 requests, the mount's own reads, left out);
--job K takes the K-th (from 1). FUSE.txt: the FUSE recording of the same
job (tiersim trace dump), OPS: its prediction's records (tiersim replay
FUSE.trace --virtual --kernel-fs --tier T --ops OPS): the records the
model kept waiting (replayed completion after issue) are its device
requests' union.

For each side: how many requests, their bytes, those of 4 KiB or less
(metadata), the sum of their times, the span from the first issue to the
last completion, and how long 0, 1 and 2 or more requests were in flight;
the gaps with none in flight (p10/p50/p90/p99/max); and tierfs's syscalls
over 2 ms (sys_ns of the CPU samples: its reads of the files it serves,
which wait on the host's disk where the host's page cache lacks them).

usage: kfs_phase.py BLOCK.txt FUSE.txt OPS [--job K]"""
import sys


def records(fn):
    """IO records of a trace dump, each with its issue item and CPU sample."""
    out, last = [], None
    for line in open(fn):
        f = line.split()
        if not f:
            continue
        if f[0].isdigit() and len(f) >= 10:
            last = {"sub": int(f[0]), "comp": int(f[1]), "op": f[2], "len": int(f[5]), "sys": 0}
            out.append(last)
        elif f[0] == "issue" and last is not None:
            d = dict(kv.split("=", 1) for kv in f[2:] if "=" in kv)
            last["issue"], last["end"] = int(d["issue_ns"]), int(d["end_ns"])
        elif f[0] == "cpu" and last is not None:
            d = dict(kv.split("=", 1) for kv in f[2:] if "=" in kv)
            last["sys"] = int(d.get("sys_ns", 0))
    return out


def jobs(reads, quiet=150_000_000):
    reads = sorted(reads, key=lambda x: x["issue"])
    out, end = [], None
    for x in reads:
        if end is None or x["issue"] - end > quiet:
            out.append([])
            end = 0
        out[-1].append(x)
        end = max(end, x["end"])
    return out


def q(v, p):
    return v[min(len(v) - 1, int(p * len(v)))] if v else 0


def show(label, iv, nbytes=None, small=None, slow=None):
    iv = sorted(iv)
    t0, t1 = iv[0][0], max(e for _, e in iv)
    ev = sorted([(s, 1) for s, _ in iv] + [(e, -1) for _, e in iv])
    k, last, tk = 0, t0, {}
    for t, d in ev:
        tk[min(k, 2)] = tk.get(min(k, 2), 0) + t - last
        last, k = t, k + d
    gaps, cur = [], iv[0][1]
    for s, e in iv[1:]:
        if s > cur:
            gaps.append(s - cur)
        cur = max(cur, e)
    gaps.sort()
    ms = 1e6
    extra = ""
    if nbytes is not None:
        extra += f" {nbytes / 1e6:.1f} MB, {small} of <= 4 KiB,"
    print(f"{label}: {len(iv)} requests,{extra} time {sum(e - s for s, e in iv) / ms:.1f} ms, "
          f"span {(t1 - t0) / ms:.1f} ms; in flight 0 / 1 / 2+: {tk.get(0, 0) / ms:.1f} / "
          f"{tk.get(1, 0) / ms:.1f} / {tk.get(2, 0) / ms:.1f} ms")
    print(f"  gaps with none in flight: {len(gaps)}, p10/p50/p90/p99/max "
          + "/".join(f"{q(gaps, p) / 1e3:.0f}" for p in (.1, .5, .9, .99))
          + f"/{(gaps[-1] if gaps else 0) / 1e3:.0f} us"
          + (f"; tierfs syscalls over 2 ms: {slow[0]} ({slow[1] / ms:.1f} ms)" if slow else ""))


def main():
    a = sys.argv[1:]
    job = 1
    if "--job" in a:
        i = a.index("--job")
        job = int(a[i + 1])
        del a[i:i + 2]
    if len(a) != 3:
        sys.exit(__doc__)
    blk = [x for x in records(a[0]) if x["op"] == "read"]
    for x in blk:
        x.setdefault("issue", x["sub"])
        x.setdefault("end", x["comp"])
    js = [j for j in jobs(blk) if len(j) >= 100]
    if job > len(js):
        sys.exit(f"kfs_phase.py: {a[0]} holds {len(js)} jobs")
    j = js[job - 1]
    sl = [x["sys"] for x in j if x["sys"] > 2_000_000]
    show("block", [(x["issue"], x["end"]) for x in j], sum(x["len"] for x in j),
         sum(1 for x in j if x["len"] <= 4096), (len(sl), sum(sl)))
    fuse = records(a[1])
    sl = [x["sys"] for x in fuse if x["sys"] > 2_000_000]
    iv = []
    for line in open(a[2]):
        f = line.split()
        if not f or f[0] == "#" or f[3] != "io":
            continue
        s, d = int(f[6]), int(f[7])
        if d > s:
            iv.append((s, d))
    show("predicted", iv, slow=(len(sl), sum(sl)))


if __name__ == "__main__":
    main()
