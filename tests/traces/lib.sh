# lib.sh — what the trace tool tests source: the tiersim program ($B), the
# test data ($S), a scratch directory ($T) removed on exit, and check(),
# which records a failure and goes on so one run shows them all.
# shellcheck shell=sh
set -u
[ -n "${V:-}" ] && set -x
B=${TS_BUILD_ROOT:?run through meson test}/cli/tiersim
S=${TS_SOURCE_ROOT:?run through meson test}/tests/traces/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
	d=$1
	shift
	if ! "$@"; then
		echo "FAIL: $d" >&2
		fail=1
	fi
}
