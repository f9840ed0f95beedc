"""test_tracedump.py SOURCE_ROOT — bench/tracedump.py, the dump reader the
bench scripts share: tests/traces/data/cpu.txt made a trace (tiersim trace
undump), read back through `tiersim trace dump`, each item in the dump's
order with its fields; bench/dlio_read_service.py's spans on it (a read
with its cpu record's late_ns, a read followed by no cpu record as 0); and
a trace that is not there ends a script with one line naming it."""
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "bench"))
from checklib import check, done  # noqa: E402
import tracedump  # noqa: E402

tiersim = os.path.join(os.environ["TS_BUILD_ROOT"], "cli", "tiersim")
tmp = tempfile.mkdtemp(prefix="test-tracedump-")
src = os.path.join(root, "tests", "traces", "data", "cpu.txt")
trace = os.path.join(tmp, "cpu.trace")
subprocess.run([tiersim, "trace", "undump", src, "-o", trace], check=True)

got = list(tracedump.items(tiersim, trace))
check("the dump's items in order", [g[0] for g in got],
      ["header", "other"] + ["req", "cpu"] * 6 + ["other"])
h = got[0][1]
check("header: its keys", (h.get("version"), h.get("start_wall_ns")), ("4", "0"))
r = got[2][1]
check("first request: its fields",
      (r.submit, r.complete, r.op, r.file, r.offset, r.length, r.result, r.tid),
      (9000, 10000, "read", 1, 4096, 4096, 4096, 10))
check("first request: all its words", len(r.words), 11)
check("an open", (got[4][1].op, got[4][1].length), ("open", 0))
check("cpu: the thread and its keys", (got[3][1], got[3][2]["pid"], got[3][2]["on_ns"]),
      (10, "10", "5000"))
check("cpu: flags when there", got[7][2].get("flags"), "1")
check("the path line as other words", got[1][1][:2], ["path", "1"])

# every read has its cpu record (late_ns=0 here): 5 reads of 4 KiB
rs = subprocess.run([sys.executable, os.path.join(root, "bench", "dlio_read_service.py"),
                     "--tiersim", tiersim, "--min", "1", trace],
                    capture_output=True, text=True)
check("dlio_read_service: exit", rs.returncode, 0)
check("dlio_read_service: 5 reads of 4 KiB", "4096 B:      5 reads" in rs.stdout, True)

missing = os.path.join(tmp, "none.trace")
p = subprocess.run([sys.executable, os.path.join(root, "bench", "dlio_read_service.py"),
                    "--tiersim", tiersim, missing], capture_output=True, text=True)
lines = p.stderr.strip().splitlines()
check("a missing trace: exit", p.returncode, 1)
check("a missing trace: one line naming it",
      (len(lines), bool(lines) and "none.trace" in lines[0]), (1, True))
subprocess.run(["rm", "-rf", tmp])
done()
