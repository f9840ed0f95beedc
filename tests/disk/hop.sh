#!/usr/bin/env bash
# hop.sh — the loop device's hop measured at disk mount (disk/loop.h,
# fs/calib.c): tierfs measured it through a loop device of its own, now
# detached; it is labelled measured and taken off the tier model's latency
# with FUSE's round trip (the model's floor is their sum), its size and
# window parts off each read; disk mount's report, disk list, tierfs's
# control and the trace header show them;
# --loop-hop=false leaves it in ("off", the model's floor FUSE's alone).
# Figures are not asserted (wall clock): only where they go.
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit 77; }
head -c 300000 /dev/urandom >"$TMPD/data/f"
img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 64MiB --fs ext4 --from "$TMPD/data" || fail "make failed"

"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --trace "$TMPD/on.trace" >"$TMPD/out" 2>"$TMPD/err" ||
	fail "mount failed: $(cat "$TMPD/err")"
grep -q "FUSE round trip .* (measured), loop device hop .* (measured), a 128 KiB request .* more (measured), a read's readahead window .* more (measured)$" "$TMPD/err" ||
	fail "the mount's report does not give the hop and its size and window parts: $(cat "$TMPD/err")"
[ -s "$TMPD/out" ] && fail "disk mount wrote to stdout: $(cat "$TMPD/out")"
read -r label hop floor mfloor big win <<<"$(tierfs_stats loop_hop loop_hop_ns floor_ns model.floor_ns loop_hop_128k_ns loop_hop_window_ns)"
[ "$label" = measured ] || fail "tierfs's hop is '$label', not measured"
case $big in '' | *[!0-9]*) fail "tierfs's stats give no size part: '$big'" ;; esac
case $win in '' | *[!0-9]*) fail "tierfs's stats give no window part: '$win'" ;; esac
grep -q "^tierfs: a readahead window .* more through the loop device than its 128 KiB direct read pays (measured: median over 5 batches of 8 mapped passes" \
	"$TIERSIM_DISK_STATE"/*.log || fail "tierfs's log does not say how the window part was measured"
grep -q "^tierfs: a 128 KiB request .* more than a 4 KiB one through the loop device (measured" \
	"$TIERSIM_DISK_STATE"/*.log || fail "tierfs's log does not say how the size part was measured"
[ "$mfloor" = $((floor + hop)) ] ||
	fail "the model takes $mfloor ns off, not FUSE's $floor + the hop's $hop"
grep -q "^tierfs: loop device hop .* (measured: median over 5 batches of 40 4 KiB direct reads" \
	"$TIERSIM_DISK_STATE"/*.log || fail "tierfs's log does not say how the hop was measured"
# The measurement's loop device is gone: only the disk's is attached.
[ "$(our_loops | wc -l)" = 1 ] || fail "loop devices of ours: $(our_loops)"
"$TIERSIM" disk list | grep "^$MNT " | grep -Eq " [0-9.]+ (ns|us) +[0-9.]+ (ns|us) +[0-9.]+ (ns|us) " ||
	fail "disk list does not show the hop and its parts: $("$TIERSIM" disk list)"
cmp -s "$TMPD/data/f" "$MNT/f" || fail "the file read back differs"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "measured"
hdr=$("$TIERSIM" trace dump "$TMPD/on.trace" | grep -m1 'mount_opts=')
case "$hdr" in
*"floor=${floor}ns,"*"loop_hop=${hop}ns(measured)"*) ;;
*) fail "the trace header does not hold the hop ($hop ns) beside the floor ($floor ns): $hdr" ;;
esac
case "$hdr" in
*" model=6143 "*" loop_hop_ns=$hop loop_size_ns=$big loop_window_ns=$win fs_blocks="*) ;;
*) fail "the header has no loop_hop_ns=$hop, loop_size_ns=$big, loop_window_ns=$win fields before the image's geometry (format 12): $hdr" ;;
esac
case "$hdr" in
*"loop_hop=${hop}ns(measured),loop_hop_128k=${big}ns(measured),loop_hop_window=${win}ns(measured)"*) ;;
*) fail "the trace header's mount_opts do not hold the parts ($big, $win ns): $hdr" ;;
esac

"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --loop-hop=false >"$TMPD/out" 2>"$TMPD/err" ||
	fail "mount --loop-hop=false failed: $(cat "$TMPD/err")"
grep -q "loop device hop none (--loop-hop=false)$" "$TMPD/err" ||
	fail "the mount's report: $(cat "$TMPD/err")"
read -r label hop floor mfloor big win <<<"$(tierfs_stats loop_hop loop_hop_ns floor_ns model.floor_ns loop_hop_128k_ns loop_hop_window_ns)"
[ "$label $hop $big $win" = "off 0 0 0" ] || fail "--loop-hop=false: tierfs's hop is '$label $hop $big $win'"
[ "$mfloor" = "$floor" ] || fail "--loop-hop=false: the model takes $mfloor ns off, not FUSE's $floor"
"$TIERSIM" disk list | grep "^$MNT " | grep -q " off " || fail "disk list: $("$TIERSIM" disk list)"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "--loop-hop=false"
exit 0
