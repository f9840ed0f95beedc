#!/usr/bin/env python3
"""blk_classes.py — what each device request of a block-mode trace read.

tiersim disk mount --trace records the requests the loop device sent to
the image that tierfs serves: offsets and lengths in the image, nothing
more. This classes each read by the ext4 image's own layout, taken from
e2fsprogs on the image itself (it must be the image the trace was made
on, unchanged since):
  sb/gdt/bitmap  a superblock (primary or backup), group descriptors,
                 reserved GDT blocks, a block or inode bitmap (dumpe2fs)
  inode table    a group's inode table (dumpe2fs's "Inode table at")
  folder         a block of a directory (debugfs icheck, then the owner's
                 type)
  extent tree    an extent index or leaf block of a file (debugfs ex)
  data           a block a regular file maps (debugfs icheck + ex), with
                 the file and the offset in it
  journal        the journal inode's blocks (dumpe2fs's journal inode)
  other          anything else (free blocks, other inodes' blocks)
A request is classed by its first block; one whose blocks belong to more
than one owner (a block or a file) is counted there and as "spans".

Two kinds of a file's data requests are counted apart, as what a model
that sees each file as one run of blocks and each window as one request
does not send:
  at break  a request that ends where the file's blocks stop being
            contiguous on the device (an extent's end with the next
            extent elsewhere: mke2fs leaves a group's backup superblock
            and descriptors inside a file it copies in), so the window
            over it went as two bios;
  split     the second piece of a request the block layer split for its
            segment count: two requests of one file that follow each
            other in the file, the first at least SEG bytes (the queue's
            max_segments pages of 4 KiB: a bio of single pages holds no
            more) and both together at most IO_MAX (the queue's
            max_sectors_kb: else the second is a request of its own);
            the first of such a pair is never a second piece itself.
            A rule on the offsets, not a certainty: large folios (one
            segment up to max_segment_size) let some larger bios through
            whole, and two windows could in principle fall so.

usage: blk_classes.py IMAGE TRACE [--tiersim BIN] [--job NAME:START:END]...
                      [--seg BYTES] [--io-max BYTES] [--files [N]] [--json]
  TRACE is a block-mode trace (binary, read with BIN trace dump: default
  tiersim on PATH) or its text form (a name ending .txt). Each --job
  takes the reads submitted between START and END (CLOCK_MONOTONIC ns, as
  the trace header's start_mono_ns counts them); without one, every read
  is one job, "all". --files lists each job's data requests per file (N
  files, most requests first; default all): the file's size and extents
  and each request as offset+length in KiB in submit order (in JSON:
  [offset, length, submit ns from the trace's start]), with the count of
  requests that end where the file's blocks stop being contiguous on the
  device. --seg and --io-max are the split rule's SEG and IO_MAX
  (default 524288 and 1048576: a loop device's 128 segments and its
  max_sectors_kb as tiersim disk mount sets it). --json prints the figures as one JSON object instead.
Exit 0, 1 on an error (one line on stderr), 2 on a usage error.
"""
import bisect
import json
import os
import re
import subprocess
import sys

CLASSES = ["sb/gdt/bitmap", "inode table", "folder", "extent tree", "data", "journal", "other"]


def die(msg, code=1):
    print("blk_classes.py: " + msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, stdin=None):
    # e2fsprogs in sbin, its output in the C locale
    env = dict(os.environ, LC_ALL="C", PATH="/usr/sbin:/sbin:" + os.environ.get("PATH", "/usr/bin:/bin"))
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env)
    except OSError as e:
        die(f"{cmd[0]}: {e.strerror}")
    if p.returncode != 0:
        die(f"{' '.join(cmd[:2])} failed: {(p.stderr.strip().splitlines() or ['?'])[-1]}")
    return p.stdout


