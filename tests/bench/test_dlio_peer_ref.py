"""test_dlio_peer_ref.py SOURCE_ROOT — bench/dlio_peer.sh --reference's
combine (bench/dlio_peer_ref.py) on a small fixture of kept DLIO runs: one
reference per row, the median and [min-max] of its runs, to the digit; a
side's error against the median and against each run; the rows whose runs
lie farther from the median than the goal; a run found twice kept once;
--run-numbers; runs of another shape named; nothing to combine refused.
dlio_peer.sh refuses a --reference folder that is not there and a
--run-numbers that is no list, and with the build's tiersim puts its virtual
side beside the reference (the rows it found kept runs of, none other)."""
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, done  # noqa: E402

ref = os.path.join(root, "bench", "dlio_peer_ref.py")
tmp = tempfile.mkdtemp(prefix="test-dlio-peer-ref-")


def run(*args):
    p = subprocess.run([sys.executable, ref] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def kept(top, name, au, smps, start, epochs=3):
    d = os.path.join(tmp, top, name, "dlio")
    os.makedirs(d)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"start": start, "epochs": epochs, "num_files_train": 4000,
                   "num_accelerators": 2,
                   "metric": {"train_au_mean_percentage": au,
                              "train_throughput_mean_samples_per_second": smps}}, f)


# r50-2-essd: three holds, samples/s 742, 852, 890 (the median 852; 742 is
# 12.9% below it, 890 4.4% above); AU 87.5, 91.4, 89.7 (median 89.7, all
# within 3 points). p50-1-ssd: two runs, one AU 6 points off the median.
kept("a/out", "r50-2-essd-74", 87.5, 742.0, "2026-12-06T10:24:00")
kept("a/out", "r50-2-essd-80", 91.4, 852.0, "2026-12-06T14:30:00")
kept("b", "r50-2-essd-81", 89.7, 890.0, "2026-12-06T14:37:00")
kept("b", "r50-2-essd-80", 91.4, 852.0, "2026-12-06T14:30:00")  # the same run again
kept("a/out", "p50-1-ssd-80", 69.0, 600.0, "2026-12-06T14:29:00")
kept("a/out", "p50-1-ssd-81", 76.0, 600.0, "2026-12-06T14:35:00")
kept("a/out", "p50-1-ssd-90", 72.0, 600.0, "2026-12-06T16:35:00")
kept("a/out", "r50-1-ssd-5", 40.0, 380.0, "2026-12-06T01:00:00", epochs=5)
kept("a/out", "r50-1-ssd-6", 40.0, 380.0, "2026-12-06T02:00:00")
os.makedirs(os.path.join(tmp, "a/out/r50-1-ssd-7/dlio"))  # a run that failed: no summary
os.makedirs(os.path.join(tmp, "a/out/measure-80"))  # not a row
side = os.path.join(tmp, "virtual.txt")
with open(side, "w") as f:
    f.write("r50-2-essd 96.8 840.1\np50-1-ssd 64.7 611.2\nr50-1-ssd - -\n")

a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
rc, out, err = run("--rows", "r50-2-essd,p50-1-ssd,r50-1-ssd", "--side", "virtual=" + side, a, b)
check("status", (rc, err), (0, ""))
lines = out.split("\n")
row = [x for x in lines if x.startswith("r50-2-essd ")]
check("r50-2-essd: three runs (the one found twice once), median [min-max], range over median",
      row[0].split("|")[1].split(), ["89.7", "[", "87.5-", "91.4]", "852.0", "[", "742.0-",
                                    "890.0]", "+17%"] if row else None)
# 96.8 - 89.7 = +7.1 points; 840.1 / 852 - 1 = -1.4%; against each run
# 96.8 - 91.4 = +5.4 .. 96.8 - 87.5 = +9.3; 840.1/890 -5.6% .. 840.1/742 +13.2%
check("r50-2-essd: the side's error against the median and each run",
      row[0].split("|")[2].split() if row else None,
      ["96.8", "840.1", "+7.1", "-1.4%", "(+5.4..+9.3,", "-5.6..+13.2%)", "MISS"])
row = [x for x in lines if x.startswith("p50-1-ssd ")]
check("p50-1-ssd: median 72.0 of 69, 72, 76",
      row[0].split("|")[1].split()[:4] if row else None, ["72.0", "[", "69.0-", "76.0]"])
check("p50-1-ssd: 64.7 is 7.3 points below",
      row[0].split("|")[2].split()[2] if row else None, "-7.3")
row = [x for x in lines if x.startswith("r50-1-ssd ")]
check("r50-1-ssd: a side without figures", row[0].split("|")[2].split() if row else None,
      ["-", "-"])
