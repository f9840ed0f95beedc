"""test_dlio_offcpu.py SOURCE_ROOT — bench/dlio_offcpu.py on a known
scheduler trace, to the digit: two CPUs, two reading threads and a daemon
thread of a side; where each slept (the first call of its kernel stack the
scheduler did not make, and the system call), how long each waited for a
CPU, and the host's idle cores shared among the readers asleep then."""
import os
import sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "bench"))
import dlio_offcpu as oc  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, done  # noqa: E402


def near(what, got, want):
    check(what, round(got, 9), round(want, 9))


FUSE = ["__schedule", "schedule", "request_wait_answer", "__fuse_simple_request",
        "fuse_direct_io", "fuse_file_read_iter", "vfs_read", "ksys_read", "do_syscall_64",
        "entry_SYSCALL_64_after_hwframe"]
OPEN = ["__schedule", "schedule", "__mutex_lock.constprop.0", "path_openat", "do_filp_open",
        "do_sys_openat2", "__x64_sys_openat", "do_syscall_64"]
DEV = ["__schedule", "schedule", "fuse_dev_do_read", "fuse_dev_read", "vfs_read", "ksys_read"]


def sw(t, cpu, prev, state, nxt, stack=()):
    """A sched_switch record as perf script prints it, its stack after."""
    head = ("%16s %6d [%03d] %.6f: sched:sched_switch: prev_comm=x prev_pid=%d prev_prio=120 "
            "prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n"
            % ("x", prev, cpu, t, prev, state, "swapper/%d" % cpu if nxt == 0 else "y", nxt))
    return [head] + ["\tffffffff81000000 %s\n" % f for f in stack] + ["\n"]


def wk(t, cpu, pid):
    return ["%16s %6d [%03d] %.6f: sched:sched_wakeup: comm=y pid=%d prio=120 target_cpu=%03d\n"
            % ("z", 9, cpu, t, pid, cpu), "\tffffffff81000000 ttwu_do_activate\n", "\n"]


check("reason: a read's FUSE wait", oc.reason(FUSE), "request_wait_answer (read)")
check("reason: an open's lock", oc.reason(OPEN), "__mutex_lock.constprop.0 (openat)")
check("reason: a page fault", oc.reason(["__schedule", "schedule", "io_schedule",
                                         "folio_wait_bit_common", "filemap_fault",
                                         "handle_mm_fault", "exc_page_fault",
                                         "asm_exc_page_fault"]),
      "folio_wait_bit_common (page fault)")

# threads: readers 11 and 12 (DataLoader workers' main threads, processes
# 11 and 12), 13 a worker's other thread, daemon 20; a span from 10.0 to
# 11.0 s with both readers at a core or more in its first half.
cj = {"groups": ["daemon", "main", "workers"], "hz": 100,
      "threads": {"10/10": ["main", "m", 1], "11/11": ["workers", "w", 1],
                  "12/12": ["workers", "w", 1], "11/13": ["workers", "feeder", 1],
                  "20/20": ["daemon", "tierfs", 1]},
      "series": [[0, 0, {"daemon": 0, "main": 0, "workers": 0}, 10.0, 0],
                 [0, 0, {"daemon": 1, "main": 0, "workers": 600000000}, 10.5, 0],
                 [0, 0, {"daemon": 2, "main": 0, "workers": 700000000}, 11.0, 0]]}
lines = []
lines += sw(10.0, 0, 0, "R", 11)           # cpu 0 runs reader 11
lines += sw(10.0, 1, 0, "R", 12)           # cpu 1 runs reader 12
lines += sw(10.1, 0, 11, "S", 20, FUSE)    # 11 waits on a read; the daemon runs
lines += sw(10.2, 0, 20, "S", 0, DEV)      # the daemon waits; cpu 0 idles (11 asleep)
lines += wk(10.3, 0, 11)                   # 11 answered: runnable
lines += sw(10.35, 0, 0, "R", 11)          # ... and on cpu 0 (0.05 s idle, 11 runnable)
lines += sw(10.6, 1, 12, "S", 0, OPEN)     # 12 waits on the folder's lock; cpu 1 idles
lines += sw(10.8, 0, 11, "S", 0, FUSE)     # 11 waits on a read: both idle, both readers asleep
lines += sw(10.9, 1, 0, "R", 13)           # the feeder thread runs on cpu 1
res = oc.analyze(cj, oc.parse(lines))

sp = res["span"]
near("span s", sp["s"], 1.0)
# idle: cpu 0 10.2-10.35 and 10.8-11.0; cpu 1 10.6-10.9
near("idle cores", sp["idle_cores"], 0.15 + 0.2 + 0.3)
ib = sp["idle_by_reader_state"]
# 10.2-10.3: cpu 0 idle, 11 asleep (read), 12 running -> 0.1 to the read
# 10.3-10.35: cpu 0 idle, 11 runnable -> 0.05 to runnable
# 10.6-10.8: cpu 1 idle, 12 asleep (lock), 11 running -> 0.2 to the lock
# 10.8-10.9: both idle (2 cores), 11 (read) and 12 (lock) asleep -> 0.1 each
# 10.9-11.0: cpu 0 idle, both asleep -> 0.05 each
check("idle by state", {k: round(v, 9) for k, v in ib.items()},
      {"request_wait_answer (read)": 0.25, "runnable": 0.05,
       "__mutex_lock.constprop.0 (openat)": 0.35})
r = sp["threads"]["readers"]
near("reader run", r["run"], 0.1 + 0.45 + 0.6)
near("reader runnable", r["runnable"], 0.05)
near("reader read wait", r["request_wait_answer (read)"], 0.2 + 0.2)
near("reader lock wait", r["__mutex_lock.constprop.0 (openat)"], 0.4)
check("the feeder apart", {k: round(v, 9) for k, v in sp["threads"]["workers: feeder"].items()}, {"run": 0.1})
near("daemon asleep on /dev/fuse", sp["threads"]["daemon"]["fuse_dev_do_read (read)"], 0.8)
# together: the first tick (10.0-10.5; the second grew 0.1 core)
tg = res["together"]
near("together s", tg["s"], 0.5)
near("together idle", tg["idle_cores"], 0.15 / 0.5)
check("together idle by state", {k: round(v, 9) for k, v in tg["idle_by_reader_state"].items()},
      {"request_wait_answer (read)": 0.2, "runnable": 0.1})

# an exiting thread: perf prints its tid as -1
ex = list(oc.parse(["             :-1    -1 [000] 30133.936816: sched:sched_switch: "
                    "prev_comm=tiersim prev_pid=1008 prev_prio=120 prev_state=X ==> "
                    "next_comm=swapper/0 next_pid=0 next_prio=120\n",
                    "\tffffffff81000000 __schedule\n", "\tffffffff81000000 do_task_dead\n",
                    "\tffffffff81000000 __x64_sys_exit\n", "\n"]))
check("an exit parsed", ex, [(30133.936816, 0, "switch", (1008, "X", 0, "do_task_dead (exit)"))])

done()