def debugfs(img, cmds):
    """Runs debugfs commands on @img (read-only), one list of output lines
    per command, in order."""
    out = run(["debugfs", "-f", "-", img], "\n".join(cmds) + "\n")
    parts, cur = [], None
    for line in out.splitlines():
        if line.startswith("debugfs: "):
            cur = []
            parts.append(cur)
        elif cur is not None:
            cur.append(line)
    if len(parts) != len(cmds):
        die(f"debugfs gave {len(parts)} answers to {len(cmds)} commands on {img}")
    return parts


class Layout:
    """The image's fixed metadata as sorted block ranges with a class each."""

    def __init__(self, img):
        dump = run(["dumpe2fs", img])
        m = re.search(r"^Block size:\s+(\d+)", dump, re.M)
        if not m:
            die(f"{img}: dumpe2fs shows no block size (not an ext2/3/4 image?)")
        self.bs = int(m.group(1))
        rng = []

        def add(a, b, cls):
            rng.append((int(a), int(b if b is not None else a), cls))

        for a, b in re.findall(r"superblock at (\d+)(?:-(\d+))?", dump):
            add(a, b or None, "sb/gdt/bitmap")
        for a, b in re.findall(r"Group descriptors at (\d+)(?:-(\d+))?", dump):
            add(a, b or None, "sb/gdt/bitmap")
        for a, b in re.findall(r"Reserved GDT blocks at (\d+)(?:-(\d+))?", dump):
            add(a, b or None, "sb/gdt/bitmap")
        for a, b in re.findall(r"(?:Block|Inode) bitmap at (\d+)(?:-(\d+))?", dump):
            add(a, b or None, "sb/gdt/bitmap")
        for a, b in re.findall(r"Inode table at (\d+)-(\d+)", dump):
            add(a, b, "inode table")
        self.ranges = sorted(rng)
        self.starts = [a for a, _, _ in self.ranges]
        m = re.search(r"^Journal inode:\s+(\d+)", dump, re.M)
        self.journal_ino = int(m.group(1)) if m else None

    def fixed(self, blk):
        k = bisect.bisect_right(self.starts, blk) - 1
        # ranges do not overlap: only the last one starting at or below
        # blk can hold it
        if k >= 0 and blk <= self.ranges[k][1]:
            return self.ranges[k][2]
        return None


def parse_ex(lines):
    """debugfs ex: the leaf extents (logical, physical, length) and the
    tree's own blocks (index and leaf blocks outside the inode)."""
    ext, tree = [], set()
    for line in lines:
        m = re.match(r"\s*(\d+)/\s*(\d+)\s+\d+/\s*\d+\s+(\d+)\s*-\s*(\d+)\s+(\d+)(?:\s*-\s*(\d+))?\s+(\d+)", line)
        if not m:
            continue
        lvl, depth, l0, _, p0, p1, n = (int(x) if x is not None else None for x in m.groups())
        if lvl < depth:
            tree.add(p0)  # an index entry: the block below it
        elif p1 is not None:
            ext.append((l0, p0, n))
    return sorted(ext), tree


def read_trace(path, tiersim):
    text = open(path).read() if path.endswith(".txt") else run([tiersim, "trace", "dump", path])
    start_mono = None
    reqs, other_ops = [], {}
    for line in text.splitlines():
        if line.startswith("header "):
            m = re.search(r"\bstart_mono_ns=(\d+)", line)
            start_mono = int(m.group(1)) if m else None
            continue
        w = line.split()
        if len(w) < 11 or not w[0].isdigit():
            continue
        op = w[2]
        if op == "read":
            if int(w[6]) < 0:
                continue  # a failed read moved nothing
            reqs.append((int(w[0]), int(w[4]), int(w[5])))
        else:
            other_ops[op] = other_ops.get(op, 0) + 1
    if start_mono is None:
        die(f"{path}: no header with start_mono_ns")
    reqs.sort()
    return start_mono, reqs, other_ops


