#!/usr/bin/env bash
# pool.sh — tierfs's worker pool (fs/workers.c). A request sleeping in the
# model holds a worker, so a burst of deep-queue reads grows the pool; a
# worker idle for idle_timeout ends while more than max_idle_threads are
# idle, so after the burst the pool falls back to at most max_idle_threads
# idle workers (the default 16, or the one given), while one idle for less
# stays (no thread is ended the moment its request ends); -1 keeps them
# all; max_threads bounds the pool; workers that end give their trace ring
# back (no record lost); values that cannot work are refused with one line;
# FUSE_THREAD_STACK sets the workers' stack size, as in libfuse's loop.
# The tier's latency (2 s, fixed) is far longer than it takes to start the
# burst's readers, so they are all in flight together; what is asserted is
# counts of threads, never times: a fall is waited for with a bounded
# re-check, and "still there" is judged against an idle_timeout of an hour.
. "$(dirname "$0")/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim

expect_error "option 'max_threads'" -o tier=ssd-cloud,max_threads=-1 "$BACKING" "$MNT"
expect_error "option 'max_threads'" -o tier=ssd-cloud,max_threads=100001 "$BACKING" "$MNT"
expect_error "option 'max_idle_threads'" -o tier=ssd-cloud,max_idle_threads=300 "$BACKING" "$MNT"
expect_error "option 'max_idle_threads'" -o tier=ssd-cloud,max_threads=4,max_idle_threads=5 "$BACKING" "$MNT"
expect_error "max_idle_threads" -o tier=ssd-cloud,max_idle_threads=some "$BACKING" "$MNT"
expect_error "idle_timeout" -o tier=ssd-cloud,idle_timeout=0 "$BACKING" "$MNT"
expect_error "idle_timeout" -o tier=ssd-cloud,idle_timeout=2h "$BACKING" "$MNT"
expect_error "idle_timeout" -o tier=ssd-cloud,idle_timeout=soon "$BACKING" "$MNT"
expect_error "option 'clone_fd'" -o tier=ssd-cloud,clone_fd "$BACKING" "$MNT"
help=$("$TIERFS" --help | tr -s ' \n' ' ')
case "$help" in *"max_idle_threads=N (0 to max_threads, default 16"*) ;;
*) fail "--help does not give max_idle_threads's default" ;; esac
case "$help" in *"idle_timeout "*"[default 1s; 1.00 ms to 3600.00 s]"*) ;;
*) fail "--help does not give idle_timeout's range and default" ;; esac

cat >"$TMPD/slow.lua" <<'X'
tier "slow" { desc = "test", source = "test", latency = { read = { fixed = "2s" } } }
X
dd if=/dev/zero of="$BACKING/f" bs=4096 count=64 status=none || fail "dd"

