"""test_blk_classes.py SOURCE_ROOT — bench/blk_classes.py on a tiny ext4
image of a known layout: a tree made into an image by mkfs.ext4 -d (8
block groups of 1,024 blocks, so that a 6 MiB file crosses a group's
backup superblock and is mapped in more than one extent), the layout taken
apart from the classifier's own reading of it (the files' and the folder's
blocks by FIEMAP, filefrag -v, on the image mounted read-only through a
loop device; the inode table from the superblock's figures), then a
block-mode trace of reads at those places (written as text, turned into
the binary trace by tiersim trace undump) classed: each class's requests
and bytes, the per-file view with its offsets, the reads that end where a
file's blocks break, a read that spans two owners, and --job's windows.
Needs root, a loop device, e2fsprogs and the build's tiersim; skips (77)
without them."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, done  # noqa: E402

SKIP = 77
BS = 4096
tiersim = os.path.join(os.environ.get("TS_BUILD_ROOT", os.path.join(root, "build")), "cli", "tiersim")
classify = os.path.join(root, "bench", "blk_classes.py")
env = dict(os.environ, LC_ALL="C", PATH="/usr/sbin:/sbin:" + os.environ.get("PATH", "/usr/bin:/bin"))


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def sh(*cmd, ok=True):
    p = subprocess.run(list(cmd), capture_output=True, text=True, env=env)
    if ok and p.returncode != 0:
        print(f"FAIL {' '.join(cmd)}: {p.stderr.strip()}")
        sys.exit(1)
    return p


if os.geteuid() != 0:
    skip("needs root (a loop device)")
for prog in ("mkfs.ext4", "debugfs", "dumpe2fs", "losetup", "filefrag"):
    if not shutil.which(prog, path=env["PATH"]):
        skip(prog + " is not installed")
if not os.access(tiersim, os.X_OK):
    skip(tiersim + " is not built")
if not os.path.exists("/dev/loop-control"):
    skip("no loop devices (/dev/loop-control)")

tmp = tempfile.mkdtemp(prefix="test-blk-classes-")
mnt = os.path.join(tmp, "mnt")
loop = None
try:
    tree = os.path.join(tmp, "tree")
    os.makedirs(os.path.join(tree, "d"))
    os.makedirs(os.path.join(tree, "e"))
    with open(os.path.join(tree, "d", "a.bin"), "wb") as f:
        f.write(os.urandom(8192))
    with open(os.path.join(tree, "d", "big.bin"), "wb") as f:
        f.write(os.urandom(6 << 20))
    with open(os.path.join(tree, "e", "c.bin"), "wb") as f:
        f.write(os.urandom(1 << 20))
    img = os.path.join(tmp, "t.ext4")
    sh("mkfs.ext4", "-q", "-F", "-b", str(BS), "-g", "1024", "-N", "64", "-d", tree, img, "32M")

    # the layout, apart from the classifier's reading of it
    os.makedirs(mnt)
    p = sh("losetup", "-r", "-f", "--show", img, ok=False)
    if p.returncode != 0:
        skip("no free loop device: " + p.stderr.strip())
    loop = p.stdout.strip()
    if sh("mount", "-t", "ext4", "-o", "ro", loop, mnt, ok=False).returncode != 0:
        skip("cannot mount ext4 from " + loop)

    def fiemap(path):
        """[(logical block, physical block, blocks)] by filefrag -v"""
        out = sh("filefrag", "-v", "-b%d" % BS, path).stdout
        ext = []
        for m in re.finditer(r"^\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*(\d+):\s+(\d+):", out, re.M):
            ext.append((int(m.group(1)), int(m.group(3)), int(m.group(5))))
        return ext

    a_ext = fiemap(os.path.join(mnt, "d", "a.bin"))
    big_ext = fiemap(os.path.join(mnt, "d", "big.bin"))
    dir_ext = fiemap(os.path.join(mnt, "d"))
    c_ext = fiemap(os.path.join(mnt, "e", "c.bin"))
    a_ino = os.stat(os.path.join(mnt, "d", "a.bin")).st_ino
    sh("umount", mnt)
    sh("losetup", "-d", loop)
    loop = None
    check("a.bin in one extent of 2 blocks", [n for _, _, n in a_ext], [2])
    check("the folder d in one block", [n for _, _, n in dir_ext], [1])
    check("c.bin in one extent of 256 blocks", [n for _, _, n in c_ext], [256])
    if len(big_ext) < 2:
        print(f"FAIL big.bin should cross a backup superblock (8 groups of 1,024 blocks): extents {big_ext}")
        sys.exit(1)
    dump = sh("dumpe2fs", img).stdout
    ipg = int(re.search(r"^Inodes per group:\s+(\d+)", dump, re.M).group(1))
    isz = int(re.search(r"^Inode size:\s+(\d+)", dump, re.M).group(1))
    tables = [int(x) for x in re.findall(r"Inode table at (\d+)-\d+", dump)]
    g, k = divmod(a_ino - 1, ipg)
    itab_blk = tables[g] + k * isz // BS
    jblk = int(sh("debugfs", "-R", "bmap <8> 0", img).stdout.split()[0])
    free = re.findall(r"Free blocks: (\d+)-(\d+)", dump)[-1]
    free_blk = int(free[0])
    backup = int(re.search(r"Backup superblock at (\d+)", dump).group(1))

    # the reads: (submit ns, image offset, length) and what each is
    e0, e1 = big_ext[0], big_ext[1]
    brk = (e0[0] + e0[2]) * BS  # big.bin's offset where its first extent ends
    reads = [
        (1000, 1024, 1024, "sb/gdt/bitmap"),  # the primary superblock
        (2000, itab_blk * BS, BS, "inode table"),
        (3000, dir_ext[0][1] * BS, BS, "folder"),
        (4000, a_ext[0][1] * BS, 2 * BS, "data"),  # a.bin, whole
        (5000, e0[1] * BS, 16 * BS, "data"),  # big.bin 0+64 KiB
        (5500, (e0[1] + 16) * BS, (e0[2] - 16) * BS, "data"),  # to the break: at_break
        (6000, e1[1] * BS, 8 * BS, "data"),  # big.bin after the break
        (6500, (e0[1] + e0[2] - 1) * BS, 3 * BS, "data"),  # its last block and the gap's first two: spans
        (6600, c_ext[0][1] * BS, 128 * BS, "data"),  # c.bin: 512 KiB, split by segments
        (6610, (c_ext[0][1] + 128) * BS, 64 * BS, "data"),  # its second piece
        (6620, (c_ext[0][1] + 192) * BS, 64 * BS, "data"),  # a request of its own
        (7000, jblk * BS, BS, "journal"),
        (8000, free_blk * BS, BS, "other"),
        (9000, backup * BS, BS, "sb/gdt/bitmap"),
        (50000, a_ext[0][1] * BS, BS, "data"),  # outside the job's window below
    ]
    start_mono = 10**12
    txt = os.path.join(tmp, "t.txt")
    with open(txt, "w") as f:
        f.write(f'header version=11 start_wall_ns=1 start_mono_ns={start_mono} capacity=1073741824 mem=0 tier="ssd-cloud" '
                'profile="" mount_opts="tier=ssd-cloud" host="vm" model=2047 seed=1 floor_ns=0 dirty_limit=0 ra_max=0 '
                'mem_bps=0 ebs_iops=0 ebs_max_iops=0 ebs_bps=0 ebs_max_bps=0 ebs_burst_s=0 loop_hop_ns=0 loop_size_ns=0 '
                'loop_window_ns=0\n')
        f.write('path 1 "/t.ext4"\n')
        f.write("500 600 open 1 0 0 0 7 0 0 0\n")
        for sub, off, ln, _ in reads:
            f.write(f"{sub} {sub + 100} read 1 {off} {ln} {ln} 7 33554432 0 0\n")
    trace = os.path.join(tmp, "t.trace")
    sh(tiersim, "trace", "undump", txt, "-o", trace)

    def classes(*extra):
        p = sh(sys.executable, classify, img, trace, "--tiersim", tiersim, "--json", *extra)
        return json.loads(p.stdout)

    want = {}
    for _, _, ln, c in reads[:-1]:
        r, b = want.get(c, (0, 0))
        want[c] = (r + 1, b + ln)
    out = classes("--job", f"job:{start_mono}:{start_mono + 10000}", "--files")
    j = out["jobs"]["job"]
    got = {c: (v["reqs"], v["bytes"]) for c, v in j["classes"].items() if v["reqs"]}
    check("classes in the job's window", got, want)
    check("reads in the window", j["reads"], len(reads) - 1)
    check("reads that span two owners", j["spans"], 1)
    check("data reads that end at a break", j["at_break"], 1)
    check("second pieces of a split", j["split"], 1)
    check("files with data reads", j["files"], 3)
    per = {f["path"]: f for f in j["per_file"]}
    check("files by path", sorted(per), ["/d/a.bin", "/d/big.bin", "/e/c.bin"])
    if "/d/big.bin" in per:
        f = per["/d/big.bin"]
        check("big.bin's size", f["size"], 6 << 20)
        check("big.bin's reads (file offset, length, submit ns), in order", f["reads"],
              [[0, 16 * BS, 5000], [16 * BS, brk - 16 * BS, 5500], [brk, 8 * BS, 6000], [brk - BS, 3 * BS, 6500]])
        check("big.bin's extents", [tuple(e) for e in f["extents"]][:2], [tuple(e0), tuple(e1)])
    if "/d/a.bin" in per:
        check("a.bin's reads", per["/d/a.bin"]["reads"], [[0, 2 * BS, 4000]])
    check("the trace's other ops", out["other_ops"], {"open": 1})
    # no window: every read, the one after the job's too
    j = classes()["jobs"]["all"]
    check("every read without --job", j["reads"], len(reads))
    check("data reads without --job", j["classes"]["data"]["reqs"], want["data"][0] + 1)
    # two windows split the reads between them
    out = classes("--job", f"x:{start_mono}:{start_mono + 4500}", "--job", f"y:{start_mono + 4501}:{start_mono + 60000}")
    check("the first window's reads", out["jobs"]["x"]["reads"], 4)
    check("the second window's reads", out["jobs"]["y"]["reads"], len(reads) - 4)
    # the split rule's sizes: 768 KiB whole, then no pair fits in 512 KiB
    j = classes("--io-max", str(768 << 10))["jobs"]["all"]
    check("second pieces with --io-max 768KiB", j["split"], 1)
    j = classes("--io-max", str(512 << 10))["jobs"]["all"]
    check("second pieces with --io-max 512KiB", j["split"], 0)
    j = classes("--seg", str(256 << 10))["jobs"]["all"]
    check("with --seg 256KiB, a second piece starts no pair of its own", j["split"], 1)
    j = classes("--seg", str(600 << 10))["jobs"]["all"]
    check("second pieces with --seg 600KiB", j["split"], 0)
    # a malformed window is one line and exit 2
    p = sh(sys.executable, classify, img, trace, "--job", "x:1", ok=False)
    check("a bad --job exits 2", p.returncode, 2)
    check("a bad --job says so in one line", len(p.stderr.strip().splitlines()), 1)
finally:
    if os.path.ismount(mnt):
        subprocess.run(["umount", mnt])
    if loop:
        subprocess.run(["losetup", "-d", loop])
    shutil.rmtree(tmp, ignore_errors=True)
done()
