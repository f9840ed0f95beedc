# lib.sh — what the trace tool tests source: the tiersim program ($B), the
# test data ($S), a scratch directory ($T) removed on exit, check(), which
# records a failure and goes on so one run shows them all, and the set-up
# the replay tests share: j(), mktrace(), fixed_tiers().
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
j() { # j FILE FILTER: what jq's FILTER gives of the JSON in FILE, raw
	jq -r "$2" "$1"
}
mktrace() { # mktrace NAME: the trace text on stdin as $T/NAME.txt and $T/NAME.trace
	cat > "$T/$1.txt" && "$B" trace undump "$T/$1.txt" -o "$T/$1.trace"
}
fixed_tiers() { # fixed_tiers FILE: tiers fixed60 and fixed100, reads at that latency
	cat > "$1" <<'X'
tier "fixed60" { desc = "test", source = "test", latency = { read = { fixed = "60us" } } }
tier "fixed100" { desc = "test", source = "test", latency = { read = { fixed = "100us" } } }
X
}