threads() { # the daemon's threads now
	local t=(/proc/"$DAEMON_PID"/task/*)
	echo "${#t[@]}"
}
# burst N: N 4 KiB O_DIRECT reads at once, each its own process; waits for
# them all, sampling the daemon's threads: HIGH, the most seen.
burst() {
	local i n pids=() left
	HIGH=0
	for ((i = 0; i < $1; i++)); do
		dd if="$MNT/f" of=/dev/null bs=4096 count=1 skip="$i" iflag=direct status=none &
		pids+=($!)
	done
	while :; do
		n=$(threads)
		[ "$n" -gt "$HIGH" ] && HIGH=$n
		left=0
		for i in "${pids[@]}"; do kill -0 "$i" 2>/dev/null && left=1; done
		[ "$left" = 1 ] || break
		sleep 0.05
	done
	for i in "${pids[@]}"; do wait "$i" || fail "a read of the burst failed"; done
}
# settle BOUND: re-reads the daemon's threads until they are at most
# BOUND, for up to 30 s (idle workers end after idle_timeout; a worker ends
# just after its last reply, which may reach its reader first); AFTER is
# the last count.
settle() {
	local i
	AFTER=$(threads)
	for ((i = 0; i < 300 && AFTER > $1; i++)); do
		sleep 0.1
		AFTER=$(threads)
	done
}
# case OPTIONS READERS IDLE: mounted with OPTIONS, READERS reads at once;
# the pool must have grown past BASE (its threads at mount) + IDLE during
# the burst and fall back to at most BASE + IDLE after it (IDLE "all": no
# fewer than BASE + READERS / 2 a second after it)
case_() {
	local base
	tfs_mount "tier=slow,profile=$TMPD/slow.lua${1:+,$1}"
	base=$(threads)
	burst "$2"
	if [ "$3" = all ]; then
		sleep 1
		AFTER=$(threads)
	else
		settle $((base + $3))
	fi
	echo "-o ${1:-(defaults)}: $2 reads at once: threads $base at mount, at most $HIGH during, $AFTER after"
	if [ "$3" = all ]; then
		[ "$AFTER" -ge $((base + $2 / 2)) ] || fail "-o $1: idle workers ended ($AFTER threads after, $base at mount)"
	else
		[ "$HIGH" -gt $((base + $3)) ] || fail "-o ${1:-}: the burst did not grow the pool (at most $HIGH threads, $base at mount)"
		[ "$AFTER" -le $((base + $3)) ] ||
			fail "-o ${1:-(defaults)}: $AFTER threads 30 s after the burst, more than $base at mount + $3 idle"
	fi
	tfs_umount
	check_log
}
case_ "" 48 16
case_ max_idle_threads=2,idle_timeout=200ms 16 2
case_ max_idle_threads=-1 16 all
# Idle for less than idle_timeout, a worker stays, whatever max_idle_threads
# says (libfuse's own loop ended them as their requests ended).
case_ max_idle_threads=0,idle_timeout=1h 16 all

# max_threads bounds the pool: 12 reads at once through 4 workers.
tfs_mount "tier=slow,profile=$TMPD/slow.lua,max_threads=4"
base=$(threads)
burst 12
echo "-o max_threads=4: 12 reads at once: threads $base at mount, at most $HIGH during"
[ "$HIGH" -le $((base + 4)) ] || fail "max_threads=4: $HIGH threads during the burst, $base at mount"
tfs_umount
check_log

# Workers that end give their trace ring back to the next: two bursts with
# the pool fallen back between them, every read recorded, none dropped.
tfs_mount "tier=slow,profile=$TMPD/slow.lua,max_idle_threads=0,idle_timeout=100ms,trace=$TMPD/run.trace"
base=$(threads)
burst 16
first=$HIGH
settle $((base + 1))
[ "$AFTER" -le $((base + 1)) ] || fail "traced: $AFTER threads after the first burst, $base at mount"
burst 16
echo "traced, max_idle_threads=0,idle_timeout=100ms: threads $base at mount, at most $first, then $AFTER, then at most $HIGH"
tfs_umount
grep -q "trace $TMPD/run.trace written, no records dropped" "$LOG" || fail "the unmount did not report the trace whole"
grep -v "trace $TMPD/run.trace written" "$LOG" >"$LOG.rest"
mv "$LOG.rest" "$LOG"
check_log
n=$("$B" trace stats --json "$TMPD/run.trace" | python3 -c 'import json, sys; print(json.load(sys.stdin)["ops"]["read"]["count"])') ||
	fail "trace stats failed"
[ "$n" -ge 32 ] || fail "traced: $n reads in the trace, 32 made"

# FUSE_THREAD_STACK, libfuse's worker stack size (fuse_loop_mt.c,
# fuse_start_thread), is honoured: glibc maps a thread's stack as one
# read-write mapping of the size asked (its guard page apart), so with
# 5,255,168 bytes (1,283 pages, nobody's default) the daemon's maps hold
# one such mapping for each of the burst's 16 workers, and none without
# the variable. A value pthread_attr_setstacksize refuses (100 bytes, under
# PTHREAD_STACK_MIN) or a negative one is said once and the default stack
# kept, as libfuse does: the mount serves the burst.
STACK=5255168
stacks() { # SIZE: the daemon's anonymous read-write mappings of SIZE bytes
	python3 - "$DAEMON_PID" "$1" <<'PY'
import sys
pid, size = sys.argv[1], int(sys.argv[2])
n = 0
for line in open("/proc/%s/maps" % pid):
    w = line.split()
    a, b = (int(x, 16) for x in w[0].split("-"))
    n += len(w) == 5 and w[1] == "rw-p" and b - a == size
print(n)
PY
}
FUSE_THREAD_STACK=$STACK tfs_mount "tier=slow,profile=$TMPD/slow.lua,idle_timeout=1h"
burst 16
n=$(stacks $STACK)
echo "FUSE_THREAD_STACK=$STACK: $n stacks of that size after 16 reads at once ($(threads) threads)"
[ "$n" -ge 16 ] || fail "FUSE_THREAD_STACK=$STACK: $n worker stacks of $STACK bytes after 16 reads at once"
tfs_umount
check_log
tfs_mount "tier=slow,profile=$TMPD/slow.lua,idle_timeout=1h"
burst 16
n=$(stacks $STACK)
[ "$n" -eq 0 ] || fail "without FUSE_THREAD_STACK: $n stacks of $STACK bytes"
tfs_umount
check_log
for bad in 100 -1; do
	FUSE_THREAD_STACK=$bad tfs_mount "tier=slow,profile=$TMPD/slow.lua"
	burst 4
	tfs_umount
	n=$(grep -c "^tierfs: FUSE_THREAD_STACK=$bad: invalid stack size, the workers keep the default stack$" "$LOG")
	[ "$n" -eq 1 ] || fail "FUSE_THREAD_STACK=$bad: said $n times, not once"
	grep -v "^tierfs: FUSE_THREAD_STACK=" "$LOG" >"$LOG.rest"
	mv "$LOG.rest" "$LOG"
	check_log
done
echo "FUSE_THREAD_STACK=100 and -1: said once each, the default stack kept, the reads served"
