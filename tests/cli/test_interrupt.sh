#!/usr/bin/env bash
# Whatever ends a scenario, its mounts go: a Lua error after a run, SIGINT
# and SIGTERM in the middle of one. Exit 1 for the error (with SCRIPT:LINE),
# 130 for a signal.
. "$(dirname "$0")/lib.sh"

"$tiersim" run "$here/small.lua" fail_after=true --quiet >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 1 ] || fail "a Lua error should exit 1, got $rc"
head -1 "$work/err" | grep -q 'small.lua:[0-9]*: failing on purpose' ||
	fail "no SCRIPT:LINE in: $(head -1 "$work/err")"
grep -q 'stack traceback' "$work/err" || fail "no traceback"
check_clean "after a Lua error"

for sig in INT TERM; do
	"$tiersim" run "$here/small.lua" iterations=100000000 --quiet >/dev/null 2>"$work/err" &
	bg=$!
	stop_mounted "SIG$sig" "$sig" # waits for the mount: the dataset is generated first
done
# Ctrl-C while a dataset is being generated: stops at once, and no partial
# dataset is left to pass for a complete one.
"$tiersim" run "$here/small.lua" count=20000 --quiet >/dev/null 2>"$work/err" &
bg=$!
for _ in $(seq 100); do
	ls "$work"/data/datasets/*.tmp-* >/dev/null 2>&1 && break
	sleep 0.1
done
sleep 0.5
kill -INT "$bg"
wait "$bg"
rc=$?
bg=
[ $rc -eq 130 ] || fail "SIGINT during generation: exit $rc, expected 130: $(cat "$work/err")"
left=$(ls -d "$work"/data/datasets/imagenet-jpeg-20000-* 2>/dev/null)
[ -z "$left" ] || fail "a partial dataset was left behind: $left"
check_clean "after SIGINT during generation"
# A daemon killed under a running scenario fails the run, naming it; the
# dead mount is detached.
"$tiersim" run "$here/small.lua" iterations=100000000 --quiet >/dev/null 2>"$work/err" &
bg=$!
wait_mounted "kill -9"
pkill -9 -f "tierfs.*$work"
wait "$bg"
rc=$?
bg=
[ $rc -eq 1 ] || fail "tierfs killed: exit $rc, expected 1: $(cat "$work/err")"
# Either the runner's stop notices the dead daemon first, or the loader's
# next read does (ENOTCONN); both name it.
grep -qE "died during the run \(killed by signal 9\)|the mount's daemon is gone" "$work/err" ||
	fail "tierfs killed: the error does not say so: $(cat "$work/err")"
check_clean "after tierfs was killed"
exit 0