def main(argv):
    args, jobs, files_n, as_json, tiersim = [], [], None, False, "tiersim"
    seg, io_max = 524288, 1048576
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--tiersim" and i + 1 < len(argv):
            tiersim = argv[i + 1]
            i += 1
        elif a == "--job" and i + 1 < len(argv):
            m = re.fullmatch(r"([^:]+):(\d+):(\d+)", argv[i + 1])
            if not m:
                die(f"--job '{argv[i + 1]}' is not NAME:START_NS:END_NS", 2)
            jobs.append((m.group(1), int(m.group(2)), int(m.group(3))))
            i += 1
        elif a in ("--seg", "--io-max") and i + 1 < len(argv):
            if not argv[i + 1].isdigit() or int(argv[i + 1]) == 0:
                die(f"{a} '{argv[i + 1]}' is not a size in bytes", 2)
            if a == "--seg":
                seg = int(argv[i + 1])
            else:
                io_max = int(argv[i + 1])
            i += 1
        elif a == "--files":
            files_n = 0
            if i + 1 < len(argv) and argv[i + 1].isdigit():
                files_n = int(argv[i + 1])
                i += 1
        elif a == "--json":
            as_json = True
        elif a.startswith("-"):
            die(f"unknown option '{a}' (see the top of {sys.argv[0]})", 2)
        else:
            args.append(a)
        i += 1
    if len(args) != 2:
        die("usage: blk_classes.py IMAGE TRACE [--tiersim BIN] [--job NAME:START:END]... [--seg BYTES] [--io-max BYTES]"
            " [--files [N]] [--json]", 2)
    img, trace = args
    lay = Layout(img)
    bs = lay.bs
    start_mono, reqs, other_ops = read_trace(trace, tiersim)
    if not jobs:
        jobs = [("all", start_mono, 1 << 63)]
    picked = {}  # job -> [(submit, off, len)]
    for name, a, b in jobs:
        picked[name] = [r for r in reqs if a <= start_mono + r[0] <= b]

    # the owners of every request's first and last block (debugfs icheck)
    blocks = set()
    for rs in picked.values():
        for _, off, ln in rs:
            blocks.add(off // bs)
            blocks.add((off + max(ln, 1) - 1) // bs)
    ask = sorted(b for b in blocks if lay.fixed(b) is None)
    owner = {}
    chunks = [ask[k:k + 64] for k in range(0, len(ask), 64)]  # short lines (above)
    for ans in debugfs(img, ["icheck " + " ".join(map(str, c)) for c in chunks]) if chunks else []:
        for line in ans:
            m = re.match(r"(\d+)\s+(\d+)$", line.strip())
            if m:
                owner[int(m.group(1))] = int(m.group(2))
    inos = sorted(set(owner.values()))
    kind, path, ext, tree, size = {}, {}, {}, {}, {}
    if inos:
        cmds = []
        for ino in inos:
            cmds += [f"stat <{ino}>", f"ex <{ino}>"]
        # debugfs reads a command line into a buffer of its own: short lines
        names = ["ncheck " + " ".join(map(str, inos[k:k + 64])) for k in range(0, len(inos), 64)]
        ans = debugfs(img, cmds + names)
        for k, ino in enumerate(inos):
            st = "\n".join(ans[2 * k])
            m = re.search(r"Type:\s+(\S+)", st)
            kind[ino] = m.group(1) if m else "?"
            m = re.search(r"Size:\s+(\d+)", st)
            size[ino] = int(m.group(1)) if m else 0
            ext[ino], tree[ino] = parse_ex(ans[2 * k + 1])
        for line in (x for a in ans[2 * len(inos):] for x in a):
            m = re.match(r"(\d+)\s+(.+)$", line.strip())
            if m and int(m.group(1)) in path:
                continue
            if m:
                path[int(m.group(1))] = re.sub(r"^//", "/", m.group(2))

    def block_class(blk):
        """(class, owner key, the file's logical block or None)"""
        f = lay.fixed(blk)
        if f:
            return f, ("fixed", f), None
        ino = owner.get(blk)
        if ino is None:
            return "other", ("free",), None
        if ino == lay.journal_ino:
            return "journal", ("ino", ino), None
        if blk in tree.get(ino, ()):
            return "extent tree", ("ino", ino), None
        if kind.get(ino) == "directory":
            return "folder", ("ino", ino), None
        if kind.get(ino) == "regular":
            for l0, p0, n in ext.get(ino, ()):
                if p0 <= blk < p0 + n:
                    return "data", ("ino", ino), l0 + blk - p0
            return "extent tree", ("ino", ino), None  # a tree block ex shows no entry for
        return "other", ("ino", ino), None

    out = {"image": img, "trace": trace, "block_size": bs, "other_ops": other_ops, "jobs": {}}
    for name, _, _ in jobs:
        cls = {c: [0, 0] for c in CLASSES}
        spans = 0
        per_file = {}
        for sub, off, ln in picked[name]:
            b0, b1 = off // bs, (off + max(ln, 1) - 1) // bs
            c0, k0, l0 = block_class(b0)
            _, k1, _ = block_class(b1)
            cls[c0][0] += 1
            cls[c0][1] += ln
            if k0 != k1:
                spans += 1
            if c0 == "data":
                ino = k0[1]
                brk = any(p0 + n - 1 == b1 for _, p0, n in ext[ino][:-1])
                per_file.setdefault(ino, []).append((sub, l0 * bs + off % bs, ln, brk))
        files = []
        split = 0
        for ino, rs in per_file.items():
            by_off = sorted((o, ln) for _, o, ln, _ in rs)
            k = 0
            while k + 1 < len(by_off):
                (o0, l0), (o1, l1) = by_off[k], by_off[k + 1]
                if o1 == o0 + l0 and l0 >= seg and l0 + l1 <= io_max:
                    split += 1
                    k += 2  # the second piece starts no pair of its own
                else:
                    k += 1
            files.append({"path": path.get(ino, f"<{ino}>"), "ino": ino, "size": size.get(ino, 0),
                          "extents": [[l0, p0, n] for l0, p0, n in ext[ino]],
                          "reads": [[o, ln, sub] for sub, o, ln, _ in rs], "at_break": sum(1 for r in rs if r[3])})
        files.sort(key=lambda f: (-len(f["reads"]), f["path"]))
        out["jobs"][name] = {"classes": {c: {"reqs": v[0], "bytes": v[1]} for c, v in cls.items()},
                             "reads": len(picked[name]), "spans": spans, "split": split,
                             "files": len(per_file), "at_break": sum(f["at_break"] for f in files),
                             "per_file": files}
    if as_json:
        for j in out["jobs"].values():
            if files_n is None:
                del j["per_file"]
            elif files_n:
                j["per_file"] = j["per_file"][:files_n]
        json.dump(out, sys.stdout)
        print()
        return 0
    for name, j in out["jobs"].items():
        print(f"== {name}: {j['reads']} reads, {j['files']} files' data; a request that spans owners: {j['spans']};"
              f" data requests that end at a break in their file's blocks: {j['at_break']};"
              f" the second piece of a split: {j['split']}")
        for c in CLASSES:
            v = j["classes"][c]
            print(f"  {c:14} {v['reqs']:7} reqs {v['bytes']:12} B")
        if files_n is not None:
            for f in j["per_file"][:files_n or None]:
                ex = " ".join(f"{l0}+{n}@{p0}" for l0, p0, n in f["extents"])
                rd = " ".join(f"{o >> 10}+{ln >> 10}" for o, ln, _ in f["reads"])
                print(f"  {f['path']} size {f['size']} extents [{ex}] reads(KiB) {rd}"
                      f"{' |brk x' + str(f['at_break']) if f['at_break'] else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
