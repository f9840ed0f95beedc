#!/usr/bin/env bash
# issue.sh — block mode's request clock (disk/issue.h): tierfs finds the
# disk's loop device, times its requests at the block layer (BPF on
# block:block_rq_issue/block_rq_complete), finds each read's issue, and,
# once the reply hop and its lateness are measured, schedules the reply
# from the issue; the mount's report, tierfs's stats and the trace header
# say so. --loop-issue=watch charges from tierfs's receipt and only
# compares; off leaves it off; a value else is refused; tierfs refuses
# loop_issue outside block mode. A build without BPF says so in one line and falls
# back to the mount's hop. Counts only, no times (wall clock).
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit 77; }
head -c 8388608 /dev/urandom >"$TMPD/data/f"
img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 64MiB --fs ext4 --from "$TMPD/data" || fail "make failed"

bpf=$(sed -n 's/^#define TS_HAVE_BPF //p' "$TS_BUILD_ROOT/ts_config.h")
"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --trace "$TMPD/on.trace" >"$TMPD/out" 2>"$TMPD/err" ||
	fail "mount failed: $(cat "$TMPD/err")"
if [ "$bpf" != 1 ]; then
	grep -q "requests charged from tierfs's receipt: the loop device's issue cannot be timed" "$TMPD/err" ||
		fail "a build without BPF: the mount's report does not say so: $(cat "$TMPD/err")"
	grep -q "^tierfs: loop_issue: this build has no BPF" "$TIERSIM_DISK_STATE"/*.log ||
		fail "a build without BPF: tierfs's log does not say why"
	[ "$(tierfs_stats loop_issue)" = unavailable ] || fail "stats: $(tierfs_stats loop_issue)"
	cmp -s "$TMPD/data/f" "$MNT/f" || fail "the file read back differs"
	"$TIERSIM" disk umount "$MNT" || fail "umount failed"
	check_clean "no BPF"
	# no request was timed from its issue: the trace carries no clock
	"$TIERSIM" trace stats "$TMPD/on.trace" --json | jq -e '.request_clock == null' >/dev/null ||
		fail "a build without BPF: the trace has request clocks"
	exit 0
fi
grep -q "each request charged from the loop device's issue, less its reply's hop to the completion (measured per request)$" "$TMPD/err" ||
	fail "the mount's report does not give the request clock: $(cat "$TMPD/err")"
grep -q "^tierfs: the loop device's requests timed from their issue (block:block_rq_issue and block_rq_complete, through BPF)" \
	"$TIERSIM_DISK_STATE"/*.log || fail "tierfs's log does not say how requests are timed"
loop=$(sed -n 's/^loop=//p' "$TIERSIM_DISK_STATE"/*.state)
read -r f0 u0 m0 <<<"$(tierfs_stats loop_issue_stats.found loop_issue_stats.used loop_issue_stats.missed)"
# 8 MiB in 128 KiB O_DIRECT reads (64 device requests of the file's
# extent), then again after a cold remount through the page cache
dd if="$MNT/f" of=/dev/null bs=128k iflag=direct status=none || fail "the direct read failed"
"$TIERSIM" disk run "$MNT" --mem 256MiB --cache cold -- cmp -s "$TMPD/data/f" "$MNT/f" >/dev/null ||
	fail "the file read back through the page cache differs"
read -r label dev minor found used missed hops h128 late <<<"$(tierfs_stats loop_issue loop_issue_stats.dev \
	loop_issue_stats.dev_minor loop_issue_stats.found loop_issue_stats.used loop_issue_stats.missed \
	loop_issue_stats.hops loop_issue_stats.reply_hop_ns.128k loop_issue_stats.late_ns)"
[ "$label" = measured_per_request ] || fail "tierfs's request clock is '$label'"
[ "/dev/loop$minor" = "$loop" ] && [ "$dev" = 7 ] ||
	fail "tierfs times device $dev:$minor, not the disk's $loop"
# every request of the reads is found (the mount's first few, issued
# before tierfs found the device, are not)
[ $((found - f0)) -ge 128 ] || fail "only $((found - f0)) of the reads' requests had their issue found"
[ "$missed" = "$m0" ] || fail "$((missed - m0)) of the reads' device requests had no issue found"
[ $((used - u0)) -ge 100 ] || fail "only $((used - u0)) requests were scheduled from their issue"
[ "$hops" -ge 128 ] || fail "only $hops replies' hops to the completion were measured"
case "$h128$late" in *[!0-9]* | '') fail "no 128 KiB reply hop ($h128) or lateness ($late) in the stats" ;; esac
# what the clock leaves: the kernel's completion less the model's, over
# the requests scheduled from their issue (shown, not asserted)
read -r rn rmed <<<"$(tierfs_stats loop_issue_stats.completion_less_model_ns.n loop_issue_stats.completion_less_model_ns.median)"
[ "$rn" -ge 100 ] || fail "only $rn completions were compared with the model's"
echo "completion - model: median $rmed ns over $rn requests; reply hop (128 KiB) $h128 ns, lateness $late ns"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "measured"
"$TIERSIM" trace dump "$TMPD/on.trace" | grep -m1 'mount_opts=' | grep -q ",loop_issue=measured per request" ||
	fail "the trace header does not say how requests were timed: $("$TIERSIM" trace dump "$TMPD/on.trace" | grep -m1 mount_opts=)"
# the trace carries each request the clock scheduled (format 9's issue
# items): the issue, the model's completion and what was taken off, after
# the record's CPU sample, and a virtual replay charges each from it
"$TIERSIM" trace stats "$TMPD/on.trace" --json >"$TMPD/on.json" || fail "trace stats failed"
ni=$(jq -r .request_clock.requests "$TMPD/on.json")
[ "$ni" = "$used" ] || fail "the trace has $ni requests timed from their issue, tierfs scheduled $used"
"$TIERSIM" trace dump "$TMPD/on.trace" | grep -m1 -B2 '^issue ' | grep -q '^[0-9]* [0-9]* read ' ||
	fail "an issue line does not follow a read: $("$TIERSIM" trace dump "$TMPD/on.trace" | grep -m1 -B2 '^issue ')"
"$TIERSIM" trace stats "$TMPD/on.trace" | grep -q "^request clock (block mode: $ni of [0-9]* reads and writes" ||
	fail "trace stats does not show the request clock"
[ "$("$TIERSIM" replay "$TMPD/on.trace" --virtual --tier ssd-cloud --json 2>/dev/null |
	jq -r '.results[1].from_issue')" = "$ni" ] || fail "the virtual replay did not charge the $ni requests from their issue"

# a machine that does not mount tracefs at boot: tierfs mounts it in a
# scratch directory of its own for the tracepoints' formats and ids, and
# the clock still runs; nothing of it is left (a mount namespace of the
# test's own, with tracefs unmounted in it)
if command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	mkdir -p "$TMPD/tmp"
	TMPDIR=$TMPD/tmp unshare -m --propagation private bash -c '
		umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null
		grep -q " tracefs " /proc/self/mountinfo && { echo "tracefs still mounted"; exit 1; }
		"$1" disk mount "$2" "$3" --tier ssd-cloud >/dev/null 2>"$4" || { echo "mount failed: $(cat "$4")"; exit 1; }
		dd if="$3/f" of=/dev/null bs=128k iflag=direct status=none || { echo "the direct read failed"; exit 1; }
		"$1" disk umount "$3" || { echo "umount failed"; exit 1; }
		grep -q "each request charged from the loop device'"'"'s issue, less its reply'"'"'s hop to the completion (measured per request)$" "$4" ||
			{ echo "the report: $(cat "$4")"; exit 1; }
		! grep -q " tracefs " /proc/self/mountinfo || { echo "a tracefs mount was left"; exit 1; }' \
		_ "$TIERSIM" "$img" "$MNT" "$TMPD/err" >"$TMPD/ns.out" 2>&1 || fail "without tracefs: $(cat "$TMPD/ns.out")"
	[ -z "$(ls -A "$TMPD/tmp")" ] || fail "without tracefs: left in TMPDIR: $(ls -A "$TMPD/tmp")"
	check_clean "without tracefs"
else
	echo "no private mount namespace here: the case without tracefs is not run"
fi

"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --loop-issue=watch >"$TMPD/out" 2>"$TMPD/err" ||
	fail "mount --loop-issue=watch failed: $(cat "$TMPD/err")"
grep -q "requests charged from tierfs's receipt, their completions compared with the model's from the loop device's issue" \
	"$TMPD/err" || fail "--loop-issue=watch: the report: $(cat "$TMPD/err")"
dd if="$MNT/f" of=/dev/null bs=128k iflag=direct status=none || fail "the direct read failed"
read -r label found used rn <<<"$(tierfs_stats loop_issue loop_issue_stats.found loop_issue_stats.used \
	loop_issue_stats.completion_less_model_ns.n)"
[ "$label $used" = "watched 0" ] || fail "--loop-issue=watch: the clock is '$label', $used requests timed from their issue"
[ "$found" -ge 64 ] && [ "$rn" -ge 64 ] ||
	fail "--loop-issue=watch: $found requests' issue found, $rn completions compared"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "--loop-issue=watch"

"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --loop-issue=off >"$TMPD/out" 2>"$TMPD/err" ||
	fail "mount --loop-issue=off failed: $(cat "$TMPD/err")"
grep -q "loop device's issue" "$TMPD/err" && fail "--loop-issue=off: the report: $(cat "$TMPD/err")"
[ "$(tierfs_stats loop_issue loop_issue_stats)" = "off -" ] || fail "--loop-issue=off: $(tierfs_stats loop_issue loop_issue_stats)"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "--loop-issue=off"

"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --loop-issue=maybe >"$TMPD/out" 2>"$TMPD/err" &&
	fail "--loop-issue=maybe was taken"
[ "$(cat "$TMPD/err")" = "tiersim disk mount: --loop-issue: 'maybe' is not on, off or watch" ] ||
	fail "--loop-issue=maybe: $(cat "$TMPD/err")"
check_clean "--loop-issue=maybe"

# tierfs alone: loop_issue is block mode's
mkdir -p "$TMPD/b" "$TMPD/m"
if "$TIERSIM_TIERFS" -o tier=ssd-cloud,loop_issue=on "$TMPD/b" "$TMPD/m" 2>"$TMPD/err"; then
	fusermount3 -u "$TMPD/m" 2>/dev/null || umount "$TMPD/m"
	fail "tierfs took loop_issue without image"
fi
grep -q "^tierfs: option 'loop_issue' is block mode's (with image)" "$TMPD/err" ||
	fail "tierfs's refusal: $(cat "$TMPD/err")"
exit 0
