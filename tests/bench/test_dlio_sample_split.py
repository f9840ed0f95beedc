"""test_dlio_sample_split.py SOURCE_ROOT — bench/dlio_sample_split.py on a
known trace dump, to the digit. Reader A (tid 10) makes seven requests,
five of them sampled (a cpu line without flags): its stretches between
sampled requests are
  S1 open 1.0 ms -> open 1.6 ms: a read inside whose sample is the reader's
     estimate (flags=1: not a stretch end, its late_ns counted); readers
     within 10 ms of the middle (1.3 ms): A and B (D's request is 1 ns
     past the window): bucket 1-2;
  S2 open 1.6 ms -> open 2.0 ms: a getattr inside (not charged); A, B and
     D (within 10 ms of 1.8 ms): bucket 3-5;
  S3 open 2.0 ms -> open 52.05 ms: a gap of 50 ms + 1 ns, left out;
  S4 open 52.05 ms -> read 52.45 ms: A, G and H, whose requests are
     exactly 10 ms before and after its middle (52.250001 ms): bucket 3-5.
B (20), D (40), G (50) and H (60) open a file each, unsampled; tid 30
reads, sampled, and opens nothing: not a reader, neither counted as active
nor split. Per stretch, ns (wall, span, late, on, runq, opens, charged
requests; rest = wall - span - on - runq):
  S1 600000 400000 25000 100000 50000 1 2   rest  50000
  S2 400000 200000     0 100000 50000 1 1   rest  50000
  S4 400000 100000  2000 100000 50000 1 1   rest 150000
A second dump: one reader whose two sampled requests are exactly 50 ms
apart, kept.
(The dump reads back through `tiersim trace undump` and `trace dump` to the
same records.) A third: a bucket whose only stretch opens no file, 0
samples and its figures a sample none. Then the bad inputs: a missing file, a record line of 10
fields, a cpu line whose on_ns is not a number, a cpu line after another
thread's record or before any: one line naming the file and the line,
exit 1, nothing on stdout."""
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, done  # noqa: E402


def io(s, c, op, tid, cpu=None):
    line = "%d %d %s 1 0 4096 4096 %d 0 0 0\n" % (s, c, op, tid)
    if cpu is not None:
        on, rq, late, flags = cpu
        line += "cpu %d pid=%d ppid=1 on_ns=%d runq_ns=%d sys_ns=0 late_ns=%d%s\n" % (
            tid, tid, on, rq, late, " flags=%d" % flags if flags else "")
    return line


dump = ("# tiersim trace, text form. `tiersim trace undump` turns it back into the binary trace.\n"
        "# IO lines: submit_ns complete_ns op file_id offset length result tid size aux flags\n"
        "header version=4 start_wall_ns=0 start_mono_ns=0 capacity=0 mem=0 tier=local\n"
        + io(1_000_000, 1_100_000, "open", 10, (1_000_000, 500_000, 5_000, 0))
        + io(1_200_000, 1_500_000, "read", 10, (0, 0, 20_000, 1))
        + io(1_300_000, 1_400_000, "read", 30, (10, 0, 0, 0))
        + io(1_500_000, 1_550_000, "open", 20)
        + io(1_600_000, 1_700_000, "open", 10, (1_100_000, 550_000, 0, 0))
        + io(1_700_000, 1_800_000, "read", 30, (20, 0, 0, 0))
        + io(1_800_000, 1_900_000, "getattr", 10)
        + io(2_000_000, 2_050_000, "open", 10, (1_200_000, 600_000, 1_000, 0))
        + io(11_300_001, 11_350_001, "open", 40)
        + io(52_050_001, 52_150_001, "open", 10, (1_400_000, 700_000, 2_000, 0))
        + io(42_250_001, 42_300_001, "open", 50)
        + io(52_450_001, 52_500_001, "read", 10, (1_500_000, 750_000, 3_000, 0))
        + io(62_250_001, 62_300_001, "open", 60))
idle = (io(1_000_000, 1_100_000, "open", 10, (100, 0, 0, 0))
        + io(51_100_000, 51_200_000, "read", 10, (300, 50, 0, 0)))

# per bucket: samples, charged, then ns summed over its stretches: wall,
# span, late, on, runq
want = {"1-2": (1, 2, 600_000, 400_000, 25_000, 100_000, 50_000),
        "3-5": (2, 2, 800_000, 300_000, 2_000, 200_000, 100_000),
        "all": (3, 4, 1_400_000, 700_000, 27_000, 300_000, 150_000)}
r9 = lambda x: round(x, 9)
tool = os.path.join(root, "bench", "dlio_sample_split.py")


def run(*args, stdin=None):
    return subprocess.run([sys.executable, tool] + list(args), input=stdin,
                          capture_output=True, text=True)


def js(r):
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def figures(what, j, want=want):
    check(what + "buckets", j and list(j), list(want))
    j = j or {}
    for k, (nf, nc, wall, span, late, on, rq) in want.items():
        if k not in j:
            continue
        rest = wall - span - on - rq
        got = j[k]
        check(what + k + " samples", got["samples"], nf)
        check(what + k + " requests a sample", r9(got["charged_per_sample"]), r9(nc / nf))
        for f, v in [("wall_us", wall), ("span_us", span), ("late_us", late),
                     ("oncpu_us", on), ("runq_us", rq), ("rest_us", rest)]:
            check(what + k + " " + f, r9(got[f]), r9(v / nf / 1e3))
        check(what + k + " rest+late a request", r9(got["rest_late_us_per_request"]),
              r9((rest + late) / nc / 1e3))


