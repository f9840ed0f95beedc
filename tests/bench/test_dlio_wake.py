"""test_dlio_wake.py SOURCE_ROOT — bench/dlio_wake.py on a known tracefs
trace, to the digit: two CPUs, a reader (a DataLoader worker's main thread)
and two daemon threads; three wake-ups of the reader that slept, one in
each class (the target CPU idle, 10 us; the target busy and the other idle,
50 us; both busy, 200 us), one wake-up of the reader while it runs and one
outside the reading span (neither counted), one preemption (100 us).
Then the overrun file dlio_peer.sh --wake keeps beside the trace: all 0,
the same figures and exit 0; events dropped, the same figures marked as
from an incomplete trace, a warning line naming the file and the count,
exit 1; a line that is not a count, exit 1 naming it. Then the LOST lines
tracefs writes into the trace where a CPU's buffer lost events ("CPU:N
[LOST M EVENTS]", "CPU:N [LOST EVENTS]"): the same figures marked, a
warning line naming the trace, exit 1; with an overrun file too, both
warnings."""
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, done  # noqa: E402


def sw(t, cpu, prev, state, nxt):
    return ("%16s-%-6d [%03d] d..2. %.6f: sched_switch: prev_comm=x prev_pid=%d prev_prio=120 "
            "prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n"
            % ("<idle>" if prev == 0 else "x", prev, cpu, t, prev, state,
               "swapper/%d" % cpu if nxt == 0 else "y", nxt))


def wk(t, cpu, by, pid, target):
    return ("%16s-%-6d [%03d] d..5. %.6f: sched_wakeup: comm=y pid=%d prio=120 target_cpu=%03d\n"
            % ("tierfs", by, cpu, t, pid, target))


trace = ["# tracer: nop\n",
         sw(10.100000, 0, 100, "S", 0),        # the reader sleeps, CPU 0 idle
         sw(10.100100, 1, 0, "R", 200),        # the daemon on CPU 1
         wk(10.100200, 1, 200, 100, 0),        # target idle
         sw(10.100210, 0, 0, "R", 100),        # 10 us
         sw(10.100300, 0, 100, "S", 0),
         wk(10.100400, 1, 200, 100, 1),        # target busy (200), CPU 0 idle
         sw(10.100450, 1, 200, "S", 100),      # 50 us
         sw(10.100500, 0, 0, "R", 201),        # the other daemon thread on CPU 0
         sw(10.100600, 1, 100, "S", 200),      # both busy
         wk(10.100700, 0, 201, 100, 0),        # both busy
         sw(10.100900, 0, 201, "S", 100),      # 200 us
         wk(10.100950, 1, 200, 100, 0),        # running: not a wake-up
         sw(10.101000, 0, 100, "R+", 201),     # preempted
         sw(10.101100, 0, 201, "S", 100),      # back on after 100 us
         sw(11.500000, 0, 100, "S", 0),        # after the span
         wk(11.500100, 1, 200, 100, 0),
         sw(11.500200, 0, 0, "R", 100)]
cpu = {"groups": ["daemon", "workers"], "hz": 100, "workers": 1,
       "threads": {"100/100": ["workers", "pt_data_worker", 10], "100/101": ["workers", "t", 1],
                   "200/200": ["daemon", "tierfs", 5], "200/201": ["daemon", "tierfs", 5]},
       "series": [[0.0, 0, {"daemon": 0, "workers": 0}, 10.0, 0, {}],
                  [1.0, 50, {"daemon": 10, "workers": 10}, 11.0, 2, {}]]}
r6 = lambda x: round(x, 6)


def figures(what, j):
    check(what + "readers", j["readers"], 1)
    check(what + "steal", r6(j["steal_cores"]), 0.02)
    check(what + "idle", r6(j["idle_cores"]), 0.5)
    check(what + "wake-ups a sample", r6(j["wakeups_per_sample"]), 1.0)
    for cls, want in [("all", [3, 10, 50, 200]), ("target idle", [1, 10, 10, 10]),
                      ("target busy, other idle", [1, 50, 50, 50]), ("all busy", [1, 200, 200, 200])]:
        c = j["classes"][cls]
        check(what + cls + " count", c["count"], want[0])
        check(what + cls + " p10", r6(c["p10"]), want[1])
        check(what + cls + " p50", r6(c["p50"]), want[2])
        check(what + cls + " p99", r6(c["p99"]), want[3])
    check(what + "all mean", r6(j["classes"]["all"]["mean"]), r6(260 / 3))
    check(what + "all per sample", r6(j["classes"]["all"]["per_sample"]), r6(260 / 3))
    check(what + "wakers", sorted(j["wakers"]), ["daemon"])
    check(what + "preempt", (j["preempt"]["count"], r6(j["preempt"]["mean"])), (1, 100.0))


