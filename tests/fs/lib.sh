# lib.sh — what every tierfs integration test sources: a temporary
# BACKING and MOUNTPOINT, mounting and waiting for the mount to be ready,
# and a trap that always unmounts and stops the daemon, pass or fail.
# A test fails on any error line the daemon printed (check_log).
# shellcheck shell=bash

set -u

TIERFS=${TS_BUILD_ROOT:?TS_BUILD_ROOT is not set (run through meson test)}/fs/tierfs
if [ ! -c /dev/fuse ]; then
	echo "SKIP: /dev/fuse is missing; FUSE tests need it"
	exit 77
fi
command -v fusermount3 >/dev/null || { echo "FAIL: fusermount3 is not installed" >&2; exit 1; }

TMPD=$(mktemp -d "${TMPDIR:-/tmp}/tierfs-test.XXXXXX")
BACKING=$TMPD/backing
MNT=$TMPD/mnt
LOG=$TMPD/tierfs.log
mkdir -p "$BACKING" "$MNT"
: >"$LOG"
DAEMON_PID=
EXTRA_MOUNTS=

is_mounted() { # PATH: listed in mountinfo (also true for a stale mount)
	awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

cleanup() {
	local m
	for m in $EXTRA_MOUNTS "$MNT"; do
		if is_mounted "$m"; then
			fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		fi
	done
	if [ -n "$DAEMON_PID" ]; then
		kill "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
	fi
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*" >&2
	if [ -s "$LOG" ]; then
		echo "daemon log:" >&2
		sed 's/^/  /' "$LOG" >&2
	fi
	exit 1
}

# Runs CMD, then waits for process PID (not a child: a daemonized tierfs)
# to exit, for up to SECONDS. The process is held by a pidfd opened before
# CMD runs, so its real exit is what is waited for (not a poll that a
# zombie left unreaped, or a new process given the same id, could fool),
# and a loaded host only makes the wait longer. Returns 0 when it exited,
# 2 when it still runs after SECONDS, 3 when PID was gone before CMD, and
# 1 when CMD failed.
run_then_wait_exit() { # PID SECONDS CMD...
	python3 - "$@" <<'PY'
import os, select, subprocess, sys
pid, secs, cmd = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
try:
    fd = os.pidfd_open(pid)
except ProcessLookupError:
    sys.exit(3)
if subprocess.call(cmd):
    sys.exit(1)
p = select.poll()
p.register(fd, select.POLLIN)
sys.exit(0 if p.poll(secs * 1000) else 2)
PY
}

# Waits until MOUNTPOINT/.tierfs/stats says the daemon has calibrated.
wait_ready() { # MOUNTPOINT PID
	local i
	for i in $(seq 400); do
		if grep -q '"calibrated": true' "$1/.tierfs/stats" 2>/dev/null; then
			return 0
		fi
		kill -0 "$2" 2>/dev/null || fail "tierfs exited before the mount was ready"
		sleep 0.05
	done
	fail "the mount on $1 was not ready after 20 s"
}

# Mounts BACKING on MNT in the foreground (background job), log to LOG.
# A script's background jobs start with SIGINT ignored; restore it so the
# daemon's own handler is installed as it would be from a terminal.
tfs_mount() { # OPTIONS
	env --default-signal=INT "$TIERFS" -f -o "$1" "$BACKING" "$MNT" 2>>"$LOG" &
	DAEMON_PID=$!
	wait_ready "$MNT" "$DAEMON_PID"
}

# Unmounts MNT and checks the daemon exited cleanly.
tfs_umount() {
	local rc
	fusermount3 -u "$MNT" || fail "fusermount3 -u $MNT failed"
	wait "$DAEMON_PID"
	rc=$?
	DAEMON_PID=
	[ "$rc" -eq 0 ] || fail "tierfs exited with status $rc after unmount"
	is_mounted "$MNT" && fail "$MNT is still mounted"
	return 0
}

# The daemon prints informational lines (floor, mounted, unmounted, tier
# switched, fault rules) and the below-the-floor warning; anything else is
# a failure.
check_log() {
	local bad
	bad=$(grep -Ev '^tierfs: (FUSE round trip .*|.* mounted on .*|.* unmounted|tier switched to .*|fault rules: .*|fault rules cleared|page-cache model (warm|written): .*|loop device hop .*|warning: .* is below the FUSE round trip .*)$' "$LOG")
	[ -z "$bad" ] || fail "unexpected daemon output: $bad"
}

# Reads one number out of the stats JSON: stat_get 'ops.read.count'.
stat_get() { # DOTTED.PATH [MOUNTPOINT]
	python3 - "$1" "${2:-$MNT}/.tierfs/stats" <<'EOF'
import json, sys
v = json.load(open(sys.argv[2]))
for k in sys.argv[1].split('.'):
    v = v[k]
print(v)
EOF
}

# Unmounts a mount that recorded $TMPD/run.trace, takes the daemon's
# "trace ... written" line out of the log and checks the rest.
tfs_umount_traced() {
	tfs_umount
	grep -v "trace $TMPD/run.trace written" "$LOG" >"$LOG.rest"
	mv "$LOG.rest" "$LOG"
	check_log
}

# The virtual replay of TRACE on ssd-cloud: the metadata bytes it reads
# ($B is the tiersim program); on a failure it has said why, and the
# caller exits: rep=$(replay_meta_bytes T) || exit 1.
replay_meta_bytes() { # TRACE
	"$B" replay "$1" --virtual --tier ssd-cloud --json >"$TMPD/v.json" 2>"$TMPD/v.err" ||
		fail "virtual replay of $1: $(cat "$TMPD/v.err")"
	python3 -c 'import json,sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["what"] != "recorded"][0]
print(r.get("device_read_bytes", 0))' "$TMPD/v.json" || fail "replay JSON"
}

numbering_tree() { # the tree tests/fs/fsmeta.sh and fsrace.sh number
	# a/ (12), a/s0 (13), its 100 files (14-113), ... a/s4 (417), its files
	# (418-517), a-b (518), b (519), its 30 files (520-549): 549 the last
	# inode in use. a-b sorts after a/'s whole subtree (mkfs.ext4 -d),
	# though "/a-b" sorts before "/a/s0" as a string.
	mkdir -p "$BACKING/a" "$BACKING/b"
	for s in 0 1 2 3 4; do
		mkdir "$BACKING/a/s$s"
		for f in $(seq -w 0 99); do : >"$BACKING/a/s$s/f0$f"; done
	done
	: >"$BACKING/a-b"
	for f in $(seq -w 0 29); do : >"$BACKING/b/f0$f"; done
}

# A usage error: tierfs ARGS answers with one line holding WORDS, exit 1,
# and leaves nothing mounted.
expect_error() { # "WORDS THE LINE MUST HOLD" ARGS...
	local want=$1 out rc
	shift
	out=$("$TIERFS" "$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 1 ] || fail "tierfs $*: exit $rc, expected 1 (output: $out)"
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "tierfs $*: expected one line, got: $out"
	case "$out" in
	*"$want"*) ;;
	*) fail "tierfs $*: '$out' does not mention '$want'" ;;
	esac
	is_mounted "$MNT" && fail "tierfs $* left $MNT mounted"
	return 0
}
