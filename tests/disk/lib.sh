# lib.sh — what every block-mode test sources: root and loop devices or a
# skip (77), a temporary directory with its own disk state, and a trap
# that undoes every disk it mounted, pass or fail. A test fails if it
# leaves a loop device, a mount or a tierfs behind.
# shellcheck shell=bash

set -u

TIERSIM=${TS_BUILD_ROOT:?TS_BUILD_ROOT is not set (run through meson test)}/cli/tiersim
export TIERSIM_TIERFS=$TS_BUILD_ROOT/fs/tierfs
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: block mode needs root (loop devices, mount)"
	exit 77
fi
if [ ! -c /dev/loop-control ] || [ ! -c /dev/fuse ]; then
	echo "SKIP: no loop device support (/dev/loop-control) or no /dev/fuse"
	exit 77
fi

TMPD=$(mktemp -d "${TMPDIR:-/tmp}/tiersim-disk-test.XXXXXX")
export TIERSIM_DISK_STATE=$TMPD/state
MNT=$TMPD/mnt
mkdir -p "$MNT" "$TMPD/data" "$TMPD/images"

is_mounted() { # PATH
	awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# Loop devices backed by a file under $TMPD (our images, served by tierfs
# from $TMPD or one of its state mounts).
our_loops() {
	local f
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] || continue
		case "$(cat "$f" 2>/dev/null)" in
		"$TMPD"/*) echo "${f%/loop/backing_file}" ;;
		esac
	done
}

cleanup() {
	local m
	for m in $(awk -v t="$TMPD" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		"$TIERSIM" disk umount "$m" >/dev/null 2>&1 || umount -l "$m" 2>/dev/null
	done
	for m in $(awk -v t="$TMPD" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*" >&2
	local l
	for l in "$TIERSIM_DISK_STATE"/*.log; do
		[ -s "$l" ] && { echo "$l:" >&2; sed 's/^/  /' "$l" >&2; }
	done
	exit 1
}

# Nothing of ours is mounted, attached or running.
check_clean() { # WHAT
	local m
	m=$(awk -v t="$TMPD" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo)
	[ -z "$m" ] || fail "$1: left mounted: $m"
	[ -z "$(our_loops)" ] || fail "$1: left a loop device attached: $(our_loops)"
	if ls "$TIERSIM_DISK_STATE"/*.state >/dev/null 2>&1; then
		fail "$1: left its state: $(ls "$TIERSIM_DISK_STATE")"
	fi
	pgrep -f "tierfs .*$TMPD" >/dev/null && fail "$1: left a tierfs running: $(pgrep -af "tierfs .*$TMPD")"
	return 0
}

# tierfs's stats of the one disk mounted, dotted keys ("-" where missing;
# spaces in a value as "_")
tierfs_stats() { # KEY...
	/usr/bin/python3 - "$(sed -n 's/^fuse=//p' "$TIERSIM_DISK_STATE"/*.state)/.tierfs/stats" "$@" <<'X'
import json, sys
s = json.load(open(sys.argv[1]))
out = []
for k in sys.argv[2:]:
    v = s
    for p in k.split("."):
        v = v.get(p) if isinstance(v, dict) else None
    out.append("-" if v is None else str(v).replace(" ", "_"))
print(" ".join(out))
X
}

# Bytes the device read, from a trace: tiersim trace stats --json.
trace_read_bytes() { # TRACE
	"$TIERSIM" trace stats --json "$1" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["ops"]["read"]["bytes"])'
}
