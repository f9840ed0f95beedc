# lib.sh — shared by the cli tests: a private work directory, and a trap
# that leaves no mount and no daemon behind whatever happens.
set -u
build=${TS_BUILD_ROOT:?run through meson test}
src=${TS_SOURCE_ROOT:?run through meson test}
tiersim=$build/cli/tiersim
here=$src/tests/cli
[ -e /dev/fuse ] || { echo "no /dev/fuse"; exit 77; }
[ -x "$build/fs/tierfs" ] || { echo "no tierfs in this build"; exit 77; }

work=$(mktemp -d /tmp/tiersim-test.XXXXXX)
export TIERSIM_WORKDIR=$work
export XDG_CACHE_HOME=$work/cache # calibrations land here, not in ~/.cache

# Mount points under $work, from the kernel's view.
mounts_under() {
	awk -v w="$work" 'index($2, w) == 1 { print $2 }' /proc/mounts
}
# Waits (up to 60 s) for the background command $bg to mount under $work,
# then half a second more so that it is running; fails naming $1 if it
# never mounts.
wait_mounted() {
	for _ in $(seq 600); do
		[ -n "$(mounts_under)" ] && break
		kill -0 "$bg" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$(mounts_under)" ] || fail "$1: the scenario never mounted: $(cat "$work/err")"
	sleep 0.5
}
cleanup() {
	for m in $(mounts_under); do
		fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	[ -n "${bg:-}" ] && kill -9 "$bg" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_dlio STATUS PATTERN ARGS...: `tiersim dlio ARGS` exits STATUS with exactly one stderr line, matching PATTERN
expect_dlio() {
	local want=$1 pat=$2
	shift 2
	"$tiersim" dlio "$@" >"$work/out" 2>"$work/err"
	local rc=$?
	[ "$rc" -eq "$want" ] || { cat "$work/err" >&2; fail "dlio $*: exit $rc, expected $want"; }
	[ "$(wc -l <"$work/err")" -eq 1 ] || { cat "$work/err" >&2; fail "dlio $*: not one line"; }
	grep -q -- "$pat" "$work/err" || { cat "$work/err" >&2; fail "dlio $*: no '$pat'"; }
}

# stop_mounted NAME [SIG]: SIG (INT) to the background command $bg once it
# has mounted under $work; it must exit 130 and leave nothing mounted.
stop_mounted() {
	wait_mounted "$1"
	kill -"${2:-INT}" "$bg"
	wait "$bg"
	rc=$?
	bg=
	[ $rc -eq 130 ] || fail "$1: exit $rc, expected 130: $(cat "$work/err")"
	check_clean "$1"
}

# No mount under the work directory and no tierfs serving it.
check_clean() {
	local left
	left=$(mounts_under)
	[ -z "$left" ] || fail "$1: mount left behind: $left"
	if pgrep -f "tierfs.*$work" >/dev/null; then
		fail "$1: a tierfs daemon is still running"
	fi
}
