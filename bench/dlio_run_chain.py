#!/usr/bin/env python3
# dlio_run_chain.py — one sample's request chain out of the trace of a whole
# DLIO run (a tierfs mount's `tiersim trace dump`), in the fixture form of
# bench/dlio_chains.sh: the first time FILE (its path in the mount, e.g.
# /train/img_10_of_64.hdf5) was read, by the thread that read it, from the
# getattrs of the path's folders before its first request to its close;
# each run of folder getattrs is one "walk".
# Usage: dlio_run_chain.py TRACE.txt FILE BACKING_FILE FORMAT DATA_OFFSET DATA_BYTES [MEMBER]
#   (DATA_*: where the sample's bytes lie; MEMBER: the header's member, where
#   an npz file's x.npy begins, 0 when not given)
# tests/workloads/chains/noflush_run_hdf5_338.txt: DLIO 2.0.0 (dlio_benchmark,
# resnet50_h100 overridden to PyTorch, hdf5, 64 files of one 338 x 338
# record from DLIO's generator, batch 8, 2 read threads, 2 epochs,
# computation_time 0.01) on a tierfs of 2026-12-03 mounted
# tier=ssd-cloud,mem=0,attr_timeout=0, FILE /train/img_10_of_64.hdf5, DATA
# 2048 114244 (/train/img_40_ cut the same); before tierfs closed read-only
# files without a flush, the same chain with one before the close.
# tests/workloads/chains/noflush_run_npz_338.txt: the same with npz (64
# files of DLIO's generator, record_length 114660: one 338 x 338 array,
# computation_time 0.01), through a tierfs of 2026-12-03 mounted
# tier=ssd-cloud,mem=0,attr_timeout=0 (the getattrs all reach the daemon; a
# read-only file is closed without a flush), FILE /train/img_10_of_64.npz,
# MEMBER 55, DATA 183 114244; /train/img_40_ and img_63_ cut the same.
import os
import sys

txt, name, backing, fmt, off, ln = sys.argv[1:7]
member = sys.argv[7] if len(sys.argv) > 7 else "0"
paths, ios = {}, []
for line in open(txt):
    w = line.split()
    if w and w[0] == "path":
        paths[int(w[1])] = w[2].strip('"')
    elif w and w[0].isdigit():
        ios.append((int(w[0]), w[2], int(w[3]), int(w[4]), int(w[5]), int(w[7])))
ios.sort()
fid = [k for k, p in paths.items() if p == name]
assert len(fid) == 1, name
fid = fid[0]
parts = name.strip("/").split("/")
folders = {"/"} | {"/" + "/".join(parts[:i]) for i in range(1, len(parts))}
dirs = {k for k, p in paths.items() if p in folders}
first = next(r for r in ios if r[2] == fid)
th = [r for r in ios if r[5] == first[5]]  # the reading thread's requests
a = th.index(first)
while a and th[a - 1][2] in dirs and th[a - 1][1] == "getattr":
    a -= 1
close = next(r for r in ios if r[2] == fid and r[1] == "close" and r[0] >= first[0])
# to its flush, or, where the kernel closes it without one (tierfs's
# FOPEN_NOFLUSH for a read-only file), to the thread's last request to it
flush = [i for i in range(a, len(th)) if th[i][2] == fid and th[i][1] == "flush" and th[i][0] <= close[0]]
b = flush[0] if flush else max(i for i in range(a, len(th)) if th[i][2] == fid and th[i][0] <= close[0])
print("# %s %d %s %s %s" % (fmt, os.path.getsize(backing), member, off, ln))
prev = None
for s, op, f, o, n, t in th[a:b + 1] + [close]:
    if f == fid:
        print(op, o, n)
        prev = op
    elif f in dirs and op == "getattr":
        if prev != "walk":
            print("walk 0 0")
        prev = "walk"