check("r50-1-ssd: two runs (the failed one left out)", row[0].split()[1] if row else None, "2")
check("the runs listed in time order",
      [x.strip() for x in lines if x.startswith("  r50-2-essd ")],
      ["r50-2-essd  74 2026-12-06 10:24 87.5 742.0; 80 2026-12-06 14:30 91.4 852.0; "
       "81 2026-12-06 14:37 89.7 890.0"])
check("wider than the goal: r50-2-essd's samples/s, p50-1-ssd's AU",
      [x.strip() for x in lines[lines.index(
          "reference wider than the goal (a side at the median would miss against one run):") + 1:]
       if x.strip()],
      ["r50-2-essd: samples/s: run 74 (742.0, -12.9%) farther than 5% from the median",
       "p50-1-ssd: AU: run 81 (76.0) farther than 3 points from the median"])
check("runs of another shape named",
      [x.strip() for x in lines if "differ in" in x],
      ["r50-1-ssd: its runs differ in (epochs, files, accelerators): (3, 4000, 2), (5, 4000, 2)"])

# --run-numbers: 80-81 only; then r50-2-essd is 852 and 890, within 5%
rc, out, err = run("--rows", "r50-2-essd", "--run-numbers", "80-81", a, b)
check("--run-numbers: status", (rc, err), (0, ""))
row = [x for x in out.split("\n") if x.startswith("r50-2-essd ")]
check("--run-numbers 80-81: two runs, median 871.0",
      row[0].split("|")[0].split()[1:] + row[0].split("|")[1].split()[4:5] if row else None,
      ["2", "871.0"])
check("--run-numbers 80-81: within the goal", out.rstrip("\n").split("\n")[-1],
      "reference within the goal on every row")
# a wider goal takes the flags away
rc, out, _ = run("--rows", "r50-2-essd", "--goal-pct", "15", a)
check("--goal-pct 15: within", out.rstrip("\n").split("\n")[-1],
      "reference within the goal on every row")

rc, out, err = run("--rows", "u64-1-gp3", a)
check("no run of the rows: refused", (rc, out, err.strip()),
      (1, "", "dlio_peer_ref.py: no DLIO run of u64-1-gp3 under " + a))
rc, out, err = run("--run-numbers", "7x", a)
check("a bad --run-numbers", (rc, err.strip()), (1, "dlio_peer_ref.py: --run-numbers 7x: not N or N-M"))
rc, out, err = run(os.path.join(tmp, "none"))
check("a folder not there", (rc, err.strip()),
      (1, "dlio_peer_ref.py: %s: no such folder" % os.path.join(tmp, "none")))

peer = os.path.join(root, "bench", "dlio_peer.sh")
p = subprocess.run(["bash", peer, "--reference", os.path.join(tmp, "none")], capture_output=True,
                   text=True)
check("dlio_peer.sh --reference: no folder", (p.returncode, p.stderr.strip()),
      (2, "dlio_peer.sh: --reference: no folder '%s'" % os.path.join(tmp, "none")))
p = subprocess.run(["bash", peer, "--reference", a, "--run-numbers", "1,x"], capture_output=True,
                   text=True)
check("dlio_peer.sh --run-numbers: not a list", (p.returncode, p.stderr.strip()),
      (2, "dlio_peer.sh: --run-numbers '1,x': not N or N-M, comma-separated"))
build = os.environ.get("TS_BUILD_ROOT", "")
if build and os.access(os.path.join(build, "cli", "tiersim"), os.X_OK):
    p = subprocess.run(["bash", peer, "--tiersim", build, "--work", os.path.join(tmp, "work"),
                        "--reference", a, "--reference", b,
                        "--run-numbers", "74-81", "--host", "none"], capture_output=True, text=True)
    check("dlio_peer.sh --reference: status", (p.returncode, p.stderr), (0, ""))
    rows = [x.split()[0] for x in p.stdout.split("\n")
            if x[:1].isalpha() and "|" in x and not x.startswith("row ")]
    check("dlio_peer.sh --reference: the rows with kept runs, in the table's order", rows,
          ["r50-1-ssd", "p50-1-ssd", "r50-2-essd"])
    check("dlio_peer.sh --reference: a row whose runs --run-numbers leaves out",
          [x.split("|")[1].strip() for x in p.stdout.split("\n") if x.startswith("r50-1-ssd ")][:1],
          ["no DLIO run"])
    row = [x for x in p.stdout.split("\n") if x.startswith("r50-2-essd ")]
    side = row[0].split("|")[2].split() if row else []
    check("dlio_peer.sh --reference: a virtual side beside it (AU, samples/s, errors)",
          len(side) == 7 and all(c.isdigit() for c in side[0].replace(".", "")), True)
else:
    print("dlio_peer.sh --reference with a build: skipped (no TS_BUILD_ROOT/cli/tiersim)")
done()