# dlio_peer.sh --wake's SIDE.sched.overrun on two CPUs (grep overrun of
# per_cpu/cpuN/stats)
def overrun(a, b, c):
    return "overrun: %d\ncommit overrun: %d\noverrun: %d\ncommit overrun: 0\n" % (a, b, c)


with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "cpu.json"), "w").write(json.dumps(cpu))
    sched = os.path.join(d, "s.sched")
    open(sched, "w").write("".join(trace))
    out = os.path.join(d, "w.json")

    def run(ovr):
        if ovr is not None:
            open(sched + ".overrun", "w").write(ovr)
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([sys.executable, os.path.join(root, "bench", "dlio_wake.py"), "3",
                            os.path.join(d, "cpu.json"), sched, "--json", out],
                           capture_output=True, text=True)
        return r, json.load(open(out)) if os.path.exists(out) else None

    r, j = run(None)
    check("exit", r.returncode, 0)
    figures("", j)
    check("no overrun file: not checked", (j["dropped_events"], j["incomplete"]), (None, False))
    r, j = run(overrun(0, 0, 0))
    check("overrun 0: exit", (r.returncode, r.stderr), (0, ""))
    figures("overrun 0: ", j)
    check("overrun 0: complete", (j["dropped_events"], j["incomplete"]), (0, False))
    check("overrun 0: not marked", "INCOMPLETE" in r.stdout, False)
    r, j = run(overrun(120, 3, 7))
    check("dropped: exit as for bad input", r.returncode, 1)
    check("dropped: the warning line", r.stderr,
          "dlio_wake.py: warning: %s.overrun: 130 events dropped (the instance's buffer overran): "
          "the figures above are from an incomplete trace\n" % sched)
    figures("dropped: ", j)
    check("dropped: incomplete", (j["dropped_events"], j["incomplete"]), (130, True))
    check("dropped: the figures marked", r.stdout.splitlines()[0].endswith(
        "; INCOMPLETE trace, 130 events dropped: the figures below miss them"), True)
    r, j = run("overrun: 0\nentries: 12\n")
    check("a bad overrun file", (r.returncode, r.stdout, r.stderr, j),
          (1, "", "dlio_wake.py: %s.overrun: line 2 is not \"overrun: N\" ('entries: 12')\n" % sched, None))
    # tracefs's LOST lines, between the events (trace_pipe's form), no overrun file
    os.remove(sched + ".overrun")
    lost = trace[:9] + ["CPU:0 [LOST 42 EVENTS]\n"] + trace[9:12] + ["CPU:1 [LOST EVENTS]\n"] + trace[12:]
    open(sched, "w").write("".join(lost))
    r, j = run(None)
    check("LOST: exit as for bad input", r.returncode, 1)
    check("LOST: the warning line", r.stderr,
          "dlio_wake.py: warning: %s: 2 LOST lines, at least 42 events lost (a CPU's buffer overran): "
          "the figures above are from an incomplete trace\n" % sched)
    figures("LOST: ", j)
    check("LOST: incomplete", (j["lost_lines"], j["lost_events"], j["dropped_events"], j["incomplete"]),
          (2, 42, None, True))
    check("LOST: the figures marked", r.stdout.splitlines()[0].endswith(
        " cores; INCOMPLETE trace, at least 42 events lost (2 LOST lines): the figures below miss them"),
        True)
    r, j = run(overrun(5, 0, 0))
    check("LOST and dropped: exit", r.returncode, 1)
    check("LOST and dropped: both warnings", r.stderr,
          "dlio_wake.py: warning: %s: 2 LOST lines, at least 42 events lost (a CPU's buffer overran): "
          "the figures above are from an incomplete trace\n"
          "dlio_wake.py: warning: %s.overrun: 5 events dropped (the instance's buffer overran): "
          "the figures above are from an incomplete trace\n" % (sched, sched))
    figures("LOST and dropped: ", j)
    check("LOST and dropped: marked", r.stdout.splitlines()[0].endswith(
        "; INCOMPLETE trace, 5 events dropped, at least 42 events lost (2 LOST lines): the figures below miss them"),
        True)
done()
