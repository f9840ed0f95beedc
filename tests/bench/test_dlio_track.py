"""test_dlio_track.py SOURCE_ROOT — the host's speed tracker of
bench/dlio_peer.sh --track: bench/dlio_track.py's F and duty on known
ticks, to the digit; workloads/dlio_measure.py track writing its ticks (the
same files each tick, every set, a line each) until SIGTERM, and one line
for a period that is not one; dlio_peer.sh's new options refused with one
line each where they cannot run. The tracker needs numpy, Pillow and h5py
in this python (DLIO's readers' modules); without them that part is
skipped and said so."""
import os
import signal
import subprocess
import sys
import tempfile
import time

root = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, done  # noqa: E402

track = os.path.join(root, "bench", "dlio_track.py")
tmp = tempfile.mkdtemp(prefix="test-dlio-track-")


def run(*args):
    p = subprocess.run([sys.executable] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def write(name, lines):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    return path


# The base: npz-s 6 files in 6 ms then 12 ms (1.5 ms a file), jpeg 12 ms a
# tick (2 ms a file). The window 100..200 holds npz-s at 3 ms a file (x2)
# and jpeg at 3 ms (x1.5), a tick of each outside it ignored, and a line
# that is not a tick.
base = write("base", ["tick 1 npz-s 6 6000000", "tick 2 npz-s 6 12000000",
                      "tick 1 jpeg 6 12000000", "tick 2 jpeg 6 12000000"])
trk = write("trk", ["tick 99 npz-s 6 60000000", "tick 100 npz-s 6 18000000",
                    "tick 100 jpeg 6 18000000", "not a tick", "tick 150 npz-s 6 18000000",
                    "tick 200 jpeg 6 18000000", "tick 201 jpeg 6 60000000"])
rc, out, err = run(track, "f", base, trk, "100", "200", "jpeg")
check("f: status", (rc, err), (0, ""))
check("f: F (mean of 2.0 and 1.5), jpeg's, the fewest ticks", out, "1.7500 1.5000 2\n")
rc, out, _ = run(track, "f", base, trk, "100", "200")
check("f without a set", out, "1.7500 - 2\n")
rc, out, _ = run(track, "f", base, trk, "100", "200", "hdf5-s")
check("f of a set not tracked", out, "1.7500 - 2\n")
# a set the base lacks is left out of F
trk2 = write("trk2", ["tick 100 npz-s 6 18000000", "tick 100 png-s 6 1000000"])
rc, out, _ = run(track, "f", base, trk2, "100", "200")
check("f: a set the base lacks", out, "2.0000 - 1\n")
# five ticks: the highest and lowest left out (a preempted tick, 4x)
trk3 = write("trk3", ["tick 100 npz-s 6 %d" % c for c in (18000000, 72000000, 6000000, 18000000,
                                                         18000000)])
rc, out, _ = run(track, "f", base, trk3, "100", "200", "npz-s")
check("f: the fifth at each end left out", out, "2.0000 2.0000 5\n")
rc, out, err = run(track, "f", base, trk, "300", "400")
check("f: no tick in the window", (rc, out, err.count("\n"), "no tick from 300 to 400" in err),
      (1, "", 1, True))
rc, out, _ = run(track, "cores", trk, "100", "200")
# 4 ticks of 18 ms begun in 100 ns: 720,000 cores (the units are the ticks')
check("cores", out, "720000.000\n")
# span: the first to the last sample in which both the daemon and the
# readers (the workers) grew, from the sample before
cj = write("cpu.json", ['{"groups": ["daemon", "workers", "main"], "series": ['
                        '[10.0, 0, {"daemon": 0, "workers": 0, "main": 0}],'
                        '[10.2, 0, {"daemon": 5, "workers": 0, "main": 9}],'
                        '[10.4, 0, {"daemon": 6, "workers": 3, "main": 9}],'
                        '[10.6, 0, {"daemon": 6, "workers": 4, "main": 9}],'
                        '[10.8, 0, {"daemon": 7, "workers": 5, "main": 9}],'
                        '[11.0, 0, {"daemon": 8, "workers": 5, "main": 9}]]}'])
rc, out, _ = run(track, "span", cj)
check("span", out, "10200000000 10800000000\n")
rc, out, err = run(track, "span", base.replace("base", "none"))
check("span of no file", rc != 0, True)
rc, _, err = run(track, "g", base)
check("bad use", (rc, err.startswith("usage: dlio_track.py")), (1, True))

# The tracker itself: every set a line a tick, six files, until SIGTERM.
try:
    import h5py  # noqa: F401
    import numpy  # noqa: F401
    import PIL  # noqa: F401
    have = True
except ImportError:
    print("SKIP the tracker: no numpy, Pillow or h5py in %s" % sys.executable)
    have = False
measure = os.path.join(root, "workloads", "dlio_measure.py")
if have:
    out = os.path.join(tmp, "ticks")
    p = subprocess.Popen([sys.executable, measure, "track", os.path.join(tmp, "sets"), out, "0.05"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = 0
    for _ in range(1200):  # up to 120 s under load: the sets written first
        if os.path.exists(out):
            with open(out) as f:
                seen = sum(1 for _ in f)
        if seen >= 12:
            break
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    check("track: status after SIGTERM", (p.returncode, err), (0, ""))
    with open(out) as f:
        rows = [line.split() for line in f]
    check("track: 3 rounds of ticks or more", len(rows) >= 12, True)
    sets = ["npz-s", "jpeg", "hdf5-s", "png-s"]
    check("track: the sets in turn", [r[2] for r in rows[:8]], sets * 2)
    check("track: tick lines", all(len(r) == 5 and r[0] == "tick" and r[3] == "6" and int(r[4]) > 0
                                   for r in rows), True)
    check("track: the ticks' times rise", all(int(a[1]) <= int(b[1]) for a, b in zip(rows, rows[1:])),
          True)
    for s, ext in zip(sets, ["npz", "jpeg", "hdf5", "png"]):
        check("track: %s's files written" % s,
              len([f for f in os.listdir(os.path.join(tmp, "sets", s)) if f.endswith("." + ext)]), 6)
    p = subprocess.run([sys.executable, measure, "track", os.path.join(tmp, "sets"), out, "0"],
                       capture_output=True, text=True)
    check("track: period 0", (p.returncode != 0, p.stderr.count("\n"),
                              "PERIOD_S '0': not seconds from 0.05 to 60" in p.stderr), (True, 1, True))

# dlio_peer.sh: what cannot run, refused before anything starts (one line,
# status 2).
peer = os.path.join(root, "bench", "dlio_peer.sh")
mdir = os.path.join(tmp, "measured")
os.makedirs(mdir)
for f in ("this-machine.lua", "measure.log"):
    with open(os.path.join(mdir, f), "w") as o:
        o.write("x\n")
for args, what in ((["--track"], "--track: needs --measure-around or --measured"),
                   (["--measure-around", "--track-period", "0"], "--track-period '0': not seconds"),
                   (["--track-period", "x"], "--track-period 'x': not seconds"),
                   (["--track-cost", "--measure-around", "--track"], "--track-cost runs DLIO alone"),
                   (["--measured", mdir, "--track"], "--track --measured %s: no track-base.txt" % mdir)):
    p = subprocess.run(["bash", peer, "--work", os.path.join(tmp, "work")] + args,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    check("dlio_peer.sh %s" % " ".join(args),
          (p.returncode, p.stderr.count("\n"), what in p.stderr, p.stdout), (2, 1, True, ""))
check("dlio_peer.sh refused before its work folder", os.path.exists(os.path.join(tmp, "work")), False)

subprocess.run(["rm", "-rf", tmp])
done()
