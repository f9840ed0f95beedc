#!/usr/bin/env bash
# lifecycle.sh — mounting and unmounting: the daemonized mount returns once
# ready and leaves with fusermount3 -u; SIGTERM and SIGINT unmount cleanly;
# a second mount over a mounted point is refused; a stale mount left by a
# killed daemon is reported with the command that clears it; mount(8) and
# its helper (options after the paths) work.
. "$(dirname "$0")/lib.sh"

pid_of_mount() { stat_get pid; }

# 1. Daemonized: returns when ready, goes away on unmount.
"$TIERFS" -o tier=unlimited "$BACKING" "$MNT" 2>>"$LOG" || fail "daemonized mount failed"
is_mounted "$MNT" || fail "not mounted after tierfs returned"
[ "$(stat_get calibrated)" = True ] || fail "mount not calibrated when tierfs returned"
pid=$(pid_of_mount)
echo data >"$MNT/file" || fail "write through the daemonized mount"
# The daemon's exit, waited for as long as a loaded host may need (it
# exits at once on an idle one); still running after that is a failure.
gone() { # PID CMD...
	local pid=$1
	shift
	run_then_wait_exit "$pid" "$EXIT_WAIT" "$@"
	case $? in
	0) ;;
	1) fail "$* failed" ;;
	2) fail "daemon $pid still running $EXIT_WAIT s after $*" ;;
	*) fail "daemon $pid gone before $*" ;;
	esac
}
EXIT_WAIT=${EXIT_WAIT:-60}
gone "$pid" fusermount3 -u "$MNT"
[ "$(cat "$BACKING/file")" = data ] || fail "data did not reach BACKING"

# 2. SIGTERM and SIGINT unmount cleanly (exit 0, nothing left mounted).
for sig in TERM INT; do
	tfs_mount tier=unlimited
	kill -"$sig" "$DAEMON_PID"
	wait "$DAEMON_PID"
	rc=$?
	DAEMON_PID=
	[ "$rc" -eq 0 ] || fail "tierfs exited with $rc on SIG$sig"
	is_mounted "$MNT" && fail "SIG$sig left $MNT mounted"
done

# 2b. ... also when the signal comes as soon as the mount appears, during the
# self-calibration (the daemon used to die of it and leave a dead mount).
for _ in 1 2 3; do
	"$TIERFS" -f -o tier=unlimited "$BACKING" "$MNT" 2>>"$TMPD/early.log" &
	DAEMON_PID=$!
	for _ in $(seq 500); do
		is_mounted "$MNT" && break
		sleep 0.01
	done
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID"
	rc=$?
	DAEMON_PID=
	[ "$rc" -eq 0 ] || fail "tierfs exited with $rc on an early SIGTERM"
	is_mounted "$MNT" && fail "an early SIGTERM left $MNT mounted"
done
grep -q 'failed' "$TMPD/early.log" && fail "an early SIGTERM: $(grep failed "$TMPD/early.log")"

# 2c. ... and when files are still open: the kernel sends their releases
# after the last close, which may come after the signal. The daemon frees
# the handles itself (a leak fails this under LeakSanitizer). No directory
# is held open: libfuse's high-level layer frees its own handle of an open
# directory only at releasedir, which a stop never sends.
for sig in INT TERM; do
	tfs_mount tier=unlimited
	exec 3<"$MNT/.tierfs/stats" 4<"$MNT/file" || fail "open before SIG$sig"
	kill -"$sig" "$DAEMON_PID"
	wait "$DAEMON_PID"
	rc=$?
	DAEMON_PID=
	exec 3<&- 4<&-
	[ "$rc" -eq 0 ] || fail "tierfs exited with $rc on SIG$sig with files open"
	is_mounted "$MNT" && fail "SIG$sig with files open left $MNT mounted"
done

# 3. A second mount over a mounted point is refused, naming the remedy.
tfs_mount tier=unlimited
out=$("$TIERFS" -o tier=unlimited "$BACKING" "$MNT" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "second mount: exit $rc, expected 1"
case "$out" in *"already a mount point"*"fusermount3 -u $MNT"*) ;; *) fail "second mount: '$out'" ;; esac
[ "$(awk -v m="$MNT" '$5 == m' /proc/self/mountinfo | wc -l)" -eq 1 ] || fail "two mounts on $MNT"
echo still >"$MNT/alive" || fail "the first mount stopped working"
tfs_umount

# 4. A stale mount (daemon killed) is detected and the fix printed.
tfs_mount tier=unlimited
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
stat "$MNT" >/dev/null 2>&1 && fail "the mount of a killed daemon still answers"
out=$("$TIERFS" -o tier=unlimited "$BACKING" "$MNT" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "mount over a stale mount: exit $rc, expected 1"
case "$out" in *stale*"fusermount3 -u $MNT"*) ;; *) fail "stale mount: '$out'" ;; esac
fusermount3 -u "$MNT" || fail "the printed command did not clear the stale mount"
is_mounted "$MNT" && fail "stale mount still there"

# 5. mount(8)'s helper: options after the paths, the program found on PATH.
PATH="$(dirname "$TIERFS"):$PATH" mount.fuse3 "$BACKING" "$MNT" -t tierfs -o tier=unlimited,capacity=1TiB 2>>"$LOG" ||
	fail "mount.fuse3 ... -t tierfs failed"
is_mounted "$MNT" || fail "mount.fuse3 did not mount"
[ "$(stat_get tier)" = unlimited ] || fail "tier option lost through mount.fuse3"
grep -q '^capacity=1.00 TiB' "$MNT/.tierfs/control" || fail "capacity option lost through mount.fuse3"
[ "$(cat "$MNT/file")" = data ] || fail "read through the helper mount"
pid=$(pid_of_mount)
gone "$pid" fusermount3 -u "$MNT"

# 6. mount(8) itself, naming the program in the source, and umount(8).
if [ "$(id -u)" -eq 0 ]; then
	mount -t fuse "$TIERFS#$BACKING" "$MNT" -o tier=unlimited 2>>"$LOG" || fail "mount -t fuse failed"
	[ "$(cat "$MNT/file")" = data ] || fail "read through mount(8)'s mount"
	pid=$(pid_of_mount)
	gone "$pid" umount "$MNT"
fi

check_log
exit 0