# the figures by hand, us a sample
check("hand: 3-5 rest", 800_000 - 300_000 - 200_000 - 100_000, 50_000 + 150_000)
check("hand: all rest+late a request", (250_000 + 27_000) / 4 / 1e3, 69.25)

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "t.txt")
    open(path, "w").write(dump)
    r = run("--json", path)
    check("file: exit", (r.returncode, r.stderr), (0, ""))
    j = js(r) or {}
    figures("file: ", j)
    us = ("wall_us", "span_us", "late_us", "oncpu_us", "runq_us", "rest_us",
          "rest_late_us_per_request")
    check("1-2 us a sample", [r9(j.get("1-2", {}).get(f, 0)) for f in us],
          [600.0, 400.0, 25.0, 100.0, 50.0, 50.0, 37.5])
    check("3-5 us a sample", [r9(j.get("3-5", {}).get(f, 0)) for f in us],
          [400.0, 150.0, 1.0, 100.0, 50.0, 100.0, 101.0])
    r = run("--json", stdin=dump)
    check("stdin: exit", (r.returncode, r.stderr), (0, ""))
    figures("stdin: ", js(r))
    r = run(path)
    check("table: exit", (r.returncode, r.stderr), (0, ""))
    check("table: rows", [ln.split("|")[0].split() for ln in r.stdout.splitlines()[1:]],
          [["1-2", "1", "2.00"], ["3-5", "2", "1.00"], ["all", "3", "1.33"]])
    check("table: all", (r.stdout.splitlines() + [""] * 4)[3].split("|")[1:],
          ["                 467    233     9    100     50    83 ", "   69.2"])
    r = run("--json", stdin=idle)
    check("a gap of 50 ms: exit", (r.returncode, r.stderr), (0, ""))
    one = (1, 1, 50_100_000, 100_000, 0, 200, 50)
    figures("a gap of 50 ms: ", js(r), {"1-2": one, "all": one})

    def bad(what, text, why):
        p = os.path.join(d, "bad.txt")
        open(p, "w").write(text)
        r = run("--json", p)
        check(what, (r.returncode, r.stdout, r.stderr),
              (1, "", "dlio_sample_split.py: %s: %s\n" % (p, why)))

    # A bucket whose stretches open no file: A's open stretch is alone
    # (1-2); its read -> read stretch at 60 ms has B and D opening beside
    # it (3-5) but no open of its own: 0 samples there, its figures a
    # sample none (not x / 1), its request's figure still there.
    noopen = (dump.split("\n")[0] + "\n" + dump.split("\n")[1] + "\n" + dump.split("\n")[2] + "\n"
              + io(1_000_000, 1_100_000, "open", 10, (1_000_000, 500_000, 0, 0))
              + io(1_400_000, 1_500_000, "read", 10, (1_100_000, 550_000, 0, 0))
              + io(60_000_000, 60_100_000, "read", 10, (2_000_000, 900_000, 0, 0))
              + io(60_100_000, 60_150_000, "open", 20)
              + io(60_100_000, 60_150_000, "open", 40)
              + io(60_400_000, 60_500_000, "read", 10, (2_100_000, 950_000, 2_000, 0)))
    r = run("--json", stdin=noopen)
    check("no open: exit", (r.returncode, r.stderr), (0, ""))
    j = js(r) or {}
    figures("no open: ", {k: v for k, v in j.items() if k != "3-5"},
            {"1-2": (1, 1, 400_000, 100_000, 0, 100_000, 50_000),
             "all": (1, 2, 800_000, 200_000, 0, 200_000, 100_000)})
    z = j.get("3-5", {})
    check("no open: 3-5", (z.get("samples"), z.get("charged_per_sample"), z.get("wall_us"),
                           z.get("rest_us"), z.get("rest_late_us_per_request")),
          (0, None, None, None, 150.0))
    r = run(stdin=noopen)
    check("no open: table", [ln.split() for ln in r.stdout.splitlines()[1:]][1],
          ["3-5", "0", "-", "|", "-", "-", "-", "-", "-", "-", "|", "150.0"])

    missing = os.path.join(d, "none.txt")
    r = run(missing)
    check("missing file", (r.returncode, r.stdout, r.stderr),
          (1, "", "dlio_sample_split.py: %s: No such file or directory\n" % missing))
    lines = dump.splitlines(keepends=True)
    short = "1000000 1100000 open 1 0 4096 4096 10 0 0"
    bad("a record of 10 fields", "".join(lines[:3]) + short + "\n" + "".join(lines[5:]),
        "line 4 is not a trace dump's IO line (10 fields, not 11): %r" % short)
    cpu = "cpu 10 pid=10 ppid=1 on_ns=x runq_ns=500000 sys_ns=0 late_ns=5000"
    bad("on_ns not a number", "".join(lines[:4]) + cpu + "\n" + "".join(lines[5:]),
        "line 5 is not a trace dump's cpu line (invalid literal for int() with base 10: 'x'): %r"
        % cpu)
    other = "cpu 11 pid=10 ppid=1 on_ns=1000000 runq_ns=500000 sys_ns=0 late_ns=5000"
    bad("a cpu line of another thread", "".join(lines[:4]) + other + "\n" + "".join(lines[5:]),
        "line 5 is not a trace dump's cpu line (not right after a record of its thread): %r"
        % other)
    bad("a cpu line first", "".join(lines[:3]) + "".join(lines[4:]),
        "line 4 is not a trace dump's cpu line (not right after a record of its thread): %r"
        % lines[4].rstrip("\n"))
done()
